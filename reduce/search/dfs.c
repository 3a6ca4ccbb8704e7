/* dfs.c: the depth-first search, with an explicit stack (no recursion) of
 * small frames and an undo log instead of a state per level (search_int.h,
 * `frame`). Successors are composed steps (step_int.h); each is inserted
 * into the store (search_int.h), and a new one becomes the top level. An
 * error's path is read off the stack's frames. The look-ahead (lookahead.c)
 * plugs in through the ahead_* calls and changes nothing but time: read
 * the loop as if each of them did nothing. Stoller's search is a DFS too
 * (section 5.1); the stack of frames is the usual iterative DFS. */
#include <stdlib.h>
#include <string.h>

#include "lookahead_int.h"

bool frames_grow_slow(search *S, void **frames, size_t *cap, size_t need, size_t entry,
                      bool enforce)
{
    uint64_t nc = grown_capacity(S, *cap, need, entry, (size_t)1 << 20, 1u << 16, enforce);
    if (!nc) return false;
    void *nf = realloc(*frames, (size_t)nc * entry);
    if (!nf) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    *frames = nf;
    *cap = (size_t)nc;
    hint_huge(nf, (size_t)nc * entry);
    return true;
}

bool dfs_grow_slow(search *S, size_t need, bool enforce)
{
    void *f = S->dfs.frames;
    bool ok = frames_grow_slow(S, &f, &S->dfs.cap, need, sizeof(frame), enforce);
    S->dfs.frames = f;
    return ok;
}

bool undo_grow_slow(search *S, size_t need)
{
    dfs_stack *d = &S->dfs;
    uint64_t nc = grown_capacity(S, d->undo_cap, need, 1, (size_t)1 << 20, (size_t)1 << 20, true);
    if (!nc) return false;
    uint8_t *nu = realloc(d->undo, (size_t)nc);
    if (!nu) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    d->undo = nu;
    d->undo_cap = (size_t)nc;
    hint_huge(nu, (size_t)nc);
    return true;
}

bool stack_error(search *S, const void *frames, size_t stride, size_t depth,
                 const explore_step *last, const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    explore_step *path = malloc((depth + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    for (size_t i = 0; i < depth; i++) { /* level i + 1 came from level i's last step */
        const frame *f = (const frame *)((const char *)frames + i * stride);
        path[i] = (explore_step){f->tid, f->choice - 1};
    }
    path[depth] = *last;
    bool go_on = record_error(S, out, path, (uint32_t)depth + 1);
    free(path);
    return go_on;
}

/* A new level starts at the thread insert_successor() found enabled first,
 * so the threads before it are not asked again. With the look-ahead the
 * order, the counts and the traces are the same: the search takes a built
 * step only if it is the step it takes next, at the same level, and it
 * drops the whole path at the first step that differs, so every built step
 * was built from the state the search has at that level. */
static void dfs(search *S, uint32_t first, uint64_t n)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    const int32_t nthreads = (int32_t)p->nthreads;
    size_t depth = 0; /* index of the top level */
    uint64_t max_depth = S->o->max_depth;
    frame *f = &S->dfs.frames[0];
    f->tid = (int32_t)first;
    f->undo = 0;
    f->choice = 0;
    f->nchoices = n;
    ahead_begin(S);
    bool fresh = true; /* the top level has taken no step yet */

    while (S->lim.stop == STOP_COMPLETE) {
        f = &S->dfs.frames[depth];
        ahead_skip(S, depth, f);
        while (f->tid < nthreads) { /* next (tid, choice) */
            if (f->nchoices == 0) f->nchoices = vm_enabled(p, S->cur, f->tid);
            if (f->choice < f->nchoices) break;
            f->tid++;
            f->choice = 0;
            f->nchoices = 0;
        }
        if (f->tid >= nthreads) { /* backtrack */
            if (depth == 0) break;
            ahead_pop(S);
            undo_pop(S, f->undo);
            depth--;
            fresh = false;
            continue;
        }
        explore_step st = {f->tid, f->choice++};
        uint8_t *ns;
        step_outcome out;
        uint64_t hash = 0;
        bool recent;
        if (!ahead_take(S, depth, st, &ns, &out, &hash, &recent)) {
            ns = S->dfs.next;
            memcpy(ns, S->cur, S->ssize);
            if (!run_step(S, ns, st.tid, st.choice, &out)) break;
            mark_outcome(S, ns, &out);
            if (S->recent.on) hash = store_hash(S->st, ns);
            recent = S->recent.on && is_recent(S, hash);
        }
        x->transitions++;
        bool known = ahead_after_step(S, depth, st, ns, &out, recent, fresh, &first, &n);
        fresh = false;
        int rc = insert_prepared(S, ns, &out, hash, S->recent.on, recent, known, &first, &n);
        ahead_after_insert(S, recent, rc);
        if (rc == INS_STOP) break;
        if (rc == INS_ERROR && !stack_error(S, S->dfs.frames, sizeof(frame), depth, &st, &out))
            break;
        if (rc == INS_NEW) { /* push */
            if (!dfs_grow(S, depth + 2, true) || !undo_grow(S)) break;
            depth++;
            fresh = true;
            ahead_push(S, depth);
            frame *nf = &S->dfs.frames[depth];
            nf->undo = undo_push(S, S->cur, ns);
            S->dfs.next = S->cur;
            S->cur = ns;
            nf->tid = (int32_t)first;
            nf->choice = 0;
            nf->nchoices = n;
            if (max_depth && depth >= max_depth) {
                if (n) S->lim.truncated = true;
                nf->tid = nthreads; /* a leaf: do not expand */
            }
            if (depth > x->max_depth) x->max_depth = depth;
        }
        if (!limits_ok(S)) break;
    }
    ahead_drop(S);
}

static bool dfs_selects(const explore_options *o)
{
    (void)o;
    return true;
}

/* The look-ahead is the plain DFS's (S->ahead, lookahead.c). */
const engine engine_dfs = {
    .name = "dfs",
    .selects = dfs_selects,
    .depth_first = true,
    .run = dfs,
    .free_ctx = ahead_free,
};
