/* stats_text.c: the statistics block of the text report (after SPIN's):
 * states or executions, transitions, depth, instructions, what each search
 * adds (nested searches, persistent sets, sleep sets, the preemption
 * bound), the detector, the store and its omission probability, memory
 * and time, and the load of each worker or rank; and after a search the
 * memory limit stopped, what filled the limit and what to try. The figures
 * are explore_result's: it computes none. */
#include <inttypes.h>
#include <stdio.h>

#include "report_int.h"
#include "store.h"

static const char *human_bytes(double b, char *buf, size_t n)
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

/* "stack" or "queue": what the search keeps its frontier in. */
static const char *frontier_name(const explore_options *eo)
{
    return eo->search == SEARCH_BFS ? "queue" : "stack";
}

/* The search's own memory and the process's: the stack or queue, used (at
 * its fullest) and reserved (the capacity allocated, more than the OS may
 * have given: see docs/usage.md "Memory figures"), the fixed buffers, the
 * errors kept, and the peak resident set size of the whole process. */
static void print_memory_text(FILE *out, const explore_options *eo, const explore_stats *x)
{
    char b1[32], b2[32];
    fprintf(out, "  search %s         %s used at most, %s reserved\n", frontier_name(eo),
            human_bytes((double)x->search_used, b1, sizeof b1),
            human_bytes((double)x->search_reserved, b2, sizeof b2));
    fprintf(out, "  search buffers       %s (work vectors, lookup caches)\n",
            human_bytes((double)x->buffer_bytes, b1, sizeof b1));
    if (x->error_bytes)
        fprintf(out, "  errors kept          %s (their paths)\n",
                human_bytes((double)x->error_bytes, b1, sizeof b1));
    fprintf(out, "  peak memory (RSS)    %s resident (the whole process, at the report)\n",
            human_bytes((double)x->peak_rss, b1, sizeof b1));
}

/* After "search incomplete: memory limit reached": the limit, the part
 * that filled it, every part as --memlimit counts it (reserved bytes, so
 * the sum is what was checked against the limit), and what to try. */
void report_memlimit_text(FILE *out, const explore_options *eo, const explore_result *r)
{
    const explore_stats *x = &r->stats;
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    const char *order = eo->search == SEARCH_BFS ? "BFS" : "DFS";
    fprintf(out, "memory limit %s: ", human_bytes((double)eo->memlimit, b1, sizeof b1));
    switch (r->memlimit_part) {
    case MEM_STORE:
        if (eo->store.kind == STORE_BITSTATE)
            fprintf(out, "the bit array of the store takes %s, allocated whole (--bitstate-mb)",
                    human_bytes((double)x->store_bytes, b1, sizeof b1));
        else
            fprintf(out, "the state store holds %s (%" PRIu64 " states)",
                    human_bytes((double)x->store_bytes, b1, sizeof b1), x->states_stored);
        break;
    case MEM_STACK:
    case MEM_QUEUE:
        fprintf(out, "the %s %s holds %s reserved (%s of it used at most)", order, frontier_name(eo),
                human_bytes((double)x->search_reserved, b1, sizeof b1),
                human_bytes((double)x->search_used, b2, sizeof b2));
        break;
    case MEM_BUFFERS:
        fprintf(out, "the search's buffers hold %s (%" PRIu64 "-byte state vectors)",
                human_bytes((double)x->buffer_bytes, b1, sizeof b1), x->vector_bytes);
        break;
    case MEM_ERRORS:
        fprintf(out, "the errors kept hold %s", human_bytes((double)x->error_bytes, b1, sizeof b1));
        break;
    case MEM_NONE: break;
    }
    fprintf(out, "\n  counted (reserved bytes): store %s + %s %s + buffers %s + errors %s = %s",
            human_bytes((double)x->store_bytes, b1, sizeof b1), frontier_name(eo),
            human_bytes((double)x->search_reserved, b2, sizeof b2),
            human_bytes((double)x->buffer_bytes, b3, sizeof b3),
            human_bytes((double)x->error_bytes, b4, sizeof b4),
            human_bytes((double)explore_counted_bytes(x), b5, sizeof b5));
    if (x->refused_bytes)
        fprintf(out, "; the %s needed %s more", frontier_name(eo),
                human_bytes((double)x->refused_bytes, b1, sizeof b1));
    else if (explore_counted_bytes(x) > eo->memlimit) /* checked after a growth */
        fprintf(out, ", %s past the limit: %s",
                human_bytes((double)(explore_counted_bytes(x) - eo->memlimit), b1, sizeof b1),
                eo->workers ? "-j checks it every few thousand steps"
                            : "checked after each transition");
    fprintf(out, "\n");
    fprintf(out, "hint: try ");
    switch (r->memlimit_part) {
    case MEM_STORE:
        if (eo->store.kind == STORE_BITSTATE)
            fprintf(out, "a smaller --bitstate-mb");
        else if (eo->store.kind == STORE_EXACT)
            fprintf(out, "--store=compact (a fingerprint a state), --store=bitstate (incomplete)");
        else
            fprintf(out, "--store=bitstate (incomplete)");
        if (eo->store.kind != STORE_BITSTATE && !eo->por && eo->reduce == REDUCE_COMPOSE)
            fprintf(out, ", --por (fewer states)");
        if (eo->store.kind != STORE_BITSTATE && eo->reduce == REDUCE_NONE)
            fprintf(out, ", --reduce=compose (fewer states)");
        break;
    case MEM_STACK:
        if (eo->workers) /* its stacks hold every state waiting to be expanded */
            fprintf(out, "without -j (the sequential DFS keeps only the path), --max-depth N");
        else if (x->search_used * 4 < x->search_reserved) /* not the depth: room for big steps */
            fprintf(out, "a smaller state vector (the stack keeps room for a step that changes "
                         "all of its %" PRIu64 " bytes), --search=bfs", x->vector_bytes);
        else
            fprintf(out, "--max-depth N or --search=bfs");
        break;
    case MEM_QUEUE:
        fprintf(out, "--search=dfs%s (keeps only the path)", eo->workers ? " without -j" : "");
        break;
    case MEM_BUFFERS:
        fprintf(out, "a smaller state vector (the buffers hold a few vectors each)");
        break;
    case MEM_ERRORS:
        fprintf(out, "%s", eo->all_errors ? "a smaller --max-traces, or without --all-errors"
                                          : "a smaller --max-traces");
        break;
    case MEM_NONE: break;
    }
    fprintf(out, ", or more memory\n");
}

/* The statistics lines every search has: transitions, depth, instructions. */
static void print_steps_text(FILE *out, const explore_options *eo, const explore_stats *x)
{
    fprintf(out, "  transitions          %" PRIu64 "%s\n", x->transitions,
            eo->reduce == REDUCE_COMPOSE ? " (composed steps)" : "");
    fprintf(out, "  max depth            %" PRIu64 "\n", x->max_depth);
    fprintf(out, "  instructions         %" PRIu64, x->instructions);
    if (eo->reduce == REDUCE_COMPOSE)
        fprintf(out, " (%" PRIu64 " invisible merged, %.2f per composed step)", x->invisible,
                x->transitions ? (double)x->instructions / (double)x->transitions : 0.0);
    fprintf(out, "\n");
}

/* The statistics of --search=stateless: executions instead of states (it
 * stores none), the iterations of its depth bound, sleep sets and the
 * preemption bound. */
static void print_stateless_stats_text(FILE *out, const explore_options *eo,
                                       const explore_result *r)
{
    const explore_stats *x = &r->stats;
    fprintf(out, "statistics:\n");
    fprintf(out, "  executions           %" PRIu64 " (no state stored)\n", x->executions);
    fprintf(out, "  iterations           %" PRIu64 " (iterative deepening; last depth bound %" PRIu64
                 ")\n", x->iterations, x->depth_bound);
    print_steps_text(out, eo, x);
    if (eo->preemption_bound >= 0)
        fprintf(out, "  sleep sets           off (with a preemption bound)\n");
    else if (eo->no_sleep_sets)
        fprintf(out, "  sleep sets           off (--sleep-sets=off)\n");
    else
        fprintf(out, "  sleep sets           %" PRIu64 " steps not taken (revisits avoided)\n",
                x->sleep_avoided);
    if (eo->scheduling_races)
        fprintf(out, "  race-driven          %" PRIu64 " light nodes (no choice), %" PRIu64
                     " races found (backtrack points added), %" PRIu64 " fallbacks to full\n",
                x->light_nodes, x->races_found, x->race_fallbacks);
    if (eo->preemption_bound >= 0)
        fprintf(out, "  preemption bound     %" PRId64 "%s (%" PRIu64 " steps left out)\n",
                x->preemption_bound, eo->preemption_iterate ? ", raised from 0" : "",
                x->preemption_pruned);
    fprintf(out, "  state vector         %" PRIu64 " bytes\n", x->vector_bytes);
    if (eo->race != LS_OFF)
        fprintf(out, "  locksets interned    %" PRIu64 " (%s detector)\n", x->locksets,
                race_mode_name(eo->race));
    print_memory_text(out, eo, x);
    fprintf(out, "  time                 %.3f s (%.0f executions/s)\n", x->seconds,
            x->seconds > 0 ? (double)x->executions / x->seconds : 0.0);
}

void report_stats_text(FILE *out, const explore_options *eo, const explore_result *r)
{
    const explore_stats *x = &r->stats;
    char b1[32];
    if (eo->search == SEARCH_STATELESS) {
        print_stateless_stats_text(out, eo, r);
        return;
    }
    double bps = x->states_stored ? (double)x->store_bytes / (double)x->states_stored : 0;
    fprintf(out, "statistics:\n");
    fprintf(out, "  states stored        %" PRIu64 "\n", x->states_stored);
    fprintf(out, "  states matched       %" PRIu64 "\n", x->states_matched);
    print_steps_text(out, eo, x);
    if (eo->liveness == LIVENESS_STARVATION)
        fprintf(out, "  starvation           %" PRIu64 " thread%s checked, %" PRIu64
                     " SCCs completed\n", x->starvation_checks,
                x->starvation_checks == 1 ? "" : "s", x->sccs);
    else if (eo->liveness)
        fprintf(out, "  non-progress copy    %" PRIu64 " states, %" PRIu64 " transitions "
                     "(%" PRIu64 " progress steps not taken)\n"
                     "  nested searches      %" PRIu64 " (%" PRIu64 " states, %" PRIu64
                     " transitions)\n",
                x->np_states, x->np_transitions, x->progress_skipped, x->nested_searches,
                x->nested_states, x->nested_transitions);
    if (eo->ltl)
        fprintf(out, "  nested searches      %" PRIu64 " (%" PRIu64 " states, %" PRIu64
                     " transitions)\n",
                x->nested_searches, x->nested_states, x->nested_transitions);
    if (eo->por)
        fprintf(out, "  persistent sets      %" PRIu64 " states reduced, %" PRIu64
                     " of them expanded fully after all (cycle or error proviso)%s\n",
                x->por_reduced, x->por_proviso,
                eo->workers ? "; -j: no sleep sets" : "");
    fprintf(out, "  state vector         %" PRIu64 " bytes\n", x->vector_bytes);
    if (eo->race != LS_OFF) {
        fprintf(out, "  locksets interned    %" PRIu64 " (%s detector)\n", x->locksets,
                race_mode_name(eo->race));
        fprintf(out, "  detector time        %.3f s (%.0f%% of the search; 1 call in 64 timed)\n",
                x->detector_seconds,
                x->seconds > 0 ? 100.0 * x->detector_seconds / x->seconds : 0.0);
        if (eo->por)
            fprintf(out, "  discharged           %" PRIu64 " of %" PRIu64
                         " shared elements (static analysis: no detector metadata)\n",
                    x->discharged, x->shared_elements);
    }
    if (eo->store.kind == STORE_COMPACT)
        fprintf(out, "  store                compact, %u-bit fingerprints, %s (%.1f bytes/state)\n",
                eo->store.fingerprint_bits, human_bytes((double)x->store_bytes, b1, sizeof b1), bps);
    else if (eo->store.kind == STORE_BITSTATE) /* allocated whole at the start */
        fprintf(out, "  store                bitstate, %s reserved: the whole bit array (%.1f "
                     "bytes/state)\n", human_bytes((double)x->store_bytes, b1, sizeof b1), bps);
    else
        fprintf(out, "  store                %s, %s (%.1f bytes/state)\n",
                store_kind_name(eo->store.kind), human_bytes((double)x->store_bytes, b1, sizeof b1),
                bps);
    print_memory_text(out, eo, x);
    if (eo->store.kind == STORE_COMPACT)
        fprintf(out, "  omission probability %.3g (hash compaction)\n", x->omission);
    else if (eo->store.kind == STORE_BITSTATE)
        fprintf(out, "  coverage (estimate)  %.4f%% of states (bitstate: partial search)\n",
                100.0 * (1.0 - x->omission));
    fprintf(out, "  time                 %.3f s (%.0f states/s)\n", x->seconds,
            x->seconds > 0 ? (double)x->states_stored / x->seconds : 0.0);
    for (uint32_t i = 0; i < r->nworkers; i++) { /* -j N: the load balance */
        const explore_worker *w = &r->workers[i];
        fprintf(out, "  worker %-13" PRIu32 " %" PRIu64 " states, %" PRIu64
                     " transitions, idle %.3f s, handed work %" PRIu64 " times\n",
                i, w->states, w->transitions, w->idle, w->steals);
    }
    for (uint32_t i = 0; i < r->nranks; i++) { /* mcheck-mpi: load and network */
        const explore_rank *k = &r->ranks[i];
        char b2[32];
        fprintf(out, "  rank %-15" PRIu32 " %" PRIu64 " states, %" PRIu64 " transitions, %" PRIu64
                     " messages (%s) sent, store %s, wait %.3f s\n",
                i, k->states, k->transitions, k->messages,
                human_bytes((double)k->bytes, b1, sizeof b1),
                human_bytes((double)k->store_bytes, b2, sizeof b2), k->wait);
    }
    if (eo->store.kind == STORE_COMPACT && x->omission > 1e-6)
        fprintf(out, "warning: the probability that hash compaction omitted a state is %.3g;"
                     " use --fingerprint=128 or --store=exact\n", x->omission);
}
