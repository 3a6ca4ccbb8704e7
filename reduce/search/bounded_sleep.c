/* bounded_sleep.c: sleep sets for --search=stateless with a preemption
 * bound (CHESS's preemption bounding; issue 34). Naive sleep sets are
 * unsound with a bound: Coons, Musuvathi and McKinley, "Bounded
 * partial-order reduction" (OOPSLA 2013), section 3, show that the bound
 * makes otherwise independent steps dependent, since the order that a
 * sleeping step stands for may need more preemptions than the order it
 * prunes, and Musuvathi and Qadeer (MSR-TR-2007-12) make the same point
 * for context bounds. Their papers were not at hand; the rule below and its
 * argument are this file's own, in the spirit of BPOR's "explore only the
 * cheapest order of bound-dependent steps".
 *
 * Costs. c(w) counts the preemptions of an execution w: a step of thread t
 * after a step of thread l != t while l could still move. What follows a
 * state depends on the state, the last thread and whether it can move.
 *
 * The rule. Sleep sets are kept as without a bound (a thread explored at
 * a node rho sleeps in its later siblings; a child keeps asleep the threads
 * independent of the step taken, por.c's relation), but a sleeping thread's
 * step is not left out: it is taken, and the path rho X z (X = x1 .. xm,
 * the steps since z was explored at rho, z met asleep at pi_0 = rho X)
 * continues "pending on z" for as long as z's steps have no object in
 * common with X's steps nor with the next step of a thread blocked after
 * an x step (fp, bf, pf). At a node pi_k = rho X z^k pending on z,
 * the execution rho z^k X reaches the same state (each z step commutes
 * with each x step) and comes first in the search's order (z was tried
 * before x1 at rho; with a bound the search tries a node's last thread
 * first, then the others by id: stateless.c's next_thread()). With
 *   Q  = c(rho) + pre_rho(z) + [z can move after z^k] + (the preemptions
 *        of X's steps x2 .. xm as on the path),
 *        an upper bound on c(rho z^k X): z's steps touch no object of
 *        X's, so an x_i blocked here is blocked there too, and z can move
 *        after z^k there as here if its next step touches none of X's
 *        objects (else it counts 1, 0 if z has ended),
 *   C  = c(pi_k), Ez = z can move at pi_k, Ex = x_m can move at pi_k,
 * a continuation r whose first step is by y costs no more after rho z^k X
 * than after pi_k when Q + [y != x_m and Ex] <= C + [y != z and Ez]: the
 * junction is the only place their costs differ (the same state and, from
 * y on, the same last thread). Such a y is "covered" at pi_k and is not
 * tried there (stats.sleep_avoided counts it).
 *
 * Soundness (what --sleep-sets=off at the same bound finds, this finds):
 * let w be an execution with c(w) <= K within the depth bound, and w* the
 * least, in the search's order (the order threads are tried at each node,
 * then choices, position by position), of the executions equivalent to w (the same steps up to
 * commuting adjacent independent ones: same length, same final state and
 * errors) with at most K preemptions. If w* were not explored, its first
 * step left out is not left out for the bound (its prefix costs at most
 * c(w*) <= K) nor for the depth (same length), so it is covered at some
 * pi_k: then w* = rho X z^k y r, and v = rho z^k X y r is equivalent, costs
 * c(v) <= c(w*) <= K and is smaller: a contradiction. So w* is explored.
 * Every execution explored is a real one within the bound, so the errors
 * found are those of the search without sleep sets (tests/differential/
 * test_stateless.py compares error counts, deadlocks and end states on
 * random models at bounds 0..3). When no step was left out for the bound,
 * the search made exactly the choices it would make with K infinite (the
 * rule does not depend on K), and the argument above with K infinite says
 * it met every reachable error: "complete" still means complete. A thread
 * whose step erred at rho does not go to sleep there (stateless.c), as
 * without a bound: rho z would end at the error.
 *
 * What it saves: a thread explored at a free switch (after a thread's end)
 * and met again after another thread's run runs on alone until it meets
 * that run's objects or ends; the preemptions of it in between are
 * covered (Q's "z can move" pays for the x that preempts z in
 * rho z^k X), and at its end the whole subtree is. That the step of a
 * blocked thread stays blocked when no step touches its objects is an
 * assumption on por.c's objects (a lock, a cond, a channel), which
 * test_stateless.py's comparisons check on random models, spawns and
 * joins included. */
#include <stdlib.h>
#include <string.h>

#include "por_int.h"
#include "stateless_int.h"

bool bsl_grow(search *S, size_t levels)
{
    sl_stack *sl = SL(S);
    if (levels <= sl->fp_cap) return true;
    size_t n = sl->fp_cap ? sl->fp_cap : 64;
    while (n < levels) n *= 2;
    size_t w = sl->words ? sl->words : 1;
    uint64_t *a = realloc(sl->fp, n * w * sizeof *a);
    if (a) sl->fp = a;
    uint64_t *b = a ? realloc(sl->pf, n * w * sizeof *b) : NULL;
    if (b) sl->pf = b;
    uint64_t *c = b ? realloc(sl->bf, n * w * sizeof *c) : NULL;
    if (c) sl->bf = c;
    if (!a || !b || !c) {
        if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_NOMEM;
        return false;
    }
    sl->fp_cap = n;
    return true;
}

/* Thread t's step is about to be taken from level `depth` (state S->cur):
 * its objects (fp), and those of the last thread's next step if it is
 * blocked there (bf: a z step without them cannot unblock it). */
void bsl_took(search *S, size_t depth, int32_t t)
{
    sl_stack *sl = SL(S);
    const sl_frame *f = &sl->frames[depth];
    uint64_t *o = sl->fp + depth * sl->words, *b = sl->bf + depth * sl->words;
    memset(o, 0, sl->words * sizeof *o);
    por_step_objects(S->por, S->cur, t, o);
    memset(b, 0, sl->words * sizeof *b);
    if (f->last >= 0 && !f->last_enabled && !f->last_ended)
        por_step_objects(S->por, S->cur, f->last, b);
}

/* The step of t from level `depth` (frame f, S->cur still its state, its
 * objects in fp) leads to `child`: is the child pending, and on what? */
void bsl_child(search *S, size_t depth, int32_t t, sl_frame *child)
{
    sl_stack *sl = SL(S);
    const sl_frame *fs = sl->frames, *f = &fs[depth];
    const uint32_t w = sl->words;
    child->pend = -1;
    if (t >= 64) return;
    if (f->sleep >> t & 1) { /* z = t met asleep: pi_0 is this level */
        size_t j = depth;
        while (j > 0 && !(fs[j - 1].added >> t & 1)) j--;
        if (j == 0) return; /* (cannot happen: asleep means explored above) */
        j--; /* rho: t was explored there, before the step taken */
        uint32_t q = fs[j].preempt + preempts(&fs[j], t);
        uint64_t *x = sl->pf + (depth + 1) * w;
        memset(x, 0, w * sizeof *x);
        for (size_t l = j; l < depth; l++) {
            for (uint32_t i = 0; i < w; i++) x[i] |= sl->fp[l * w + i];
            if (l == j) continue;
            /* x_i = fs[l].last blocked: its next step's objects are X's
             * too, so z's steps leave it blocked in rho z^k X as here */
            for (uint32_t i = 0; i < w; i++) x[i] |= sl->bf[l * w + i];
            q += preempts(&fs[l], fs[l].fr.tid);
        }
        if (por_objects_meet(S->por, sl->fp + depth * w, x)) return; /* z may unblock an x_i */
        child->pend = t;
        child->pxm = f->last;
        child->pbase = q;
        return;
    }
    if (f->pend == t && !por_objects_meet(S->por, sl->fp + depth * w, sl->pf + depth * w)) {
        child->pend = t; /* z's next step commutes with X too */
        child->pxm = f->pxm;
        child->pbase = f->pbase;
        memcpy(sl->pf + (depth + 1) * w, sl->pf + depth * w, w * sizeof *sl->pf);
    }
}

/* Level f (state S->cur) starts: the threads covered there. */
void bsl_cover(search *S, sl_frame *f)
{
    const vm_program *p = S->p;
    f->covered = 0;
    if (f->pend < 0) return;
    int32_t z = f->pend;
    /* x1 after z^k in rho z^k X: a preemption if z can move there, which
     * it can as here when its next step has no object of X's; if it has
     * one, count 1 (an ended thread cannot move in any order) */
    uint32_t q = f->pbase;
    if (vm_tstatus_of(p, S->cur, z) != VM_T_ENDED) {
        sl_stack *sl = SL(S);
        uint64_t *o = sl->fp + (size_t)(f - sl->frames) * sl->words;
        memset(o, 0, sl->words * sizeof *o); /* (this level's fp, set again when a step is taken) */
        por_step_objects(S->por, S->cur, z, o);
        q += por_objects_meet(S->por, o, sl->pf + (size_t)(f - sl->frames) * sl->words)
                 ? 1u : f->last_enabled;
    }
    uint32_t ex = vm_enabled(p, S->cur, f->pxm) != 0, ez = f->last_enabled, c = f->preempt;
    uint32_t n = p->nthreads < 64 ? p->nthreads : 64;
    for (uint32_t y = 0; y < n; y++) {
        bool cov = (int32_t)y == z ? q + ex <= c
                                   : q + ((int32_t)y != f->pxm && ex) <= c + ez;
        f->covered |= (uint64_t)cov << y;
    }
}
