/* fair_cycle.c: --liveness=npc --fair and --ltl FORMULA --fair (issue 31),
 * the search for a fair accepting cycle of the product of the state graph
 * with a Büchi automaton (npc's built-in one, liveness.c; the negated
 * formula's, ltl_search.c), where the nested depth-first search (nested.c)
 * finds any accepting cycle, fair or not. Fairness is over the model's
 * threads, as for the starvation search: weak (SPIN's -f), every thread
 * enabled continuously from some point on steps infinitely often; strong
 * (the default of --fair), every thread enabled infinitely often does.
 * Neither is a Büchi condition the nested DFS can check state by state
 * (SPIN's -f unrolls the product nthreads + 2 times for weak fairness
 * alone), so this engine does what starvation.c does, over the product:
 * the model graph is built whole (starvation_graph.c), the product with the
 * automaton is built from it breadth-first (a node: a model state and an
 * automaton state; its moves: the automaton's edges whose guards the model
 * state satisfies, each with a model step it allows, or none for an EPS
 * edge and for the stutter of a state where no thread is enabled, exactly
 * nested.c's rules, nested_int.h), and starvation.c's SCC search with the
 * weak condition or the strong Streett refinement (Emerson and Lei,
 * "Modalities for model checking", Sci. Comput. Program. 8, 1987) over every
 * thread looks for a fair SCC with an accepting node: there is a fair
 * accepting run iff there is one (Lichtenstein and Pnueli, POPL 1985). The
 * lasso (BFS stem to the accepting node, a cycle through the fairness
 * witnesses) is checked before it is recorded by the nested search's own
 * replay check (nested_lasso_holds(): the automaton's moves, an accepting
 * state on the cycle, the product state closing) and by a replay of the
 * fairness condition (fair_holds()). The whole state graph being built
 * first, a safety error anywhere in it is reported (as by the starvation
 * search), also one the nested search never meets because the formula's
 * automaton cannot follow the path to it. Not here: --por (a persistent set
 * postpones the threads independent of it, and whether each thread is
 * enabled is what fairness reads), on-the-fly search (memory linear in the
 * product; --memlimit counts it), bitstate, BFS, -j, --max-depth, and
 * mcheck --replay of such a lasso (the engine refuses or the replay file
 * reader rejects them). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nested_int.h"
#include "starvation_int.h"

/* The product graph (first: g is what found() is given) and the model's. */
typedef struct fc {
    sv_graph g;        /* the product: per node its model state's vector and threads */
    sv_graph m;        /* the model graph */
    uint32_t *node_m;  /* product node -> model node */
    uint32_t *node_q;  /* product node -> automaton state */
    uint8_t *acc;      /* product node -> accepting */
    uint32_t *pid;     /* model node * nq + q -> product node + 1 */
    uint32_t nq;
    size_t counted;    /* of S->vec_bytes */
} fc;

/* Grow the product's node arrays to hold one more node; false if refused. */
static bool grow_nodes(search *S, fc *f)
{
    sv_graph *g = &f->g;
    if (g->n < g->cap) return true;
    if (g->n == UINT32_MAX - 1) goto nomem;
    uint32_t nc = g->cap ? 2 * g->cap : 1024;
    size_t per = S->vsize + 2 * g->nw * sizeof(uint64_t) + 2 * sizeof(uint64_t) +
                 sizeof(explore_step) + 2 * sizeof(uint32_t) + 1;
    if (!sv_room_for(S, (size_t)(nc - g->cap) * per)) return false;
    S->vec_bytes += (size_t)(nc - g->cap) * per;
    f->counted += (size_t)(nc - g->cap) * per;
    void *a;
#define GROW(ptr, count)                                     \
    if (!(a = realloc((ptr), (size_t)(count) * sizeof *(ptr)))) goto nomem; \
    (ptr) = a;
    GROW(g->vec, (size_t)nc * S->vsize)
    GROW(g->bits, (size_t)nc * 2 * g->nw)
    GROW(g->first, (size_t)nc + 1)
    GROW(g->parent, nc)
    GROW(g->via, nc)
    GROW(f->node_m, nc)
    GROW(f->node_q, nc)
    GROW(f->acc, nc)
#undef GROW
    g->cap = nc;
    return true;
nomem:
    S->lim.stop = STOP_NOMEM;
    return false;
}

/* The product node (model node v, automaton state q), added (its parent
 * and the move into it) if new; its index + 1, or 0 if the search stops. */
static uint32_t node(search *S, fc *f, const buchi *A, uint32_t v, uint32_t q, uint64_t parent,
                     explore_step via)
{
    uint32_t *k = &f->pid[(size_t)v * f->nq + q];
    if (*k) return *k;
    if (!grow_nodes(S, f)) return 0;
    sv_graph *g = &f->g;
    uint32_t i = g->n++;
    memcpy(g->vec + (size_t)i * S->vsize, f->m.vec + (size_t)v * S->vsize, S->vsize);
    memcpy(g->bits + (size_t)i * 2 * g->nw, f->m.bits + (size_t)v * 2 * g->nw,
           2 * g->nw * sizeof *g->bits);
    g->parent[i] = parent;
    g->via[i] = via;
    f->node_m[i] = v;
    f->node_q[i] = q;
    f->acc[i] = A->accepting[q];
    S->r->stats.nested_states++;
    return *k = i + 1;
}

static bool edge(search *S, fc *f, uint32_t from, uint32_t dst_m, uint32_t b, uint16_t tid,
                 uint64_t choice)
{
    sv_graph *g = &f->g;
    explore_step via = {tid == SV_NOSTEP ? -1 : (int32_t)tid, choice};
    uint32_t k = node(S, f, &ND(S)->A, dst_m, b, from, via);
    if (!k) return false;
    if (g->ne == g->ecap) {
        uint64_t nc = g->ecap ? 2 * g->ecap : 4096;
        if (!sv_room_for(S, (size_t)(nc - g->ecap) * sizeof(sv_edge))) return false;
        sv_edge *ne = realloc(g->e, (size_t)nc * sizeof *ne);
        if (!ne) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        S->vec_bytes += (size_t)(nc - g->ecap) * sizeof(sv_edge);
        f->counted += (size_t)(nc - g->ecap) * sizeof(sv_edge);
        g->e = ne;
        g->ecap = nc;
    }
    g->e[g->ne++] = (sv_edge){k - 1, tid, 0, (uint32_t)choice};
    S->r->stats.nested_transitions++;
    return limits_ok(S);
}

/* The product, breadth-first from (initial state, automaton state 0), by
 * nested.c's move rules (nested_int.h). False if the search stopped. */
static bool product_build(search *S, fc *f)
{
    const buchi *A = &ND(S)->A;
    const sv_graph *m = &f->m;
    sv_graph *g = &f->g;
    f->nq = A->nstates;
    g->nw = m->nw;
    g->mid = m->mid;
    g->one = m->one;
    size_t cells = (size_t)m->n * f->nq;
    if (!sv_room_for(S, cells * sizeof *f->pid)) return false;
    S->vec_bytes += cells * sizeof *f->pid;
    f->counted += cells * sizeof *f->pid;
    f->pid = calloc(cells ? cells : 1, sizeof *f->pid);
    if (!f->pid) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    if (!node(S, f, A, 0, 0, 0, (explore_step){-1, 0})) return false;
    for (uint32_t i = 0; i < g->n; i++) {
        g->first[i] = g->ne;
        uint32_t v = f->node_m[i], q = f->node_q[i];
        const uint8_t *vec = m->vec + (size_t)v * S->vsize;
        uint64_t props = A->guards ? props_of(S->p, vec) : 0;
        bool terminal = true;
        for (uint32_t w = 0; w < m->nw; w++) terminal &= m->bits[(size_t)v * 2 * m->nw + w] == 0;
        for (uint32_t e = A->succ_off[q]; e < A->succ_off[q + 1]; e++) {
            uint32_t b = A->succ[e];
            if (!buchi_enters(A, b, props)) continue;
            uint8_t k = buchi_kind(A, e);
            if (buchi_no_step(A, k, terminal)) {
                if (!edge(S, f, i, v, b, SV_NOSTEP, 0)) return false;
                continue;
            }
            for (uint64_t me = m->first[v]; me < m->first[v + 1]; me++) {
                const sv_edge *x = &m->e[me];
                if (k == MOVE_NONPROGRESS && x->prog) continue; /* buchi_takes() */
                if (!edge(S, f, i, x->dst, b, x->tid, x->choice)) return false;
            }
        }
    }
    g->first[g->n] = g->ne;
    return true;
}

/* The replay of the fairness condition over the cycle path[start .. n) (a
 * move with tid -1 takes no step): weak, every thread steps in the cycle or
 * is disabled in one of its states (hidden ones included); strong, every
 * thread enabled in one of its states steps in it. */
static bool fair_holds(search *S, fc *f, const explore_step *path, uint32_t n, uint32_t start)
{
    enum { STEPPED = 1, DISABLED = 2, ENABLED = 4 };
    const vm_program *p = S->p;
    uint32_t nt = p->nthreads;
    uint8_t *v = ND(S)->check;
    uint8_t *seen = calloc(nt ? nt : 1, 1), *hidden = calloc(nt ? nt : 1, 1);
    explore_stats dry = {0};
    bool ok = seen && hidden && search_initial(S, v, &dry);
    if (!seen || !hidden) S->lim.stop = STOP_NOMEM;
    for (uint32_t i = 0; ok && i < n; i++) {
        if (i >= start) {
            for (uint32_t u = 0; u < nt; u++) seen[u] |= vm_enabled(p, v, (int)u) ? ENABLED : DISABLED;
            if (path[i].tid >= 0) {
                seen[path[i].tid] |= STEPPED;
                if (S->o->fair == FAIR_WEAK &&
                    !sv_mid_disabled(S, &f->m, v, path[i].tid, path[i].choice, hidden))
                    ok = false;
            }
        }
        if (ok && path[i].tid >= 0) ok = lasso_step(S, v, path[i], &dry);
    }
    for (uint32_t u = 0; ok && u < nt; u++) {
        if (S->o->fair == FAIR_WEAK && !(seen[u] & (STEPPED | DISABLED)) && !hidden[u]) ok = false;
        if (S->o->fair == FAIR_STRONG && (seen[u] & ENABLED) && !(seen[u] & STEPPED)) ok = false;
    }
    free(seen);
    free(hidden);
    return ok;
}

/* A fair SCC's cycle through accepting node w0: the lasso (the BFS stem to
 * w0, then the cycle's moves), checked and recorded. SV_*. */
static int found(search *S, sv_graph *g, uint32_t w0, const uint64_t *cyc, uint32_t len)
{
    fc *f = (fc *)g;
    uint32_t sl = sv_depth_of(g, w0), n = sl + len;
    explore_step *path = malloc(((size_t)n + 1) * sizeof *path);
    uint32_t *qs = malloc(((size_t)n + 1) * sizeof *qs);
    if (!path || !qs) {
        free(path);
        free(qs);
        S->lim.stop = STOP_NOMEM;
        return SV_STOPPED;
    }
    sv_stem(g, w0, path);
    uint32_t j = sl;
    for (uint64_t k = w0; k != 0; k = g->parent[k]) qs[--j] = f->node_q[k];
    for (uint32_t c = 0; c < len; c++) {
        const sv_edge *e = &g->e[cyc[c]];
        path[sl + c] = (explore_step){e->tid == SV_NOSTEP ? -1 : (int32_t)e->tid, e->choice};
        qs[sl + c] = f->node_q[e->dst];
    }
    int res;
    if (!nested_lasso_holds(S, path, qs, n, sl) || !fair_holds(S, f, path, n, sl)) {
        res = S->lim.stop != STOP_COMPLETE ? SV_STOPPED : SV_NOT_FOUND;
        if (res == SV_NOT_FOUND) S->r->stats.cycles_rejected++;
    } else {
        uint32_t m = 0, mstart = 0; /* the trace keeps the steps */
        for (uint32_t i = 0; i < n; i++) {
            if (i == sl) mstart = m;
            if (path[i].tid >= 0) path[m++] = path[i];
        }
        nested_record(S, path, m, mstart);
        res = SV_FOUND;
    }
    free(path);
    free(qs);
    return res;
}

static void fc_run(search *S, uint32_t first0, uint64_t n0)
{
    (void)first0;
    (void)n0;
    fc f;
    memset(&f, 0, sizeof f);
    if (S->o->ltl) ltl_buchi(S); else npc_buchi(S);
    if (!sv_setup(S, &f.m, &ND(S)->check)) goto out;
    if (!sv_build(S, &f.m) || S->lim.stop != STOP_COMPLETE) goto out;
    if (S->r->nerrors && !S->o->all_errors) goto out;
    if (!product_build(S, &f)) goto out;
    f.g.acc = f.acc;
    f.g.found = found;
    sv_fair_cycles(S, &f.g);
out:
    free(f.g.vec);
    free(f.g.bits);
    free(f.g.first);
    free(f.g.parent);
    free(f.g.via);
    free(f.g.e);
    free(f.node_m);
    free(f.node_q);
    free(f.acc);
    free(f.pid);
    sv_graph_free(&f.m); /* also the mid vector the product shared */
}

static bool fc_selects(const explore_options *o)
{
    /* the command line checks the options before the formula is translated */
    return o->fair && (o->ltl || o->ltl_text || o->liveness == LIVENESS_NPC) && !o->check_lasso;
}

static const char *fc_refuses(const explore_options *o, char *msg, size_t n)
{
    const char *what = o->ltl || o->ltl_text ? "--ltl --fair" : "--liveness=npc --fair";
    if (o->por) {
        snprintf(msg, n, "%s cannot be used with --por: a persistent set postpones the threads "
                         "independent of it, and whether each thread is enabled, which any step "
                         "may change, is what fairness is about (composition alone, the default "
                         "here, is sound)", what);
        return msg;
    }
    if (o->search != SEARCH_DFS || o->max_depth) {
        snprintf(msg, n, "%s builds the whole product graph: it cannot be used with %s", what,
                 o->max_depth ? "--max-depth" : o->search == SEARCH_BFS ? "--search=bfs"
                                                                        : "--search=stateless");
        return msg;
    }
    if (o->workers) {
        snprintf(msg, n, "%s is sequential: it cannot be used with -j", what);
        return msg;
    }
    if (o->store.kind == STORE_BITSTATE) {
        snprintf(msg, n, "%s cannot be used with --store=bitstate (a missed state could hide a "
                         "cycle); use compact or exact", what);
        return msg;
    }
    if (o->liveness_test_bits)
        return "--liveness-test-bits applies to the nested search, not to --fair";
    return NULL;
}

static void fc_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    (void)o;
    const explore_stats *x = &r->stats;
    stats_row(k, STATS_SEARCH, "fair cycles", "%" PRIu64 " product states, %" PRIu64
              " moves, %" PRIu64 " SCCs completed", x->nested_states, x->nested_transitions,
              x->sccs);
    stats_count(k, STATS_SEARCH, "product_states", x->nested_states);
    stats_count(k, STATS_SEARCH, "product_moves", x->nested_transitions);
    stats_count(k, STATS_SEARCH, "sccs", x->sccs);
    stats_count(k, STATS_SEARCH, "cycles_rejected", x->cycles_rejected);
}

/* The copy byte after the stored vector (always 0: the model graph). */
const engine engine_fair_cycle = {
    .name = "fair-cycle",
    .selects = fc_selects,
    .refuses = fc_refuses,
    .product_bytes = 1,
    .depth_first = true,
    .ctx_size = sizeof(nested_ctx),
    .run = fc_run,
    .free_ctx = nested_free,
    .rows = fc_rows,
};
