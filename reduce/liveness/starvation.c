/* starvation.c: --liveness=starvation (issue 20), the search for an
 * infinite execution in which a thread T is enabled infinitely often and
 * never passes a `progress*` label of its body; with --fair only weakly fair
 * executions count (every thread continuously enabled from some point on
 * takes a step infinitely often, as SPIN's -f). The reachable graph (of
 * composed steps, or single steps with --reduce=none) is built breadth-first
 * and kept explicitly (a vector, the enabled and labelled threads, the edges
 * of each state); then, for each thread T whose body has a progress label,
 * Tarjan's SCC algorithm (SIAM J. Comput. 1, 1972) runs over the graph minus
 * T's progress steps. An SCC C with a cycle is a witness iff T is enabled
 * (and labelled) in a state of C and, with --fair, every thread steps inside
 * C or is disabled in a state of C: a cycle through all those witness
 * points (breadth-first inside C) is then fair, and no cycle in a rejected
 * SCC is (the condition is the one of Emerson and Lei for weak fairness).
 * Under composition a thread blocked only inside another's composed step
 * (on a lock it acquires and releases in its invisible tail) counts as
 * disabled there: the hidden state after the step's first instruction is
 * rebuilt, so --fair gives --reduce=none's verdicts (test_starvation.py).
 * The lasso (stem, cycle) is replayed through the interpreter and checked
 * before it is recorded; mcheck --replay checks a recorded one the same way
 * (starvation_check_lasso()). Not here: on-the-fly search (the graph is built
 * first, memory linear in states and edges; --memlimit counts it),
 * strong fairness, --por, bitstate, BFS order options, -j (its engine
 * refuses them). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* The engine's private context (S->ctx); the graph is the search's local. */
typedef struct sv_ctx {
    uint8_t *check;    /* work vectors of the replay check (2 x wsize) */
} sv_ctx;

#define SV(S) ((sv_ctx *)(S)->ctx)

#define DEAD UINT64_MAX /* map value: an error state, not a node */

typedef struct sv_edge {
    uint32_t dst;
    uint16_t tid;
    uint8_t prog; /* the step executes a progress-labelled instruction */
    uint32_t choice;
} sv_edge;

typedef struct sv_graph {
    uint8_t *vec;      /* state i at i * vsize (freed after the build) */
    uint64_t *bits;    /* state i: nw words enabled, then nw words labelled */
    uint64_t *first;   /* edges of state i: first[i] .. first[i + 1] */
    uint64_t *parent;  /* BFS tree: the parent's index, and the step */
    explore_step *via;
    uint32_t n, cap;
    sv_edge *e;
    uint64_t ne, ecap;
    uint32_t nw;       /* words of a thread bit set */
    hash_map idx;      /* hash of a vector -> index + 1 (or DEAD) */
    bool *labelled;    /* body b has a progress label */
    uint8_t *mid;      /* a work vector: the state after a step's first instruction */
    step_env one;      /* S->env, one instruction a step (REDUCE_NONE) */
    size_t counted;    /* of S->vec_bytes: the graph's arrays and index */
} sv_graph;

/* The bytes the graph holds now (capacities). */
static size_t graph_bytes(const search *S, const sv_graph *g)
{
    return (size_t)g->cap * (S->vsize + 2 * g->nw * sizeof(uint64_t) + 2 * sizeof(uint64_t) +
                             sizeof(explore_step)) +
           (size_t)g->ecap * sizeof(sv_edge) + g->idx.cap * 2 * sizeof(uint64_t);
}

/* Count the graph in S->vec_bytes, which --memlimit counts (search_memory()). */
static void graph_account(search *S, sv_graph *g)
{
    size_t b = graph_bytes(S, g);
    S->vec_bytes += b - g->counted;
    g->counted = b;
}

/* May `extra` more bytes be taken under --memlimit? If not, the search
 * stops there (STOP_MEMLIMIT) with the bytes refused. */
static bool room_for(search *S, size_t extra)
{
    if (!S->o->memlimit || search_memory(S) + extra <= S->o->memlimit) return true;
    S->lim.stop = STOP_MEMLIMIT;
    S->lim.refused = extra;
    return false;
}

/* Thread t runs, in s, a body that has a progress label (it is checked)
 * and stands at a control point where the reduced search schedules it (a
 * visible one, vm_at_visible()): with --reduce=none a thread inside its
 * invisible instructions is not waiting to be scheduled (under composition
 * it has run them in its step already), so both searches count the same
 * states as "T enabled". */
static bool is_labelled(const vm_program *p, const sv_graph *g, const uint8_t *s, int t)
{
    enum vm_tstatus st = vm_tstatus_of(p, s, t);
    return st != VM_T_UNUSED && st != VM_T_ENDED && g->labelled[vm_tbody_index(p, s, t)] &&
           vm_at_visible(p, s, t);
}

static inline bool bit(const uint64_t *w, uint32_t t)
{
    return (w[t / 64] >> (t % 64)) & 1;
}

static bool add_node(search *S, sv_graph *g, const uint8_t *v, uint64_t parent,
                     explore_step via)
{
    if (g->n == UINT32_MAX - 1) goto nomem;
    if (g->n == g->cap) {
        uint32_t nc = g->cap ? 2 * g->cap : 1024;
        if (!room_for(S, (size_t)(nc - g->cap) * (S->vsize + 2 * g->nw * sizeof(uint64_t) +
                                                  2 * sizeof(uint64_t) + sizeof(explore_step))))
            return false;
        uint8_t *nv = realloc(g->vec, (size_t)nc * S->vsize);
        if (!nv) goto nomem;
        g->vec = nv;
        uint64_t *nb = realloc(g->bits, (size_t)nc * 2 * g->nw * sizeof *nb);
        if (!nb) goto nomem;
        g->bits = nb;
        uint64_t *nf = realloc(g->first, ((size_t)nc + 1) * sizeof *nf);
        if (!nf) goto nomem;
        g->first = nf;
        uint64_t *np = realloc(g->parent, (size_t)nc * sizeof *np);
        if (!np) goto nomem;
        g->parent = np;
        explore_step *nvia = realloc(g->via, (size_t)nc * sizeof *nvia);
        if (!nvia) goto nomem;
        g->via = nvia;
        g->cap = nc;
    }
    memcpy(g->vec + (size_t)g->n * S->vsize, v, S->vsize);
    uint64_t *b = g->bits + (size_t)g->n * 2 * g->nw;
    memset(b, 0, 2 * g->nw * sizeof *b);
    for (uint32_t t = 0; t < S->p->nthreads; t++) {
        if (vm_enabled(S->p, v, (int)t)) b[t / 64] |= 1ull << (t % 64);
        if (is_labelled(S->p, g, v, (int)t)) b[g->nw + t / 64] |= 1ull << (t % 64);
    }
    g->parent[g->n] = parent;
    g->via[g->n] = via;
    g->n++;
    bool ok = map_put(S, &g->idx, store_hash64(v, S->vsize), g->n);
    graph_account(S, g);
    return ok;
nomem:
    S->lim.stop = STOP_NOMEM;
    return false;
}

static bool add_edge(search *S, sv_graph *g, sv_edge e)
{
    if (g->ne == g->ecap) {
        uint64_t nc = g->ecap ? 2 * g->ecap : 4096;
        if (!room_for(S, (size_t)(nc - g->ecap) * sizeof(sv_edge))) return false;
        sv_edge *ne = realloc(g->e, (size_t)nc * sizeof *ne);
        if (!ne) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        g->e = ne;
        g->ecap = nc;
        graph_account(S, g);
    }
    g->e[g->ne++] = e;
    return true;
}

/* The BFS tree's path to state i into path[] (room for its depth); its
 * length. */
static uint32_t stem(const sv_graph *g, uint32_t i, explore_step *path)
{
    uint32_t len = 0;
    for (uint64_t k = i; k != 0; k = g->parent[k]) len++;
    uint32_t j = len;
    for (uint64_t k = i; k != 0; k = g->parent[k]) path[--j] = g->via[k];
    return len;
}

static uint32_t depth_of(const sv_graph *g, uint32_t i)
{
    uint32_t len = 0;
    for (uint64_t k = i; k != 0; k = g->parent[k]) len++;
    return len;
}

/* A safety error reached from state i by `last`. */
static bool sv_error(search *S, const sv_graph *g, uint32_t i, explore_step last,
                     const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    explore_step *path = malloc(((size_t)depth_of(g, i) + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    uint32_t n = stem(g, i, path);
    path[n++] = last;
    bool go_on = record_error(S, out, path, n);
    free(path);
    return go_on;
}

/* The reachable graph, breadth-first from S->cur; the safety errors on the
 * way are recorded as the other searches record them. False if the search
 * stopped. */
static bool build(search *S, sv_graph *g)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    if (!add_node(S, g, S->cur, 0, (explore_step){-1, 0})) return false;
    for (uint32_t i = 0; i < g->n; i++) {
        g->first[i] = g->ne;
        memcpy(S->cur, g->vec + (size_t)i * S->vsize, S->vsize);
        for (uint32_t t = 0; t < p->nthreads; t++) {
            uint64_t nc = vm_enabled(p, S->cur, (int)t);
            bool prog = nc && is_progress(p, S->cur, (int)t);
            for (uint64_t c = 0; c < nc; c++) {
                uint8_t *ns = S->dfs.next;
                memcpy(ns, S->cur, S->ssize);
                step_outcome out;
                if (!run_step(S, ns, (int)t, c, &out)) return false;
                x->transitions++;
                uint32_t first;
                uint64_t n;
                explore_step st = {(int32_t)t, c};
                int rc = insert_successor(S, ns, &out, &first, &n);
                if (rc == INS_STOP) return false;
                uint64_t h = store_hash64(ns, S->vsize);
                uint64_t k = map_get(&g->idx, h);
                if (!k && rc == INS_ERROR) { /* an error state: no successors */
                    if (!sv_error(S, g, i, st, &out)) return false;
                    if (!map_put(S, &g->idx, h, DEAD)) return false;
                    continue;
                }
                if (k == DEAD) continue;
                if (!k) {
                    if (!add_node(S, g, ns, i, st)) return false;
                    k = g->n;
                }
                if (!add_edge(S, g, (sv_edge){(uint32_t)(k - 1), (uint16_t)t, prog, (uint32_t)c}))
                    return false;
                if (!limits_ok(S)) return false;
            }
        }
    }
    g->first[g->n] = g->ne;
    return true;
}

/* ---- the SCCs and the lasso ---------------------------------------------- */

typedef struct sv_scc {
    uint32_t *index, *low, *stack, *comp; /* comp: SCC id + 1 of a finished state */
    uint64_t *cursor;                     /* the next edge of a state on the call stack */
    uint32_t *call;
    uint8_t *onstack;
    uint64_t *bfs_pred;                   /* a BFS inside an SCC: the edge into a state */
    uint32_t *bfs_seen, stamp;
    uint32_t *queue;
    uint8_t *mark;                        /* nthreads flags */
} sv_scc;

static inline bool removed(const sv_edge *e, uint32_t T)
{
    return e->tid == T && e->prog;
}

/* The state edge k leaves (binary search over first[]). */
static uint32_t src_of(const sv_graph *g, uint64_t k)
{
    uint32_t lo = 0, hi = g->n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->first[mid] <= k) lo = mid; else hi = mid;
    }
    return lo;
}

/* The steps of a shortest path inside SCC cid (edges not removed) from a
 * to b, appended to path[*len]; the edge indices. */
static void bfs_in(const sv_graph *g, sv_scc *w, uint32_t cid, uint32_t T, uint32_t a,
                   uint32_t b, uint64_t *out, uint32_t *len)
{
    if (a == b) return;
    w->stamp++;
    uint32_t head = 0, tail = 0;
    w->queue[tail++] = a;
    w->bfs_seen[a] = w->stamp;
    while (head < tail) {
        uint32_t v = w->queue[head++];
        for (uint64_t k = g->first[v]; k < g->first[v + 1]; k++) {
            const sv_edge *e = &g->e[k];
            if (removed(e, T) || w->comp[e->dst] != cid || w->bfs_seen[e->dst] == w->stamp)
                continue;
            w->bfs_seen[e->dst] = w->stamp;
            w->bfs_pred[e->dst] = k;
            if (e->dst == b) {
                uint32_t n = 0;
                for (uint32_t u = b; u != a; u = src_of(g, w->bfs_pred[u])) n++;
                uint32_t j = *len + n;
                *len = j;
                for (uint32_t u = b; u != a; u = src_of(g, w->bfs_pred[u])) out[--j] = w->bfs_pred[u];
                return;
            }
            w->queue[tail++] = e->dst;
        }
    }
}

/* --fair under composition: mark in fair[] the threads disabled in the
 * state after the first instruction of step (tid, choice) from s, the
 * hidden state where the step's thread holds a lock it acquired and
 * releases in its invisible tail (later instructions only release locks,
 * end the thread or move waiters to a re-acquire, so no thread is disabled
 * at a later hidden state and enabled here and at both ends). False if the
 * search must stop. */
static bool mid_disabled(search *S, sv_graph *g, const uint8_t *s, int tid, uint64_t choice,
                         uint8_t *fair)
{
    if (S->o->reduce == REDUCE_NONE) return true; /* the step is one instruction */
    memcpy(g->mid, s, S->ssize);
    explore_stats dry = {0};
    step_outcome o;
    if (!step_run(&g->one, g->mid, tid, choice, &o, &dry)) {
        if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_NOMEM;
        return false;
    }
    for (uint32_t u = 0; u < S->p->nthreads; u++)
        if (!vm_enabled(S->p, g->mid, (int)u)) fair[u] = 1;
    return true;
}

/* The replay check of the lasso: every step enabled and error-free; from
 * cycle_start on, T takes no progress step, T is enabled (and labelled) in
 * a state of the cycle, and with --fair every thread steps in the cycle or
 * is disabled in one of its states; the state after the path equals the
 * state after its first cycle_start steps. */
static bool lasso_holds(search *S, sv_graph *g, const explore_step *path, uint32_t len,
                        uint32_t cycle_start, uint32_t T)
{
    const vm_program *p = S->p;
    uint8_t *v = SV(S)->check, *at = SV(S)->check + S->wsize;
    explore_stats dry = {0};
    if (!search_initial(S, v, &dry)) return false;
    uint32_t nt = p->nthreads;
    bool t_enabled = false;
    uint8_t *fair = calloc(nt, 1); /* thread stepped or was disabled in the cycle */
    if (!fair) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    bool ok = false;
    for (uint32_t i = 0; i < len; i++) {
        if (i == cycle_start) memcpy(at, v, S->vsize);
        if (!lasso_can_step(p, v, path[i])) goto out;
        if (i >= cycle_start) {
            if (path[i].tid == (int32_t)T && is_progress(p, v, (int)T)) goto out;
            if (vm_enabled(p, v, (int)T) && is_labelled(p, g, v, (int)T)) t_enabled = true;
            fair[path[i].tid] = 1;
            for (uint32_t u = 0; u < nt; u++)
                if (!vm_enabled(p, v, (int)u)) fair[u] = 1;
            if (S->o->fair && !mid_disabled(S, g, v, path[i].tid, path[i].choice, fair)) goto out;
        }
        if (!lasso_step(S, v, path[i], &dry)) goto out;
    }
    ok = cycle_start < len && memcmp(v, at, S->vsize) == 0 && t_enabled;
    for (uint32_t u = 0; ok && S->o->fair && u < nt; u++)
        if (!fair[u]) ok = false;
out:
    free(fair);
    return ok;
}

/* The error of a lasso lasso_holds() accepted: T starves on the cycle
 * path[start .. n); `at`, a state of it, names T. The search stops. */
static void sv_record(search *S, const explore_step *path, uint32_t n, uint32_t start, uint32_t T,
                      const uint8_t *at)
{
    char name[64];
    vm_thread_name(S->p, at, (int)T, name, sizeof name);
    step_outcome out = {.kind = VERDICT_STARVATION, .cause = CAUSE_STARVATION, .tid = -1,
                        .pc = 0, .body = UINT32_MAX, .elem = UINT32_MAX};
    snprintf(out.msg, sizeof out.msg,
             "starvation: thread %s is enabled infinitely often and never passes its progress "
             "label%s (the cycle is steps %u-%u)", name,
             S->o->fair ? " in a weakly fair execution" : "", start + 1, n);
    uint32_t before = S->r->nerrors;
    record_error(S, &out, path, n);
    if (S->r->nerrors > before) {
        S->r->errors[before].lasso = true;
        S->r->errors[before].cycle_start = start;
        S->r->errors[before].starved = (int32_t)T;
    }
    if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_ERROR;
}

/* SCC cid (its states members[0 .. m)) for thread T: FOUND a witness,
 * recorded; NOT_FOUND; STOPPED. */
enum { FOUND = 1, NOT_FOUND = 0, STOPPED = -1 };

static int check_scc(search *S, sv_graph *g, sv_scc *w, uint32_t cid, uint32_t T,
                     const uint32_t *members, uint32_t m)
{
    const vm_program *p = S->p;
    uint32_t nt = p->nthreads;
    bool cyclic = m > 1;
    int64_t w0 = -1;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t v = members[j];
        const uint64_t *b = g->bits + (size_t)v * 2 * g->nw;
        if (w0 < 0 && bit(b, T) && bit(b + g->nw, T)) w0 = v;
        for (uint64_t k = g->first[v]; !cyclic && k < g->first[v + 1]; k++)
            if (g->e[k].dst == v && !removed(&g->e[k], T)) cyclic = true;
    }
    if (!cyclic || w0 < 0) return NOT_FOUND;
    /* the fairness witnesses: per thread a state where it is disabled (a
     * state index) or a step it takes inside C (an edge index) */
    int64_t *wstate = malloc(nt * sizeof *wstate), *wedge = malloc(nt * sizeof *wedge);
    uint64_t *cyc = NULL;
    explore_step *path = NULL;
    int res = STOPPED;
    if (!wstate || !wedge) goto nomem;
    for (uint32_t u = 0; u < nt; u++) wstate[u] = wedge[u] = -1;
    if (S->o->fair) {
        for (uint32_t j = 0; j < m; j++) {
            uint32_t v = members[j];
            const uint64_t *b = g->bits + (size_t)v * 2 * g->nw;
            for (uint32_t u = 0; u < nt; u++)
                if (!bit(b, u) && wstate[u] < 0) wstate[u] = v;
            for (uint64_t k = g->first[v]; k < g->first[v + 1]; k++) {
                const sv_edge *e = &g->e[k];
                if (!removed(e, T) && w->comp[e->dst] == cid && wedge[e->tid] < 0)
                    wedge[e->tid] = (int64_t)k;
            }
        }
        bool missing = false;
        for (uint32_t u = 0; u < nt; u++) missing |= wstate[u] < 0 && wedge[u] < 0;
        /* a thread disabled only inside another's composed step (the hidden
         * state after its first instruction): that step is its witness */
        for (uint32_t j = 0; missing && j < m; j++) {
            uint32_t v = members[j];
            for (uint64_t k = g->first[v]; missing && k < g->first[v + 1]; k++) {
                const sv_edge *e = &g->e[k];
                if (removed(e, T) || w->comp[e->dst] != cid) continue;
                memset(w->mark, 0, nt);
                if (!mid_disabled(S, g, g->vec + (size_t)v * S->vsize, e->tid, e->choice, w->mark))
                    goto done;
                missing = false;
                for (uint32_t u = 0; u < nt; u++) {
                    if (wstate[u] < 0 && wedge[u] < 0 && w->mark[u]) wedge[u] = (int64_t)k;
                    missing |= wstate[u] < 0 && wedge[u] < 0;
                }
            }
        }
        if (missing) { /* a thread continuously enabled that never steps */
            res = NOT_FOUND;
            goto done;
        }
    }
    /* the cycle: from w0 one step inside C, then to each witness, then back */
    size_t cap = (size_t)(nt + 2) * (2 * (size_t)m + 1);
    cyc = malloc(cap * sizeof *cyc);
    if (!cyc) goto nomem;
    uint32_t len = 0, cur = (uint32_t)w0;
    for (uint64_t k = g->first[cur]; k < g->first[cur + 1]; k++)
        if (!removed(&g->e[k], T) && w->comp[g->e[k].dst] == cid) {
            cyc[len++] = k;
            cur = g->e[k].dst;
            break;
        }
    for (uint32_t u = 0; S->o->fair && u < nt; u++) {
        if (wstate[u] >= 0) {
            bfs_in(g, w, cid, T, cur, (uint32_t)wstate[u], cyc, &len);
            cur = (uint32_t)wstate[u];
        } else {
            uint32_t src = src_of(g, (uint64_t)wedge[u]);
            bfs_in(g, w, cid, T, cur, src, cyc, &len);
            cyc[len++] = (uint64_t)wedge[u];
            cur = g->e[wedge[u]].dst;
        }
    }
    bfs_in(g, w, cid, T, cur, (uint32_t)w0, cyc, &len);
    uint32_t sl = depth_of(g, (uint32_t)w0);
    path = malloc(((size_t)sl + len) * sizeof *path);
    if (!path) goto nomem;
    uint32_t start = stem(g, (uint32_t)w0, path);
    for (uint32_t j = 0; j < len; j++)
        path[start + j] = (explore_step){g->e[cyc[j]].tid, g->e[cyc[j]].choice};
    uint32_t n = start + len;
    if (!lasso_holds(S, g, path, n, start, T)) {
        if (S->lim.stop != STOP_COMPLETE) goto done;
        S->r->stats.cycles_rejected++;
        res = NOT_FOUND;
        goto done;
    }
    sv_record(S, path, n, start, T, g->vec ? g->vec + (size_t)w0 * S->vsize : S->cur);
    res = FOUND;
    goto done;
nomem:
    S->lim.stop = STOP_NOMEM;
done:
    free(wstate);
    free(wedge);
    free(cyc);
    free(path);
    return res;
}

/* Tarjan's algorithm (iterative) over the graph minus T's progress steps;
 * each SCC is checked as it is completed. */
static int tarjan(search *S, sv_graph *g, sv_scc *w, uint32_t T, uint32_t *cid)
{
    uint32_t n = g->n, counter = 0, sp = 0;
    memset(w->index, 0, (size_t)n * sizeof *w->index);
    memset(w->comp, 0, (size_t)n * sizeof *w->comp);
    memset(w->onstack, 0, n);
    for (uint32_t root = 0; root < n; root++) {
        if (w->index[root]) continue;
        uint32_t depth = 0;
        w->call[depth++] = root;
        w->index[root] = w->low[root] = ++counter;
        w->cursor[root] = g->first[root];
        w->stack[sp++] = root;
        w->onstack[root] = 1;
        while (depth) {
            uint32_t v = w->call[depth - 1];
            if (w->cursor[v] < g->first[v + 1]) {
                const sv_edge *e = &g->e[w->cursor[v]++];
                if (removed(e, T)) continue;
                uint32_t d = e->dst;
                if (!w->index[d]) {
                    w->index[d] = w->low[d] = ++counter;
                    w->cursor[d] = g->first[d];
                    w->stack[sp++] = d;
                    w->onstack[d] = 1;
                    w->call[depth++] = d;
                } else if (w->onstack[d] && w->index[d] < w->low[v]) {
                    w->low[v] = w->index[d];
                }
                continue;
            }
            depth--;
            if (depth) {
                uint32_t u = w->call[depth - 1];
                if (w->low[v] < w->low[u]) w->low[u] = w->low[v];
            }
            if (w->low[v] != w->index[v]) continue;
            uint32_t lo = sp; /* the SCC: the stack above v, v included */
            do {
                lo--;
                w->onstack[w->stack[lo]] = 0;
            } while (w->stack[lo] != v);
            ++*cid;
            for (uint32_t j = lo; j < sp; j++) w->comp[w->stack[j]] = *cid;
            int rc = check_scc(S, g, w, *cid, T, w->stack + lo, sp - lo);
            sp = lo;
            if (rc != NOT_FOUND) return rc;
            if (!limits_ok(S)) return STOPPED;
        }
    }
    return NOT_FOUND;
}

/* What lasso_holds() needs besides the graph: the bodies with a progress
 * label, the work vectors, the one-instruction environment. False: no
 * memory (S->lim.stop says so); g's arrays are freed by the caller. */
static bool sv_setup(search *S, sv_graph *g)
{
    const vm_program *p = S->p;
    g->nw = (p->nthreads + 63) / 64;
    g->labelled = calloc(p->nbodies ? p->nbodies : 1, sizeof *g->labelled);
    SV(S)->check = malloc(2 * S->wsize);
    g->mid = calloc(1, S->wsize);
    g->one = S->env;
    g->one.reduce = REDUCE_NONE;
    if (!g->labelled || !SV(S)->check || !g->mid) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++)
            if (p->bodies[b].code[pc].progress_label) g->labelled[b] = true;
    return true;
}

static void liveness_starvation(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    const vm_program *p = S->p;
    sv_graph g;
    sv_scc w;
    memset(&g, 0, sizeof g);
    memset(&w, 0, sizeof w);
    if (!sv_setup(S, &g)) goto out;
    if (!build(S, &g) || S->lim.stop != STOP_COMPLETE) goto out;
    if (S->r->nerrors && !S->o->all_errors) goto out;
    uint32_t n = g.n;
    /* the SCC search's arrays: 7 words and 2 bytes a state (see below) */
    size_t work = (size_t)n * (sizeof *w.index + sizeof *w.low + sizeof *w.stack + sizeof *w.comp +
                               sizeof *w.call + sizeof *w.cursor + 1 + sizeof *w.bfs_pred +
                               sizeof *w.bfs_seen + sizeof *w.queue);
    if (!room_for(S, work)) goto out;
    S->vec_bytes += work;
    w.index = malloc((size_t)n * sizeof *w.index);
    w.low = malloc((size_t)n * sizeof *w.low);
    w.stack = malloc((size_t)n * sizeof *w.stack);
    w.comp = malloc((size_t)n * sizeof *w.comp);
    w.call = malloc((size_t)n * sizeof *w.call);
    w.cursor = malloc((size_t)n * sizeof *w.cursor);
    w.onstack = malloc(n);
    w.bfs_pred = malloc((size_t)n * sizeof *w.bfs_pred);
    w.bfs_seen = calloc(n, sizeof *w.bfs_seen);
    w.queue = malloc((size_t)n * sizeof *w.queue);
    w.mark = malloc(p->nthreads ? p->nthreads : 1);
    if (!w.mark || !w.index || !w.low || !w.stack || !w.comp || !w.call || !w.cursor || !w.onstack ||
        !w.bfs_pred || !w.bfs_seen || !w.queue) {
        S->lim.stop = STOP_NOMEM;
        goto out;
    }
    uint32_t cid = 0;
    for (uint32_t T = 0; T < p->nthreads && S->lim.stop == STOP_COMPLETE; T++) {
        bool checked = false; /* T runs a labelled body in some state */
        for (uint32_t v = 0; v < n && !checked; v++)
            checked = bit(g.bits + (size_t)v * 2 * g.nw + g.nw, T);
        if (!checked) continue;
        S->r->stats.starvation_checks++;
        if (tarjan(S, &g, &w, T, &cid) != NOT_FOUND) break;
    }
    S->r->stats.sccs = cid;
out:
    free(g.vec);
    free(g.bits);
    free(g.first);
    free(g.parent);
    free(g.via);
    free(g.e);
    free(g.idx.key);
    free(g.idx.val);
    free(g.labelled);
    free(w.index);
    free(w.low);
    free(w.stack);
    free(w.comp);
    free(w.call);
    free(w.cursor);
    free(w.onstack);
    free(w.bfs_pred);
    free(w.bfs_seen);
    free(w.queue);
    free(w.mark);
    free(g.mid);
}

/* mcheck --replay: the recorded lasso (explore_options.check_lasso), checked
 * by lasso_holds() as the search checks its own, recorded if it holds. */
static void starvation_check_lasso(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    const explore_lasso *l = S->o->check_lasso;
    sv_graph g;
    memset(&g, 0, sizeof g);
    if (sv_setup(S, &g) && l->starved >= 0 && (uint32_t)l->starved < S->p->nthreads &&
        l->cycle_start < l->len) {
        if (lasso_holds(S, &g, l->path, l->len, l->cycle_start, (uint32_t)l->starved))
            sv_record(S, l->path, l->len, l->cycle_start, (uint32_t)l->starved,
                      SV(S)->check + S->wsize);
        else if (S->lim.stop == STOP_COMPLETE)
            S->r->stats.cycles_rejected++;
    }
    free(g.labelled);
    free(g.mid);
}

static void sv_free(search *S) { free(SV(S)->check); }

static bool starvation_selects(const explore_options *o)
{
    return o->liveness == LIVENESS_STARVATION;
}

static const char *starvation_refuses(const explore_options *o, char *msg, size_t n)
{
    if (o->por)
        return "--liveness=starvation cannot be used with --por: a persistent set "
               "postpones the threads independent of it, and whether each thread is "
               "enabled, which any step may change, is what starvation is about "
               "(composition alone is sound: docs/usage.md)";
    if (o->search != SEARCH_DFS) {
        snprintf(msg, n, "--liveness=starvation builds the whole reachable graph: it cannot be "
                         "used with --search=%s", search_order_name(o->search));
        return msg;
    }
    if (o->workers) return "--liveness=starvation is sequential: it cannot be used with -j";
    if (o->store.kind == STORE_BITSTATE)
        return "--liveness=starvation cannot be used with --store=bitstate (a missed "
               "state could hide a cycle); use compact or exact";
    if (o->max_depth)
        return "--liveness=starvation builds the whole reachable graph: it cannot be "
               "used with --max-depth";
    if (o->liveness_test_bits) return "--liveness-test-bits applies to --liveness=npc";
    return NULL;
}

static void starvation_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    (void)o;
    const explore_stats *x = &r->stats;
    stats_row(k, STATS_SEARCH, "starvation", "%" PRIu64 " thread%s checked, %" PRIu64
              " SCCs completed", x->starvation_checks, x->starvation_checks == 1 ? "" : "s",
              x->sccs);
    stats_count(k, STATS_SEARCH, "threads_checked", x->starvation_checks);
    stats_count(k, STATS_SEARCH, "sccs", x->sccs);
    stats_count(k, STATS_SEARCH, "cycles_rejected", x->cycles_rejected);
}

/* The copy byte of --liveness follows the stored vector (always 0 here). */
const engine engine_starvation = {
    .name = "starvation",
    .selects = starvation_selects,
    .refuses = starvation_refuses,
    .product_bytes = 1,
    .depth_first = true,
    .ctx_size = sizeof(sv_ctx),
    .run = liveness_starvation,
    .free_ctx = sv_free,
    .rows = starvation_rows,
};

static bool starvation_lasso_selects(const explore_options *o)
{
    return o->check_lasso && o->liveness == LIVENESS_STARVATION;
}

/* mcheck --replay: a saved lasso checked, no search. */
const engine engine_starvation_lasso = {
    .name = "starvation-lasso",
    .selects = starvation_lasso_selects,
    .refuses = starvation_refuses,
    .product_bytes = 1,
    .depth_first = true,
    .ctx_size = sizeof(sv_ctx),
    .run = starvation_check_lasso,
    .free_ctx = sv_free,
    .rows = starvation_rows,
};
