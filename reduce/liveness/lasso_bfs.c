/* lasso_bfs.c: a shorter lasso for the cycle the nested search found
 * (nested.c): the shortest stem from the initial state to the cycle's
 * seed (the accepting product state the nested search started from) and
 * the shortest cycle from the seed back to itself, each by a
 * breadth-first search over the product (model state, automaton state)
 * with nested.c's moves (the automaton's edges, their guards, EPS edges,
 * stutters, non-progress steps). A cycle through an accepting state is an
 * accepting cycle, so the two make a counterexample; the nested search's
 * own is a path of its depth-first stack, often hundreds of steps. As
 * --shorten does for safety errors (policy/shorten.c): every enabled step
 * is taken (not --por's persistent sets), a budget bounds the states kept,
 * the lasso found is replayed (nested_lasso_holds()) before it replaces
 * the other, and the search's statistics are not touched (the steps run
 * with a count of their own). */
#include <stdlib.h>
#include <string.h>

#include "nested_int.h"

typedef struct bfs_node {
    uint32_t parent;   /* index + 1 of the node it was reached from; 0: the root */
    uint32_t q;
    explore_step move; /* tid -1: a move without a step */
} bfs_node;

typedef struct lbfs {
    search *S;
    bfs_node *nodes;
    uint8_t *vecs;     /* node i's vector (its tail set for the outer search) */
    uint32_t n, cap, budget;
    hash_map seen;     /* hash of a node's vector -> index + 1 */
    explore_stats dry; /* the steps' counts: not the search's */
    uint8_t *next;     /* the successor being built */
} lbfs;

static uint8_t *vec_of(lbfs *b, uint32_t i) { return b->vecs + (size_t)i * b->S->wsize; }

static uint64_t key_of(const lbfs *b, const uint8_t *v)
{
    return store_hash64(v, b->S->vsize + ND(b->S)->A.bytes);
}

/* Add node v (q, reached from `parent` by `move`); false if the budget or
 * memory runs out. */
static bool add(lbfs *b, const uint8_t *v, uint32_t q, uint32_t parent, explore_step move)
{
    if (b->n >= b->budget) return false;
    if (b->n == b->cap) {
        uint32_t nc = b->cap ? b->cap * 2 : 1024;
        bfs_node *nn = realloc(b->nodes, (size_t)nc * sizeof *nn);
        if (!nn) return false;
        b->nodes = nn;
        uint8_t *nv = realloc(b->vecs, (size_t)nc * b->S->wsize);
        if (!nv) return false;
        b->vecs = nv;
        b->cap = nc;
    }
    memcpy(vec_of(b, b->n), v, b->S->wsize);
    b->nodes[b->n] = (bfs_node){parent, q, move};
    b->n++;
    return map_put(b->S, &b->seen, key_of(b, v), b->n);
}

/* The moves of node i's path from the root, appended at path[*m], qs[*m]. */
static void path_to(const lbfs *b, uint32_t i, explore_step *path, uint32_t *qs, uint32_t *m)
{
    uint32_t k = 0;
    for (uint32_t j = i; b->nodes[j].parent; j = b->nodes[j].parent - 1) k++;
    *m += k;
    uint32_t at = *m;
    for (uint32_t j = i; b->nodes[j].parent; j = b->nodes[j].parent - 1) {
        path[--at] = b->nodes[j].move;
        qs[at] = b->nodes[j].q;
    }
}

/* Breadth-first from (v0, q0) to the product state whose key is `goal`,
 * by at least one move; the moves appended at path[*m], qs[*m] (room for
 * the budget's). 1 found, 0 not within the budget, -1 the search must stop. */
static int bfs_to(lbfs *b, const uint8_t *v0, uint32_t q0, uint64_t goal, explore_step *path,
                  uint32_t *qs, uint32_t *m)
{
    search *S = b->S;
    const buchi *A = &ND(S)->A;
    const vm_program *p = S->p;
    b->n = 0;
    map_free(&b->seen);
    memset(&b->seen, 0, sizeof b->seen);
    if (!add(b, v0, q0, 0, (explore_step){-1, 0})) return 0;
    for (uint32_t i = 0; i < b->n; i++) {
        uint32_t q = b->nodes[i].q;
        uint64_t props = A->guards ? props_of(p, vec_of(b, i)) : 0;
        bool terminal = A->stutters && !any_enabled(p, vec_of(b, i));
        for (uint32_t e = A->succ_off[q]; e < A->succ_off[q + 1]; e++) {
            uint32_t q2 = A->succ[e];
            uint8_t kind = buchi_kind(A, e);
            if (!buchi_enters(A, q2, props)) continue;
            bool nostep = buchi_no_step(A, kind, terminal);
            for (int32_t t = nostep ? -1 : 0; t < (nostep ? 0 : (int32_t)p->nthreads); t++) {
                uint64_t nc = t < 0 ? 1 : vm_enabled(p, vec_of(b, i), t);
                if (t >= 0 && nc && !buchi_takes(p, kind, vec_of(b, i), t))
                    continue;
                for (uint64_t c = 0; c < nc; c++) {
                    explore_step st = {t, c};
                    memcpy(b->next, vec_of(b, i), S->wsize);
                    if (t >= 0 && !lasso_step(S, b->next, st, &b->dry)) {
                        if (S->lim.stop != STOP_COMPLETE) return -1;
                        continue; /* an error state: no successors */
                    }
                    A->set(b->next + S->vsize, q2, false);
                    uint64_t h = key_of(b, b->next);
                    if (h == goal) {
                        path_to(b, i, path, qs, m);
                        path[*m] = st;
                        qs[(*m)++] = q2;
                        return 1;
                    }
                    if (map_get(&b->seen, h)) continue;
                    if (!add(b, b->next, q2, i + 1, st)) return S->lim.stop != STOP_COMPLETE ? -1 : 0;
                }
            }
        }
    }
    return 0;
}

int lasso_shorten(search *S, const uint8_t *seed, uint32_t seed_q, uint32_t budget,
                  explore_step **path, uint32_t **qs, uint32_t *n, uint32_t *start,
                  uint64_t *states)
{
    lbfs b = {.S = S, .budget = budget};
    explore_step *np = malloc((size_t)2 * (budget + 1) * sizeof *np);
    uint32_t *nq = malloc((size_t)2 * (budget + 1) * sizeof *nq);
    uint8_t *v0 = malloc(S->wsize);
    b.next = malloc(S->wsize);
    int res = 0;
    *states = 0;
    if (!np || !nq || !v0 || !b.next) goto out;
    uint64_t goal = key_of(&b, seed);
    uint32_t m = 0;
    if (!search_initial(S, v0, &b.dry)) goto out;
    ND(S)->A.set(v0 + S->vsize, 0, false);
    /* the stem: none if the seed is the initial product state */
    if (key_of(&b, v0) != goal) {
        res = bfs_to(&b, v0, 0, goal, np, nq, &m);
        *states += b.n;
        if (res != 1) goto out;
    }
    uint32_t stem = m;
    res = bfs_to(&b, seed, seed_q, goal, np, nq, &m);
    *states += b.n;
    if (res != 1) goto out;
    if (!nested_lasso_holds(S, np, nq, m, stem)) {
        res = S->lim.stop != STOP_COMPLETE ? -1 : 0;
        goto out;
    }
    *path = np;
    *qs = nq;
    *n = m;
    *start = stem;
    np = NULL;
    nq = NULL;
out:
    map_free(&b.seen);
    free(b.nodes);
    free(b.vecs);
    free(b.next);
    free(v0);
    free(np);
    free(nq);
    return res;
}
