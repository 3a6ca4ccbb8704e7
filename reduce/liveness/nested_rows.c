/* nested_rows.c: the statistics' rows of the two nested depth-first
 * searches (rows.h): --liveness=npc's non-progress copy and inner searches
 * (liveness.c), and --ltl's inner searches and automaton (ltl_search.c). */
#include <inttypes.h>

#include "rows.h"

static void nested_text(const explore_stats *x, stats_sink *k)
{
    stats_row(k, STATS_SEARCH, "nested searches",
              "%" PRIu64 " (%" PRIu64 " states, %" PRIu64 " transitions)", x->nested_searches,
              x->nested_states, x->nested_transitions);
}

static void nested_json(const explore_stats *x, stats_sink *k)
{
    stats_count(k, STATS_SEARCH, "nested_searches", x->nested_searches);
    stats_count(k, STATS_SEARCH, "nested_states", x->nested_states);
    stats_count(k, STATS_SEARCH, "nested_transitions", x->nested_transitions);
    stats_count(k, STATS_SEARCH, "cycles_rejected", x->cycles_rejected);
}

void npc_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    (void)o;
    const explore_stats *x = &r->stats;
    stats_row(k, STATS_SEARCH, "non-progress copy",
              "%" PRIu64 " states, %" PRIu64 " transitions (%" PRIu64 " progress steps not taken)",
              x->np_states, x->np_transitions, x->progress_skipped);
    nested_text(x, k);
    stats_count(k, STATS_SEARCH, "np_states", x->np_states);
    stats_count(k, STATS_SEARCH, "np_transitions", x->np_transitions);
    stats_count(k, STATS_SEARCH, "progress_steps_skipped", x->progress_skipped);
    nested_json(x, k);
}

void ltl_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    if (!o->ltl) return; /* the formula did not become an automaton: no search ran */
    nested_text(&r->stats, k);
    nested_json(&r->stats, k);
    stats_count(k, STATS_SEARCH, "automaton_states", o->ltl->nstates);
}
