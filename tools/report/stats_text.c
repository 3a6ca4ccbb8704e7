/* stats_text.c: the statistics block of the text report (after SPIN's):
 * the common fields (states, transitions, depth, instructions, the state
 * vector, the detector, the store and its omission probability, memory and
 * time) and among them the rows of the engine that ran and of what wraps it
 * (explore_stats_rows(): executions, nested searches, sleep sets, persistent
 * sets, the load of each worker or rank), so it names no search; and after
 * a search the memory limit stopped, what filled the limit and what to try.
 * The figures are explore_result's: it computes none. */
#include <inttypes.h>
#include <stdio.h>

#include "report_int.h"
#include "store.h"

/* The search's own memory and the process's: the stack or queue, used (at
 * its fullest) and reserved (the capacity allocated, more than the OS may
 * have given: see docs/usage.md "Memory figures"), the fixed buffers, the
 * errors kept, and the peak resident set size of the whole process. */
static void print_memory_text(FILE *out, const char *frontier, const explore_stats *x)
{
    char b1[32], b2[32];
    fprintf(out, "  search %s         %s used at most, %s reserved\n", frontier,
            explore_human_bytes((double)x->search_used, b1, sizeof b1),
            explore_human_bytes((double)x->search_reserved, b2, sizeof b2));
    fprintf(out, "  search buffers       %s (work vectors, lookup caches)\n",
            explore_human_bytes((double)x->buffer_bytes, b1, sizeof b1));
    if (x->error_bytes)
        fprintf(out, "  errors kept          %s (their paths)\n",
                explore_human_bytes((double)x->error_bytes, b1, sizeof b1));
    fprintf(out, "  peak memory (RSS)    %s resident (the whole process, at the report)\n",
            explore_human_bytes((double)x->peak_rss, b1, sizeof b1));
}

/* After "search incomplete: memory limit reached": the limit, the part
 * that filled it, every part as --memlimit counts it (reserved bytes, so
 * the sum is what was checked against the limit), and what to try. */
void report_memlimit_text(FILE *out, const explore_options *eo, const explore_result *r)
{
    const explore_stats *x = &r->stats;
    const char *frontier = explore_stats_frame(eo, r).frontier;
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    const char *order = eo->search == SEARCH_BFS ? "BFS" : "DFS";
    fprintf(out, "memory limit %s%s: ", explore_human_bytes((double)eo->memlimit, b1, sizeof b1),
            eo->memlimit_default ? " (the default, 3/4 of the memory; --memlimit MB sets another, "
                                   "--memlimit 0 none)"
                                 : "");
    switch (r->memlimit_part) {
    case MEM_STORE:
        if (eo->store.kind == STORE_BITSTATE)
            fprintf(out, "the bit array of the store takes %s, allocated whole (--bitstate-mb)",
                    explore_human_bytes((double)x->store_bytes, b1, sizeof b1));
        else
            fprintf(out, "the state store holds %s (%" PRIu64 " states)",
                    explore_human_bytes((double)x->store_bytes, b1, sizeof b1), x->states_stored);
        break;
    case MEM_STACK:
    case MEM_QUEUE:
        fprintf(out, "the %s %s holds %s reserved (%s of it used at most)", order, frontier,
                explore_human_bytes((double)x->search_reserved, b1, sizeof b1),
                explore_human_bytes((double)x->search_used, b2, sizeof b2));
        break;
    case MEM_BUFFERS:
        fprintf(out, "the search's buffers hold %s (%" PRIu64 "-byte state vectors)",
                explore_human_bytes((double)x->buffer_bytes, b1, sizeof b1), x->vector_bytes);
        break;
    case MEM_ERRORS:
        fprintf(out, "the errors kept hold %s",
                explore_human_bytes((double)x->error_bytes, b1, sizeof b1));
        break;
    case MEM_NONE: break;
    }
    fprintf(out, "\n  counted (reserved bytes): store %s + %s %s + buffers %s + errors %s = %s",
            explore_human_bytes((double)x->store_bytes, b1, sizeof b1), frontier,
            explore_human_bytes((double)x->search_reserved, b2, sizeof b2),
            explore_human_bytes((double)x->buffer_bytes, b3, sizeof b3),
            explore_human_bytes((double)x->error_bytes, b4, sizeof b4),
            explore_human_bytes((double)explore_counted_bytes(x), b5, sizeof b5));
    if (x->refused_bytes)
        fprintf(out, "; the %s needed %s more", frontier,
                explore_human_bytes((double)x->refused_bytes, b1, sizeof b1));
    else if (explore_counted_bytes(x) > eo->memlimit) /* checked after a growth */
        fprintf(out, ", %s past the limit: %s",
                explore_human_bytes((double)(explore_counted_bytes(x) - eo->memlimit), b1,
                                    sizeof b1),
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

/* The store: its kind, its bytes, the bytes a state. */
static void print_store_text(FILE *out, const explore_options *eo, const explore_stats *x)
{
    char b[32];
    const char *bytes = explore_human_bytes((double)x->store_bytes, b, sizeof b);
    double bps = x->states_stored ? (double)x->store_bytes / (double)x->states_stored : 0;
    if (eo->store.kind == STORE_COMPACT)
        fprintf(out, "  store                compact, %u-bit fingerprints, %s (%.1f bytes/state)\n",
                eo->store.fingerprint_bits, bytes, bps);
    else if (eo->store.kind == STORE_BITSTATE) /* allocated whole at the start */
        fprintf(out, "  store                bitstate, %s reserved: the whole bit array (%.1f "
                     "bytes/state)\n", bytes, bps);
    else
        fprintf(out, "  store                %s, %s (%.1f bytes/state)\n",
                store_kind_name(eo->store.kind), bytes, bps);
}

/* The text sink: a row is its label padded to 20 columns and its value;
 * JSON members are the JSON report's. */
static void text_row(stats_sink *k, const char *label, const char *value)
{
    fprintf(k->out, "  %-20s %s\n", label, value);
}

/* The rows at one place among the common lines (explore_stats_rows()). */
static void print_rows_text(FILE *out, const explore_options *eo, const explore_result *r,
                            stats_place at)
{
    stats_sink k = {.at = at, .row = text_row, .out = out};
    explore_stats_rows(eo, r, &k);
}

void report_stats_text(FILE *out, const explore_options *eo, const explore_result *r)
{
    const explore_stats *x = &r->stats;
    stats_frame f = explore_stats_frame(eo, r);
    fprintf(out, "statistics:\n");
    if (f.stores) {
        fprintf(out, "  states stored        %" PRIu64 "\n", x->states_stored);
        fprintf(out, "  states matched       %" PRIu64 "\n", x->states_matched);
    }
    print_rows_text(out, eo, r, STATS_COUNTS);
    print_steps_text(out, eo, x);
    print_rows_text(out, eo, r, STATS_SEARCH);
    print_rows_text(out, eo, r, STATS_REDUCTION);
    fprintf(out, "  state vector         %" PRIu64 " bytes\n", x->vector_bytes);
    if (eo->race != LS_OFF) {
        fprintf(out, "  locksets interned    %" PRIu64 " (%s detector)\n", x->locksets,
                race_mode_name(eo->race));
        if (f.stores)
            fprintf(out, "  detector time        %.3f s (%.0f%% of the search; 1 call in 64 "
                         "timed)\n", x->detector_seconds,
                    x->seconds > 0 ? 100.0 * x->detector_seconds / x->seconds : 0.0);
        print_rows_text(out, eo, r, STATS_DETECTOR);
    }
    if (f.stores) print_store_text(out, eo, x);
    print_memory_text(out, f.frontier, x);
    if (f.stores && eo->store.kind == STORE_COMPACT)
        fprintf(out, "  omission probability %.3g (hash compaction)\n", x->omission);
    else if (f.stores && eo->store.kind == STORE_BITSTATE)
        fprintf(out, "  coverage (estimate)  %.4f%% of states (bitstate: partial search)\n",
                100.0 * (1.0 - x->omission));
    fprintf(out, "  time                 %.3f s (%.0f %s/s)\n", x->seconds,
            x->seconds > 0 ? (double)f.rate_count / x->seconds : 0.0, f.rate_of);
    print_rows_text(out, eo, r, STATS_LOAD);
    if (f.stores && eo->store.kind == STORE_COMPACT && x->omission > 1e-6)
        fprintf(out, "warning: the probability that hash compaction omitted a state is %.3g;"
                     " use --fingerprint=128 or --store=exact\n", x->omission);
}
