/* slp_lockset.c: Eraser-style lockset violations decided on the grammar,
 * never expanding it: ZipTrack's section 4 and appendix E (Kini, Mathur,
 * Viswanathan, ESEC/FSE 2018; notes-ratcop-ziptrack.md A3). Each chunk has
 * OpenAcq(t,l) and OpenRel(t,l) (re-entrant acquires and releases whose
 * match lies outside the chunk, eqs. 13-14) and LockSet(t,x) over the real
 * locks and the dummies Λ ("read only") and Λt ("only t"), ⊤ when t does not
 * access x in the chunk; A -> B C adds to B's sets the locks C releases
 * beyond what B opened, to C's those B leaves open (Lemma 4.1, eq. 12 with t
 * for the printed t'), and intersects. A violation is a variable whose
 * locksets over all threads meet in ∅; only that emptiness is independent
 * of context (Prop. E.2), so the walk stops at the first rule showing one.
 *
 * As the notes' A7 warns about the public artifact: absent means ⊤ (never
 * intersect with ∅), the open counts are composed (never left empty), and
 * the dummy locks are never pruned. */
#include "slp_int.h"

#include <stdlib.h>
#include <string.h>

bool tr_ls_ctx_init(tr_ls_ctx *c, const tr_names *n)
{
    memset(c, 0, sizeof *c);
    c->nthreads = n->threads.n;
    c->nlocks = n->locks.n;
    c->nu = c->nlocks + 1 + c->nthreads;
    c->nw = (c->nu + 63) / 64;
    c->tidx = calloc(c->nthreads ? c->nthreads : 1, sizeof *c->tidx);
    return c->tidx != NULL;
}

void tr_ls_ctx_free(tr_ls_ctx *c)
{
    free(c->tidx);
    c->tidx = NULL;
}

void tr_ls_sum_free(tr_ls_sum *s)
{
    if (!s) return;
    free(s->open);
    free(s->acc);
    free(s->pool);
    memset(s, 0, sizeof *s);
}

static inline int tl_cmp(uint32_t t1, uint32_t l1, uint32_t t2, uint32_t l2)
{
    if (t1 != t2) return t1 < t2 ? -1 : 1;
    if (l1 != l2) return l1 < l2 ? -1 : 1;
    return 0;
}

const tr_ls_open *tr_ls_find_open(const tr_ls_sum *s, uint32_t t, uint32_t l)
{
    uint32_t lo = 0, hi = s->nopen;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (tl_cmp(s->open[m].t, s->open[m].l, t, l) < 0)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < s->nopen && s->open[lo].t == t && s->open[lo].l == l ? &s->open[lo] : NULL;
}

const tr_ls_acc *tr_ls_find_acc(const tr_ls_sum *s, uint32_t t, uint32_t x)
{
    uint32_t lo = 0, hi = s->nacc;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (tl_cmp(s->acc[m].x, s->acc[m].t, x, t) < 0)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < s->nacc && s->acc[lo].t == t && s->acc[lo].x == x ? &s->acc[lo] : NULL;
}

static bool acc_alloc(const tr_ls_ctx *c, tr_ls_sum *o, uint32_t nopen, uint32_t nacc)
{
    memset(o, 0, sizeof *o);
    o->open = nopen ? malloc(nopen * sizeof *o->open) : NULL;
    o->acc = nacc ? malloc(nacc * sizeof *o->acc) : NULL;
    o->pool = nacc ? calloc((size_t)nacc * c->nw, sizeof *o->pool) : NULL;
    if ((nopen && !o->open) || (nacc && (!o->acc || !o->pool))) {
        tr_ls_sum_free(o);
        return false;
    }
    for (uint32_t i = 0; i < nacc; i++) o->acc[i].set = o->pool + (size_t)i * c->nw;
    o->nacc = nacc;
    return true;
}

static inline void bit_set(uint64_t *s, uint32_t u) { s[u / 64] |= 1ull << (u % 64); }

/* ---- leaves ------------------------------------------------------------------------ */

bool tr_ls_leaf(tr_ls_ctx *c, const tr_event *e, tr_ls_sum *out)
{
    bool lk = e->op == TR_ACQ || e->op == TR_REL;
    bool ac = e->op == TR_READ || e->op == TR_WRITE;
    if (!acc_alloc(c, out, lk, ac)) return false;
    if (lk) {
        out->open[0] = (tr_ls_open){e->thread, e->obj, e->op == TR_ACQ, e->op == TR_REL};
        out->nopen = 1;
    }
    if (ac) {
        out->acc[0].t = e->thread;
        out->acc[0].x = e->obj;
        bit_set(out->acc[0].set, tr_ls_lambda_t(c, e->thread));
        if (e->op == TR_READ) bit_set(out->acc[0].set, tr_ls_lambda(c));
    }
    return true;
}

/* ---- combine ------------------------------------------------------------------------- */

bool tr_ls_combine(tr_ls_ctx *c, const tr_ls_sum *B, const tr_ls_sum *C, tr_ls_sum *o)
{
    uint32_t nw = c->nw;
    uint32_t nacc = 0;
    for (uint32_t i = 0, j = 0; i < B->nacc || j < C->nacc; nacc++) {
        int k = i == B->nacc   ? 1
                : j == C->nacc ? -1
                               : tl_cmp(B->acc[i].x, B->acc[i].t, C->acc[j].x, C->acc[j].t);
        i += k <= 0;
        j += k >= 0;
    }
    if (!acc_alloc(c, o, B->nopen + C->nopen, nacc)) return false;

    /* OpenAcq/OpenRel (eqs. 13, 14) and, per thread with open counts, the
     * locks added to B's sets (released in C beyond what B opened: held
     * throughout B) and to C's (opened in B, still held in C) */
    uint32_t nth = 0;
    uint64_t *add = NULL; /* per such thread: addB then addC, nw words each */
    uint32_t *ths = malloc((B->nopen + C->nopen + 1) * sizeof *ths);
    if (!ths) goto nomem;
    for (uint32_t i = 0, j = 0; i < B->nopen || j < C->nopen;) {
        int k = i == B->nopen   ? 1
                : j == C->nopen ? -1
                                : tl_cmp(B->open[i].t, B->open[i].l, C->open[j].t, C->open[j].l);
        uint32_t t = k <= 0 ? B->open[i].t : C->open[j].t;
        if (nth == 0 || ths[nth - 1] != t) ths[nth++] = t;
        i += k <= 0;
        j += k >= 0;
    }
    add = calloc((size_t)nth * 2 * nw + 1, sizeof *add);
    if (!add) goto nomem;
    for (uint32_t k = 0; k < nth; k++) c->tidx[ths[k]] = k + 1;
    for (uint32_t i = 0, j = 0; i < B->nopen || j < C->nopen;) {
        int k = i == B->nopen   ? 1
                : j == C->nopen ? -1
                                : tl_cmp(B->open[i].t, B->open[i].l, C->open[j].t, C->open[j].l);
        const tr_ls_open *b = k <= 0 ? &B->open[i] : NULL, *cc = k >= 0 ? &C->open[j] : NULL;
        uint32_t t = b ? b->t : cc->t, l = b ? b->l : cc->l;
        uint64_t boa = b ? b->oa : 0, bor = b ? b->orel : 0;
        uint64_t coa = cc ? cc->oa : 0, cor = cc ? cc->orel : 0;
        uint64_t oa = coa + (boa > cor ? boa - cor : 0);
        uint64_t orl = bor + (cor > boa ? cor - boa : 0);
        if (oa || orl) o->open[o->nopen++] = (tr_ls_open){t, l, oa, orl};
        uint64_t *ab = add + (size_t)(c->tidx[t] - 1) * 2 * nw;
        if (cor > boa) bit_set(ab, l);
        if (boa > cor) bit_set(ab + nw, l);
        i += k <= 0;
        j += k >= 0;
    }

    /* LockSet(t,x) = (B.LS ∪ addB) ∩ (C.LS ∪ addC), absent = ⊤ (eq. 12) */
    for (uint32_t i = 0, j = 0, n = 0; n < nacc; n++) {
        int k = i == B->nacc   ? 1
                : j == C->nacc ? -1
                               : tl_cmp(B->acc[i].x, B->acc[i].t, C->acc[j].x, C->acc[j].t);
        const tr_ls_acc *b = k <= 0 ? &B->acc[i] : NULL, *cc = k >= 0 ? &C->acc[j] : NULL;
        tr_ls_acc *d = &o->acc[n];
        d->t = b ? b->t : cc->t;
        d->x = b ? b->x : cc->x;
        const uint64_t *ab = c->tidx[d->t] ? add + (size_t)(c->tidx[d->t] - 1) * 2 * nw : NULL;
        for (uint32_t w = 0; w < nw; w++) {
            uint64_t lb = b ? b->set[w] | (ab ? ab[w] : 0) : UINT64_MAX;
            uint64_t lc = cc ? cc->set[w] | (ab ? ab[nw + w] : 0) : UINT64_MAX;
            d->set[w] = lb & lc;
        }
        i += k <= 0;
        j += k >= 0;
    }
    for (uint32_t k = 0; k < nth; k++) c->tidx[ths[k]] = 0;
    free(ths);
    free(add);

    /* a violation: some x whose locksets over the threads meet in ∅ */
    if (B->viol || C->viol) {
        o->viol = true;
        o->viol_var = B->viol ? B->viol_var : C->viol_var;
        return true;
    }
    for (uint32_t i = 0; i < nacc && !o->viol;) {
        uint32_t x = o->acc[i].x, j = i;
        bool empty = true;
        for (uint32_t w = 0; w < nw; w++) {
            uint64_t m = UINT64_MAX;
            for (j = i; j < nacc && o->acc[j].x == x; j++) m &= o->acc[j].set[w];
            if (m) empty = false;
        }
        if (empty) {
            o->viol = true;
            o->viol_var = x;
        }
        i = j;
    }
    return true;
nomem:
    free(ths);
    tr_ls_sum_free(o);
    return false;
}

/* ---- the driver ------------------------------------------------------------------------ */

static bool fold_leaf(void *c, const tr_event *e, void *out) { return tr_ls_leaf(c, e, out); }
static bool fold_combine(void *c, const void *b, const void *cc, void *out)
{
    return tr_ls_combine(c, b, cc, out);
}
static void fold_free(void *s) { tr_ls_sum_free(s); }
static bool fold_found(const void *s) { return ((tr_ls_sum *)s)->viol; }
static const tr_fold_ops fold_ops = {sizeof(tr_ls_sum), fold_leaf, fold_combine, fold_free, fold_found,
                                     NULL};

tr_ls_sum *tr_ls_all(const tr_slp *g, tr_ls_ctx *c)
{
    tr_ls_sum *sums = calloc(g->nrules ? g->nrules : 1, sizeof *sums);
    uint32_t *order = malloc(((size_t)g->nrules + 1) * sizeof *order);
    uint32_t cnt = 0;
    if (!sums || !order || tr_slp_topo(g, order, &cnt) != 0) goto fail;
    for (uint32_t k = 0; k < cnt; k++)
        if (!tr_fold_rule(g, &fold_ops, c, sums, NULL, order[k], false, &sums[order[k]])) goto fail;
    free(order);
    return sums;
fail:
    free(order);
    if (sums) tr_ls_sums_free(sums, g->nrules);
    return NULL;
}

void tr_ls_sums_free(tr_ls_sum *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) tr_ls_sum_free(&s[i]);
    free(s);
}

/* ---- the witness ------------------------------------------------------------------------ */

/* Both descents look for the shortest prefix of the trace on which a
 * property holds that, once true, stays true for every longer prefix: P is
 * the summary of the prefix so far (from event 0, so its locksets are the
 * accesses' own), and the walk goes through rule 0's body combining P with
 * each symbol's summary; where the property first holds it enters that
 * rule, and a terminal there is the answer. At most the symbols of one
 * path of bodies are combined. */
typedef struct descent {
    const tr_slp *g;
    tr_ls_ctx *c;
    const tr_ls_sum *sums;
    const uint64_t *len;
    uint32_t x;           /* the second descent's variable */
    const uint64_t *with; /* and the set the accesses must meet in ∅ with */
} descent;

static bool holds(const descent *d, const tr_ls_sum *s)
{
    if (!d->with) return s->viol;
    for (uint32_t w = 0; w < d->c->nw; w++) {
        uint64_t m = d->with[w];
        for (uint32_t i = 0; i < s->nacc; i++)
            if (s->acc[i].x == d->x) m &= s->acc[i].set[w];
        if (m) return false;
    }
    return true;
}

/* *pos: the last event of the shortest prefix; *before: the summary of the
 * events before it (the caller frees). false: out of memory, or no such
 * prefix (*pos = UINT64_MAX). */
static bool descend(const descent *d, uint64_t *pos, const tr_event **ev, tr_ls_sum *before)
{
    const tr_slp *g = d->g;
    tr_ls_sum P, N, leaf;
    memset(&P, 0, sizeof P);
    *pos = UINT64_MAX;
    uint64_t at = 0;
    uint32_t r = 0;
    uint64_t i = g->body[0];
    while (i < g->body[r + 1]) {
        uint32_t s = g->sym[i];
        const tr_ls_sum *x = s >= g->nterms ? &d->sums[s - g->nterms] : &leaf;
        memset(&leaf, 0, sizeof leaf);
        if (s < g->nterms && !tr_ls_leaf(d->c, &g->terms[s], &leaf)) break;
        bool ok = tr_ls_combine(d->c, &P, x, &N);
        tr_ls_sum_free(&leaf);
        if (!ok) break;
        if (!holds(d, &N)) {
            tr_ls_sum_free(&P);
            P = N;
            at = tr_sat_add(at, s >= g->nterms ? d->len[s - g->nterms] : 1);
            i++;
            continue;
        }
        tr_ls_sum_free(&N);
        if (s < g->nterms) {
            *pos = at;
            *ev = &g->terms[s];
            *before = P;
            return true;
        }
        r = s - g->nterms;
        i = g->body[r];
    }
    tr_ls_sum_free(&P);
    return false;
}

/* The pair tr_violation names (trace.h), on a grammar whose trace has a
 * violation. */
static bool witness(const tr_slp *g, tr_ls_ctx *c, tr_violation *out)
{
    tr_ls_sum *sums = tr_ls_all(g, c);
    uint64_t *len = malloc(g->nrules * sizeof *len);
    uint64_t *with = calloc(c->nw, sizeof *with);
    bool ok = false;
    if (!sums || !len || !with || !tr_slp_lengths(g, len)) goto out;
    descent d = {g, c, sums, len, 0, NULL};
    uint64_t p, q;
    const tr_event *e2, *e1;
    tr_ls_sum before;
    if (!descend(&d, &p, &e2, &before)) goto out;
    /* e2's set: the locks its thread holds after the prefix, Λt, Λ if a read */
    for (uint32_t i = 0; i < before.nopen; i++)
        if (before.open[i].t == e2->thread && before.open[i].oa)
            with[before.open[i].l / 64] |= 1ull << (before.open[i].l % 64);
    tr_ls_sum_free(&before);
    uint32_t lt = tr_ls_lambda_t(c, e2->thread);
    with[lt / 64] |= 1ull << (lt % 64);
    if (e2->op == TR_READ) with[tr_ls_lambda(c) / 64] |= 1ull << (tr_ls_lambda(c) % 64);
    d.x = e2->obj;
    d.with = with;
    if (!descend(&d, &q, &e1, &before)) goto out;
    tr_ls_sum_free(&before);
    *out = (tr_violation){true, e2->obj, q < p ? q : p, p};
    ok = true;
out:
    if (sums) tr_ls_sums_free(sums, g->nrules);
    free(len);
    free(with);
    return ok;
}

bool tr_slp_lockset(const tr_slp *g, tr_violation *out)
{
    memset(out, 0, sizeof *out);
    if (g->nrules == 0) return true;
    tr_ls_ctx c;
    if (!tr_ls_ctx_init(&c, &g->names)) return false;
    bool ok = false;
    uint32_t cnt = 0;
    tr_ls_sum *sums = calloc(g->nrules, sizeof *sums);
    uint32_t *order = malloc(g->nrules * sizeof *order);
    uint64_t *left = calloc(g->nrules, sizeof *left);
    if (!sums || !order || !left) goto out;
    int rc = tr_slp_topo(g, order, &cnt);
    if (rc == -1) goto out;
    if (rc == -2) {
        ok = true; /* malformed: tr_slp_check() says so */
        goto out;
    }
    for (uint32_t k = 0; k < cnt; k++)
        for (uint64_t i = g->body[order[k]]; i < g->body[order[k] + 1]; i++)
            if (g->sym[i] >= g->nterms) left[g->sym[i] - g->nterms]++;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t r = order[k];
        if (!tr_fold_rule(g, &fold_ops, &c, sums, NULL, r, true, &sums[r])) goto out;
        if (sums[r].viol) {
            out->found = true;
            break;
        }
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++)
            if (g->sym[i] >= g->nterms && --left[g->sym[i] - g->nterms] == 0)
                tr_ls_sum_free(&sums[g->sym[i] - g->nterms]);
    }
    ok = true;
out:
    if (sums) tr_ls_sums_free(sums, g->nrules);
    free(order);
    free(left);
    /* the verdict's summaries are gone; the witness keeps every rule's */
    if (ok && out->found) ok = witness(g, &c, out);
    tr_ls_ctx_free(&c);
    return ok;
}
