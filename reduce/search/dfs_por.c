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
 * undo log (search_int.h) and its insertion; instead of the plain DFS's
 * guessed path it builds each level's next step ahead (speed only: see
 * build_next()). The BFS (bfs.c) uses persistent sets without sleep sets. */
#include <stdlib.h>
#include <string.h>

#include "por_int.h"
#include "search_int.h"

/* A level of the DFS with persistent sets: the threads of its persistent
 * set still to expand, those taken, and the state's hash (for the stack
 * set of the cycle proviso). The undo log is the plain DFS's. */
typedef struct por_frame {
    frame fr;          /* the thread being expanded (tid -1: take the next of
                          todo), its next choice, the level's undo record */
    uint64_t enabled;  /* threads with a step in the level's state */
    uint64_t todo;     /* still to expand: the persistent set, or all (proviso) */
    uint64_t done;     /* taken (being expanded or finished) */
    uint64_t sleep;    /* the sleep set: threads whose steps need not be
                          taken here (explored from an ancestor, or here) */
    uint64_t indep;    /* of the enabled threads, those independent of tid's step */
    uint64_t hash;     /* of the level's stored vector */
    bool reduced;      /* its persistent set left a thread out, and the proviso
                          has not expanded it fully yet (statistics) */
} por_frame;

/* A level's next step, built while the step before it was looked up
 * (speed only; see build_next()). */
typedef struct por_built {
    uint8_t *vec;         /* a work vector (trades places with S->dfs.next) */
    size_t depth;         /* the level it is a step of (SIZE_MAX: none built) */
    explore_step st;
    step_outcome out;
    uint64_t hash, h;     /* store_hash(), and the maps' key (vec_hash()) */
    uint64_t instructions, invisible; /* counted for it, taken back if unused */
} por_built;

/* Levels whose built step is kept while the search is above them: level d's
 * in slot d % AHEAD_LEVELS, so that it is still there when a push below it
 * comes back within fewer levels (philosophers N=8: two thirds of them). */
#ifndef AHEAD_LEVELS
#define AHEAD_LEVELS 16
#endif

typedef struct por_ahead {
    bool may;             /* no detector metadata, a store that takes the hash,
                             not --lookahead=off */
    uint64_t from_bytes;  /* --lookahead=auto starts once the store is bigger */
    bool on;              /* allocated and started (at once, or once the store is big) */
    por_built slot[AHEAD_LEVELS];
} por_ahead;

/* The engine's private context (S->ctx). */
typedef struct por_stack {
    por_frame *frames;
    size_t cap;
    por_ahead ahead;
    hash_map onstack;  /* the stack's hashes -> how many stack states have it */
    hash_map slept;    /* hash -> the sleep set a state was first explored
                          with (only those not empty) */
    size_t map_peak;   /* the most entries of both maps at once (statistics) */
} por_stack;

#define PS(S) ((por_stack *)(S)->ctx)

/* ---- the stack set and the stored sleep sets (hash_map.h) ----------------- */

/* The stack set: a multiset of the stack states' hashes (a count each). */
/* The statistics' peak of both maps' entries, after an insertion. */
static bool peak(por_stack *ps)
{
    size_t both = ps->onstack.len + ps->slept.len;
    if (both > ps->map_peak) ps->map_peak = both;
    return true;
}

static bool onstack_add(search *S, uint64_t h)
{
    return map_put(S, &PS(S)->onstack, h, map_get(&PS(S)->onstack, h) + 1) && peak(PS(S));
}

static bool onstack_has(const search *S, uint64_t h) { return map_get(&PS(S)->onstack, h) != 0; }

static void onstack_remove(search *S, uint64_t h)
{
    hash_map *m = &PS(S)->onstack;
    size_t j = map_slot(m, map_key_of(h));
    if (m->slot[j].val > 1)
        m->slot[j].val--;
    else
        map_del(m, h);
}

/* The sleep set state h was first explored with (0: none or empty). */
static uint64_t sleep_get(const search *S, uint64_t h) { return map_get(&PS(S)->slept, h); }

static bool sleep_put(search *S, uint64_t h, uint64_t z)
{
    if (z) return map_put(S, &PS(S)->slept, h, z) && peak(PS(S));
    if (map_get(&PS(S)->slept, h)) map_del(&PS(S)->slept, h); /* values are non-zero */
    return true;
}

/* ---- the search ------------------------------------------------------------- */

static uint64_t vec_hash(const search *S, const uint8_t *v, uint64_t hash)
{
    return hash ? hash : store_hash64(v, S->vsize);
}

static bool frames_grow(search *S, size_t need)
{
    por_stack *ps = PS(S);
    if (need <= ps->cap) return true;
    void *f = ps->frames;
    bool ok = frames_grow_slow(S, &f, &ps->cap, need, sizeof(por_frame), true);
    ps->frames = f;
    return ok;
}

/* Vigna's splitmix64 finalizer: a 64-bit bijection that scatters bits. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The next thread of `todo` (not empty) to expand at level f, in the
 * order the options ask for (--swarm's workers, swarm.c): by id, the
 * highest id first, or per state a random permutation: the thread whose
 * key, a mix of the seed, the state's hash and its id, is the least, so
 * that a state is expanded in the same order whenever it is met. Any
 * order is sound: the persistent set, the sleep sets and the proviso do
 * not depend on it. */
static uint32_t first_in_order(const search *S, uint64_t hash, uint64_t todo)
{
    switch (S->o->order) {
    case ORDER_IDS: break;
    case ORDER_REVERSED: return 63u - (uint32_t)__builtin_clzll(todo);
    case ORDER_RANDOM: {
        uint32_t best = 0;
        uint64_t least = UINT64_MAX;
        for (uint64_t m = todo; m; m &= m - 1) {
            uint32_t t = (uint32_t)__builtin_ctzll(m);
            uint64_t k = splitmix64(S->o->order_seed ^ hash ^ ((uint64_t)t << 56));
            if (k <= least) {
                least = k;
                best = t;
            }
        }
        return best;
    }
    }
    return (uint32_t)__builtin_ctzll(todo);
}

static uint32_t next_thread(const search *S, const por_frame *f)
{
    return first_in_order(S, f->hash, f->todo);
}

/* Start level f for state s (hash h) with sleep set z: for a new state its
 * persistent set less the sleeping threads; for one explored before, the
 * threads `again` (woken since). */
static void level_start(search *S, por_frame *f, const uint8_t *s, uint64_t h, uint64_t z,
                        uint64_t again)
{
    f->enabled = enabled_mask(S->p, s);
    f->sleep = z & f->enabled;
    if (again) { /* explored before: counted then */
        f->todo = again & f->enabled;
        f->reduced = false;
    } else {
        /* the closure of the thread the order runs first (por.c) */
        uint64_t ps = S->o->order == ORDER_IDS || !f->enabled
                          ? por_persistent(S->por, s, f->enabled)
                          : por_persistent_from(S->por, s, f->enabled,
                                                first_in_order(S, h, f->enabled));
        if (ps != f->enabled) S->r->stats.por_reduced++;
        f->reduced = ps != f->enabled;
        f->todo = ps & ~f->sleep;
        if (!f->todo && (f->enabled & ~f->sleep)) {
            /* the persistent set is all asleep: none of its steps is taken
             * here, so none can be seen to leave the stack, and a sleeping
             * step may lead back to this very state (a loop): the proviso
             * holds vacuously, every thread not asleep is expanded */
            f->todo = f->enabled & ~f->sleep;
            if (ps != f->enabled) S->r->stats.por_proviso++;
            f->reduced = false;
        }
    }
    f->done = 0;
    f->hash = h;
    f->fr.tid = -1;
    f->fr.choice = f->fr.nchoices = 0;
}

/* ---- the step built ahead (speed only) ------------------------------------ */

/* Steps are built one ahead: while a successor is looked up, the step its
 * level takes after it (the next choice of its thread, else the first of
 * the thread next in order) is built, hashed and its lookups started, so
 * that their cache misses overlap the work on the one before. It is kept
 * while the search goes up to AHEAD_LEVELS - 1 levels above (a push of a
 * new state, usually soon back), and taken if it is the step its level
 * takes next (a proviso may change the next thread); a pop of its level,
 * or a level AHEAD_LEVELS higher, drops it. Its instructions are counted
 * only if it is taken, and it is taken later in any case (a level takes
 * every thread of its todo, which only grows), so the code it marks as run
 * is run. Not with detector metadata, whose hooks would run out of order.
 * So the counts, traces and order are those of building each step when it
 * is taken. */
static por_built *built_of(por_stack *ps, size_t depth)
{
    return &ps->ahead.slot[depth % AHEAD_LEVELS];
}

static void built_drop(search *S, por_built *b)
{
    if (b->depth == SIZE_MAX) return;
    S->r->stats.instructions -= b->instructions;
    S->r->stats.invisible -= b->invisible;
    b->depth = SIZE_MAX;
}

/* Turn it on if it may be and the store is big enough for lookups to miss
 * the caches (AHEAD_STORE_BYTES, as the plain DFS's look-ahead with
 * --lookahead=auto; --lookahead=on|child|sibling mean --por=off), and its
 * vectors fit under --memlimit. The tests set MCHECK_AHEAD_STORE_BYTES to
 * start it on small models (0: at once). */
static void ahead_maybe_start(search *S, por_ahead *a)
{
    if (store_bytes(S->st) <= a->from_bytes) return;
    a->may = false; /* asked once */
    size_t bytes = AHEAD_LEVELS * S->wsize;
    if (S->o->memlimit && search_memory(S) + bytes > S->o->memlimit) return;
    for (unsigned k = 0; k < AHEAD_LEVELS; k++)
        if (!(a->slot[k].vec = calloc(1, S->wsize))) return;
    S->vec_bytes += bytes;
    a->on = true;
}

/* Build the step that follows the step being looked up at level f (depth;
 * its cursor has moved past that step), if the level has one. */
static void build_next(search *S, por_stack *ps, const por_frame *f, size_t depth)
{
    por_built *b = built_of(ps, depth);
    explore_stats *x = &S->r->stats;
    explore_step nx;
    if (f->fr.choice < f->fr.nchoices)
        nx = (explore_step){f->fr.tid, f->fr.choice};
    else if (f->todo)
        nx = (explore_step){(int32_t)next_thread(S, f), 0};
    else
        return;
    built_drop(S, b); /* a level AHEAD_LEVELS below's */
    uint64_t i0 = x->instructions, v0 = x->invisible;
    memcpy(b->vec, S->cur, S->ssize);
    if (!run_step(S, b->vec, nx.tid, nx.choice, &b->out)) { /* a limit in the step: half-run */
        x->instructions = i0;
        x->invisible = v0;
        return;
    }
    mark_outcome(S, b->vec, &b->out);
    b->hash = store_hash(S->st, b->vec);
    b->h = vec_hash(S, b->vec, b->hash);
    recent_prefetch(S, b->hash);
    map_prefetch(&ps->slept, b->h);
    map_prefetch(&ps->onstack, b->h);
    store_prefetch_index(S->st, b->hash);
    b->st = nx;
    b->instructions = x->instructions - i0;
    b->invisible = x->invisible - v0;
    b->depth = depth;
}

static void dfs_por(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    const vm_program *p = S->p;
    por_stack *ps = PS(S);
    explore_stats *x = &S->r->stats;
    uint64_t max_depth = S->o->max_depth;
    size_t depth = 0;
    if (!frames_grow(S, 1)) return;
    for (unsigned k = 0; k < AHEAD_LEVELS; k++) ps->ahead.slot[k].depth = SIZE_MAX;
    ps->ahead.may = S->recent.on && (!S->det || ls_meta_bytes(S->det) == 0) &&
                    S->o->lookahead != LOOKAHEAD_OFF;
    const char *from = getenv("MCHECK_AHEAD_STORE_BYTES");
    ps->ahead.from_bytes = from && *from ? strtoull(from, NULL, 10) : AHEAD_STORE_BYTES;
    if (ps->ahead.may && !ps->ahead.from_bytes) ahead_maybe_start(S, &ps->ahead);
    uint64_t h0 = vec_hash(S, S->cur, S->recent.on ? store_hash(S->st, S->cur) : 0);
    if (!onstack_add(S, h0)) return;
    level_start(S, &PS(S)->frames[0], S->cur, h0, 0, 0);

    while (S->lim.stop == STOP_COMPLETE) {
        por_frame *f = &ps->frames[depth];
        if (f->fr.tid < 0 || f->fr.choice >= f->fr.nchoices) { /* the next thread */
            if (f->fr.tid >= 0 && !S->o->no_sleep_sets) /* its steps are explored */
                f->sleep |= 1ull << f->fr.tid;
            if (!f->todo) { /* backtrack */
                if (ps->ahead.on && built_of(ps, depth)->depth == depth)
                    built_drop(S, built_of(ps, depth));
                onstack_remove(S, f->hash);
                if (depth == 0) break;
                undo_pop(S, f->fr.undo);
                depth--;
                if (ps->ahead.on) { /* the level's built step, if kept: load its lookups again */
                    const por_built *b = built_of(ps, depth);
                    if (b->depth == depth) {
                        map_prefetch(&ps->slept, b->h);
                        map_prefetch(&ps->onstack, b->h);
                        store_prefetch_index(S->st, b->hash);
                    }
                }
                continue;
            }
            uint32_t t = next_thread(S, f);
            f->todo &= ~(1ull << t);
            f->done |= 1ull << t;
            f->fr.tid = (int32_t)t;
            f->fr.choice = 0;
            f->fr.nchoices = vm_enabled(p, S->cur, (int)t);
            /* what stays asleep in its successors */
            f->indep = f->sleep ? por_independent(S->por, S->cur, (int)t, f->sleep) : 0;
            continue;
        }
        explore_step st = {f->fr.tid, f->fr.choice++};
        uint8_t *ns;
        step_outcome out;
        uint64_t hash, h;
        por_built *b = built_of(ps, depth);
        if (ps->ahead.on && b->depth == depth && b->st.tid == st.tid &&
            b->st.choice == st.choice) {
            ns = b->vec; /* built (and its lookups started) before */
            b->vec = S->dfs.next;
            S->dfs.next = ns;
            if (b->out.kind == VERDICT_OK) { /* the message is not read */
                out.kind = VERDICT_OK;
                out.elem = UINT32_MAX;
            } else {
                out = b->out;
            }
            hash = b->hash;
            h = b->h;
            b->depth = SIZE_MAX;
        } else {
            if (ps->ahead.on) built_drop(S, b);
            ns = S->dfs.next;
            memcpy(ns, S->cur, S->ssize);
            if (!run_step(S, ns, st.tid, st.choice, &out)) break;
            mark_outcome(S, ns, &out);
            hash = S->recent.on ? store_hash(S->st, ns) : 0;
            /* the successor's key in the stack set and the stored sleep sets
             * (the store's hash when it takes one), computed once; their
             * slots and the store's bucket are loaded together, while the
             * store looks the state up, rather than one miss after another */
            h = vec_hash(S, ns, hash);
            map_prefetch(&ps->slept, h);
            map_prefetch(&ps->onstack, h);
            if (S->recent.on) store_prefetch_index(S->st, hash);
        }
        bool partial = (f->todo | f->done | f->sleep) != f->enabled; /* the proviso may apply */
        if (ps->ahead.on) build_next(S, ps, f, depth);
        x->transitions++;
        uint32_t first;
        uint64_t n;
        int rc = insert_prepared(S, ns, &out, hash, S->recent.on,
                                 S->recent.on && is_recent(S, hash), false, &first, &n);
        if (rc == INS_STOP) break;
        if (ps->ahead.on && b->depth == depth && !is_recent(S, b->hash))
            store_prefetch(S->st, b->hash, false); /* the built step's entries */
        if (partial && (out.kind != VERDICT_OK ||
                        (rc == INS_SEEN && onstack_has(S, h)))) {
            /* the proviso: a step back onto the stack (a cycle may close
             * here), or a step into an error, which ends its path where the
             * other threads' steps would have gone on: every thread's step
             * not asleep is explored from this state */
            f->todo = f->enabled & ~f->done & ~f->sleep;
            if (f->reduced) x->por_proviso++; /* of the states counted reduced */
            f->reduced = false;
        }
        uint64_t z = f->sleep & f->indep; /* the successor's sleep set */
        uint64_t again = 0;               /* a seen state's threads to explore again */
        if (rc == INS_SEEN && out.kind == VERDICT_OK) {
            uint64_t hz = sleep_get(S, h);
            if (hz & ~z) { /* first explored with them asleep: not any more */
                again = hz & ~z;
                if (!sleep_put(S, h, hz & z)) break;
                z &= hz;
            }
        }
        if (rc == INS_ERROR && !stack_error(S, ps->frames, sizeof(por_frame), depth, &st, &out)) break;
        if (rc == INS_NEW || again) { /* push */
            if (!frames_grow(S, depth + 2) || !undo_grow(S)) break;
            if (!onstack_add(S, h)) break;
            if (rc == INS_NEW && z && !sleep_put(S, h, z)) break;
            depth++;
            por_frame *nf = &ps->frames[depth];
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
        if (ps->ahead.may && !(x->transitions & 4095)) ahead_maybe_start(S, &ps->ahead);
    }
    for (unsigned k = 0; ps->ahead.on && k < AHEAD_LEVELS; k++) built_drop(S, &ps->ahead.slot[k]);
}

static void dfs_por_free(search *S)
{
    por_stack *ps = PS(S);
    free(ps->frames);
    for (unsigned k = 0; k < AHEAD_LEVELS; k++) free(ps->ahead.slot[k].vec);
    map_free(&ps->onstack);
    map_free(&ps->slept);
}

static uint64_t dfs_por_reserved(const search *S)
{
    const por_stack *ps = PS(S);
    return ps->cap * sizeof(por_frame) + map_bytes(&ps->onstack) + map_bytes(&ps->slept);
}

/* the deepest stack's frames and the fullest maps */
static uint64_t dfs_por_used(const search *S, uint64_t levels)
{
    const por_stack *ps = PS(S);
    return (uint64_t)ps->map_peak * 2 * sizeof(uint64_t) +
           frames_used(S, ps->cap, sizeof(por_frame), levels);
}

static bool dfs_por_selects(const explore_options *o) { return o->por; }

const engine engine_dfs_por = {
    .name = "dfs-por",
    .selects = dfs_por_selects,
    .depth_first = true,
    .ctx_size = sizeof(por_stack),
    .run = dfs_por,
    .free_ctx = dfs_por_free,
    .reserved = dfs_por_reserved,
    .used = dfs_por_used,
};
