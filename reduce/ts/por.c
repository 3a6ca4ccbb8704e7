/* por.c: persistent sets over composed steps (Stoller, section 6: Godefroid's
 * Algorithm 2 computed by Overman's method over the composed system C(M)),
 * with a conservative version of the "might be the first to interfere"
 * relation. It computes, for a stored state, the set of threads whose steps
 * the search must explore there; it does not search (dfs_por.c, bfs.c) and
 * does not decide the cycle proviso (the searches do; the static one of
 * mcheck-mpi is por_cycle.c's).
 *
 * Objects. A step touches objects: lock elements (acquire, release, wait and
 * its re-acquire, notify, notifyall), channels (send, recv), the thread
 * id counter (every spawn, of any proc: the next free id goes to whichever
 * spawn runs first, so two spawns never commute), cond elements (the wait
 * set: cwait, its re-acquire, csignal, cbroadcast; a cwait also touches its
 * lock), and global elements: volatile ones, unshared
 * variables (all elements of one at once: the owner is per variable) and
 * shared elements not proved independent by the static analysis
 * (lockset/discharge.c's facts: an element only one thread can touch never
 * conflicts; one touched only under a common lock conflicts through that
 * lock: a step that touches it either acquires the lock, or runs while its
 * thread holds it, and then no other thread can reach the element before
 * that thread's own later steps release it). Any two accesses
 * of different threads to one object are dependent, reads included (the
 * detector's metadata is part of the state, and its updates do not all
 * commute); so the reduction keeps every Mazurkiewicz trace of the composed
 * system, detector included, whether LD' holds or not. `join` and `choose`
 * touch nothing: a join is enabled only once its thread has ended, and
 * then commutes with everything.
 *
 * Static tables (per analysis unit = body with a known or unknown self and
 * thread id, from vm_absregs()'s constant propagation): per pc, `tail` =
 * the objects of the invisible instructions a step starting there may run
 * after its first instruction (Stoller's pendInvisOps'), and `fut` = the
 * objects of every instruction the thread may still run, the threads it may
 * spawn included. A rendezvous (a send on a `chan c[0]`) is a step of two
 * threads: its objects are the channel, the sender's tail and the tail of
 * every receiver standing at a `recv` on it (thread_step()); a receiver
 * blocked there is enabled by the threads whose future uses the channel.
 *
 * Persistent set (Overman): from a seed thread, T grows until closed: an
 * enabled thread t in T adds every live thread u whose future may touch an
 * object of t's step (it might be the first to interfere); a disabled one
 * adds the threads that can enable it (the owner of the lock it acquires or
 * re-acquires, the threads that may notify on its lock or use its channel,
 * the thread it joins). A thread waiting on a lock (not yet notified) is
 * added only while someone outside the set could still notify it
 * (closure(), waiters_of(): Stoller's Figure 3). A thread in a cond's wait
 * set (cwait) is not deferred so: a csignal needs no lock, so the argument
 * does not carry over; it is added like any thread, and a disabled one
 * brings every thread whose future touches its cond or its lock. The seed is the lowest
 * enabled thread, the one composition's depth-first search runs first
 * (por_persistent()). With more than 64 threads the sets are not computed
 * (every enabled thread is explored). */
#include <stdlib.h>
#include <string.h>

#include "lockset.h"
#include "por_tab.h"

static inline void set_bit(uint64_t *w, uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }

static bool meets(const uint64_t *a, const uint64_t *b, uint32_t words)
{
    for (uint32_t i = 0; i < words; i++)
        if (a[i] & b[i]) return true;
    return false;
}

static bool or_into(uint64_t *dst, const uint64_t *src, uint32_t words)
{
    bool changed = false;
    for (uint32_t i = 0; i < words; i++) {
        uint64_t v = dst[i] | src[i];
        if (v != dst[i]) {
            dst[i] = v;
            changed = true;
        }
    }
    return changed;
}

static bool known(vm_absval v) { return v != VM_ABS_TOP && v != VM_ABS_BOT; }

/* The unit for (body, self, tid), made if new; UINT32_MAX when memory runs out. */
static uint32_t unit_of(por *P, uint32_t body, vm_absval self, vm_absval tid)
{
    for (uint32_t i = 0; i < P->nunits; i++)
        if (P->units[i].body == body && P->units[i].self == self && P->units[i].tid == tid)
            return i;
    if (P->nunits == P->cap) {
        uint32_t nc = P->cap ? 2 * P->cap : 16;
        por_unit *nu = realloc(P->units, nc * sizeof *nu);
        if (!nu) return UINT32_MAX;
        P->units = nu;
        P->cap = nc;
    }
    const vm_body *b = &P->p->bodies[body];
    por_unit *u = &P->units[P->nunits];
    *u = (por_unit){.body = body, .self = self, .tid = tid};
    u->regs = vm_absregs(P->p, body, self, tid);
    u->tail = calloc((size_t)b->ncode * P->words, sizeof *u->tail);
    u->fut = calloc((size_t)b->ncode * P->words, sizeof *u->fut);
    u->step = calloc((size_t)b->ncode * P->words, sizeof *u->step);
    u->exact = calloc(b->ncode, 1);
    if (!u->regs || !u->tail || !u->fut || !u->step || !u->exact) {
        free(u->regs);
        free(u->tail);
        free(u->fut);
        free(u->step);
        free(u->exact);
        return UINT32_MAX;
    }
    return P->nunits++;
}

/* The objects instruction `in` touches with registers `regs`, into w;
 * a spawn also names its child's unit in *child (else UINT32_MAX is left). */
static void op_objects(const por *P, const vm_insn *in, const vm_absval *regs, vm_absval self,
                       vm_absval tid, uint64_t *w, vm_absval *spawn_self)
{
    const vm_program *p = P->p;
    switch ((enum vm_opcode)in->op) {
    case VM_OP_load:
    case VM_OP_store: {
        const vm_var *v = &p->vars[in->obj];
        vm_absval ix = vm_absop(&in->idx, regs, self, tid);
        bool all = v->cls == VM_UNSHARED || !known(ix);
        for (uint32_t i = 0; i < v->size; i++) {
            if (!all && (vm_absval)i != ix) continue;
            uint32_t e = v->first_elem + i;
            if (v->cls == VM_SHARED && P->discharged[e]) continue;
            set_bit(w, P->obj_elem + e);
        }
        break;
    }
    case VM_OP_acquire:
    case VM_OP_release:
    case VM_OP_wait:
    case VM_OP_notify:
    case VM_OP_notifyall:
    case VM_OP_cwait:
    case VM_OP_atomic:     /* the hidden lock "(atomic)": every block is a */
    case VM_OP_end_atomic: /* step on it (its accesses are in the tail) */ {
        const vm_lockdecl *d = &p->lockdecls[in->obj];
        vm_absval ix = vm_absop(&in->idx, regs, self, tid);
        for (uint32_t i = 0; i < d->size; i++)
            if (!known(ix) || (vm_absval)i == ix) set_bit(w, d->first + i);
        break;
    }
    case VM_OP_send:
    case VM_OP_recv: set_bit(w, P->obj_chan + (uint32_t)in->obj); break;
    case VM_OP_spawn:
        set_bit(w, P->obj_spawn); /* one counter hands out every thread id */
        if (spawn_self) *spawn_self = vm_absop(&in->a, regs, self, tid);
        break;
    default: break;
    }
    if (vm_ops[in->op].flags & VM_F_COND) { /* cwait (its lock above), csignal, cbroadcast */
        const vm_lockdecl *d = &p->conddecls[in->cond];
        vm_absval ix = vm_absop(&in->cidx, regs, self, tid);
        for (uint32_t i = 0; i < d->size; i++)
            if (!known(ix) || (vm_absval)i == ix) set_bit(w, P->obj_cond + d->first + i);
    }
}

/* Fill u's tail and fut to a fixpoint within the unit (children's futures
 * as they stand); true if anything changed. */
static bool unit_pass(por *P, uint32_t ui, bool *nomem)
{
    const vm_program *p = P->p;
    uint32_t words = P->words;
    uint32_t body = P->units[ui].body;
    const vm_body *b = &p->bodies[body];
    uint32_t nr = b->nregs, row = nr + 1;
    bool any = false, changed = true;
    while (changed) {
        changed = false;
        for (uint32_t pc = b->ncode; pc-- > 0;) {
            por_unit *u = &P->units[ui]; /* unit_of() may move the array */
            const vm_absval *r = u->regs + (size_t)pc * row;
            if (r[nr] == VM_ABS_BOT) continue; /* not reached */
            uint64_t *tmp = P->tmp;
            memset(tmp, 0, words * sizeof *tmp);
            vm_absval cself = VM_ABS_BOT;
            op_objects(P, &b->code[pc], r, u->self, u->tid, tmp, &cself);
            if (cself != VM_ABS_BOT) { /* a spawn: the child's whole future */
                uint32_t c = unit_of(P, b->code[pc].obj, known(cself) ? cself : VM_ABS_TOP,
                                     VM_ABS_TOP);
                if (c == UINT32_MAX) {
                    *nomem = true;
                    return false;
                }
                u = &P->units[ui];
                or_into(tmp, P->units[c].fut, words);
            }
            uint32_t sbuf[2];
            const uint32_t *succ;
            unsigned ns = vm_abssucc(b, pc, r, u->self, u->tid, sbuf, &succ);
            uint64_t *t = u->tail + (size_t)pc * words, *f = u->fut + (size_t)pc * words;
            for (unsigned i = 0; i < ns; i++) {
                const uint64_t *fs = u->fut + (size_t)succ[i] * words;
                if (or_into(f, fs, words)) changed = true;
                if (!b->code[succ[i]].visible) {
                    /* the step goes on through succ: its first instruction
                     * and its own tail */
                    if (or_into(t, u->tail + (size_t)succ[i] * words, words)) changed = true;
                    uint64_t *tmp2 = P->step; /* scratch: the successor's own objects */
                    memset(tmp2, 0, words * sizeof *tmp2);
                    const vm_absval *rs = u->regs + (size_t)succ[i] * row;
                    vm_absval ss = VM_ABS_BOT;
                    op_objects(P, &b->code[succ[i]], rs, u->self, u->tid, tmp2, &ss);
                    if (ss != VM_ABS_BOT) {
                        uint32_t c = unit_of(P, b->code[succ[i]].obj,
                                             known(ss) ? ss : VM_ABS_TOP, VM_ABS_TOP);
                        if (c == UINT32_MAX) {
                            *nomem = true;
                            return false;
                        }
                        u = &P->units[ui];
                        t = u->tail + (size_t)pc * words;
                        f = u->fut + (size_t)pc * words;
                        or_into(tmp2, P->units[c].fut, words);
                    }
                    if (or_into(t, tmp2, words)) changed = true;
                }
            }
            if (or_into(f, tmp, words)) changed = true;
        }
        any |= changed;
    }
    return any;
}

/* The unit of a thread of proc `body` with `self` (its spawn argument): the
 * one made for that value if any, else the proc's unit with self unknown. */
uint32_t por_spawn_unit(const por *P, uint32_t body, vm_absval self)
{
    for (uint32_t i = 0; i < P->nunits; i++)
        if (P->units[i].body == body && P->units[i].self == self && P->units[i].tid == VM_ABS_TOP)
            return i;
    return P->top_unit[body];
}

/* op_objects(), and for a spawn its child's whole future. */
static void insn_objects(const por *P, const vm_insn *in, const vm_absval *regs,
                         vm_absval self, vm_absval tid, uint64_t *w)
{
    vm_absval cself = VM_ABS_BOT;
    op_objects(P, in, regs, self, tid, w, &cself);
    if (cself != VM_ABS_BOT)
        or_into(w, P->units[por_spawn_unit(P, (uint32_t)in->obj, cself)].fut, P->words);
}

static bool rendezvous_send(const vm_program *p, const vm_insn *in)
{
    return in->op == VM_OP_send && p->chans[in->obj].cap == 0;
}

uint64_t por_partners(const por *P, const uint8_t *s, int t)
{
    const vm_program *p = P->p;
    uint64_t m = 0;
    for (uint64_t k = 0; p->nthreads <= 64; k++) {
        int r = vm_rendezvous_receiver(p, s, t, k);
        if (r < 0) break;
        m |= 1ull << r;
    }
    return m;
}

/* Does the instruction name its object through a value not known here? */
static bool needs_regs(const vm_insn *in, const vm_absval *regs, vm_absval self, vm_absval tid)
{
    switch ((enum vm_opcode)in->op) {
    case VM_OP_load: case VM_OP_store: case VM_OP_acquire: case VM_OP_release:
    case VM_OP_wait: case VM_OP_notify: case VM_OP_notifyall:
        return !known(vm_absop(&in->idx, regs, self, tid));
    case VM_OP_cwait:
        return !known(vm_absop(&in->idx, regs, self, tid)) ||
               !known(vm_absop(&in->cidx, regs, self, tid));
    case VM_OP_csignal: case VM_OP_cbroadcast:
        return !known(vm_absop(&in->cidx, regs, self, tid));
    case VM_OP_spawn: return !known(vm_absop(&in->a, regs, self, tid));
    default: return false;
    }
}

/* step[pc] = the first instruction's objects (as far as known statically)
 * and the tail; exact[pc] when nothing in the first instruction is unknown. */
static void unit_steps(por *P, por_unit *u)
{
    const vm_body *b = &P->p->bodies[u->body];
    uint32_t words = P->words, row = b->nregs + 1;
    for (uint32_t pc = 0; pc < b->ncode; pc++) {
        const vm_absval *r = u->regs + (size_t)pc * row;
        if (r[b->nregs] == VM_ABS_BOT) continue;
        uint64_t *w = u->step + (size_t)pc * words;
        memcpy(w, u->tail + (size_t)pc * words, words * sizeof *w);
        insn_objects(P, &b->code[pc], r, u->self, u->tid, w);
        /* a rendezvous also runs its receiver's tail (thread_step()) */
        u->exact[pc] = !needs_regs(&b->code[pc], r, u->self, u->tid) &&
                       !rendezvous_send(P->p, &b->code[pc]);
    }
}

por *por_new(const vm_program *p)
{
    por *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->p = p;
    ls_elem_facts *facts = ls_discharge_facts(p);
    P->discharged = calloc(p->nelems ? p->nelems : 1, 1);
    if (!facts || !P->discharged) {
        free(facts);
        goto fail;
    }
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *var = &p->vars[v];
        if (var->cls != VM_SHARED) continue;
        for (uint32_t i = 0; i < var->size; i++) {
            const ls_elem_facts *f = &facts[var->first_elem + i];
            /* (read-only: reads of one value commute, and no detector
             * keeps metadata for it with --por: ls_discharge_why()) */
            P->discharged[var->first_elem + i] =
                f->threads <= 1 || f->lock != UINT32_MAX ||
                (!var->stored && (var->init_body < 0 || f->init_ok));
        }
    }
    free(facts);
    /* a shared element a prop reads is an object of its accesses: its
     * stores must be seen as visible steps by --ltl --por (live_por.c) */
    for (uint32_t i = 0; i < p->nprops; i++)
        for (uint32_t k = 0; k < p->props[i].ncode; k++)
            if (p->props[i].code[k].op == VM_PX_ELEM)
                P->discharged[p->props[i].code[k].a] = 0;
    P->obj_chan = p->nlocks;
    P->obj_spawn = P->obj_chan + p->nchans;
    P->obj_cond = P->obj_spawn + 1;
    P->obj_elem = P->obj_cond + p->nconds;
    uint32_t nobj = P->obj_elem + p->nelems;
    P->words = (nobj + 63) / 64;
    if (!P->words) P->words = 1;
    uint32_t n = p->nthreads;
    P->static_unit = calloc(p->nstatic ? p->nstatic : 1, sizeof *P->static_unit);
    P->top_unit = calloc(p->nbodies ? p->nbodies : 1, sizeof *P->top_unit);
    P->step = calloc((size_t)n * P->words, sizeof *P->step);
    P->fut = calloc(n, sizeof *P->fut);
    P->adj = calloc(n, sizeof *P->adj);
    P->pend = calloc(n, sizeof *P->pend);
    P->notif = calloc(n, sizeof *P->notif);
    P->wowner = calloc(n, sizeof *P->wowner);
    P->tmp = calloc(P->words, sizeof *P->tmp);
    if (!P->static_unit || !P->top_unit || !P->step || !P->fut || !P->adj || !P->pend ||
        !P->notif || !P->wowner || !P->tmp)
        goto fail;
    for (uint32_t t = 0; t < p->nstatic; t++) {
        uint32_t u = unit_of(P, (uint32_t)p->threads[t].body, p->threads[t].self, t);
        if (u == UINT32_MAX) goto fail;
        P->static_unit[t] = u;
    }
    for (uint32_t b = 0; b < p->nbodies; b++) {
        P->top_unit[b] = UINT32_MAX;
        if (!p->bodies[b].is_proc) continue;
        uint32_t u = unit_of(P, b, VM_ABS_TOP, VM_ABS_TOP);
        if (u == UINT32_MAX) goto fail;
        P->top_unit[b] = u;
    }
    /* to the fixpoint over all units (a spawn reads its child's future) */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < P->nunits; i++) {
            bool nomem = false;
            if (unit_pass(P, i, &nomem)) changed = true;
            if (nomem) goto fail;
        }
    }
    for (uint32_t i = 0; i < P->nunits; i++) unit_steps(P, &P->units[i]);
    return P;
fail:
    por_free(P);
    return NULL;
}

void por_free(por *P)
{
    if (!P) return;
    for (uint32_t i = 0; i < P->nunits; i++) {
        free(P->units[i].regs);
        free(P->units[i].tail);
        free(P->units[i].fut);
        free(P->units[i].step);
        free(P->units[i].exact);
    }
    free(P->units);
    free(P->static_unit);
    free(P->top_unit);
    free(P->step);
    free(P->fut);
    free(P->adj);
    free(P->pend);
    free(P->notif);
    free(P->wowner);
    free(P->tmp);
    for (uint32_t i = 0; P->cyc && i < P->nunits; i++) free(P->cyc[i]);
    free(P->cyc);
    free(P->discharged);
    free(P);
}

size_t por_bytes(const por *P)
{
    if (!P) return 0;
    size_t n = sizeof *P + P->cap * sizeof *P->units;
    for (uint32_t i = 0; i < P->nunits; i++) {
        const vm_body *b = &P->p->bodies[P->units[i].body];
        n += (size_t)b->ncode * ((b->nregs + 1) * sizeof(vm_absval) + 2 * P->words * 8);
    }
    return n + (size_t)P->p->nthreads * (P->words * 8 + sizeof(void *) + 3 * 8 + 4);
}

/* The unit of live thread t in s. */
const por_unit *por_unit_at(const por *P, const uint8_t *s, int t)
{
    const vm_program *p = P->p;
    if ((uint32_t)t < p->nstatic) return &P->units[P->static_unit[t]];
    return &P->units[por_spawn_unit(P, vm_tbody_index(p, s, t), vm_tself(p, s, t))];
}

/* The registers of thread t in s, as a vm_absregs() row. */
static void concrete_regs(const vm_program *p, const uint8_t *s, int t, uint32_t nregs,
                          vm_absval *out)
{
    const vm_thread_slot *sl = &p->threads[t];
    for (uint32_t r = 0; r < nregs; r++) out[r] = vm_rd32(s, vm_treg_off(sl, r));
}

bool por_applies(const por *P) { return P->p->nthreads <= 64; }

/* The objects of live thread t's step in s (t at pc of unit u): the
 * static set, or, when the first instruction names its object through a
 * register, that object with the registers now and the static tail (in
 * the thread's scratch row). */
static const uint64_t *thread_step(por *P, const uint8_t *s, int t, const por_unit *u,
                                   uint32_t pc)
{
    const vm_program *p = P->p;
    uint32_t words = P->words;
    const uint64_t *st = u->step + (size_t)pc * words;
    const vm_body *b = &p->bodies[u->body];
    if (u->exact[pc] || b->nregs > VM_MAX_REGS + 64) return st; /* (not met: the assembler's limit) */
    vm_absval regs[VM_MAX_REGS + 64];
    uint64_t *w = P->step + (size_t)t * words;
    memcpy(w, u->tail + (size_t)pc * words, words * sizeof *w);
    concrete_regs(p, s, t, b->nregs, regs);
    vm_absval self = (uint32_t)t < p->nstatic ? p->threads[t].self : vm_tself(p, s, t);
    insn_objects(P, &b->code[pc], regs, self, t, w);
    /* a rendezvous: the tail of whichever receiver it takes */
    for (uint64_t rs = rendezvous_send(p, &b->code[pc]) ? por_partners(P, s, t) : 0; rs;
         rs &= rs - 1) {
        int r = __builtin_ctzll(rs);
        or_into(w, por_unit_at(P, s, r)->tail + (size_t)vm_tpc(p, s, r) * words, words);
    }
    return w;
}

uint64_t por_independent(por *P, const uint8_t *s, int t, uint64_t mask)
{
    const vm_program *p = P->p;
    uint32_t words = P->words;
    if (p->nthreads > 64) return 0;
    const uint64_t *st = thread_step(P, s, t, por_unit_at(P, s, t), vm_tpc(p, s, t));
    uint64_t ind = 0;
    for (mask &= ~(1ull << t); mask; mask &= mask - 1) {
        uint32_t u = (uint32_t)__builtin_ctzll(mask);
        if (!meets(st, thread_step(P, s, (int)u, por_unit_at(P, s, (int)u), vm_tpc(p, s, (int)u)),
                   words))
            ind |= 1ull << u;
    }
    return ind;
}

uint32_t por_words(const por *P) { return P->words; }

void por_step_objects(por *P, const uint8_t *s, int t, uint64_t *out)
{
    const vm_program *p = P->p;
    or_into(out, thread_step(P, s, t, por_unit_at(P, s, t), vm_tpc(p, s, t)), P->words);
}

bool por_objects_meet(const por *P, const uint64_t *a, const uint64_t *b)
{
    return meets(a, b, P->words);
}

/* Thread t's step objects less the locks t owns in s (Stoller's Figure 3:
 * release, notify and notifyall by the owner might be the first to
 * interfere with nothing, nor might a recursive acquire): while t owns lock
 * L, no other thread can run an operation on L (acquire, the re-acquire
 * after a wait, release, wait, notify and notifyall all need L free or
 * owned; so does a cwait on L and its re-acquire), and only t can free it.
 * Not when t's step is a wait or a cwait (it frees its lock, and the
 * acquires of others may be first to interfere), nor
 * with --spurious-wakeups (a waiter may then leave L's wait set on its
 * own, which a notify by the owner does not commute with). The result is
 * step itself, or P->tmp. */
static const uint64_t *owned_masked(por *P, const uint8_t *s, int t, const uint64_t *step)
{
    const vm_program *p = P->p;
    if (p->spurious_wakeups || !p->nlocks) return step;
    const vm_insn *in = &vm_thread_body(p, s, t)->code[vm_tpc(p, s, t)];
    if (in->op == VM_OP_wait || in->op == VM_OP_cwait) return step;
    bool any = false;
    for (uint32_t l = 0; l < p->nlocks; l++) {
        if (!((step[l >> 6] >> (l & 63)) & 1) || vm_lock_owner(p, s, l) != t) continue;
        if (!any) {
            memcpy(P->tmp, step, P->words * sizeof *P->tmp);
            any = true;
        }
        P->tmp[l >> 6] &= ~(1ull << (l & 63));
    }
    return any ? P->tmp : step;
}

/* Stoller's Figure 3, the waiters (acquire ▷ wait2 needs owner = θ1 when
 * θ2 is in the wait set): a thread u waiting on lock L, not yet notified,
 * runs nothing until a notify on L takes it out of the wait set, and a
 * notify needs L owned by its thread. In a sequence of steps of threads
 * outside the persistent set T, the first notify on L would be by such a
 * thread w that owns L by then: so w is not itself waiting on L in s (it
 * would need an earlier notify), its future touches L (the notify), and
 * if L has an owner in s, that owner has released L first, so it is not
 * in T (T's threads do not run in the sequence). Hence, when L's owner is
 * in T, or every live thread but u whose future touches L and that is not
 * waiting on L is in T, u does not run in the sequence at all, so it can
 * be the first to interfere with nothing and enables nothing: the closure
 * leaves it out, whoever would add it. Not with --spurious-wakeups (u may
 * then leave the wait set on its own).
 *
 * The waiting threads of s that are live (bits), with each one's notifiers
 * (P->notif) and its lock's owner (P->wowner). */
static uint64_t waiters_of(por *P, const uint8_t *s, uint64_t live)
{
    const vm_program *p = P->p;
    if (p->spurious_wakeups || !p->nlocks) return 0;
    uint32_t lock[64];
    uint64_t waiting = 0;
    for (uint64_t ts = live; ts; ts &= ts - 1) {
        uint32_t t = (uint32_t)__builtin_ctzll(ts);
        if (vm_tstatus_of(p, s, (int)t) != VM_T_WAITING) continue;
        const vm_body *b = vm_thread_body(p, s, (int)t);
        const vm_insn *in = &b->code[vm_tpc(p, s, (int)t)];
        if (in->op != VM_OP_wait || b->nregs > VM_MAX_REGS + 64) continue;
        vm_absval regs[VM_MAX_REGS + 64];
        concrete_regs(p, s, (int)t, b->nregs, regs);
        vm_absval self = t < p->nstatic ? p->threads[t].self : vm_tself(p, s, (int)t);
        vm_absval ix = vm_absop(&in->idx, regs, self, (vm_absval)t);
        const vm_lockdecl *d = &p->lockdecls[in->obj];
        if (!known(ix) || ix < 0 || (uint32_t)ix >= d->size) continue;
        lock[t] = d->first + (uint32_t)ix;
        waiting |= 1ull << t;
    }
    for (uint64_t us = waiting; us; us &= us - 1) {
        uint32_t u = (uint32_t)__builtin_ctzll(us), l = lock[u];
        uint64_t nf = 0;
        for (uint64_t ws = live & ~(1ull << u); ws; ws &= ws - 1) {
            uint32_t w = (uint32_t)__builtin_ctzll(ws);
            if ((waiting >> w) & 1 && lock[w] == l) continue;
            if ((P->fut[w][l >> 6] >> (l & 63)) & 1) nf |= 1ull << w;
        }
        P->notif[u] = nf;
        P->wowner[u] = vm_lock_owner(p, s, l);
    }
    return waiting;
}

/* The closure of T over P->adj, and of the waiting threads some member
 * would add (P->pend) those that may still run in a sequence outside it
 * (waiters_of()), one at a time (each added waiter brings its notifiers,
 * and with them its fellow waiters may stay out); it stops early once T
 * meets `stop`. */
static uint64_t closure(const por *P, uint64_t T, uint64_t waiting, uint64_t stop)
{
    uint64_t work = T;
    for (;;) {
        while (work && !(T & stop)) {
            uint32_t t = (uint32_t)__builtin_ctzll(work);
            work &= work - 1;
            uint64_t add = P->adj[t] & ~T;
            T |= add;
            work |= add;
        }
        if (!waiting || (T & stop)) return T;
        uint64_t want = 0;
        for (uint64_t ts = T; ts; ts &= ts - 1) want |= P->pend[__builtin_ctzll(ts)];
        for (want &= ~T; want; want &= want - 1) {
            uint32_t u = (uint32_t)__builtin_ctzll(want);
            int o = P->wowner[u];
            if (o >= 0 && (T >> o) & 1) continue;
            if (P->notif[u] & ~T) break;
        }
        if (!want) return T;
        work = want & -want;
        T |= work;
    }
}

uint64_t por_persistent(por *P, const uint8_t *s, uint64_t enabled)
{
    return por_persistent_from(P, s, enabled, enabled ? (uint32_t)__builtin_ctzll(enabled) : 0);
}

uint64_t por_persistent_from(por *P, const uint8_t *s, uint64_t enabled, uint32_t seed)
{
    const vm_program *p = P->p;
    uint32_t n = p->nthreads, words = P->words;
    if (n > 64 || __builtin_popcountll(enabled) <= 1) return enabled;
    uint64_t live = 0;
    const uint64_t *step[64];
    for (uint32_t t = 0; t < n; t++) {
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
        P->fut[t] = NULL;
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        live |= 1ull << t;
        const por_unit *u = por_unit_at(P, s, (int)t);
        uint32_t pc = vm_tpc(p, s, (int)t);
        P->fut[t] = u->fut + (size_t)pc * words;
        if ((enabled >> t) & 1) step[t] = thread_step(P, s, (int)t, u, pc);
    }
    /* the graph of the closure: an enabled thread adds the live threads
     * whose future meets its step, a disabled one its enablers; the
     * waiting threads among them are deferred (closure()) */
    P->waiting = waiters_of(P, s, live);
    for (uint64_t ts = live; ts; ts &= ts - 1) {
        uint32_t t = (uint32_t)__builtin_ctzll(ts);
        uint64_t add = 0;
        if ((enabled >> t) & 1) {
            const uint64_t *st = owned_masked(P, s, (int)t, step[t]);
            for (uint64_t us = live & ~(1ull << t); us; us &= us - 1) {
                uint32_t u = (uint32_t)__builtin_ctzll(us);
                if (meets(st, P->fut[u], words)) add |= 1ull << u;
            }
        } else {
            add = por_enablers(P, s, (int)t, live);
        }
        P->pend[t] = add & P->waiting;
        P->adj[t] = add & ~P->waiting;
    }
    /* the closure of the lowest enabled thread: the smallest persistent set
     * (of this construction) that holds the thread composition's
     * depth-first search would run first (closures are monotone), so the
     * reduced search's first path is composition's and it meets an error
     * on that path as early. The smallest set over every seed can postpone
     * the threads composition runs first: on a ring of ten workers plus two
     * threads that deadlock, {those two} was the smallest set, and the
     * search walked the whole ring below each of their steps before trying
     * the other order (16 million states without the deadlock composition
     * met after 118; tests/e2e/test_fold_start.py's ring). A search that
     * tries the threads in another order (--swarm's workers, dfs_por.c)
     * passes the thread it runs first: por_persistent_from(). */
    return closure(P, 1ull << seed, P->waiting, 0) & enabled;
}

uint64_t por_enablers(por *P, const uint8_t *s, int t, uint64_t live)
{
    const vm_program *p = P->p;
    uint32_t words = P->words;
    enum vm_tstatus st = vm_tstatus_of(p, s, t);
    const vm_body *b = vm_thread_body(p, s, t);
    uint32_t pc = vm_tpc(p, s, t);
    const vm_insn *in = &b->code[pc];
    uint64_t others = live & ~(1ull << t);
    if (in->op == VM_OP_assume) return 0; /* a register's value: blocked for good */
    if (in->op == VM_OP_atomic) {
        /* a guard reads globals: whoever may write them (be safe: all) */
        if (in->b.val) return others;
        in++; /* else blocked by its first instruction */
    }
    /* the object the blocked instruction waits on, with the registers now */
    vm_absval regs[VM_MAX_REGS + 64];
    if (b->nregs > VM_MAX_REGS + 64) return others;
    concrete_regs(p, s, t, b->nregs, regs);
    vm_absval self = (uint32_t)t < p->nstatic ? p->threads[t].self : vm_tself(p, s, t);
    uint64_t *w = P->tmp;
    memset(w, 0, words * sizeof *w);
    op_objects(P, in, regs, self, t, w, NULL);
    switch ((enum vm_opcode)in->op) {
    case VM_OP_acquire:
    case VM_OP_wait:
    case VM_OP_cwait: {
        /* needs a notify (signal): whoever may use the lock (cond) */
        if (st == VM_T_WAITING) break;
        /* acquire, or the re-acquire of a notified wait: the owner must release */
        vm_absval ix = vm_absop(&in->idx, regs, self, t);
        const vm_lockdecl *d = &p->lockdecls[in->obj];
        if (!known(ix) || ix < 0 || (uint32_t)ix >= d->size) return others;
        int owner = vm_lock_owner(p, s, d->first + (uint32_t)ix);
        if (owner < 0 || owner == t) return others; /* not blocked on the lock: be safe */
        return (live >> owner) & 1 ? 1ull << owner : 0;
    }
    case VM_OP_join: {
        vm_absval a = vm_absop(&in->a, regs, self, t);
        if (!known(a) || a < 0 || (uint64_t)a >= p->nthreads) return others;
        if ((live >> a) & 1) return 1ull << a;
        return vm_tstatus_of(p, s, (int)a) == VM_T_UNUSED ? others : 0;
    }
    case VM_OP_send:
    case VM_OP_recv: break;
    default: return others;
    }
    /* the threads whose future touches the lock or channel */
    uint64_t add = 0;
    for (uint64_t us = others; us; us &= us - 1) {
        uint32_t u = (uint32_t)__builtin_ctzll(us);
        if (P->fut[u] && meets(w, P->fut[u], words)) add |= 1ull << u;
    }
    return add;
}

uint64_t *por_prop_objects(const por *P, uint64_t used, uint64_t *at)
{
    const vm_program *p = P->p;
    uint64_t *w = calloc(P->words, sizeof *w);
    if (!w) return NULL;
    *at = 0;
    for (uint32_t i = 0; i < p->nprops && i < 64; i++) {
        if (!((used >> i) & 1)) continue;
        const vm_prop *pr = &p->props[i];
        for (uint32_t k = 0; k < pr->ncode; k++) {
            const vm_pxinsn *in = &pr->code[k];
            if (in->op == VM_PX_ELEM) set_bit(w, P->obj_elem + (uint32_t)in->a);
            else if (in->op == VM_PX_OWNER) set_bit(w, (uint32_t)in->a);
            else if (in->op == VM_PX_AT && in->a >= 0 && in->a < 64) *at |= 1ull << in->a;
        }
    }
    return w;
}

bool por_first_writes(por *P, const uint8_t *s, int t, const uint64_t *objs)
{
    const vm_program *p = P->p;
    const vm_body *b = vm_thread_body(p, s, t);
    uint32_t pc = vm_tpc(p, s, t);
    if (!b || pc >= b->ncode) return false;
    const vm_insn *in = &b->code[pc];
    switch ((enum vm_opcode)in->op) {
    case VM_OP_cwait: /* frees its lock (its re-acquire takes it) */
    case VM_OP_store: case VM_OP_acquire: case VM_OP_release: case VM_OP_wait: break;
    case VM_OP_atomic: return true; /* its block may store anything (be safe) */
    default: return false; /* changes no global element and no lock's owner */
    }
    if (b->nregs > VM_MAX_REGS + 64) return true; /* (not met: the assembler's limit) */
    vm_absval regs[VM_MAX_REGS + 64];
    concrete_regs(p, s, t, b->nregs, regs);
    vm_absval self = (uint32_t)t < p->nstatic ? p->threads[t].self : vm_tself(p, s, t);
    uint64_t *w = P->tmp;
    memset(w, 0, P->words * sizeof *w);
    op_objects(P, in, regs, self, t, w, NULL);
    return meets(w, objs, P->words);
}

uint64_t por_persistent_avoiding(por *P, const uint8_t *s, uint64_t enabled, uint64_t avoid)
{
    uint64_t best = por_persistent(P, s, enabled);
    if (!(best & avoid) || P->p->nthreads > 64 || __builtin_popcountll(enabled) <= 1)
        return best;
    /* por_persistent() left the graph of the closure in P->adj and P->pend
     * (a row per live thread): the smallest closure of a seed that avoids
     * them */
    int best_n = 65;
    uint64_t pick = best;
    for (uint64_t seeds = enabled & ~avoid; seeds && best_n > 1; seeds &= seeds - 1) {
        uint32_t seed = (uint32_t)__builtin_ctzll(seeds);
        uint64_t T = closure(P, 1ull << seed, P->waiting, enabled & avoid);
        int k = __builtin_popcountll(T & enabled);
        if (!(T & enabled & avoid) && k < best_n) {
            best_n = k;
            pick = T & enabled;
        }
    }
    return pick;
}
