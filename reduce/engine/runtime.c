/* runtime.c: the search runtime every engine shares (runtime_int.h): the
 * clock, interrupt and --timelimit, the progress line and its pacing, the
 * peak RSS, the part of --memlimit's count that filled it, the end of a
 * run (stop and verdict), and the stop the -j workers share. The
 * sequential search (search.c), -j (parallel.c) and MPI (mpi.c) each call
 * it from their own limit check, with their own figures: one state's
 * memory, the workers' published sums, a rank's. */
#include <inttypes.h>
#include <stdarg.h>
#include <sys/resource.h>

#include "runtime_int.h"
#include "step_int.h"

/* ---- clock ----------------------------------------------------------------- */

double now_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

void rt_start(runtime *rt, double first, double every)
{
    clock_gettime(CLOCK_MONOTONIC, &rt->t0);
    rt->next_progress = first;
    rt->progress_every = every;
}

stop_reason rt_check_time(const runtime *rt, const explore_options *o, double *t)
{
    if (rt_interrupted(o)) return STOP_INTERRUPTED;
    *t = now_since(&rt->t0);
    if (o->timelimit > 0 && *t >= o->timelimit) return STOP_TIMELIMIT;
    return STOP_COMPLETE;
}

uint64_t explore_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (uint64_t)ru.ru_maxrss * 1024u;
}

void search_finish_stats(explore_stats *x, const struct timespec *t0)
{
    x->peak_rss = explore_peak_rss();
    x->seconds = now_since(t0);
}

/* ---- progress ---------------------------------------------------------------- */

bool rt_progress_due(runtime *rt, const explore_options *o, double t)
{
    if (!o->progress || t < rt->next_progress) return false;
    rt->next_progress = t + rt->progress_every;
    return true;
}

void rt_progress_line(FILE *f, double t, uint64_t states, uint64_t transitions,
                      const char *fmt, ...)
{
    fprintf(f, "mcheck: %" PRIu64 " states, %.0f states/s, %" PRIu64 " transitions, ", states,
            t > 0 ? (double)states / t : 0.0, transitions);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fprintf(f, ", %.0f s\n", t);
    fflush(f);
}

/* ---- the end of a run ---------------------------------------------------------- */

/* The part that holds the most live data, the stack or queue counted with
 * the growth that did not fit (if one did not): the reserved bytes would
 * name the stack of a search that stopped on its store, for the DFS
 * reserves 2 MB at the start (and room for an undo record of a whole
 * vector). */
mem_part explore_memlimit_part(const explore_stats *x, bool bfs_order)
{
    mem_part frontier = bfs_order ? MEM_QUEUE : MEM_STACK;
    mem_part m = MEM_STORE;
    uint64_t most = x->store_bytes;
    if (x->search_used + x->refused_bytes > most) {
        m = frontier;
        most = x->search_used;
    }
    if (x->buffer_bytes > most) {
        m = MEM_BUFFERS;
        most = x->buffer_bytes;
    }
    if (x->error_bytes > most) m = MEM_ERRORS;
    return m;
}

void rt_result(explore_result *r, stop_reason stop, const explore_options *o)
{
    r->stop = stop;
    if (stop == STOP_MEMLIMIT)
        r->memlimit_part = explore_memlimit_part(&r->stats, o->search == SEARCH_BFS);
    if (r->nerrors)
        r->verdict = r->errors[0].kind;
    else if (stop == STOP_COMPLETE || stop == STOP_PREEMPTION || stop == STOP_DELAY)
        r->verdict = VERDICT_OK; /* a preemption or delay bound: no error within it */
    else
        r->verdict = VERDICT_INCOMPLETE;
}

/* ---- the atomic variant ---------------------------------------------------------- */

void rt_shared_init(runtime_shared *rs)
{
    atomic_init(&rs->stop, STOP_COMPLETE);
    atomic_init(&rs->truncated, false);
    atomic_init(&rs->error_bytes, 0);
}

void rt_shared_stop(runtime_shared *rs, stop_reason why)
{
    int expect = STOP_COMPLETE;
    atomic_compare_exchange_strong(&rs->stop, &expect, (int)why);
}
