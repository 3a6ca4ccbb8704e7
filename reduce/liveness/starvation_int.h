/* starvation_int.h: private to the starvation search (reduce/liveness/
 * starvation.c, the SCCs, the fairness conditions and the lasso;
 * starvation_graph.c, the reachable graph it keeps): the graph's layout and
 * what the graph's file gives the search. */
#ifndef MCHECK_STARVATION_INT_H
#define MCHECK_STARVATION_INT_H

#include "search_int.h"


/* The engine's private context (S->ctx); the graph is the search's local. */
typedef struct sv_ctx {
    uint8_t *check;    /* work vectors of the replay check (2 x wsize) */
} sv_ctx;

#define SV(S) ((sv_ctx *)(S)->ctx)

#define DEAD UINT64_MAX /* map value: an error state, not a node */

typedef struct sv_edge {
    uint32_t dst;
    uint16_t tid;
    uint8_t prog; /* the step executes a progress-labelled instruction */
    uint32_t choice;
} sv_edge;

typedef struct sv_graph sv_graph;
struct sv_graph {
    uint8_t *vec;      /* state i at i * vsize (freed after the build) */
    uint64_t *bits;    /* state i: nw words enabled, then nw words labelled */
    uint64_t *first;   /* edges of state i: first[i] .. first[i + 1] */
    uint64_t *parent;  /* BFS tree: the parent's index, and the step */
    explore_step *via;
    uint32_t n, cap;
    sv_edge *e;
    uint64_t ne, ecap;
    uint32_t nw;       /* words of a thread bit set */
    hash_map idx;      /* hash of a vector -> index + 1 (or DEAD) */
    bool *labelled;    /* body b has a progress label */
    uint8_t *mid;      /* a work vector: the state after a step's first instruction */
    step_env one;      /* S->env, one instruction a step (REDUCE_NONE) */
    size_t counted;    /* of S->vec_bytes: the graph's arrays and index */
    /* a product with a Büchi automaton (fair_cycle.c; NULL for starvation):
     * per node, is its automaton state accepting; and what a fair SCC's
     * cycle through accepting node w0 (the edges cyc[0 .. len)) becomes:
     * FOUND recorded, NOT_FOUND rejected, STOPPED */
    const uint8_t *acc;
    int (*found)(search *S, struct sv_graph *g, uint32_t w0, const uint64_t *cyc, uint32_t len);
};

#define SV_NOSTEP UINT16_MAX /* sv_edge.tid of a product move without a step */
#define SV_ANY UINT32_MAX    /* no starved thread: the product's search */

enum { SV_FOUND = 1, SV_NOT_FOUND = 0, SV_STOPPED = -1 };

/* starvation.c: the fair SCCs of a product graph (g->acc, g->found): Tarjan
 * and, per S->o->fair, the weak or strong condition over every thread; a
 * fair SCC with an accepting node gives g->found() its cycle. SV_*. */
int sv_fair_cycles(search *S, sv_graph *g);
static inline bool bit(const uint64_t *w, uint32_t t)
{
    return (w[t / 64] >> (t % 64)) & 1;
}

/* Thread t runs, in s, a body that has a progress label and stands at a
 * control point where the reduced search schedules it (vm_at_visible()). */
bool sv_is_labelled(const vm_program *p, const sv_graph *g, const uint8_t *s, int t);
/* May `extra` more bytes be taken under --memlimit? If not, the search
 * stops there (STOP_MEMLIMIT) with the bytes refused. */
bool sv_room_for(search *S, size_t extra);
/* The BFS tree's path to state i into path[] (room for its depth); its
 * length. */
uint32_t sv_stem(const sv_graph *g, uint32_t i, explore_step *path);
uint32_t sv_depth_of(const sv_graph *g, uint32_t i);
/* The reachable graph, breadth-first from S->cur; the safety errors on the
 * way are recorded as the other searches record them. False if the search
 * stopped. */
bool sv_build(search *S, sv_graph *g);
/* Weak fairness under composition: mark in fair[] the threads disabled in
 * the hidden state after the first instruction of step (tid, choice) from
 * s. False if the search must stop. */
bool sv_mid_disabled(search *S, sv_graph *g, const uint8_t *s, int tid, uint64_t choice,
                     uint8_t *fair);
/* What the lasso check needs besides the graph (the labelled bodies, the
 * one-instruction environment; the work vectors, 2 x wsize, into *check,
 * which the engine's context owns). False: no memory. */
bool sv_setup(search *S, sv_graph *g, uint8_t **check);
/* Free the graph's arrays (not the context's). */
void sv_graph_free(sv_graph *g);

#endif
