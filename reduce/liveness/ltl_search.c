/* ltl_search.c: mcheck --ltl, the search for an accepting cycle in the
 * product of the state graph with the Büchi automaton of the negated
 * formula (ltl.c): the nested depth-first search of Courcoubetis, Vardi,
 * Wolper and Yannakakis (CAV 1990) with Holzmann, Peled and Yannakakis's
 * stop at the outer stack (SPIN 1996), as liveness.c does for the 2-state
 * automaton of <>[] np_ (liveness.c stays as it is, with its counts). A
 * product state is (state, q, nested flag): the automaton moves first,
 * entering q' only if the current state satisfies q''s literals, then the
 * model takes a step, as SPIN's never claim does. A state where no thread
 * is enabled (a valid end; a deadlock is reported as an error first)
 * stutters: it repeats forever, so the automaton moves and the state stays
 * (SPIN's stutter extension). Every cycle is replayed through the
 * interpreter with the automaton run beside it (the props re-evaluated at
 * every state) before it is recorded; mcheck --replay checks a recorded
 * lasso the same way, with a run of the automaton found beside it
 * (ltl_check_lasso()). With --por each product state expands, on every
 * automaton edge, what live_por.c decides: a persistent set none of whose
 * steps may change a prop the formula reads, or every thread; the outer
 * search's cycle proviso (a successor on its stack, or an error) adds the
 * rest in a second round over the edges, and the nested search repeats the
 * outer one's choices. Not here: fairness, bitstate,
 * BFS, -j (its engine refuses them). */
#include <stdlib.h>
#include <string.h>

#include "nested_int.h"

/* A level of the product with the automaton: a state, its automaton state q
 * (2 bytes after the stored vector, S->vsize) and whether it belongs to a
 * nested search (the byte after those); the undo log restores all three. */
typedef struct lt_frame {
    frame fr;          /* the thread being expanded, its next choice, undo */
    uint64_t props;    /* the props' values in this level's state */
    uint32_t edge;     /* the automaton successor of q being taken */
    uint16_t q;
    uint8_t nested;    /* a state of a nested search */
    uint8_t terminal;  /* no thread is enabled: the state stutters */
    uint8_t how;       /* entered by 0, a step; 1, a stutter move (the
                          automaton moves, the state stays); 2, the start
                          of a nested search (no move) */
    uint8_t in_map;    /* an outer level that put its key into lv.onstack */
    uint8_t full;      /* --por: the proviso made this level expand fully */
    uint64_t todo;     /* --por: the threads to expand (each automaton edge) */
    uint64_t rest;     /* --por: the enabled threads the persistent set left out */
} lt_frame;

/* The engine's private context (S->ctx): the nested part, then the stack.
 * The saved-lasso check (ltl_check_lasso()) has the same context. */
typedef struct lt_stack {
    nested_ctx nd;     /* onstack: key of an outer stack state -> its level + 1 */
    lt_frame *frames;
    size_t cap;
} lt_stack;

#define LT(S) ((lt_stack *)(S)->ctx)

enum { FOUND = 1, NOT_FOUND = 0, STOPPED = -1 };

static uint64_t props_of(const vm_program *p, const uint8_t *s)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < p->nprops && i < 64; i++)
        if (vm_prop_value(p, i, s)) v |= (uint64_t)1 << i;
    return v;
}

static void set_q(const search *S, uint8_t *v, uint32_t q, uint8_t nested)
{
    v[S->vsize] = (uint8_t)(q & 0xff);
    v[S->vsize + 1] = (uint8_t)(q >> 8);
    v[S->vsize + 2] = nested;
}

/* The key of a product state's outer (flag 0) entry in the stack set. */
static uint64_t stack_key(const search *S, uint8_t *v)
{
    uint8_t fl = v[S->vsize + 2];
    v[S->vsize + 2] = 0;
    uint64_t h = store_hash64(v, S->vsize + 3);
    v[S->vsize + 2] = fl;
    unsigned bits = S->o->liveness_test_bits;
    if (bits && bits < 64) h &= ((uint64_t)1 << bits) - 1;
    return h;
}

/* --por: the threads level f (state S->cur) expands (live_por.c). */
static void por_start(search *S, lt_frame *f)
{
    uint64_t key = live_por_key(S, S->cur, 3, 2, 0);
    f->todo = live_por_todo(S, S->cur, enabled_mask(S->p, S->cur), f->nested, key, &f->rest);
}

/* --por, the outer search: the step just taken from level f leads onto the
 * stack (ns, its automaton state set) or into an error: the proviso
 * expands f fully, and the nested searches will too. */
static bool proviso(search *S, lt_frame *f, uint8_t *ns, const step_outcome *out)
{
    if (!f->rest || f->full) return true;
    if (out->kind == VERDICT_OK && !map_get(&ND(S)->onstack, stack_key(S, ns))) return true;
    f->full = 1;
    return live_por_full(S, live_por_key(S, S->cur, 3, 2, 0));
}

static bool lt_grow(search *S, size_t need)
{
    if (need <= LT(S)->cap) return true;
    void *f = LT(S)->frames;
    bool ok = frames_grow_slow(S, &f, &LT(S)->cap, need, sizeof(lt_frame), true);
    LT(S)->frames = f;
    return ok;
}

/* Push a level for product state ns (S->dfs.next), which becomes S->cur. */
static bool push(search *S, size_t *depth, uint8_t *ns, uint32_t q, uint8_t nested, uint8_t how)
{
    if (!lt_grow(S, *depth + 2) || !undo_grow(S)) return false;
    ++*depth;
    lt_frame *nf = &LT(S)->frames[*depth];
    memset(nf, 0, sizeof *nf);
    nf->fr.undo = undo_push(S, S->cur, ns);
    S->dfs.next = S->cur;
    S->cur = ns;
    nf->q = (uint16_t)q;
    nf->nested = nested;
    nf->how = how;
    nf->props = props_of(S->p, ns);
    nf->terminal = !any_enabled(S->p, ns);
    if (live_por_on(S)) por_start(S, nf);
    if (*depth > S->r->stats.max_depth) S->r->stats.max_depth = *depth;
    return true;
}

static void pop(search *S, size_t *depth)
{
    lt_frame *f = &LT(S)->frames[*depth];
    if (f->in_map) map_del(&ND(S)->onstack, stack_key(S, S->cur));
    undo_pop(S, f->fr.undo);
    --*depth;
}

static bool put_on_stack(search *S, size_t depth)
{
    return map_put_new(S, &ND(S)->onstack, stack_key(S, S->cur), depth + 1,
                       &LT(S)->frames[depth].in_map);
}

/* Advance the top level to its next move: the automaton successor *q2 and
 * the step *st (tid -1: the stutter move of a terminal state). */
static bool next_move(search *S, lt_frame *f, uint32_t *q2, explore_step *st)
{
    const ltl_automaton *A = S->o->ltl;
    const vm_program *p = S->p;
    uint32_t off = A->succ_off[f->q], n = A->succ_off[f->q + 1] - off;
    bool por = live_por_on(S);
    while (f->edge < n || (por && f->full && f->rest)) {
        if (f->edge >= n) { /* the proviso's second round: the rest, every edge */
            f->todo = f->rest;
            f->rest = 0;
            f->edge = 0;
            f->fr.tid = 0;
            f->fr.choice = 0;
            f->fr.nchoices = 0;
            continue;
        }
        uint32_t b = A->succ[off + f->edge];
        if (ltl_enters(A, b, f->props)) {
            if (f->terminal) {
                if (f->fr.choice == 0) {
                    f->fr.choice = 1;
                    f->fr.tid = -1;
                    *q2 = b;
                    *st = (explore_step){-1, 0};
                    return true;
                }
            } else {
                while (f->fr.tid < (int32_t)p->nthreads) {
                    if (por && !((f->todo >> f->fr.tid) & 1)) {
                        f->fr.tid++;
                        continue;
                    }
                    if (f->fr.nchoices == 0) f->fr.nchoices = vm_enabled(p, S->cur, f->fr.tid);
                    if (f->fr.choice < f->fr.nchoices) {
                        *q2 = b;
                        *st = (explore_step){f->fr.tid, f->fr.choice++};
                        return true;
                    }
                    f->fr.tid++;
                    f->fr.choice = 0;
                    f->fr.nchoices = 0;
                }
            }
        }
        f->edge++;
        f->fr.tid = 0;
        f->fr.choice = 0;
        f->fr.nchoices = 0;
    }
    return false;
}

/* The moves to level `depth` (steps, and stutter moves as tid -1; not the
 * start of a nested search) into path[] and the automaton state each
 * enters into qs[]; the number of moves returned; *upto_mark: of those,
 * the moves up to level `mark`. */
static uint32_t stack_moves(const search *S, size_t depth, size_t mark, explore_step *path,
                            uint32_t *qs, uint32_t *upto_mark)
{
    uint32_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        if (i == mark) *upto_mark = n;
        const lt_frame *nf = &LT(S)->frames[i + 1], *f = &LT(S)->frames[i];
        if (nf->how == 2) continue;
        path[n] = nf->how == 1 ? (explore_step){-1, 0} : (explore_step){f->fr.tid, f->fr.choice - 1};
        qs[n++] = nf->q;
    }
    if (depth == mark) *upto_mark = n;
    return n;
}

static bool has_edge(const ltl_automaton *A, uint32_t q, uint32_t b)
{
    for (uint32_t e = A->succ_off[q]; e < A->succ_off[q + 1]; e++)
        if (A->succ[e] == b) return true;
    return false;
}

/* The replay check: run the moves from the initial state through the
 * interpreter and the automaton from its initial state; true if every step
 * is enabled and ends without an error, every stutter move is from a state
 * where no thread is enabled, every automaton move is an edge whose target
 * the props of the state it reads allow, some state of the cycle is
 * accepting, and the product state after the moves equals the one after
 * the first cycle_start. */
static bool lasso_holds(search *S, const explore_step *path, const uint32_t *qs, uint32_t len,
                        uint32_t cycle_start)
{
    const vm_program *p = S->p;
    const ltl_automaton *A = S->o->ltl;
    uint8_t *v = ND(S)->check, *at = ND(S)->check + S->wsize;
    explore_stats dry = {0};
    if (!search_initial(S, v, &dry)) return false;
    uint32_t q = 0, q_at = 0;
    bool accepting = false;
    for (uint32_t i = 0; i < len; i++) {
        if (i == cycle_start) {
            memcpy(at, v, S->vsize);
            q_at = q;
        }
        if (qs[i] >= A->nstates || !has_edge(A, q, qs[i]) ||
            !ltl_enters(A, qs[i], props_of(p, v)))
            return false;
        q = qs[i];
        if (i >= cycle_start && A->accepting[q]) accepting = true;
        if (path[i].tid < 0) {
            if (any_enabled(p, v)) return false;
            continue;
        }
        if (!lasso_can_step(p, v, path[i]) || !lasso_step(S, v, path[i], &dry)) return false;
    }
    return cycle_start < len && accepting && q == q_at && memcmp(v, at, S->vsize) == 0;
}

/* The error of a lasso lasso_holds() accepted: its m steps (stutter moves
 * left out, implied by its end), the cycle from step mstart (mstart == m:
 * the last state repeats forever). The search stops. */
static void lt_record(search *S, const explore_step *path, uint32_t m, uint32_t mstart)
{
    step_outcome out = {.kind = VERDICT_LTL, .cause = CAUSE_LTL, .tid = -1, .pc = 0,
                        .body = UINT32_MAX, .elem = UINT32_MAX};
    if (mstart < m)
        snprintf(out.msg, sizeof out.msg,
                 "ltl property violated: an infinite execution on which the formula is false "
                 "(the cycle is steps %u-%u)", mstart + 1, m);
    else
        snprintf(out.msg, sizeof out.msg,
                 "ltl property violated: an execution that ends after %u steps and on which the "
                 "formula is false (its last state repeats forever)", m);
    uint32_t before = S->r->nerrors;
    record_error(S, &out, path, m);
    if (S->r->nerrors > before) {
        S->r->errors[before].lasso = true;
        S->r->errors[before].cycle_start = mstart;
    }
    if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_ERROR; /* one cycle is the answer */
}

/* A cycle met by the nested search: the moves of the stack to `top`, then
 * `last` into q2, the cycle starting at outer level `mark`. */
static int cycle_found(search *S, size_t top, size_t mark, explore_step last, uint32_t q2)
{
    explore_step *path = malloc((top + 1) * sizeof *path);
    uint32_t *qs = malloc((top + 1) * sizeof *qs);
    if (!path || !qs) {
        free(path);
        free(qs);
        S->lim.stop = STOP_NOMEM;
        return STOPPED;
    }
    uint32_t start = 0;
    uint32_t n = stack_moves(S, top, mark, path, qs, &start);
    path[n] = last;
    qs[n++] = q2;
    bool ok = lasso_holds(S, path, qs, n, start);
    free(qs);
    if (!ok) {
        free(path);
        if (S->lim.stop != STOP_COMPLETE) return STOPPED;
        S->r->stats.cycles_rejected++;
        return NOT_FOUND;
    }
    /* the trace keeps the steps; the stutter moves are implied by its end */
    uint32_t m = 0, mstart = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == start) mstart = m;
        if (path[i].tid >= 0) path[m++] = path[i];
    }
    lt_record(S, path, m, mstart);
    free(path);
    return FOUND;
}

/* A safety error reached by `last` from level `depth`. */
static bool lt_error(search *S, size_t depth, const explore_step *last, const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    explore_step *path = malloc((depth + 1) * sizeof *path);
    uint32_t *qs = malloc((depth + 1) * sizeof *qs);
    if (!path || !qs) {
        free(path);
        free(qs);
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    uint32_t start = 0, m = 0;
    uint32_t n = stack_moves(S, depth, SIZE_MAX, path, qs, &start);
    for (uint32_t i = 0; i < n; i++)
        if (path[i].tid >= 0) path[m++] = path[i];
    path[m++] = *last;
    bool go_on = record_error(S, out, path, m);
    free(path);
    free(qs);
    return go_on;
}

/* The nested search from the seed (S->cur, an accepting outer state at
 * level `seed`), over flagged copies, until it meets a state of the outer
 * stack. */
static int nested(search *S, size_t seed)
{
    explore_stats *x = &S->r->stats;
    size_t depth = seed;
    x->nested_searches++;
    uint8_t *ns = S->dfs.next;
    memcpy(ns, S->cur, S->wsize);
    uint32_t q0 = LT(S)->frames[seed].q;
    set_q(S, ns, q0, 1);
    store_result sr = store_insert(S->st, ns);
    if (sr == STORE_FULL) {
        S->lim.stop = STOP_NOMEM;
        return STOPPED;
    }
    if (sr == STORE_ADDED) x->nested_states++;
    if (!push(S, &depth, ns, q0, 1, 2)) return STOPPED;
    int res = NOT_FOUND;
    while (S->lim.stop == STOP_COMPLETE) {
        lt_frame *f = &LT(S)->frames[depth];
        uint32_t q2;
        explore_step st;
        if (!next_move(S, f, &q2, &st)) {
            pop(S, &depth);
            if (depth == seed) break;
            continue;
        }
        ns = S->dfs.next;
        if (st.tid < 0) {
            memcpy(ns, S->cur, S->wsize);
        } else {
            memcpy(ns, S->cur, S->ssize);
            step_outcome out;
            if (!run_step(S, ns, st.tid, st.choice, &out)) break;
            x->nested_transitions++;
            if (out.kind != VERDICT_OK) continue; /* an error state: no successors */
            mark_outcome(S, ns, &out);
        }
        set_q(S, ns, q2, 0);
        uint64_t level = map_get(&ND(S)->onstack, stack_key(S, ns));
        if (level) { /* on the outer stack: it reaches the seed */
            res = cycle_found(S, depth, (size_t)level - 1, st, q2);
            if (res != NOT_FOUND) break;
        }
        set_q(S, ns, q2, 1);
        sr = store_insert(S->st, ns);
        if (sr == STORE_FULL) {
            S->lim.stop = STOP_NOMEM;
            break;
        }
        if (sr == STORE_ADDED) {
            x->nested_states++;
            if (!push(S, &depth, ns, q2, 1, st.tid < 0 ? 1 : 0)) break;
        }
        if (!limits_ok(S)) break;
    }
    if (res == FOUND) return FOUND;
    if (S->lim.stop != STOP_COMPLETE) return STOPPED;
    return NOT_FOUND;
}

static void ltl_search(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    const vm_program *p = S->p;
    const ltl_automaton *A = S->o->ltl;
    explore_stats *x = &S->r->stats;
    uint64_t max_depth = S->o->max_depth;
    if (!lt_grow(S, 2) || !(ND(S)->check = malloc(2 * S->wsize))) {
        S->lim.stop = STOP_NOMEM;
        return;
    }
    size_t depth = 0;
    lt_frame *f0 = &LT(S)->frames[0];
    memset(f0, 0, sizeof *f0);
    f0->props = props_of(p, S->cur);
    f0->terminal = !any_enabled(p, S->cur);
    if (live_por_on(S)) {
        if (!live_por_start(S)) return;
        por_start(S, f0);
    }
    if (!put_on_stack(S, 0)) return;
    while (S->lim.stop == STOP_COMPLETE) {
        lt_frame *f = &LT(S)->frames[depth];
        if (max_depth && depth >= max_depth && f->edge < UINT32_MAX) {
            if (!f->terminal) S->lim.truncated = true;
            f->edge = UINT32_MAX; /* a leaf: do not expand */
        }
        uint32_t q2;
        explore_step st;
        if (f->edge == UINT32_MAX || !next_move(S, f, &q2, &st)) { /* backtrack */
            if (A->accepting[f->q] && nested(S, depth) != NOT_FOUND) break; /* post order */
            if (depth == 0) break;
            pop(S, &depth);
            continue;
        }
        uint8_t *ns = S->dfs.next;
        if (st.tid < 0) { /* the stutter move of a terminal state */
            memcpy(ns, S->cur, S->wsize);
            set_q(S, ns, q2, 0);
            store_result sr = store_insert(S->st, ns);
            if (sr == STORE_FULL) {
                S->lim.stop = STOP_NOMEM;
                break;
            }
            if (sr == STORE_PRESENT) x->states_matched++;
            if (sr == STORE_ADDED) {
                x->states_stored++;
                if (!push(S, &depth, ns, q2, 0, 1) || !put_on_stack(S, depth)) break;
            }
        } else {
            memcpy(ns, S->cur, S->ssize);
            step_outcome out;
            if (!run_step(S, ns, st.tid, st.choice, &out)) break;
            x->transitions++;
            set_q(S, ns, q2, 0);
            uint32_t first;
            uint64_t n;
            int rc = insert_successor(S, ns, &out, &first, &n);
            if (rc == INS_STOP) break;
            if (!proviso(S, f, ns, &out)) break;
            if (rc == INS_ERROR && !lt_error(S, depth, &st, &out)) break;
            if (rc == INS_NEW && (!push(S, &depth, ns, q2, 0, 0) || !put_on_stack(S, depth)))
                break;
        }
        if (!limits_ok(S)) break;
    }
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
 * recorded cycle unrolled as often as the run needs) that lasso_holds()
 * then checks as the search checks its own; if it holds, the recorded
 * lasso is recorded as the error. */
static void ltl_check_lasso(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
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
            if (lasso_holds(S, path, qs, n, start)) {
                lt_record(S, l->path, l->len, cs);
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

static void ltl_ctx_free(search *S)
{
    nested_free(S);
    free(LT(S)->frames);
}

static uint64_t ltl_reserved(const search *S)
{
    return LT(S)->cap * sizeof(lt_frame) + nested_reserved(S);
}

static uint64_t ltl_used(const search *S, uint64_t levels)
{
    return frames_used(S, LT(S)->cap, sizeof(lt_frame), levels);
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
    return NULL;
}

/* The automaton state (2 bytes) and the nested flag follow the stored vector. */
const engine engine_ltl = {
    .name = "ltl",
    .selects = ltl_selects,
    .refuses = ltl_refuses,
    .product_bytes = 3,
    .depth_first = true,
    .ctx_size = sizeof(lt_stack),
    .run = ltl_search,
    .free_ctx = ltl_ctx_free,
    .reserved = ltl_reserved,
    .used = ltl_used,
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
    .ctx_size = sizeof(lt_stack),
    .run = ltl_check_lasso,
    .free_ctx = ltl_ctx_free,
    .reserved = ltl_reserved,
    .used = ltl_used,
    .rows = ltl_rows,
};
