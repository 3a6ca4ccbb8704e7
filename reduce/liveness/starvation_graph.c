/* starvation_graph.c: the reachable graph the starvation search
 * (starvation.c, issue 20) keeps explicitly: built breadth-first from the
 * initial state (composed steps, or single steps with --reduce=none), per
 * state its vector, enabled and progress-labelled threads, its edges and
 * its BFS parent (for the stem of a lasso), all counted against
 * --memlimit; the safety errors met on the way are recorded as the other
 * searches record them. Also the hidden state of weak fairness under
 * composition (sv_mid_disabled()). The explicit graph is what the SCC
 * algorithm of Tarjan (SIAM J. Comput. 1, 1972) and the fairness
 * refinement of Emerson and Lei (Sci. Comput. Program. 8, 1987) run over
 * in starvation.c. */
#include <stdlib.h>
#include <string.h>

#include "starvation_int.h"


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
bool sv_room_for(search *S, size_t extra)
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
bool sv_is_labelled(const vm_program *p, const sv_graph *g, const uint8_t *s, int t)
{
    enum vm_tstatus st = vm_tstatus_of(p, s, t);
    return st != VM_T_UNUSED && st != VM_T_ENDED && g->labelled[vm_tbody_index(p, s, t)] &&
           vm_at_visible(p, s, t);
}


static bool add_node(search *S, sv_graph *g, const uint8_t *v, uint64_t parent,
                     explore_step via)
{
    if (g->n == UINT32_MAX - 1) goto nomem;
    if (g->n == g->cap) {
        uint32_t nc = g->cap ? 2 * g->cap : 1024;
        if (!sv_room_for(S, (size_t)(nc - g->cap) * (S->vsize + 2 * g->nw * sizeof(uint64_t) +
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
        if (sv_is_labelled(S->p, g, v, (int)t)) b[g->nw + t / 64] |= 1ull << (t % 64);
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
        if (!sv_room_for(S, (size_t)(nc - g->ecap) * sizeof(sv_edge))) return false;
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
uint32_t sv_stem(const sv_graph *g, uint32_t i, explore_step *path)
{
    uint32_t len = 0;
    for (uint64_t k = i; k != 0; k = g->parent[k]) len++;
    uint32_t j = len;
    for (uint64_t k = i; k != 0; k = g->parent[k]) path[--j] = g->via[k];
    return len;
}

uint32_t sv_depth_of(const sv_graph *g, uint32_t i)
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
    explore_step *path = malloc(((size_t)sv_depth_of(g, i) + 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    uint32_t n = sv_stem(g, i, path);
    path[n++] = last;
    bool go_on = record_error(S, out, path, n);
    free(path);
    return go_on;
}

/* The reachable graph, breadth-first from S->cur; the safety errors on the
 * way are recorded as the other searches record them. False if the search
 * stopped. */
bool sv_build(search *S, sv_graph *g)
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


/* --fair under composition: mark in fair[] the threads disabled in the
 * state after the first instruction of step (tid, choice) from s, the
 * hidden state where the step's thread holds a lock it acquired and
 * releases in its invisible tail (later instructions only release locks,
 * end the thread or move waiters to a re-acquire, so no thread is disabled
 * at a later hidden state and enabled here and at both ends). False if the
 * search must stop. */
bool sv_mid_disabled(search *S, sv_graph *g, const uint8_t *s, int tid, uint64_t choice,
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


/* What lasso_holds() needs besides the graph: the bodies with a progress
 * label, the work vectors, the one-instruction environment. False: no
 * memory (S->lim.stop says so); g's arrays are freed by the caller. */
bool sv_setup(search *S, sv_graph *g, uint8_t **check)
{
    const vm_program *p = S->p;
    g->nw = (p->nthreads + 63) / 64;
    g->labelled = calloc(p->nbodies ? p->nbodies : 1, sizeof *g->labelled);
    *check = malloc(2 * S->wsize);
    g->mid = calloc(1, S->wsize);
    g->one = S->env;
    g->one.reduce = REDUCE_NONE;
    if (!g->labelled || !*check || !g->mid) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++)
            if (p->bodies[b].code[pc].progress_label) g->labelled[b] = true;
    return true;
}


void sv_graph_free(sv_graph *g)
{
    free(g->vec);
    free(g->bits);
    free(g->first);
    free(g->parent);
    free(g->via);
    free(g->e);
    map_free(&g->idx);
    free(g->labelled);
    free(g->mid);
}
