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

/* ---- the hash maps: the stack set and the stored sleep sets ---------------- */

static inline uint64_t map_key(uint64_t h) { return h ? h : 1; }
static inline size_t map_home(uint64_t k, size_t mask)
{
    return (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & mask;
}

/* The slot of key k, or the empty slot where it would go (cap > 0). */
static size_t map_slot(const hash_map *m, uint64_t k)
{
    size_t mask = m->cap - 1, j = map_home(k, mask);
    while (m->key[j] && m->key[j] != k) j = (j + 1) & mask;
    return j;
}

/* The value of hash h, 0 if none. */
uint64_t map_get(const hash_map *m, uint64_t h)
{
    if (!m->cap) return 0;
    size_t j = map_slot(m, map_key(h));
    return m->key[j] ? m->val[j] : 0;
}

/* Set h's value to v (non-zero); false with S->lim.stop set if the map
 * cannot grow (it keeps its load under a half). */
bool map_put(search *S, hash_map *m, uint64_t h, uint64_t v)
{
    if (2 * (m->len + 1) > m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 1024;
        if (S->o->memlimit && search_memory(S) + (nc - m->cap) * 16 > S->o->memlimit) {
            S->lim.stop = STOP_MEMLIMIT;
            S->lim.refused = (nc - m->cap) * 16;
            return false;
        }
        hash_map n = {calloc(nc, sizeof(uint64_t)), malloc(nc * sizeof(uint64_t)), nc, m->len};
        if (!n.key || !n.val) {
            free(n.key);
            free(n.val);
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t j = map_slot(&n, m->key[i]);
                n.key[j] = m->key[i];
                n.val[j] = m->val[i];
            }
        free(m->key);
        free(m->val);
        *m = n;
    }
    uint64_t k = map_key(h);
    size_t j = map_slot(m, k);
    if (!m->key[j]) {
        m->key[j] = k;
        m->len++;
        size_t both = S->ps.onstack.len + S->ps.slept.len;
        if (both > S->ps.map_peak) S->ps.map_peak = both;
    }
    m->val[j] = v;
    return true;
}

bool map_put_new(search *S, hash_map *m, uint64_t h, uint64_t v, uint8_t *put)
{
    *put = 0;
    if (map_get(m, h)) return true;
    if (!map_put(S, m, h, v)) return false;
    *put = 1;
    return true;
}

/* Remove hash h, which is there (backward-shift deletion: no tombstones). */
void map_del(hash_map *m, uint64_t h)
{
    size_t mask = m->cap - 1, j = map_slot(m, map_key(h));
    for (size_t i = (j + 1) & mask; m->key[i]; i = (i + 1) & mask) {
        size_t home = map_home(m->key[i], mask);
        /* the entry at i may move to j if its home is not in (j, i] cyclically */
        if (((i - home) & mask) >= ((i - j) & mask)) {
            m->key[j] = m->key[i];
            m->val[j] = m->val[i];
            j = i;
        }
    }
    m->key[j] = 0;
    m->len--;
}

/* The stack set: a multiset of the stack states' hashes (a count each). */
static bool onstack_add(search *S, uint64_t h)
{
    return map_put(S, &S->ps.onstack, h, map_get(&S->ps.onstack, h) + 1);
}

static bool onstack_has(const search *S, uint64_t h) { return map_get(&S->ps.onstack, h) != 0; }

static void onstack_remove(search *S, uint64_t h)
{
    hash_map *m = &S->ps.onstack;
    size_t j = map_slot(m, map_key(h));
    if (m->val[j] > 1)
        m->val[j]--;
    else
        map_del(m, h);
}

/* The sleep set state h was first explored with (0: none or empty). */
static uint64_t sleep_get(const search *S, uint64_t h) { return map_get(&S->ps.slept, h); }

static bool sleep_put(search *S, uint64_t h, uint64_t z)
{
    if (z) return map_put(S, &S->ps.slept, h, z);
    if (map_get(&S->ps.slept, h)) map_del(&S->ps.slept, h); /* values are non-zero */
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
    void *f = ps->frames;
    bool ok = frames_grow_slow(S, &f, &ps->cap, need, sizeof(por_frame), true);
    ps->frames = f;
    return ok;
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
    f->fr.tid = -1;
    f->fr.choice = f->fr.nchoices = 0;
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
        if (f->fr.tid < 0 || f->fr.choice >= f->fr.nchoices) { /* the next thread */
            if (f->fr.tid >= 0) f->sleep |= 1ull << f->fr.tid; /* its steps are explored */
            if (!f->todo) { /* backtrack */
                onstack_remove(S, f->hash);
                if (depth == 0) break;
                undo_pop(S, f->fr.undo);
                depth--;
                continue;
            }
            uint32_t t = (uint32_t)__builtin_ctzll(f->todo);
            f->todo &= f->todo - 1;
            f->done |= 1ull << t;
            f->fr.tid = (int32_t)t;
            f->fr.choice = 0;
            f->fr.nchoices = vm_enabled(p, S->cur, (int)t);
            /* what stays asleep in its successors */
            f->indep = f->sleep ? por_independent(S->por, S->cur, (int)t, f->sleep) : 0;
            continue;
        }
        explore_step st = {f->fr.tid, f->fr.choice++};
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
        if (rc == INS_ERROR && !stack_error(S, S->ps.frames, sizeof(por_frame), depth, &st, &out)) break;
        if (rc == INS_NEW || again) { /* push */
            if (!frames_grow(S, depth + 2) || !undo_grow(S)) break;
            uint64_t h = vec_hash(S, ns, hash);
            if (!onstack_add(S, h)) break;
            if (rc == INS_NEW && z && !sleep_put(S, h, z)) break;
            depth++;
            por_frame *nf = &S->ps.frames[depth];
            nf->fr.undo = undo_push(S, S->cur, ns);
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
