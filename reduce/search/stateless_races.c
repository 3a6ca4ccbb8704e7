/* stateless_races.c: --scheduling=races, race-driven transactions (Elmas
 * and Qadeer's technical report, section 5) as a dynamic partial-order
 * reduction (Flanagan and Godefroid, POPL 2005, with sleep sets) of the
 * stateless search (stateless.c keeps the loop, the path and the sleep
 * sets; this file chooses the threads each level expands). A thread keeps
 * running as one transaction while its next step is light: a load or store
 * of a volatile element, a choose, or an enabled join. Such a node expands
 * only that thread at first; every other node (the root, the last thread
 * ended, blocked or at an acquire, wait, notify, cwait, csignal, cbroadcast, send, recv, spawn, an
 * instruction that faults, and every node after RACES_MAX_RUN light ones in
 * a row) is full: every enabled thread. Races: vector
 * clocks along the path (entries: level + 1 of a thread's step) order the
 * steps by happens-before through locks (the exact release), volatile
 * writes and reads, channels, spawn and join; at each new node, for every
 * thread p whose next step accesses a volatile element, the latest earlier
 * conflicting access by another thread not ordered before p's point gets p
 * added to its node's backtrack set (FG's lookahead), or every enabled
 * thread there if p's step at that node was not light.
 *
 * Soundness. The dependency relation is exact for volatile accesses; join
 * and choose touch nothing (a join is enabled only once its thread ended);
 * every other step runs at a full node, which expands every enabled thread
 * as the plain search does. The invisible tail of a light step can only
 * release locks, notifyall, end, or touch data: a release, notifyall or end
 * is never co-enabled with the steps it conflicts with (acquire or
 * re-acquire, wait, join: they need the lock free, held, or the thread
 * ended), and data accesses are Goldilocks' (an access race-free by
 * happens-before commutes with the transactions that are not ordered with
 * it; a racing one is reported on an explored path, its first race:
 * section 5). A step that errs ends its execution: its node becomes full.
 * Hence --race=goldilocks (or off, sound only for race-free models); LD'
 * and Eraser are disciplines, whose violations need not be preserved once
 * volatile accesses stop being scheduling points. FG's argument is for
 * acyclic state spaces; on a cyclic model the iterations of the depth
 * bound run as in stateless.c. It does not do preemption bounds, and with
 * more than 64 threads, an atomic block that touches a volatile (a step
 * with several volatile accesses) or a rendezvous channel (a step of two
 * threads), every node is full: the stateless
 * search with its sleep sets. */
#include <stdlib.h>
#include <string.h>

#include "races_int.h"

#define NONE UINT32_MAX

/* A node of the path, and the step it is taking. */
typedef struct rs_level {
    uint64_t enabled;   /* threads with a step here */
    uint64_t light;     /* of those, the ones whose step here is light */
    uint64_t backtrack; /* threads to expand here (grows as races are found) */
    uint64_t done;      /* threads expanded, being expanded, or left out asleep */
    int32_t tid;        /* the step taken from here (while a child exists) */
    uint32_t elem;      /* its volatile element, or NONE */
    uint32_t prev;      /* the level of the previous access to elem, or NONE */
    bool write;         /* it writes elem */
    size_t clk_mark;    /* the clock log's length before its updates */
    uint32_t run;       /* light nodes in a row that continued one thread, this
                           one included (0: a full node) */
} rs_level;

/* A thread continued alone through this many light nodes in a row makes the
 * next node full: a spin loop on a volatile (`load k, f; jz k, spin`) is a
 * transaction that never ends, and would keep the thread that sets f from
 * ever running on that branch (the ignoring problem: FG's argument is for
 * acyclic state spaces). A full node only adds executions, so this costs
 * nothing in soundness where the argument holds. */
#ifndef RACES_MAX_RUN
#define RACES_MAX_RUN 8u
#endif

struct races {
    const vm_program *p;
    uint32_t n;         /* threads: entries of a clock */
    uint32_t nvol;      /* volatile elements */
    uint32_t *vol;      /* per global element: its volatile index, or NONE */
    /* clocks, n entries each: thread q at q, lock l at o_lock + l, W and R of
     * volatile index v at o_w + v and o_r + v, channel c at o_ch + c */
    uint32_t o_lock, o_w, o_r, o_ch, nclocks;
    uint32_t *clk;
    uint32_t *last;     /* per volatile index: the level of its last access, or NONE */
    uint32_t *log;      /* (index, old value) pairs: the clock undo log */
    size_t log_len, log_cap;
    rs_level *lv;
    size_t lv_cap;
};

static inline uint32_t *clock_of(races *R, uint32_t obj) { return R->clk + (size_t)obj * R->n; }

/* Does an atomic block of p load or store a volatile, or has p a
 * rendezvous channel? A block's step would access several volatile
 * elements at once, which the race analysis (one element per step) does
 * not follow. */
static bool block_touches_volatile(const vm_program *p)
{
    /* a rendezvous is a step of two threads, which the clocks (one
     * thread's per step) do not follow either */
    for (uint32_t c = 0; c < p->nchans; c++)
        if (p->chans[c].cap == 0) return true;
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++) {
            const vm_insn *in = &p->bodies[b].code[pc];
            if (in->in_block && (vm_ops[in->op].flags & VM_F_MEM) &&
                p->vars[in->obj].cls == VM_VOLATILE)
                return true;
        }
    return false;
}

races *races_new(search *S)
{
    const vm_program *p = S->p;
    if (p->nthreads > 64 || block_touches_volatile(p)) return NULL;
    races *R = calloc(1, sizeof *R);
    if (!R) goto nomem;
    R->p = p;
    R->n = p->nthreads;
    R->vol = malloc((p->nelems ? p->nelems : 1) * sizeof *R->vol);
    if (!R->vol) goto nomem;
    for (uint32_t e = 0; e < p->nelems; e++) R->vol[e] = NONE;
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].cls == VM_VOLATILE)
            for (uint32_t i = 0; i < p->vars[v].size; i++) R->vol[p->vars[v].first_elem + i] = R->nvol++;
    R->o_lock = R->n;
    R->o_w = R->o_lock + p->nlocks;
    R->o_r = R->o_w + R->nvol;
    R->o_ch = R->o_r + R->nvol;
    R->nclocks = R->o_ch + p->nchans;
    R->clk = calloc((size_t)R->nclocks * R->n + 1, sizeof *R->clk);
    R->last = malloc((R->nvol + 1) * sizeof *R->last);
    if (!R->clk || !R->last) goto nomem;
    S->vec_bytes += ((size_t)R->nclocks * R->n + p->nelems + R->nvol) * 4;
    races_reset(R);
    return R;
nomem:
    races_free(R);
    S->lim.stop = STOP_NOMEM;
    return NULL;
}

void races_free(races *R)
{
    if (!R) return;
    free(R->vol);
    free(R->clk);
    free(R->last);
    free(R->log);
    free(R->lv);
    free(R);
}

void races_reset(races *R)
{
    memset(R->clk, 0, (size_t)R->nclocks * R->n * sizeof *R->clk);
    for (uint32_t v = 0; v < R->nvol; v++) R->last[v] = NONE;
    R->log_len = 0;
}

/* Grow an array of `size`-byte entries to hold `need`; the bytes count in
 * S->vec_bytes (--memlimit). */
static bool grow(search *S, void **a, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *n = realloc(*a, nc * size);
    if (!n) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    S->vec_bytes += (nc - *cap) * size;
    *a = n;
    *cap = nc;
    return true;
}

/* Set clock entry i to v, logging its old value. */
static inline bool clk_set(search *S, races *R, size_t i, uint32_t v)
{
    if (R->clk[i] == v) return true;
    if (R->log_len + 2 > R->log_cap) {
        void *l = R->log;
        if (!grow(S, &l, &R->log_cap, R->log_len + 2, sizeof *R->log)) return false;
        R->log = l;
    }
    R->log[R->log_len++] = (uint32_t)i;
    R->log[R->log_len++] = R->clk[i];
    R->clk[i] = v;
    return true;
}

/* dst := dst joined with src (copy: dst := src). */
static bool clk_join(search *S, races *R, uint32_t dst, uint32_t src, bool copy)
{
    size_t d = (size_t)dst * R->n, s = (size_t)src * R->n;
    for (uint32_t k = 0; k < R->n; k++)
        if (copy ? R->clk[d + k] != R->clk[s + k] : R->clk[d + k] < R->clk[s + k])
            if (!clk_set(S, R, d + k, R->clk[s + k])) return false;
    return true;
}

/* The lock element an acquire, wait or notify names in s, or NONE if its
 * index is out of range (the instruction faults). */
static uint32_t lock_elem(const vm_program *p, const uint8_t *s, int t, const vm_insn *in)
{
    const vm_lockdecl *d = &p->lockdecls[in->obj];
    int32_t i = vm_operand_value(p, s, t, &in->idx);
    return i >= 0 && (uint32_t)i < d->size ? d->first + (uint32_t)i : NONE;
}

/* The global element a load or store accesses in s, or NONE (out of range). */
static uint32_t mem_elem(const vm_program *p, const uint8_t *s, int t, const vm_insn *in)
{
    const vm_var *v = &p->vars[in->obj];
    int32_t i = vm_operand_value(p, s, t, &in->idx);
    return i >= 0 && (uint32_t)i < v->size ? v->first_elem + (uint32_t)i : NONE;
}

/* The instruction thread t stands at in s, if it is running (else NULL). */
static const vm_insn *pending(const vm_program *p, const uint8_t *s, int t)
{
    if (vm_tstatus_of(p, s, t) != VM_T_RUNNING) return NULL;
    return &vm_thread_body(p, s, t)->code[vm_tpc(p, s, t)];
}

/* Is enabled thread t's step in s light? A volatile access sets *elem
 * (else NONE) and *write. */
static bool light_step(const races *R, const uint8_t *s, int t, uint32_t *elem, bool *write)
{
    const vm_program *p = R->p;
    *elem = NONE;
    const vm_insn *in = pending(p, s, t);
    if (!in) return false;
    switch ((enum vm_opcode)in->op) {
    case VM_OP_load:
    case VM_OP_store: {
        if (p->vars[in->obj].cls != VM_VOLATILE) return false; /* the tail was cut there */
        uint32_t e = mem_elem(p, s, t, in);
        if (e == NONE) return false; /* it faults */
        *elem = e;
        *write = in->op == VM_OP_store;
        return true;
    }
    case VM_OP_choose:
        return vm_operand_value(p, s, t, &in->a) <= vm_operand_value(p, s, t, &in->b);
    case VM_OP_join: {
        int32_t u = vm_operand_value(p, s, t, &in->a);
        return u >= 0 && (uint32_t)u < p->nthreads; /* enabled: u ended */
    }
    default:
        return false;
    }
}

/* Thread p's clock shows level i's step happened before p's last step. */
static inline bool before(races *R, int p, size_t i)
{
    return clock_of(R, (uint32_t)p)[R->lv[i].tid] > i;
}

/* Add thread t to level i's backtrack set, or every enabled thread there
 * if t's step at i is not light. */
static void add_backtrack(search *S, races *R, size_t i, int t)
{
    rs_level *l = &R->lv[i];
    uint64_t add = (l->light >> t & 1) ? 1ull << t : l->enabled;
    if ((l->backtrack | add) == l->backtrack) return;
    if (!(l->light >> t & 1) && l->backtrack != l->enabled) S->r->stats.race_fallbacks++;
    l->backtrack |= add;
    S->r->stats.races_found++;
}

bool races_level(search *S, size_t depth, int32_t last)
{
    races *R = SL(S)->rs;
    const vm_program *p = S->p;
    void *a = R->lv;
    if (!grow(S, &a, &R->lv_cap, depth + 1, sizeof *R->lv)) return false;
    R->lv = a;
    rs_level *l = &R->lv[depth];
    *l = (rs_level){.tid = -1, .elem = NONE, .prev = NONE};
    uint32_t elem[64];
    bool write[64];
    for (uint32_t t = 0; t < p->nthreads; t++) {
        elem[t] = NONE;
        if (!vm_enabled(p, S->cur, (int)t)) continue;
        l->enabled |= 1ull << t;
        if (light_step(R, S->cur, (int)t, &elem[t], &write[t])) l->light |= 1ull << t;
    }
    uint32_t run = last >= 0 && depth > 0 ? R->lv[depth - 1].run + 1 : 1;
    if (last >= 0 && (l->light >> last & 1) && run <= RACES_MAX_RUN) {
        l->backtrack = 1ull << last;
        l->run = run;
        S->r->stats.light_nodes++;
    } else {
        l->backtrack = l->enabled;
    }
    /* FG's race detection: for each thread about to access a volatile
     * element, the latest conflicting access by another thread that did not
     * happen before its last step */
    for (uint32_t t = 0; t < p->nthreads; t++) {
        if (elem[t] == NONE) continue;
        for (uint32_t j = R->last[R->vol[elem[t]]]; j != NONE; j = R->lv[j].prev) {
            const rs_level *x = &R->lv[j];
            if (x->tid == (int32_t)t) {
                if (x->write) break; /* everything before it happened before it */
                continue;
            }
            if (!write[t] && !x->write) continue; /* two reads commute */
            if (!before(R, (int)t, j)) {
                add_backtrack(S, R, j, (int)t);
                break;
            }
            if (x->write) break; /* an ordered write orders everything before it */
        }
    }
    return true;
}

int32_t races_next(search *S, size_t depth, uint64_t sleep, uint64_t *n, bool count)
{
    races *R = SL(S)->rs;
    rs_level *l = &R->lv[depth];
    for (;;) {
        uint64_t m = l->backtrack & l->enabled & ~l->done;
        if (!m) return -1;
        int t = __builtin_ctzll(m);
        if (sleep >> t & 1) {
            if (!count) {
                uint64_t rest = m & ~sleep;
                if (!rest) return -1;
                t = __builtin_ctzll(rest);
                *n = vm_enabled(S->p, S->cur, t);
                return t;
            }
            S->r->stats.sleep_avoided++;
            l->done |= 1ull << t; /* asleep at this level for good */
            continue;
        }
        if (count) l->done |= 1ull << t;
        *n = vm_enabled(S->p, S->cur, t);
        return t;
    }
}

bool races_took(search *S, size_t depth, int32_t tid, const uint8_t *pre, const uint8_t *post)
{
    races *R = SL(S)->rs;
    const vm_program *p = S->p;
    rs_level *l = &R->lv[depth];
    l->tid = tid;
    l->clk_mark = R->log_len;
    l->elem = NONE;
    uint32_t q = (uint32_t)tid, acquired = NONE;
    /* what the visible instruction reads */
    enum vm_tstatus st = vm_tstatus_of(p, pre, tid);
    const vm_insn *in = &vm_thread_body(p, pre, tid)->code[vm_tpc(p, pre, tid)];
    bool ok = true;
    if (st == VM_T_NOTIFIED || st == VM_T_WAITING) { /* the wait's re-acquire */
        acquired = lock_elem(p, pre, tid, in);
        if (acquired != NONE) ok = clk_join(S, R, q, R->o_lock + acquired, false);
    } else {
        switch ((enum vm_opcode)in->op) {
        case VM_OP_acquire:
            acquired = lock_elem(p, pre, tid, in);
            if (acquired != NONE) ok = clk_join(S, R, q, R->o_lock + acquired, false);
            break;
        case VM_OP_load:
        case VM_OP_store:
            if (p->vars[in->obj].cls == VM_VOLATILE && (l->elem = mem_elem(p, pre, tid, in)) != NONE) {
                uint32_t v = R->vol[l->elem];
                l->write = in->op == VM_OP_store;
                ok = clk_join(S, R, q, R->o_w + v, false) &&
                     (!l->write || clk_join(S, R, q, R->o_r + v, false));
            }
            break;
        case VM_OP_send:
        case VM_OP_recv: ok = clk_join(S, R, q, R->o_ch + (uint32_t)in->obj, false); break;
        case VM_OP_join: {
            int32_t u = vm_operand_value(p, pre, tid, &in->a);
            if (u >= 0 && (uint32_t)u < p->nthreads) ok = clk_join(S, R, q, (uint32_t)u, false);
            break;
        }
        default: break;
        }
    }
    if (!ok || !clk_set(S, R, (size_t)q * R->n + q, (uint32_t)depth + 1)) return false;
    /* what it publishes */
    if (l->elem != NONE) {
        uint32_t v = R->vol[l->elem];
        if (l->write) {
            ok = clk_join(S, R, R->o_w + v, q, true) && clk_join(S, R, R->o_r + v, q, true);
        } else {
            ok = clk_join(S, R, R->o_r + v, q, false);
        }
        l->prev = R->last[v];
        R->last[v] = (uint32_t)depth;
    } else if (st == VM_T_RUNNING && (in->op == VM_OP_send || in->op == VM_OP_recv)) {
        ok = clk_join(S, R, R->o_ch + (uint32_t)in->obj, q, true);
    }
    /* the locks it gave up (in its tail, or by a wait): the exact release */
    for (uint32_t k = 0; ok && k < p->nlocks; k++) {
        bool had = vm_lock_owner(p, pre, k) == tid || k == acquired;
        if (had && vm_lock_owner(p, post, k) != tid) ok = clk_join(S, R, R->o_lock + k, q, true);
    }
    /* a thread it spawned starts with its clock */
    for (uint32_t t = p->nstatic; ok && t < p->nthreads; t++)
        if (vm_tstatus_of(p, pre, (int)t) == VM_T_UNUSED && vm_tstatus_of(p, post, (int)t) != VM_T_UNUSED)
            ok = clk_join(S, R, t, q, true);
    return ok;
}

void races_pop(races *R, size_t depth)
{
    rs_level *l = &R->lv[depth];
    if (l->elem != NONE) R->last[R->vol[l->elem]] = l->prev;
    while (R->log_len > l->clk_mark) {
        R->log_len -= 2;
        R->clk[R->log[R->log_len]] = R->log[R->log_len + 1];
    }
    l->elem = NONE;
}

void races_erred(search *S, size_t depth)
{
    rs_level *l = &SL(S)->rs->lv[depth];
    if (l->backtrack == l->enabled) return;
    l->backtrack = l->enabled;
    S->r->stats.race_fallbacks++;
}
