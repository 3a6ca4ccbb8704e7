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

/* A source of events in order: an expanded trace, or a grammar walked by
 * tr_slp_each() (never stored: memory is the analysis' own). */
typedef struct source {
    const tr_names *names;
    const tr_trace *t;
    const tr_slp *g;
} source;

typedef bool (*event_fn)(void *ctx, uint64_t pos, const tr_event *e);

static bool each(const source *src, event_fn fn, void *ctx)
{
    if (src->g) return tr_slp_each(src->g, fn, ctx);
    for (uint64_t i = 0; i < src->t->n; i++)
        if (!fn(ctx, i, &src->t->ev[i])) return false;
    return true;
}

static source of_trace(const tr_trace *t) { return (source){&t->names, t, NULL}; }
static source of_slp(const tr_slp *g) { return (source){&g->names, NULL, g}; }

/* An analysis' pass stops early (its function returning false) either at
 * a finding or out of memory: nomem says which. */
typedef struct vc_ctx {
    vc_state s;
    tr_race *out;
    uint32_t *stamps; /* every event's clock (n x T) instead of stopping at a race */
    bool nomem;
} vc_ctx;

static bool vc_event(void *ctx, uint64_t i, const tr_event *e)
{
    vc_ctx *v = ctx;
    vc_state *sp = &v->s;
    tr_race *out = v->out;
    uint32_t T = sp->T, th = e->thread;
    uint32_t *Ct = sp->C + (size_t)th * T;
    Ct[th]++;
    switch ((tr_op)e->op) {
    case TR_ACQ:
        join_into(Ct, sp->L + (size_t)e->obj * T, T);
        break;
    case TR_REL:
        join_into(sp->L + (size_t)e->obj * T, Ct, T);
        break;
    case TR_FORK:
        join_into(sp->C + (size_t)e->obj * T, Ct, T);
        break;
    case TR_JOIN:
        join_into(Ct, sp->C + (size_t)e->obj * T, T);
        break;
    case TR_READ:
    case TR_WRITE: {
        uint32_t x = e->obj;
        if (!sp->W[x]) {
            sp->W[x] = calloc(T, sizeof **sp->W);
            sp->R[x] = calloc(T, sizeof **sp->R);
            sp->Wp[x] = calloc(T, sizeof **sp->Wp);
            sp->Rp[x] = calloc(T, sizeof **sp->Rp);
            if (!sp->W[x] || !sp->R[x] || !sp->Wp[x] || !sp->Rp[x]) {
                v->nomem = true;
                return false;
            }
        }
        if (!v->stamps) {
            /* the earliest unordered conflicting access: the smallest position */
            for (uint32_t u = 0; u < T; u++) {
                if (u == th) continue;
                if (sp->W[x][u] > Ct[u] && (!out->found || sp->Wp[x][u] < out->first)) {
                    out->found = true;
                    out->first = sp->Wp[x][u];
                    out->second = i;
                }
                if (e->op == TR_WRITE && sp->R[x][u] > Ct[u] &&
                    (!out->found || sp->Rp[x][u] < out->first)) {
                    out->found = true;
                    out->first = sp->Rp[x][u];
                    out->second = i;
                }
            }
            if (out->found) return false;
        }
        if (e->op == TR_WRITE) {
            sp->W[x][th] = Ct[th];
            sp->Wp[x][th] = i;
        } else {
            sp->R[x][th] = Ct[th];
            sp->Rp[x][th] = i;
        }
        break;
    }
    case TR_NOPS:
        break;
    }
    if (v->stamps) memcpy(v->stamps + (size_t)i * T, Ct, T * sizeof *Ct);
    return true;
}

/* Run the vector clocks over the source; with stamps != NULL, record every
 * event's clock (n x T) instead of stopping at the first race. */
static bool vc_run(const source *src, tr_race *out, uint32_t *stamps)
{
    vc_ctx v;
    memset(&v, 0, sizeof v);
    memset(out, 0, sizeof *out);
    v.out = out;
    v.stamps = stamps;
    const tr_names *n = src->names;
    uint32_t T = n->threads.n ? n->threads.n : 1;
    v.s.T = T;
    v.s.nvars = n->vars.n;
    v.s.C = calloc((size_t)T * T, sizeof *v.s.C);
    v.s.L = calloc((size_t)(n->locks.n ? n->locks.n : 1) * T, sizeof *v.s.L);
    v.s.W = calloc(v.s.nvars + 1, sizeof *v.s.W);
    v.s.R = calloc(v.s.nvars + 1, sizeof *v.s.R);
    v.s.Wp = calloc(v.s.nvars + 1, sizeof *v.s.Wp);
    v.s.Rp = calloc(v.s.nvars + 1, sizeof *v.s.Rp);
    bool ok = v.s.C && v.s.L && v.s.W && v.s.R && v.s.Wp && v.s.Rp;
    /* tr_slp_each fails out of memory for its own stack too */
    if (ok && !each(src, vc_event, &v) && (v.nomem || !out->found)) ok = false;
    vc_free(&v.s);
    return ok;
}

bool tr_race_vc(const tr_trace *t, tr_race *out)
{
    source src = of_trace(t);
    return vc_run(&src, out, NULL);
}

bool tr_race_vc_slp(const tr_slp *g, tr_race *out)
{
    source src = of_slp(g);
    return vc_run(&src, out, NULL);
}

uint32_t *tr_vc_stamps(const tr_trace *t)
{
    uint32_t T = t->names.threads.n ? t->names.threads.n : 1;
    uint32_t *st = calloc((size_t)t->n * T + 1, sizeof *st);
    tr_race r;
    source src = of_trace(t);
    if (!st) return NULL;
    if (!vc_run(&src, &r, st)) {
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

typedef struct gl_ctx {
    uint32_t T, nw;
    gl_set *W; /* per variable */
    gl_set *R; /* R[x * T + t] */
    /* every defined set, for the sync updates: pointers into W and R */
    gl_set **live;
    uint64_t nlive, lcap;
    tr_race *out;
    bool nomem;
} gl_ctx;

static bool gl_event(void *ctx, uint64_t i, const tr_event *e)
{
    gl_ctx *g = ctx;
    tr_race *out = g->out;
    uint32_t T = g->T, nw = g->nw, th = e->thread;
    switch ((tr_op)e->op) {
    case TR_READ:
    case TR_WRITE: {
        uint32_t x = e->obj;
        gl_set *W = g->W, *R = g->R;
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
        if (out->found) return false;
        gl_set *d = e->op == TR_WRITE ? &W[x] : &R[(size_t)x * T + th];
        if (!d->w) {
            /* room in `live` first, so that a set allocated is always freed */
            if (!tr_grow((void **)&g->live, &g->lcap, g->nlive + 1, sizeof *g->live) ||
                !(d->w = malloc(nw * sizeof *d->w))) {
                g->nomem = true;
                return false;
            }
            g->live[g->nlive++] = d;
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
        for (uint64_t k = 0; k < g->nlive; k++)
            if (gl_has(g->live[k]->w, has)) g->live[k]->w[add / 64] |= 1ull << (add % 64);
        break;
    }
    case TR_NOPS:
        break;
    }
    return true;
}

static bool gl_run(const source *src, tr_race *out)
{
    memset(out, 0, sizeof *out);
    gl_ctx g;
    memset(&g, 0, sizeof g);
    uint32_t T = src->names->threads.n, V = src->names->vars.n;
    uint32_t nu = T + src->names->locks.n;
    g.T = T;
    g.nw = nu ? (nu + 63) / 64 : 1;
    g.out = out;
    g.W = calloc(V + 1, sizeof *g.W);
    g.R = calloc((size_t)V * T + 1, sizeof *g.R);
    bool ok = g.W && g.R;
    if (ok && !each(src, gl_event, &g) && (g.nomem || !out->found)) ok = false;
    for (uint64_t k = 0; k < g.nlive; k++) free(g.live[k]->w);
    free(g.live);
    free(g.W);
    free(g.R);
    return ok;
}

bool tr_race_goldilocks(const tr_trace *t, tr_race *out)
{
    source src = of_trace(t);
    return gl_run(&src, out);
}

bool tr_race_goldilocks_slp(const tr_slp *g, tr_race *out)
{
    source src = of_slp(g);
    return gl_run(&src, out);
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

/* The Eraser passes: held-lock counts per (thread, lock), and the
 * releases still to come with no acquire before them (pass 0 counts them,
 * pass 1 uses them). */
typedef struct er_ctx {
    uint32_t L, nw;
    uint64_t *depth, *unm; /* per (thread, lock) */
    int pass;
    uint32_t x;            /* the variable watched, UINT32_MAX: all */
    uint64_t *meet;        /* one row per variable, or one for x */
    uint8_t *seen;         /* per row: preset or met once */
    uint64_t *last;        /* the set of the access at pos */
    uint64_t pos;
    uint32_t pos_var;      /* the variable of the access at pos */
} er_ctx;

/* The lockset of an access: the locks its thread holds (an acquire not yet
 * released, or a release yet to come whose acquire is not in the trace)
 * and the dummies Λt, Λ for a read. */
static void access_set(const er_ctx *c, const tr_event *e, uint64_t *s)
{
    uint32_t L = c->L, th = e->thread;
    memset(s, 0, c->nw * sizeof *s);
    for (uint32_t l = 0; l < L; l++)
        if (c->depth[(size_t)th * L + l] || c->unm[(size_t)th * L + l]) s[l / 64] |= 1ull << (l % 64);
    s[(L + 1 + th) / 64] |= 1ull << ((L + 1 + th) % 64);
    if (e->op == TR_READ) s[L / 64] |= 1ull << (L % 64);
}

static bool er_event(void *ctx, uint64_t i, const tr_event *e)
{
    er_ctx *c = ctx;
    size_t k = (size_t)e->thread * c->L + e->obj;
    if (e->op == TR_ACQ) c->depth[k]++;
    if (e->op == TR_REL) {
        if (c->depth[k])
            c->depth[k]--;
        else if (c->pass == 0)
            c->unm[k]++;
        else
            c->unm[k]--;
    }
    if (c->pass == 0 || (e->op != TR_READ && e->op != TR_WRITE) ||
        (c->x != UINT32_MAX && e->obj != c->x))
        return true;
    access_set(c, e, c->last);
    size_t row = c->x == UINT32_MAX ? e->obj : 0;
    uint64_t *m = c->meet + row * c->nw, any = 0;
    if (!c->seen[row]) memcpy(m, c->last, c->nw * sizeof *m);
    c->seen[row] = 1;
    for (uint32_t w = 0; w < c->nw; w++) any |= m[w] &= c->last[w];
    if (any) return true;
    c->pos = i;
    c->pos_var = e->obj;
    return false;
}

/* One run of both passes: at each access of c->x (of any variable when
 * UINT32_MAX), meet &= its set; stops at the first access whose meet
 * empties, c->pos (UINT64_MAX if none) and its set in c->last. */
static bool eraser_pass(const source *src, er_ctx *c)
{
    size_t tl = (size_t)src->names->threads.n * c->L + 1;
    c->pos = UINT64_MAX;
    for (c->pass = 0; c->pass < 2; c->pass++) {
        memset(c->depth, 0, tl * sizeof *c->depth);
        if (!each(src, er_event, c) && c->pos == UINT64_MAX) return false;
    }
    return true;
}

static bool eraser_run(const source *src, tr_violation *out)
{
    memset(out, 0, sizeof *out);
    uint32_t T = src->names->threads.n, L = src->names->locks.n, V = src->names->vars.n;
    er_ctx c = {.L = L, .nw = (L + 1 + T + 63) / 64, .x = UINT32_MAX};
    size_t tl = (size_t)T * L + 1;
    c.depth = calloc(tl, sizeof *c.depth);
    c.unm = calloc(tl, sizeof *c.unm);
    c.meet = calloc((size_t)V * c.nw + c.nw, sizeof *c.meet);
    c.last = calloc(c.nw, sizeof *c.last);
    c.seen = calloc((size_t)V + 1, 1);
    bool ok = c.depth && c.unm && c.meet && c.last && c.seen && eraser_pass(src, &c);
    uint64_t p = c.pos;
    if (ok && p != UINT64_MAX) {
        /* from the set of the access at p: the accesses of x up to q share
         * nothing with it (at the latest the last access before p) */
        memcpy(c.meet, c.last, c.nw * sizeof *c.meet);
        memset(c.unm, 0, tl * sizeof *c.unm);
        c.seen[0] = 1;
        uint32_t x = c.pos_var;
        c.x = x;
        ok = eraser_pass(src, &c);
        if (ok) *out = (tr_violation){true, x, c.pos < p ? c.pos : p, p};
    }
    free(c.depth);
    free(c.unm);
    free(c.meet);
    free(c.last);
    free(c.seen);
    return ok;
}

bool tr_lockset(const tr_trace *t, tr_violation *out)
{
    source src = of_trace(t);
    return eraser_run(&src, out);
}

bool tr_lockset_slp(const tr_slp *g, tr_violation *out)
{
    source src = of_slp(g);
    return eraser_run(&src, out);
}
