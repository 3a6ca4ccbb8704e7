/* liveness.c: --liveness=npc, the search for a non-progress cycle (SPIN's
 * -l): a reachable cycle of steps none of which executes an instruction a
 * `progress*` label names. It is the nested depth-first search of nested.c
 * over the product with a built-in automaton, SPIN's never claim for
 * <>[] np_ (its predefined np_): state 0 takes every step and may move (no
 * step) to state 1 of the same model state, which takes only non-progress
 * steps and is accepting. So the product has two copies of each state: the
 * outer search over copy 0 finds the safety errors the plain DFS finds,
 * with its counts; copy 1's states and steps are counted apart
 * (np_states, np_transitions), and only they go on the stack set, since a
 * nested search meets no other. With --por each product state expands a
 * persistent set with no progress step, or every thread (live_por.c); a
 * step into an error adds the rest, and no stack proviso is needed
 * (nested.c, proviso()). Not here: fairness (--fair: fair_cycle.c, over
 * this automaton, npc_buchi()), starvation, LTL, bitstate, BFS, -j (the
 * engine refuses them). */
#include <stdio.h>

#include "nested_int.h"

/* The copy byte after the stored vector: 0 and 1, the outer search's
 * copies; 2, copy 1 in a nested search. */
static void npc_set(uint8_t *tail, uint32_t q, bool nested)
{
    tail[0] = nested ? 2 : (uint8_t)q;
}

static void npc_describe(char *msg, size_t n, uint32_t m, uint32_t mstart)
{
    snprintf(msg, n,
             "non-progress cycle: an infinite execution that passes no progress label (the "
             "cycle is steps %u-%u)", mstart + 1, m);
}

/* 0 -EPS-> 1 first, then 0 -any step-> 0; 1 -non-progress step-> 1. */
static const uint32_t npc_off[] = {0, 2, 3};
static const uint32_t npc_succ[] = {1, 0, 1};
static const uint8_t npc_kind[] = {MOVE_EPS, MOVE_STEP, MOVE_NONPROGRESS};
static const uint8_t npc_accepting[] = {0, 1};
static const uint8_t npc_apart[] = {0, 1};

static const buchi npc_automaton = {
    .nstates = 2,
    .succ_off = npc_off,
    .succ = npc_succ,
    .kind = npc_kind,
    .accepting = npc_accepting,
    .apart = npc_apart,
    .bytes = 1,
    .set = npc_set,
    .verdict = VERDICT_NON_PROGRESS,
    .cause = CAUSE_NON_PROGRESS,
    .describe = npc_describe,
};

void npc_buchi(search *S) { ND(S)->A = npc_automaton; }

static void npc_run(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    ND(S)->A = npc_automaton;
    nested_run(S);
}

static bool npc_selects(const explore_options *o) { return o->liveness == LIVENESS_NPC; }

static const char *npc_refuses(const explore_options *o, char *msg, size_t n)
{
    return nested_refuses(o, "--liveness=npc", msg, n);
}

const engine engine_npc = {
    .name = "npc",
    .selects = npc_selects,
    .refuses = npc_refuses,
    .product_bytes = 1,
    .depth_first = true,
    .ctx_size = sizeof(nested_ctx),
    .run = npc_run,
    .free_ctx = nested_free,
    .reserved = nested_reserved,
    .used = nested_used,
    .rows = npc_rows,
};
