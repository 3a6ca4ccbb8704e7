/* transfer.c: the abstract transfer function of every instruction (RATCOP
 * section 5.4: local transfer functions, and the mix at an acquire), over
 * the facts of analyze_int.h.
 *
 * Per instruction:
 *   mov, add, sub, neg, and mul/shl by a constant: exact octagon assignments
 *     (x := y + c, x := c - y, shifts and negations in place); lazy wrap-around
 *     (oct.c's header) keeps them exact across 2^31;
 *   the rest of the arithmetic: interval arithmetic on operands first brought
 *     into the int32 range (an_wrap); div and mod split the divisor at 0 (a
 *     division by zero faults: no successor), INT32_MIN / -1 is 2^31, which
 *     reads INT32_MIN;
 *   eq .. ge and not: 0 or 1 when the fact decides it, else [0, 1], and the
 *     register remembers the comparison (an_desc) until an operand changes,
 *     so a later `assert`, `assume`, `jz` or `jnz` on it filters by the
 *     comparison itself;
 *   jz, jnz, assume, assert: filters (an assert's failing runs stop);
 *   load, store of shared and unshared elements: exact on one element, weak
 *     (a hull) on an index range; the index is refined to the array; an
 *     unshared variable is thread-local by the language (a second thread
 *     touching it is a runtime error), so each unit has its own copy;
 *   volatile load: racy by design, so flow-insensitive (Mine-style
 *     interference): the value is the hull of the initial values and of every
 *     value any store to it writes; volatile elements are never tracked;
 *   choose rd, a, b: a <= rd <= b;
 *   acquire, atomic, wait, cwait, join, recv, volatile load: first the mix
 *     of the own fact with the buffers the sync-CFG lists (sync_cfg.c):
 *     registers, self, tid and unshared elements from the own fact; each
 *     shared element's interval the hull over the own fact and every buffer,
 *     its relations kept only when no buffer contributes (RATCOP's Rel mix,
 *     a Cartesian product over the shared elements). With thread ids a
 *     buffer whose value of x only the importing static thread wrote, or
 *     nobody wrote, is not read for x (section 5.5, per element);
 *   spawn: the child's entry is the parent's globals, zero registers, self
 *     the argument and tid any spawn slot; rd := that slot;
 *   call, ret, jmp, nop, release, end_atomic, notify, notifyall, csignal,
 *     cbroadcast, send: no effect on the fact (a release's buffer is the fact
 *     after it, read by the acquires); end: no successor. */
#include <stdlib.h>
#include <string.h>

#include "analyze_int.h"

typedef struct lin {
    bool cst;
    int64_t c;
    uint32_t dim;
} lin;

static lin lin_of(const an_unit *u, const vm_operand *o)
{
    lin l = {0};
    switch ((enum vm_argkind)o->kind) {
    case VM_ARG_IMM: l.cst = true; l.c = o->val; break;
    case VM_ARG_REG: l.dim = (uint32_t)o->val; break;
    case VM_ARG_SELF: l.dim = an_dim_self(u); break;
    case VM_ARG_TID: l.dim = an_dim_tid(u); break;
    }
    return l;
}

static void bounds(const an_unit *u, const an_fact *f, lin l, int64_t *lo, int64_t *hi)
{
    if (l.cst) {
        *lo = *hi = l.c;
        return;
    }
    oct_bounds(f->m, u->n, l.dim, lo, hi);
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* [lo, hi] as int32 values: shifted by a multiple of 2^32 when it fits in
 * one window, else the whole int32 range. */
static void int32_range(int64_t *lo, int64_t *hi)
{
    if (*lo == INT64_MIN || *hi == INT64_MAX) {
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        return;
    }
    int64_t k = floordiv(*lo - INT32_MIN, AN_WRAP), k2 = floordiv(*hi - INT32_MIN, AN_WRAP);
    if (k != k2) {
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        return;
    }
    *lo -= k * AN_WRAP;
    *hi -= k * AN_WRAP;
}

static void set_bounds(const an_unit *u, an_fact *f, uint32_t v, int64_t lo, int64_t hi)
{
    if (hi != INT64_MAX && hi <= AN_BIG) oct_add(f->m, u->n, 2 * v + 1, 2 * v, 2 * hi);
    if (lo != INT64_MIN && lo >= -AN_BIG) oct_add(f->m, u->n, 2 * v, 2 * v + 1, -2 * lo);
}

void an_wrap(const an_unit *u, an_fact *f, uint32_t v)
{
    int64_t lo, hi;
    oct_bounds(f->m, u->n, v, &lo, &hi);
    if (lo >= INT32_MIN && hi <= INT32_MAX) return;
    if (lo != INT64_MIN && hi != INT64_MAX) {
        int64_t k = floordiv(lo - INT32_MIN, AN_WRAP), k2 = floordiv(hi - INT32_MIN, AN_WRAP);
        if (k == k2) {
            oct_shift(f->m, u->n, v, -k * AN_WRAP);
            return;
        }
    }
    oct_forget(f->m, u->n, v);
    set_bounds(u, f, v, INT32_MIN, INT32_MAX);
}

static void wrap_lin(const an_unit *u, an_fact *f, lin l)
{
    if (!l.cst) an_wrap(u, f, l.dim);
}

bool an_normal(const an_result *r, const an_unit *u, an_fact *f)
{
    if (!oct_close(f->m, u->n)) return false;
    if (r->o.domain == AN_INTERVAL) oct_box(f->m, u->n);
    return true;
}

/* A register (or self, tid) is written: what remembered it goes. */
static void clobber(const an_unit *u, an_fact *f, uint32_t rd)
{
    f->desc[rd].op = 0;
    for (uint32_t k = 0; k < u->nregs; k++) {
        const an_desc *d = &f->desc[k];
        if (!d->op) continue;
        if ((d->a.kind == VM_ARG_REG && (uint32_t)d->a.val == rd) ||
            (d->b.kind == VM_ARG_REG && (uint32_t)d->b.val == rd))
            f->desc[k].op = 0;
    }
}

/* rd := fresh value in [lo, hi] (f closed). */
static void set_fresh(const an_unit *u, an_fact *f, uint32_t rd, int64_t lo, int64_t hi)
{
    oct_forget(f->m, u->n, rd);
    if (lo != INT64_MIN && hi != INT64_MAX && (lo < -AN_BIG || hi > AN_BIG)) return;
    set_bounds(u, f, rd, lo, hi);
}

/* rd := x + k (f closed). */
static void assign_lin(const an_unit *u, an_fact *f, uint32_t rd, lin x, int64_t k)
{
    if (x.cst) {
        set_fresh(u, f, rd, x.c + k, x.c + k);
    } else if (x.dim == rd) {
        oct_shift(f->m, u->n, rd, k);
    } else {
        oct_forget(f->m, u->n, rd);
        oct_add(f->m, u->n, 2 * x.dim, 2 * rd, k);  /* rd - x <= k */
        oct_add(f->m, u->n, 2 * rd, 2 * x.dim, -k); /* x - rd <= -k */
    }
}

/* rd := k - y (f closed). */
static void assign_neg(const an_unit *u, an_fact *f, uint32_t rd, int64_t k, lin y)
{
    if (y.cst) {
        set_fresh(u, f, rd, k - y.c, k - y.c);
    } else if (y.dim == rd) {
        oct_negate(f->m, u->n, rd);
        oct_shift(f->m, u->n, rd, k);
    } else {
        oct_forget(f->m, u->n, rd);
        oct_add(f->m, u->n, 2 * y.dim + 1, 2 * rd, k); /* rd + y <= k */
        oct_add(f->m, u->n, 2 * y.dim, 2 * rd + 1, -k); /* -rd - y <= -k */
    }
}

/* a - b <= c; false when two constants contradict it. */
static bool add_diff_le(const an_unit *u, an_fact *f, lin a, lin b, int64_t c)
{
    if (a.cst && b.cst) return a.c - b.c <= c;
    if (!a.cst && !b.cst) {
        if (a.dim == b.dim) return c >= 0;
        oct_add(f->m, u->n, 2 * b.dim, 2 * a.dim, c);
    } else if (!a.cst) {
        oct_add(f->m, u->n, 2 * a.dim + 1, 2 * a.dim, 2 * (c + b.c)); /* a <= c + k */
    } else {
        oct_add(f->m, u->n, 2 * b.dim, 2 * b.dim + 1, 2 * (c - a.c)); /* -b <= c - k */
    }
    return true;
}

/* The interval of a - b in Z from the (closed) fact. */
static void diff_bounds(const an_unit *u, const an_fact *f, lin a, lin b, int64_t *lo, int64_t *hi)
{
    int64_t alo, ahi, blo, bhi;
    bounds(u, f, a, &alo, &ahi);
    bounds(u, f, b, &blo, &bhi);
    *hi = ahi == INT64_MAX || blo == INT64_MIN ? INT64_MAX : ahi - blo;
    *lo = alo == INT64_MIN || bhi == INT64_MAX ? INT64_MIN : alo - bhi;
    if (!a.cst && !b.cst) {
        if (a.dim == b.dim) {
            *lo = *hi = 0;
            return;
        }
        uint32_t d = 2 * u->n;
        int64_t up = f->m[(size_t)(2 * b.dim) * d + 2 * a.dim];   /* a - b <= up */
        int64_t down = f->m[(size_t)(2 * a.dim) * d + 2 * b.dim]; /* b - a <= down */
        if (up != AN_INF && up < *hi) *hi = up;
        if (down != AN_INF && -down > *lo) *lo = -down;
    }
}

static enum vm_opcode negate_op(enum vm_opcode op)
{
    switch (op) {
    case VM_OP_eq: return VM_OP_ne;
    case VM_OP_ne: return VM_OP_eq;
    case VM_OP_lt: return VM_OP_ge;
    case VM_OP_ge: return VM_OP_lt;
    case VM_OP_le: return VM_OP_gt;
    case VM_OP_gt: return VM_OP_le;
    default: return op;
    }
}

/* Keep the states where the int32 values satisfy a op b; false if none
 * (f closed on entry, closed on a true return). */
static bool filter_cmp(const an_result *r, const an_unit *u, an_fact *f, enum vm_opcode op,
                       lin a, lin b)
{
    if (op == VM_OP_eq || op == VM_OP_ne) {
        /* int32 equality is equality of the Z values modulo 2^32 */
        int64_t lo, hi;
        diff_bounds(u, f, a, b, &lo, &hi);
        bool unb = lo == INT64_MIN || hi == INT64_MAX;
        int64_t kmin = unb ? 0 : -floordiv(-lo, AN_WRAP), kmax = unb ? 0 : floordiv(hi, AN_WRAP);
        if (op == VM_OP_eq) {
            if (!unb && kmin > kmax) return false;
            if (!unb && kmin == kmax) {
                if (!add_diff_le(u, f, a, b, kmin * AN_WRAP)) return false;
                if (!add_diff_le(u, f, b, a, -kmin * AN_WRAP)) return false;
            } else {
                wrap_lin(u, f, a);
                wrap_lin(u, f, b);
                if (!add_diff_le(u, f, a, b, 0) || !add_diff_le(u, f, b, a, 0)) return false;
            }
        } else {
            if (unb || kmin > kmax) return an_normal(r, u, f);
            if (lo == hi) return false; /* a multiple of 2^32 exactly */
            if (kmin == kmax) {
                if (lo == kmin * AN_WRAP && !add_diff_le(u, f, b, a, -(lo + 1))) return false;
                if (hi == kmax * AN_WRAP && !add_diff_le(u, f, a, b, hi - 1)) return false;
            }
        }
        return an_normal(r, u, f);
    }
    wrap_lin(u, f, a);
    wrap_lin(u, f, b);
    bool ok = true;
    switch (op) {
    case VM_OP_lt: ok = add_diff_le(u, f, a, b, -1); break;
    case VM_OP_le: ok = add_diff_le(u, f, a, b, 0); break;
    case VM_OP_gt: ok = add_diff_le(u, f, b, a, -1); break;
    case VM_OP_ge: ok = add_diff_le(u, f, b, a, 0); break;
    default: break;
    }
    return ok && an_normal(r, u, f);
}

/* Keep the states where operand a is nonzero (or zero); false if none. */
static bool filter_nz(const an_result *r, const an_unit *u, an_fact *f, const vm_operand *a,
                      bool nonzero)
{
    lin x = lin_of(u, a), zero = {.cst = true, .c = 0};
    if (a->kind == VM_ARG_REG && f->desc[a->val].op) {
        an_desc d = f->desc[a->val];
        enum vm_opcode op = (enum vm_opcode)d.op;
        if (!filter_cmp(r, u, f, nonzero ? op : negate_op(op), lin_of(u, &d.a), lin_of(u, &d.b)))
            return false;
    }
    return filter_cmp(r, u, f, nonzero ? VM_OP_ne : VM_OP_eq, x, zero);
}

static void copy_block(const an_unit *u, uint8_t *dst, const uint8_t *src)
{
    memcpy(dst, src, u->f_bytes);
}

/* Does the fact decide `a op b`? 1 true, 0 false, -1 not decided. */
static int decide(an_ctx *c, const an_unit *u, const an_fact *f, enum vm_opcode op, lin a, lin b)
{
    an_fact t = an_fact_at(u, c->scratch[3]);
    memcpy(t.m, f->m, (size_t)4 * u->n * u->n * sizeof *t.m);
    if (!filter_cmp(c->r, u, &t, op, a, b)) return 0;
    memcpy(t.m, f->m, (size_t)4 * u->n * u->n * sizeof *t.m);
    if (!filter_cmp(c->r, u, &t, negate_op(op), a, b)) return 1;
    return -1;
}

bool an_proves_nonzero(an_ctx *c, const an_unit *u, const uint8_t *block, const vm_operand *a)
{
    copy_block(u, c->scratch[2], block);
    an_fact t = an_fact_at(u, c->scratch[2]);
    return !filter_nz(c->r, u, &t, a, false);
}

void an_elem_bounds(const an_unit *u, const an_fact *f, uint32_t e, int64_t *lo, int64_t *hi)
{
    if (u->edim[e] >= 0) {
        oct_bounds(f->m, u->n, an_dim_elem(u, e), lo, hi);
    } else {
        *lo = f->iv[2 * e];
        *hi = f->iv[2 * e + 1];
    }
}

/* Element e := a fresh value in [lo, hi] (f closed for a packed one). */
static void set_elem(const an_unit *u, an_fact *f, uint32_t e, int64_t lo, int64_t hi)
{
    if (lo != INT64_MIN && lo < -AN_BIG) lo = INT64_MIN;
    if (hi != INT64_MAX && hi > AN_BIG) hi = INT64_MAX;
    if (u->edim[e] >= 0) {
        oct_forget(f->m, u->n, an_dim_elem(u, e));
        set_bounds(u, f, an_dim_elem(u, e), lo, hi);
    } else {
        f->iv[2 * e] = lo;
        f->iv[2 * e + 1] = hi;
    }
}

void an_initial(an_result *r, const an_unit *u, uint8_t *block)
{
    const vm_program *p = r->p;
    an_fact f = an_fact_at(u, block);
    memset(block, 0, u->f_bytes);
    oct_top(f.m, u->n);
    for (uint32_t k = 0; k < u->nregs; k++) set_bounds(u, &f, k, 0, 0);
    set_bounds(u, &f, an_dim_self(u), u->self, u->self);
    set_bounds(u, &f, an_dim_tid(u), u->tid, u->tid);
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *x = &p->vars[v];
        for (uint32_t i = 0; i < x->size; i++) {
            uint32_t e = x->first_elem + i;
            bool vol = x->cls == VM_VOLATILE;
            f.wr[e] = AN_WR_NONE;
            f.mi[e] = 1;
            f.iv[2 * e] = vol ? INT32_MIN : x->init[i];
            f.iv[2 * e + 1] = vol ? INT32_MAX : x->init[i];
            if (u->edim[e] >= 0) set_bounds(u, &f, an_dim_elem(u, e), f.iv[2 * e], f.iv[2 * e + 1]);
        }
    }
    an_normal(r, u, &f);
}

static int32_t wr_join(int32_t a, int32_t b)
{
    if (a == b || b == AN_WR_NONE) return a;
    if (a == AN_WR_NONE) return b;
    return AN_WR_MANY;
}

/* At a join, may source unit su be the thread joined (its id within the
 * operand's values)? Every source of any other import may be. */
static bool joinable(const an_result *r, const an_unit *u, const an_fact *f, const vm_insn *in,
                     const an_unit *su)
{
    if (in->op != VM_OP_join) return true;
    int64_t lo, hi;
    bounds(u, f, lin_of(u, &in->a), &lo, &hi);
    int32_range(&lo, &hi);
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

static int32_t wr_join2(int32_t a, int32_t b)
{
    if (a == b || b == AN_WR_NONE) return a;
    if (a == AN_WR_NONE) return b;
    return AN_WR_MANY;
}

static bool joinable(const an_result *r, const an_unit *u, const an_fact *f, const vm_insn *in,
                     const an_unit *su);

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
            for (uint32_t i = 0; i < k; i++) w = wr_join2(w, sf.wr[E[i]]);
            if (r->o.tids && (w == AN_WR_NONE || (w == (int32_t)ui && !u->summary))) continue;
            contributed = true;
            for (uint32_t a = 0; a < d; a++)
                for (uint32_t b = 0; b < d; b++) {
                    int64_t v = proj(su, &sf, E, a, b);
                    if (v > D[(size_t)a * d + b]) D[(size_t)a * d + b] = v;
                }
            for (uint32_t i = 0; i < k; i++) {
                wr[i] = wr_join2(wr[i], sf.wr[E[i]]);
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
static void mix(an_ctx *c, uint32_t ui, uint32_t pc, an_fact *f)
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
                set_bounds(u, f, an_dim_elem(u, e), lo[e], hi[e]);
            } else {
                f->iv[2 * e] = lo[e];
                f->iv[2 * e + 1] = hi[e];
            }
        }
    an_normal(r, u, f);
}

/* The hull of operand a's int32 values over the sources of (ui, pc) (sends
 * or volatile stores): *lo > *hi when no source is reached. */
static void source_values(an_ctx *c, uint32_t ui, uint32_t pc, int64_t *lo, int64_t *hi)
{
    const an_unit *u = &c->r->units[ui];
    for (uint32_t k = u->src_off[pc]; k < u->src_off[pc + 1]; k++) {
        const an_src *s = &u->src[k];
        const an_unit *su = &c->r->units[s->unit];
        if (!su->reached[s->pc]) continue;
        const vm_insn *in = &c->r->p->bodies[su->body].code[s->pc];
        an_fact sf = an_fact_at(su, an_block(su, s->pc));
        int64_t a, b;
        bounds(su, &sf, lin_of(su, &in->a), &a, &b);
        int32_range(&a, &b);
        if (a < *lo) *lo = a;
        if (b > *hi) *hi = b;
    }
}

/* The elements load/store `in` may name: [*lo, *hi) (empty: it faults);
 * the index is refined to the array. */
static void elem_range(const an_result *r, const an_unit *u, an_fact *f, const vm_insn *in,
                       uint32_t *elo, uint32_t *ehi)
{
    const vm_var *v = &r->p->vars[in->obj];
    lin ix = lin_of(u, &in->idx);
    wrap_lin(u, f, ix);
    int64_t lo, hi;
    bounds(u, f, ix, &lo, &hi);
    if (lo < 0) lo = 0;
    if (hi > (int64_t)v->size - 1) hi = (int64_t)v->size - 1;
    if (lo > hi) {
        *elo = *ehi = 0;
        return;
    }
    if (!ix.cst) set_bounds(u, f, ix.dim, lo, hi);
    *elo = v->first_elem + (uint32_t)lo;
    *ehi = v->first_elem + (uint32_t)hi + 1;
}

static uint32_t unit_of_proc(const an_result *r, uint32_t body)
{
    for (uint32_t k = r->p->nstatic; k < r->nunits; k++)
        if (r->units[k].body == body) return k;
    return UINT32_MAX;
}

/* The entry fact of proc unit cu spawned from (pu, f) with argument a. */
static void spawn_entry(an_ctx *c, const an_unit *pu, const an_fact *f, const an_unit *cu,
                        const vm_operand *arg, uint8_t *block)
{
    const vm_program *p = c->r->p;
    an_fact g = an_fact_at(cu, block);
    memset(block, 0, cu->f_bytes);
    oct_top(g.m, cu->n);
    uint32_t dp = 2 * pu->n, dc = 2 * cu->n;
    for (uint32_t e1 = 0; e1 < p->nelems; e1++) { /* relations both pack */
        if (cu->edim[e1] < 0 || pu->edim[e1] < 0) continue;
        for (uint32_t e2 = 0; e2 < p->nelems; e2++) {
            if (cu->edim[e2] < 0 || pu->edim[e2] < 0) continue;
            for (uint32_t s1 = 0; s1 < 2; s1++)
                for (uint32_t s2 = 0; s2 < 2; s2++)
                    g.m[(size_t)(2 * (uint32_t)cu->edim[e1] + s1) * dc + 2 * (uint32_t)cu->edim[e2] + s2] =
                        f->m[(size_t)(2 * (uint32_t)pu->edim[e1] + s1) * dp + 2 * (uint32_t)pu->edim[e2] + s2];
        }
    }
    for (uint32_t e = 0; e < p->nelems; e++) {
        int64_t lo, hi;
        an_elem_bounds(pu, f, e, &lo, &hi);
        g.iv[2 * e] = lo;
        g.iv[2 * e + 1] = hi;
        if (cu->edim[e] >= 0) set_bounds(cu, &g, an_dim_elem(cu, e), lo, hi);
    }
    memcpy(g.wr, f->wr, p->nelems * sizeof *g.wr);
    memcpy(g.mi, f->mi, p->nelems);
    for (uint32_t k = 0; k < cu->nregs; k++) set_bounds(cu, &g, k, 0, 0);
    int64_t lo, hi;
    bounds(pu, f, lin_of(pu, arg), &lo, &hi);
    int32_range(&lo, &hi);
    set_bounds(cu, &g, an_dim_self(cu), lo, hi);
    set_bounds(cu, &g, an_dim_tid(cu), p->nstatic, p->nthreads - 1);
    an_normal(c->r, cu, &g);
}

static void arith(an_ctx *c, const an_unit *u, an_fact *f, const vm_insn *in)
{
    enum vm_opcode op = (enum vm_opcode)in->op;
    lin a = lin_of(u, &in->a), b = lin_of(u, &in->b);
    uint32_t rd = in->rd;
    int64_t alo, ahi, blo, bhi;
    if (a.cst && b.cst && !((op == VM_OP_div || op == VM_OP_mod) && b.c == 0)) {
        int32_t v = vm_arith(op, (int32_t)a.c, (int32_t)b.c);
        set_fresh(u, f, rd, v, v);
        return;
    }
    switch (op) {
    case VM_OP_add:
        if (b.cst) { assign_lin(u, f, rd, a, b.c); return; }
        if (a.cst) { assign_lin(u, f, rd, b, a.c); return; }
        { /* the octagon bounds a + b = a - (-b) too */
            lin nb = b;
            int64_t lo, hi;
            if (a.dim == b.dim) {
                bounds(u, f, a, &alo, &ahi);
                set_fresh(u, f, rd, alo == INT64_MIN ? alo : 2 * alo, ahi == INT64_MAX ? ahi : 2 * ahi);
                return;
            }
            uint32_t d = 2 * u->n;
            bounds(u, f, a, &alo, &ahi);
            bounds(u, f, nb, &blo, &bhi);
            lo = alo == INT64_MIN || blo == INT64_MIN ? INT64_MIN : alo + blo;
            hi = ahi == INT64_MAX || bhi == INT64_MAX ? INT64_MAX : ahi + bhi;
            int64_t up = f->m[(size_t)(2 * a.dim + 1) * d + 2 * b.dim];   /* a + b <= up */
            int64_t dn = f->m[(size_t)(2 * a.dim) * d + 2 * b.dim + 1];   /* -a - b <= dn */
            if (up != AN_INF && up < hi) hi = up;
            if (dn != AN_INF && -dn > lo) lo = -dn;
            set_fresh(u, f, rd, lo, hi);
        }
        return;
    case VM_OP_sub:
        if (b.cst) { assign_lin(u, f, rd, a, -b.c); return; }
        if (a.cst) { assign_neg(u, f, rd, a.c, b); return; }
        if (a.dim == b.dim) { set_fresh(u, f, rd, 0, 0); return; }
        {
            int64_t lo, hi;
            diff_bounds(u, f, a, b, &lo, &hi); /* the octagon's a - b */
            set_fresh(u, f, rd, lo, hi);
        }
        return;
    case VM_OP_shl:
        if (!b.cst) break;
        b.c = (int64_t)1 << (b.c & 31);
        op = VM_OP_mul;
        /* fall through */
    case VM_OP_mul:
        if (a.cst) {
            lin t = a;
            a = b;
            b = t;
        }
        if (b.cst && b.c == 1) { assign_lin(u, f, rd, a, 0); return; }
        if (b.cst && b.c == -1) { assign_neg(u, f, rd, 0, a); return; }
        wrap_lin(u, f, a);
        wrap_lin(u, f, b);
        bounds(u, f, a, &alo, &ahi);
        bounds(u, f, b, &blo, &bhi);
        {
            int64_t p1 = alo * blo, p2 = alo * bhi, p3 = ahi * blo, p4 = ahi * bhi;
            int64_t lo = p1, hi = p1;
            if (p2 < lo) lo = p2;
            if (p3 < lo) lo = p3;
            if (p4 < lo) lo = p4;
            if (p2 > hi) hi = p2;
            if (p3 > hi) hi = p3;
            if (p4 > hi) hi = p4;
            if (lo < -AN_BIG || hi > AN_BIG) set_fresh(u, f, rd, INT32_MIN, INT32_MAX);
            else set_fresh(u, f, rd, lo, hi);
        }
        return;
    default: break;
    }
    /* the rest needs int32 operands */
    wrap_lin(u, f, a);
    wrap_lin(u, f, b);
    bounds(u, f, a, &alo, &ahi);
    bounds(u, f, b, &blo, &bhi);
    int64_t lo = INT32_MIN, hi = INT32_MAX;
    switch (op) {
    case VM_OP_div: {
        bool first = true;
        for (int side = 0; side < 2; side++) {
            int64_t l = side ? (blo > 1 ? blo : 1) : blo, h = side ? bhi : (bhi < -1 ? bhi : -1);
            if (l > h) continue;
            int64_t q[4] = {alo / l, alo / h, ahi / l, ahi / h};
            for (int k = 0; k < 4; k++) {
                if (first || q[k] < lo) lo = q[k];
                if (first || q[k] > hi) hi = q[k];
                first = false;
            }
        }
        if (first) { lo = 1; hi = 0; } /* only zero: faults */
        break;
    }
    case VM_OP_mod: {
        int64_t mag = -blo > bhi ? -blo : bhi; /* the largest |b| */
        if (mag <= 0) { lo = 1; hi = 0; break; }
        int64_t small = blo > 0 ? blo : bhi < 0 ? -bhi : 0; /* the smallest |b| when b keeps a sign */
        if (small > 0 && alo > -small && ahi < small) {
            assign_lin(u, f, rd, a, 0);
            return;
        }
        lo = alo >= 0 ? 0 : (alo > -(mag - 1) ? alo : -(mag - 1));
        hi = ahi <= 0 ? 0 : (ahi < mag - 1 ? ahi : mag - 1);
        break;
    }
    case VM_OP_and:
        if (alo >= 0 || blo >= 0) {
            lo = 0;
            hi = alo >= 0 && blo >= 0 ? (ahi < bhi ? ahi : bhi) : alo >= 0 ? ahi : bhi;
        }
        break;
    case VM_OP_or: case VM_OP_xor:
        if (alo >= 0 && blo >= 0) {
            int64_t m = ahi > bhi ? ahi : bhi, pw = 1;
            while (pw <= m) pw <<= 1;
            lo = 0;
            hi = pw - 1;
        }
        break;
    case VM_OP_shr:
        if (blo == bhi) {
            int k = (int)(blo & 31);
            if (alo >= 0) {
                lo = alo >> k;
                hi = ahi >> k;
            } else if (k > 0) {
                lo = 0;
                hi = (int64_t)(0xffffffffu >> k);
            }
        }
        break;
    default: break;
    }
    if (lo > hi) {
        set_fresh(u, f, rd, 0, 0);
        f->m[0] = -1; /* bottom: the caller's closure finds it */
        return;
    }
    set_fresh(u, f, rd, lo, hi);
}

static void compare(an_ctx *c, const an_unit *u, an_fact *f, const vm_insn *in)
{
    enum vm_opcode op = (enum vm_opcode)in->op;
    vm_operand zero = {.kind = VM_ARG_IMM, .val = 0};
    vm_operand oa = in->a, ob = op == VM_OP_not ? zero : in->b;
    if (op == VM_OP_not) op = VM_OP_eq;
    int v = decide(c, u, f, op, lin_of(u, &oa), lin_of(u, &ob));
    uint32_t rd = in->rd;
    if (v >= 0) set_fresh(u, f, rd, v, v);
    else set_fresh(u, f, rd, 0, 1);
    clobber(u, f, rd);
    bool self_ref = (oa.kind == VM_ARG_REG && (uint32_t)oa.val == rd) ||
                    (ob.kind == VM_ARG_REG && (uint32_t)ob.val == rd);
    if (!self_ref) f->desc[rd] = (an_desc){.op = (uint8_t)op, .a = oa, .b = ob};
}

unsigned an_transfer(an_ctx *c, uint32_t ui, uint32_t pc, an_out *out, const uint32_t **more,
                     unsigned *nmore, an_spawn_fn spawn, void *cb)
{
    an_result *r = c->r;
    const vm_program *p = r->p;
    const an_unit *u = &r->units[ui];
    const vm_body *body = &p->bodies[u->body];
    const vm_insn *in = &body->code[pc];
    *nmore = 0;
    copy_block(u, c->scratch[0], an_block(u, pc));
    an_fact f = an_fact_at(u, c->scratch[0]);
    out[0].block = c->scratch[0];
    out[0].pc = pc + 1;
    if (an_is_import(p, in)) mix(c, ui, pc, &f);
    switch ((enum vm_opcode)in->op) {
    case VM_OP_end: return 0;
    case VM_OP_jmp: case VM_OP_call:
        out[0].pc = (uint32_t)in->obj;
        return 1;
    case VM_OP_ret:
        *more = vm_ret_sites(body, pc, nmore);
        return 0;
    case VM_OP_jz: case VM_OP_jnz: {
        copy_block(u, c->scratch[1], c->scratch[0]);
        an_fact g = an_fact_at(u, c->scratch[1]);
        bool jz = in->op == VM_OP_jz;
        unsigned n = 0;
        /* taken: a == 0 for jz */
        if (filter_nz(r, u, &g, &in->a, !jz)) {
            out[n].block = c->scratch[1];
            out[n++].pc = (uint32_t)in->obj;
        }
        if (filter_nz(r, u, &f, &in->a, jz)) {
            out[n].block = c->scratch[0];
            out[n++].pc = pc + 1;
        }
        return n;
    }
    case VM_OP_assume: case VM_OP_assert:
        return filter_nz(r, u, &f, &in->a, true) ? 1 : 0;
    case VM_OP_mov:
        clobber(u, &f, in->rd);
        assign_lin(u, &f, in->rd, lin_of(u, &in->a), 0);
        break;
    case VM_OP_neg:
        clobber(u, &f, in->rd);
        assign_neg(u, &f, in->rd, 0, lin_of(u, &in->a));
        break;
    case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_div: case VM_OP_mod:
    case VM_OP_and: case VM_OP_or: case VM_OP_xor: case VM_OP_shl: case VM_OP_shr:
        clobber(u, &f, in->rd);
        arith(c, u, &f, in);
        break;
    case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le: case VM_OP_gt: case VM_OP_ge:
    case VM_OP_not:
        compare(c, u, &f, in);
        break;
    case VM_OP_choose: {
        lin a = lin_of(u, &in->a), b = lin_of(u, &in->b);
        wrap_lin(u, &f, a);
        wrap_lin(u, &f, b);
        int64_t alo, ahi, blo, bhi;
        bounds(u, &f, a, &alo, &ahi);
        bounds(u, &f, b, &blo, &bhi);
        clobber(u, &f, in->rd);
        set_fresh(u, &f, in->rd, alo, bhi);
        lin d = {.dim = in->rd};
        if (!a.cst && a.dim != in->rd) add_diff_le(u, &f, a, d, 0);
        if (!b.cst && b.dim != in->rd) add_diff_le(u, &f, d, b, 0);
        break;
    }
    case VM_OP_load: {
        const vm_var *v = &p->vars[in->obj];
        uint32_t lo, hi;
        elem_range(r, u, &f, in, &lo, &hi);
        if (lo == hi) return 0; /* out of range: faults */
        clobber(u, &f, in->rd);
        if (v->cls == VM_VOLATILE) {
            int64_t vlo = INT64_MAX, vhi = INT64_MIN;
            for (uint32_t i = 0; i < v->size; i++) {
                if (v->init[i] < vlo) vlo = v->init[i];
                if (v->init[i] > vhi) vhi = v->init[i];
            }
            source_values(c, ui, pc, &vlo, &vhi);
            set_fresh(u, &f, in->rd, vlo, vhi);
        } else if (hi - lo == 1 && u->edim[lo] >= 0) {
            lin x = {.dim = an_dim_elem(u, lo)};
            assign_lin(u, &f, in->rd, x, 0);
        } else {
            if (!oct_close(f.m, u->n)) return 0;
            int64_t vlo = INT64_MAX, vhi = INT64_MIN;
            for (uint32_t e = lo; e < hi; e++) {
                int64_t a, b;
                an_elem_bounds(u, &f, e, &a, &b);
                if (a < vlo) vlo = a;
                if (b > vhi) vhi = b;
            }
            set_fresh(u, &f, in->rd, vlo, vhi);
        }
        break;
    }
    case VM_OP_store: {
        const vm_var *v = &p->vars[in->obj];
        uint32_t lo, hi;
        elem_range(r, u, &f, in, &lo, &hi);
        if (lo == hi) return 0;
        if (v->cls == VM_VOLATILE) break;
        if (!oct_close(f.m, u->n)) return 0;
        lin a = lin_of(u, &in->a);
        if (hi - lo == 1 && u->edim[lo] >= 0) {
            assign_lin(u, &f, an_dim_elem(u, lo), a, 0);
            f.wr[lo] = (int32_t)ui;
            f.mi[lo] = 0;
        } else {
            int64_t alo, ahi;
            bounds(u, &f, a, &alo, &ahi);
            for (uint32_t e = lo; e < hi; e++) {
                int64_t elo, ehi;
                an_elem_bounds(u, &f, e, &elo, &ehi);
                if (hi - lo == 1) elo = INT64_MAX, ehi = INT64_MIN; /* one element: strong */
                set_elem(u, &f, e, alo < elo ? alo : elo, ahi > ehi ? ahi : ehi);
                f.wr[e] = hi - lo == 1 ? (int32_t)ui : wr_join(f.wr[e], (int32_t)ui);
                if (hi - lo == 1) f.mi[e] = 0;
            }
        }
        break;
    }
    case VM_OP_recv: {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        source_values(c, ui, pc, &lo, &hi);
        if (lo > hi) return 0; /* nothing is ever sent */
        clobber(u, &f, in->rd);
        set_fresh(u, &f, in->rd, lo, hi);
        break;
    }
    case VM_OP_spawn: {
        uint32_t cu = unit_of_proc(r, (uint32_t)in->obj);
        if (cu != UINT32_MAX) {
            spawn_entry(c, u, &f, &r->units[cu], &in->a, c->child);
            spawn(cb, cu, c->child);
        }
        clobber(u, &f, in->rd);
        set_fresh(u, &f, in->rd, p->nstatic, p->nthreads - 1);
        break;
    }
    default: break; /* nop, acquire, release, atomic, end_atomic, wait, notify, ...: no effect */
    }
    return an_normal(r, u, &f) ? 1 : 0;
}
