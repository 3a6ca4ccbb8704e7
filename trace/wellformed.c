/* wellformed.c: whether a trace (or a grammar's trace) satisfies what the
 * analyses assume (trace.h, "well-formedness"; notes A1: a child is forked
 * and joined by the same parent; A8: two joiners of one thread give false
 * races, a release without its acquire breaks the open counts of A3). One
 * streaming pass with per-thread and per-lock state; the grammar's check
 * adds its structure, decides from per-rule summaries (below, linear in the
 * grammar) and only for a bad grammar walks the expanded trace
 * (tr_slp_each) to the first offending event. */
#include "slp_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct wf {
    const tr_names *names;
    uint32_t *forked_by, *joined_by, *owner; /* per thread, thread, lock */
    uint64_t *depth;                         /* per lock */
    uint8_t *ran;                            /* per thread */
    char *why;
    size_t n;
    uint64_t bad_pos;
    bool bad, capped;
} wf;

static void fail(wf *w, uint64_t pos, const char *fmt, ...)
{
    va_list ap;
    w->bad = true;
    w->bad_pos = pos;
    if (!w->n) return;
    va_start(ap, fmt);
    vsnprintf(w->why, w->n, fmt, ap);
    va_end(ap);
}

static const char *th(const wf *w, uint32_t t)
{
    return t < w->names->threads.n ? w->names->threads.v[t] : "?";
}

/* The stream walk that names the first offending event of a grammar the
 * summaries found bad gives up after this many events (about a second in
 * a Release build; the unit tests lower it). */
uint64_t tr_wf_locate_max = 100000000ull;

static bool step(void *ctx, uint64_t pos, const tr_event *e)
{
    wf *w = ctx;
    if (w->capped && pos >= tr_wf_locate_max) {
        fail(w, UINT64_MAX,
             "the trace breaks the fork, join or lock rules; its first offending event lies "
             "beyond event %llu",
             (unsigned long long)tr_wf_locate_max);
        return false;
    }
    uint32_t t = e->thread, o = e->obj;
    if (w->joined_by[t] != NONE) {
        fail(w, pos, "thread '%s' has an event after its join", th(w, t));
        return false;
    }
    w->ran[t] = 1;
    switch ((tr_op)e->op) {
    case TR_FORK:
        if (o == t) {
            fail(w, pos, "thread '%s' forks itself", th(w, t));
            return false;
        }
        if (w->forked_by[o] != NONE) {
            fail(w, pos, "thread '%s' is forked twice", th(w, o));
            return false;
        }
        if (w->ran[o] || w->joined_by[o] != NONE) {
            fail(w, pos, "thread '%s' is forked after its first event", th(w, o));
            return false;
        }
        w->forked_by[o] = t;
        break;
    case TR_JOIN:
        if (o == t) {
            fail(w, pos, "thread '%s' joins itself", th(w, t));
            return false;
        }
        if (w->joined_by[o] != NONE) {
            fail(w, pos, "thread '%s' is joined twice (by '%s' and '%s')", th(w, o),
                 th(w, w->joined_by[o]), th(w, t));
            return false;
        }
        if (w->forked_by[o] != NONE && w->forked_by[o] != t) {
            fail(w, pos, "thread '%s' is forked by '%s' but joined by '%s'", th(w, o),
                 th(w, w->forked_by[o]), th(w, t));
            return false;
        }
        w->joined_by[o] = t;
        break;
    case TR_ACQ:
        if (w->owner[o] != NONE && w->owner[o] != t) {
            fail(w, pos, "thread '%s' acquires lock '%s' held by '%s'", th(w, t),
                 w->names->locks.v[o], th(w, w->owner[o]));
            return false;
        }
        w->owner[o] = t;
        w->depth[o]++;
        break;
    case TR_REL:
        if (w->owner[o] != t) {
            fail(w, pos, "thread '%s' releases lock '%s' it does not hold", th(w, t),
                 w->names->locks.v[o]);
            return false;
        }
        if (--w->depth[o] == 0) w->owner[o] = NONE;
        break;
    case TR_READ:
    case TR_WRITE:
    case TR_NOPS:
        break;
    }
    return true;
}

static tr_wf run(const tr_names *names, const tr_trace *t, const tr_slp *g, uint64_t *pos,
                 char *why, size_t n)
{
    wf w;
    memset(&w, 0, sizeof w);
    w.names = names;
    w.why = why;
    w.n = n;
    uint32_t T = names->threads.n + 1, L = names->locks.n + 1;
    w.forked_by = malloc(T * sizeof *w.forked_by);
    w.joined_by = malloc(T * sizeof *w.joined_by);
    w.owner = malloc(L * sizeof *w.owner);
    w.depth = calloc(L, sizeof *w.depth);
    w.ran = calloc(T, 1);
    tr_wf rc = TR_WF_NOMEM;
    if (!w.forked_by || !w.joined_by || !w.owner || !w.depth || !w.ran) goto out;
    memset(w.forked_by, 0xff, T * sizeof *w.forked_by);
    memset(w.joined_by, 0xff, T * sizeof *w.joined_by);
    memset(w.owner, 0xff, L * sizeof *w.owner);
    if (t) {
        for (uint64_t i = 0; i < t->n && !w.bad; i++) step(&w, i, &t->ev[i]);
    } else {
        w.capped = true;
        if (!tr_slp_each(g, step, &w) && !w.bad) goto out;
        if (!w.bad) { /* cannot happen: the summaries and the stream agree */
            fail(&w, UINT64_MAX, "the trace breaks the fork, join or lock rules");
        }
    }
    rc = w.bad ? TR_WF_BAD : TR_WF_OK;
    if (w.bad) *pos = w.bad_pos;
out:
    free(w.forked_by);
    free(w.joined_by);
    free(w.owner);
    free(w.depth);
    free(w.ran);
    return rc;
}

static bool event_ok(const tr_names *nm, const tr_event *e)
{
    if (e->op >= TR_NOPS || e->thread >= nm->threads.n) return false;
    if (e->loc != TR_NO_LOC && e->loc >= nm->locs.n) return false;
    switch ((tr_op)e->op) {
    case TR_READ:
    case TR_WRITE:
        return e->obj < nm->vars.n;
    case TR_ACQ:
    case TR_REL:
        return e->obj < nm->locks.n;
    case TR_FORK:
    case TR_JOIN:
        return e->obj < nm->threads.n;
    case TR_NOPS:
        break;
    }
    return false;
}

tr_wf tr_check_wellformed(const tr_trace *t, uint64_t *pos, char *why, size_t n)
{
    *pos = UINT64_MAX;
    for (uint64_t i = 0; i < t->n; i++)
        if (!event_ok(&t->names, &t->ev[i])) {
            *pos = i;
            snprintf(why, n, "event %" PRIu64 " names an unknown thread, lock, variable or location", i);
            return TR_WF_BAD;
        }
    return run(&t->names, t, NULL, pos, why, n);
}

tr_wf tr_slp_check(const tr_slp *g, uint64_t *pos, char *why, size_t n)
{
    *pos = UINT64_MAX;
    if (g->nrules == 0) {
        snprintf(why, n, "the grammar has no rules");
        return TR_WF_BAD;
    }
    for (uint32_t i = 0; i < g->nterms; i++)
        if (!event_ok(&g->names, &g->terms[i])) {
            snprintf(why, n, "terminal %" PRIu32 " names an unknown thread, lock, variable or location", i);
            return TR_WF_BAD;
        }
    for (uint32_t r = 0; r < g->nrules; r++) {
        if (g->body[r + 1] < g->body[r]) {
            snprintf(why, n, "rule %" PRIu32 " has a negative length", r);
            return TR_WF_BAD;
        }
        if (r > 0 && g->body[r + 1] - g->body[r] < 2) {
            snprintf(why, n, "rule %" PRIu32 " has fewer than two symbols", r);
            return TR_WF_BAD;
        }
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++)
            if ((uint64_t)g->sym[i] >= (uint64_t)g->nterms + g->nrules) {
                snprintf(why, n, "rule %" PRIu32 " names symbol %" PRIu32 ", beyond the grammar", r,
                         g->sym[i]);
                return TR_WF_BAD;
            }
    }
    uint32_t *order = malloc(g->nrules * sizeof *order), cnt;
    if (!order) return TR_WF_NOMEM;
    int rc = tr_slp_topo(g, order, &cnt);
    free(order);
    if (rc == -1) return TR_WF_NOMEM;
    if (rc == -2) {
        snprintf(why, n, "the rules form a cycle");
        return TR_WF_BAD;
    }
    /* the verdict in time linear in the grammar; the stream only to name
     * the first offending event of a bad one */
    int ok = tr_wf_summary_ok(g);
    if (ok < 0) return TR_WF_NOMEM;
    if (ok) return TR_WF_OK;
    return run(&g->names, NULL, g, pos, why, n);
}

/* ---- the same verdict from per-rule summaries ------------------------------------------------ */

/* So that a grammar of 2^60 events is checked in time linear in the
 * grammar: per rule, per thread u it touches, whether u has events of its
 * own, is forked, is joined (and by whom), and per lock a small monoid of
 * its operations' effect. Every thread rule of the stream check relates
 * two events (or one), so a pair split by a rule A -> B C is seen where B's
 * and C's summaries meet. For a lock, the stream check (from a free lock)
 * fails iff some operation comes while another thread holds it or a
 * release finds it not held; a chunk's operations are either by one
 * thread, SINGLE(t, m, d): balance d (acquires minus releases) and least
 * prefix balance m (<= 0), valid from a free lock iff m >= 0 and from
 * t holding it at depth k iff k + m >= 0; or by several, MULTI(req, exit):
 * the first thread must end its hold exactly before another thread's first
 * operation, so the one entry state that works is req (free, or t holding
 * at depth k), and the exit state (free, or t' at depth e) no longer
 * depends on the entry. The combination of two is one of these again, or
 * bad whatever comes before. */

#define WF_RAN 1
#define WF_FORKED 2
#define WF_JOINED 4

typedef struct wf_th {
    uint32_t u, fork_by, join_by;
    uint8_t flags;
} wf_th;

typedef struct wf_lk {
    uint32_t l;
    bool multi;
    /* SINGLE: t, m, d. MULTI: req (rt, rk; rk 0 = free), exit (et, ek) */
    uint32_t t, rt, et;
    int64_t m, d, rk, ek;
} wf_lk;

typedef struct wf_sum {
    bool bad;
    wf_th *th;
    uint32_t nth;
    wf_lk *lk;
    uint32_t nlk;
} wf_sum;

static void ws_free(wf_sum *s)
{
    free(s->th);
    free(s->lk);
    memset(s, 0, sizeof *s);
}

static bool ws_leaf(const tr_event *e, wf_sum *o)
{
    memset(o, 0, sizeof *o);
    bool lk = e->op == TR_ACQ || e->op == TR_REL;
    bool other = e->op == TR_FORK || e->op == TR_JOIN;
    o->th = calloc(2, sizeof *o->th);
    o->lk = lk ? calloc(1, sizeof *o->lk) : NULL;
    if (!o->th || (lk && !o->lk)) {
        ws_free(o);
        return false;
    }
    wf_th a = {e->thread, NONE, NONE, WF_RAN};
    if (other && e->obj == e->thread) {
        o->bad = true; /* forks or joins itself */
        o->th[0] = a;
        o->nth = 1;
        return true;
    }
    if (other) {
        wf_th b = {e->obj, NONE, NONE, e->op == TR_FORK ? WF_FORKED : WF_JOINED};
        if (e->op == TR_FORK) b.fork_by = e->thread;
        else b.join_by = e->thread;
        o->th[0] = e->obj < e->thread ? b : a;
        o->th[1] = e->obj < e->thread ? a : b;
        o->nth = 2;
    } else {
        o->th[0] = a;
        o->nth = 1;
    }
    if (lk) {
        int64_t d = e->op == TR_ACQ ? 1 : -1;
        o->lk[0] = (wf_lk){e->obj, false, e->thread, 0, 0, d < 0 ? -1 : 0, d, 0, 0};
        o->nlk = 1;
    }
    return true;
}

/* The lock monoid: x then y; false when bad whatever the context. */
static bool lk_combine(const wf_lk *x, const wf_lk *y, wf_lk *o)
{
    *o = *x;
    if (!x->multi && !y->multi) {
        if (x->t == y->t) {
            o->m = x->m < x->d + y->m ? x->m : x->d + y->m;
            o->d = x->d + y->d;
            return true;
        }
        /* x's thread must end free, at its lowest point; y starts free */
        if (x->d > 0 || x->m < x->d || y->m < 0) return false;
        o->multi = true;
        o->rt = x->t;
        o->rk = -x->d;
        o->et = y->t;
        o->ek = y->d;
        return true;
    }
    if (!x->multi) { /* SINGLE(t, m, d) then MULTI */
        int64_t k = y->rk;
        if (k > 0 && y->rt != x->t) return false;
        int64_t entry = k - x->d; /* t's depth before x */
        if (entry < 0 || entry + x->m < 0) return false;
        if (k == 0 && x->m < x->d) return false; /* x ends free at its lowest point */
        o->multi = true;
        o->rt = x->t;
        o->rk = entry;
        o->et = y->et;
        o->ek = y->ek;
        return true;
    }
    if (!y->multi) { /* MULTI then SINGLE(t', m, d) */
        if (x->ek > 0 && x->et != y->t) return false;
        int64_t k = x->ek > 0 ? x->ek : 0;
        if (k + y->m < 0) return false;
        o->et = y->t;
        o->ek = k + y->d;
        return true;
    }
    if (x->ek != y->rk || (x->ek > 0 && x->et != y->rt)) return false;
    o->et = y->et;
    o->ek = y->ek;
    return true;
}

static bool ws_combine(const wf_sum *B, const wf_sum *C, wf_sum *o)
{
    memset(o, 0, sizeof *o);
    o->bad = B->bad || C->bad;
    o->th = malloc(((size_t)B->nth + C->nth + 1) * sizeof *o->th);
    o->lk = malloc(((size_t)B->nlk + C->nlk + 1) * sizeof *o->lk);
    if (!o->th || !o->lk) {
        ws_free(o);
        return false;
    }
    for (uint32_t i = 0, j = 0; i < B->nth || j < C->nth;) {
        const wf_th *b = i < B->nth && (j == C->nth || B->th[i].u <= C->th[j].u) ? &B->th[i] : NULL;
        const wf_th *c = j < C->nth && (i == B->nth || C->th[j].u <= B->th[i].u) ? &C->th[j] : NULL;
        wf_th d = b ? *b : *c;
        if (b && c) {
            if ((c->flags & WF_FORKED) && b->flags) o->bad = true;
            if ((b->flags & WF_JOINED) && c->flags) o->bad = true;
            if ((c->flags & WF_JOINED) && (b->flags & WF_FORKED) && b->fork_by != c->join_by)
                o->bad = true;
            d.flags = b->flags | c->flags;
            if (c->flags & WF_FORKED) d.fork_by = c->fork_by;
            if (c->flags & WF_JOINED) d.join_by = c->join_by;
        }
        o->th[o->nth++] = d;
        i += b != NULL;
        j += c != NULL;
    }
    for (uint32_t i = 0, j = 0; i < B->nlk || j < C->nlk;) {
        const wf_lk *b = i < B->nlk && (j == C->nlk || B->lk[i].l <= C->lk[j].l) ? &B->lk[i] : NULL;
        const wf_lk *c = j < C->nlk && (i == B->nlk || C->lk[j].l <= B->lk[i].l) ? &C->lk[j] : NULL;
        wf_lk d = b ? *b : *c;
        if (b && c && !lk_combine(b, c, &d)) o->bad = true;
        o->lk[o->nlk++] = d;
        i += b != NULL;
        j += c != NULL;
    }
    return true;
}

int tr_wf_summary_ok(const tr_slp *g)
{
    if (g->nrules == 0) return 1;
    uint32_t cnt = 0;
    wf_sum *sums = calloc(g->nrules, sizeof *sums);
    uint32_t *order = malloc(g->nrules * sizeof *order);
    uint64_t *left = calloc(g->nrules, sizeof *left);
    int rc = -1;
    if (!sums || !order || !left || tr_slp_topo(g, order, &cnt) != 0) goto out;
    for (uint32_t k = 0; k < cnt; k++)
        for (uint64_t i = g->body[order[k]]; i < g->body[order[k] + 1]; i++)
            if (g->sym[i] >= g->nterms) left[g->sym[i] - g->nterms]++;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t r = order[k];
        wf_sum acc, leaf, nxt;
        memset(&acc, 0, sizeof acc);
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++) {
            uint32_t s = g->sym[i];
            const wf_sum *x;
            memset(&leaf, 0, sizeof leaf);
            if (s < g->nterms) {
                if (!ws_leaf(&g->terms[s], &leaf)) {
                    ws_free(&acc);
                    goto out;
                }
                x = &leaf;
            } else {
                x = &sums[s - g->nterms];
            }
            bool ok = ws_combine(&acc, x, &nxt);
            ws_free(&leaf);
            ws_free(&acc);
            if (!ok) goto out;
            acc = nxt;
        }
        sums[r] = acc;
        if (acc.bad) {
            rc = 0;
            goto out;
        }
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++)
            if (g->sym[i] >= g->nterms && --left[g->sym[i] - g->nterms] == 0)
                ws_free(&sums[g->sym[i] - g->nterms]);
    }
    /* the trace starts with every lock free */
    rc = 1;
    for (uint32_t i = 0; i < sums[0].nlk; i++) {
        const wf_lk *l = &sums[0].lk[i];
        if (l->multi ? l->rk != 0 : l->m < 0) rc = 0;
    }
out:
    if (sums)
        for (uint32_t r = 0; r < g->nrules; r++) ws_free(&sums[r]);
    free(sums);
    free(order);
    free(left);
    return rc;
}
