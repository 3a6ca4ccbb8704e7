/* mpi.c: the distributed breadth-first search over MPI (mcheck-mpi), after
 * Stern and Dill's parallel Murphi (CAV 1997) and LTSmin's distributed BFS:
 * every state has an owner rank chosen by a hash of it, each rank keeps the
 * states it owns in an ordinary store of its own (store.h, --store=exact or
 * compact), expands the frontier it owns, and sends each successor to its
 * owner. Level-synchronous: a level is expanded in rounds; a round ends with
 * every rank exchanging its batches (MPI_Alltoallv) and one MPI_Allreduce
 * that agrees on what comes next (more of the level, the next level, or a
 * stop: an error, a limit, out of memory). Every exchange is collective, so
 * when the Allreduce says a level made no new state there is no message in
 * flight: termination needs no Safra or NBX. Each owner keeps, per state, its
 * parent's (rank, index) and the step into it; an error's path is read off
 * those links by all ranks together (one MPI_Bcast per step, from the
 * owner), so every rank ends with the same result. With --por, a state is
 * expanded by a persistent set (por.c) under a static cycle proviso (see
 * expand()). A successor this rank owns is inserted at once, never sent.
 * That is the level-synchronous search (the default, --exchange=levels:
 * shortest traces, --max-depth); without levels or barriers
 * (--exchange=async) it is mpi_async.c's loop over the same expansion and
 * insertion. Not here: depth-first order,
 * threads inside a rank, bitstate, --dump-states (docs/architecture.md). */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_int.h"
#include "por_int.h"
#include "reduce_mpi.h"

/* ---- ownership ------------------------------------------------------------- */

/* splitmix64's finalizer: the owner comes from every bit of the hash, so
 * that a rank's own compact store, which takes its buckets from the low bits
 * and interpolates on the high ones, still sees uniform fingerprints. (sstore
 * takes its shard from the low bits and stores hash >> k instead; an ordinary
 * store cannot.) */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The 32-bit digest of local set id: the same bits give the same digest on
 * every rank. */
static bool set_digest(msearch *M, uint32_t id, uint32_t *out)
{
    if (id >= M->ndigest) {
        size_t nn = M->ndigest ? M->ndigest : 64;
        while (nn <= id) nn *= 2;
        uint64_t *nd = realloc(M->digest, nn * sizeof *nd);
        if (!nd) return false;
        memset(nd + M->ndigest, 0, (nn - M->ndigest) * sizeof *nd);
        M->set_bytes += (nn - M->ndigest) * sizeof *nd;
        M->digest = nd;
        M->ndigest = nn;
    }
    if (!M->digest[id]) {
        const uint64_t *w = ls_set_bits(M->S.det, id);
        uint64_t h = store_hash64(w, (size_t)M->words * 8);
        M->digest[id] = (1ull << 32) | (uint32_t)h;
    }
    *out = (uint32_t)M->digest[id];
    return true;
}

/* The owner's hash of a marked vector: the vector with every set id
 * replaced by its set's digest, so that equal states made on different
 * ranks (different ids) have the same owner. 0 with out of memory set. */
static bool owner_hash(msearch *M, const uint8_t *v, uint64_t *h)
{
    search *S = &M->S;
    if (!M->nids) {
        *h = mix64(store_hash64(v, S->vsize));
        return true;
    }
    memcpy(M->hv, v, S->vsize);
    for (uint32_t i = 0; i < M->nids; i++) {
        uint32_t d;
        if (!set_digest(M, (uint32_t)vm_rd32(v, M->ids[i]), &d)) return false;
        vm_wr32(M->hv, M->ids[i], (int32_t)d);
    }
    *h = mix64(store_hash64(M->hv, S->vsize));
    return true;
}

/* Rank r owns the hashes whose top 32 bits (after mix64) fall in the r-th
 * of k equal ranges. */
static inline int owner_of(uint64_t h, int k)
{
    return (int)(((h >> 32) * (uint64_t)k) >> 32);
}

/* ---- growable arrays -------------------------------------------------------- */

static bool grow(void **a, uint64_t *cap, uint64_t need, size_t entry)
{
    if (need <= *cap) return true;
    uint64_t nc = *cap ? *cap * 2 : 1024;
    while (nc < need) nc *= 2;
    if (nc > SIZE_MAX / entry) return false;
    void *na = realloc(*a, (size_t)(nc * entry));
    if (!na) return false;
    *a = na;
    *cap = nc;
    return true;
}

/* Room for n more bytes at the end of b; NULL when out of memory. */
static uint8_t *out_room(obuf *b, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 65536;
        while (nc < b->n + n) nc *= 2;
        uint8_t *nb = realloc(b->b, nc);
        if (!nb) return NULL;
        b->b = nb;
        b->cap = nc;
    }
    return b->b + b->n;
}

static bool out_put(obuf *b, const void *data, size_t n)
{
    uint8_t *at = out_room(b, n);
    if (!at) return false;
    memcpy(at, data, n);
    b->n += n;
    return true;
}

/* Append record r (and vector v) to the batch for rank d. */
static bool out_rec(msearch *M, int d, const mb_rec *r, const uint8_t *v)
{
    obuf *b = &M->out[d];
    uint8_t *at = out_room(b, mb_max(M->S.vsize));
    if (!at) return false;
    b->n += mb_put(&M->enc[d], at, r, v);
    return true;
}

/* ---- expansion --------------------------------------------------------------- */

static bool receive_state(msearch *M, int src, const mb_rec *h, const uint8_t *vec,
                          const uint8_t *outp, uint32_t depth);

void mpi_batch_reset(msearch *M, int d)
{
    M->out[d].n = 0;
    mb_reset(&M->enc[d]);
    M->out_depth[d] = UINT32_MAX;
}

/* Successor v (marked) of local state pidx by (tid, choice), at `depth`:
 * inserted here if this rank owns it, else appended to its owner's batch,
 * after the bits of every set it names that the owner has not been sent
 * yet, and after a depth record when the batch's states were at another
 * depth. False when the search must stop (S.lim.stop says why). */
static bool emit(msearch *M, const uint8_t *v, const step_outcome *out, uint64_t pidx,
                 int32_t tid, uint64_t choice, uint32_t depth)
{
    search *S = &M->S;
    uint64_t h;
    if (!owner_hash(M, v, &h)) goto nomem;
    int d = owner_of(h, M->k);
    bool err = out->kind != VERDICT_OK;
    mb_rec rh = {.type = err ? MB_ERROR : MB_STATE, .tid = (uint32_t)tid, .choice = choice,
                 .pidx = pidx};
    if (d == M->me) return receive_state(M, d, &rh, v, (const uint8_t *)out, depth);
    obuf *b = &M->out[d];
    if (M->out_depth[d] != depth) {
        mb_rec dr = {.type = MB_DEPTH, .pidx = depth};
        if (!out_rec(M, d, &dr, NULL)) goto nomem;
        M->out_depth[d] = depth;
    }
    for (uint32_t i = 0; d != M->me && i < M->nids; i++) {
        uint32_t id = (uint32_t)vm_rd32(v, M->ids[i]);
        if (id == 0) continue; /* the empty set is 0 everywhere */
        size_t byte = id >> 3;
        if (byte >= M->nsent[d]) {
            size_t nn = M->nsent[d] ? M->nsent[d] : 64;
            while (nn <= byte) nn *= 2;
            uint8_t *ns = realloc(M->sent[d], nn);
            if (!ns) goto nomem;
            memset(ns + M->nsent[d], 0, nn - M->nsent[d]);
            M->set_bytes += nn - M->nsent[d];
            M->sent[d] = ns;
            M->nsent[d] = nn;
        }
        if (M->sent[d][byte] & (1u << (id & 7))) continue;
        M->sent[d][byte] |= (uint8_t)(1u << (id & 7));
        mb_rec sh = {.type = MB_SET, .pidx = id};
        if (!out_rec(M, d, &sh, NULL) ||
            !out_put(b, ls_set_bits(S->det, id), (size_t)M->words * 8))
            goto nomem;
    }
    if (out_rec(M, d, &rh, v) && (!err || out_put(b, out, sizeof *out)))
        return !M->async || b->n < M->batch || mpi_async_flush(M, d);
nomem:
    rt_stop(&S->lim, STOP_NOMEM);
    return false;
}

/* Run every step of frontier state `from` (local index idx). False when the
 * search must stop (S->lim.stop says why).
 *
 * --por: the steps of a persistent set (por.c) only. The sequential BFS and
 * -j expand a state fully when one of its reduced successors had been seen
 * before (their cycle proviso), which needs the store's answer where the
 * state is expanded; here the successors are inserted at their owners, a
 * round later. So the proviso is a static one (Valmari's; LTSmin's
 * distributed POR): a state is expanded fully when its persistent set holds
 * a thread whose step may run a backward control transfer, a jump or branch
 * to a pc <= its own or a wait (por_may_close_cycle()). On any cycle of the
 * reduced graph some thread moves and comes back to its pc, so its walk over
 * its control-flow graph has an edge whose target <= its source; the step
 * that runs it leaves from a state of the cycle whose persistent set held
 * that thread, and that state is expanded fully: the cycle condition C3
 * (por.c has the whole argument, the folded start of a spawned thread
 * included). The persistent set is por_persistent()'s, or when that holds
 * such a thread the smallest closure of one seed that holds none, if there
 * is one (por_persistent_avoiding()). As in the sequential BFS, a state
 * with a step into an error is expanded fully too (an error state ends its
 * path, where the other threads' steps would have gone on). Both decisions
 * look at the state alone, so the reduced graph, and every count, is the
 * same for any number of ranks. */
bool mpi_expand(msearch *M, const uint8_t *from, uint64_t idx)
{
    search *S = &M->S;
    const uint32_t depth = M->links[idx].depth + 1;
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    const bool use_por = S->por && por_applies(S->por);
    uint64_t enabled = 0, todo = 0;
    if (use_por) {
        enabled = enabled_mask(p, from);
        uint64_t closing = 0; /* the enabled threads whose step may close a cycle */
        for (uint64_t m = enabled; m; m &= m - 1)
            if (por_may_close_cycle(S->por, from, __builtin_ctzll(m))) closing |= m & -m;
        todo = por_persistent_avoiding(S->por, from, enabled, closing);
        if (todo != enabled) {
            x->por_reduced++;
            if (todo & closing) { /* the proviso */
                todo = enabled;
                x->por_proviso++;
            }
        }
    }
    bool erred = false;
again:
    for (int32_t t = 0; t < (int32_t)p->nthreads; t++) {
        if (use_por && !((todo >> t) & 1)) continue;
        uint64_t n = vm_enabled(p, from, t);
        for (uint64_t c = 0; c < n; c++) {
            memcpy(M->succ, from, S->ssize);
            step_outcome out;
            if (!run_step(S, M->succ, t, c, &out)) return false;
            x->transitions++;
            erred |= out.kind != VERDICT_OK;
            mark_outcome(S, M->succ, &out);
            if (!emit(M, M->succ, &out, idx, t, c, depth)) return false;
        }
    }
    if (use_por && erred && todo != enabled) { /* the error proviso: the others too */
        todo = enabled & ~todo;
        enabled = todo; /* once */
        x->por_proviso++;
        goto again;
    }
    return true;
}

/* ---- insertion at the owner ------------------------------------------------- */

/* A new state v and its link: into the next level (levels) or at the
 * queue's end (async; the queue moves down when its front half is spent).
 * False when out of memory. */
static bool push(msearch *M, const uint8_t *v, mlink l)
{
    search *S = &M->S;
    if (M->async) {
        if (M->ncur == M->cur_cap && M->qhead && M->qhead >= M->ncur / 2) {
            memmove(M->cur, M->cur + M->qhead * S->vsize, (M->ncur - M->qhead) * S->vsize);
            M->cur_first += M->qhead;
            M->ncur -= M->qhead;
            M->qhead = 0;
        }
        if (!grow((void **)&M->cur, &M->cur_cap, M->ncur + 1, S->vsize)) return false;
        memcpy(M->cur + M->ncur++ * S->vsize, v, S->vsize);
        if (l.depth > M->res.stats.max_depth) M->res.stats.max_depth = l.depth;
    } else {
        if (!grow((void **)&M->nxt, &M->nxt_cap, M->nnxt + 1, S->vsize)) return false;
        memcpy(M->nxt + M->nnxt++ * S->vsize, v, S->vsize);
    }
    if (!grow((void **)&M->links, &M->links_cap, M->nlinks + 1, sizeof *M->links)) return false;
    M->links[M->nlinks++] = l;
    return true;
}

/* Insert a state received from rank src (its vector in src's set ids), at
 * depth `depth`. False when the search must stop. */
static bool receive_state(msearch *M, int src, const mb_rec *h, const uint8_t *vec,
                          const uint8_t *outp, uint32_t depth)
{
    search *S = &M->S;
    uint8_t *v = M->recv;
    memcpy(v, vec, S->vsize);
    for (uint32_t i = 0; src != M->me && i < M->nids; i++) {
        uint32_t id = (uint32_t)vm_rd32(v, M->ids[i]);
        if (id == 0) continue;
        assert(id < M->nmap[src] && M->map[src][id] != UINT32_MAX && "a set sent before its use");
        vm_wr32(v, M->ids[i], (int32_t)M->map[src][id]);
    }
    step_outcome out = {.kind = VERDICT_OK, .elem = UINT32_MAX};
    if (h->type == MB_ERROR) memcpy(&out, outp, sizeof out);
    uint32_t first;
    uint64_t nfirst;
    int rc = insert_prepared(S, v, &out, 0, false, false, false, &first, &nfirst);
    explore_step via = {(int32_t)h->tid, h->choice};
    if (rc == INS_STOP) return false;
    if (rc == INS_NEW) {
        if (!push(M, v, (mlink){.pidx = h->pidx, .via = via, .prank = (uint32_t)src,
                                .depth = depth})) {
            rt_stop(&M->S.lim, STOP_NOMEM);
            return false;
        }
    } else if (rc == INS_ERROR) {
        uint32_t before = M->res.nerrors;
        bool go_on = record_error(S, &out, NULL, 0);
        if (M->res.nerrors > before) {
            kept *nk = realloc(M->kept, M->res.nerrors * sizeof *nk);
            if (!nk) {
                rt_stop(&M->S.lim, STOP_NOMEM);
                return false;
            }
            M->kept = nk;
            nk[before] = (kept){.pidx = h->pidx, .via = via, .prank = (uint32_t)src,
                                .depth = depth};
        }
        if (!go_on) return false;
    }
    return true;
}

/* The records rank src sent, in order. False when the search must stop. */
bool mpi_receive(msearch *M, int src, const uint8_t *b, size_t n)
{
    search *S = &M->S;
    size_t setb = (size_t)M->words * 8;
    mb_ctx *c = &M->dec[src];
    mb_reset(c);
    for (size_t pos = 0; pos < n;) {
        mb_rec h;
        size_t k = mb_get(c, b + pos, n - pos, &h);
        assert(k && "a record as mb_put wrote it");
        if (!k) goto nomem;
        pos += k;
        if (h.type == MB_DEPTH) {
            if (h.pidx > UINT32_MAX) goto nomem;
            M->in_depth[src] = (uint32_t)h.pidx;
            continue;
        }
        if (h.type == MB_SET) {
            uint64_t *w = (uint64_t *)M->hv; /* scratch, aligned by malloc */
            memcpy(w, b + pos, setb);
            pos += setb;
            uint32_t id = ls_intern_bits(S->det, w);
            if (id == UINT32_MAX) goto nomem;
            if (h.pidx >= M->nmap[src]) {
                size_t nn = M->nmap[src] ? M->nmap[src] : 64;
                while (nn <= h.pidx) nn *= 2;
                uint32_t *nm = realloc(M->map[src], nn * sizeof *nm);
                if (!nm) goto nomem;
                for (size_t i = M->nmap[src]; i < nn; i++) nm[i] = UINT32_MAX;
                M->set_bytes += (nn - M->nmap[src]) * sizeof *nm;
                M->map[src] = nm;
                M->nmap[src] = nn;
            }
            M->map[src][h.pidx] = id;
            continue;
        }
        const uint8_t *outp = b + pos;
        if (h.type == MB_ERROR) pos += sizeof(step_outcome);
        if (!receive_state(M, src, &h, c->prev, outp, M->in_depth[src])) return false;
    }
    return true;
nomem:
    rt_stop(&M->S.lim, STOP_NOMEM);
    return false;
}

/* ---- the exchange -------------------------------------------------------------- */

/* One round's exchange: every rank's batches to their owners. `go`: this
 * rank may send (false: it sends nothing, having stopped). Collective. False
 * if some rank could not take what it was sent (then nothing was sent, and
 * every rank stops with STOP_NOMEM). */
static bool exchange(msearch *M)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool fits = true;
    for (int d = 0; d < M->k; d++) fits &= M->out[d].n <= INT_MAX;
    if (!fits) rt_stop(&M->S.lim, STOP_NOMEM);
    for (int d = 0; d < M->k; d++) M->sc[d] = fits ? (int)M->out[d].n : 0;
    MPI_Alltoall(M->sc, 1, MPI_INT, M->rc, 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0, sent = 0;
    int ok = 1;
    for (int d = 0; d < M->k; d++) {
        M->sd[d] = (int)sent;
        M->rd[d] = (int)total;
        sent += (size_t)M->sc[d];
        total += (size_t)M->rc[d];
    }
    if (sent > INT_MAX || total > INT_MAX) ok = 0; /* displacements are ints */
    if (ok && total > M->in_cap) {
        uint8_t *ni = realloc(M->in, total);
        if (ni) {
            M->in = ni;
            M->in_cap = total;
        } else {
            ok = 0;
        }
    }
    /* the send buffer: the batches one after another */
    uint8_t *sendb = NULL;
    if (ok && sent) {
        sendb = malloc(sent);
        if (!sendb) ok = 0;
        for (int d = 0; sendb && d < M->k; d++)
            if (M->sc[d]) memcpy(sendb + M->sd[d], M->out[d].b, (size_t)M->sc[d]);
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        MPI_Alltoallv(sendb, M->sc, M->sd, MPI_BYTE, M->in, M->rc, M->rd, MPI_BYTE,
                      MPI_COMM_WORLD);
        for (int d = 0; d < M->k; d++)
            if (d != M->me && M->sc[d]) {
                M->msgs++;
                M->bytes += (uint64_t)M->sc[d];
            }
    }
    free(sendb);
    for (int d = 0; d < M->k; d++) mpi_batch_reset(M, d);
    M->wait += now_since(&t0);
    if (!all_ok) {
        rt_stop(&M->S.lim, STOP_NOMEM);
        return false;
    }
    if (M->S.lim.stop != STOP_COMPLETE) return true; /* stopped: what came is not inserted */
    for (int src = 0; src < M->k; src++)
        if (!mpi_receive(M, src, M->in + M->rd[src], (size_t)M->rc[src])) break;
    return true;
}

/* The bytes --memlimit counts on this rank: the store, the links and the
 * frontiers, the batches and set tables, the errors kept. */
static uint64_t rank_memory(const msearch *M)
{
    uint64_t m = store_bytes(M->S.st) + M->links_cap * sizeof(mlink) +
                 (M->cur_cap + M->nxt_cap) * M->S.vsize + M->in_cap + M->set_bytes +
                 M->S.lim.error_bytes + M->fl_bytes;
    for (int d = 0; d < M->k; d++) m += M->out[d].cap;
    for (size_t i = 0; i < M->npool; i++) m += M->pool[i].cap;
    return m;
}

/* Every round: memory, interrupt, time (a stop is agreed in the round's
 * MPI_Allreduce, or async, in the next wave). */
void mpi_local_limits(msearch *M)
{
    runtime *rt = &M->S.lim;
    double t = 0;
    if (rt_memory_over(M->o, rank_memory(M))) rt_stop(rt, STOP_MEMLIMIT);
    rt_stop(rt, rt_check_time(rt, M->o, &t));
}

/* What the ranks agree on after each round (one MPI_Allreduce, sums). */
enum { CTL_MORE, CTL_NEW, CTL_STORED, CTL_TRANS, CTL_STOP0, CTL_N = CTL_STOP0 + STOP_DELAY + 1 };

stop_reason mpi_agreed_stop(const uint64_t *stops)
{
    for (int s = STOP_ERROR; s <= STOP_DELAY; s++) /* an error first */
        if (stops[s]) return (stop_reason)s;
    return STOP_COMPLETE;
}

static void agree(msearch *M, bool more, uint64_t *ctl)
{
    uint64_t mine[CTL_N] = {0};
    mine[CTL_MORE] = more;
    mine[CTL_NEW] = M->nnxt;
    mine[CTL_STORED] = M->res.stats.states_stored;
    mine[CTL_TRANS] = M->res.stats.transitions;
    mine[CTL_STOP0 + M->S.lim.stop] = 1;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    MPI_Allreduce(mine, ctl, CTL_N, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    M->wait += now_since(&t0);
}

/* The levels, from the initial state (in cur at its owner); `total`: the
 * ranks' frontier sizes, summed. Returns the agreed stop. */
static stop_reason levels(msearch *M, uint64_t total)
{
    search *S = &M->S;
    const explore_options *o = M->o;
    explore_stats *x = &M->res.stats;
    const uint64_t round = o->mpi_round_bytes ? o->mpi_round_bytes : (uint64_t)4 << 20;
    for (uint64_t level = 0; total > 0; level++) {
        x->max_depth = level;
        M->nnxt = 0;
        uint64_t ctl[CTL_N];
        if (o->max_depth && level >= o->max_depth) { /* pruned here: is it cut short? */
            for (uint64_t i = 0; i < M->ncur; i++)
                if (any_enabled(S->p, M->cur + i * S->vsize)) M->truncated = true;
            break;
        }
        uint64_t pos = 0;
        for (;;) { /* rounds */
            while (S->lim.stop == STOP_COMPLETE && pos < M->ncur) {
                if (!mpi_expand(M, M->cur + pos * S->vsize, M->cur_first + pos)) break;
                pos++;
                size_t queued = 0;
                for (int d = 0; d < M->k; d++) queued += M->out[d].n;
                if (queued >= round) break;
            }
            mpi_local_limits(M);
            exchange(M);
            agree(M, pos < M->ncur && S->lim.stop == STOP_COMPLETE, ctl);
            stop_reason st = mpi_agreed_stop(ctl + CTL_STOP0);
            if (M->me == 0) { /* the ranks' counts, summed */
                double t = now_since(&S->lim.t0);
                if (rt_progress_due(&S->lim, o, t))
                    rt_progress_line(o->progress, t, ctl[CTL_STORED], ctl[CTL_TRANS],
                                     "level %" PRIu64 ", %d ranks", level, M->k);
            }
            if (st != STOP_COMPLETE) return st;
            if (!ctl[CTL_MORE]) break;
        }
        total = ctl[CTL_NEW];
        /* the next level */
        uint8_t *t = M->cur;
        M->cur = M->nxt;
        M->nxt = t;
        uint64_t tc = M->cur_cap;
        M->cur_cap = M->nxt_cap;
        M->nxt_cap = tc;
        M->cur_first = M->nlinks - M->nnxt;
        M->ncur = M->nnxt;
    }
    return STOP_COMPLETE;
}

/* ---- set up, statistics, tear down ---------------------------------------------- */

const char *explore_mpi_unsupported(const explore_options *o)
{
    if (o->liveness) return o->liveness == LIVENESS_NPC ? "--liveness=npc" : "--liveness=starvation";
    if (o->ltl || o->ltl_text) return "--ltl";
    if (o->check_lasso) return "a lasso's check";
    if (o->scheduling_races) return "--scheduling=races";
    if (o->search != SEARCH_BFS)
        return o->search == SEARCH_DFS ? "--search=dfs" : "--search=stateless";
    if (o->por && o->reduce != REDUCE_COMPOSE) return "--por without composed steps";
    if (o->workers) return "-j";
    if (o->store.kind == STORE_BITSTATE) return "--store=bitstate";
    if (o->dump_states) return "--dump-states";
    if (o->lookahead != LOOKAHEAD_AUTO && o->lookahead != LOOKAHEAD_OFF) return "--lookahead";
    if (o->target || o->max_states) return "a shortening search";
    if (o->max_depth && o->mpi_async) return "--max-depth with --exchange=async";
    return NULL;
}

static void msearch_free(msearch *M)
{
    search *S = &M->S;
    store_free(S->st);
    ls_free(S->det);
    free(S->ran);
    free(S->env.fold_undo);
    por_free(S->por);
    explore_result_free(&M->res);
    free(M->cur);
    free(M->nxt);
    free(M->links);
    free(M->kept);
    for (int d = 0; M->out && d < M->k; d++) free(M->out[d].b);
    free(M->out);
    for (int d = 0; M->enc && d < M->k; d++) free(M->enc[d].prev);
    for (int d = 0; M->dec && d < M->k; d++) free(M->dec[d].prev);
    free(M->enc);
    free(M->dec);
    free(M->in);
    free(M->sc);
    free(M->rc);
    free(M->sd);
    free(M->rd);
    free(M->succ);
    free(M->recv);
    free(M->hv);
    free(M->ids);
    free(M->digest);
    for (int d = 0; M->sent && d < M->k; d++) free(M->sent[d]);
    free(M->sent);
    free(M->nsent);
    for (int d = 0; M->map && d < M->k; d++) free(M->map[d]);
    free(M->map);
    free(M->nmap);
    free(M->ranks);
    free(M->out_depth);
    free(M->in_depth);
    free(M->exp);
    mpi_async_free(M);
}

static bool msearch_init(msearch *M, const vm_program *p, const explore_options *o)
{
    search *S = &M->S;
    MPI_Comm_rank(MPI_COMM_WORLD, &M->me);
    MPI_Comm_size(MPI_COMM_WORLD, &M->k);
    M->o = o;
    M->async = o->mpi_async;
    S->p = p;
    S->o = o;
    S->r = &M->res;
    /* the first progress line after --mpi-progress seconds, then one every
     * --mpi-progress (0: every round) */
    rt_start(&S->lim, o->mpi_progress, o->mpi_progress);
    /* --por: statically discharged elements get no metadata (as explore.c) */
    if (ls_needed(o->race, p) && !(S->det = ls_new_opts(o->race, p, p->layout.size, o->por)))
        return false;
    if (S->det) ls_hooks(S->det, &S->hooks);
    search_layout(S, 0);
    S->ran = step_ran_new(p);
    search_env(S, &S->lim.t0); /* --por: a spawn step folds the child's start (step.c) */
    S->por = o->por ? por_new(p) : NULL;
    if (o->por && (!S->env.fold_undo || !S->por || !por_cycle_tables(S->por))) return false;
    S->st = store_new(&o->store, S->vsize);
    size_t k = (size_t)M->k;
    M->out = calloc(k, sizeof *M->out);
    M->sc = calloc(k, sizeof *M->sc);
    M->rc = calloc(k, sizeof *M->rc);
    M->sd = calloc(k, sizeof *M->sd);
    M->rd = calloc(k, sizeof *M->rd);
    M->sent = calloc(k, sizeof *M->sent);
    M->nsent = calloc(k, sizeof *M->nsent);
    M->map = calloc(k, sizeof *M->map);
    M->nmap = calloc(k, sizeof *M->nmap);
    M->ranks = calloc(k, sizeof *M->ranks);
    M->enc = calloc(k, sizeof *M->enc);
    M->dec = calloc(k, sizeof *M->dec);
    M->out_depth = malloc(k * sizeof *M->out_depth);
    M->in_depth = calloc(k, sizeof *M->in_depth);
    M->sent_to = calloc(k, sizeof *M->sent_to);
    bool codec = M->enc && M->dec && M->out_depth && M->in_depth && M->sent_to;
    for (size_t d = 0; M->out_depth && d < k; d++) M->out_depth[d] = UINT32_MAX;
    for (size_t d = 0; codec && d < k; d++) {
        M->enc[d] = (mb_ctx){.prev = calloc(1, S->vsize), .vsize = S->vsize};
        M->dec[d] = (mb_ctx){.prev = calloc(1, S->vsize), .vsize = S->vsize};
        codec = M->enc[d].prev && M->dec[d].prev;
    }
    M->set_bytes += 2 * k * S->vsize; /* counted with the set tables */
    M->words = S->det ? ls_set_words(S->det) : 0;
    size_t scratch = S->wsize > (size_t)M->words * 8 ? S->wsize : (size_t)M->words * 8;
    M->succ = calloc(1, S->wsize);
    M->exp = calloc(1, S->wsize);
    M->recv = calloc(1, S->wsize);
    M->hv = calloc(1, scratch);
    M->nids = S->det ? ls_id_offsets(S->det, NULL) : 0;
    M->ids = M->nids ? malloc(M->nids * sizeof *M->ids) : NULL;
    if (M->ids) ls_id_offsets(S->det, M->ids);
    if (M->async && !mpi_async_init(M)) return false;
    return codec && S->ran && S->st && M->out && M->sc && M->rc && M->sd && M->rd && M->sent &&
           M->nsent && M->map && M->nmap && M->ranks && M->succ && M->exp && M->recv && M->hv &&
           (!M->nids || M->ids);
}

/* The initial state, inserted at its owner (every rank builds it). False
 * when out of memory. */
static bool initial(msearch *M)
{
    search *S = &M->S;
    uint8_t *s0 = M->succ;
    /* with --por, the static threads' invisible starts run (explore.c), on
     * every rank; the owner counts their instructions */
    explore_stats starts = {0};
    if (!search_initial(S, s0, &starts)) return false;
    step_outcome out = {.kind = VERDICT_OK, .elem = UINT32_MAX};
    mark_outcome(S, s0, &out);
    uint64_t h;
    if (!owner_hash(M, s0, &h)) return false;
    if (owner_of(h, M->k) != M->me) return true;
    M->res.stats.instructions += starts.instructions;
    M->res.stats.invisible += starts.invisible;
    uint32_t first;
    uint64_t nfirst;
    int rc = insert_prepared(S, s0, &out, 0, false, false, false, &first, &nfirst);
    if (rc == INS_STOP) return false;
    if (rc == INS_ERROR) {
        record_error(S, &out, NULL, 0);
        M->kept = malloc(sizeof *M->kept);
        if (!M->kept) return false;
        M->kept[0] = (kept){.prank = UINT32_MAX, .depth = 0};
        return true;
    }
    if (!grow((void **)&M->cur, &M->cur_cap, 1, S->vsize) ||
        !grow((void **)&M->links, &M->links_cap, 1, sizeof *M->links))
        return false;
    memcpy(M->cur, s0, S->vsize);
    M->ncur = 1;
    M->cur_first = 0;
    M->links[0] = (mlink){.prank = UINT32_MAX, .via = {-1, 0}};
    M->nlinks = 1;
    return true;
}

int explore_mpi(const vm_program *p, const explore_options *o, explore_result *r)
{
    memset(r, 0, sizeof *r);
    r->engine = &engine_mpi; /* its rows: the common ones and a row per rank */
    if (explore_mpi_unsupported(o)) {
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        return -1;
    }
    msearch *M = calloc(1, sizeof *M);
    int ok = M && msearch_init(M, p, o) && initial(M), all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (M) msearch_free(M);
        free(M);
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        return -1;
    }
    /* the initial state's level: how many own it (one), or an error there */
    uint64_t mine[2] = {M->ncur, M->res.nerrors}, sum[2];
    MPI_Allreduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    stop_reason stop = sum[1] && !o->all_errors ? STOP_ERROR
                       : M->async                ? mpi_async_search(M)
                                                 : levels(M, sum[0]);
    rt_stop(&M->S.lim, stop);

    totals(M, r);
    int trunc = M->truncated, any_trunc;
    MPI_Allreduce(&trunc, &any_trunc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (stop == STOP_COMPLETE && any_trunc) stop = STOP_DEPTH;
    unsigned max = o->all_errors ? (o->max_traces ? o->max_traces : 10) : 1;
    if (!gather_errors(M, r, max) && stop == STOP_COMPLETE) stop = STOP_NOMEM;
    rt_result(r, stop, o);
    /* what any rank ran: the ran rows are one block after the row pointers */
    size_t rows = p->nbodies * sizeof(uint8_t *), bytes = 0;
    for (uint32_t b = 0; b < p->nbodies; b++) bytes += p->bodies[b].ncode;
    uint8_t *ran = (uint8_t *)M->S.ran + rows;
    if (bytes) MPI_Allreduce(MPI_IN_PLACE, ran, (int)bytes, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    if (stop == STOP_COMPLETE) collect_unreached(p, M->S.ran, r);
    search_finish_stats(&r->stats, &M->S.lim.t0);
    msearch_free(M);
    free(M);
    return 0;
}

/* ---- the engine ------------------------------------------------------------- */

static bool mpi_selects(const explore_options *o)
{
    (void)o;
    return true; /* named by the options, never picked from the table */
}

static const char *mpi_refuses(const explore_options *o, char *msg, size_t n)
{
    const char *what = explore_mpi_unsupported(o);
    if (!what) return NULL;
    snprintf(msg, n, "%s is not supported by mcheck-mpi (its search is breadth-first or "
                     "asynchronous, over an exact or compact store in each rank)", what);
    return msg;
}

const engine engine_mpi = {
    .name = "mpi",
    .selects = mpi_selects,
    .refuses = mpi_refuses,
    .drive = explore_mpi,
};
