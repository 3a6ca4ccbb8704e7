/* slp_hb.c: happens-before races decided on the grammar, never expanding
 * it: ZipTrack's per-nonterminal summaries (Kini, Mathur, Viswanathan,
 * ESEC/FSE 2018, section 3 and appendix D; notes-ratcop-ziptrack.md A2). Each chunk
 * has AF(u), BL(u) for u in Threads + Locks, ALWr/BFWr per written
 * variable and ALRd/BFRd per read (t, x); a leaf's summary is App. D.1's, a
 * rule A -> B C combines them (Lemmas 3.1, 3.5, 3.6), an n-ary body is
 * folded left (every prefix is a chunk). Race checks on the extremal events
 * (Lemma 3.2) stop the walk at the first rule where one appears (context
 * independence, B.2).
 *
 * As the notes warn: the case splits test *presence* (x in C.Wr), never
 * emptiness of a set, and the AF/BL unions range over {u} plus the set.
 * Witnesses (notes A2, "Witness extraction", [mine]): each extremal set
 * carries its event's offset in the chunk; a firing check names (last in B,
 * |B| + first in C); the rule's first occurrence (one top-down pass) makes
 * them absolute. Sets are bitsets of uint64_t words over |U| (no 64 limit);
 * AF/BL rows and the per-variable maps are sparse (only what occurs in the
 * chunk); a child's summary is freed after its last parent. */
#include "slp_int.h"

#include <stdlib.h>
#include <string.h>

bool tr_hb_ctx_init(tr_hb_ctx *c, const tr_names *n)
{
    memset(c, 0, sizeof *c);
    c->nthreads = n->threads.n;
    c->nlocks = n->locks.n;
    c->nu = c->nthreads + c->nlocks;
    c->nw = c->nu ? (c->nu + 63) / 64 : 1;
    c->iaf = calloc(c->nu ? c->nu : 1, sizeof *c->iaf);
    c->ibl = calloc(c->nu ? c->nu : 1, sizeof *c->ibl);
    c->memo = calloc(2 * TR_HB_MEMO, sizeof *c->memo);
    if (!c->iaf || !c->ibl || !c->memo) {
        tr_hb_ctx_free(c);
        return false;
    }
    return true;
}

void tr_hb_ctx_free(tr_hb_ctx *c)
{
    free(c->iaf);
    free(c->ibl);
    free(c->memo);
    c->iaf = NULL;
    c->ibl = NULL;
    c->memo = NULL;
}

void tr_hb_sum_free(tr_hb_sum *s)
{
    if (!s) return;
    free(s->af);
    free(s->bl);
    free(s->wr);
    free(s->rd);
    free(s->pool);
    memset(s, 0, sizeof *s);
}

/* ---- set helpers ------------------------------------------------------------ */

static inline void set_add(uint64_t *s, uint32_t u) { s[u / 64] |= 1ull << (u % 64); }

static inline void set_or(uint64_t *d, const uint64_t *s, uint32_t nw)
{
    for (uint32_t i = 0; i < nw; i++) d[i] |= s[i];
}

static inline bool set_meets(const uint64_t *a, const uint64_t *b, uint32_t nw)
{
    for (uint32_t i = 0; i < nw; i++)
        if (a[i] & b[i]) return true;
    return false;
}

static const uint64_t *row_find(const tr_hb_row *r, uint32_t n, uint32_t u)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (r[m].u < u)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < n && r[lo].u == u ? r[lo].set : NULL;
}

const uint64_t *tr_hb_af(const tr_hb_sum *s, uint32_t u) { return row_find(s->af, s->naf, u); }
const uint64_t *tr_hb_bl(const tr_hb_sum *s, uint32_t u) { return row_find(s->bl, s->nbl, u); }

const tr_hb_var *tr_hb_find_wr(const tr_hb_sum *s, uint32_t x)
{
    uint32_t lo = 0, hi = s->nwr;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (s->wr[m].x < x)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < s->nwr && s->wr[lo].x == x ? &s->wr[lo] : NULL;
}

static inline int rd_cmp(uint32_t x1, uint32_t t1, uint32_t x2, uint32_t t2)
{
    if (x1 != x2) return x1 < x2 ? -1 : 1;
    if (t1 != t2) return t1 < t2 ? -1 : 1;
    return 0;
}

const tr_hb_rd *tr_hb_find_rd(const tr_hb_sum *s, uint32_t t, uint32_t x)
{
    uint32_t lo = 0, hi = s->nrd;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (rd_cmp(s->rd[m].x, s->rd[m].t, x, t) < 0)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < s->nrd && s->rd[lo].x == x && s->rd[lo].t == t ? &s->rd[lo] : NULL;
}

/* Allocate out's arrays and its pool for the given counts; zeroed sets. */
static bool sum_alloc(const tr_hb_ctx *c, tr_hb_sum *o, uint32_t naf, uint32_t nbl,
                      uint32_t nwr, uint32_t nrd)
{
    memset(o, 0, sizeof *o);
    uint64_t nsets = (uint64_t)naf + nbl + 2ull * nwr + 2ull * nrd;
    o->af = naf ? malloc(naf * sizeof *o->af) : NULL;
    o->bl = nbl ? malloc(nbl * sizeof *o->bl) : NULL;
    o->wr = nwr ? malloc(nwr * sizeof *o->wr) : NULL;
    o->rd = nrd ? malloc(nrd * sizeof *o->rd) : NULL;
    o->pool = nsets ? calloc((size_t)(nsets * c->nw), sizeof *o->pool) : NULL;
    if ((naf && !o->af) || (nbl && !o->bl) || (nwr && !o->wr) || (nrd && !o->rd) ||
        (nsets && !o->pool)) {
        tr_hb_sum_free(o);
        return false;
    }
    uint64_t *p = o->pool;
    for (uint32_t i = 0; i < naf; i++, p += c->nw) o->af[i].set = p;
    for (uint32_t i = 0; i < nbl; i++, p += c->nw) o->bl[i].set = p;
    for (uint32_t i = 0; i < nwr; i++) {
        o->wr[i].al = p;
        o->wr[i].bf = p + c->nw;
        p += 2 * c->nw;
    }
    for (uint32_t i = 0; i < nrd; i++) {
        o->rd[i].al = p;
        o->rd[i].bf = p + c->nw;
        p += 2 * c->nw;
    }
    o->naf = naf;
    o->nbl = nbl;
    o->nwr = nwr;
    o->nrd = nrd;
    return true;
}

/* ---- leaves (App. D.1) ------------------------------------------------------------ */

bool tr_hb_leaf(tr_hb_ctx *c, const tr_event *e, tr_hb_sum *out)
{
    uint32_t t = e->thread;
    uint32_t obj_u = e->op == TR_ACQ || e->op == TR_REL ? c->nthreads + e->obj : e->obj;
    bool other_af = e->op == TR_JOIN || e->op == TR_ACQ; /* AF[c] / AF[l] = {t} */
    bool other_bl = e->op == TR_FORK || e->op == TR_REL; /* BL[c] / BL[l] = {t} */
    if (obj_u == t && (e->op == TR_JOIN || e->op == TR_FORK)) other_af = other_bl = false;
    bool w = e->op == TR_WRITE, r = e->op == TR_READ;
    if (!sum_alloc(c, out, 1 + other_af, 1 + other_bl, w, r)) return false;
    out->len = 1;
    /* rows sorted by u */
    tr_hb_row *tr_af = &out->af[0], *o_af = other_af ? &out->af[1] : NULL;
    if (o_af && obj_u < t) {
        tr_af = &out->af[1];
        o_af = &out->af[0];
    }
    tr_hb_row *tr_bl = &out->bl[0], *o_bl = other_bl ? &out->bl[1] : NULL;
    if (o_bl && obj_u < t) {
        tr_bl = &out->bl[1];
        o_bl = &out->bl[0];
    }
    tr_af->u = t;
    set_add(tr_af->set, t);
    if (e->op == TR_REL || e->op == TR_FORK) set_add(tr_af->set, obj_u);
    if (o_af) {
        o_af->u = obj_u;
        set_add(o_af->set, t);
    }
    tr_bl->u = t;
    set_add(tr_bl->set, t);
    if (e->op == TR_ACQ || e->op == TR_JOIN) set_add(tr_bl->set, obj_u);
    if (o_bl) {
        o_bl->u = obj_u;
        set_add(o_bl->set, t);
    }
    if (w) {
        out->wr[0].x = e->obj;
        out->wr[0].first_pos = out->wr[0].last_pos = 0;
        set_add(out->wr[0].al, t);
        set_add(out->wr[0].bf, t);
    }
    if (r) {
        out->rd[0].t = t;
        out->rd[0].x = e->obj;
        out->rd[0].first_pos = out->rd[0].last_pos = 0;
        set_add(out->rd[0].al, t);
        set_add(out->rd[0].bf, t);
    }
    return true;
}

/* ---- combine (eqs. 2, 5, 6, 9; App. D.1) -------------------------------------------- */

/* d |= ⋃_{u ∈ s} rows[u], with ix mapping u to its row + 1. */
static void union_rows(const uint32_t *ix, uint32_t nw, uint64_t *d, const uint64_t *s,
                       const tr_hb_row *rows);

/* The same for one-word sets (up to 64 threads and locks), remembered per
 * combine: a long prefix has hundreds of rows and few distinct sets. m is
 * TR_HB_MEMO slots; a slot is valid when its generation is c->gen. */
static uint64_t union_word(tr_hb_ctx *c, tr_hb_memo *m, const uint32_t *ix, uint64_t s,
                           const tr_hb_row *rows)
{
    uint32_t h = (uint32_t)((s * 0x9E3779B97F4A7C15ull) >> 56) & (TR_HB_MEMO - 1);
    for (uint32_t k = 0; k < 4; k++, h = (h + 1) & (TR_HB_MEMO - 1)) {
        if (m[h].gen != c->gen) break;
        if (m[h].key == s) return m[h].val;
    }
    uint64_t d = 0;
    union_rows(ix, 1, &d, &s, rows);
    if (m[h].gen != c->gen) m[h] = (tr_hb_memo){c->gen, s, d};
    return d;
}

static void union_rows(const uint32_t *ix, uint32_t nw, uint64_t *d, const uint64_t *s,
                       const tr_hb_row *rows)
{
    for (uint32_t i = 0; i < nw; i++) {
        uint64_t w = s[i];
        while (w) {
            uint32_t u = i * 64 + (uint32_t)__builtin_ctzll(w);
            w &= w - 1;
            if (ix[u]) set_or(d, rows[ix[u] - 1].set, nw);
        }
    }
}

static void idx_fill(uint32_t *ix, const tr_hb_row *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) ix[r[i].u] = i + 1;
}

static void idx_clear(uint32_t *ix, const tr_hb_row *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) ix[r[i].u] = 0;
}

static uint32_t merged_rows(const tr_hb_row *a, uint32_t na, const tr_hb_row *b, uint32_t nb)
{
    uint32_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i].u < b[j].u))
            i++;
        else if (i == na || b[j].u < a[i].u)
            j++;
        else
            i++, j++;
        n++;
    }
    return n;
}

static void note_race(tr_hb_sum *o, uint64_t a, uint64_t b)
{
    if (o->race) return;
    o->race = true;
    o->race_a = a;
    o->race_b = b;
}

bool tr_hb_combine(tr_hb_ctx *c, const tr_hb_sum *B, const tr_hb_sum *C, tr_hb_sum *o)
{
    uint32_t nw = c->nw;
    uint32_t naf = merged_rows(B->af, B->naf, C->af, C->naf);
    uint32_t nbl = merged_rows(B->bl, B->nbl, C->bl, C->nbl);
    uint32_t nwr = 0, nrd = 0;
    for (uint32_t i = 0, j = 0; i < B->nwr || j < C->nwr; nwr++) {
        if (j == C->nwr || (i < B->nwr && B->wr[i].x < C->wr[j].x))
            i++;
        else if (i == B->nwr || C->wr[j].x < B->wr[i].x)
            j++;
        else
            i++, j++;
    }
    for (uint32_t i = 0, j = 0; i < B->nrd || j < C->nrd; nrd++) {
        int k = i == B->nrd   ? 1
                : j == C->nrd ? -1
                              : rd_cmp(B->rd[i].x, B->rd[i].t, C->rd[j].x, C->rd[j].t);
        if (k < 0)
            i++;
        else if (k > 0)
            j++;
        else
            i++, j++;
    }
    if (!sum_alloc(c, o, naf, nbl, nwr, nrd)) return false;
    o->len = tr_sat_add(B->len, C->len);
    if (B->race) note_race(o, B->race_a, B->race_b);
    if (C->race) note_race(o, tr_sat_add(B->len, C->race_a), tr_sat_add(B->len, C->race_b));

    /* races across B.C (Lemmas 3.1, 3.2): last in B against first in C */
    for (uint32_t i = 0, j = 0; i < B->nwr && j < C->nwr && !o->race;) {
        if (B->wr[i].x < C->wr[j].x)
            i++;
        else if (C->wr[j].x < B->wr[i].x)
            j++;
        else {
            if (!set_meets(B->wr[i].al, C->wr[j].bf, nw))
                note_race(o, B->wr[i].last_pos, tr_sat_add(B->len, C->wr[j].first_pos));
            i++, j++;
        }
    }
    /* write in B, read in C; read in B, write in C: merges, both sides
     * sorted by variable */
    for (uint32_t j = 0, i = 0; j < C->nrd && !o->race; j++) {
        while (i < B->nwr && B->wr[i].x < C->rd[j].x) i++;
        const tr_hb_var *v = i < B->nwr && B->wr[i].x == C->rd[j].x ? &B->wr[i] : NULL;
        if (v && !set_meets(v->al, C->rd[j].bf, nw))
            note_race(o, v->last_pos, tr_sat_add(B->len, C->rd[j].first_pos));
    }
    for (uint32_t i = 0, j = 0; i < B->nrd && !o->race; i++) {
        while (j < C->nwr && C->wr[j].x < B->rd[i].x) j++;
        const tr_hb_var *v = j < C->nwr && C->wr[j].x == B->rd[i].x ? &C->wr[j] : NULL;
        if (v && !set_meets(B->rd[i].al, v->bf, nw))
            note_race(o, B->rd[i].last_pos, tr_sat_add(B->len, v->first_pos));
    }

    /* AF: A.AF[u] = B.AF[u] ∪ ⋃_{u' ∈ {u} ∪ B.AF[u]} C.AF[u'] */
    uint32_t *iaf = c->iaf, *ibl = c->ibl;
    if (++c->gen == 0) { /* the memo's generations wrapped: clear it */
        memset(c->memo, 0, 2 * TR_HB_MEMO * sizeof *c->memo);
        c->gen = 1;
    }
    idx_fill(iaf, C->af, C->naf);
    idx_fill(ibl, B->bl, B->nbl);
    for (uint32_t i = 0, j = 0, k = 0; k < naf; k++) {
        tr_hb_row *d = &o->af[k];
        if (j == C->naf || (i < B->naf && B->af[i].u <= C->af[j].u)) {
            d->u = B->af[i].u;
            bool both = j < C->naf && C->af[j].u == d->u;
            set_or(d->set, B->af[i].set, nw);
            if (iaf[d->u]) set_or(d->set, C->af[iaf[d->u] - 1].set, nw); /* the {u} */
            union_rows(iaf, nw, d->set, B->af[i].set, C->af);
            i++;
            if (both) j++;
        } else {
            d->u = C->af[j].u;
            set_or(d->set, C->af[j].set, nw);
            j++;
        }
    }
    /* fwd(S) = S ∪ ⋃_{u ∈ S} C.AF[u] for the After sets of B's last events
     * that C does not replace, bwd for the Before sets of C's first events
     * that B does not have (presence tests, not emptiness) */
    for (uint32_t i = 0, j = 0, k = 0; k < nwr; k++) {
        tr_hb_var *d = &o->wr[k];
        bool inb = i < B->nwr && (j == C->nwr || B->wr[i].x <= C->wr[j].x);
        bool inc = j < C->nwr && (i == B->nwr || C->wr[j].x <= B->wr[i].x);
        const tr_hb_var *vb = inb ? &B->wr[i] : NULL, *vc = inc ? &C->wr[j] : NULL;
        d->x = vb ? vb->x : vc->x;
        if (vc) {
            memcpy(d->al, vc->al, nw * sizeof *d->al);
            d->last_pos = tr_sat_add(B->len, vc->last_pos);
        } else {
            set_or(d->al, vb->al, nw);
            if (nw == 1)
                d->al[0] |= union_word(c, c->memo, iaf, vb->al[0], C->af);
            else
                union_rows(iaf, nw, d->al, vb->al, C->af);
            d->last_pos = vb->last_pos;
        }
        if (vb) {
            memcpy(d->bf, vb->bf, nw * sizeof *d->bf);
            d->first_pos = vb->first_pos;
        } else { /* bwd(S) = S ∪ ⋃_{u ∈ S} B.BL[u] */
            set_or(d->bf, vc->bf, nw);
            if (nw == 1)
                d->bf[0] |= union_word(c, c->memo + TR_HB_MEMO, ibl, vc->bf[0], B->bl);
            else
                union_rows(ibl, nw, d->bf, vc->bf, B->bl);
            d->first_pos = tr_sat_add(B->len, vc->first_pos);
        }
        i += inb;
        j += inc;
    }
    for (uint32_t i = 0, j = 0, k = 0; k < nrd; k++) {
        tr_hb_rd *d = &o->rd[k];
        int cmp = i == B->nrd   ? 1
                  : j == C->nrd ? -1
                                : rd_cmp(B->rd[i].x, B->rd[i].t, C->rd[j].x, C->rd[j].t);
        const tr_hb_rd *vb = cmp <= 0 ? &B->rd[i] : NULL, *vc = cmp >= 0 ? &C->rd[j] : NULL;
        d->x = vb ? vb->x : vc->x;
        d->t = vb ? vb->t : vc->t;
        if (vc) {
            memcpy(d->al, vc->al, nw * sizeof *d->al);
            d->last_pos = tr_sat_add(B->len, vc->last_pos);
        } else {
            set_or(d->al, vb->al, nw);
            if (nw == 1)
                d->al[0] |= union_word(c, c->memo, iaf, vb->al[0], C->af);
            else
                union_rows(iaf, nw, d->al, vb->al, C->af);
            d->last_pos = vb->last_pos;
        }
        if (vb) {
            memcpy(d->bf, vb->bf, nw * sizeof *d->bf);
            d->first_pos = vb->first_pos;
        } else { /* bwd(S) = S ∪ ⋃_{u ∈ S} B.BL[u] */
            set_or(d->bf, vc->bf, nw);
            if (nw == 1)
                d->bf[0] |= union_word(c, c->memo + TR_HB_MEMO, ibl, vc->bf[0], B->bl);
            else
                union_rows(ibl, nw, d->bf, vc->bf, B->bl);
            d->first_pos = tr_sat_add(B->len, vc->first_pos);
        }
        i += vb != NULL;
        j += vc != NULL;
    }

    /* BL: A.BL[u] = C.BL[u] ∪ ⋃_{u' ∈ {u} ∪ C.BL[u]} B.BL[u'] */
    for (uint32_t i = 0, j = 0, k = 0; k < nbl; k++) {
        tr_hb_row *d = &o->bl[k];
        if (i == B->nbl || (j < C->nbl && C->bl[j].u <= B->bl[i].u)) {
            d->u = C->bl[j].u;
            bool both = i < B->nbl && B->bl[i].u == d->u;
            set_or(d->set, C->bl[j].set, nw);
            if (ibl[d->u]) set_or(d->set, B->bl[ibl[d->u] - 1].set, nw); /* the {u} */
            union_rows(ibl, nw, d->set, C->bl[j].set, B->bl);
            j++;
            if (both) i++;
        } else {
            d->u = B->bl[i].u;
            set_or(d->set, B->bl[i].set, nw);
            i++;
        }
    }
    idx_clear(iaf, C->af, C->naf);
    idx_clear(ibl, B->bl, B->nbl);
    return true;
}

/* ---- the driver ------------------------------------------------------------------- */

/* The summary of rule r's body, folded left, from the children's summaries
 * in sums[]; *stop set when a prefix races (early exit). */
static bool fold_leaf(void *c, const tr_event *e, void *out) { return tr_hb_leaf(c, e, out); }
static bool fold_combine(void *c, const void *b, const void *cc, void *out)
{
    return tr_hb_combine(c, b, cc, out);
}
static void fold_free(void *s) { tr_hb_sum_free(s); }
static bool fold_found(const void *s) { return ((tr_hb_sum *)s)->race; }
static void fold_shift(void *v, uint64_t off)
{
    tr_hb_sum *s = v;
    s->race_a = tr_sat_add(s->race_a, off);
    s->race_b = tr_sat_add(s->race_b, off);
}
static const tr_fold_ops fold_ops = {sizeof(tr_hb_sum), fold_leaf, fold_combine, fold_free, fold_found,
                                     fold_shift};

tr_hb_sum *tr_hb_all(const tr_slp *g, tr_hb_ctx *c)
{
    tr_hb_sum *sums = calloc(g->nrules ? g->nrules : 1, sizeof *sums);
    uint32_t *order = malloc(((size_t)g->nrules + 1) * sizeof *order);
    uint32_t cnt = 0;
    if (!sums || !order || tr_slp_topo(g, order, &cnt) != 0) goto fail;
    for (uint32_t k = 0; k < cnt; k++)
        if (!tr_fold_rule(g, &fold_ops, c, sums, NULL, order[k], false, &sums[order[k]])) goto fail;
    free(order);
    return sums;
fail:
    free(order);
    if (sums) tr_hb_sums_free(sums, g->nrules);
    return NULL;
}

void tr_hb_sums_free(tr_hb_sum *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) tr_hb_sum_free(&s[i]);
    free(s);
}

bool tr_slp_race(const tr_slp *g, tr_race *out)
{
    memset(out, 0, sizeof *out);
    if (g->nrules == 0) return true;
    tr_hb_ctx c;
    if (!tr_hb_ctx_init(&c, &g->names)) return false;
    bool ok = false;
    uint32_t cnt = 0;
    tr_hb_sum *sums = calloc(g->nrules, sizeof *sums);
    uint32_t *order = malloc(g->nrules * sizeof *order);
    uint64_t *len = malloc(g->nrules * sizeof *len);
    uint64_t *first = malloc(g->nrules * sizeof *first);
    uint64_t *left = calloc(g->nrules, sizeof *left); /* uses not yet folded */
    if (!sums || !order || !len || !first || !left) goto out;
    int rc = tr_slp_topo(g, order, &cnt);
    if (rc == -1) goto out;
    if (rc == -2) {
        ok = true; /* malformed: tr_check_wellformed() says so; no verdict */
        goto out;
    }
    if (!tr_slp_lengths(g, len)) goto out;
    tr_slp_first_pos(g, len, order, cnt, first);
    for (uint32_t k = 0; k < cnt; k++)
        for (uint64_t i = g->body[order[k]]; i < g->body[order[k] + 1]; i++)
            if (g->sym[i] >= g->nterms) left[g->sym[i] - g->nterms]++;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t r = order[k];
        if (!tr_fold_rule(g, &fold_ops, &c, sums, len, r, true, &sums[r])) goto out;
        if (sums[r].race) {
            out->found = true;
            out->first = tr_sat_add(first[r], sums[r].race_a);
            out->second = tr_sat_add(first[r], sums[r].race_b);
            break;
        }
        /* children whose last parent this was */
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++)
            if (g->sym[i] >= g->nterms && --left[g->sym[i] - g->nterms] == 0)
                tr_hb_sum_free(&sums[g->sym[i] - g->nterms]);
    }
    ok = true;
out:
    if (sums) tr_hb_sums_free(sums, g->nrules);
    free(order);
    free(len);
    free(first);
    free(left);
    tr_hb_ctx_free(&c);
    return ok;
}
