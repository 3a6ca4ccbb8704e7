/* mpi_result.c: the result every rank of the distributed search returns
 * (mcheck-mpi, mpi.c): the errors reported, chosen alike on every rank,
 * with their paths read off the owners' parent links one step at a time
 * (an MPI_Bcast per step, from the owner), and the ranks' figures added
 * up. Every function here is collective. */
#include <assert.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

/* ---- errors and their paths ------------------------------------------------------ */

static int werr_cmp(const void *a, const void *b)
{
    const werr *x = a, *y = b;
    if (x->k.depth != y->k.depth) return x->k.depth < y->k.depth ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Every rank: the errors kept anywhere, the first ones (by depth, then
 * rank) chosen, and their paths read off the links, collectively. Into r.
 * False when out of memory (then r has no errors). */
bool gather_errors(msearch *M, explore_result *r, unsigned max)
{
    int n = (int)M->res.nerrors, ok = 1;
    werr *mine = n ? calloc((size_t)n, sizeof *mine) : NULL;
    if (n && !mine) ok = 0;
    for (int i = 0; mine && i < n; i++) {
        mine[i].e = M->res.errors[i];
        mine[i].e.path = NULL;
        mine[i].k = M->kept[i];
        mine[i].rank = (uint32_t)M->me;
        mine[i].order = (uint32_t)i;
    }
    int *counts = calloc((size_t)M->k, sizeof *counts), *displ = calloc((size_t)M->k, sizeof *displ);
    if (!counts || !displ) ok = 0;
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    werr *all = NULL;
    int total = 0;
    if (all_ok) {
        int bytes = ok && mine ? n * (int)sizeof *mine : 0;
        MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
        for (int d = 0; d < M->k; d++) {
            displ[d] = total;
            total += counts[d];
        }
        all = total ? malloc((size_t)total) : NULL;
        ok = !total || all;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all_ok)
            MPI_Allgatherv(mine, bytes, MPI_BYTE, all, counts, displ, MPI_BYTE, MPI_COMM_WORLD);
    }
    free(mine);
    free(counts);
    free(displ);
    if (!all_ok) {
        free(all);
        return false;
    }
    size_t nall = (size_t)total / sizeof(werr);
    if (nall) qsort(all, nall, sizeof *all, werr_cmp);
    if (nall > max) nall = max;
    r->errors = nall ? calloc(nall, sizeof *r->errors) : NULL;
    ok = !nall || r->errors;
    for (size_t i = 0; ok && i < nall; i++) {
        uint32_t len = all[i].k.depth;
        explore_step *path = malloc((len ? len : 1) * sizeof *path);
        ok = path != NULL;
        r->errors[i] = all[i].e;
        r->errors[i].path = path;
        r->errors[i].len = len;
        r->nerrors = (uint32_t)i + 1;
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        free(all);
        return false;
    }
    for (size_t i = 0; i < nall; i++) {
        explore_step *path = r->errors[i].path;
        uint32_t len = all[i].k.depth;
        if (!len) continue; /* the initial state */
        path[len - 1] = all[i].k.via;
        uint32_t rank = all[i].k.prank;
        uint64_t idx = all[i].k.pidx;
        for (uint32_t k = len - 1; k-- > 0;) {
            mlink l = {0};
            if ((int)rank == M->me) l = M->links[idx];
            MPI_Bcast(&l, (int)sizeof l, MPI_BYTE, (int)rank, MPI_COMM_WORLD);
            path[k] = l.via;
            rank = l.prank;
            idx = l.pidx;
        }
        assert(idx == 0 && "the path ends at the initial state, index 0 of its owner");
    }
    free(all);
    return true;
}

/* The result every rank returns: the ranks' figures added up. */
void totals(msearch *M, explore_result *r)
{
    const explore_stats *y = &M->res.stats;
    explore_stats *x = &r->stats;
    search *S = &M->S;
    enum { SUM_STORED, SUM_MATCHED, SUM_TRANS, SUM_INSTR, SUM_INVIS, SUM_STORE, SUM_RES,
           SUM_USED, SUM_BUF, SUM_ERRB, SUM_END, SUM_PRED, SUM_PPROV, SUM_N };
    uint64_t buffers = M->in_cap + M->set_bytes + 3 * S->wsize;
    for (int d = 0; d < M->k; d++) buffers += M->out[d].cap;
    uint64_t reserved = M->links_cap * sizeof(mlink) + (M->cur_cap + M->nxt_cap) * S->vsize;
    uint64_t used = M->nlinks * sizeof(mlink) + (M->ncur + M->nnxt) * S->vsize;
    uint64_t mine[SUM_N] = {y->states_stored, y->states_matched, y->transitions, y->instructions,
                            y->invisible, store_bytes(S->st), reserved, used, buffers,
                            S->lim.error_bytes, y->end_states, y->por_reduced, y->por_proviso};
    uint64_t sum[SUM_N];
    MPI_Allreduce(mine, sum, SUM_N, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    x->states_stored = sum[SUM_STORED];
    x->states_matched = sum[SUM_MATCHED];
    x->transitions = sum[SUM_TRANS];
    x->instructions = sum[SUM_INSTR];
    x->invisible = sum[SUM_INVIS];
    x->store_bytes = sum[SUM_STORE];
    x->search_reserved = sum[SUM_RES];
    x->search_used = sum[SUM_USED];
    x->buffer_bytes = sum[SUM_BUF];
    x->error_bytes = sum[SUM_ERRB];
    x->end_states = sum[SUM_END];
    x->por_reduced = sum[SUM_PRED];
    x->por_proviso = sum[SUM_PPROV];
    x->discharged = ls_discharged(S->det); /* the same static facts on every rank */
    x->search_bytes = x->search_reserved + x->buffer_bytes;
    uint64_t mx[2] = {y->max_depth, S->det ? ls_interned(S->det) : 0}, gmx[2];
    MPI_Allreduce(mx, gmx, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    x->max_depth = gmx[0];
    x->locksets = gmx[1]; /* the most one rank interned */
    double ds = ls_seconds(S->det);
    MPI_Allreduce(&ds, &x->detector_seconds, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(M->res.error_count, r->error_count, VERDICT_INCOMPLETE, MPI_UINT64_T, MPI_SUM,
                  MPI_COMM_WORLD);
    x->vector_bytes = S->ssize;
    /* the fingerprints are the union of the ranks': one store's formula */
    x->omission = 0;
    if (M->o->store.kind == STORE_COMPACT && x->states_stored > 1) {
        double pairs = (double)x->states_stored * (double)(x->states_stored - 1);
        x->omission = -expm1(-ldexp(pairs, -(int)M->o->store.fingerprint_bits - 1));
    }
    for (uint32_t v = 0; v < S->p->nvars; v++)
        if (S->p->vars[v].cls == VM_SHARED) x->shared_elements += S->p->vars[v].size;
    explore_rank me = {.states = y->states_stored, .transitions = y->transitions,
                       .messages = M->msgs, .bytes = M->bytes, .store_bytes = store_bytes(S->st),
                       .wait = M->wait};
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, M->ranks, (int)sizeof me, MPI_BYTE,
                  MPI_COMM_WORLD);
    r->ranks = M->ranks; /* r owns them now */
    r->nranks = (uint32_t)M->k;
    M->ranks = NULL;
}
