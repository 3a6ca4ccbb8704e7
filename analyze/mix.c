/* mix.c: the mix at an import (RATCOP section 5.4, the Rel mix, and
 * section 7, RegRel's mix over regions): at an acquire, atomic, wait,
 * cwait, join, recv or volatile load the own fact is joined with the
 * buffers the sync-CFG lists (sync_cfg.c), per shared element a hull, its
 * relations kept only when no buffer contributes; with thread ids (section
 * 5.5) a buffer that only the importing thread wrote is not read; a
 * region's elements are mixed as one block. transfer.c's header says what
 * each instruction does. */
#include <stdlib.h>
#include <string.h>

#include "transfer_int.h"

/* At a join, may source unit su be the thread joined (its id within the
 * operand's values)? Every source of any other import may be. */
static bool joinable(const an_result *r, const an_unit *u, const an_fact *f, const vm_insn *in,
                     const an_unit *su)
{
    if (in->op != VM_OP_join) return true;
    int64_t lo, hi;
    an_bounds(u, f, an_lin_of(u, &in->a), &lo, &hi);
    an_int32_range(&lo, &hi);
    int64_t tlo = su->summary ? (int64_t)r->p->nstatic : su->tid;
    int64_t thi = su->summary ? (int64_t)r->p->nthreads - 1 : su->tid;
    return lo <= thi && tlo <= hi;
}

/* ---- regions (RATCOP section 7: RegRel's mix) ------------------------------
 * The elements of a `region` (vm.h) are mixed as a block: their octagon over
 * the region is the join, over the own fact and every buffer that
 * contributes (with thread ids, one whose region was written by someone
 * else), of each fact's projection on the region; their relations to the
 * rest are forgotten. Sound for region-race-free models (L-RegDRF: a write
 * to one member makes a new version of them all, so the newest versions of
 * the members come from one buffer). Only for the octagon domain, a region
 * of at most REGION_MAX elements all in the unit's pack; others are mixed
 * element by element (always sound). */
#define REGION_MAX 16

typedef struct region_mix {
    uint32_t n;           /* regions mixed as blocks */
    uint32_t k[8];        /* their sizes */
    uint32_t *elems;      /* their elements, one region after another */
    int64_t *d;           /* their (2k)^2 matrices, one after another */
} region_mix;

static void regions_free(region_mix *rm)
{
    free(rm->elems);
    free(rm->d);
}

/* Entry (a, b) of fact sf's projection on elements E (literal a is element
 * E[a / 2], sign a % 2). */
static int64_t proj(const an_unit *su, const an_fact *sf, const uint32_t *E, uint32_t a, uint32_t b)
{
    uint32_t ea = E[a / 2], eb = E[b / 2];
    if (a == b) return 0;
    if (su->edim[ea] >= 0 && su->edim[eb] >= 0)
        return sf->m[(size_t)(2 * (uint32_t)su->edim[ea] + a % 2) * 2 * su->n +
                     2 * (uint32_t)su->edim[eb] + b % 2];
    if (ea != eb) return AN_INF;
    int64_t lo, hi;
    an_elem_bounds(su, sf, ea, &lo, &hi);
    if (a % 2 == 1) return hi == INT64_MAX || hi > AN_BIG ? AN_INF : 2 * hi;  /* 2x <= 2hi */
    return lo == INT64_MIN || lo < -AN_BIG ? AN_INF : -2 * lo;                /* -2x <= -2lo */
}

/* The block mixes of (ui, pc) into rm, before f changes; their elements
 * marked 2 (mark[e] = 2), with their writers and versions set in f. */
static void regions_read(an_ctx *c, uint32_t ui, uint32_t pc, an_fact *f, const vm_insn *imp,
                         uint8_t *mark, region_mix *rm)
{
    an_result *r = c->r;
    const vm_program *p = r->p;
    const an_unit *u = &r->units[ui];
    if (!p->nregions || r->o.domain != AN_OCTAGON) return;
    size_t tot = 0, totd = 0;
    for (uint32_t g = 0; g < p->nregions && g < 8; g++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < p->regions[g].nvars; i++) k += p->vars[p->regions[g].vars[i]].size;
        if (k > REGION_MAX) continue;
        tot += k;
        totd += (size_t)4 * k * k;
    }
    if (!tot) return;
    rm->elems = malloc((tot + REGION_MAX) * sizeof *rm->elems); /* a region found too big late */
    rm->d = malloc(totd * sizeof *rm->d);
    int32_t *wr = malloc(REGION_MAX * sizeof *wr);
    uint8_t *mi = malloc(REGION_MAX);
    if (!rm->elems || !rm->d || !wr || !mi) { /* out of memory: element by element */
        regions_free(rm);
        *rm = (region_mix){0};
        free(wr);
        free(mi);
        return;
    }
    size_t eoff = 0, doff = 0;
    for (uint32_t g = 0; g < p->nregions && g < 8; g++) {
        uint32_t k = 0;
        uint32_t *E = rm->elems + eoff;
        bool ok = true;
        for (uint32_t i = 0; i < p->regions[g].nvars && ok; i++) {
            const vm_var *v = &p->vars[p->regions[g].vars[i]];
            if (k + v->size > REGION_MAX) ok = false;
            for (uint32_t j = 0; ok && j < v->size; j++) {
                E[k] = v->first_elem + j;
                ok = u->edim[E[k]] >= 0;
                k++;
            }
        }
        if (!ok || !k) continue;
        uint32_t d = 2 * k;
        int64_t *D = rm->d + doff;
        for (uint32_t a = 0; a < d; a++)
            for (uint32_t b = 0; b < d; b++) D[(size_t)a * d + b] = proj(u, f, E, a, b);
        for (uint32_t i = 0; i < k; i++) {
            wr[i] = f->wr[E[i]];
            mi[i] = f->mi[E[i]];
        }
        bool contributed = false;
        for (uint32_t s = u->src_off[pc]; s < u->src_off[pc + 1]; s++) {
            const an_src *src = &u->src[s];
            const an_unit *su = &r->units[src->unit];
            if (src->value_only || !su->reached[src->pc]) continue;
            an_fact sf = an_fact_at(su, an_block(su, src->pc));
            if (!joinable(r, u, f, imp, su)) continue;
            int32_t w = AN_WR_NONE;
            for (uint32_t i = 0; i < k; i++) w = wr_join(w, sf.wr[E[i]]);
            if (r->o.tids && (w == AN_WR_NONE || (w == (int32_t)ui && !u->summary))) continue;
            contributed = true;
            for (uint32_t a = 0; a < d; a++)
                for (uint32_t b = 0; b < d; b++) {
                    int64_t v = proj(su, &sf, E, a, b);
                    if (v > D[(size_t)a * d + b]) D[(size_t)a * d + b] = v;
                }
            for (uint32_t i = 0; i < k; i++) {
                wr[i] = wr_join(wr[i], sf.wr[E[i]]);
                mi[i] |= sf.mi[E[i]];
            }
        }
        if (!contributed) continue; /* the own values stand, relations and all */
        for (uint32_t i = 0; i < k; i++) {
            mark[E[i]] = 2;
            f->wr[E[i]] = wr[i];
            f->mi[E[i]] = mi[i];
        }
        rm->k[rm->n++] = k;
        eoff += k;
        doff += (size_t)d * d;
    }
    free(wr);
    free(mi);
}

/* Write the block mixes into f (their elements forgotten first). */
static void regions_write(const an_unit *u, an_fact *f, const region_mix *rm)
{
    size_t eoff = 0, doff = 0;
    for (uint32_t g = 0; g < rm->n; g++) {
        uint32_t k = rm->k[g], d = 2 * k;
        const uint32_t *E = rm->elems + eoff;
        const int64_t *D = rm->d + doff;
        for (uint32_t i = 0; i < k; i++) oct_forget(f->m, u->n, an_dim_elem(u, E[i]));
        for (uint32_t a = 0; a < d; a++)
            for (uint32_t b = 0; b < d; b++) {
                int64_t v = D[(size_t)a * d + b];
                int64_t *m = &f->m[(size_t)(2 * (uint32_t)u->edim[E[a / 2]] + a % 2) * 2 * u->n +
                                   2 * (uint32_t)u->edim[E[b / 2]] + b % 2];
                if (v < *m) *m = v;
            }
        eoff += k;
        doff += (size_t)d * d;
    }
    regions_free((region_mix *)rm);
}

/* The mix at an import (f closed, not bottom). */
void an_mix(an_ctx *c, uint32_t ui, uint32_t pc, an_fact *f)
{
    an_result *r = c->r;
    const vm_program *p = r->p;
    const an_unit *u = &r->units[ui];
    int64_t *lo = (int64_t *)c->scratch[3], *hi = lo + p->nelems; /* scratch: 2 per element */
    bool any = false;
    uint8_t *mark = (uint8_t *)(hi + p->nelems);
    const vm_insn *imp = &p->bodies[u->body].code[pc];
    enum vm_opcode in_op = (enum vm_opcode)imp->op;
    memset(mark, 0, p->nelems);
    region_mix rm = {0};
    regions_read(c, ui, pc, f, imp, mark, &rm);
    for (uint32_t e = 0; e < p->nelems; e++) {
        if (mark[e] == 2) continue; /* a region's, below */
        const vm_var *v = vm_elem_var(p, e);
        if (v->cls != VM_SHARED) continue;
        an_elem_bounds(u, f, e, &lo[e], &hi[e]);
        int32_t wr = f->wr[e];
        uint8_t mi = f->mi[e];
        /* With thread ids, versions too. At a recv (some send on the
         * channel happened) or a join (the thread ended), one of the
         * buffers was written for sure; when this thread's view of x is
         * its initial value for sure (version 0) and every buffer's is
         * written for sure (version >= 1), the newest version is a
         * buffer's: the own value is not a candidate. Not at an acquire:
         * a lock's buffers may still be the initial ones (no release yet). */
        bool drop_own = r->o.tids && wr == AN_WR_NONE &&
                        (in_op == VM_OP_recv || in_op == VM_OP_join);
        unsigned nreached = 0;
        for (uint32_t k = u->src_off[pc]; drop_own && k < u->src_off[pc + 1]; k++) {
            const an_src *s = &u->src[k];
            const an_unit *su = &r->units[s->unit];
            if (!su->reached[s->pc] || !joinable(r, u, f, imp, su)) continue;
            an_fact sf = an_fact_at(su, an_block(su, s->pc));
            nreached++;
            drop_own = !sf.mi[e];
        }
        drop_own = drop_own && nreached > 0;
        if (drop_own) {
            lo[e] = INT64_MAX;
            hi[e] = INT64_MIN;
            mi = 0;
        }
        for (uint32_t k = u->src_off[pc]; k < u->src_off[pc + 1]; k++) {
            const an_src *s = &u->src[k];
            const an_unit *su = &r->units[s->unit];
            if (s->value_only || !su->reached[s->pc] || !joinable(r, u, f, imp, su)) continue;
            an_fact sf = an_fact_at(su, an_block(su, s->pc));
            int32_t w = sf.wr[e];
            if (r->o.tids && (w == AN_WR_NONE || (w == (int32_t)ui && !u->summary))) continue;
            mi |= sf.mi[e];
            int64_t slo, shi;
            an_elem_bounds(su, &sf, e, &slo, &shi);
            if (slo < lo[e]) lo[e] = slo;
            if (shi > hi[e]) hi[e] = shi;
            wr = wr_join(wr, w);
            mark[e] = 1;
        }
        if (mark[e]) {
            f->wr[e] = wr;
            f->mi[e] = mi;
            any = true;
        }
    }
    if (!any && !rm.n) {
        regions_free(&rm);
        return;
    }
    for (uint32_t e = 0; e < p->nelems; e++)
        if (mark[e] && u->edim[e] >= 0) oct_forget(f->m, u->n, an_dim_elem(u, e));
    regions_write(u, f, &rm);
    for (uint32_t e = 0; e < p->nelems; e++)
        if (mark[e] == 1) {
            if (u->edim[e] >= 0) {
                an_set_bounds(u, f, an_dim_elem(u, e), lo[e], hi[e]);
            } else {
                f->iv[2 * e] = lo[e];
                f->iv[2 * e + 1] = hi[e];
            }
        }
    an_normal(r, u, f);
}

/* The hull of operand a's int32 values over the sources of (ui, pc) (sends
 * or volatile stores): *lo > *hi when no source is reached. */
void an_source_values(an_ctx *c, uint32_t ui, uint32_t pc, int64_t *lo, int64_t *hi)
{
    const an_unit *u = &c->r->units[ui];
    for (uint32_t k = u->src_off[pc]; k < u->src_off[pc + 1]; k++) {
        const an_src *s = &u->src[k];
        const an_unit *su = &c->r->units[s->unit];
        if (!su->reached[s->pc]) continue;
        const vm_insn *in = &c->r->p->bodies[su->body].code[s->pc];
        an_fact sf = an_fact_at(su, an_block(su, s->pc));
        int64_t a, b;
        an_bounds(su, &sf, an_lin_of(su, &in->a), &a, &b);
        an_int32_range(&a, &b);
        if (a < *lo) *lo = a;
        if (b > *hi) *hi = b;
    }
}

