/* parallel.c: the search with N worker threads (mcheck -j N), over one
 * shared visited-state set partitioned by fingerprint (statestore's
 * sstore: a lock per shard; the MPI search will give each rank a range of
 * the same shards).
 *
 * Work is a state to expand: an item, its vector with a link to the node
 * of its parent. Expanding an item runs every successor (the same composed
 * step, step_int.h), inserts each into the shared set, and makes the new
 * ones items. Two orders:
 *   dfs  each worker keeps a stack of items and takes the newest; an idle
 *        worker asks a busy one (a request flag the busy one reads once per
 *        item) and is handed the oldest half of its stack, the items
 *        nearest the root (work stealing by request, as LTSmin's
 *        synchronous random polling). The search is complete when no
 *        worker holds an item (a count of active workers, raised for the
 *        receiver before items are handed over).
 *   bfs  level-synchronous (Stern and Dill; LTSmin's parallel BFS): the
 *        workers take chunks of the current level, put the new states in
 *        their own part of the next level, and meet at a barrier; an error
 *        found in level k is at depth k + 1, so its trace is a shortest one.
 * Every stored state is expanded exactly once, whichever worker does it,
 * so a complete search stores, matches and runs what the sequential search
 * does (the same counts with --store=exact, and with the compact store the
 * same fingerprints); max depth is the depth in the search tree.
 *
 * Traces: a node per expanded state that has new successors (parent node,
 * the step into it, depth), counted by its children still alive; a state
 * whose subtree is done releases its parent, so the nodes alive are the
 * ancestors of the items not yet expanded. An error's path is read off the
 * chain. With --por: persistent sets with the seen-successor proviso (a
 * state with a successor already in the set is expanded fully), which is
 * sound in any order of insertion: on every cycle of the reduced graph the
 * state stored last has an edge to one stored before it. No sleep sets
 * (their stack proviso needs the sequential stack). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parallel_int.h"

/* ---- helpers ------------------------------------------------------------- */

/* Zeroed memory aligned to a cache line (the structs with _Alignas(64)). */
static void *zalloc_lines(size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    void *m = aligned_alloc(64, bytes);
    if (m) memset(m, 0, bytes);
    return m;
}

bool stack_reserve(par *P, item_stack *s, size_t need)
{
    if (need <= s->cap) return true;
    size_t nc = s->cap ? s->cap * 2 : 1024;
    while (nc < need) nc *= 2;
    uint8_t *nb = realloc(s->buf, nc * P->isize);
    if (!nb) return false;
    s->buf = nb;
    s->cap = nc;
    return true;
}

/* Reserved for the worker's stacks (dfs: its items and those handed to it;
 * bfs: its parts of two levels) and its tree nodes. */
static uint64_t worker_bytes(const worker *W)
{
    const par *P = W->P;
    return (uint64_t)(W->stack.cap + W->in.cap) * P->isize + W->nslabs * NODE_SLAB * sizeof(pnode);
}

/* Of those, the bytes of the items it holds and of the nodes it took less
 * those it released (negative when it released another worker's). */
static int64_t worker_used(const worker *W)
{
    const par *P = W->P;
    return (int64_t)((W->stack.n + W->in.n) * P->isize) + W->nodes_live * (int64_t)sizeof(pnode);
}

/* Raise P->used_peak to the workers' published sum, if it is more. */
static void note_used(par *P)
{
    int64_t sum = 0;
    for (unsigned i = 0; i < P->n; i++)
        sum += atomic_load_explicit(&P->w[i].pub_used, memory_order_relaxed);
    uint64_t u = sum > 0 ? (uint64_t)sum : 0;
    uint64_t old = atomic_load_explicit(&P->used_peak, memory_order_relaxed);
    while (u > old && !atomic_compare_exchange_weak_explicit(&P->used_peak, &old, u,
                                                             memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

/* ---- nodes ---------------------------------------------------------------- */

static pnode *node_new(worker *W)
{
    if (!W->free_nodes) {
        if (W->nslabs == W->slabs_cap) {
            size_t nc = W->slabs_cap ? W->slabs_cap * 2 : 16;
            void **ns = realloc(W->slabs, nc * sizeof *ns);
            if (!ns) return NULL;
            W->slabs = ns;
            W->slabs_cap = nc;
        }
        pnode *slab = malloc(NODE_SLAB * sizeof *slab);
        if (!slab) return NULL;
        W->slabs[W->nslabs++] = slab;
        for (size_t i = 0; i < NODE_SLAB; i++) {
            slab[i].parent = W->free_nodes;
            W->free_nodes = &slab[i];
        }
    }
    pnode *n = W->free_nodes;
    W->free_nodes = n->parent;
    W->nodes_live++;
    return n;
}

/* A child of n is done: release n, and its ancestors whose last child it was. */
static void node_release(worker *W, pnode *n)
{
    while (n && atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) == 1) {
        pnode *up = n->parent;
        n->parent = W->free_nodes;
        W->free_nodes = n;
        W->nodes_live--;
        n = up;
    }
}

/* ---- errors, insertion, limits -------------------------------------------- */

/* Record an error reached from item h by step st (path read off the nodes). */
static bool par_error(worker *W, const item_hdr *h, explore_step st, const step_outcome *out)
{
    par *P = W->P;
    pthread_mutex_lock(&P->err_lock);
    bool go_on = true;
    if (!P->o->all_errors && rt_shared_stopped(&P->rs)) goto done; /* another worker's error is first */
    if (!keeps_trace(&P->M)) {
        go_on = record_error(&P->M, out, NULL, 0);
        goto done;
    }
    size_t len = (size_t)h->depth + 1;
    explore_step *path = malloc(len * sizeof *path);
    if (!path) {
        rt_shared_stop(&P->rs, STOP_NOMEM);
        go_on = false;
        goto done;
    }
    path[len - 1] = st;
    if (h->depth > 0) path[len - 2] = h->via;
    size_t k = len - 2;
    for (const pnode *n = h->parent; n && n->depth > 0; n = n->parent) path[--k] = n->via;
    go_on = record_error(&P->M, out, path, (uint32_t)len);
    free(path);
done:
    atomic_store_explicit(&P->rs.error_bytes, P->M.lim.error_bytes, memory_order_relaxed);
    if (!go_on) rt_shared_stop(&P->rs, P->M.lim.stop != STOP_COMPLETE ? P->M.lim.stop : STOP_ERROR);
    pthread_mutex_unlock(&P->err_lock);
    return go_on;
}

/* insert_prepared() of search_int.h over the shared set. */
static int par_insert(worker *W, uint8_t *s, step_outcome *out, uint64_t hash, uint32_t *first,
                      uint64_t *n)
{
    search *S = &W->S;
    store_result sr;
    if (S->recent.on && is_recent(S, hash)) {
        sr = STORE_PRESENT;
    } else {
        sr = sstore_insert(W->P->st, s, hash);
        if (S->recent.on) recent_note(S, hash, sr);
    }
    int rc = insert_result(S, s, out, sr, false, first, n);
    if (rc == INS_STOP) rt_shared_stop(&W->P->rs, STOP_NOMEM);
    return rc;
}

static uint64_t par_memory(const par *P)
{
    uint64_t m = sstore_bytes(P->st) + P->buffer_bytes +
                 atomic_load_explicit(&P->rs.error_bytes, memory_order_relaxed);
    for (unsigned i = 0; i < P->n; i++)
        m += atomic_load_explicit(&P->w[i].pub_bytes, memory_order_relaxed);
    return m;
}

/* The progress line: the workers' published counts, summed. */
static void par_progress(par *P, double t)
{
    uint64_t states = 0, trans = 0;
    for (unsigned i = 0; i < P->n; i++) {
        states += atomic_load_explicit(&P->w[i].pub_states, memory_order_relaxed);
        trans += atomic_load_explicit(&P->w[i].pub_transitions, memory_order_relaxed);
    }
    rt_progress_line(P->o->progress, t, states, trans, "%u workers, store %.1f MB", P->n,
                     (double)sstore_bytes(P->st) / 1048576.0);
}

/* Every RT_CHECK_WORK units of work: publish the worker's figures;
 * interrupt, time, memory (the workers' published bytes, summed); worker 0
 * prints the progress line. False when the search stops. */
bool par_limits(worker *W)
{
    par *P = W->P;
    const explore_stats *x = &W->res.stats;
    rt_clock_next(&W->S.lim, search_work(&W->S));
    atomic_store_explicit(&W->pub_states, x->states_stored, memory_order_relaxed);
    atomic_store_explicit(&W->pub_transitions, x->transitions, memory_order_relaxed);
    atomic_store_explicit(&W->pub_bytes, worker_bytes(W), memory_order_relaxed);
    atomic_store_explicit(&W->pub_used, worker_used(W), memory_order_relaxed);
    note_used(P);
    if (rt_shared_stopped(&P->rs)) return false;
    double t = 0;
    stop_reason why = rt_check_time(&P->M.lim, P->o, &t);
    if (why == STOP_COMPLETE && rt_memory_over(P->o, par_memory(P))) why = STOP_MEMLIMIT;
    if (why != STOP_COMPLETE) {
        rt_shared_stop(&P->rs, why);
        return false;
    }
    /* as the sequential look-ahead: prefetching pays only once lookups
     * miss the caches (the instructions it costs are wasted before) */
    if (!W->prefetch && P->o->lookahead != LOOKAHEAD_OFF && sstore_bytes(P->st) > PREFETCH_STORE_BYTES)
        W->prefetch = true;
    if (W->id == 0 && rt_progress_due(&P->M.lim, P->o, t)) par_progress(P, t);
    return true;
}

/* ---- expanding a state ---------------------------------------------------- */

/* A successor built, waiting for its insertion (expand()). */
typedef struct built {
    explore_step st;
    uint32_t from;          /* the item it is a successor of (expand()'s hs[from]) */
    uint64_t hash;
    step_outcome out;
} built;

/* What expand() keeps per item: the node it makes for it (at its first new
 * successor), its new successors, whether one was stored before (--por's
 * proviso). */
typedef struct expanding {
    pnode *me;
    uint32_t kids;
    bool seen;
} expanding;

/* Insert the successors built in W->batch (n of them), in order, the
 * successors of hs[b->from]. False when the search stops. */
static bool insert_batch(worker *W, item_hdr *const *hs, expanding *ex, unsigned n,
                         item_stack *out)
{
    par *P = W->P;
    search *S = &W->S;
    explore_stats *x = &W->res.stats;
    if (W->prefetch)
        for (unsigned k = 0; k < n; k++) sstore_prefetch_entries(P->st, W->batch[k].hash, false);
    for (unsigned k = 0; k < n; k++) {
        built *b = &W->batch[k];
        const item_hdr *h = hs[b->from];
        expanding *e = &ex[b->from];
        uint8_t *ns = W->vecs + (size_t)k * S->wsize;
        x->transitions++;
        uint32_t first = 0;
        uint64_t nfirst = 0;
        int rc = par_insert(W, ns, &b->out, b->hash, &first, &nfirst);
        if (rc == INS_STOP) return false;
        e->seen |= rc == INS_SEEN || b->out.kind != VERDICT_OK; /* an error ends its path */
        if (rc == INS_ERROR && !par_error(W, h, b->st, &b->out)) return false;
        if (rc == INS_NEW) {
            if (!e->me) {
                if (!(e->me = node_new(W))) {
                    rt_shared_stop(&P->rs, STOP_NOMEM);
                    return false;
                }
                e->me->parent = h->parent;
                e->me->via = h->via;
                e->me->depth = h->depth;
            }
            if (!stack_reserve(P, out, out->n + 1)) {
                rt_shared_stop(&P->rs, STOP_NOMEM);
                return false;
            }
            item_hdr *c = item_at(P, out, out->n++);
            *c = (item_hdr){.parent = e->me, .via = b->st, .depth = h->depth + 1,
                            .first = first, .nfirst = nfirst};
            memcpy(item_vec(c), ns, S->wsize);
            e->kids++;
            if (h->depth + 1 > x->max_depth) x->max_depth = h->depth + 1;
        }
        if (!par_limits_ok(W)) return false;
    }
    return true;
}

/* Expand items hs[0 .. m): every successor of each (with --por the
 * persistent set, then every other thread if a successor had been stored
 * before: the proviso), inserted; the new ones go to `out` as items whose
 * parent is their item's node. The successors of the m items are built
 * PAR_BATCH at a time, hashed and (once the store passes
 * PREFETCH_STORE_BYTES, as the sequential look-ahead starts; not with
 * --lookahead=off) their lookups prefetched, then inserted, so that the
 * lookups' cache misses overlap, also where a state has one or two
 * successors (the sequential BFS's batches do the same; with --por one
 * item at a time, whose proviso needs its own insertions first). False
 * when the search stops. */
bool expand(worker *W, item_hdr *const *hs, unsigned m, item_stack *out)
{
    par *P = W->P;
    search *S = &W->S;
    const vm_program *p = S->p;
    explore_stats *x = &W->res.stats;
    const bool use_por = S->por && por_applies(S->por);
    expanding ex[PAR_ITEMS];
    uint64_t enabled = 0, todo = 0;
    unsigned n = 0;
    for (unsigned i = 0; i < m; i++) {
        const item_hdr *h = hs[i];
        const uint8_t *v = item_vec((item_hdr *)h);
        ex[i] = (expanding){0};
        if (P->o->max_depth && h->depth >= P->o->max_depth) {
            if (any_enabled(p, v)) atomic_store_explicit(&P->rs.truncated, true, memory_order_relaxed);
            continue;
        }
        if (use_por) {
            enabled = enabled_mask(p, v);
            todo = por_persistent(S->por, v, enabled);
            if (todo != enabled) x->por_reduced++;
        }
    again:
        for (int32_t t = use_por ? 0 : (int32_t)h->first; t < (int32_t)p->nthreads; t++) {
            if (use_por && !((todo >> t) & 1)) continue;
            uint64_t nc = !use_por && t == (int32_t)h->first ? h->nfirst : vm_enabled(p, v, t);
            for (uint64_t c = 0; c < nc; c++) {
                built *b = &W->batch[n];
                uint8_t *ns = W->vecs + (size_t)n * S->wsize;
                memcpy(ns, v, S->ssize);
                if (!run_step(S, ns, t, c, &b->out)) { /* out of memory, or a limit */
                    rt_shared_stop(&P->rs, S->lim.stop);
                    return false;
                }
                mark_outcome(S, ns, &b->out);
                b->hash = sstore_hash(P->st, ns);
                if (W->prefetch) sstore_prefetch(P->st, b->hash);
                b->st = (explore_step){t, c};
                b->from = i;
                if (++n == PAR_BATCH) {
                    if (!insert_batch(W, hs, ex, n, out)) return false;
                    n = 0;
                }
            }
        }
        if (use_por) {
            if (n && !insert_batch(W, hs, ex, n, out)) return false;
            n = 0;
            if (ex[i].seen && todo != enabled) {
                todo = enabled & ~todo;
                enabled = todo; /* once */
                x->por_proviso++;
                goto again;
            }
        }
    }
    if (n && !insert_batch(W, hs, ex, n, out)) return false;
    /* No other worker sees the new items before this: a dfs stack is
     * handed over between expansions, a bfs level after the barrier. */
    for (unsigned i = 0; i < m; i++) {
        if (ex[i].me) atomic_store_explicit(&ex[i].me->refs, ex[i].kids, memory_order_relaxed);
        else node_release(W, hs[i]->parent);
    }
    return true;
}

/* ---- set up, run, tear down ----------------------------------------------- */

static void worker_free(worker *W)
{
    search *S = &W->S;
    if (W->id != 0) ls_free(S->det);
    free(S->env.fold_undo);
    free(S->ran);
    free(S->recent.slots);
    free(S->scratch);
    por_free(S->por);
    free(W->stack.buf);
    free(W->in.buf);
    free(W->item);
    free(W->starts);
    free(W->succ);
    free(W->batch);
    free(W->vecs);
    for (size_t i = 0; i < W->nslabs; i++) free(W->slabs[i]);
    free(W->slabs);
}

static bool worker_init(par *P, worker *W, unsigned id)
{
    const vm_program *p = P->p;
    const explore_options *o = P->o;
    search *S = &W->S;
    W->P = P;
    W->id = id;
    S->p = p;
    S->o = o;
    S->r = &W->res;
    S->dump_lock = &P->dump_lock;
    if (P->det) {
        S->det = id == 0 ? P->det : ls_clone(P->det);
        if (!S->det) return false;
        ls_hooks(S->det, &S->hooks);
    }
    search_layout(S, 0);
    S->ran = step_ran_new(p);
    search_env(S, &P->M.lim.t0);
    /* the recent-lookup cache holds fingerprints the shared set holds: with
     * the 64-bit compact store a hash equal to one of them is a state seen */
    S->recent.on = o->store.kind == STORE_COMPACT && o->store.fingerprint_bits == 64;
    S->recent.slots = S->recent.on ? calloc(RECENT_SLOTS, sizeof *S->recent.slots) : NULL;
    if (!S->recent.slots) S->recent.on = false;
    S->por = o->por ? por_new(p) : NULL;
    W->item = calloc(PAR_ITEMS, P->isize);
    W->starts = calloc(P->n + 1, sizeof *W->starts);
    W->succ = calloc(1, S->wsize);
    W->batch = malloc(PAR_BATCH * sizeof *W->batch);
    W->vecs = calloc(PAR_BATCH, S->wsize);
    atomic_init(&W->request, REQ_NONE);
    atomic_init(&W->inbox, INBOX_WAIT);
    atomic_init(&W->avail, 0);
    atomic_init(&W->pub_states, 0);
    atomic_init(&W->pub_transitions, 0);
    atomic_init(&W->pub_bytes, 0);
    atomic_init(&W->pub_used, 0);
    return S->ran && W->item && W->starts && W->succ && W->batch && W->vecs && (!o->por || (S->env.fold_undo && S->por));
}

/* The worker's fixed buffers: the recent-lookup cache, the items being
 * expanded, the batch, the level's starts, the initial state's vector. */
static uint64_t worker_buffers(const worker *W)
{
    const par *P = W->P;
    const search *S = &W->S;
    return (S->recent.on ? RECENT_SLOTS * sizeof(uint64_t) : 0) + (uint64_t)PAR_ITEMS * P->isize +
           (P->n + 1) * sizeof(uint64_t) + S->wsize + PAR_BATCH * (sizeof(struct built) + S->wsize);
}

/* The result's statistics: the workers' figures added up. */
static void par_stats(par *P)
{
    explore_result *r = P->r;
    explore_stats *x = &r->stats;
    uint64_t bytes = 0;
    for (unsigned i = 0; i < P->n; i++) {
        const worker *W = &P->w[i];
        const explore_stats *y = &W->res.stats;
        x->states_stored += y->states_stored;
        x->states_matched += y->states_matched;
        x->transitions += y->transitions;
        x->end_states += y->end_states;
        x->instructions += y->instructions;
        x->invisible += y->invisible;
        x->por_reduced += y->por_reduced;
        x->por_proviso += y->por_proviso;
        if (y->max_depth > x->max_depth) x->max_depth = y->max_depth;
        x->detector_seconds += ls_seconds(W->S.det);
        bytes += worker_bytes(W);
        atomic_store_explicit(&P->w[i].pub_used, worker_used(W), memory_order_relaxed);
        r->workers[i] = (explore_worker){.states = y->states_stored,
                                         .transitions = y->transitions,
                                         .idle = W->idle,
                                         .steals = W->steals};
    }
    x->vector_bytes = P->w[0].S.ssize;
    x->store_bytes = sstore_bytes(P->st);
    x->omission = sstore_omission_probability(P->st);
    x->locksets = P->det ? ls_interned(P->det) : 0;
    note_used(P); /* the threads are joined: the figures at the end */
    x->search_reserved = bytes;
    x->search_used = atomic_load(&P->used_peak);
    x->buffer_bytes = P->buffer_bytes;
    x->error_bytes = atomic_load(&P->rs.error_bytes);
    x->search_bytes = x->search_reserved + x->buffer_bytes;
}

/* Free what explore_parallel() made: the first `workers` workers (clones
 * before the detector they were cloned from), the store, the rest. */
static void par_free(par *P, unsigned workers)
{
    for (unsigned i = workers; i-- > 0;) worker_free(&P->w[i]);
    free(P->w);
    sstore_free(P->st);
    ls_free(P->det);
    pthread_mutex_destroy(&P->err_lock);
    pthread_mutex_destroy(&P->dump_lock);
    pthread_mutex_destroy(&P->bar.m);
    pthread_cond_destroy(&P->bar.c);
    free(P);
}

static int explore_parallel(const vm_program *p, const explore_options *o, explore_result *r)
{
    par *P = zalloc_lines(sizeof *P);
    if (!P) goto nomem;
    P->p = p;
    P->o = o;
    P->r = r;
    P->n = o->workers;
    rt_start(&P->M.lim, RT_PROGRESS_FIRST, RT_PROGRESS_EVERY);
    rt_shared_init(&P->rs);
    atomic_init(&P->active, 0);
    atomic_init(&P->next[0], 0);
    atomic_init(&P->next[1], 0);
    atomic_init(&P->go, 0);
    atomic_init(&P->bar.waiting, 0);
    atomic_init(&P->bar.round, 0);
    atomic_init(&P->used_peak, 0);
    pthread_mutex_init(&P->err_lock, NULL);
    pthread_mutex_init(&P->dump_lock, NULL);
    pthread_mutex_init(&P->bar.m, NULL);
    pthread_cond_init(&P->bar.c, NULL);
    P->M.o = o;
    P->M.r = r;
    P->M.p = p;
    bool ok = true;
    if (ls_needed(o->race, p)) ok = (P->det = ls_new_opts(o->race, p, p->layout.size, o->por));
    size_t ssize = p->layout.size + ls_meta_bytes(P->det);
    size_t wsize = (ssize + 1 + 7) & ~(size_t)7;
    P->isize = sizeof(item_hdr) + wsize;
    /* 2^SHARD_BITS shards: two of N workers meet on one lock with odds of
     * about N / 2^SHARD_BITS per insertion */
    if (ok) ok = (P->st = sstore_new(&o->store, ssize + 1, SHARD_BITS));
    if (ok) ok = (P->w = zalloc_lines((size_t)P->n * sizeof *P->w)) &&
                 (r->workers = calloc(P->n, sizeof *r->workers));
    unsigned made = 0; /* workers set up (the last one perhaps in part) */
    for (; ok && made < P->n; made++) ok = worker_init(P, &P->w[made], made);
    if (!ok) goto fail;
    r->nworkers = P->n;
    for (unsigned i = 0; i < P->n; i++) P->buffer_bytes += worker_buffers(&P->w[i]);

    /* the initial state, as explore_run() stores it */
    worker *W0 = &P->w[0];
    search *S0 = &W0->S;
    uint8_t *s0 = W0->succ;
    memcpy(s0, p->init_state, p->layout.size);
    if (P->det) ls_init_meta(P->det, s0);
    step_outcome out = {.kind = VERDICT_OK, .elem = UINT32_MAX};
    int rc = INS_STOP;
    uint32_t first0 = 0;
    uint64_t nfirst0 = 0;
    if (S0->env.fold_start && !step_fold_starts(&S0->env, s0, &W0->res.stats, false)) {
        rt_shared_stop(&P->rs, STOP_NOMEM);
    } else {
        mark_outcome(S0, s0, &out);
        rc = par_insert(W0, s0, &out, sstore_hash(P->st, s0), &first0, &nfirst0);
    }
    if (rc == INS_ERROR) {
        pthread_mutex_lock(&P->err_lock);
        if (!record_error(&P->M, &out, NULL, 0)) rt_shared_stop(&P->rs, P->M.lim.stop);
        pthread_mutex_unlock(&P->err_lock);
    } else if (rc == INS_NEW) {
        item_stack *into = &W0->stack; /* dfs: its stack; bfs: its part of level 0 */
        if (!stack_reserve(P, into, 1)) {
            rt_shared_stop(&P->rs, STOP_NOMEM);
        } else {
            item_hdr *h = item_at(P, into, 0);
            *h = (item_hdr){.parent = NULL, .via = {-1, 0}, .depth = 0, .first = first0,
                            .nfirst = nfirst0};
            memcpy(item_vec(h), s0, S0->wsize);
            into->n = 1;
            atomic_store(&P->active, 1); /* worker 0 holds it */
            atomic_store(&W0->avail, 1);
            P->bar.n = P->n;
            unsigned started = 0;
            for (; started < P->n; started++)
                if (pthread_create(&P->w[started].th, NULL, worker_main, &P->w[started])) break;
            if (started < P->n) rt_shared_stop(&P->rs, STOP_NOMEM); /* those started stop at once */
            atomic_store_explicit(&P->go, started < P->n ? 2 : 1, memory_order_release);
            for (unsigned i = 0; i < started; i++) pthread_join(P->w[i].th, NULL);
        }
    }

    par_stats(P);
    r->stats.shared_elements = 0;
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].cls == VM_SHARED) r->stats.shared_elements += p->vars[v].size;
    r->stats.discharged = ls_discharged(P->det);
    stop_reason stop = (stop_reason)atomic_load(&P->rs.stop);
    if (stop == STOP_COMPLETE && atomic_load(&P->rs.truncated)) stop = STOP_DEPTH;
    rt_result(r, stop, o);
    if (stop == STOP_COMPLETE && o->store.kind != STORE_BITSTATE) {
        /* what any worker ran */
        for (unsigned i = 1; i < P->n; i++)
            for (uint32_t b = 0; b < p->nbodies; b++)
                for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++)
                    W0->S.ran[b][pc] |= P->w[i].S.ran[b][pc];
        collect_unreached(p, W0->S.ran, r);
    }
    search_finish_stats(&r->stats, &P->M.lim.t0);
    if (rt_progress_last(o, r->stats.seconds)) par_progress(P, r->stats.seconds);
    par_free(P, P->n);
    return 0;

fail:
    par_free(P, made);
nomem:
    free(r->workers);
    r->workers = NULL;
    r->nworkers = 0;
    r->stop = STOP_NOMEM;
    r->verdict = VERDICT_INCOMPLETE;
    return -1;
}

static bool parallel_selects(const explore_options *o) { return o->workers != 0; }

static const char *parallel_refuses(const explore_options *o, char *msg, size_t n)
{
    if (o->lookahead != LOOKAHEAD_AUTO && o->lookahead != LOOKAHEAD_OFF) {
        snprintf(msg, n, "--lookahead=%s applies to the sequential search, not to -j",
                 lookahead_mode_name(o->lookahead));
        return msg;
    }
    return NULL;
}

/* It drives its own run: the workers, the shared store (above), over the
 * shared runtime's atomic variant (runtime_int.h). */
const engine engine_parallel = {
    .name = "parallel",
    .selects = parallel_selects,
    .refuses = parallel_refuses,
    .drive = explore_parallel,
};
