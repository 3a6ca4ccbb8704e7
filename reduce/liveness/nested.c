/* nested.c: the search for an accepting cycle in the product of the state
 * graph with a Büchi automaton (nested_int.h: --liveness=npc's built-in
 * automaton, liveness.c; --ltl's, ltl_search.c). It is the nested
 * depth-first search of Courcoubetis, Vardi, Wolper and Yannakakis
 * ("Memory-efficient algorithms for the verification of temporal
 * properties", CAV 1990) with Holzmann, Peled and Yannakakis's stop at the
 * outer stack ("On nested depth first search", SPIN 1996): after the outer
 * search has expanded an accepting state (post order), a nested search from
 * it looks for a path back to a state of the outer stack.
 *
 * A product state is (model state, automaton state q, nested flag). A move
 * takes an edge of q to b whose guard the current state satisfies, as
 * SPIN's never claim does: the automaton moves first, reading the state,
 * then the model takes the step the edge allows (any step; a non-progress
 * step; none, an EPS edge). An automaton that stutters lets a state where
 * no thread is enabled repeat forever (SPIN's stutter extension: the model
 * stays, the automaton moves). The outer search's steps in the states the
 * automaton does not count apart are the plain DFS's, with its counts and
 * errors. Every cycle is replayed through the interpreter with the
 * automaton beside it before it is recorded (a fingerprint collision can
 * invent one).
 *
 * With --por each product state expands, on every edge, what live_por.c
 * decides (a persistent set with no visible step, or every thread); the
 * outer search's proviso (a step into an error; with stack_proviso, a step
 * onto its stack) adds the rest in a second round over the edges, and a
 * nested search repeats the outer one's choices. Not here: fairness
 * (fair_cycle.c: an SCC search over the product, which a Büchi condition
 * checked state by state cannot replace), bitstate, BFS, -j
 * (nested_refuses()). */
#include <stdio.h>
#include <stdlib.h>

#include "nested_int.h"

enum { FOUND = 1, NOT_FOUND = 0, STOPPED = -1 };

uint64_t props_of(const vm_program *p, const uint8_t *s)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < p->nprops && i < 64; i++)
        if (vm_prop_value(p, i, s)) v |= (uint64_t)1 << i;
    return v;
}

/* The key of an outer product state v (its bytes set for the outer
 * search) in the stack set, cut to --liveness-test-bits for the tests. */
static uint64_t stack_key(const search *S, const uint8_t *v)
{
    uint64_t h = store_hash64(v, S->vsize + ND(S)->A.bytes);
    unsigned bits = S->o->liveness_test_bits;
    if (bits && bits < 64) h &= ((uint64_t)1 << bits) - 1;
    return h;
}

/* --por: the key of level f's product state (S->cur) read as the outer
 * search's, never cut. */
static uint64_t por_key(const search *S, const nd_frame *f)
{
    const buchi *A = &ND(S)->A;
    size_t len = S->vsize + A->bytes;
    if (!f->nested) return store_hash64(S->cur, len); /* set so already */
    A->set(S->cur + S->vsize, f->q, false);
    uint64_t h = store_hash64(S->cur, len);
    A->set(S->cur + S->vsize, f->q, true);
    return h;
}

/* --por, the outer search: the step just taken from level f (to ns, set
 * for the outer search) ends in an error, which has no successors, or
 * (stack_proviso) on the stack: f is expanded fully, and the nested
 * searches will follow. Without stack_proviso (npc, liveness.c) a cycle of
 * the reduced graph through states none of which is expanded fully takes
 * steps of persistent sets only, none visible, so it is an accepting cycle
 * itself. */
static bool proviso(search *S, nd_frame *f, uint8_t *ns, const step_outcome *out)
{
    if (!f->rest || f->full) return true;
    if (out->kind == VERDICT_OK &&
        (!ND(S)->A.stack_proviso || !map_get(&ND(S)->onstack, stack_key(S, ns))))
        return true;
    f->full = 1;
    return live_por_full(S, por_key(S, f));
}

static bool nd_grow(search *S, size_t need)
{
    if (need <= ND(S)->cap) return true;
    void *f = ND(S)->frames;
    bool ok = frames_grow_slow(S, &f, &ND(S)->cap, need, sizeof(nd_frame), true);
    ND(S)->frames = f;
    return ok;
}

/* Set up level f for state S->cur: what its edges read, and --por's choice. */
static void frame_start(search *S, nd_frame *f)
{
    const buchi *A = &ND(S)->A;
    if (A->guards) f->props = props_of(S->p, S->cur);
    if (A->stutters) f->terminal = !any_enabled(S->p, S->cur);
    if (ND(S)->por)
        f->todo = live_por_todo(S, S->cur, enabled_mask(S->p, S->cur), f->nested, por_key(S, f),
                                &f->rest);
}

/* Push a level for product state ns (S->dfs.next), which becomes S->cur. */
static bool push(search *S, size_t *depth, uint8_t *ns, uint32_t q, uint8_t nested, uint8_t how)
{
    if (!nd_grow(S, *depth + 2) || !undo_grow(S)) return false;
    ++*depth;
    nd_frame *nf = &ND(S)->frames[*depth];
    memset(nf, 0, sizeof *nf);
    nf->fr.undo = undo_push(S, S->cur, ns);
    S->dfs.next = S->cur;
    S->cur = ns;
    nf->q = (uint16_t)q;
    nf->nested = nested;
    nf->how = how;
    frame_start(S, nf);
    if (*depth > S->r->stats.max_depth) S->r->stats.max_depth = *depth;
    return true;
}

static void pop(search *S, size_t *depth)
{
    nd_frame *f = &ND(S)->frames[*depth];
    if (f->in_map) map_del(&ND(S)->onstack, stack_key(S, S->cur));
    undo_pop(S, f->fr.undo);
    --*depth;
}

/* Put the top level into the stack set, if the automaton keeps its q there. */
static inline bool put_on_stack(search *S, size_t depth)
{
    const buchi *A = &ND(S)->A;
    nd_frame *f = &ND(S)->frames[depth];
    if (!A->stack_all && !A->accepting[f->q]) return true;
    return map_put_new(S, &ND(S)->onstack, stack_key(S, S->cur), depth + 1, &f->in_map);
}

/* The steps of thread f->fr.tid and those after it along f's edge (its
 * kind f->kind): true with *st the next one. Progress steps are not taken
 * along a MOVE_NONPROGRESS edge (counted). */
static inline bool next_thread_step(search *S, nd_frame *f, explore_step *st)
{
    const vm_program *p = S->p;
    bool por = ND(S)->por;
    while (f->fr.tid < (int32_t)p->nthreads) {
        if (por && !((f->todo >> f->fr.tid) & 1)) {
            f->fr.tid++;
            continue;
        }
        if (f->fr.nchoices == 0) {
            f->fr.nchoices = vm_enabled(p, S->cur, f->fr.tid);
            if (f->fr.nchoices && !buchi_takes(p, f->kind, S->cur, f->fr.tid)) {
                S->r->stats.progress_skipped += f->fr.nchoices;
                f->fr.choice = f->fr.nchoices;
            }
        }
        if (f->fr.choice < f->fr.nchoices) {
            *st = (explore_step){f->fr.tid, f->fr.choice++};
            return true;
        }
        f->fr.tid++;
        f->fr.choice = 0;
        f->fr.nchoices = 0;
    }
    return false;
}

/* The edge after level f's current one, from its first thread. */
static inline void next_edge(nd_frame *f)
{
    f->edge++;
    f->stepping = 0;
    f->fr.tid = 0;
    f->fr.choice = 0;
    f->fr.nchoices = 0;
}

/* next_move() past the edge being stepped along: the next edge whose
 * guard the state satisfies, and its first move. */
static bool next_move_slow(search *S, nd_frame *f, bool at_bound, uint32_t *q2, explore_step *st,
                           uint8_t *kind)
{
    const buchi *A = &ND(S)->A;
    uint32_t off = A->succ_off[f->q], n = A->succ_off[f->q + 1] - off;
    while (f->edge < n || (ND(S)->por && f->full && f->rest)) {
        if (f->edge >= n) { /* the proviso's second round: the rest, every edge */
            f->todo = f->rest;
            f->rest = 0;
            f->round2 = 1;
            f->edge = 0;
            f->fr.tid = 0;
            f->fr.choice = 0;
            f->fr.nchoices = 0;
            continue;
        }
        uint32_t e = off + f->edge, b = A->succ[e];
        uint8_t k = buchi_kind(A, e);
        if (k != MOVE_EPS && at_bound && !f->cut) {
            f->cut = 1;
            if (any_enabled(S->p, S->cur)) S->lim.truncated = true;
        }
        bool skip = k == MOVE_EPS ? f->round2 : f->cut;
        if (!skip && buchi_enters(A, b, f->props)) {
            if (buchi_no_step(A, k, f->terminal)) {
                if (f->fr.choice == 0) {
                    f->fr.choice = 1;
                    f->fr.tid = -1;
                    *q2 = b;
                    *kind = k;
                    *st = (explore_step){-1, 0};
                    return true;
                }
            } else {
                f->to = (uint16_t)b;
                f->kind = k;
                f->stepping = 1;
                if (next_thread_step(S, f, st)) {
                    *q2 = b;
                    *kind = k;
                    return true;
                }
            }
        }
        next_edge(f);
    }
    if (at_bound && !f->cut) { /* no edges: a leaf all the same */
        f->cut = 1;
        if (any_enabled(S->p, S->cur)) S->lim.truncated = true;
    }
    return false;
}

/* Advance level f to its next move: the automaton successor *q2, the step
 * *st (tid -1: a move without a step) and the edge's kind. `at_bound`: the
 * level is at --max-depth, so it takes no steps (a move along an EPS edge
 * is not a step: those edges come first, and are taken). The edge being
 * stepped along goes on inline (the hot path). */
static inline bool next_move(search *S, nd_frame *f, bool at_bound, uint32_t *q2,
                             explore_step *st, uint8_t *kind)
{
    if (f->stepping) {
        if (next_thread_step(S, f, st)) {
            *q2 = f->to;
            *kind = f->kind;
            return true;
        }
        next_edge(f);
    }
    return next_move_slow(S, f, at_bound, q2, st, kind);
}

/* The moves to level `depth` into path[] (not the start of a nested
 * search; a move without a step as tid -1, or, without qs, left out) and
 * the automaton state each enters into qs[]; their number returned;
 * *upto_mark (if not NULL): of those, the moves up to level `mark`. */
static uint32_t stack_moves(const search *S, size_t depth, size_t mark, explore_step *path,
                            uint32_t *qs, uint32_t *upto_mark)
{
    uint32_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        if (i == mark && upto_mark) *upto_mark = n;
        const nd_frame *nf = &ND(S)->frames[i + 1], *f = &ND(S)->frames[i];
        if (nf->how == 2 || (nf->how == 1 && !qs)) continue;
        path[n] = nf->how == 1 ? (explore_step){-1, 0} : (explore_step){f->fr.tid, f->fr.choice - 1};
        if (qs) qs[n] = nf->q;
        n++;
    }
    if (depth == mark && upto_mark) *upto_mark = n;
    return n;
}

/* May the automaton move from q to b along an edge that allows move st
 * in state v? */
static bool edge_allows(const search *S, uint32_t q, uint32_t b, explore_step st, const uint8_t *v)
{
    const buchi *A = &ND(S)->A;
    const vm_program *p = S->p;
    if (!buchi_enters(A, b, A->guards ? props_of(p, v) : 0)) return false;
    if (st.tid >= (int32_t)p->nthreads) return false;
    for (uint32_t e = A->succ_off[q]; e < A->succ_off[q + 1]; e++) {
        if (A->succ[e] != b) continue;
        uint8_t k = buchi_kind(A, e);
        if (st.tid < 0) {
            if (buchi_no_step(A, k, !any_enabled(p, v))) return true;
        } else if (k != MOVE_EPS && buchi_takes(p, k, v, st.tid)) {
            return true;
        }
    }
    return false;
}

bool nested_lasso_holds(search *S, const explore_step *path, const uint32_t *qs, uint32_t len,
                        uint32_t cycle_start)
{
    const buchi *A = &ND(S)->A;
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
        if (qs[i] >= A->nstates || !edge_allows(S, q, qs[i], path[i], v)) return false;
        q = qs[i];
        if (i >= cycle_start && A->accepting[q]) accepting = true;
        if (path[i].tid < 0) continue;
        if (!lasso_can_step(S->p, v, path[i]) || !lasso_step(S, v, path[i], &dry)) return false;
    }
    return cycle_start < len && accepting && q == q_at && memcmp(v, at, S->vsize) == 0;
}

void nested_record(search *S, const explore_step *path, uint32_t m, uint32_t mstart)
{
    const buchi *A = &ND(S)->A;
    step_outcome out = {.kind = A->verdict, .cause = A->cause, .tid = -1, .pc = 0,
                        .body = UINT32_MAX, .elem = UINT32_MAX};
    A->describe(out.msg, sizeof out.msg, m, mstart);
    uint32_t before = S->r->nerrors;
    record_error(S, &out, path, m);
    if (S->r->nerrors > before) {
        S->r->errors[before].lasso = true;
        S->r->errors[before].cycle_start = mstart;
    }
    if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_ERROR; /* one cycle is the answer */
}

/* The steps of moves path[0..n) (the moves without a step left out) and,
 * of those, the ones before move `start` into *before. */
static uint32_t steps_of(const explore_step *path, uint32_t n, uint32_t start, uint32_t *before)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == start) *before = k;
        k += path[i].tid >= 0;
    }
    if (start >= n) *before = k;
    return k;
}

/* A shorter lasso through the seed (outer level `seed`) than path (n moves,
 * the cycle from `start`): lasso_bfs.c's, within --shorten's default budget;
 * on success *path, *qs, *n and *start are replaced (the old freed) and the
 * result says how long the first was. Never stops the search. */
static void shorter_lasso(search *S, size_t seed, explore_step **path, uint32_t **qs, uint32_t *n,
                          uint32_t *start)
{
    const buchi *A = &ND(S)->A;
    uint32_t ns = 0;
    explore_step *sp = malloc((seed + 1) * sizeof *sp);
    uint32_t *sq = malloc((seed + 1) * sizeof *sq);
    uint8_t *v = malloc(S->wsize);
    explore_stats dry = {0};
    bool ok = sp && sq && v && search_initial(S, v, &dry);
    if (ok) ns = stack_moves(S, seed, SIZE_MAX, sp, sq, NULL); /* the moves to the seed */
    for (uint32_t i = 0; ok && i < ns; i++)
        if (sp[i].tid >= 0) ok = lasso_step(S, v, sp[i], &dry);
    free(sp);
    free(sq);
    stop_reason was = S->lim.stop;
    uint64_t stored = S->r->stats.states_stored + S->r->stats.np_states;
    uint32_t budget = stored > 100000 ? (stored < UINT32_MAX / 4 ? (uint32_t)stored : UINT32_MAX / 4)
                                      : 100000;
    explore_step *np;
    uint32_t *nq, nn, nstart;
    uint64_t states = 0;
    if (ok) {
        A->set(v + S->vsize, ND(S)->frames[seed].q, false);
        ok = lasso_shorten(S, v, ND(S)->frames[seed].q, budget, &np, &nq, &nn, &nstart,
                           &states) == 1;
    }
    free(v);
    S->lim.stop = was; /* a budget or memory the shortening ran out of stops nothing */
    uint32_t b0, b1;
    if (!ok) return;
    uint32_t from = steps_of(*path, *n, *start, &b0), to = steps_of(np, nn, nstart, &b1);
    if (to >= from) {
        free(np);
        free(nq);
        return;
    }
    free(*path);
    free(*qs);
    *path = np;
    *qs = nq;
    *n = nn;
    *start = nstart;
    S->r->lasso_shortened_from = from;
    S->r->lasso_bfs_states = states;
}

/* A cycle met by the nested search from the seed at outer level `seed`:
 * the moves of the stack to `top`, then `last` into q2, the cycle starting
 * at outer level `mark`. FOUND if it passed the replay check and was
 * recorded; NOT_FOUND if it failed (counted); STOPPED if the search must
 * stop otherwise. */
static int cycle_found(search *S, size_t seed, size_t top, size_t mark, explore_step last,
                       uint32_t q2)
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
    bool ok = nested_lasso_holds(S, path, qs, n, start);
    if (!ok) {
        free(path);
        free(qs);
        if (S->lim.stop != STOP_COMPLETE) return STOPPED;
        S->r->stats.cycles_rejected++;
        return NOT_FOUND;
    }
    if (!S->o->shorten_off) shorter_lasso(S, seed, &path, &qs, &n, &start);
    free(qs);
    /* the trace keeps the steps; the other moves are implied */
    uint32_t m = 0, mstart = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == start) mstart = m;
        if (path[i].tid >= 0) path[m++] = path[i];
    }
    nested_record(S, path, m, mstart);
    free(path);
    return FOUND;
}

/* A safety error reached by `last` from level `depth`. */
static bool nd_error(search *S, size_t depth, const explore_step *last, const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    explore_step *path = malloc((depth + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    uint32_t n = stack_moves(S, depth, SIZE_MAX, path, NULL, NULL);
    path[n++] = *last;
    bool go_on = record_error(S, out, path, n);
    free(path);
    return go_on;
}

/* The nested search from the seed (S->cur, an accepting outer state at
 * level `seed`), over flagged copies, until it meets a state of the outer
 * stack. */
static int nested(search *S, size_t seed)
{
    const buchi *A = &ND(S)->A;
    explore_stats *x = &S->r->stats;
    size_t depth = seed;
    x->nested_searches++;
    uint8_t *ns = S->dfs.next;
    memcpy(ns, S->cur, S->wsize);
    uint32_t q0 = ND(S)->frames[seed].q;
    A->set(ns + S->vsize, q0, true);
    store_result sr = store_insert(S->st, ns);
    if (sr == STORE_FULL) {
        S->lim.stop = STOP_NOMEM;
        return STOPPED;
    }
    if (sr == STORE_ADDED) x->nested_states++;
    if (!push(S, &depth, ns, q0, 1, 2)) return STOPPED;
    int res = NOT_FOUND;
    while (S->lim.stop == STOP_COMPLETE) {
        nd_frame *f = &ND(S)->frames[depth];
        uint32_t q2;
        explore_step st;
        uint8_t kind;
        if (!next_move(S, f, false, &q2, &st, &kind)) {
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
        A->set(ns + S->vsize, q2, false);
        uint64_t level = map_get(&ND(S)->onstack, stack_key(S, ns));
        if (level) { /* on the outer stack: it reaches the seed */
            res = cycle_found(S, seed, depth, (size_t)level - 1, st, q2);
            if (res != NOT_FOUND) break;
        }
        A->set(ns + S->vsize, q2, true);
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

/* A move of the outer search without a step, to ns (S->dfs.next) in
 * automaton state q2 (`apart`: counted apart). False when it must stop. */
static bool outer_move(search *S, size_t *depth, uint8_t *ns, uint32_t q2, bool apart)
{
    explore_stats *x = &S->r->stats;
    memcpy(ns, S->cur, S->wsize);
    ND(S)->A.set(ns + S->vsize, q2, false);
    store_result sr = store_insert(S->st, ns);
    if (sr == STORE_FULL) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    if (sr != STORE_ADDED) {
        if (!apart) x->states_matched++;
        return true;
    }
    if (apart)
        x->np_states++;
    else
        x->states_stored++;
    return push(S, depth, ns, q2, 0, 1) && put_on_stack(S, *depth);
}

/* A step of the outer search from level f (already run into ns: outcome
 * out) to automaton state q2, counted apart (`apart`): stored, and pushed
 * if new; no error is reported (nested_int.h, buchi.apart). */
static bool outer_step_apart(search *S, size_t *depth, nd_frame *f, uint8_t *ns, uint32_t q2,
                             const step_outcome *out)
{
    S->r->stats.np_transitions++;
    ND(S)->A.set(ns + S->vsize, q2, false);
    if (out->kind != VERDICT_OK) return proviso(S, f, ns, out); /* no successors */
    mark_outcome(S, ns, out);
    store_result sr = store_insert(S->st, ns);
    if (sr == STORE_FULL) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    if (sr != STORE_ADDED) return true;
    S->r->stats.np_states++;
    return push(S, depth, ns, q2, 0, 0) && put_on_stack(S, *depth);
}

void nested_run(search *S)
{
    const buchi *A = &ND(S)->A;
    explore_stats *x = &S->r->stats;
    uint64_t max_depth = S->o->max_depth;
    if (!nd_grow(S, 2) || !(ND(S)->check = malloc(2 * S->wsize))) {
        S->lim.stop = STOP_NOMEM;
        return;
    }
    size_t depth = 0;
    memset(&ND(S)->frames[0], 0, sizeof(nd_frame));
    ND(S)->por = live_por_on(S);
    if (ND(S)->por && !live_por_start(S)) return;
    frame_start(S, &ND(S)->frames[0]);
    if (!put_on_stack(S, 0)) return;
    while (S->lim.stop == STOP_COMPLETE) {
        nd_frame *f = &ND(S)->frames[depth];
        uint32_t q2;
        explore_step st;
        uint8_t kind;
        if (!next_move(S, f, max_depth && depth >= max_depth, &q2, &st, &kind)) { /* backtrack */
            if (A->accepting[f->q] && nested(S, depth) != NOT_FOUND) break; /* post order */
            if (depth == 0) break;
            pop(S, &depth);
            continue;
        }
        uint8_t *ns = S->dfs.next;
        bool apart = A->apart && A->apart[q2];
        if (st.tid < 0) {
            if (!outer_move(S, &depth, ns, q2, apart)) break;
            if (kind == MOVE_EPS) continue; /* no work done */
        } else {
            memcpy(ns, S->cur, S->ssize);
            step_outcome out;
            if (!run_step(S, ns, st.tid, st.choice, &out)) break;
            if (apart) {
                if (!outer_step_apart(S, &depth, f, ns, q2, &out)) break;
            } else { /* the plain DFS's step, with its counts and errors */
                x->transitions++;
                A->set(ns + S->vsize, q2, false);
                uint32_t first;
                uint64_t n;
                int rc = insert_successor(S, ns, &out, &first, &n);
                if (rc == INS_STOP) break;
                if (!proviso(S, f, ns, &out)) break;
                if (rc == INS_ERROR && !nd_error(S, depth, &st, &out)) break;
                if (rc == INS_NEW && (!push(S, &depth, ns, q2, 0, 0) || !put_on_stack(S, depth)))
                    break;
            }
        }
        if (!limits_ok(S)) break;
    }
}

void nested_free(search *S)
{
    nested_ctx *nd = ND(S);
    free(nd->frames);
    map_free(&nd->onstack);
    map_free(&nd->full);
    free(nd->check);
    free(nd->prop_objs);
}

uint64_t nested_reserved(const search *S)
{
    return ND(S)->cap * sizeof(nd_frame) + map_bytes(&ND(S)->onstack) + map_bytes(&ND(S)->full);
}

uint64_t nested_used(const search *S, uint64_t levels)
{
    return frames_used(S, ND(S)->cap, sizeof(nd_frame), levels);
}

const char *nested_refuses(const explore_options *o, const char *what, char *msg, size_t n)
{
    if (o->search != SEARCH_DFS) {
        snprintf(msg, n, "%s is a nested depth-first search: it cannot be used with --search=%s",
                 what, search_order_name(o->search));
        return msg;
    }
    if (o->workers) {
        snprintf(msg, n, "%s is a sequential nested depth-first search: it cannot be used with -j",
                 what);
        return msg;
    }
    if (o->store.kind == STORE_BITSTATE) {
        snprintf(msg, n, "%s cannot be used with --store=bitstate (a missed state could hide a "
                         "cycle without a bound on the omission); use compact or exact", what);
        return msg;
    }
    return NULL;
}
