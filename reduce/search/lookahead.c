/* lookahead.c: the DFS look-ahead, speed only. It keeps a guessed path of
 * the next few steps the DFS will likely take, each built (step_run()),
 * hashed and its store lookup prefetched, so that the lookup's cache misses
 * overlap the work of the steps before it. dfs() takes a built step only if
 * it is the step it takes next at the same level, and drops the path at
 * the first difference, so states, transitions and traces are those of
 * --lookahead=off. Each lookup is guessed new or seen by the odds so far in
 * its context. The calls dfs() makes, and the parts that run on every
 * transition (growing the path, the odds), are inline in lookahead_int.h;
 * see docs/architecture.md, "The look-ahead". */
#include <stdlib.h>
#include <string.h>

#include "lookahead_int.h"

/* Turn the look-ahead on: its AHEAD_MAX + 1 vectors, if they fit in memory
 * and under --memlimit (else it stays off: it only saves time). The slots'
 * vectors trade places with S->dfs.next as steps are taken (each is its own
 * allocation; ahead_free() frees them all). */
void ahead_start(search *S)
{
    lookahead *A = &S->ahead;
    size_t bytes = (AHEAD_MAX + 1) * S->wsize;
    A->may = false;
    if (S->o->memlimit && search_memory(S) + bytes > S->o->memlimit) return;
    for (unsigned k = 0; k < AHEAD_MAX; k++)
        if (!(A->slot[k].vec = calloc(1, S->wsize))) return;
    if (!(A->parent = calloc(1, S->wsize))) return;
    S->vec_bytes += bytes;
    A->on = true;
}

void ahead_free(search *S)
{
    for (unsigned k = 0; k < AHEAD_MAX; k++) free(S->ahead.slot[k].vec);
    free(S->ahead.parent);
}

/* Take back the unused steps' counts. */
void ahead_drop(search *S)
{
    for (unsigned k = 0; k < S->ahead.n; k++) {
        S->r->stats.instructions -= AHEAD(S, k)->instructions;
        S->r->stats.invisible -= AHEAD(S, k)->invisible;
    }
    S->ahead.n = 0;
    S->ahead.lookups = 0;
}

/* Append to the guessed path the successor that step st takes from
 * `from`, the state of level depth; hash it and, if it is not in the recent
 * cache, start its lookup: the index, and the entries too if `fetch`. */
static HOT_INLINE ahead_slot *build_ahead(search *S, const uint8_t *from, size_t depth,
                                          explore_step st, bool fetch, unsigned ctx,
                                          bool prev_new)
{
    explore_stats *x = &S->r->stats;
    ahead_slot *a = AHEAD(S, S->ahead.n++);
    uint64_t i0 = x->instructions, v0 = x->invisible;
    memcpy(a->vec, from, S->ssize);
    bool built = run_step(S, a->vec, st.tid, st.choice, &a->out); /* false: a limit in the step */
    mark_outcome(S, a->vec, &a->out);
    a->hash = store_hash(S->st, a->vec);
    a->recent = is_recent(S, a->hash);
    a->fetched = false;
    a->ctx = ctx;
    a->guess_new = false;
    a->conf = 256;
    if (!a->recent) {
        S->ahead.lookups++;
        a->guess_new = guess_new(S, ctx, prev_new, &a->conf);
        store_prefetch_index(S->st, a->hash);
        if (fetch) {
            store_prefetch(S->st, a->hash, a->guess_new);
            a->fetched = true;
        }
    }
    a->depth = built ? depth : SIZE_MAX; /* half-run: never taken (ahead_take) */
    a->step = st;
    a->instructions = x->instructions - i0;
    a->invisible = x->invisible - v0;
    return a;
}

/* The state of level L on the guessed path, as the path is extended while
 * the step (depth, st) to `ns` is looked up: the successor of the path's
 * last step into L, or if it has none, S->cur for the top level, ns above
 * it and the parent (rebuilt from the top level's undo record) below. */
static const uint8_t *state_at(search *S, size_t depth, const uint8_t *ns, size_t L)
{
    for (unsigned k = S->ahead.n; k-- > 0;)
        if (AHEAD(S, k)->depth + 1 == L) return AHEAD(S, k)->vec;
    if (L == depth) return S->cur;
    if (L == depth + 1) return ns;
    if (L + 1 != depth) return NULL;
    if (S->ahead.parent_of != depth) { /* rebuilt once per top level */
        memcpy(S->ahead.parent, S->cur, S->ssize);
        undo_apply(S, S->ahead.parent, S->dfs.frames[depth].undo);
        S->ahead.parent_of = depth;
    }
    return S->ahead.parent;
}

/* The step of the guessed path from level L - 1 into level L, and the
 * choices of its thread; false for level 0. */
static bool step_into(const search *S, size_t depth, explore_step st, size_t L,
                      explore_step *out, uint64_t *nchoices)
{
    for (unsigned k = S->ahead.n; k-- > 0;)
        if (AHEAD(S, k)->depth + 1 == L) {
            *out = AHEAD(S, k)->step;
            *nchoices = AHEAD(S, k)->nchoices;
            return true;
        }
    if (L == depth + 1) {
        *out = st;
        *nchoices = S->dfs.frames[depth].nchoices;
        return true;
    }
    if (L == 0 || L > depth) return false;
    const frame *f = &S->dfs.frames[L - 1]; /* the search's own levels */
    *out = (explore_step){f->tid, f->choice - 1};
    *nchoices = f->nchoices;
    return true;
}

/* Build the step after the path's tail tl and make it the tail: if the
 * tail's successor is guessed new (!tl->seen), its first step; else the
 * next step of the tail's level, or of the level below when that one has
 * none. False if there is none to guess (or the level below is below the
 * top's parent). */
bool next_ahead(search *S, size_t depth, explore_step st, const uint8_t *ns,
                       path_tail *tl, bool fetch)
{
    const vm_program *p = S->p;
    const int32_t nthreads = (int32_t)p->nthreads;
    ahead_slot *a;
    if (!tl->seen) {
        uint64_t n;
        int32_t t = (int32_t)first_enabled(p, tl->vec, &n);
        if (t < nthreads) {
            unsigned ctx = t < tl->step.tid ? CTX_LOWER : 0;
            a = build_ahead(S, tl->vec, tl->depth + 1, (explore_step){t, 0}, fetch, ctx,
                            tl->prev_new);
            a->nchoices = n;
            tl->into_tid = tl->step.tid;
            tl->from = tl->vec;
            tl->depth++;
            tl->step = a->step;
            tl->nchoices = n;
            goto built;
        }
    }
    size_t L = tl->depth;
    explore_step s = tl->step;
    uint64_t nc = tl->nchoices;
    const uint8_t *from = tl->from;
    int32_t into = tl->into_tid;
    for (;;) { /* the next step of level L after step s (nc: choices of s.tid) */
        int32_t t = s.tid;
        uint64_t c = s.choice + 1;
        if (c >= nc) {
            for (t = s.tid + 1; t < nthreads; t++)
                if ((nc = vm_enabled(p, from, t)) != 0) break;
            c = 0;
        }
        if (t < nthreads) {
            unsigned ctx = CTX_LATER | (t < into ? CTX_LOWER : 0);
            a = build_ahead(S, from, L, (explore_step){t, c}, fetch, ctx, tl->prev_new);
            a->after = s;
            a->nchoices = nc;
            tl->depth = L;
            tl->step = a->step;
            tl->nchoices = nc;
            tl->from = from;
            tl->into_tid = into;
            goto built;
        }
        /* the level below: its step into L, its state, and the step into it */
        if (L + 1 == depth || L == 0 || !step_into(S, depth, st, L, &s, &nc)) return false;
        L--;
        if (!(from = state_at(S, depth, ns, L))) return false;
        explore_step below;
        uint64_t below_n;
        into = step_into(S, depth, st, L, &below, &below_n) ? below.tid : -1;
    }
built:
    tl->vec = a->vec;
    tl->seen = !a->guess_new || a->out.kind != VERDICT_OK ||
               (S->o->max_depth && tl->depth + 1 >= S->o->max_depth);
    if (!a->recent) tl->prev_new = a->guess_new;
    return true;
}
