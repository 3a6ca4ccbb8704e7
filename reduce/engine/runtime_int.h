/* runtime_int.h: the search runtime every engine shares, private to
 * reduce/: the clock and how often to look at it (every RT_CHECK_WORK
 * units of work), interrupt and --timelimit, --memlimit's test, the
 * progress line (every few seconds to o->progress), and the end of a run
 * (its stop, verdict and the memory part that filled). One `runtime` per
 * search: the sequential search's (search.c's limits_check()), each -j
 * worker's and the run's (parallel.c's par_limits()), each MPI rank's
 * (mpi.c's local_limits()); runtime_shared is the atomic variant the -j
 * workers share, where the first stop reason wins. Insertion with the
 * recent cache and error records are search_int.h's and search.c's (the
 * hot path inlines them). runtime.c implements what is not inline. */
#ifndef MCHECK_RUNTIME_INT_H
#define MCHECK_RUNTIME_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "reduce.h"

#define RT_CHECK_WORK 8192     /* units of work between looks at the clock */
#define RT_PROGRESS_FIRST 2.0  /* seconds: the first progress line, and a last one */
#define RT_PROGRESS_EVERY 3.0  /* seconds between progress lines */

typedef struct runtime {
    struct timespec t0;
    double next_progress;
    double progress_every;
    uint64_t next_check;  /* work (search_work()) at which to look at the clock */
    stop_reason stop;     /* STOP_COMPLETE while the search goes on */
    bool truncated;       /* --max-depth pruned a path */
    size_t error_bytes;   /* r->errors and their paths */
    uint64_t refused;     /* STOP_MEMLIMIT at a growth: the bytes it needed */
} runtime;

/* Start the clock: the first progress line at `first` seconds, then one
 * every `every`. */
void rt_start(runtime *rt, double first, double every);

/* Stop with `why`, unless stopped already (the first reason stays). */
static inline void rt_stop(runtime *rt, stop_reason why)
{
    if (rt->stop == STOP_COMPLETE) rt->stop = why;
}

/* The next look at the clock: RT_CHECK_WORK units of work after `work`. */
static inline void rt_clock_next(runtime *rt, uint64_t work)
{
    rt->next_check = work + RT_CHECK_WORK;
}

/* Is the clock due at `work`? Then the next look is set. */
static inline bool rt_clock_due(runtime *rt, uint64_t work)
{
    if (work < rt->next_check) return false;
    rt_clock_next(rt, work);
    return true;
}

static inline bool rt_interrupted(const explore_options *o)
{
    return o->interrupt && *o->interrupt;
}

/* Interrupt, then --timelimit: the stop they ask for, or STOP_COMPLETE;
 * the seconds since rt's start in *t. */
stop_reason rt_check_time(const runtime *rt, const explore_options *o, double *t);

/* Do `bytes` pass --memlimit? */
static inline bool rt_memory_over(const explore_options *o, uint64_t bytes)
{
    return o->memlimit && bytes > o->memlimit;
}

/* Is a progress line due at t? Then the next one is set. */
bool rt_progress_due(runtime *rt, const explore_options *o, double t);

/* The last progress line after a search of `seconds`: only after one that
 * lasted long enough to have had some. */
static inline bool rt_progress_last(const explore_options *o, double seconds)
{
    return o->progress && seconds >= RT_PROGRESS_FIRST;
}

/* "mcheck: S states, R states/s, T transitions, <fmt>, N s" on f, flushed. */
void rt_progress_line(FILE *f, double t, uint64_t states, uint64_t transitions,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The part of the memory --memlimit counts that filled it (runtime.c says
 * how it tells); bfs_order names the stack/queue part. */
mem_part explore_memlimit_part(const explore_stats *x, bool bfs_order);

/* The end of a run: r->stop, the part that filled --memlimit, and the
 * verdict (the first error's kind; ok if complete or within the preemption
 * bound; else incomplete). */
void rt_result(explore_result *r, stop_reason stop, const explore_options *o);

/* Peak RSS and the time since t0. */
void search_finish_stats(explore_stats *x, const struct timespec *t0);

/* ---- the atomic variant (-j N's workers) ---------------------------------- */

typedef struct runtime_shared {
    /* read at every transition: a line of its own */
    _Alignas(64) _Atomic int stop;   /* stop_reason; STOP_COMPLETE while it goes on */
    _Alignas(64) _Atomic bool truncated;
    _Atomic uint64_t error_bytes;    /* the shared result's errors (err_lock's copy) */
} runtime_shared;

void rt_shared_init(runtime_shared *rs);

/* Stop every worker with `why` (the first reason stays). */
void rt_shared_stop(runtime_shared *rs, stop_reason why);

static inline bool rt_shared_stopped(const runtime_shared *rs)
{
    return atomic_load_explicit(&rs->stop, memory_order_relaxed) != STOP_COMPLETE;
}

#endif
