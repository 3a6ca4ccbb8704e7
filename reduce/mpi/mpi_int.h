/* mpi_int.h: the distributed search's per-rank context (mcheck-mpi,
 * mpi.c), what its asynchronous loop (mpi_async.c) shares with it, and
 * what mpi_result.c, which makes the result every rank returns, reads of
 * it. Private to reduce/. */
#ifndef MCHECK_MPI_INT_H
#define MCHECK_MPI_INT_H

#include <mpi.h>

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
    uint32_t depth;    /* steps from the initial state along the links */
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
    bool async;            /* mpi_async.c's loop, not levels */
    uint8_t *cur, *nxt;    /* levels: the frontier it owns and the next one (vsize
                              each); async: cur is the queue, from cur[qhead] */
    uint64_t ncur, cur_cap, nnxt, nxt_cap, cur_first; /* cur_first: cur[0]'s index */
    uint64_t qhead;
    uint8_t *exp;          /* async: the state being expanded, out of the queue */
    mlink *links;          /* per stored non-error state, in storing order */
    uint64_t nlinks, links_cap;
    kept *kept;
    obuf *out;             /* per destination rank */
    mb_ctx *enc, *dec;     /* per destination and per source: the batch's last record */
    uint32_t *out_depth;   /* per destination: the depth its batch's states are at
                              (UINT32_MAX: none yet) */
    uint32_t *in_depth;    /* per source: the last MB_DEPTH record's */
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
    /* async: the batches handed to MPI_Isend and not yet sent (request and
     * buffer, in step), the buffers free again, the messages sent to each
     * rank and received in all */
    MPI_Request *fl_req;
    int *fl_idx;           /* MPI_Testsome's indices */
    obuf *fl_buf;
    size_t nfl, fl_cap;
    uint64_t fl_bytes;
    obuf *pool;
    size_t npool, pool_cap;
    uint64_t *sent_to, nsent_msgs, nrecv_msgs;
    uint64_t batch;        /* a batch is sent once it holds this many bytes */
    bool yield;            /* more ranks on this machine than cores */
    /* statistics */
    explore_rank *ranks;   /* every rank's figures (allocated up front) */
    uint64_t msgs, bytes;
    double wait;
    bool truncated;
} msearch;

/* ---- mpi.c, for mpi_async.c ------------------------------------------------ */

/* Expand the state `from` (local index idx): its successors to their
 * owners' batches, the ones this rank owns inserted at once. False when the
 * search must stop (S.lim.stop says why). */
bool mpi_expand(msearch *M, const uint8_t *from, uint64_t idx);
/* The records of a batch rank src sent. False when the search must stop. */
bool mpi_receive(msearch *M, int src, const uint8_t *b, size_t n);
/* Memory, interrupt and time: a stop in S.lim.stop. */
void mpi_local_limits(msearch *M);
/* The first stop with a nonzero count in stops[STOP_*], an error first. */
stop_reason mpi_agreed_stop(const uint64_t *stops);
/* The batch to rank d starts afresh (its encoder and depth). */
void mpi_batch_reset(msearch *M, int d);

/* ---- mpi_async.c ------------------------------------------------------------ */

/* The search from the initial state (in cur at its owner) without levels;
 * returns the agreed stop, every message sent received. Collective. */
stop_reason mpi_async_search(msearch *M);
/* Its receive buffer, allocated once (msearch_init()). False when out of memory. */
bool mpi_async_init(msearch *M);
/* Send rank d's batch (emit() calls it once the batch holds M->batch bytes).
 * False when out of memory. */
bool mpi_async_flush(msearch *M, int d);
/* Its buffers. */
void mpi_async_free(msearch *M);

/* ---- mpi_result.c -------------------------------------------------------- */

/* The errors reported (at most `max`, the first by depth and rank), with
 * their paths read off the ranks' links together; false when out of
 * memory. Collective. */
bool gather_errors(msearch *M, explore_result *r, unsigned max);
/* The result every rank returns: the ranks' figures added up. Collective. */
void totals(msearch *M, explore_result *r);

#endif
