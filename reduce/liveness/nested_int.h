/* nested_int.h: what the two nested depth-first searches for cycles share
 * (liveness.c, --liveness=npc; ltl_search.c, --ltl): the outer stack's set,
 * the work vectors that replay a cycle before it is recorded, and --por's
 * tables (live_por.c). Each engine's private context begins with a
 * `nested_ctx`; the saved-lasso check of --ltl (ltl_search.c) uses one alone.
 * Private to reduce/. */
#ifndef MCHECK_NESTED_INT_H
#define MCHECK_NESTED_INT_H

#include "search_int.h"

typedef struct nested {
    hash_map onstack;    /* hash of an outer stack state (copy 1 of npc's
                            product, any of --ltl's) -> its level + 1 */
    uint8_t *check;      /* work vectors of the replay check (2 x wsize) */
    /* --por (live_por.c) */
    hash_map full;       /* product key -> 1: the outer search expanded it fully */
    uint64_t *prop_objs; /* --ltl: the objects the formula's props read */
    uint64_t prop_at;    /* --ltl: the threads whose location a prop reads */
} nested_ctx;

/* The nested part of the running engine's context. */
#define ND(S) ((nested_ctx *)(S)->ctx)

/* Free it; the bytes its maps reserve. */
void nested_free(search *S);
uint64_t nested_reserved(const search *S);

/* ---- live_por.c: --por in the nested searches ------------------------------ */

/* Build the visibility tables (--ltl: the objects the formula's props
 * read). False with S->lim.stop set when memory runs out. */
bool live_por_start(search *S);
/* The threads to expand first in product state `key` at model state s
 * (`enabled`: its enabled threads), and in *rest the enabled threads left
 * for the proviso: without --por (or with more than 64 threads) every
 * enabled thread; else a persistent set, or every enabled thread when one
 * of its steps is visible (a progress step; one that may change a prop the
 * formula reads). A nested search (`nested`) takes the outer search's
 * decision: every enabled thread when that search recorded `key` full. */
uint64_t live_por_todo(search *S, const uint8_t *s, uint64_t enabled, bool nested, uint64_t key,
                       uint64_t *rest);
/* The outer search expands product state `key` fully (its proviso):
 * recorded for the nested searches. False with S->lim.stop set if the
 * record does not fit. */
bool live_por_full(search *S, uint64_t key);
/* The key of a product state for live_por_todo(): the hash of the vector
 * and the `extra` product bytes after it, with the byte at `at` (after the
 * vector) read as `val` (the outer search's copy of a nested state), never
 * cut to --liveness-test-bits. */
uint64_t live_por_key(const search *S, uint8_t *v, size_t extra, size_t at, uint8_t val);
/* --por applies to the nested searches (at most 64 threads). */
static inline bool live_por_on(const search *S)
{
    return S->o->por && S->por && S->p->nthreads <= 64;
}

/* What both refuse (`what`: "--liveness=npc", "--ltl"): NULL, or why, in
 * msg (n bytes). */
const char *nested_refuses(const explore_options *o, const char *what, char *msg, size_t n);

#endif
