/* oracle.c: the analyses on the expanded stream, the baseline and the
 * oracle of the grammar analyses (notes-ratcop-ziptrack.md A1):
 *   - vector clocks, Djit+ style: every event of t ticks t's clock, so an
 *     event's clock orders it exactly (e <=HB e' iff C(e)[t(e)] <=
 *     C(e')[t(e)]); an access races with the last conflicting access of
 *     each other thread not ordered before it;
 *   - Goldilocks (Elmas, Qadeer, Tasiran, PLDI 2007) with the update rules
 *     of ZipTrack's complexity proof (A1): GLS^W(x), GLS^R(t,x) over
 *     Threads + Locks, every sync event updating every set;
 *   - the Eraser discipline exactly as ZipTrack defines it (A1, Def. E.1):
 *     no state machine, dummy locks Λ (read only) and Λt (only t), LocksHeld
 *     re-entrant and, as Def. C.1 says, also holding a lock whose later
 *     release has no acquire before it in the trace.
 * Each stops at its first finding except Eraser, which reads the whole
 * trace (its verdict is on the final locksets). */
#include "slp_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- vector clocks ------------------------------------------------------------------ */

typedef struct vc_state {
    uint32_t T;
    uint32_t *C;    /* T x T: thread clocks */
    uint32_t *L;    /* nlocks x T */
    uint32_t **W;   /* per var: T clocks of the last write of each thread (NULL: none yet) */
    uint32_t **R;   /* per var: T clocks of the last read */
    uint64_t **Wp;  /* positions of those */
    uint64_t **Rp;
    uint32_t nvars;
} vc_state;

static void vc_free(vc_state *s)
{
    free(s->C);
    free(s->L);
    for (uint32_t x = 0; s->W && x < s->nvars; x++) {
        free(s->W[x]);
        free(s->R[x]);
        free(s->Wp[x]);
        free(s->Rp[x]);
    }
    free(s->W);
    free(s->R);
    free(s->Wp);
    free(s->Rp);
}

static void join_into(uint32_t *d, const uint32_t *s, uint32_t T)
{
    for (uint32_t i = 0; i < T; i++)
        if (s[i] > d[i]) d[i] = s[i];
}

/* Run the vector clocks over t; with stamps != NULL, record every event's
 * clock (n x T) instead of stopping at the first race. */
static bool vc_run(const tr_trace *t, tr_race *out, uint32_t *stamps)
{
    vc_state s;
    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    uint32_t T = t->names.threads.n ? t->names.threads.n : 1;
    s.T = T;
    s.nvars = t->names.vars.n;
    s.C = calloc((size_t)T * T, sizeof *s.C);
    s.L = calloc((size_t)(t->names.locks.n ? t->names.locks.n : 1) * T, sizeof *s.L);
    s.W = calloc(s.nvars + 1, sizeof *s.W);
    s.R = calloc(s.nvars + 1, sizeof *s.R);
    s.Wp = calloc(s.nvars + 1, sizeof *s.Wp);
    s.Rp = calloc(s.nvars + 1, sizeof *s.Rp);
    bool ok = false;
    if (!s.C || !s.L || !s.W || !s.R || !s.Wp || !s.Rp) goto out;
    for (uint64_t i = 0; i < t->n; i++) {
        const tr_event *e = &t->ev[i];
        uint32_t th = e->thread;
        uint32_t *Ct = s.C + (size_t)th * T;
        Ct[th]++;
        switch ((tr_op)e->op) {
        case TR_ACQ:
            join_into(Ct, s.L + (size_t)e->obj * T, T);
            break;
        case TR_REL:
            join_into(s.L + (size_t)e->obj * T, Ct, T);
            break;
        case TR_FORK:
            join_into(s.C + (size_t)e->obj * T, Ct, T);
            break;
        case TR_JOIN:
            join_into(Ct, s.C + (size_t)e->obj * T, T);
            break;
        case TR_READ:
        case TR_WRITE: {
            uint32_t x = e->obj;
            if (!s.W[x]) {
                s.W[x] = calloc(T, sizeof **s.W);
                s.R[x] = calloc(T, sizeof **s.R);
                s.Wp[x] = calloc(T, sizeof **s.Wp);
                s.Rp[x] = calloc(T, sizeof **s.Rp);
                if (!s.W[x] || !s.R[x] || !s.Wp[x] || !s.Rp[x]) goto out;
            }
            if (!stamps && !out->found) {
                /* the earliest unordered conflicting access: the smallest position */
                for (uint32_t u = 0; u < T; u++) {
                    if (u == th) continue;
                    if (s.W[x][u] > Ct[u] && (!out->found || s.Wp[x][u] < out->first)) {
                        out->found = true;
                        out->first = s.Wp[x][u];
                        out->second = i;
                    }
                    if (e->op == TR_WRITE && s.R[x][u] > Ct[u] &&
                        (!out->found || s.Rp[x][u] < out->first)) {
                        out->found = true;
                        out->first = s.Rp[x][u];
                        out->second = i;
                    }
                }
                if (out->found) {
                    ok = true;
                    goto out;
                }
            }
            if (e->op == TR_WRITE) {
                s.W[x][th] = Ct[th];
                s.Wp[x][th] = i;
            } else {
                s.R[x][th] = Ct[th];
                s.Rp[x][th] = i;
            }
            break;
        }
        case TR_NOPS:
            break;
        }
        if (stamps) memcpy(stamps + (size_t)i * T, Ct, T * sizeof *Ct);
    }
    ok = true;
out:
    vc_free(&s);
    return ok;
}

bool tr_race_vc(const tr_trace *t, tr_race *out) { return vc_run(t, out, NULL); }

uint32_t *tr_vc_stamps(const tr_trace *t)
{
    uint32_t T = t->names.threads.n ? t->names.threads.n : 1;
    uint32_t *st = calloc((size_t)t->n * T + 1, sizeof *st);
    tr_race r;
    if (!st) return NULL;
    if (!vc_run(t, &r, st)) {
        free(st);
        return NULL;
    }
    return st;
}

bool tr_vc_races(const tr_trace *t, const uint32_t *stamps, uint64_t a, uint64_t b)
{
    if (a >= t->n || b >= t->n || a == b) return false;
    const tr_event *ea = &t->ev[a], *eb = &t->ev[b];
    bool acc_a = ea->op == TR_READ || ea->op == TR_WRITE;
    bool acc_b = eb->op == TR_READ || eb->op == TR_WRITE;
    if (!acc_a || !acc_b || ea->obj != eb->obj || ea->thread == eb->thread) return false;
    if (ea->op != TR_WRITE && eb->op != TR_WRITE) return false;
    uint32_t T = t->names.threads.n ? t->names.threads.n : 1;
    if (a > b) {
        uint64_t c = a;
        a = b;
        b = c;
        ea = &t->ev[a];
    }
    /* a <=HB b iff C(a)[t(a)] <= C(b)[t(a)] */
    return stamps[(size_t)a * T + ea->thread] > stamps[(size_t)b * T + ea->thread];
}

/* ---- Goldilocks ------------------------------------------------------------------------- */

typedef struct gl_set {
    uint64_t *w; /* nw words; NULL: undefined (After(undefined) = ∅) */
    uint64_t pos;
} gl_set;

static inline bool gl_has(const uint64_t *s, uint32_t u) { return s[u / 64] >> (u % 64) & 1; }

bool tr_race_goldilocks(const tr_trace *t, tr_race *out)
{
    memset(out, 0, sizeof *out);
    uint32_t T = t->names.threads.n, V = t->names.vars.n;
    uint32_t nu = T + t->names.locks.n, nw = nu ? (nu + 63) / 64 : 1;
    gl_set *W = calloc(V + 1, sizeof *W);
    gl_set *R = calloc((size_t)V * T + 1, sizeof *R); /* R[x * T + t] */
    /* every defined set, for the sync updates: pointers into W and R */
    gl_set **live = NULL;
    uint64_t nlive = 0, lcap = 0;
    bool ok = false;
    if (!W || !R) goto out;
    for (uint64_t i = 0; i < t->n; i++) {
        const tr_event *e = &t->ev[i];
        uint32_t th = e->thread;
        switch ((tr_op)e->op) {
        case TR_READ:
        case TR_WRITE: {
            uint32_t x = e->obj;
            if (W[x].w && !gl_has(W[x].w, th)) {
                out->found = true;
                out->first = W[x].pos;
                out->second = i;
            }
            if (e->op == TR_WRITE)
                for (uint32_t u = 0; u < T; u++) {
                    gl_set *r = &R[(size_t)x * T + u];
                    if (r->w && !gl_has(r->w, th) && (!out->found || r->pos < out->first)) {
                        out->found = true;
                        out->first = r->pos;
                        out->second = i;
                    }
                }
            if (out->found) {
                ok = true;
                goto out;
            }
            gl_set *d = e->op == TR_WRITE ? &W[x] : &R[(size_t)x * T + th];
            if (!d->w) {
                /* room in `live` first, so that a set allocated is always freed */
                if (!tr_grow((void **)&live, &lcap, nlive + 1, sizeof *live) ||
                    !(d->w = malloc(nw * sizeof *d->w)))
                    goto out;
                live[nlive++] = d;
            }
            memset(d->w, 0, nw * sizeof *d->w);
            d->w[th / 64] |= 1ull << (th % 64);
            d->pos = i;
            break;
        }
        case TR_ACQ:
        case TR_REL:
        case TR_FORK:
        case TR_JOIN: {
            /* acq(l) by t: t joins every set holding l; rel(l): l joins every
             * set holding t; fork(u): u joins those holding t; join(u): t
             * joins those holding u */
            uint32_t has, add;
            if (e->op == TR_ACQ) {
                has = T + e->obj;
                add = th;
            } else if (e->op == TR_REL) {
                has = th;
                add = T + e->obj;
            } else if (e->op == TR_FORK) {
                has = th;
                add = e->obj;
            } else {
                has = e->obj;
                add = th;
            }
            for (uint64_t k = 0; k < nlive; k++)
                if (gl_has(live[k]->w, has)) live[k]->w[add / 64] |= 1ull << (add % 64);
            break;
        }
        case TR_NOPS:
            break;
        }
    }
    ok = true;
out:
    for (uint64_t k = 0; k < nlive; k++) free(live[k]->w);
    free(live);
    free(W);
    free(R);
    return ok;
}

/* ---- the Eraser discipline (ZipTrack's, Def. E.1) ---------------------------------------- */

bool tr_lockset_vars(const tr_trace *t, bool *viol)
{
    uint32_t T = t->names.threads.n, L = t->names.locks.n, V = t->names.vars.n;
    uint32_t nu = L + 1 + T, nw = (nu + 63) / 64;
    uint64_t *depth = calloc((size_t)T * L + 1, sizeof *depth);
    uint64_t *unm = calloc((size_t)T * L + 1, sizeof *unm); /* releases yet to come without an acquire */
    uint64_t *ls = calloc((size_t)V * T * nw + 1, sizeof *ls); /* LockSet(t,x) */
    uint8_t *acc = calloc((size_t)V * T + 1, 1);               /* 0 none, 1 reads only, 2 written */
    uint64_t *held = calloc(nw, sizeof *held);
    bool ok = false;
    if (!depth || !unm || !ls || !acc || !held) goto out;
    /* pass 1: the releases with no acquire before them (Def. C.1's "a later
     * rel whose match is outside") */
    for (uint64_t i = 0; i < t->n; i++) {
        const tr_event *e = &t->ev[i];
        size_t k = (size_t)e->thread * L + e->obj;
        if (e->op == TR_ACQ) depth[k]++;
        if (e->op == TR_REL) {
            if (depth[k])
                depth[k]--;
            else
                unm[k]++;
        }
    }
    memset(depth, 0, ((size_t)T * L + 1) * sizeof *depth);
    for (uint64_t i = 0; i < t->n; i++) {
        const tr_event *e = &t->ev[i];
        uint32_t th = e->thread;
        if (e->op == TR_ACQ) depth[(size_t)th * L + e->obj]++;
        if (e->op == TR_REL) {
            size_t k = (size_t)th * L + e->obj;
            if (depth[k])
                depth[k]--;
            else
                unm[k]--;
        }
        if (e->op != TR_READ && e->op != TR_WRITE) continue;
        memset(held, 0, nw * sizeof *held);
        for (uint32_t l = 0; l < L; l++)
            if (depth[(size_t)th * L + l] || unm[(size_t)th * L + l]) held[l / 64] |= 1ull << (l % 64);
        size_t a = (size_t)e->obj * T + th;
        uint64_t *s = ls + a * nw;
        if (!acc[a]) {
            memcpy(s, held, nw * sizeof *s);
            acc[a] = 1;
        } else {
            for (uint32_t w = 0; w < nw; w++) s[w] &= held[w];
        }
        if (e->op == TR_WRITE) acc[a] = 2;
    }
    for (uint32_t x = 0; x < V; x++) {
        bool any = false, empty = true;
        for (uint32_t w = 0; w < nw; w++) {
            uint64_t m = UINT64_MAX;
            for (uint32_t u = 0; u < T; u++) {
                size_t a = (size_t)x * T + u;
                if (!acc[a]) continue;
                any = true;
                uint64_t s = ls[a * nw + w];
                uint32_t lt = L + 1 + u;
                if (lt / 64 == w) s |= 1ull << (lt % 64);
                if (acc[a] == 1 && L / 64 == w) s |= 1ull << (L % 64);
                m &= s;
            }
            if (m) empty = false;
        }
        viol[x] = any && empty;
    }
    ok = true;
out:
    free(depth);
    free(unm);
    free(ls);
    free(acc);
    free(held);
    return ok;
}

/* The lockset of event i (an access): the locks its thread holds (an
 * acquire not yet released, or a release yet to come whose acquire is not
 * in the trace) and the dummies Λt, Λ for a read. */
static void access_set(const tr_trace *t, const uint64_t *depth, const uint64_t *unm, uint64_t i,
                       uint64_t *s, uint32_t nw)
{
    uint32_t L = t->names.locks.n, th = t->ev[i].thread;
    memset(s, 0, nw * sizeof *s);
    for (uint32_t l = 0; l < L; l++)
        if (depth[(size_t)th * L + l] || unm[(size_t)th * L + l]) s[l / 64] |= 1ull << (l % 64);
    s[(L + 1 + th) / 64] |= 1ull << ((L + 1 + th) % 64);
    if (t->ev[i].op == TR_READ) s[L / 64] |= 1ull << (L % 64);
}

/* One pass with held-lock counts: at each access of x (of any variable
 * when x == UINT32_MAX), meet &= its set; stops at the first access whose
 * meet empties, *pos (UINT64_MAX if none) and its set in `last`. meet has
 * one row of nw words per variable (x == UINT32_MAX) or one row for x, and
 * seen[row] says whether the row is preset (else the first access sets it). */
static bool eraser_pass(const tr_trace *t, uint32_t x, uint64_t *meet, uint8_t *seen,
                        uint64_t *pos, uint64_t *last)
{
    uint32_t T = t->names.threads.n, L = t->names.locks.n;
    uint32_t nw = (L + 1 + T + 63) / 64;
    uint64_t *depth = calloc((size_t)T * L + 1, sizeof *depth);
    uint64_t *unm = calloc((size_t)T * L + 1, sizeof *unm);
    bool ok = depth && unm;
    *pos = UINT64_MAX;
    for (int pass = 0; ok && pass < 2; pass++) { /* 0: the releases with no acquire before them */
        for (uint64_t i = 0; i < t->n; i++) {
            const tr_event *e = &t->ev[i];
            size_t k = (size_t)e->thread * L + e->obj;
            if (e->op == TR_ACQ) depth[k]++;
            if (e->op == TR_REL) {
                if (depth[k])
                    depth[k]--;
                else if (pass == 0)
                    unm[k]++;
                else
                    unm[k]--;
            }
            if (pass == 0 || (e->op != TR_READ && e->op != TR_WRITE) ||
                (x != UINT32_MAX && e->obj != x))
                continue;
            access_set(t, depth, unm, i, last, nw);
            size_t row = x == UINT32_MAX ? e->obj : 0;
            uint64_t *m = meet + row * nw, any = 0;
            if (!seen[row]) memcpy(m, last, nw * sizeof *m);
            seen[row] = 1;
            for (uint32_t w = 0; w < nw; w++) any |= m[w] &= last[w];
            if (!any) {
                *pos = i;
                break;
            }
        }
        memset(depth, 0, ((size_t)T * L + 1) * sizeof *depth);
    }
    free(depth);
    free(unm);
    return ok;
}

bool tr_lockset(const tr_trace *t, tr_violation *out)
{
    memset(out, 0, sizeof *out);
    uint32_t T = t->names.threads.n, L = t->names.locks.n, V = t->names.vars.n;
    uint32_t nw = (L + 1 + T + 63) / 64;
    uint64_t *meet = calloc((size_t)V * nw + nw, sizeof *meet);
    uint64_t *last = calloc(nw, sizeof *last);
    uint8_t *seen = calloc((size_t)V + 1, 1);
    uint64_t p = UINT64_MAX, q = UINT64_MAX;
    bool ok = meet && last && seen && eraser_pass(t, UINT32_MAX, meet, seen, &p, last);
    if (ok && p != UINT64_MAX) {
        /* from the set of the access at p: the accesses of x up to q share
         * nothing with it (at the latest the last access before p) */
        uint32_t x = t->ev[p].obj;
        memcpy(meet, last, nw * sizeof *meet);
        seen[0] = 1;
        ok = eraser_pass(t, x, meet, seen, &q, last);
        if (ok) *out = (tr_violation){true, x, q < p ? q : p, p};
    }
    free(meet);
    free(last);
    free(seen);
    return ok;
}
