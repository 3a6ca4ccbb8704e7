/* delay_bound.c: --delay-bound K for --search=stateless (issue 34). Emmi,
 * Qadeer and Rakamarić, "Delay-bounded scheduling" (POPL 2011): fix a
 * deterministic scheduler and explore only the executions that deviate
 * from it at most K times.
 *
 * The scheduler is round-robin over thread ids: it runs the thread that
 * took the last step while that thread is enabled; when it blocks or ends,
 * the next enabled thread after it in cyclic id order (after the highest
 * id, thread 0 again). At the initial state its pick is the lowest enabled
 * id (thread 0 first). A thread spawned later joins the cycle at its id.
 * A delay skips the thread the scheduler would pick: at a node whose
 * enabled threads in cyclic order from the pick are e0 (the pick), e1, e2,
 * ..., the step of e_k costs k delays, and the thread taken is the last
 * thread at the next node, so the scheduler runs on with it. An execution's
 * delays are the sum over its steps; the search explores every execution
 * with at most K (the choices of `choose` within a step are data, not
 * scheduling: all of them, at no cost).
 *
 * Why: with a preemption bound (CHESS) a switch at a thread's block or end
 * is free, so with N threads that end, N! orders remain at every bound
 * (models/ring_opposite.bc: a ring of 10 workers and a pair that needs one
 * preemption is not found in 60 s). With a delay bound every switch but the
 * scheduler's own costs, and a schedule is fixed by the delays it spends at
 * each step, so at most (steps + K choose K) schedules are explored (each
 * with all the choices within its steps):
 * polynomial in the length, whatever the number of threads. K = 1 explores
 * each single deviation, and the pair's deadlock (left preempted after
 * `acquire a`, right's first step) is one delay. An execution with few
 * preemptions but many free switches needs many delays, and a delay need
 * not be a preemption, so neither bound covers the other: the delay
 * bound is for many threads that each run to an end, the preemption bound
 * for few threads that interleave.
 *
 * Sleep sets are off under a delay bound (explore.c): as with a preemption
 * bound (bounded_sleep.c's header), the equivalent order a sleeping step
 * stands for may need more delays than the one it prunes, and no covering
 * rule was worked out for delays. The count of executions is small anyway.
 *
 * The frame: f->preempt holds the path's delays, f->dk the delays of the
 * step of f->fr.tid (its place k in the cyclic order from the pick), which
 * stateless.c adds for the child. */
#include "stateless_int.h"

int32_t dlb_next(search *S, sl_frame *f, int64_t bound, bool *pruned, uint64_t *n, bool count)
{
    const vm_program *p = S->p;
    const uint32_t nt = p->nthreads;
    /* the scan starts at the last thread: if enabled it is the pick, else
     * the next enabled one after it is (the root: thread 0) */
    const uint32_t start = f->last >= 0 ? (uint32_t)f->last : 0;
    uint32_t i = 0, k = 0; /* the place in the cycle from start; the delays there */
    if (f->fr.tid >= 0) {
        i = ((uint32_t)f->fr.tid + nt - start) % nt + 1;
        k = f->dk + 1;
    }
    for (; i < nt; i++) {
        const int32_t t = (int32_t)((start + i) % nt);
        uint64_t e = vm_enabled(p, S->cur, t);
        if (!e) continue;
        if (f->preempt + k > (uint64_t)bound) { /* it and all after it: over the bound */
            *pruned = true;
            S->r->stats.delay_pruned += count;
            continue;
        }
        *n = e;
        f->dk = k;
        return t;
    }
    return -1;
}
