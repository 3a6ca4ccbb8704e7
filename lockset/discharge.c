/* discharge.c: the static discharge of shared elements (mcheck --por): which
 * elements of `shared` variables a detector can never report, so that they
 * need no metadata in the state vector and no run-time checks. It is the
 * thread-local / lock-protected static reasoning of RATCOP (Mukherjee,
 * Padon, Shoham, D'Souza, Rinetzky, "Thread-local semantics and its
 * efficient sequential abstractions for race-free programs", SAS 2017),
 * used here to make the search cheaper: without the metadata, states that
 * differ only in what the detector remembers about such an element are one.
 *
 * Analysis units: each static thread instance (its body, self and id known)
 * and each `proc` body (self and id unknown; it stands for `max` threads).
 * Per unit, over the pcs reachable from pc 0 under vm_absregs()' constant
 * propagation: a load or store with a known index names one element (an
 * out-of-range index faults: no access), an unknown index every element; a
 * forward must-hold analysis (intersection at joins, empty at pc 0) gives
 * the lock elements held at each pc: `acquire` with a known index adds its
 * lock, `release` removes it (an unknown index: every element of that
 * declaration; a recursive acquire is forgotten at its first release, which
 * only under-approximates), `wait` leaves the set as it was (the lock is
 * re-acquired before the thread goes on), and a thread starts with none.
 * Per element: how many threads may access it (0, 1, 2+), a lock element
 * held at every access, and whether every accessor is an instance of the
 * variable's `init T` body.
 *
 * Why a discharged element never changes a verdict (the detector's other
 * elements never read its metadata, so dropping it changes nothing else):
 *   LD' reports an element when its candidate set, the intersection of the
 *     held sets of its checked accesses, is empty on a write, or when a
 *     thread other than an instance of T makes the first access under
 *     `init T`. With lock L held at every access the candidate set always
 *     holds L; with every accessor an instance of T the first access is T's.
 *     A lone accessor is NOT enough for LD': it has no exclusive phase, so a
 *     thread writing even its own element without a lock violates it (it is
 *     a discipline, Stoller section 7, not a race check). For LD' only
 *     "common lock" (and "no access at all") discharge.
 *   Eraser: a lone accessor keeps the element exclusive forever (never
 *     reported); with L held at every access the candidate set holds L.
 *     Eraser ignores `init T`, so the init condition does not apply.
 *   Goldilocks: a lone accessor t finds t in every lockset it left (a
 *     lockset only grows until the next access replaces it). With L held at
 *     every access, between an access by t and a later one by u != t, t
 *     releases L (L joins every lockset holding t) and u acquires it (u
 *     joins every lockset holding L): the accesses are ordered. Goldilocks
 *     ignores `init T` too.
 *   Read-only: no `store` in the program names the variable, so every
 *     access is a read. LD' reports only on an element that has been
 *     written (or, under `init T`, on a first access by another thread: such
 *     a variable keeps its metadata unless every accessor runs T); Eraser
 *     only in its shared-modified state, which needs a write; Goldilocks
 *     only on an access racing with a write.
 *   Ordered (Goldilocks only): every two conflicting accesses by different
 *     threads happen one before the other, by spawn, join, a channel or a
 *     lock held at both (discharge_hb.c argues it and says what it leaves
 *     out: volatile hand-overs among others). LD' and Eraser report such a
 *     hand-over by design: for them these elements keep their metadata.
 * What it does not do: path sensitivity beyond constant branches, or
 * anything about unshared and volatile variables. */
#include "lockset_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool known(vm_absval v) { return v != VM_ABS_TOP && v != VM_ABS_BOT; }

/* The lock element an operand names in declaration k, given the registers:
 * the element, NONE when the index is unknown, NONE - 1 when it is known
 * but out of range (the instruction faults). */
static uint32_t lock_of(const vm_program *p, const vm_insn *in, const vm_absval *regs,
                        vm_absval self, vm_absval tid)
{
    const vm_lockdecl *k = &p->lockdecls[in->obj];
    vm_absval i = vm_absop(&in->idx, regs, self, tid);
    if (!known(i)) return NONE;
    if (i < 0 || i >= (vm_absval)k->size) return NONE - 1;
    return k->first + (uint32_t)i;
}

typedef struct unit_ctx {
    const vm_program *p;
    uint32_t lw;        /* words of a lock bitset */
    uint64_t *held;     /* per pc of the body: must-hold set */
    bool *seen;         /* per pc: held[pc] is set */
    uint32_t *work;
    bool *queued;
    uint64_t *out;      /* scratch: one set */
} unit_ctx;

/* The must-hold sets of one unit (body b, self, tid) into c->held; regs
 * from vm_absregs(). */
static void must_hold(unit_ctx *c, uint32_t b, const vm_absval *regs, vm_absval self,
                      vm_absval tid)
{
    const vm_program *p = c->p;
    const vm_body *body = &p->bodies[b];
    uint32_t nr = body->nregs, lw = c->lw;
    size_t row = (size_t)nr + 1;
    memset(c->seen, 0, body->ncode * sizeof *c->seen);
    memset(c->queued, 0, body->ncode * sizeof *c->queued);
    memset(c->held, 0, (size_t)lw * sizeof *c->held); /* pc 0: no lock */
    c->seen[0] = true;
    uint32_t nwork = 0;
    if (regs[nr] == 0) {
        c->work[nwork++] = 0;
        c->queued[0] = true;
    }
    while (nwork) {
        uint32_t pc = c->work[--nwork];
        c->queued[pc] = false;
        const vm_insn *in = &body->code[pc];
        const vm_absval *r = regs + (size_t)pc * row;
        memcpy(c->out, c->held + (size_t)pc * lw, lw * sizeof *c->out);
        uint32_t l;
        switch ((enum vm_opcode)in->op) {
        case VM_OP_acquire:
        case VM_OP_atomic: /* holds the hidden lock "(atomic)" to its end */
            l = lock_of(p, in, r, self, tid);
            if (l == NONE - 1) continue; /* faults: no successor */
            if (l != NONE) c->out[l >> 6] |= 1ull << (l & 63);
            break;
        case VM_OP_release:
        case VM_OP_end_atomic:
            l = lock_of(p, in, r, self, tid);
            if (l == NONE - 1) continue;
            if (l != NONE) {
                c->out[l >> 6] &= ~(1ull << (l & 63));
            } else {
                const vm_lockdecl *k = &p->lockdecls[in->obj];
                for (uint32_t e = k->first; e < k->first + k->size; e++)
                    c->out[e >> 6] &= ~(1ull << (e & 63));
            }
            break;
        case VM_OP_wait:
        case VM_OP_cwait: /* (a cwait holds it at depth 1 again) */
            if (lock_of(p, in, r, self, tid) == NONE - 1) continue;
            break; /* released and re-acquired before the thread goes on */
        default: break;
        }
        uint32_t sbuf[2];
        const uint32_t *succ;
        unsigned ns = vm_abssucc(body, pc, r, self, tid, sbuf, &succ);
        for (unsigned i = 0; i < ns; i++) {
            uint64_t *dst = c->held + (size_t)succ[i] * lw;
            bool changed = !c->seen[succ[i]];
            if (changed) {
                memcpy(dst, c->out, lw * sizeof *dst);
                c->seen[succ[i]] = true;
            } else {
                for (uint32_t w = 0; w < lw; w++) {
                    uint64_t v = dst[w] & c->out[w];
                    changed |= v != dst[w];
                    dst[w] = v;
                }
            }
            if (changed && !c->queued[succ[i]]) {
                c->queued[succ[i]] = true;
                c->work[nwork++] = succ[i];
            }
        }
    }
}

bool ls_unit_held(const vm_program *p, uint32_t b, const vm_absval *regs, vm_absval self,
                  vm_absval tid, uint64_t *held, bool *seen)
{
    uint32_t lw = p->nlocks ? (p->nlocks + 63) / 64 : 1, nc = p->bodies[b].ncode;
    unit_ctx c = {.p = p, .lw = lw, .held = held, .seen = seen};
    c.work = malloc(nc * sizeof *c.work);
    c.queued = malloc(nc * sizeof *c.queued);
    c.out = malloc(lw * sizeof *c.out);
    bool ok = c.work && c.queued && c.out;
    if (ok) must_hold(&c, b, regs, self, tid);
    free(c.work);
    free(c.queued);
    free(c.out);
    return ok;
}

ls_elem_facts *ls_discharge_facts(const vm_program *p)
{
    uint32_t ne = p->nelems ? p->nelems : 1, lw = p->nlocks ? (p->nlocks + 63) / 64 : 1;
    uint32_t maxcode = 1;
    for (uint32_t b = 0; b < p->nbodies; b++)
        if (p->bodies[b].ncode > maxcode) maxcode = p->bodies[b].ncode;
    ls_elem_facts *f = calloc(ne, sizeof *f);
    uint64_t *locks = malloc((size_t)ne * lw * sizeof *locks); /* per element: held at every access */
    uint32_t *last = malloc(ne * sizeof *last);                /* the last unit that counted */
    unit_ctx c = {.p = p, .lw = lw};
    c.held = malloc((size_t)maxcode * lw * sizeof *c.held);
    c.seen = malloc(maxcode * sizeof *c.seen);
    c.work = malloc(maxcode * sizeof *c.work);
    c.queued = malloc(maxcode * sizeof *c.queued);
    c.out = malloc(lw * sizeof *c.out);
    bool ok = f && locks && last && c.held && c.seen && c.work && c.queued && c.out;
    if (ok) {
        memset(locks, 0xff, (size_t)ne * lw * sizeof *locks);
        for (uint32_t e = 0; e < p->nelems; e++) {
            f[e].lock = NONE;
            f[e].unit = LS_NO_UNIT;
            f[e].init_ok = true;
            last[e] = NONE;
        }
    }
    /* units: static instances 0 .. nstatic-1, then one per proc body */
    for (uint32_t u = 0; ok && u < p->nstatic + p->nbodies; u++) {
        uint32_t b, count = 1;
        vm_absval self, tid;
        int32_t uid;
        if (u < p->nstatic) {
            b = (uint32_t)p->threads[u].body;
            self = p->threads[u].self;
            tid = u;
            uid = (int32_t)u;
        } else {
            b = u - p->nstatic;
            if (!p->bodies[b].is_proc) continue;
            count = p->bodies[b].count;
            self = tid = VM_ABS_TOP;
            uid = -1 - (int32_t)b;
        }
        const vm_body *body = &p->bodies[b];
        vm_absval *regs = vm_absregs(p, b, self, tid);
        if (!regs) {
            ok = false;
            break;
        }
        must_hold(&c, b, regs, self, tid);
        size_t row = (size_t)body->nregs + 1;
        for (uint32_t pc = 0; pc < body->ncode; pc++) {
            const vm_insn *in = &body->code[pc];
            const vm_absval *r = regs + (size_t)pc * row;
            if (r[body->nregs] != 0 || !c.seen[pc]) continue; /* not reached */
            if (in->op != VM_OP_load && in->op != VM_OP_store) continue;
            const vm_var *v = &p->vars[in->obj];
            if (v->cls != VM_SHARED) continue;
            uint32_t lo = v->first_elem, hi = v->first_elem + v->size;
            vm_absval i = vm_absop(&in->idx, r, self, tid);
            if (known(i)) {
                if (i < 0 || i >= (vm_absval)v->size) continue; /* faults */
                lo += (uint32_t)i;
                hi = lo + 1;
            }
            const uint64_t *h = c.held + (size_t)pc * lw;
            for (uint32_t e = lo; e < hi; e++) {
                uint64_t *le = locks + (size_t)e * lw;
                for (uint32_t w = 0; w < lw; w++) le[w] &= h[w];
                if (v->init_body >= 0 && (uint32_t)v->init_body != b) f[e].init_ok = false;
                if (last[e] == u || count == 0) continue;
                last[e] = u;
                uint32_t n = f[e].threads + count;
                f[e].threads = (uint8_t)(n > 2 ? 2 : n);
                if (f[e].unit == LS_NO_UNIT) f[e].unit = uid;
            }
        }
        free(regs);
    }
    for (uint32_t e = 0; ok && e < p->nelems; e++) {
        if (f[e].threads == 0) continue; /* no access: no lock needed */
        const uint64_t *le = locks + (size_t)e * lw;
        for (uint32_t l = 0; l < p->nlocks; l++)
            if ((le[l >> 6] >> (l & 63)) & 1) {
                f[e].lock = l;
                break;
            }
        if (f[e].threads != 1) f[e].unit = LS_NO_UNIT;
    }
    if (ok) ok = ls_hb_facts(p, f);
    free(locks);
    free(last);
    free(c.held);
    free(c.seen);
    free(c.work);
    free(c.queued);
    free(c.out);
    if (!ok) {
        free(f);
        return NULL;
    }
    return f;
}

ls_why ls_discharge_lone_or_lock(const vm_var *v, const ls_elem_facts *x)
{
    if (!v->stored) return LS_READ_ONLY;
    if (x->threads == 1) return LS_ONE_THREAD;
    return x->lock != NONE ? LS_COMMON_LOCK : LS_CHECKED;
}

ls_why ls_discharge_goldilocks(const vm_var *v, const ls_elem_facts *x)
{
    ls_why why = ls_discharge_lone_or_lock(v, x);
    return why == LS_CHECKED && (x->hb & LS_HB_ORDERED) ? LS_ORDERED : why;
}

ls_why ls_discharge_why(ls_kind kind, const vm_program *p, const ls_elem_facts *f,
                        uint32_t elem)
{
    if (elem >= p->nelems || vm_elem_var(p, elem)->cls != VM_SHARED) return LS_CHECKED;
    const ls_elem_facts *x = &f[elem];
    if (x->threads == 0) return LS_UNACCESSED;
    return ls_ops_of(kind)->discharge(vm_elem_var(p, elem), x);
}

/* ---- the --dump section ---------------------------------------------------- */

static void unit_name(const vm_program *p, int32_t unit, char *buf, size_t n)
{
    if (unit < 0) {
        snprintf(buf, n, "%s", p->bodies[-1 - unit].name);
        return;
    }
    const vm_body *b = &p->bodies[p->threads[unit].body];
    if (b->is_array)
        snprintf(buf, n, "%s[%d]", b->name, (int)p->threads[unit].self);
    else
        snprintf(buf, n, "%s", b->name);
}

/* The shape of an element's line: equal shapes in a row print as one line. */
static int shape(ls_kind kind, const vm_program *p, const ls_elem_facts *f, uint32_t e)
{
    const ls_elem_facts *x = &f[e];
    ls_why why = ls_discharge_why(kind, p, f, e);
    return ((why == LS_ORDERED ? x->hb : 0) * 8 + (int)why) * 16 + (x->threads & 3) * 4 +
           (x->lock != NONE) * 2 + x->init_ok;
}

static void print_run(FILE *out, ls_kind kind, const vm_program *p, const vm_var *v,
                      const ls_elem_facts *f, uint32_t i, uint32_t j)
{
    uint32_t e0 = v->first_elem + i, n = j - i;
    const ls_elem_facts *x = &f[e0];
    ls_why why = ls_discharge_why(kind, p, f, e0);
    char name[128], a[96], b[96];
    if (!v->is_array) snprintf(name, sizeof name, "%s", v->name);
    else if (n == 1) snprintf(name, sizeof name, "%s[%u]", v->name, i);
    else snprintf(name, sizeof name, "%s[%u..%u]", v->name, i, j - 1);
    fprintf(out, "  %-14s %s: ", name, why != LS_CHECKED ? "discharged" : "kept");
    if (why == LS_READ_ONLY) {
        fprintf(out, "never written (no `store` names it): every access reads its initial value\n");
        return;
    }
    if (x->threads == 0) {
        fprintf(out, "no thread accesses %s\n", n > 1 ? "them" : "it");
        return;
    }
    const char *sep = "";
    if (x->threads == 1) {
        bool same = true;
        for (uint32_t k = e0 + 1; k < e0 + n && same; k++) same = f[k].unit == x->unit;
        unit_name(p, x->unit, a, sizeof a);
        if (same) fprintf(out, "one thread (%s)", a);
        else {
            unit_name(p, f[e0 + n - 1].unit, b, sizeof b);
            fprintf(out, "one thread each (%s .. %s)", a, b);
        }
        sep = ", ";
    } else {
        fprintf(out, "2+ threads");
        sep = ", ";
    }
    if (x->lock != NONE) {
        bool same = true;
        for (uint32_t k = e0 + 1; k < e0 + n && same; k++) same = f[k].lock == x->lock;
        if (same) {
            vm_lock_name(p, x->lock, a, sizeof a);
            fprintf(out, "%salways under %s", sep, a);
        } else {
            const char *decl = NULL;
            for (uint32_t d = 0; d < p->nlockdecls; d++)
                if (x->lock >= p->lockdecls[d].first &&
                    x->lock < p->lockdecls[d].first + p->lockdecls[d].size)
                    decl = p->lockdecls[d].name;
            fprintf(out, "%seach always under an element of %s", sep, decl ? decl : "?");
        }
    } else {
        fprintf(out, "%sno lock held at every access", sep);
    }
    if (v->init_body >= 0 && !x->init_ok)
        fprintf(out, ", not only instances of its init thread %s", p->bodies[v->init_body].name);
    if (why == LS_ORDERED) {
        static const struct { unsigned bit; const char *name; } edges[] = {
            {LS_HB_SPAWN, "spawn"}, {LS_HB_JOIN, "join"}, {LS_HB_CHAN, "channel"},
            {LS_HB_LOCK, "lock"}};
        fprintf(out, ", ordered by ");
        const char *s2 = "";
        for (size_t k = 0; k < sizeof edges / sizeof *edges; k++)
            if (x->hb & edges[k].bit) {
                fprintf(out, "%s%s", s2, edges[k].name);
                s2 = "/";
            }
        fprintf(out, ": every two accesses by different threads, one a write, "
                     "happen one before the other");
    }
    if (why == LS_CHECKED && kind == LS_LD && x->lock == NONE && x->threads == 1)
        fprintf(out, " (LD' checks a lone thread's accesses too)");
    fprintf(out, "\n");
}

int ls_discharge_print(const vm_program *p, ls_kind kind, FILE *out)
{
    bool any = false;
    for (uint32_t v = 0; v < p->nvars; v++) any |= p->vars[v].cls == VM_SHARED;
    if (!any) return 0;
    if (kind == LS_OFF) {
        fprintf(out, "\nstatic discharge: --race=off keeps no detector metadata\n");
        return 0;
    }
    ls_elem_facts *f = ls_discharge_facts(p);
    if (!f) return -1;
    uint32_t nd = 0, ns = 0;
    for (uint32_t e = 0; e < p->nelems; e++) {
        if (vm_elem_var(p, e)->cls != VM_SHARED) continue;
        ns++;
        nd += ls_discharge_why(kind, p, f, e) != LS_CHECKED;
    }
    fprintf(out, "\nstatic discharge for --race=%s: %u of %u shared elements discharged "
                 "(with --por they get no detector metadata and no checks):\n",
            ls_ops_of(kind)->name, nd, ns);
    for (uint32_t vi = 0; vi < p->nvars; vi++) {
        const vm_var *v = &p->vars[vi];
        if (v->cls != VM_SHARED) continue;
        for (uint32_t i = 0; i < v->size;) {
            uint32_t j = i + 1;
            int sh = shape(kind, p, f, v->first_elem + i);
            while (j < v->size && shape(kind, p, f, v->first_elem + j) == sh) j++;
            print_run(out, kind, p, v, f, i, j);
            i = j;
        }
    }
    free(f);
    return 0;
}
