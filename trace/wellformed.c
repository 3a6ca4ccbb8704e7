/* wellformed.c: whether a trace (or a grammar's trace) satisfies what the
 * analyses assume (trace.h, "well-formedness"; notes A1: a child is forked
 * and joined by the same parent; A8: two joiners of one thread give false
 * races, a release without its acquire breaks the open counts of A3). One
 * streaming pass with per-thread and per-lock state; the grammar's check
 * adds its structure and walks the expanded trace (tr_slp_each). */
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
    bool bad;
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

static bool step(void *ctx, uint64_t pos, const tr_event *e)
{
    wf *w = ctx;
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
    } else if (!tr_slp_each(g, step, &w) && !w.bad) {
        goto out;
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
    return run(&g->names, NULL, g, pos, why, n);
}
