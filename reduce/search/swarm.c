/* swarm.c: --swarm N, a diversified search for models too big to finish,
 * as SPIN's swarm verification does it (Holzmann, Joshi and Groce, "Swarm
 * verification techniques", IEEE TSE 2011): N worker threads, each the
 * sequential depth-first search with --por (dfs_por.c) over a store of
 * its own, each trying a state's threads in another order: worker 0 by
 * thread id (the plain search's order), worker 1 the highest id first,
 * worker k >= 2 a random permutation per state keyed by the state's hash
 * and the seed --seed + k - 2 (dfs_por.c, next_thread()). An error that
 * one order meets only after millions of states another may meet at once.
 *
 * The first worker whose search ends on its own decides the result: an
 * error (its path is an ordinary path of (thread, choice) steps, so the
 * report replays, shortens and saves it as any other), or a complete
 * search: each worker's store is its own, so each worker's search alone
 * is the whole search, and the first to complete makes the swarm complete
 * (verdict ok). It then stops the others through their interrupt flag.
 * Every worker has the time limit, and a 1/N share of --memlimit; when
 * every worker stopped at a limit the result is incomplete (exit 3).
 *
 * Each worker is explore_run() itself (its options with another order and
 * the swarm's stop flag as their interrupt), so nothing here searches.
 * Not here: a store shared by the workers (the stack proviso of --por is
 * about one worker's stack; -j's seen-successor proviso would be needed),
 * orders for the search without --por (dfs.c takes the threads by id),
 * MPI ranks as workers. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "rows.h"
#include "runtime_int.h"

struct swarm;

typedef struct swarm_worker {
    struct swarm *sw;
    unsigned id;
    pthread_t th;
    explore_options o;      /* the run's, with its order and the swarm's stop */
    explore_result r;
    int rc;                 /* explore_run()'s */
} swarm_worker;

typedef struct swarm {
    const vm_program *p;
    swarm_worker *w;
    unsigned n;
    atomic_int stop;        /* the workers' interrupt: set once one decided */
    _Atomic unsigned decided; /* the deciding worker's id + 1; 0: none yet */
    _Atomic unsigned running;
} swarm;

const char *thread_order_name(thread_order o)
{
    switch (o) {
    case ORDER_IDS: return "id";
    case ORDER_REVERSED: return "reversed";
    case ORDER_RANDOM: return "random";
    }
    return "?";
}

/* Worker k's order and seed. */
static thread_order order_of(unsigned k)
{
    return k == 0 ? ORDER_IDS : k == 1 ? ORDER_REVERSED : ORDER_RANDOM;
}

static uint64_t seed_of(const explore_options *o, unsigned k)
{
    return k >= 2 ? o->swarm_seed + k - 2 : 0;
}

/* Did a worker's search end on its own (not at a limit nor stopped)? */
static bool ended_on_its_own(const explore_result *r)
{
    return r->stop == STOP_COMPLETE || r->stop == STOP_ERROR || r->stop == STOP_DEPTH;
}

static void *swarm_main(void *arg)
{
    swarm_worker *w = arg;
    swarm *sw = w->sw;
    w->rc = explore_run(sw->p, &w->o, &w->r);
    if (w->rc == 0 && ended_on_its_own(&w->r)) {
        unsigned none = 0;
        if (atomic_compare_exchange_strong(&sw->decided, &none, w->id + 1))
            atomic_store(&sw->stop, 1); /* the others stop at their next look at the clock */
    }
    atomic_fetch_sub(&sw->running, 1);
    return NULL;
}

/* The stop of a swarm no worker decided: a signal's, else the first
 * limit a worker met (each has the time limit and a share of memory). */
static stop_reason undecided_stop(const swarm *sw, const explore_options *o, unsigned *from)
{
    *from = 0;
    if (rt_interrupted(o)) return STOP_INTERRUPTED;
    for (unsigned i = 0; i < sw->n; i++)
        if (sw->w[i].r.stop != STOP_INTERRUPTED && sw->w[i].r.stop != STOP_COMPLETE) {
            *from = i;
            return sw->w[i].r.stop;
        }
    return STOP_INTERRUPTED;
}

/* The result: the decider's verdict, errors and unreached code (moved),
 * the counts summed over the workers (separate stores: a state two
 * workers stored counts twice), and a line per worker. */
static void swarm_result(swarm *sw, const explore_options *o, explore_result *r,
                         const struct timespec *t0)
{
    explore_stats *x = &r->stats;
    unsigned d = atomic_load(&sw->decided);
    for (unsigned i = 0; i < sw->n; i++) {
        explore_result *y = &sw->w[i].r;
        const explore_stats *s = &y->stats;
        x->states_stored += s->states_stored;
        x->states_matched += s->states_matched;
        x->transitions += s->transitions;
        x->end_states += s->end_states;
        x->instructions += s->instructions;
        x->invisible += s->invisible;
        x->por_reduced += s->por_reduced;
        x->por_proviso += s->por_proviso;
        x->detector_seconds += s->detector_seconds;
        x->store_bytes += s->store_bytes;
        x->search_bytes += s->search_bytes;
        x->search_reserved += s->search_reserved;
        x->search_used += s->search_used;
        x->buffer_bytes += s->buffer_bytes;
        x->omission += s->omission; /* the union bound */
        if (s->max_depth > x->max_depth) x->max_depth = s->max_depth;
        if (s->locksets > x->locksets) x->locksets = s->locksets;
        r->swarm[i] = (explore_swarm_worker){.order = sw->w[i].o.order,
                                             .seed = sw->w[i].o.order_seed,
                                             .states = s->states_stored,
                                             .transitions = s->transitions,
                                             .max_depth = s->max_depth,
                                             .stop = y->stop,
                                             .seconds = s->seconds};
    }
    const explore_result *w0 = &sw->w[0].r;
    x->vector_bytes = w0->stats.vector_bytes;
    x->shared_elements = w0->stats.shared_elements;
    x->discharged = w0->stats.discharged;
    r->nswarm = sw->n;
    r->swarm_decided = d;
    unsigned from = d ? d - 1 : 0;
    explore_result *y = &sw->w[from].r;
    if (d) {
        r->stop = y->stop;
        r->verdict = y->verdict;
    } else {
        r->stop = undecided_stop(sw, o, &from);
        r->verdict = VERDICT_INCOMPLETE;
        y = &sw->w[from].r;
        r->memlimit_part = y->memlimit_part;
        r->stop_state = y->stop_state;
        y->stop_state = NULL;
        x->refused_bytes = y->stats.refused_bytes;
    }
    /* the decider's errors (with --all-errors refused, at most the first) */
    r->errors = y->errors;
    r->nerrors = y->nerrors;
    memcpy(r->error_count, y->error_count, sizeof r->error_count);
    x->error_bytes = y->stats.error_bytes;
    y->errors = NULL;
    y->nerrors = 0;
    r->unreached = y->unreached;
    r->nunreached = y->nunreached;
    r->unreached_known = y->unreached_known;
    y->unreached = NULL;
    y->nunreached = 0;
    search_finish_stats(x, t0);
}

static int explore_swarm(const vm_program *p, const explore_options *o, explore_result *r)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    swarm sw = {.p = p, .n = o->swarm};
    atomic_init(&sw.stop, 0);
    atomic_init(&sw.decided, 0);
    atomic_init(&sw.running, 0);
    sw.w = calloc(sw.n, sizeof *sw.w);
    r->swarm = calloc(sw.n, sizeof *r->swarm);
    if (!sw.w || !r->swarm || !o->por) {
        free(sw.w);
        free(r->swarm);
        r->swarm = NULL;
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        return o->por ? -1 : EXPLORE_REFUSED;
    }
    for (unsigned i = 0; i < sw.n; i++) {
        swarm_worker *w = &sw.w[i];
        w->sw = &sw;
        w->id = i;
        w->o = *o;
        w->o.swarm = 0; /* the table then picks the DFS of --por */
        w->o.interrupt = &sw.stop;
        w->o.progress = NULL;
        w->o.order = order_of(i);
        w->o.order_seed = seed_of(o, i);
        if (o->memlimit) w->o.memlimit = o->memlimit / sw.n ? o->memlimit / sw.n : 1;
    }
    unsigned started = 0;
    atomic_store(&sw.running, sw.n);
    for (; started < sw.n; started++)
        if (pthread_create(&sw.w[started].th, NULL, swarm_main, &sw.w[started])) break;
    if (started < sw.n) { /* those started stop at once */
        atomic_fetch_sub(&sw.running, sw.n - started);
        atomic_store(&sw.stop, 1);
    }
    /* a signal reaches the workers through the swarm's flag */
    const struct timespec nap = {0, 2 * 1000 * 1000};
    while (atomic_load(&sw.running) > 0) {
        if (rt_interrupted(o)) atomic_store(&sw.stop, 1);
        nanosleep(&nap, NULL);
    }
    for (unsigned i = 0; i < started; i++) pthread_join(sw.w[i].th, NULL);
    if (started < sw.n) {
        for (unsigned i = 0; i < started; i++) explore_result_free(&sw.w[i].r);
        free(sw.w);
        free(r->swarm);
        r->swarm = NULL;
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        return -1;
    }
    int rc = 0;
    for (unsigned i = 0; i < sw.n; i++)
        if (sw.w[i].rc) rc = sw.w[i].rc; /* a worker's setup ran out of memory */
    swarm_result(&sw, o, r, &t0);
    if (rc && !r->swarm_decided) r->stop = STOP_NOMEM;
    for (unsigned i = 0; i < sw.n; i++) explore_result_free(&sw.w[i].r);
    free(sw.w);
    return rc && !r->swarm_decided ? -1 : 0;
}

const char *explore_swarm_decider(const explore_result *r, char *buf, size_t n)
{
    if (!r->swarm || !r->swarm_decided) return NULL;
    unsigned k = r->swarm_decided - 1;
    const explore_swarm_worker *w = &r->swarm[k];
    char seed[40] = "";
    if (w->order == ORDER_RANDOM) snprintf(seed, sizeof seed, ", seed %" PRIu64, w->seed);
    snprintf(buf, n, "%s by swarm worker %u (%s order%s)",
             r->stop == STOP_ERROR   ? "found"
             : r->stop == STOP_DEPTH ? "searched to --max-depth"
                                     : "completed",
             k, thread_order_name(w->order), seed);
    return buf;
}

static bool swarm_selects(const explore_options *o) { return o->swarm != 0; }

/* What a swarm of depth-first searches over separate stores cannot be. */
static const char *swarm_refuses(const explore_options *o, char *msg, size_t n)
{
    const char *what = o->search == SEARCH_BFS          ? "--search=bfs (its workers are depth-first)"
                       : o->search == SEARCH_STATELESS  ? "--search=stateless"
                       : o->scheduling_races            ? "--scheduling=races"
                       : o->workers                     ? "-j (one search over one shared store; "
                                                          "--swarm N runs N searches)"
                       : o->liveness == LIVENESS_NPC    ? "--liveness=npc"
                       : o->liveness == LIVENESS_STARVATION ? "--liveness=starvation"
                       : o->ltl || o->ltl_text          ? "--ltl"
                       : o->all_errors                  ? "--all-errors (the first error stops "
                                                          "every worker)"
                       : o->dump_states                 ? "--dump-states"
                       : o->reduce != REDUCE_COMPOSE    ? "--reduce=none (its workers run "
                                                          "--por)"
                       : o->engine                      ? "the distributed search"
                                                        : NULL;
    if (!what) return NULL;
    snprintf(msg, n, "--swarm cannot be used with %s", what);
    return msg;
}

static void swarm_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    (void)o;
    char label[32], why[96];
    const char *dec = explore_swarm_decider(r, why, sizeof why);
    stats_row(k, STATS_LOAD, "swarm", "%" PRIu32 " workers, each its own store; %s", r->nswarm,
              dec ? dec : "no worker ended on its own (every one stopped at a limit)");
    for (uint32_t i = 0; i < r->nswarm; i++) {
        const explore_swarm_worker *w = &r->swarm[i];
        char seed[40] = "";
        if (w->order == ORDER_RANDOM) snprintf(seed, sizeof seed, ", seed %" PRIu64, w->seed);
        snprintf(label, sizeof label, "swarm worker %" PRIu32, i);
        stats_row(k, STATS_LOAD, label,
                  "%s order%s: %" PRIu64 " states, %" PRIu64 " transitions, depth %" PRIu64
                  ", %.3f s, %s", thread_order_name(w->order), seed, w->states, w->transitions,
                  w->max_depth, w->seconds,
                  w->stop == STOP_INTERRUPTED && r->swarm_decided ? "stopped by the swarm"
                                                                  : stop_reason_name(w->stop));
    }
    if (r->swarm_decided) stats_count(k, STATS_LOAD, "swarm_decided_by", r->swarm_decided - 1);
    else stats_null(k, STATS_LOAD, "swarm_decided_by");
    stats_open(k, STATS_LOAD, STATS_ARRAY, "swarm");
    for (uint32_t i = 0; i < r->nswarm; i++) {
        const explore_swarm_worker *w = &r->swarm[i];
        stats_open(k, STATS_LOAD, STATS_OBJECT, NULL);
        stats_count(k, STATS_LOAD, "worker", i);
        stats_count(k, STATS_LOAD, "seed", w->seed);
        stats_count(k, STATS_LOAD, "states_stored", w->states);
        stats_count(k, STATS_LOAD, "transitions", w->transitions);
        stats_count(k, STATS_LOAD, "max_depth", w->max_depth);
        stats_seconds(k, STATS_LOAD, "seconds", w->seconds);
        stats_end(k, STATS_LOAD);
    }
    stats_end(k, STATS_LOAD);
}

/* It drives its own run: N sequential searches (explore_run()), each with
 * the engine the table picks for its options (the DFS of --por). */
const engine engine_swarm = {
    .name = "swarm",
    .selects = swarm_selects,
    .refuses = swarm_refuses,
    .drive = explore_swarm,
    .rows = swarm_rows,
};
