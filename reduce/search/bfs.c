/* bfs.c: the breadth-first search, for shortest traces. The queue keeps
 * every state's parent link and step (24 bytes), and the vectors of only
 * the level being expanded and the next one. Successors are composed steps
 * (step_int.h), inserted into the store (search_int.h). Without a detector
 * and with a store that takes the hash, it expands states in batches that
 * prefetch their lookups (speed only: the same states, counts and traces as
 * the plain loop, which --lookahead=off selects). Not a parallel or
 * distributed BFS (Stern and Dill's would partition the queue). */
#include <stdlib.h>
#include <string.h>

#include "bfs_int.h"
#include "por_int.h"

bool bfs_push(search *S, const uint8_t *s, uint64_t parent, const explore_step *via,
              bool enforce)
{
    bfs_queue *q = BFSQ(S);
    if (q->len - q->base == q->vcap) {
        uint64_t nc = grown_capacity(S, q->vcap, q->vcap + 1, S->vsize, (size_t)4 << 20, 1024,
                                     enforce);
        if (!nc) return false;
        uint8_t *ns = realloc(q->states, (size_t)nc * S->vsize);
        if (!ns) goto nomem;
        q->states = ns;
        q->vcap = nc;
    }
    if (q->len == q->cap) {
        uint64_t nc = grown_capacity(S, q->cap, q->len + 1,
                                     sizeof(uint64_t) + sizeof(explore_step),
                                     (size_t)4 << 20, 1024, enforce);
        if (!nc) return false;
        /* the arrays may end up with different sizes; cap is the smallest */
        uint64_t *np = realloc(q->parent, (size_t)nc * sizeof *np);
        if (!np) goto nomem;
        q->parent = np;
        explore_step *nv = realloc(q->via, (size_t)nc * sizeof *nv);
        if (!nv) goto nomem;
        q->via = nv;
        q->cap = nc;
    }
    memcpy(queue_vec(q, S->vsize, q->len), s, S->vsize);
    q->parent[q->len] = parent;
    q->via[q->len] = *via;
    q->len++;
    if (q->len - q->base > q->vpeak) q->vpeak = q->len - q->base;
    return true;
nomem:
    S->lim.stop = STOP_NOMEM;
    return false;
}

/* Record an error reached from queue entry `at` by `last`; its path is read
 * off the parent links. */
static bool bfs_error(search *S, uint64_t at, const explore_step *last,
                      const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    uint32_t len = 0;
    for (uint64_t i = at; i != 0; i = BFSQ(S)->parent[i]) len++;
    explore_step *path = malloc((len + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    uint32_t k = len;
    for (uint64_t i = at; i != 0; i = BFSQ(S)->parent[i]) path[--k] = BFSQ(S)->via[i];
    path[len] = *last;
    bool go_on = record_error(S, out, path, len + 1);
    free(path);
    return go_on;
}

/* BFS in batches: the successors of consecutive states of one level are
 * built, hashed and their store lookups prefetched, BFS_BATCH at a time,
 * then inserted in the order the plain loop inserts them, so that a batch's
 * lookups wait for memory together rather than one after another. Nothing
 * but time changes: the same states in the same queue order, the same
 * counts, errors and traces (a batch never spans two levels, so each
 * state's level is known before its batch is built; steps built but not
 * inserted because the search stopped are taken back from the count of
 * instructions). Without a detector and with a store that takes the hash,
 * like the DFS look-ahead; --lookahead=off turns it off too. Search time,
 * --reduce=none, against the plain loop, runs taken in turn: philosophers
 * N=5 (4.4M states) 0.72-0.77x, prodcons_monitor ITEMS=2000 0.73x; at N=5
 * batches of 8 took 1.15x the time of batches of 32, and of 128 0.97x. */
#ifndef BFS_BATCH
#define BFS_BATCH 32
#endif

typedef struct bfs_slot {
    uint64_t parent;       /* queue index of the state it is a successor of */
    explore_step st;
    uint64_t hash;
    uint64_t instructions; /* counted for it */
    step_outcome out;
} bfs_slot;

/* Builds the successors of queue states i, i + 1, ... (up to level_end)
 * into the batch while they fit, whole states only; returns the first state
 * not built (i if even state i's successors do not fit). */
static uint64_t bfs_fill(search *S, bfs_slot *slots, uint8_t *vecs, uint64_t i,
                         uint64_t level_end, unsigned *nb)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    const bfs_queue *q = BFSQ(S);
    uint64_t nt[VM_MAX_THREADS];
    unsigned n = 0;
    for (; i < q->len && i < level_end; i++) {
        const uint8_t *from = queue_vec(q, S->vsize, i);
        uint64_t total = 0;
        for (uint32_t t = 0; t < p->nthreads; t++) total += nt[t] = vm_enabled(p, from, (int)t);
        if (total > BFS_BATCH - n) break;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            for (uint64_t c = 0; c < nt[t]; c++) {
                bfs_slot *b = &slots[n];
                uint8_t *v = vecs + (size_t)n * S->wsize;
                uint64_t i0 = x->instructions;
                memcpy(v, from, S->ssize);
                if (!run_step(S, v, (int)t, c, &b->out)) { /* a limit in the step: v half-run */
                    *nb = n;
                    return i;
                }
                mark_outcome(S, v, &b->out);
                b->hash = store_hash(S->st, v);
                store_prefetch_index(S->st, b->hash);
                b->parent = i;
                b->st = (explore_step){(int32_t)t, c};
                b->instructions = x->instructions - i0;
                n++;
            }
        }
    }
    for (unsigned k = 0; k < n; k++) store_prefetch(S->st, slots[k].hash, false);
    *nb = n;
    return i;
}

/* Inserts the batch in order; false if the search stops. */
static bool bfs_drain(search *S, bfs_slot *slots, uint8_t *vecs, unsigned nb)
{
    explore_stats *x = &S->r->stats;
    for (unsigned k = 0; k < nb; k++) {
        bfs_slot *b = &slots[k];
        uint8_t *v = vecs + (size_t)k * S->wsize;
        if (k && b->parent != slots[k - 1].parent && S->o->max_states &&
            x->states_stored >= S->o->max_states) {
            /* explore_shorten()'s bound, checked before each state's
             * successors as the plain loop does: the same count either way */
            S->lim.stop = STOP_STATELIMIT;
            for (; k < nb; k++) x->instructions -= slots[k].instructions; /* not taken */
            return false;
        }
        x->transitions++;
        uint32_t first;
        uint64_t nfirst;
        int rc = insert_prepared(S, v, &b->out, b->hash, true, is_recent(S, b->hash), false,
                                 &first, &nfirst);
        bool go_on = rc != INS_STOP &&
                     (rc != INS_ERROR || bfs_error(S, b->parent, &b->st, &b->out)) &&
                     (rc != INS_NEW || bfs_push(S, v, b->parent, &b->st, true)) && limits_ok(S);
        if (!go_on) {
            for (k++; k < nb; k++) x->instructions -= slots[k].instructions; /* not taken */
            return false;
        }
    }
    return true;
}

static void bfs(search *S, uint32_t first_, uint64_t n_)
{
    (void)first_;
    (void)n_;
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    bfs_queue *q = BFSQ(S);
    uint8_t *ns = S->cur; /* the initial state, then each successor being built */
    explore_step none = {-1, 0};
    if (!bfs_push(S, S->cur, 0, &none, false)) return;
    bfs_slot *slots = NULL;
    uint8_t *vecs = NULL;
    size_t batch_bytes = BFS_BATCH * (sizeof *slots + S->wsize);
    if (!S->det && !S->por && S->recent.on && S->o->lookahead != LOOKAHEAD_OFF &&
        (!S->o->memlimit || search_memory(S) + batch_bytes <= S->o->memlimit)) {
        slots = malloc(BFS_BATCH * sizeof *slots);
        vecs = malloc(BFS_BATCH * S->wsize);
        if (slots && vecs) {
            S->vec_bytes += batch_bytes;
        } else {
            free(slots);
            free(vecs);
            slots = NULL;
        }
    }
    uint64_t level_end = 1, level = 0;
    for (uint64_t i = 0; i < q->len && S->lim.stop == STOP_COMPLETE;) {
        if (i == level_end) {
            /* the level before is done: its vectors go */
            memmove(q->states, queue_vec(q, S->vsize, i), (size_t)(q->len - i) * S->vsize);
            q->base = i;
            level++;
            level_end = q->len;
            if (level > x->max_depth) x->max_depth = level;
        }
        if (S->o->max_depth && level >= S->o->max_depth) {
            if (any_enabled(p, queue_vec(q, S->vsize, i))) S->lim.truncated = true;
            i++;
            continue;
        }
        if (S->o->max_states && x->states_stored >= S->o->max_states) { /* explore_shorten() */
            S->lim.stop = STOP_STATELIMIT;
            break;
        }
        if (slots) {
            unsigned nb;
            uint64_t next = bfs_fill(S, slots, vecs, i, level_end, &nb);
            if (S->lim.stop != STOP_COMPLETE) break; /* a limit inside a step */
            if (next > i) { /* else state i alone has more successors than a batch */
                if (!bfs_drain(S, slots, vecs, nb)) break;
                i = next;
                continue;
            }
        }
        /* --por: the persistent set first, then (the proviso) every other
         * thread if one of its successors had been seen before: on every
         * cycle the state whose step closes it is expanded fully */
        uint64_t enabled = 0, todo = 0;
        bool use_por = S->por && por_applies(S->por), seen = false;
        if (use_por) {
            enabled = enabled_mask(p, queue_vec(q, S->vsize, i));
            todo = por_persistent(S->por, queue_vec(q, S->vsize, i), enabled);
            if (todo != enabled) x->por_reduced++;
        }
    again:
        for (int32_t t = 0; t < (int32_t)p->nthreads && S->lim.stop == STOP_COMPLETE; t++) {
            if (use_por && !((todo >> t) & 1)) continue;
            uint64_t n = vm_enabled(p, queue_vec(q, S->vsize, i), t);
            for (uint64_t c = 0; c < n; c++) {
                explore_step st = {t, c};
                memcpy(ns, queue_vec(q, S->vsize, i), S->ssize); /* queue may move */
                step_outcome out;
                if (!run_step(S, ns, t, c, &out)) break;
                x->transitions++;
                uint32_t first;
                uint64_t nfirst;
                int rc = insert_successor(S, ns, &out, &first, &nfirst);
                if (rc == INS_STOP) break;
                seen |= rc == INS_SEEN || out.kind != VERDICT_OK; /* an error ends its path */
                if (rc == INS_ERROR && !bfs_error(S, i, &st, &out)) break;
                if (rc == INS_NEW && !bfs_push(S, ns, i, &st, true)) break;
                if (!limits_ok(S)) break;
            }
        }
        if (use_por && seen && todo != enabled && S->lim.stop == STOP_COMPLETE) {
            todo = enabled & ~todo;
            enabled = todo; /* once */
            x->por_proviso++;
            goto again;
        }
        i++;
    }
    /* the batch stays in S->vec_bytes: the statistics show the buffers the
     * search held (and --memlimit counted) */
    free(slots);
    free(vecs);
}

static void bfs_free(search *S)
{
    bfs_queue *q = BFSQ(S);
    free(q->states);
    free(q->parent);
    free(q->via);
}

static uint64_t bfs_reserved(const search *S)
{
    const bfs_queue *q = BFSQ(S);
    return q->cap * (sizeof(uint64_t) + sizeof(explore_step)) + q->vcap * S->vsize;
}

/* every queued state's link and the most level vectors held at once */
static uint64_t bfs_used(const search *S, uint64_t levels)
{
    (void)levels;
    const bfs_queue *q = BFSQ(S);
    return q->len * (sizeof(uint64_t) + sizeof(explore_step)) + q->vpeak * S->vsize;
}

static bool bfs_selects(const explore_options *o) { return o->search == SEARCH_BFS; }

const engine engine_bfs = {
    .name = "bfs",
    .selects = bfs_selects,
    .ctx_size = sizeof(bfs_queue),
    .run = bfs,
    .free_ctx = bfs_free,
    .reserved = bfs_reserved,
    .used = bfs_used,
};
