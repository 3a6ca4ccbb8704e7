/* parallel_workers.c: the two orders of the parallel search (-j N,
 * parallel.c): depth-first with work stealing by request (LTSmin's
 * synchronous random polling) and level-synchronous breadth-first (Stern
 * and Dill; LTSmin's parallel BFS) with its barrier. Each worker loop takes
 * items and hands them to expand(); parallel.c says how a run is set up,
 * counted and ended. */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <time.h>

#include "parallel_int.h"

static void barrier_wait(level_barrier *b, void (*decide)(void *), void *arg)
{
    uint64_t r = atomic_load_explicit(&b->round, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->waiting, 1, memory_order_acq_rel) + 1 == b->n) {
        decide(arg);
        atomic_store_explicit(&b->waiting, 0, memory_order_relaxed);
        pthread_mutex_lock(&b->m);
        atomic_store_explicit(&b->round, r + 1, memory_order_release);
        pthread_cond_broadcast(&b->c);
        pthread_mutex_unlock(&b->m);
        return;
    }
    for (unsigned i = 0; i < BARRIER_SPINS; i++) {
        if (atomic_load_explicit(&b->round, memory_order_acquire) != r) return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&b->m);
    while (atomic_load_explicit(&b->round, memory_order_acquire) == r)
        pthread_cond_wait(&b->c, &b->m);
    pthread_mutex_unlock(&b->m);
}

/* ---- dfs: stacks and work stealing ---------------------------------------- */

/* Hand the oldest half of W's stack to thief `tid`, or tell it no. */
static void answer(worker *W, int tid)
{
    par *P = W->P;
    worker *T = &P->w[tid];
    size_t give = W->stack.n / 2;
    if (give && stack_reserve(P, &T->in, give)) {
        memcpy(T->in.buf, W->stack.buf, give * P->isize);
        T->in.n = give;
        memmove(W->stack.buf, W->stack.buf + give * P->isize, (W->stack.n - give) * P->isize);
        W->stack.n -= give;
        atomic_store_explicit(&W->avail, W->stack.n, memory_order_relaxed);
        atomic_fetch_add_explicit(&P->active, 1, memory_order_acq_rel); /* before T sees them */
        atomic_store_explicit(&W->request, REQ_NONE, memory_order_relaxed);
        atomic_store_explicit(&T->inbox, INBOX_FILLED, memory_order_release);
    } else {
        atomic_store_explicit(&W->request, REQ_NONE, memory_order_relaxed);
        atomic_store_explicit(&T->inbox, INBOX_DENIED, memory_order_release);
    }
}

/* Tell a thief asking an idle (or finishing) worker no; with `closing`
 * REQ_CLOSED, take no more requests. */
static void deny_pending(worker *W, int closing)
{
    int rq = atomic_load_explicit(&W->request, memory_order_acquire);
    for (;;) {
        if (rq == REQ_CLOSED || (rq == REQ_NONE && closing == REQ_NONE)) return;
        if (atomic_compare_exchange_weak(&W->request, &rq, closing)) {
            if (rq > 0)
                atomic_store_explicit(&W->P->w[rq - 1].inbox, INBOX_DENIED, memory_order_release);
            return;
        }
    }
}

static void backoff(unsigned *round)
{
    if (++*round < 16) {
        sched_yield();
        return;
    }
    unsigned us = *round < 64 ? 20 : 200;
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

/* An idle worker looks for work: true when it was handed some, false when
 * the search is over (no worker holds work, or it stops). */
static bool steal(worker *W)
{
    par *P = W->P;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned round = 0, next = W->id;
    bool got = false;
    for (;;) {
        deny_pending(W, REQ_NONE);
        if (rt_shared_stopped(&P->rs) || atomic_load_explicit(&P->active, memory_order_acquire) == 0) break;
        if (rt_interrupted(P->o)) {
            rt_shared_stop(&P->rs, STOP_INTERRUPTED);
            break;
        }
        worker *V = NULL;
        for (unsigned k = 1; k < P->n; k++) {
            worker *c = &P->w[(next + k) % P->n];
            if (atomic_load_explicit(&c->avail, memory_order_relaxed) >= 2) {
                V = c;
                next = (next + k) % P->n;
                break;
            }
        }
        int none = REQ_NONE;
        if (!V || !atomic_compare_exchange_strong(&V->request, &none, (int)W->id + 1)) {
            backoff(&round);
            continue;
        }
        int s;
        while ((s = atomic_load_explicit(&W->inbox, memory_order_acquire)) == INBOX_WAIT) {
            deny_pending(W, REQ_NONE); /* V may be asking W at the same time */
            sched_yield();
        }
        atomic_store_explicit(&W->inbox, INBOX_WAIT, memory_order_relaxed);
        if (s == INBOX_FILLED) {
            item_stack t = W->stack;
            W->stack = W->in;
            W->in = t;
            W->in.n = 0;
            W->steals++;
            got = true;
            break;
        }
        backoff(&round);
    }
    W->idle += now_since(&t0);
    return got;
}

static void dfs_worker(worker *W)
{
    par *P = W->P;
    bool counted = W->stack.n > 0; /* counted in P->active: worker 0, with the initial state */
    for (;;) {
        while (W->stack.n > 0) {
            if (rt_shared_stopped(&P->rs)) goto out;
            int rq = atomic_load_explicit(&W->request, memory_order_acquire);
            if (rq > 0) answer(W, rq - 1);
            unsigned m = W->stack.n < PAR_ITEMS ? (unsigned)W->stack.n : PAR_ITEMS;
            if (S_por(W)) m = 1;
            W->stack.n -= m;
            memcpy(W->item, item_at(P, &W->stack, W->stack.n), m * P->isize);
            item_hdr *hs[PAR_ITEMS];
            for (unsigned i = 0; i < m; i++) hs[i] = (item_hdr *)(W->item + i * P->isize);
            if (!expand(W, hs, m, &W->stack)) goto out;
            atomic_store_explicit(&W->avail, W->stack.n, memory_order_relaxed);
        }
        if (counted) atomic_fetch_sub_explicit(&P->active, 1, memory_order_acq_rel);
        if (!steal(W)) break;
        counted = true; /* the giver counted it */
    }
out:
    atomic_store_explicit(&W->avail, 0, memory_order_relaxed);
    deny_pending(W, REQ_CLOSED);
}

/* ---- bfs: level-synchronous ------------------------------------------------ */

/* Worker w's part of level k: its stack and its inbox, by turns (a BFS
 * hands nothing over). Level k is read while level k + 1 is written. */
static inline item_stack *part(worker *W, uint64_t k)
{
    return (k & 1) ? &W->in : &W->stack;
}

/* Expand level k alone, every worker's part of it, into W's part of
 * level k + 1 (the other workers wait at the barrier). False when the
 * search stops. */
static bool level_alone(worker *W, uint64_t k)
{
    par *P = W->P;
    for (unsigned w = 0; w < P->n; w++) part(&P->w[w], k + 1)->n = 0;
    unsigned per = S_por(W) ? 1 : PAR_ITEMS;
    for (unsigned w = 0; w < P->n; w++) {
        item_stack *from = part(&P->w[w], k);
        for (size_t i = 0; i < from->n;) {
            item_hdr *hs[PAR_ITEMS];
            unsigned m = 0;
            for (; m < per && i < from->n; m++, i++) hs[m] = item_at(P, from, i);
            if (!expand(W, hs, m, part(W, k + 1))) return false;
        }
    }
    return true;
}

/* The last worker W at the barrier after level P->level decides what
 * comes next: the end (no new states, or the search stopped), or the next
 * level. A level smaller than BFS_SMALL items per worker is not worth a
 * barrier: W expands it alone, and the next, until a level is big enough
 * to share (a narrow state space, prodcons_monitor's 76,000 levels of 77
 * states on average, then runs as fast as one worker rather than waiting
 * at a barrier per level). The counter of the level after next starts
 * again. */
static void next_level(void *arg)
{
    worker *W = arg;
    par *P = W->P;
    for (;;) {
        uint64_t total = 0;
        for (unsigned w = 0; w < P->n; w++) total += part(&P->w[w], P->level + 1)->n;
        P->level++;
        atomic_store_explicit(&P->next[(P->level + 1) & 1], 0, memory_order_relaxed);
        P->done = rt_shared_stopped(&P->rs) || total == 0;
        if (P->done || P->n == 1 || total >= (uint64_t)BFS_SMALL * P->n) return;
        if (!level_alone(W, P->level)) {
            P->done = true;
            return;
        }
    }
}

/* Level-synchronous: the items of level k are the workers' parts one after
 * the other; a worker takes BFS_CHUNK at a time by a counter, finds whose
 * part each is by the parts' sizes, and puts what it makes in its own part
 * of level k + 1. One barrier a level. */
static void bfs_worker(worker *W)
{
    par *P = W->P;
    uint64_t *starts = W->starts; /* starts[w]: where worker w's part begins */
    for (;;) {
        uint64_t k = P->level, total = 0;
        for (unsigned w = 0; w < P->n; w++) {
            starts[w] = total;
            total += part(&P->w[w], k)->n;
        }
        starts[P->n] = total;
        part(W, k + 1)->n = 0; /* level k - 1's, read by every worker before the barrier */
        unsigned per = S_por(W) ? 1 : PAR_ITEMS, w = 0;
        while (!rt_shared_stopped(&P->rs)) {
            uint64_t i = atomic_fetch_add_explicit(&P->next[k & 1], BFS_CHUNK,
                                                   memory_order_relaxed);
            if (i >= total) break;
            uint64_t end = i + BFS_CHUNK < total ? i + BFS_CHUNK : total;
            while (i < end) {
                item_hdr *hs[PAR_ITEMS];
                unsigned m = 0;
                for (; m < per && i < end; m++, i++) {
                    while (i >= starts[w + 1]) w++;
                    while (i < starts[w]) w--;
                    hs[m] = item_at(P, part(&P->w[w], k), i - starts[w]);
                }
                if (!expand(W, hs, m, part(W, k + 1))) break;
            }
        }
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        barrier_wait(&P->bar, next_level, W);
        W->idle += now_since(&t0);
        if (P->done) break;
        (void)par_limits(W); /* publish; a stop is seen at the next level */
    }
}

/* ---- the thread ------------------------------------------------------------ */

void *worker_main(void *arg)
{
    worker *W = arg;
    /* go: 1 every worker started, 2 not all could be (then the others end
     * at once; a stop any later comes from a worker, and every BFS worker
     * must reach the barrier of its level) */
    int go;
    while (!(go = atomic_load_explicit(&W->P->go, memory_order_acquire))) sched_yield();
    if (go == 2) {
        deny_pending(W, REQ_CLOSED);
        return NULL;
    }
    if (W->P->o->search == SEARCH_BFS) bfs_worker(W);
    else dfs_worker(W);
    return NULL;
}
