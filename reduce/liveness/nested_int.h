/* nested_int.h: the one nested depth-first search for accepting cycles
 * (nested.c) and the Büchi automata it runs over: --liveness=npc's built-in
 * automaton of SPIN's never claim for <>[] np_ (liveness.c) and --ltl's
 * automaton of the negated formula (ltl_search.c). Each engine fills a
 * `buchi` and calls nested_run(); --por's tables are live_por.c's.
 * Private to reduce/. */
#ifndef MCHECK_NESTED_INT_H
#define MCHECK_NESTED_INT_H

#include "search_int.h"

/* What a move along an automaton edge does in the model. */
enum {
    MOVE_STEP = 0,        /* any step of a thread (a state where no thread is
                             enabled stutters, if the automaton says so) */
    MOVE_NONPROGRESS = 1, /* a step that executes no progress instruction */
    MOVE_EPS = 2,         /* no step: the model state stays (listed first) */
};

/* A Büchi automaton the product runs; the model state is the vector, the
 * automaton state and a nested flag are `bytes` bytes after it (set()). */
typedef struct buchi {
    uint32_t nstates;             /* state 0 is initial */
    const uint32_t *succ_off;     /* q's edges: succ[succ_off[q] .. succ_off[q + 1]) */
    const uint32_t *succ;         /* their targets */
    const uint8_t *kind;          /* per edge, MOVE_*; NULL: every edge MOVE_STEP */
    const uint8_t *accepting;     /* per state */
    const ltl_automaton *guards;  /* entering b reads the props (ltl_enters());
                                     NULL: no guard */
    const uint8_t *apart;         /* per state, or NULL: its states and steps are
                                     counted apart (np_states, np_transitions) and
                                     its errors are left to the other states, from
                                     which the same steps reach them */
    bool stutters;                /* a state where no thread is enabled repeats
                                     forever (SPIN's stutter extension) */
    bool stack_all;               /* every outer state goes into the stack set;
                                     else the accepting ones (no other meets a
                                     nested search) */
    bool stack_proviso;           /* --por: a step onto the outer stack expands its
                                     state fully (else only a step into an error) */
    unsigned bytes;               /* product bytes after the vector */
    void (*set)(uint8_t *tail, uint32_t q, bool nested);
    verdict verdict;              /* of a cycle found */
    error_cause cause;
    /* A cycle's message: m steps, the cycle from step mstart (mstart == m:
     * the last state repeats forever). */
    void (*describe)(char *msg, size_t n, uint32_t m, uint32_t mstart);
} buchi;

/* The rules of a move along edge e of A (the search, nested.c; the replay
 * check; the lasso's breadth-first search, lasso_bfs.c), in one place: */
static inline uint8_t buchi_kind(const buchi *A, uint32_t e)
{
    return A->kind ? A->kind[e] : MOVE_STEP;
}
/* May the automaton enter b from a state whose props are `props`? */
static inline bool buchi_enters(const buchi *A, uint32_t b, uint64_t props)
{
    return !A->guards || ltl_enters(A->guards, b, props);
}
/* Is the move along an edge of kind k one without a step (an EPS edge, or
 * the stutter of a state where no thread is enabled: `terminal`)? */
static inline bool buchi_no_step(const buchi *A, uint8_t k, bool terminal)
{
    return k == MOVE_EPS || (A->stutters && terminal);
}
/* May thread t's step in state v be taken along an edge of kind k? */
static inline bool buchi_takes(const vm_program *p, uint8_t k, const uint8_t *v, int t)
{
    return k != MOVE_NONPROGRESS || !is_progress(p, v, t);
}

/* A level of the product search: a state, its automaton state q and
 * nested flag (in the bytes after the stored vector, so the undo log
 * restores them), and the move being taken from it. */
typedef struct nd_frame {
    frame fr;          /* the thread being expanded, its next choice, undo */
    uint64_t props;    /* the props' values in this level's state (guards) */
    uint64_t todo;     /* --por: the threads to expand (each edge) */
    uint64_t rest;     /* --por: the enabled threads the persistent set left out */
    uint16_t edge;     /* the edge of q being taken (an index among q's) */
    uint16_t q;
    uint16_t to;       /* stepping: the edge's target */
    uint8_t kind;      /* stepping: the edge's MOVE_* */
    uint8_t stepping;  /* the edge is taking the threads' steps */
    uint8_t nested;    /* a state of a nested search */
    uint8_t terminal;  /* no thread is enabled (an automaton that stutters) */
    uint8_t how;       /* entered by 0, a step; 1, a move without a step (an
                          EPS edge, a stutter); 2, the start of a nested search */
    uint8_t in_map;    /* an outer level that put its key into `onstack` */
    uint8_t full;      /* --por: the proviso made this level expand fully */
    uint8_t cut;       /* --max-depth: no more steps from this level */
    uint8_t round2;    /* --por: the proviso's second round (EPS edges done) */
} nd_frame;

/* The engine's private context (S->ctx) for --liveness=npc and --ltl. */
typedef struct nested {
    buchi A;
    bool por;            /* live_por_on() */
    nd_frame *frames;    /* the stack, outer levels then a nested search's */
    size_t cap;
    hash_map onstack;    /* key of an outer stack state -> its level + 1 */
    uint8_t *check;      /* work vectors of the replay check (2 x wsize) */
    /* --por (live_por.c) */
    hash_map full;       /* product key -> 1: the outer search expanded it fully */
    uint64_t *prop_objs; /* --ltl: the objects the formula's props read */
    uint64_t prop_at;    /* --ltl: the threads whose location a prop reads */
} nested_ctx;

#define ND(S) ((nested_ctx *)(S)->ctx)

/* The props' values in model state s (bit i: prop i, the first 64). */
uint64_t props_of(const vm_program *p, const uint8_t *s);
/* ND(S)->A: npc's built-in automaton (liveness.c), the formula's
 * (ltl_search.c); also for fair_cycle.c's product. */
void npc_buchi(search *S);
void ltl_buchi(search *S);
/* The search over the product with ND(S)->A (an engine's run()). */
void nested_run(search *S);
/* The replay check of a lasso: `len` moves (tid -1: a move without a step)
 * from the initial state, qs[i] the automaton state move i enters, the
 * cycle from move cycle_start. True if every move is one the automaton and
 * the model allow, some state of the cycle is accepting, and the product
 * state after the moves equals the one after the first cycle_start. Needs
 * ND(S)->check. */
bool nested_lasso_holds(search *S, const explore_step *path, const uint32_t *qs, uint32_t len,
                        uint32_t cycle_start);
/* Record the cycle lasso_holds() accepted (m steps, the cycle from
 * mstart) as the error; the search stops. */
void nested_record(search *S, const explore_step *path, uint32_t m, uint32_t mstart);
/* lasso_bfs.c: the shortest stem to the seed (its vector, the tail set for
 * the outer search, and automaton state seed_q) and the shortest cycle
 * back to it, by breadth-first search over the product, each within
 * `budget` states; replayed. 1 with the lasso in *path, *qs (malloc'd; n
 * moves, the cycle from move *start), 0 if not found within the budget or
 * the replay failed, -1 if memory ran out (S->lim.stop set). *states: the
 * states both searches kept. */
int lasso_shorten(search *S, const uint8_t *seed, uint32_t seed_q, uint32_t budget,
                  explore_step **path, uint32_t **qs, uint32_t *n, uint32_t *start,
                  uint64_t *states);
/* The engine's free_ctx, reserved and used. */
void nested_free(search *S);
uint64_t nested_reserved(const search *S);
uint64_t nested_used(const search *S, uint64_t levels);

/* What both refuse (`what`: "--liveness=npc", "--ltl"): NULL, or why, in
 * msg (n bytes). */
const char *nested_refuses(const explore_options *o, const char *what, char *msg, size_t n);

/* ---- live_por.c: --por in the nested search -------------------------------- */

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
/* --por applies to the nested search (at most 64 threads). */
static inline bool live_por_on(const search *S)
{
    return S->o->por && S->por && S->p->nthreads <= 64;
}

#endif
