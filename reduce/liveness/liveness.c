/* liveness.c: --liveness=npc, the search for a non-progress cycle (SPIN's
 * -l): a reachable cycle of steps none of which executes an instruction a
 * `progress*` label names. It is the nested depth-first search of
 * Courcoubetis, Vardi, Wolper and Yannakakis ("Memory-efficient algorithms
 * for the verification of temporal properties", CAV 1990) over the product
 * with SPIN's never claim for <>[] np_, with Holzmann, Peled and
 * Yannakakis's improvement ("On nested depth first search", SPIN 1996): the
 * nested search stops as soon as it meets a state of the outer stack. The
 * product has two copies of each state: copy 0 takes every step and may
 * move (no step) to copy 1 of the same state, which takes only non-progress
 * steps; copy-1 states are accepting. The outer search finds the safety
 * errors the plain DFS finds, with its counts. Every cycle is replayed
 * through the interpreter and compared, state against state, before it is
 * recorded (a fingerprint collision can invent one). With --por each
 * product state expands what live_por.c decides: a persistent set with no
 * progress step, or every thread; a step into an error adds the rest
 * (no stack proviso is needed: proviso()), and the nested search repeats
 * the outer one's choices. Not here: fairness, starvation,
 * LTL, bitstate, BFS, -j (its engine refuses them). */
#include <stdlib.h>
#include <string.h>

#include "nested_int.h"

/* A level of the product search: a state and its copy (q: 0, every step;
 * 1, the non-progress copy, only non-progress steps; 2, a state of a nested
 * search). The copy is the byte after the stored vector (S->vsize), so the
 * undo log restores it; the store holds vector and copy. */
typedef struct lv_frame {
    frame fr;          /* the thread being expanded, its next choice, undo */
    uint8_t q;         /* 0, 1 or 2 */
    uint8_t eps;       /* entered from the level below by the move from
                          copy 0 to copy 1 of the same state (no step) */
    uint8_t eps_done;  /* copy 0: that move was taken */
    uint8_t in_map;    /* copy 1: this level put its hash into `onstack` */
    uint8_t full;      /* --por: the proviso made this level expand fully */
    uint64_t todo;     /* --por: the threads still to expand, after fr.tid */
    uint64_t rest;     /* --por: the enabled threads the persistent set left out */
} lv_frame;

/* The engine's private context (S->ctx): the nested part, then the stack. */
typedef struct lv_stack {
    nested_ctx nd;     /* onstack: hash of a copy-1 stack state -> its level + 1 */
    lv_frame *frames;
    size_t cap;
} lv_stack;

#define LV(S) ((lv_stack *)(S)->ctx)

enum { FOUND = 1, NOT_FOUND = 0, STOPPED = -1 };

/* The key of a state's copy-1 entry in the stack set: its hash (vector and
 * copy byte), cut to --liveness-test-bits for the tests. */
static uint64_t stack_key(const search *S, uint8_t *v)
{
    uint8_t q = v[S->vsize];
    v[S->vsize] = 1;
    uint64_t h = store_hash64(v, S->vsize + 1);
    v[S->vsize] = q;
    unsigned bits = S->o->liveness_test_bits;
    if (bits && bits < 64) h &= ((uint64_t)1 << bits) - 1;
    return h;
}

/* Put the top level (a copy-1 state) into the stack set. */
static bool put_on_stack(search *S, size_t depth)
{
    return map_put_new(S, &ND(S)->onstack, stack_key(S, S->cur), depth + 1,
                       &LV(S)->frames[depth].in_map);
}

/* --por: the threads level f (state S->cur, copy q) expands (live_por.c). */
static void por_start(search *S, lv_frame *f, uint8_t q)
{
    uint64_t key = live_por_key(S, S->cur, 1, 0, q ? 1 : 0);
    f->todo = live_por_todo(S, S->cur, enabled_mask(S->p, S->cur), q == 2, key, &f->rest);
    f->fr.tid = -1;
}

/* --por, the outer search: the step just taken from level f (copy q) ends
 * in an error, which has no successors, so the persistent set no longer
 * stands for the others' steps (dfs_por.c's error proviso): f is expanded
 * fully, and the nested searches will follow. No stack proviso: a cycle of
 * the reduced graph through states none of which is expanded fully takes
 * steps of persistent sets only, none a progress step (visibility), so it
 * is a non-progress cycle itself; and a reduced graph without such cycles
 * meets Peled's cycle condition, which then keeps every non-progress cycle
 * (live_por.c). Either way the reduced graph has one iff the full one has. */
static bool proviso(search *S, lv_frame *f, uint8_t q, const step_outcome *out)
{
    if (!f->rest || f->full || out->kind == VERDICT_OK) return true;
    f->full = 1;
    return live_por_full(S, live_por_key(S, S->cur, 1, 0, q ? 1 : 0));
}

static bool lv_grow(search *S, size_t need)
{
    if (need <= LV(S)->cap) return true;
    void *f = LV(S)->frames;
    bool ok = frames_grow_slow(S, &f, &LV(S)->cap, need, sizeof(lv_frame), true);
    LV(S)->frames = f;
    return ok;
}

/* Push a level for state ns (S->dfs.next), which becomes S->cur. */
static bool push(search *S, size_t *depth, uint8_t *ns, uint8_t q, bool eps)
{
    if (!lv_grow(S, *depth + 2) || !undo_grow(S)) return false;
    ++*depth;
    lv_frame *nf = &LV(S)->frames[*depth];
    memset(nf, 0, sizeof *nf);
    nf->fr.undo = undo_push(S, S->cur, ns);
    S->dfs.next = S->cur;
    S->cur = ns;
    nf->q = q;
    nf->eps = eps;
    if (live_por_on(S)) por_start(S, nf, q);
    if (*depth > S->r->stats.max_depth) S->r->stats.max_depth = *depth;
    return true;
}

static void pop(search *S, size_t *depth)
{
    lv_frame *f = &LV(S)->frames[*depth];
    if (f->in_map) map_del(&ND(S)->onstack, stack_key(S, S->cur));
    undo_pop(S, f->fr.undo);
    --*depth;
}

/* The path of steps to level `depth` (the moves between copies are not
 * steps) into path[], its length returned; *upto_level: the number of
 * steps up to level `mark`. */
static uint32_t stack_path(const search *S, size_t depth, size_t mark, explore_step *path,
                           uint32_t *upto_mark)
{
    uint32_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        if (i == mark && upto_mark) *upto_mark = n;
        const lv_frame *nf = &LV(S)->frames[i + 1];
        if (nf->eps) continue;
        const lv_frame *f = &LV(S)->frames[i];
        path[n++] = (explore_step){f->fr.tid, f->fr.choice - 1};
    }
    if (depth == mark && upto_mark) *upto_mark = n;
    return n;
}

/* A safety error reached by `last` from the top level. */
static bool lv_error(search *S, size_t depth, const explore_step *last, const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    explore_step *path = malloc((depth + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    uint32_t n = stack_path(S, depth, SIZE_MAX, path, NULL);
    path[n++] = *last;
    bool go_on = record_error(S, out, path, n);
    free(path);
    return go_on;
}

/* The replay check: run `path` from the initial state through the
 * interpreter; true if every step is enabled and ends without an error, no
 * step from cycle_start on executes a progress instruction, and the state
 * after the path (vector, detector metadata and marker) equals the state
 * after its first cycle_start steps. */
static bool lasso_holds(search *S, const explore_step *path, uint32_t len, uint32_t cycle_start)
{
    const vm_program *p = S->p;
    uint8_t *v = ND(S)->check, *at = ND(S)->check + S->wsize;
    explore_stats dry = {0};
    if (!search_initial(S, v, &dry)) return false;
    for (uint32_t i = 0; i < len; i++) {
        if (i == cycle_start) memcpy(at, v, S->vsize);
        if (!lasso_can_step(p, v, path[i])) return false;
        if (i >= cycle_start && is_progress(p, v, path[i].tid)) return false;
        if (!lasso_step(S, v, path[i], &dry)) return false;
    }
    return cycle_start < len && memcmp(v, at, S->vsize) == 0;
}

/* A cycle met by the nested search: its path (outer stack to `top`, the
 * nested levels above, then `last`), the cycle starting at outer level
 * `mark`. FOUND if it passed the replay check and was recorded; NOT_FOUND
 * if it failed (counted); STOPPED if the search must stop otherwise. */
static int cycle_found(search *S, size_t top, size_t mark, const explore_step *last)
{
    explore_step *path = malloc((top + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return STOPPED;
    }
    uint32_t start = 0;
    uint32_t n = stack_path(S, top, mark, path, &start);
    path[n++] = *last;
    if (!lasso_holds(S, path, n, start)) {
        free(path);
        if (S->lim.stop != STOP_COMPLETE) return STOPPED;
        S->r->stats.cycles_rejected++;
        return NOT_FOUND;
    }
    step_outcome out = {.kind = VERDICT_NON_PROGRESS, .cause = CAUSE_NON_PROGRESS, .tid = -1,
                        .pc = 0, .body = UINT32_MAX, .elem = UINT32_MAX};
    snprintf(out.msg, sizeof out.msg,
             "non-progress cycle: an infinite execution that passes no progress label (the "
             "cycle is steps %u-%u)", start + 1, n);
    uint32_t before = S->r->nerrors;
    record_error(S, &out, path, n);
    free(path);
    if (S->r->nerrors > before) {
        S->r->errors[before].lasso = true;
        S->r->errors[before].cycle_start = start;
    }
    if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_ERROR; /* one cycle is the answer */
    return FOUND;
}

/* next_step() with --por: the threads of f->todo, then, once the proviso
 * has made the level full, those of f->rest. */
static bool next_step_por(search *S, lv_frame *f)
{
    const vm_program *p = S->p;
    if (f->fr.tid >= (int32_t)p->nthreads) return false; /* a leaf */
    for (;;) {
        if (f->fr.tid >= 0 && f->fr.choice < f->fr.nchoices) return true;
        if (!f->todo) {
            if (!f->full || !f->rest) return false;
            f->todo = f->rest;
            f->rest = 0;
        }
        int t = __builtin_ctzll(f->todo);
        f->todo &= f->todo - 1;
        f->fr.tid = t;
        f->fr.choice = 0;
        f->fr.nchoices = vm_enabled(p, S->cur, t);
        if (f->fr.nchoices && f->q && is_progress(p, S->cur, t)) {
            S->r->stats.progress_skipped += f->fr.nchoices;
            f->fr.choice = f->fr.nchoices;
        }
    }
}

/* Advance the top level to its next step (tid, choice); only non-progress
 * steps in copies 1 and 2. False when it has none left. */
static bool next_step(search *S, lv_frame *f)
{
    const vm_program *p = S->p;
    if (live_por_on(S)) return next_step_por(S, f);
    while (f->fr.tid < (int32_t)p->nthreads) {
        if (f->fr.nchoices == 0) {
            f->fr.nchoices = vm_enabled(p, S->cur, f->fr.tid);
            if (f->fr.nchoices && f->q && is_progress(p, S->cur, f->fr.tid)) {
                S->r->stats.progress_skipped += f->fr.nchoices;
                f->fr.choice = f->fr.nchoices;
            }
        }
        if (f->fr.choice < f->fr.nchoices) return true;
        f->fr.tid++;
        f->fr.choice = 0;
        f->fr.nchoices = 0;
    }
    return false;
}

/* The nested search from the seed (S->cur, copy 1 at outer level `seed`):
 * non-progress steps only, over copy 2, until it meets a copy-1 state of the
 * outer stack (the seed included). */
static int nested(search *S, size_t seed)
{
    explore_stats *x = &S->r->stats;
    size_t depth = seed;
    x->nested_searches++;
    uint8_t *ns = S->dfs.next;
    memcpy(ns, S->cur, S->wsize);
    ns[S->vsize] = 2;
    store_result sr = store_insert(S->st, ns);
    if (sr == STORE_FULL) {
        S->lim.stop = STOP_NOMEM;
        return STOPPED;
    }
    if (sr == STORE_ADDED) x->nested_states++;
    if (!push(S, &depth, ns, 2, true)) return STOPPED;
    int res = NOT_FOUND;
    while (S->lim.stop == STOP_COMPLETE) {
        lv_frame *f = &LV(S)->frames[depth];
        if (!next_step(S, f)) {
            pop(S, &depth);
            if (depth == seed) break;
            continue;
        }
        explore_step st = {f->fr.tid, f->fr.choice++};
        ns = S->dfs.next;
        memcpy(ns, S->cur, S->ssize);
        step_outcome out;
        if (!run_step(S, ns, st.tid, st.choice, &out)) break;
        x->nested_transitions++;
        if (out.kind != VERDICT_OK) continue; /* an error state: no successors */
        mark_outcome(S, ns, &out);
        ns[S->vsize] = 1;
        uint64_t level = map_get(&ND(S)->onstack, stack_key(S, ns));
        if (level) { /* on the outer stack: it reaches the seed by non-progress steps */
            res = cycle_found(S, depth, (size_t)level - 1, &st);
            if (res != NOT_FOUND) break;
        }
        ns[S->vsize] = 2;
        sr = store_insert(S->st, ns);
        if (sr == STORE_FULL) {
            S->lim.stop = STOP_NOMEM;
            break;
        }
        if (sr == STORE_ADDED) {
            x->nested_states++;
            if (!push(S, &depth, ns, 2, false)) break;
        }
        if (!limits_ok(S)) break;
    }
    if (res == FOUND) return FOUND;
    if (S->lim.stop != STOP_COMPLETE) return STOPPED;
    return NOT_FOUND;
}

/* Copy 1 of state ns (S->dfs.next), reached by the move from copy 0 (eps)
 * or by a non-progress step: stored, and pushed and put into the stack set
 * if new. False when the search must stop. */
static bool enter_copy1(search *S, size_t *depth, uint8_t *ns, bool eps)
{
    ns[S->vsize] = 1;
    store_result sr = store_insert(S->st, ns);
    if (sr == STORE_FULL) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    if (sr != STORE_ADDED) return true;
    S->r->stats.np_states++;
    return push(S, depth, ns, 1, eps) && put_on_stack(S, *depth);
}

static void liveness_npc(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    uint64_t max_depth = S->o->max_depth;
    if (!lv_grow(S, 2) || !(ND(S)->check = malloc(2 * S->wsize))) {
        S->lim.stop = STOP_NOMEM;
        return;
    }
    size_t depth = 0;
    memset(&LV(S)->frames[0], 0, sizeof(lv_frame));
    if (live_por_on(S)) {
        if (!live_por_start(S)) return;
        por_start(S, &LV(S)->frames[0], 0);
    }
    while (S->lim.stop == STOP_COMPLETE) {
        lv_frame *f = &LV(S)->frames[depth];
        uint8_t *ns = S->dfs.next;
        if (f->q == 0 && !f->eps_done) { /* first the move to copy 1 */
            f->eps_done = 1;
            memcpy(ns, S->cur, S->wsize);
            if (!enter_copy1(S, &depth, ns, true)) break;
            continue;
        }
        if (max_depth && depth >= max_depth && f->fr.tid < (int32_t)p->nthreads) {
            if (any_enabled(p, S->cur)) S->lim.truncated = true;
            f->fr.tid = (int32_t)p->nthreads; /* a leaf: do not expand */
        }
        if (!next_step(S, f)) { /* backtrack */
            if (f->q == 1 && nested(S, depth) != NOT_FOUND) break; /* post order: the seed */
            if (depth == 0) break;
            pop(S, &depth);
            continue;
        }
        explore_step st = {f->fr.tid, f->fr.choice++};
        memcpy(ns, S->cur, S->ssize);
        step_outcome out;
        if (!run_step(S, ns, st.tid, st.choice, &out)) break;
        if (f->q == 0) { /* the plain DFS's step, with its counts and errors */
            x->transitions++;
            ns[S->vsize] = 0;
            uint32_t first;
            uint64_t n;
            int rc = insert_successor(S, ns, &out, &first, &n);
            if (rc == INS_STOP) break;
            if (!proviso(S, f, 0, &out)) break;
            if (rc == INS_ERROR && !lv_error(S, depth, &st, &out)) break;
            if (rc == INS_NEW && !push(S, &depth, ns, 0, false)) break;
        } else {
            x->np_transitions++;
            if (out.kind != VERDICT_OK) { /* an error state has no successors: the */
                if (!proviso(S, f, 1, &out)) break; /* persistent set ends here */
            } else {
                mark_outcome(S, ns, &out);
                if (!enter_copy1(S, &depth, ns, false)) break;
            }
        }
        if (!limits_ok(S)) break;
    }
}

static void npc_free(search *S)
{
    nested_free(S);
    free(LV(S)->frames);
}

static uint64_t npc_reserved(const search *S)
{
    return LV(S)->cap * sizeof(lv_frame) + nested_reserved(S);
}

static uint64_t npc_used(const search *S, uint64_t levels)
{
    return frames_used(S, LV(S)->cap, sizeof(lv_frame), levels);
}

static bool npc_selects(const explore_options *o) { return o->liveness == LIVENESS_NPC; }

static const char *npc_refuses(const explore_options *o, char *msg, size_t n)
{
    return nested_refuses(o, "--liveness=npc", msg, n);
}

/* The copy byte follows the stored vector. */
const engine engine_npc = {
    .name = "npc",
    .selects = npc_selects,
    .refuses = npc_refuses,
    .product_bytes = 1,
    .depth_first = true,
    .ctx_size = sizeof(lv_stack),
    .run = liveness_npc,
    .free_ctx = npc_free,
    .reserved = npc_reserved,
    .used = npc_used,
    .rows = npc_rows,
};
