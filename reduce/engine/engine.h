/* engine.h: the engine interface, private to reduce/. Each search (the DFS,
 * the BFS, the DFS of --por, the stateless search, the nested DFS of
 * --liveness=npc and of --ltl, the starvation search, the checks of a saved
 * lasso, the parallel search, --swarm's driver) is one `engine` in its own
 * file, listed once in engines.c's table. explore_run() (explore.c) takes
 * the table's first engine that selects the options, asks it whether it can
 * run them (its own combination, checked once: the CLI prints the same text
 * as a usage error, explore_check()), builds the common context
 * (search_int.h: store, detector, step environment, limits, the DFS's undo
 * log), gives the engine a zeroed private context of ctx_size bytes (S->ctx)
 * and runs it. The memory accounting, the statistics and the teardown ask
 * the engine for its own part, so neither explore.c nor search.c names a
 * search. The idea is LTSmin's pins2lts-mc/algorithm/ (one file per
 * algorithm over one runtime). */
#ifndef MCHECK_ENGINE_H
#define MCHECK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reduce.h"
#include "rows.h"

struct search;

typedef struct engine {
    const char *name;
    /* Does this engine run these options? The table's first that does runs. */
    bool (*selects)(const explore_options *o);
    /* NULL if it can run these options, else why not, a usage error's text
     * (written into msg, n bytes, or a constant). NULL: no restriction. */
    const char *(*refuses)(const explore_options *o, char *msg, size_t n);
    /* An engine with a runtime of its own (-j N): explore_run() hands it
     * the whole run. NULL: the sequential driver of explore.c. */
    int (*drive)(const vm_program *p, const explore_options *o, explore_result *r);
    /* The sequential driver's engines: */
    uint8_t product_bytes;  /* bytes after the stored vector, stored with it (the
                               product's copy or automaton state); the undo log
                               restores them */
    bool stateless;         /* no store: run() starts before the initial state is
                               stored, with first = nthreads */
    bool depth_first;       /* uses the DFS's stack of frames, undo log and
                               successor vector (S->dfs, search_int.h) */
    size_t ctx_size;        /* its private context S->ctx, zeroed before run() */
    /* Search from the initial state S->cur (stored, unless stateless), whose
     * first enabled thread is `first` with `n` choices. */
    void (*run)(struct search *S, uint32_t first, uint64_t n);
    /* Free what its context holds (not the context). NULL: nothing. */
    void (*free_ctx)(struct search *S);
    /* Bytes its context reserves (--memlimit counts them), and of those the
     * most that held entries at once for a search `levels` deep (the
     * statistics' bytes used). NULL: none beyond the DFS frames'. */
    uint64_t (*reserved)(const struct search *S);
    uint64_t (*used)(const struct search *S, uint64_t levels);
    /* Its statistics' rows beyond the common fields (rows.h; the reports
     * print them: explore_stats_rows()). NULL: none. */
    void (*rows)(const explore_options *o, const explore_result *r, stats_sink *k);
} engine;

/* The table (engines.c): the engine that runs o, never NULL (the plain DFS
 * selects everything). */
const engine *engine_for(const explore_options *o);

/* The engines, each defined in its own file. */
extern const engine engine_dfs, engine_bfs, engine_dfs_por, engine_stateless,
    engine_npc, engine_ltl, engine_starvation, engine_fair_cycle, engine_ltl_lasso, engine_starvation_lasso,
    engine_parallel, engine_swarm;

#endif
