/* ltl_search.c: mcheck --ltl, the search for an accepting cycle in the
 * product of the state graph with the Büchi automaton of the negated
 * formula (ltl.c), by the nested depth-first search of nested.c: the
 * automaton moves first, entering q only if the current state satisfies
 * q's literals, then the model takes a step, as SPIN's never claim does;
 * a state where no thread is enabled (a valid end; a deadlock is reported
 * as an error first) stutters: it repeats forever, so the automaton moves
 * and the state stays (SPIN's stutter extension). Every outer state goes
 * on the stack set, since a nested search may meet any. With --por each
 * product state expands, on every edge, a persistent set none of whose
 * steps may change a prop the formula reads, or every thread (live_por.c),
 * and the cycle proviso applies on the outer stack. mcheck --replay checks
 * a recorded lasso the same way, with a run of the automaton found beside
 * it (ltl_check_lasso()). Not here: fairness (--fair: fair_cycle.c, over
 * this automaton, ltl_buchi()), bitstate, BFS, -j (its engine refuses
 * them). */
#include <stdio.h>
#include <stdlib.h>

#include "nested_int.h"

/* The automaton state (2 bytes) and the nested flag after the vector. */
static void ltl_set(uint8_t *tail, uint32_t q, bool nested)
{
    tail[0] = (uint8_t)(q & 0xff);
    tail[1] = (uint8_t)(q >> 8);
    tail[2] = nested;
}

static void ltl_describe(char *msg, size_t n, uint32_t m, uint32_t mstart)
{
    if (mstart < m)
        snprintf(msg, n,
                 "ltl property violated: an infinite execution on which the formula is false "
                 "(the cycle is steps %u-%u)", mstart + 1, m);
    else
        snprintf(msg, n,
                 "ltl property violated: an execution that ends after %u steps and on which the "
                 "formula is false (its last state repeats forever)", m);
}

/* The formula's automaton as nested.c runs it (and fair_cycle.c). */
void ltl_buchi(search *S)
{
    const ltl_automaton *L = S->o->ltl;
    ND(S)->A = (buchi){
        .nstates = L->nstates,
        .succ_off = L->succ_off,
        .succ = L->succ,
        .accepting = L->accepting,
        .guards = L,
        .stutters = true,
        .stack_all = true,
        .stack_proviso = true,
        .bytes = 3,
        .set = ltl_set,
        .verdict = VERDICT_LTL,
        .cause = CAUSE_LTL,
        .describe = ltl_describe,
    };
}

static void ltl_search(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    ltl_buchi(S);
    nested_run(S);
}

/* The node of the walk after `node` by automaton edge e (its target b):
 * the next move, the one after the last being the cycle's first. */
static uint64_t walk_next(uint64_t node, uint32_t b, uint32_t nq, uint32_t nmoves, uint32_t cs)
{
    uint64_t i = node / nq + 1;
    return (i < nmoves ? i : cs) * nq + b;
}

/* Breadth-first from `from` over the walk's nodes (move i before which the
 * automaton is in q: i * nq + q) until `to` is reached by at least one
 * move; pred[] gets each node's predecessor + 1. True if reached. */
static bool walk_bfs(const ltl_automaton *A, const uint64_t *props, uint32_t nmoves, uint32_t cs,
                     uint64_t from, uint64_t to, uint64_t *pred, uint64_t *queue)
{
    uint32_t nq = A->nstates;
    memset(pred, 0, (size_t)nmoves * nq * sizeof *pred);
    uint64_t head = 0, tail = 0;
    queue[tail++] = from;
    while (head < tail) {
        uint64_t v = queue[head++];
        uint32_t q = (uint32_t)(v % nq);
        for (uint32_t e = A->succ_off[q]; e < A->succ_off[q + 1]; e++) {
            uint32_t b = A->succ[e];
            if (!ltl_enters(A, b, props[v / nq])) continue;
            uint64_t w = walk_next(v, b, nq, nmoves, cs);
            if (pred[w]) continue;
            pred[w] = v + 1;
            if (w == to) return true;
            queue[tail++] = w;
        }
    }
    return false;
}

/* The moves of the walk from `from` to `to` (pred[] from walk_bfs()),
 * appended at path[*n], qs[*n]. */
static void walk_moves(const explore_lasso *l, uint32_t nq, const uint64_t *pred, uint64_t from,
                       uint64_t to, explore_step *path, uint32_t *qs, uint32_t *n)
{
    uint32_t k = 0;
    uint64_t w = to;
    do {
        k++;
        w = pred[w] - 1;
    } while (w != from);
    uint32_t j = *n + k;
    *n = j;
    w = to;
    do {
        uint64_t v = pred[w] - 1;
        uint32_t i = (uint32_t)(v / nq);
        path[--j] = i < l->len ? l->path[i] : (explore_step){-1, 0};
        qs[j] = (uint32_t)(w % nq);
        w = v;
    } while (w != from);
}

/* mcheck --replay: the recorded lasso (explore_options.check_lasso) with
 * an accepting run of the automaton beside it. Its moves are the steps,
 * then, if the cycle is the last state repeating, one stutter move; a run
 * is a walk over (move, automaton state) nodes, the move after the last
 * one being the cycle's first, each automaton move allowed by the props of
 * the state before the step. A walk from (0, 0) to a node (j, q) of the
 * cycle with q accepting, and one from it back to it, make a lasso (the
 * recorded cycle unrolled as often as the run needs) that nested_lasso_holds()
 * then checks as the search checks its own; if it holds, the recorded
 * lasso is recorded as the error. */
static void ltl_check_lasso(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    ltl_buchi(S);
    const explore_lasso *l = S->o->check_lasso;
    const ltl_automaton *A = S->o->ltl;
    const vm_program *p = S->p;
    uint32_t cs = l->cycle_start, nq = A->nstates;
    if (cs > l->len || l->len == UINT32_MAX) return;
    uint32_t nmoves = l->len + (cs == l->len);
    uint64_t nn = (uint64_t)nmoves * nq;
    uint64_t *props = malloc((size_t)nmoves * sizeof *props);
    uint64_t *pred = malloc((size_t)nn * sizeof *pred), *pred2 = malloc((size_t)nn * sizeof *pred2);
    uint64_t *queue = malloc((size_t)nn * sizeof *queue);
    uint8_t *v = calloc(1, S->wsize);
    explore_step *path = NULL;
    uint32_t *qs = NULL;
    ND(S)->check = malloc(2 * S->wsize);
    if (!props || !pred || !pred2 || !queue || !v || !ND(S)->check) goto nomem;
    /* the props of the state before each move; the steps must run */
    explore_stats dry = {0};
    if (!search_initial(S, v, &dry)) goto stopped;
    for (uint32_t i = 0; i < nmoves; i++) {
        props[i] = props_of(p, v);
        if (i == l->len) break; /* the stutter move: the state must be terminal */
        const explore_step *st = &l->path[i];
        if (!lasso_can_step(p, v, *st)) goto rejected;
        if (!lasso_step(S, v, *st, &dry)) {
            if (S->lim.stop != STOP_COMPLETE) goto stopped;
            goto rejected;
        }
    }
    if (cs == l->len && any_enabled(p, v)) goto rejected;
    if (!walk_bfs(A, props, nmoves, cs, 0, UINT64_MAX, pred, queue)) { /* all reached ones */
        for (uint64_t x = (uint64_t)cs * nq; x < nn; x++) {
            if (!(pred[x] || x == 0) || !A->accepting[x % nq]) continue;
            if (!walk_bfs(A, props, nmoves, cs, x, x, pred2, queue)) continue;
            /* found: the stem to x (the first search's tree), the cycle back */
            path = malloc((size_t)2 * nn * sizeof *path);
            qs = malloc((size_t)2 * nn * sizeof *qs);
            if (!path || !qs) goto nomem;
            uint32_t n = 0;
            if (x != 0) walk_moves(l, nq, pred, 0, x, path, qs, &n);
            uint32_t start = n;
            walk_moves(l, nq, pred2, x, x, path, qs, &n);
            if (nested_lasso_holds(S, path, qs, n, start)) {
                nested_record(S, l->path, l->len, cs);
                goto out;
            }
            if (S->lim.stop != STOP_COMPLETE) goto out;
            goto rejected;
        }
    }
rejected:
    S->r->stats.cycles_rejected++;
    goto out;
stopped:
    if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_NOMEM;
    goto out;
nomem:
    S->lim.stop = STOP_NOMEM;
out:
    free(props);
    free(pred);
    free(pred2);
    free(queue);
    free(v);
    free(path);
    free(qs);
}

/* The options before the formula is translated (the CLI's check) name it
 * only by its text. */
static bool ltl_selects(const explore_options *o) { return o->ltl || o->ltl_text; }

static const char *ltl_refuses(const explore_options *o, char *msg, size_t n)
{
    if (o->liveness) return "--ltl and --liveness are separate searches: give one of them";
    const char *why = nested_refuses(o, "--ltl", msg, n);
    if (why) return why;
    if (o->ltl && o->ltl->nstates > 65535)
        return "--ltl: the formula's automaton has more than 65535 states";
    for (uint32_t q = 0; o->ltl && q < o->ltl->nstates; q++) /* nd_frame.edge: 16 bits */
        if (o->ltl->succ_off[q + 1] - o->ltl->succ_off[q] > 65535)
            return "--ltl: a state of the formula's automaton has more than 65535 successors";
    return NULL;
}

/* The automaton state (2 bytes) and the nested flag follow the stored vector. */
const engine engine_ltl = {
    .name = "ltl",
    .selects = ltl_selects,
    .refuses = ltl_refuses,
    .product_bytes = 3,
    .depth_first = true,
    .ctx_size = sizeof(nested_ctx),
    .run = ltl_search,
    .free_ctx = nested_free,
    .reserved = nested_reserved,
    .used = nested_used,
    .rows = ltl_rows,
};

static bool ltl_lasso_selects(const explore_options *o) { return o->check_lasso && o->ltl; }

/* mcheck --replay: a saved lasso checked, no search. */
const engine engine_ltl_lasso = {
    .name = "ltl-lasso",
    .selects = ltl_lasso_selects,
    .refuses = ltl_refuses,
    .product_bytes = 3,
    .depth_first = true,
    .ctx_size = sizeof(nested_ctx),
    .run = ltl_check_lasso,
    .free_ctx = nested_free,
    .reserved = nested_reserved,
    .used = nested_used,
    .rows = ltl_rows,
};
