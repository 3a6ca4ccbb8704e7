/* trace.c: the plumbing of the trace module (trace.h): name tables, traces,
 * grammars, the lengths and first positions of rules, and the in-order walk
 * over a grammar's events. Nothing here recurses over a grammar: a grammar
 * may be a DAG of depth 10^6 (a left comb), so every traversal keeps its own
 * stack (notes A8, "Memory"). The analyses are elsewhere (oracle.c,
 * slp_hb.c, slp_lockset.c); so is the well-formedness check (wellformed.c). */
#include "slp_int.h"

#include <stdlib.h>
#include <string.h>

bool tr_grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint64_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > UINT64_MAX / 2) return false;
        c *= 2;
    }
    if (c > SIZE_MAX / elem) return false;
    void *q = realloc(*p, (size_t)(c * elem));
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

/* ---- names ----------------------------------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static bool rehash(tr_table *t, uint32_t icap)
{
    uint32_t *idx = calloc(icap, sizeof *idx);
    if (!idx) return false;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t h = (uint32_t)hash_bytes(t->v[i], strlen(t->v[i])) & (icap - 1);
        while (idx[h]) h = (h + 1) & (icap - 1);
        idx[h] = i + 1;
    }
    free(t->idx);
    t->idx = idx;
    t->icap = icap;
    return true;
}

uint32_t tr_intern(tr_table *t, const char *name, size_t len)
{
    if (t->icap) {
        uint32_t h = (uint32_t)hash_bytes(name, len) & (t->icap - 1);
        while (t->idx[h]) {
            const char *s = t->v[t->idx[h] - 1];
            if (strncmp(s, name, len) == 0 && s[len] == '\0') return t->idx[h] - 1;
            h = (h + 1) & (t->icap - 1);
        }
    }
    if (t->n >= UINT32_MAX - 1) return UINT32_MAX;
    if ((uint64_t)(t->n + 1) * 2 > t->icap) {
        if (t->icap > UINT32_MAX / 2) return UINT32_MAX;
        if (!rehash(t, t->icap ? t->icap * 2 : 16)) return UINT32_MAX;
    }
    if (t->n == t->cap) {
        uint64_t cap = t->cap;
        if (!tr_grow((void **)&t->v, &cap, (uint64_t)t->n + 1, sizeof *t->v)) return UINT32_MAX;
        t->cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    char *s = malloc(len + 1);
    if (!s) return UINT32_MAX;
    memcpy(s, name, len);
    s[len] = '\0';
    uint32_t id = t->n++;
    t->v[id] = s;
    uint32_t h = (uint32_t)hash_bytes(name, len) & (t->icap - 1);
    while (t->idx[h]) h = (h + 1) & (t->icap - 1);
    t->idx[h] = id + 1;
    return id;
}

static void table_free(tr_table *t)
{
    for (uint32_t i = 0; i < t->n; i++) free(t->v[i]);
    free(t->v);
    free(t->idx);
    memset(t, 0, sizeof *t);
}

void tr_names_free(tr_names *n)
{
    if (!n) return;
    table_free(&n->threads);
    table_free(&n->locks);
    table_free(&n->vars);
    table_free(&n->locs);
}

/* ---- traces and grammars ------------------------------------------------------ */

bool tr_push(tr_trace *t, tr_event e)
{
    if (!tr_grow((void **)&t->ev, &t->cap, t->n + 1, sizeof *t->ev)) return false;
    t->ev[t->n++] = e;
    return true;
}

void tr_trace_free(tr_trace *t)
{
    if (!t) return;
    tr_names_free(&t->names);
    free(t->ev);
    memset(t, 0, sizeof *t);
}

void tr_slp_free(tr_slp *g)
{
    if (!g) return;
    tr_names_free(&g->names);
    free(g->terms);
    free(g->body);
    free(g->sym);
    memset(g, 0, sizeof *g);
}

/* ---- traversals ----------------------------------------------------------------- */

typedef struct frame {
    uint32_t rule;
    uint64_t i; /* next position in the body */
} frame;

int tr_slp_topo(const tr_slp *g, uint32_t *order, uint32_t *count)
{
    *count = 0;
    if (g->nrules == 0) return 0;
    uint8_t *mark = calloc(g->nrules, 1); /* 0 new, 1 on the stack, 2 done */
    frame *st = NULL;
    uint64_t cap = 0, sp = 0;
    int rc = 0;
    if (!mark || !tr_grow((void **)&st, &cap, 1, sizeof *st)) {
        rc = -1;
        goto out;
    }
    st[sp++] = (frame){0, g->body[0]};
    mark[0] = 1;
    while (sp) {
        frame *f = &st[sp - 1];
        if (f->i == g->body[f->rule + 1]) {
            mark[f->rule] = 2;
            order[(*count)++] = f->rule;
            sp--;
            continue;
        }
        uint32_t s = g->sym[f->i++];
        if (s < g->nterms) continue;
        if ((uint64_t)s - g->nterms >= g->nrules) {
            rc = -2;
            goto out;
        }
        uint32_t r = s - g->nterms;
        if (mark[r] == 2) continue;
        if (mark[r] == 1) {
            rc = -2;
            goto out;
        }
        if (!tr_grow((void **)&st, &cap, sp + 1, sizeof *st)) {
            rc = -1;
            goto out;
        }
        mark[r] = 1;
        st[sp++] = (frame){r, g->body[r]};
    }
out:
    free(mark);
    free(st);
    return rc;
}

bool tr_slp_lengths(const tr_slp *g, uint64_t *len)
{
    uint32_t *order = malloc(((size_t)g->nrules + 1) * sizeof *order);
    uint32_t cnt;
    if (!order) return false;
    int rc = tr_slp_topo(g, order, &cnt);
    if (rc == -1) {
        free(order);
        return false;
    }
    /* a malformed grammar (rc -2): lengths of what was ordered; the rest 0 */
    for (uint32_t r = 0; r < g->nrules; r++) len[r] = 0;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t r = order[k];
        uint64_t l = 0;
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++) {
            uint32_t s = g->sym[i];
            l = tr_sat_add(l, s < g->nterms ? 1 : len[s - g->nterms]);
        }
        len[r] = l;
    }
    free(order);
    return true;
}

void tr_slp_first_pos(const tr_slp *g, const uint64_t *len, const uint32_t *order,
                      uint32_t count, uint64_t *first)
{
    for (uint32_t r = 0; r < g->nrules; r++) first[r] = UINT64_MAX;
    if (count == 0) return;
    first[0] = 0;
    /* reverse children-first order: every parent before its children */
    for (uint32_t k = count; k-- > 0;) {
        uint32_t r = order[k];
        if (first[r] == UINT64_MAX) continue;
        uint64_t pos = first[r];
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++) {
            uint32_t s = g->sym[i];
            if (s >= g->nterms) {
                uint32_t c = s - g->nterms;
                if (pos < first[c]) first[c] = pos;
                pos = tr_sat_add(pos, len[c]);
            } else {
                pos = tr_sat_add(pos, 1);
            }
        }
    }
}

bool tr_slp_each(const tr_slp *g, bool (*fn)(void *ctx, uint64_t pos, const tr_event *e),
                 void *ctx)
{
    if (g->nrules == 0) return true;
    frame *st = NULL;
    uint64_t cap = 0, sp = 0, pos = 0;
    bool ok = true;
    if (!tr_grow((void **)&st, &cap, 1, sizeof *st)) return false;
    st[sp++] = (frame){0, g->body[0]};
    while (sp) {
        frame *f = &st[sp - 1];
        if (f->i == g->body[f->rule + 1]) {
            sp--;
            continue;
        }
        uint32_t s = g->sym[f->i++];
        if (s < g->nterms) {
            if (!fn(ctx, pos++, &g->terms[s])) {
                ok = false;
                break;
            }
            continue;
        }
        if (!tr_grow((void **)&st, &cap, sp + 1, sizeof *st)) {
            ok = false;
            break;
        }
        st[sp++] = (frame){s - g->nterms, g->body[s - g->nterms]};
    }
    free(st);
    return ok;
}
