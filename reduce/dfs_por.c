/* dfs_por.c: the depth-first search of --por: at each state only the threads
 * of a persistent set (por.c) not in the state's sleep set are expanded,
 * with the cycle proviso of Godefroid's stateful selective search (his
 * thesis, chapter 6, the search with persistent sets, sleep sets and state
 * caching; Stoller, section 6): a state
 * one of whose explored successors is on the stack is expanded fully, so
 * that on every cycle of the reduced graph some state is fully expanded and
 * no thread's step is ignored forever. Together these keep every deadlock
 * and every reachable control point (so every assertion and runtime error)
 * of the composed search. An error state has no successors, so a step into
 * one is treated like the proviso's: the state is expanded fully (else an
 * error of one thread could cut off what the others reach after it) (Stoller, section 6, Theorem 10; Godefroid,
 * Theorems 6.14 and 6.18). The stack set is a multiset of the stack states'
 * 64-bit hashes: a collision only expands a state fully.
 *
 * Sleep sets, per thread (a thread's step with all its choices is one
 * transition): once a thread's step has been explored from a state, the
 * later successors of that state put it to sleep if their step is
 * independent of it (por_independent), and a sleeping thread is not
 * expanded until a dependent step wakes it. A state is stored with the
 * sleep set it was first explored with (only a non-empty one, in a map from
 * its hash); reached again with a sleep set that lacks some of those
 * threads, it is explored again for them (Godefroid's rule: H(s) := H(s) ∩
 * Sleep), so state matching never loses a step. It shares the plain DFS's
 * undo log (search_int.h) and its insertion; it has no look-ahead. The BFS
 * (bfs.c) uses persistent sets without sleep sets. */
#include <stdlib.h>
#include <string.h>

#include "por_int.h"
#include "search_int.h"

/* ---- the stack set ---------------------------------------------------------- */

static inline uint64_t on_key(uint64_t h) { return h ? h : 1; }

static bool onstack_add(search *S, uint64_t h)
{
    por_stack *ps = &S->ps;
    if (2 * (ps->on_len + 1) > ps->on_cap) {
        size_t nc = ps->on_cap ? 2 * ps->on_cap : 1024;
        if (S->o->memlimit && search_memory(S) + (nc - ps->on_cap) * 8 > S->o->memlimit) {
            S->lim.stop = STOP_MEMLIMIT;
            return false;
        }
        uint64_t *nt = calloc(nc, sizeof *nt);
        if (!nt) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        for (size_t i = 0; i < ps->on_cap; i++) {
            uint64_t k = ps->onstack[i];
            if (!k) continue;
            size_t j = (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & (nc - 1);
            while (nt[j]) j = (j + 1) & (nc - 1);
            nt[j] = k;
        }
        free(ps->onstack);
        ps->onstack = nt;
        ps->on_cap = nc;
    }
    uint64_t k = on_key(h);
    size_t m = ps->on_cap - 1, j = (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & m;
    while (ps->onstack[j]) j = (j + 1) & m;
    ps->onstack[j] = k;
    ps->on_len++;
    return true;
}

static bool onstack_has(const search *S, uint64_t h)
{
    const por_stack *ps = &S->ps;
    uint64_t k = on_key(h);
    size_t m = ps->on_cap - 1, j = (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & m;
    for (; ps->onstack[j]; j = (j + 1) & m)
        if (ps->onstack[j] == k) return true;
    return false;
}

/* Remove one entry of h (backward-shift deletion, so no tombstones). */
static void onstack_remove(search *S, uint64_t h)
{
    por_stack *ps = &S->ps;
    uint64_t k = on_key(h);
    size_t m = ps->on_cap - 1, j = (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & m;
    while (ps->onstack[j] != k) j = (j + 1) & m; /* it is there */
    for (size_t i = (j + 1) & m;; i = (i + 1) & m) {
        uint64_t e = ps->onstack[i];
        if (!e) break;
        size_t home = (size_t)(e * 0x9e3779b97f4a7c15ull >> 20) & m;
        /* e may move to j if its home is not in (j, i] cyclically */
        if (((i - home) & m) >= ((i - j) & m)) {
            ps->onstack[j] = e;
            j = i;
        }
    }
    ps->onstack[j] = 0;
    ps->on_len--;
}

/* ---- the stored sleep sets ---------------------------------------------------- */

static inline size_t sl_home(uint64_t k, size_t m) { return (size_t)(k * 0x9e3779b97f4a7c15ull >> 24) & m; }

/* The sleep set state h was first explored with (0: none or empty). */
static uint64_t sleep_get(const search *S, uint64_t h)
{
    const por_stack *ps = &S->ps;
    if (!ps->sl_cap) return 0;
    uint64_t k = on_key(h);
    size_t m = ps->sl_cap - 1;
    for (size_t j = sl_home(k, m); ps->sl_key[j]; j = (j + 1) & m)
        if (ps->sl_key[j] == k) return ps->sl_val[j];
    return 0;
}

static bool sleep_put(search *S, uint64_t h, uint64_t z)
{
    por_stack *ps = &S->ps;
    if (2 * (ps->sl_len + 1) > ps->sl_cap) {
        size_t nc = ps->sl_cap ? 2 * ps->sl_cap : 1024;
        if (S->o->memlimit && search_memory(S) + (nc - ps->sl_cap) * 16 > S->o->memlimit) {
            S->lim.stop = STOP_MEMLIMIT;
            return false;
        }
        uint64_t *nk = calloc(nc, sizeof *nk), *nv = malloc(nc * sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        for (size_t i = 0; i < ps->sl_cap; i++) {
            if (!ps->sl_key[i]) continue;
            size_t j = sl_home(ps->sl_key[i], nc - 1);
            while (nk[j]) j = (j + 1) & (nc - 1);
            nk[j] = ps->sl_key[i];
            nv[j] = ps->sl_val[i];
        }
        free(ps->sl_key);
        free(ps->sl_val);
        ps->sl_key = nk;
        ps->sl_val = nv;
        ps->sl_cap = nc;
    }
    uint64_t k = on_key(h);
    size_t m = ps->sl_cap - 1, j = sl_home(k, m);
    while (ps->sl_key[j] && ps->sl_key[j] != k) j = (j + 1) & m;
    if (!ps->sl_key[j]) {
        ps->sl_key[j] = k;
        ps->sl_len++;
    }
    ps->sl_val[j] = z;
    return true;
}

/* ---- the search ------------------------------------------------------------- */

static uint64_t vec_hash(const search *S, const uint8_t *v, uint64_t hash)
{
    return hash ? hash : store_hash64(v, S->vsize);
}

static bool frames_grow(search *S, size_t need)
{
    por_stack *ps = &S->ps;
    if (need <= ps->cap) return true;
    uint64_t nc = grown_capacity(S, ps->cap, need, sizeof(por_frame), (size_t)1 << 20,
                                 1u << 16, true);
    if (!nc) return false;
    por_frame *nf = realloc(ps->frames, (size_t)nc * sizeof *nf);
    if (!nf) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    ps->frames = nf;
    ps->cap = (size_t)nc;
    return true;
}

/* Start level f for state s (hash h) with sleep set z: for a new state its
 * persistent set less the sleeping threads; for one explored before, the
 * threads `again` (woken since). */
static void level_start(search *S, por_frame *f, const uint8_t *s, uint64_t h, uint64_t z,
                        uint64_t again)
{
    f->enabled = enabled_mask(S->p, s);
    f->sleep = z & f->enabled;
    if (again) {
        f->todo = again & f->enabled;
    } else {
        uint64_t ps = por_persistent(S->por, s, f->enabled);
        if (ps != f->enabled) S->r->stats.por_reduced++;
        f->todo = ps & ~f->sleep;
        if (!f->todo && (f->enabled & ~f->sleep)) {
            /* the persistent set is all asleep: none of its steps is taken
             * here, so none can be seen to leave the stack, and a sleeping
             * step may lead back to this very state (a loop): the proviso
             * holds vacuously, every thread not asleep is expanded */
            f->todo = f->enabled & ~f->sleep;
            if (ps != f->enabled) S->r->stats.por_proviso++;
        }
    }
    f->done = 0;
    f->hash = h;
    f->tid = -1;
    f->choice = f->nchoices = 0;
}

/* Record an error reached from level `depth` by `last`. */
static bool por_error(search *S, size_t depth, const explore_step *last,
                      const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    explore_step *path = malloc((depth + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    for (size_t i = 0; i < depth; i++) {
        const por_frame *f = &S->ps.frames[i];
        path[i] = (explore_step){f->tid, f->choice - 1};
    }
    path[depth] = *last;
    bool go_on = record_error(S, out, path, (uint32_t)depth + 1);
    free(path);
    return go_on;
}

void dfs_por(search *S)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    uint64_t max_depth = S->o->max_depth;
    size_t depth = 0;
    if (!frames_grow(S, 1)) return;
    uint64_t h0 = vec_hash(S, S->cur, S->recent.on ? store_hash(S->st, S->cur) : 0);
    if (!onstack_add(S, h0)) return;
    level_start(S, &S->ps.frames[0], S->cur, h0, 0, 0);

    while (S->lim.stop == STOP_COMPLETE) {
        por_frame *f = &S->ps.frames[depth];
        if (f->tid < 0 || f->choice >= f->nchoices) { /* the next thread */
            if (f->tid >= 0) f->sleep |= 1ull << f->tid; /* its steps are explored */
            if (!f->todo) { /* backtrack */
                onstack_remove(S, f->hash);
                if (depth == 0) break;
                undo_pop(S, f->undo);
                depth--;
                continue;
            }
            uint32_t t = (uint32_t)__builtin_ctzll(f->todo);
            f->todo &= f->todo - 1;
            f->done |= 1ull << t;
            f->tid = (int32_t)t;
            f->choice = 0;
            f->nchoices = vm_enabled(p, S->cur, (int)t);
            /* what stays asleep in its successors */
            f->indep = f->sleep ? por_independent(S->por, S->cur, (int)t, f->sleep) : 0;
            continue;
        }
        explore_step st = {f->tid, f->choice++};
        uint8_t *ns = S->dfs.next;
        step_outcome out;
        memcpy(ns, S->cur, S->ssize);
        if (!run_step(S, ns, st.tid, st.choice, &out)) break;
        mark_outcome(S, ns, &out);
        uint64_t hash = S->recent.on ? store_hash(S->st, ns) : 0;
        x->transitions++;
        uint32_t first;
        uint64_t n;
        int rc = insert_prepared(S, ns, &out, hash, S->recent.on,
                                 S->recent.on && is_recent(S, hash), false, &first, &n);
        if (rc == INS_STOP) break;
        if ((f->todo | f->done | f->sleep) != f->enabled &&
            (out.kind != VERDICT_OK ||
             (rc == INS_SEEN && onstack_has(S, vec_hash(S, ns, hash))))) {
            /* the proviso: a step back onto the stack (a cycle may close
             * here), or a step into an error, which ends its path where the
             * other threads' steps would have gone on: every thread's step
             * not asleep is explored from this state */
            f->todo = f->enabled & ~f->done & ~f->sleep;
            x->por_proviso++;
        }
        uint64_t z = f->sleep & f->indep; /* the successor's sleep set */
        uint64_t again = 0;               /* a seen state's threads to explore again */
        if (rc == INS_SEEN && out.kind == VERDICT_OK) {
            uint64_t h = vec_hash(S, ns, hash), hz = sleep_get(S, h);
            if (hz & ~z) { /* first explored with them asleep: not any more */
                again = hz & ~z;
                if (!sleep_put(S, h, hz & z)) break;
                z &= hz;
            }
        }
        if (rc == INS_ERROR && !por_error(S, depth, &st, &out)) break;
        if (rc == INS_NEW || again) { /* push */
            if (!frames_grow(S, depth + 2) || !undo_grow(S)) break;
            uint64_t h = vec_hash(S, ns, hash);
            if (!onstack_add(S, h)) break;
            if (rc == INS_NEW && z && !sleep_put(S, h, z)) break;
            depth++;
            por_frame *nf = &S->ps.frames[depth];
            nf->undo = undo_push(S, S->cur, ns);
            S->dfs.next = S->cur;
            S->cur = ns;
            level_start(S, nf, S->cur, h, z, again);
            if (max_depth && depth >= max_depth) {
                if (nf->enabled) S->lim.truncated = true;
                nf->todo = 0; /* a leaf: do not expand */
            }
            if (depth > x->max_depth) x->max_depth = depth;
        }
        if (!limits_ok(S)) break;
    }
}
