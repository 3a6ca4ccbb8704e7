/* mpi_int.h: the distributed search's per-rank context (mcheck-mpi,
 * mpi.c) and what mpi_result.c, which makes the result every rank returns,
 * reads of it. Private to reduce/. */
#ifndef MCHECK_MPI_INT_H
#define MCHECK_MPI_INT_H

#include "mpi_batch.h"
#include "search_int.h"

/* A record of a batch (mpi_batch.h): a set's id and then its bits (a
 * rank's detector ids mean nothing to another rank), or a successor with
 * the link to its parent, its vector as the bytes that differ from the
 * batch's previous one, and for an error state the step's outcome (raw:
 * ranks are processes of the same binary). */

/* The link of a stored state: its parent (rank, index) and the step. */
typedef struct mlink {
    uint64_t pidx;
    explore_step via;
    uint32_t prank;    /* UINT32_MAX: the initial state */
} mlink;

/* An error kept by this rank (parallel to res.errors): where its path ends. */
typedef struct kept {
    uint64_t pidx;
    explore_step via;
    uint32_t prank;
    uint32_t depth;    /* steps from the initial state */
} kept;

/* An error of any rank, for the choice of the errors reported. */
typedef struct werr {
    explore_error e;   /* path NULL */
    kept k;
    uint32_t rank, order;
} werr;

typedef struct obuf {
    uint8_t *b;
    size_t n, cap;
} obuf;

typedef struct msearch {
    search S;              /* this rank's: store, detector, step env, ran table, and
                              its runtime (S.lim: clock, limits, progress) */
    explore_result res;    /* this rank's counts and kept errors */
    const explore_options *o;
    int me, k;
    uint8_t *cur, *nxt;    /* the frontier it owns and the next one (vsize each) */
    uint64_t ncur, cur_cap, nnxt, nxt_cap, cur_first; /* cur_first: cur[0]'s index */
    mlink *links;          /* per stored non-error state, in storing order */
    uint64_t nlinks, links_cap;
    kept *kept;
    obuf *out;             /* per destination rank */
    mb_ctx *enc, *dec;     /* per destination and per source: the batch's last record */
    uint8_t *in;
    size_t in_cap;
    int *sc, *rc, *sd, *rd;
    uint8_t *succ, *recv, *hv; /* work vectors (wsize) */
    /* sets: the id fields of the metadata, a digest per local id (for the
     * owner's hash), the ids sent to each rank, each rank's ids mapped to ours */
    uint32_t nids, *ids, words;
    uint64_t *digest;      /* 0: not computed; else 1 << 32 | the digest */
    size_t ndigest;
    uint8_t **sent;
    size_t *nsent;         /* bytes of sent[d] */
    uint32_t **map;
    size_t *nmap;
    uint64_t set_bytes;
    /* statistics */
    explore_rank *ranks;   /* every rank's figures (allocated up front) */
    uint64_t msgs, bytes;
    double wait;
    bool truncated;
} msearch;

/* ---- mpi_result.c -------------------------------------------------------- */

/* The errors reported (at most `max`, the first by depth and rank), with
 * their paths read off the ranks' links together; false when out of
 * memory. Collective. */
bool gather_errors(msearch *M, explore_result *r, unsigned max);
/* The result every rank returns: the ranks' figures added up. Collective. */
void totals(msearch *M, explore_result *r);

#endif
