/* mpi_async.c: mcheck-mpi's search without levels (--exchange=async): each rank
 * expands the states it owns from a queue of its own (first in, first
 * out), sends each successor's batch to its owner with MPI_Isend once the
 * batch holds --mpi-round-bytes or the rank has nothing left to expand, and
 * inserts what arrives whenever MPI_Iprobe finds it; no rank waits for
 * another at a level's end, as in DiVinE, LTSmin's distributed back end and
 * PReach (Bingham et al., 2010). The expansion, the batches and the
 * insertion are mpi.c's.
 *
 * Termination: Mattern's counting waves (Mattern, "Algorithms for
 * distributed termination detection", 1987, the four-counter method), each
 * wave one MPI_Iallreduce of every rank's messages sent and received, an
 * idle flag, and the stop reasons. A rank counts a message sent when it
 * hands it to MPI_Isend and received when MPI_Recv returns, so counts only
 * grow; a rank is idle when its queue and batches are empty, and only a
 * message makes it busy again. A rank enters wave w+1 only after wave w
 * completed, which needs every rank's contribution to w: every contribution
 * to w comes before every contribution to w+1. If both waves found every
 * rank idle and the same sums, with sent = received, then no rank's counts
 * changed between its two contributions, so none received a message and
 * each stayed idle; at any instant between the last contribution to w and
 * the first to w+1 every rank was idle and every message sent had been
 * received: the search is over. A stop (an error, a limit, SIGINT) rides
 * the next wave, and every rank leaves the loop after the same wave. Then
 * the messages still in flight are received and dropped (each rank learns
 * how many were sent to it: MPI_Reduce_scatter_block), so that the
 * collective path reading that follows (mpi_result.c) meets no stray batch.
 *
 * The queue is first in, first out, so the order is breadth-first within a
 * rank, but a state can be reached first by a longer path than its
 * shortest: traces are not the shortest (--exchange=levels gives those),
 * and --max-depth is refused. The stored states and transitions of a
 * complete search are the same as in any order: the reduced graph does not
 * depend on it (mpi.c's static proviso). */
#include <assert.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_int.h"

enum { TAG_BATCH = 17 };

/* A wave's sums. */
enum { W_IDLE, W_SENT, W_RECV, W_STORED, W_TRANS, W_STOP0,
       W_N = W_STOP0 + STOP_DELAY + 1 };

/* The largest batch (--mpi-round-bytes asks for more: this). */
#define BATCH_MAX ((uint64_t)16 << 20)

/* States expanded between two looks at the network. */
enum { EXPAND_BATCH = 32 };

/* The age at which every batch goes even while this rank is busy, when its
 * queue is short (under NARROW states): a rank that owns half of a narrow
 * frontier's successors stays busy with them while its peer waits for the
 * other half. With a long queue the peers have work of their own, and
 * batches wait to be full: fewer messages, fewer sends in flight. */
enum { NARROW = 4096 };
static const double FLUSH_AGE = 100e-6; /* tried 0 to 1 ms: docs/architecture.md */

/* Hand rank d's batch to MPI_Isend; out[d] gets a buffer from the pool.
 * False when out of memory (S.lim.stop set). */
bool mpi_async_flush(msearch *M, int d)
{
    obuf *b = &M->out[d];
    if (!b->n) return true;
    if (b->n > INT_MAX) goto nomem;
    if (M->nfl == M->fl_cap) {
        size_t nc = M->fl_cap ? 2 * M->fl_cap : 16;
        MPI_Request *nr = realloc(M->fl_req, nc * sizeof *nr);
        if (nr) M->fl_req = nr;
        int *ni = nr ? realloc(M->fl_idx, nc * sizeof *ni) : NULL;
        if (ni) M->fl_idx = ni;
        obuf *nb = ni ? realloc(M->fl_buf, nc * sizeof *nb) : NULL;
        if (!nb) goto nomem;
        M->fl_buf = nb;
        M->fl_cap = nc;
    }
    M->fl_buf[M->nfl] = *b;
    MPI_Isend(b->b, (int)b->n, MPI_BYTE, d, TAG_BATCH, MPI_COMM_WORLD, &M->fl_req[M->nfl]);
    M->nfl++;
    M->fl_bytes += b->cap;
    M->msgs++;
    M->bytes += b->n;
    M->sent_to[d]++;
    M->nsent_msgs++;
    *b = M->npool ? M->pool[--M->npool] : (obuf){0};
    mpi_batch_reset(M, d);
    return true;
nomem:
    rt_stop(&M->S.lim, STOP_NOMEM);
    return false;
}

/* The sends that completed (one MPI_Testsome: MPI_Test per request costs a
 * progress call each, 9% of a rank's time with hundreds in flight): their
 * buffers back to the pool. */
static void sends_done(msearch *M)
{
    if (!M->nfl) return;
    int outcount = 0;
    MPI_Testsome((int)M->nfl, M->fl_req, &outcount, M->fl_idx, MPI_STATUSES_IGNORE);
    if (outcount <= 0) return; /* none, or MPI_UNDEFINED */
    size_t keep = 0;
    for (size_t i = 0; i < M->nfl; i++) {
        if (M->fl_req[i] != MPI_REQUEST_NULL) { /* still in flight */
            M->fl_req[keep] = M->fl_req[i];
            M->fl_buf[keep++] = M->fl_buf[i];
            continue;
        }
        obuf b = M->fl_buf[i];
        M->fl_bytes -= b.cap;
        b.n = 0;
        if (M->npool == M->pool_cap) {
            size_t nc = M->pool_cap ? 2 * M->pool_cap : 16;
            obuf *np = realloc(M->pool, nc * sizeof *np);
            if (np) {
                M->pool = np;
                M->pool_cap = nc;
            }
        }
        if (M->npool < M->pool_cap) M->pool[M->npool++] = b;
        else free(b.b);
    }
    M->nfl = keep;
}

/* The bytes of a batch: it is sent once it holds `batch` bytes, so it
 * holds at most that and one successor's records (a depth, a set per id
 * field, the state, an error's outcome). */
static uint64_t batch_bytes(const msearch *M)
{
    uint64_t b = M->o->mpi_round_bytes ? M->o->mpi_round_bytes : (uint64_t)64 << 10;
    return b < BATCH_MAX ? b : BATCH_MAX;
}

static size_t message_max(const msearch *M)
{
    return (size_t)batch_bytes(M) + 16 + M->nids * (16 + (size_t)M->words * 8) +
           mb_max(M->S.vsize) + sizeof(step_outcome);
}

bool mpi_async_init(msearch *M)
{
    M->batch = batch_bytes(M);
    M->in_cap = message_max(M);
    M->in = malloc(M->in_cap);
    return M->in != NULL;
}

/* A message of n bytes (at most message_max()) is waiting: receive it into
 * M->in, allocated once (a rank out of memory still drains what it is sent). */
static void recv_one(msearch *M, const MPI_Status *st, int n)
{
    assert((size_t)n <= M->in_cap && "a batch no larger than message_max()");
    MPI_Recv(M->in, n, MPI_BYTE, st->MPI_SOURCE, TAG_BATCH, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    M->nrecv_msgs++;
}

/* Every batch that has arrived, inserted (dropped once this rank stopped).
 * True if one arrived. */
static bool poll(msearch *M)
{
    bool any = false;
    for (;;) {
        int flag = 0, n = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_BATCH, MPI_COMM_WORLD, &flag, &st);
        if (!flag) return any;
        MPI_Get_count(&st, MPI_BYTE, &n);
        recv_one(M, &st, n);
        any = true;
        if (M->S.lim.stop == STOP_COMPLETE) mpi_receive(M, st.MPI_SOURCE, M->in, (size_t)n);
    }
}

/* After the last wave: receive (and drop) what is still in flight to this
 * rank, and wait for this rank's sends. Collective. */
static void drain(msearch *M)
{
    uint64_t expect = 0;
    MPI_Reduce_scatter_block(M->sent_to, &expect, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    while (M->nrecv_msgs < expect) {
        MPI_Status st;
        int n = 0;
        MPI_Probe(MPI_ANY_SOURCE, TAG_BATCH, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        recv_one(M, &st, n);
    }
    MPI_Waitall((int)M->nfl, M->fl_req, MPI_STATUSES_IGNORE);
    for (size_t i = 0; i < M->nfl; i++) free(M->fl_buf[i].b);
    M->nfl = 0;
    M->fl_bytes = 0;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

stop_reason mpi_async_search(msearch *M)
{
    search *S = &M->S;
    const explore_options *o = M->o;
    const uint64_t in_flight_max = 256 * M->batch; /* then it waits for its sends */
    /* more ranks on this machine than cores: an idle rank gives its core
     * away (sched_yield()); else it spins, as Open MPI's own waits do, since
     * a yield hands the core to any other process for a time slice */
    MPI_Comm node;
    int here = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &here);
        MPI_Comm_free(&node);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    M->yield = cores > 0 && here > cores;
    uint64_t mine[W_N], sum[W_N], prev_sent = 0, prev_recv = 0;
    bool prev_quiet = false;
    MPI_Request wave = MPI_REQUEST_NULL;
    double last_wave = 0, idle_since = 0, last_flush = 0;
    unsigned empty = 0;
    stop_reason st = STOP_COMPLETE;
    /* tests/differential/test_mpi.py: a rank that looks at the network only
     * every Nth time round (batches stay in flight while waves go by) */
    const char *pe = getenv("MCHECK_MPI_POLL_EVERY");
    const unsigned long poll_every = pe && atol(pe) > 0 ? (unsigned long)atol(pe) : 1;
    for (unsigned long round = 0;; round++) {
        bool got = round % poll_every == 0 && poll(M);
        bool busy = M->qhead < M->ncur;
        if (S->lim.stop == STOP_COMPLETE && busy && M->fl_bytes <= in_flight_max) {
            for (int i = 0; i < EXPAND_BATCH && M->qhead < M->ncur; i++) {
                uint64_t idx = M->cur_first + M->qhead;
                memcpy(M->exp, M->cur + M->qhead * S->vsize, S->vsize); /* the queue may move */
                M->qhead++;
                if (!mpi_expand(M, M->exp, idx)) break; /* batches sent when full */
            }
        }
        if (S->lim.stop == STOP_COMPLETE) mpi_local_limits(M);
        busy = M->qhead < M->ncur;
        double t = seconds();
        /* idle, or the batches are FLUSH_AGE old and the frontier narrow:
         * every batch goes (its owner may be waiting for it) */
        bool narrow = M->ncur - M->qhead < NARROW;
        if ((!busy || (narrow && t - last_flush > FLUSH_AGE)) &&
            S->lim.stop == STOP_COMPLETE) {
            for (int d = 0; d < M->k; d++)
                if (!mpi_async_flush(M, d)) break;
            last_flush = t;
        }
        sends_done(M);
        if (wave == MPI_REQUEST_NULL) {
            /* busy ranks join a wave every 2 ms: it carries stops and progress */
            if (!busy || S->lim.stop != STOP_COMPLETE || t - last_wave > 0.002) {
                memset(mine, 0, sizeof mine);
                bool batches = false;
                for (int d = 0; d < M->k; d++) batches |= M->out[d].n > 0;
                mine[W_IDLE] = !busy && !batches && S->lim.stop == STOP_COMPLETE;
                mine[W_SENT] = M->nsent_msgs;
                mine[W_RECV] = M->nrecv_msgs;
                mine[W_STORED] = M->res.stats.states_stored;
                mine[W_TRANS] = M->res.stats.transitions;
                mine[W_STOP0 + S->lim.stop] = 1;
                MPI_Iallreduce(mine, sum, W_N, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, &wave);
                last_wave = t;
            }
        } else {
            int done = 0;
            MPI_Test(&wave, &done, MPI_STATUS_IGNORE);
            if (done) {
                if (M->me == 0) { /* the ranks' counts, summed */
                    double at = now_since(&S->lim.t0);
                    if (rt_progress_due(&S->lim, o, at))
                        rt_progress_line(o->progress, at, sum[W_STORED], sum[W_TRANS],
                                         "%d ranks, asynchronous", M->k);
                }
                st = mpi_agreed_stop(sum + W_STOP0);
                if (st != STOP_COMPLETE) break;
                bool quiet = sum[W_IDLE] == (uint64_t)M->k && sum[W_SENT] == sum[W_RECV];
                if (quiet && prev_quiet && sum[W_SENT] == prev_sent && sum[W_RECV] == prev_recv)
                    break; /* two quiet waves with the same counts: over */
                prev_quiet = quiet;
                prev_sent = sum[W_SENT];
                prev_recv = sum[W_RECV];
            }
        }
        /* nothing to do: give the core away if ranks share one */
        if (!busy && !got) {
            if (!empty++) idle_since = t;
            if (M->yield) sched_yield();
        } else if (empty) {
            M->wait += t - idle_since;
            empty = 0;
        }
    }
    if (empty) M->wait += seconds() - idle_since;
    drain(M);
    return st;
}

void mpi_async_free(msearch *M)
{
    for (size_t i = 0; i < M->nfl; i++) free(M->fl_buf[i].b);
    free(M->fl_req);
    free(M->fl_idx);
    free(M->fl_buf);
    for (size_t i = 0; i < M->npool; i++) free(M->pool[i].b);
    free(M->pool);
    free(M->sent_to);
}
