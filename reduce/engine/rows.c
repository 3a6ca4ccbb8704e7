/* rows.c: the statistics' rows (reduce.h, rows.h). explore_stats_rows()
 * hands a report's sink the rows of the engine that ran (its rows(),
 * engine.h), then those of what wraps any engine: --por's persistent sets
 * and the static discharge, and the load of each worker (-j N) or rank
 * (mcheck-mpi) from the result's tables, whichever runtime filled them.
 * explore_stats_frame() says how the common fields read for that engine. A
 * report prints the common fields and asks for the rows place by place, so
 * it never names a search. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "engine.h"
#include "rows.h"

const char *explore_human_bytes(double b, char *buf, size_t n)
{
    const char *unit[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

void stats_row(stats_sink *k, stats_place at, const char *label, const char *fmt, ...)
{
    if (at != k->at || !k->row) return;
    char value[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    k->row(k, label, value);
}

static void member(stats_sink *k, stats_place at, stats_member m)
{
    if (at == k->at && k->member) k->member(k, &m);
}

void stats_count(stats_sink *k, stats_place at, const char *key, uint64_t v)
{
    member(k, at, (stats_member){.kind = STATS_COUNT, .key = key, .count = v});
}

void stats_signed(stats_sink *k, stats_place at, const char *key, int64_t v)
{
    member(k, at, (stats_member){.kind = STATS_SIGNED, .key = key, .number = v});
}

void stats_null(stats_sink *k, stats_place at, const char *key)
{
    member(k, at, (stats_member){.kind = STATS_NULL, .key = key});
}

void stats_seconds(stats_sink *k, stats_place at, const char *key, double v)
{
    member(k, at, (stats_member){.kind = STATS_SECONDS, .key = key, .seconds = v});
}

void stats_open(stats_sink *k, stats_place at, stats_kind kind, const char *key)
{
    member(k, at, (stats_member){.kind = kind, .key = key});
}

void stats_end(stats_sink *k, stats_place at)
{
    member(k, at, (stats_member){.kind = STATS_END});
}

stats_frame explore_stats_frame(const explore_options *o, const explore_result *r)
{
    const explore_stats *x = &r->stats;
    bool stores = !r->engine || !r->engine->stateless;
    return (stats_frame){.stores = stores,
                         .frontier = o->search == SEARCH_BFS ? "queue" : "stack",
                         .rate_of = stores ? "states" : "executions",
                         .rate_count = stores ? x->states_stored : x->executions};
}

/* --por, over whichever engine: the persistent sets (-j has no sleep sets),
 * and with a detector the shared elements the static analysis discharged. */
static void por_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    const explore_stats *x = &r->stats;
    stats_row(k, STATS_REDUCTION, "persistent sets",
              "%" PRIu64 " states reduced, %" PRIu64 " of them expanded fully after all "
              "(cycle or error proviso)%s",
              x->por_reduced, x->por_proviso,
              o->workers ? "; -j: no sleep sets"
              : o->no_sleep_sets && o->search == SEARCH_DFS ? "; --sleep-sets=off"
                                                            : "");
    stats_row(k, STATS_DETECTOR, "discharged",
              "%" PRIu64 " of %" PRIu64 " shared elements (static analysis: no detector metadata)",
              x->discharged, x->shared_elements);
    stats_count(k, STATS_REDUCTION, "discharged_elements", x->discharged);
    stats_count(k, STATS_REDUCTION, "shared_elements", x->shared_elements);
    stats_count(k, STATS_REDUCTION, "por_reduced_states", x->por_reduced);
    stats_count(k, STATS_REDUCTION, "por_proviso_states", x->por_proviso);
}

/* -j N: what each worker did; mcheck-mpi: each rank's load and network. */
static void load_rows(const explore_result *r, stats_sink *k)
{
    char label[32], b1[32], b2[32];
    for (uint32_t i = 0; i < r->nworkers; i++) {
        const explore_worker *w = &r->workers[i];
        snprintf(label, sizeof label, "worker %" PRIu32, i);
        stats_row(k, STATS_LOAD, label,
                  "%" PRIu64 " states, %" PRIu64 " transitions, idle %.3f s, handed work %" PRIu64
                  " times", w->states, w->transitions, w->idle, w->steals);
    }
    for (uint32_t i = 0; i < r->nranks; i++) {
        const explore_rank *n = &r->ranks[i];
        snprintf(label, sizeof label, "rank %" PRIu32, i);
        stats_row(k, STATS_LOAD, label,
                  "%" PRIu64 " states, %" PRIu64 " transitions, %" PRIu64
                  " messages (%s) sent, store %s, wait %.3f s",
                  n->states, n->transitions, n->messages,
                  explore_human_bytes((double)n->bytes, b1, sizeof b1),
                  explore_human_bytes((double)n->store_bytes, b2, sizeof b2), n->wait);
    }
    if (r->nworkers) {
        stats_open(k, STATS_LOAD, STATS_ARRAY, "workers");
        for (uint32_t i = 0; i < r->nworkers; i++) {
            const explore_worker *w = &r->workers[i];
            stats_open(k, STATS_LOAD, STATS_OBJECT, NULL);
            stats_count(k, STATS_LOAD, "states_stored", w->states);
            stats_count(k, STATS_LOAD, "transitions", w->transitions);
            stats_seconds(k, STATS_LOAD, "idle_seconds", w->idle);
            stats_count(k, STATS_LOAD, "handed_work", w->steals);
            stats_end(k, STATS_LOAD);
        }
        stats_end(k, STATS_LOAD);
    }
    if (r->nranks) {
        stats_open(k, STATS_LOAD, STATS_ARRAY, "ranks");
        for (uint32_t i = 0; i < r->nranks; i++) {
            const explore_rank *n = &r->ranks[i];
            stats_open(k, STATS_LOAD, STATS_OBJECT, NULL);
            stats_count(k, STATS_LOAD, "states_stored", n->states);
            stats_count(k, STATS_LOAD, "transitions", n->transitions);
            stats_count(k, STATS_LOAD, "messages", n->messages);
            stats_count(k, STATS_LOAD, "bytes_sent", n->bytes);
            stats_count(k, STATS_LOAD, "store_bytes", n->store_bytes);
            stats_seconds(k, STATS_LOAD, "wait_seconds", n->wait);
            stats_end(k, STATS_LOAD);
        }
        stats_end(k, STATS_LOAD);
    }
}

void explore_stats_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    if (r->engine && r->engine->rows) r->engine->rows(o, r, k);
    if (o->por) por_rows(o, r, k);
    load_rows(r, k);
}
