/* engines.c: the table of engines (engine.h) and the options every
 * sequential engine checks alike. A new search is a file of its own with
 * its `engine` and one line here; the first engine whose selects() holds
 * runs, so the table goes from the most specific options to the plain DFS,
 * which selects everything. An engine built into another program only
 * (mcheck-mpi's distributed search, reduce/mpi/mpi.c) is named by the
 * options instead (explore_options.engine). */
#include <stdio.h>

#include "engine.h"

static const engine *const engines[] = {
    &engine_starvation_lasso, /* mcheck --replay of a starvation lasso: no search */
    &engine_ltl_lasso,        /* mcheck --replay of an --ltl lasso: no search */
    &engine_swarm,            /* --swarm N (refuses what it cannot be combined with) */
    &engine_fair_cycle,       /* --ltl --fair, --liveness=npc --fair */
    &engine_ltl,              /* --ltl */
    &engine_starvation,       /* --liveness=starvation */
    &engine_npc,              /* --liveness=npc */
    &engine_stateless,        /* --search=stateless, --scheduling=races */
    &engine_parallel,         /* -j N */
    &engine_bfs,              /* --search=bfs */
    &engine_dfs_por,          /* --por */
    &engine_dfs,              /* the rest */
};

const engine *engine_for(const explore_options *o)
{
    if (o->engine) return o->engine; /* one named by the caller (mcheck-mpi's) */
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++)
        if (engines[i]->selects(o)) return engines[i];
    return &engine_dfs;
}

/* What no engine runs: --por is a reduction of composed steps, and the
 * look-ahead is the plain DFS's. */
static const char *common_refusal(const explore_options *o, char *msg, size_t n)
{
    if (o->por && o->reduce != REDUCE_COMPOSE) {
        snprintf(msg, n, "--por works on composed steps: it cannot be used with --reduce=%s",
                 reduce_mode_name(o->reduce));
        return msg;
    }
    if (o->por && o->lookahead != LOOKAHEAD_AUTO && o->lookahead != LOOKAHEAD_OFF) {
        snprintf(msg, n, "--lookahead=%s applies to the search without --por",
                 lookahead_mode_name(o->lookahead));
        return msg;
    }
    return NULL;
}

const char *explore_check(const explore_options *o, char *msg, size_t n)
{
    const char *why = common_refusal(o, msg, n);
    if (why) return why;
    const engine *e = engine_for(o);
    return e->refuses ? e->refuses(o, msg, n) : NULL;
}
