/* starvation.c: --liveness=starvation (issue 20), the search for an
 * infinite execution in which a thread T is enabled infinitely often and
 * never passes a `progress*` label of its body, over the reachable graph
 * starvation_graph.c keeps (composed steps, or single steps with
 * --reduce=none). For each checked thread T (every thread whose body has a
 * progress label, or only --starved T), Tarjan's SCC algorithm (SIAM J.
 * Comput. 1, 1972) runs over the graph minus T's progress steps, and an SCC
 * C with a cycle and a state where T is enabled (and labelled) is a witness
 * when fairness allows:
 *  - no --fair: always (SPIN's -l without -f);
 *  - --fair=weak (SPIN's -f): every thread steps inside C or is disabled in
 *    a state of C (Emerson and Lei's condition, "Modalities for model
 *    checking", Sci. Comput. Program. 8, 1987); under composition a thread
 *    blocked only inside another's composed step (on a lock it acquires and
 *    releases in its invisible tail) counts as disabled there: the hidden
 *    state after the step's first instruction is rebuilt, so --fair=weak
 *    gives --reduce=none's verdicts;
 *  - --fair=strong (compassion, the default of --fair): every thread enabled
 *    in a state of the cycle steps in it, TLA+'s SF per thread (a thread at
 *    an `acquire` has that one step, so this is SF of each acquire, what a
 *    user of locks expects: a lock free infinitely often is eventually
 *    taken by its waiter). Weak fairness lets a thread that an `acquire`
 *    disables now and then wait for ever, so every lock loop "starves"
 *    (tests/liveness/starvation/arbiter_rr.bc). The check is the Streett
 *    refinement of Emerson and Lei (also Lichtenstein and Pnueli, POPL 1985):
 *    if a thread is enabled in C and never steps inside C, no fair cycle
 *    passes a state where it is enabled; those states are removed, the SCCs
 *    of the rest computed (sub_tarjan()) and checked again, each round
 *    removing one thread for good. Hidden states add nothing here: a thread
 *    enabled inside a composed step (later instructions only release locks)
 *    is enabled at its end, a stored state.
 * A cycle through every witness point (a step of each thread, or a state
 * where it is disabled) is then built by breadth-first searches inside C.
 * The lasso (stem, cycle) is replayed through the interpreter and checked,
 * fairness included, before it is recorded; mcheck --replay checks a
 * recorded one the same way (starvation_check_lasso()). --por is refused:
 * whether each thread is enabled, which any step may change, is what every
 * fairness condition and starvation itself read, so a persistent set may
 * drop exactly the states that decide them. Not here: on-the-fly search
 * (the graph is built first, memory linear in states and edges; --memlimit
 * counts it), bitstate, BFS order options, -j (the engine refuses them). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starvation_int.h"

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
    /* --fair=strong: Tarjan's algorithm again inside an SCC (sub_tarjan()) */
    uint32_t *index2, *low2, *stack2, *call2;
    uint64_t *cursor2;
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
/* The replay check of the lasso: every step enabled and error-free; from
 * cycle_start on, T takes no progress step, T is enabled (and labelled) in
 * a state of the cycle; with --fair=weak every thread steps in the cycle or
 * is disabled in one of its states (hidden ones included), with
 * --fair=strong every thread enabled in one of its states steps in it; the
 * state after the path equals the state after its first cycle_start steps. */
static bool lasso_holds(search *S, sv_graph *g, const explore_step *path, uint32_t len,
                        uint32_t cycle_start, uint32_t T)
{
    enum { STEPPED = 1, DISABLED = 2, ENABLED = 4 };
    const vm_program *p = S->p;
    uint8_t *v = SV(S)->check, *at = SV(S)->check + S->wsize;
    explore_stats dry = {0};
    if (!search_initial(S, v, &dry)) return false;
    uint32_t nt = p->nthreads;
    bool t_enabled = false;
    uint8_t *seen = calloc(nt, 1); /* per thread, what the cycle did: STEPPED ... */
    uint8_t *hidden = calloc(nt, 1); /* disabled in a hidden state of the cycle */
    if (!seen || !hidden) {
        S->lim.stop = STOP_NOMEM;
        free(seen);
        free(hidden);
        return false;
    }
    bool ok = false;
    for (uint32_t i = 0; i < len; i++) {
        if (i == cycle_start) memcpy(at, v, S->vsize);
        if (!lasso_can_step(p, v, path[i])) goto out;
        if (i >= cycle_start) {
            if (path[i].tid == (int32_t)T && is_progress(p, v, (int)T)) goto out;
            if (vm_enabled(p, v, (int)T) && sv_is_labelled(p, g, v, (int)T)) t_enabled = true;
            seen[path[i].tid] |= STEPPED;
            for (uint32_t u = 0; u < nt; u++)
                seen[u] |= vm_enabled(p, v, (int)u) ? ENABLED : DISABLED;
            if (S->o->fair == FAIR_WEAK &&
                !sv_mid_disabled(S, g, v, path[i].tid, path[i].choice, hidden))
                goto out;
        }
        if (!lasso_step(S, v, path[i], &dry)) goto out;
    }
    ok = cycle_start < len && memcmp(v, at, S->vsize) == 0 && t_enabled;
    for (uint32_t u = 0; ok && u < nt; u++) {
        if (S->o->fair == FAIR_WEAK && !(seen[u] & (STEPPED | DISABLED)) && !hidden[u]) ok = false;
        if (S->o->fair == FAIR_STRONG && (seen[u] & ENABLED) && !(seen[u] & STEPPED)) ok = false;
    }
out:
    free(seen);
    free(hidden);
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
             S->o->fair == FAIR_STRONG ? " in a strongly fair execution"
             : S->o->fair == FAIR_WEAK ? " in a weakly fair execution" : "", start + 1, n);
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

static int witness(search *S, sv_graph *g, sv_scc *w, uint32_t cid, uint32_t T,
                   const uint32_t *members, uint32_t m)
{
    const vm_program *p = S->p;
    uint32_t nt = p->nthreads;
    bool cyclic = m > 1;
    int64_t w0 = -1;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t v = members[j];
        const uint64_t *b = g->bits + (size_t)v * 2 * g->nw;
        if (g->acc) { /* a product: an accepting node */
            if (w0 < 0 && g->acc[v]) w0 = v;
        } else if (w0 < 0 && bit(b, T) && bit(b + g->nw, T)) w0 = v;
        for (uint64_t k = g->first[v]; !cyclic && k < g->first[v + 1]; k++)
            if (g->e[k].dst == v && !removed(&g->e[k], T)) cyclic = true;
    }
    if (!cyclic || w0 < 0) return NOT_FOUND;
    /* the fairness witnesses: per thread a state where it is disabled (a
     * state index; weak fairness only) or a step it takes inside C (an edge
     * index; strong: of every thread that steps in C, which strong_scc()
     * made every thread enabled in C) */
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
            for (uint32_t u = 0; S->o->fair == FAIR_WEAK && u < nt; u++)
                if (!bit(b, u) && wstate[u] < 0) wstate[u] = v;
            for (uint64_t k = g->first[v]; k < g->first[v + 1]; k++) {
                const sv_edge *e = &g->e[k];
                if (!removed(e, T) && e->tid != SV_NOSTEP && w->comp[e->dst] == cid &&
                    wedge[e->tid] < 0)
                    wedge[e->tid] = (int64_t)k;
            }
        }
        bool missing = false;
        for (uint32_t u = 0; S->o->fair == FAIR_WEAK && u < nt; u++)
            missing |= wstate[u] < 0 && wedge[u] < 0;
        /* a thread disabled only inside another's composed step (the hidden
         * state after its first instruction): that step is its witness */
        for (uint32_t j = 0; missing && j < m; j++) {
            uint32_t v = members[j];
            for (uint64_t k = g->first[v]; missing && k < g->first[v + 1]; k++) {
                const sv_edge *e = &g->e[k];
                if (removed(e, T) || e->tid == SV_NOSTEP || w->comp[e->dst] != cid) continue;
                memset(w->mark, 0, nt);
                if (!sv_mid_disabled(S, g, g->vec + (size_t)v * S->vsize, e->tid, e->choice, w->mark))
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
        } else if (wedge[u] >= 0) {
            uint32_t src = src_of(g, (uint64_t)wedge[u]);
            bfs_in(g, w, cid, T, cur, src, cyc, &len);
            cyc[len++] = (uint64_t)wedge[u];
            cur = g->e[wedge[u]].dst;
        }
    }
    bfs_in(g, w, cid, T, cur, (uint32_t)w0, cyc, &len);
    if (g->found) { /* a product: its own lasso and check */
        res = g->found(S, g, (uint32_t)w0, cyc, len);
        goto done;
    }
    uint32_t sl = sv_depth_of(g, (uint32_t)w0);
    path = malloc(((size_t)sl + len) * sizeof *path);
    if (!path) goto nomem;
    uint32_t start = sv_stem(g, (uint32_t)w0, path);
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

/* --fair=strong: Tarjan's algorithm over the states X[0 .. m) whose comp is
 * `sub` (the edges not removed and inside them). Each SCC found gets a new
 * id (++*cid) in comp, its states go to out[] one SCC after another, and
 * ends[j] is the end of SCC j in out[]; returns their number. */
static uint32_t sub_tarjan(const sv_graph *g, sv_scc *w, uint32_t T, uint32_t sub,
                           const uint32_t *X, uint32_t m, uint32_t *out, uint32_t *ends,
                           uint32_t *cid)
{
    uint32_t counter = 0, sp = 0, nout = 0, nscc = 0;
    for (uint32_t j = 0; j < m; j++) w->index2[X[j]] = 0;
    for (uint32_t r = 0; r < m; r++) {
        uint32_t root = X[r];
        if (w->comp[root] != sub || w->index2[root]) continue;
        uint32_t depth = 0;
        w->call2[depth++] = root;
        w->index2[root] = w->low2[root] = ++counter;
        w->cursor2[root] = g->first[root];
        w->stack2[sp++] = root;
        w->onstack[root] = 1;
        while (depth) {
            uint32_t v = w->call2[depth - 1];
            if (w->cursor2[v] < g->first[v + 1]) {
                const sv_edge *e = &g->e[w->cursor2[v]++];
                uint32_t d = e->dst;
                if (removed(e, T) || w->comp[d] != sub) continue;
                if (!w->index2[d]) {
                    w->index2[d] = w->low2[d] = ++counter;
                    w->cursor2[d] = g->first[d];
                    w->stack2[sp++] = d;
                    w->onstack[d] = 1;
                    w->call2[depth++] = d;
                } else if (w->onstack[d] && w->index2[d] < w->low2[v]) {
                    w->low2[v] = w->index2[d];
                }
                continue;
            }
            depth--;
            if (depth) {
                uint32_t u = w->call2[depth - 1];
                if (w->low2[v] < w->low2[u]) w->low2[u] = w->low2[v];
            }
            if (w->low2[v] != w->index2[v]) continue;
            ++*cid;
            uint32_t x;
            do {
                x = w->stack2[--sp];
                w->onstack[x] = 0;
                w->comp[x] = *cid;
                out[nout++] = x;
            } while (x != v);
            ends[nscc++] = nout;
        }
    }
    return nscc;
}

/* --fair=strong (compassion): a cycle inside SCC cid is strongly fair iff
 * every thread enabled in one of its states steps in it. If every thread
 * enabled somewhere in C steps somewhere in C, a cycle through all of C's
 * steps' witnesses is (witness()); otherwise no fair cycle passes a state
 * where such a thread is enabled, so those states are removed and the SCCs
 * of the rest are checked the same way (the Streett refinement of Emerson
 * and Lei, 1987; each round removes a thread for good, so at most nthreads
 * + 1 levels). T included: enabled in C, it must take (non-progress) steps
 * there. */
static int strong_scc(search *S, sv_graph *g, sv_scc *w, uint32_t cid, uint32_t T,
                      const uint32_t *X, uint32_t m, uint32_t *cidc)
{
    uint32_t nt = S->p->nthreads;
    bool cyclic = m > 1, t_in = false;
    for (uint32_t j = 0; j < m && (!cyclic || !t_in); j++) {
        uint32_t v = X[j];
        const uint64_t *b = g->bits + (size_t)v * 2 * g->nw;
        t_in |= g->acc ? g->acc[v] : bit(b, T) && bit(b + g->nw, T);
        for (uint64_t k = g->first[v]; !cyclic && k < g->first[v + 1]; k++)
            if (g->e[k].dst == v && !removed(&g->e[k], T)) cyclic = true;
    }
    if (!cyclic || !t_in) return NOT_FOUND;
    uint8_t *bad = calloc(nt, 1), *stepped = calloc(nt, 1);
    uint32_t *keep = NULL, *out = NULL, *ends = NULL;
    int res = STOPPED;
    if (!bad || !stepped) goto nomem;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t v = X[j];
        const uint64_t *b = g->bits + (size_t)v * 2 * g->nw;
        for (uint32_t u = 0; u < nt; u++)
            if (bit(b, u)) bad[u] = 1;
        for (uint64_t k = g->first[v]; k < g->first[v + 1]; k++)
            if (!removed(&g->e[k], T) && g->e[k].tid != SV_NOSTEP && w->comp[g->e[k].dst] == cid)
                stepped[g->e[k].tid] = 1;
    }
    bool any = false; /* bad: enabled in C and never stepping in it */
    for (uint32_t u = 0; u < nt; u++) {
        bad[u] = bad[u] && !stepped[u];
        any |= bad[u];
    }
    if (!any) {
        res = witness(S, g, w, cid, T, X, m);
        goto done;
    }
    keep = malloc((size_t)m * sizeof *keep);
    out = malloc((size_t)m * sizeof *out);
    ends = malloc((size_t)m * sizeof *ends);
    if (!keep || !out || !ends) goto nomem;
    uint32_t nk = 0, sub = ++*cidc;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t v = X[j];
        const uint64_t *b = g->bits + (size_t)v * 2 * g->nw;
        bool drop = false;
        for (uint32_t u = 0; u < nt && !drop; u++) drop = bad[u] && bit(b, u);
        w->comp[v] = drop ? 0 : sub;
        if (!drop) keep[nk++] = v;
    }
    uint32_t nscc = sub_tarjan(g, w, T, sub, keep, nk, out, ends, cidc);
    res = NOT_FOUND;
    for (uint32_t j = 0, lo = 0; j < nscc && res == NOT_FOUND; lo = ends[j++])
        res = strong_scc(S, g, w, w->comp[out[lo]], T, out + lo, ends[j] - lo, cidc);
    goto done;
nomem:
    S->lim.stop = STOP_NOMEM;
done:
    free(bad);
    free(stepped);
    free(keep);
    free(out);
    free(ends);
    return res;
}

/* SCC cid of the graph minus T's progress steps, for thread T. */
static int check_scc(search *S, sv_graph *g, sv_scc *w, uint32_t cid, uint32_t T,
                     const uint32_t *members, uint32_t m, uint32_t *cidc)
{
    if (S->o->fair == FAIR_STRONG) return strong_scc(S, g, w, cid, T, members, m, cidc);
    return witness(S, g, w, cid, T, members, m);
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
            int rc = check_scc(S, g, w, *cid, T, w->stack + lo, sp - lo, cid);
            sp = lo;
            if (rc != NOT_FOUND) return rc;
            if (!limits_ok(S)) return STOPPED;
        }
    }
    return NOT_FOUND;
}
/* The SCC search's arrays for g's n states: 7 words and 2 bytes a state;
 * --fair=strong: 3 words more, the refinement's Tarjan. Counted under
 * --memlimit; false if refused or out of memory (S->lim.stop says which). */
static bool scc_alloc(search *S, const sv_graph *g, sv_scc *w)
{
    uint32_t n = g->n;
    bool strong = S->o->fair == FAIR_STRONG;
    size_t work = (size_t)n * (sizeof *w->index + sizeof *w->low + sizeof *w->stack + sizeof *w->comp +
                               sizeof *w->call + sizeof *w->cursor + 1 + sizeof *w->bfs_pred +
                               sizeof *w->bfs_seen + sizeof *w->queue +
                               (strong ? 4 * sizeof(uint32_t) + sizeof(uint64_t) : 0));
    if (!sv_room_for(S, work)) return false;
    S->vec_bytes += work;
    w->index = malloc((size_t)n * sizeof *w->index);
    w->low = malloc((size_t)n * sizeof *w->low);
    w->stack = malloc((size_t)n * sizeof *w->stack);
    w->comp = malloc((size_t)n * sizeof *w->comp);
    w->call = malloc((size_t)n * sizeof *w->call);
    w->cursor = malloc((size_t)n * sizeof *w->cursor);
    w->onstack = malloc(n);
    w->bfs_pred = malloc((size_t)n * sizeof *w->bfs_pred);
    w->bfs_seen = calloc(n, sizeof *w->bfs_seen);
    w->queue = malloc((size_t)n * sizeof *w->queue);
    w->mark = malloc(S->p->nthreads ? S->p->nthreads : 1);
    if (strong) {
        w->index2 = malloc((size_t)n * sizeof *w->index2);
        w->low2 = malloc((size_t)n * sizeof *w->low2);
        w->stack2 = malloc((size_t)n * sizeof *w->stack2);
        w->call2 = malloc((size_t)n * sizeof *w->call2);
        w->cursor2 = malloc((size_t)n * sizeof *w->cursor2);
        if (!w->index2 || !w->low2 || !w->stack2 || !w->call2 || !w->cursor2) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
    }
    if (!w->mark || !w->index || !w->low || !w->stack || !w->comp || !w->call || !w->cursor ||
        !w->onstack || !w->bfs_pred || !w->bfs_seen || !w->queue) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    return true;
}

static void scc_free(sv_scc *w)
{
    free(w->index);
    free(w->low);
    free(w->stack);
    free(w->comp);
    free(w->call);
    free(w->cursor);
    free(w->onstack);
    free(w->bfs_pred);
    free(w->bfs_seen);
    free(w->queue);
    free(w->mark);
    free(w->index2);
    free(w->low2);
    free(w->stack2);
    free(w->call2);
    free(w->cursor2);
}

int sv_fair_cycles(search *S, sv_graph *g)
{
    sv_scc w;
    memset(&w, 0, sizeof w);
    uint32_t cid = 0;
    int rc = scc_alloc(S, g, &w) ? tarjan(S, g, &w, SV_ANY, &cid) : STOPPED;
    S->r->stats.sccs = cid;
    scc_free(&w);
    return rc;
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
    if (!sv_setup(S, &g, &SV(S)->check)) goto out;
    if (!sv_build(S, &g) || S->lim.stop != STOP_COMPLETE) goto out;
    if (S->r->nerrors && !S->o->all_errors) goto out;
    if (!scc_alloc(S, &g, &w)) goto out;
    uint32_t cid = 0, n = g.n;
    for (uint32_t T = 0; T < p->nthreads && S->lim.stop == STOP_COMPLETE; T++) {
        if (S->o->starved >= 0 && T != (uint32_t)S->o->starved) continue; /* --starved */
        bool checked = false; /* T runs a labelled body in some state */
        for (uint32_t v = 0; v < n && !checked; v++)
            checked = bit(g.bits + (size_t)v * 2 * g.nw + g.nw, T);
        if (!checked) continue;
        S->r->stats.starvation_checks++;
        if (tarjan(S, &g, &w, T, &cid) != NOT_FOUND) break;
    }
    S->r->stats.sccs = cid;
out:
    sv_graph_free(&g);
    scc_free(&w);
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
    if (sv_setup(S, &g, &SV(S)->check) && l->starved >= 0 && (uint32_t)l->starved < S->p->nthreads &&
        l->cycle_start < l->len) {
        if (lasso_holds(S, &g, l->path, l->len, l->cycle_start, (uint32_t)l->starved))
            sv_record(S, l->path, l->len, l->cycle_start, (uint32_t)l->starved,
                      SV(S)->check + S->wsize);
        else if (S->lim.stop == STOP_COMPLETE)
            S->r->stats.cycles_rejected++;
    }
    sv_graph_free(&g);
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
               "enabled, which any step may change, is what starvation and every --fair "
               "condition are about (composition alone, the default here, is sound: "
               "docs/usage.md)";
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
