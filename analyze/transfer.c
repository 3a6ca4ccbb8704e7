/* transfer.c: the abstract transfer function of every instruction (RATCOP
 * section 5.4: local transfer functions; the mix at an import is mix.c's),
 * over the facts of analyze_int.h.
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

#include "transfer_int.h"

lin an_lin_of(const an_unit *u, const vm_operand *o)
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

void an_bounds(const an_unit *u, const an_fact *f, lin l, int64_t *lo, int64_t *hi)
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
void an_int32_range(int64_t *lo, int64_t *hi)
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

void an_set_bounds(const an_unit *u, an_fact *f, uint32_t v, int64_t lo, int64_t hi)
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
    an_set_bounds(u, f, v, INT32_MIN, INT32_MAX);
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
    an_set_bounds(u, f, rd, lo, hi);
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
    an_bounds(u, f, a, &alo, &ahi);
    an_bounds(u, f, b, &blo, &bhi);
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
    lin x = an_lin_of(u, a), zero = {.cst = true, .c = 0};
    if (a->kind == VM_ARG_REG && f->desc[a->val].op) {
        an_desc d = f->desc[a->val];
        enum vm_opcode op = (enum vm_opcode)d.op;
        if (!filter_cmp(r, u, f, nonzero ? op : negate_op(op), an_lin_of(u, &d.a), an_lin_of(u, &d.b)))
            return false;
    }
    return filter_cmp(r, u, f, nonzero ? VM_OP_ne : VM_OP_eq, x, zero);
}

void an_copy_block(const an_unit *u, uint8_t *dst, const uint8_t *src)
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
    an_copy_block(u, c->scratch[2], block);
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
void an_set_elem(const an_unit *u, an_fact *f, uint32_t e, int64_t lo, int64_t hi)
{
    if (lo != INT64_MIN && lo < -AN_BIG) lo = INT64_MIN;
    if (hi != INT64_MAX && hi > AN_BIG) hi = INT64_MAX;
    if (u->edim[e] >= 0) {
        oct_forget(f->m, u->n, an_dim_elem(u, e));
        an_set_bounds(u, f, an_dim_elem(u, e), lo, hi);
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
    for (uint32_t k = 0; k < u->nregs; k++) an_set_bounds(u, &f, k, 0, 0);
    an_set_bounds(u, &f, an_dim_self(u), u->self, u->self);
    an_set_bounds(u, &f, an_dim_tid(u), u->tid, u->tid);
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *x = &p->vars[v];
        for (uint32_t i = 0; i < x->size; i++) {
            uint32_t e = x->first_elem + i;
            bool vol = x->cls == VM_VOLATILE;
            f.wr[e] = AN_WR_NONE;
            f.mi[e] = 1;
            f.iv[2 * e] = vol ? INT32_MIN : x->init[i];
            f.iv[2 * e + 1] = vol ? INT32_MAX : x->init[i];
            if (u->edim[e] >= 0) an_set_bounds(u, &f, an_dim_elem(u, e), f.iv[2 * e], f.iv[2 * e + 1]);
        }
    }
    an_normal(r, u, &f);
}

/* The elements load/store `in` may name: [*lo, *hi) (empty: it faults);
 * the index is refined to the array. */
static void elem_range(const an_result *r, const an_unit *u, an_fact *f, const vm_insn *in,
                       uint32_t *elo, uint32_t *ehi)
{
    const vm_var *v = &r->p->vars[in->obj];
    lin ix = an_lin_of(u, &in->idx);
    wrap_lin(u, f, ix);
    int64_t lo, hi;
    an_bounds(u, f, ix, &lo, &hi);
    if (lo < 0) lo = 0;
    if (hi > (int64_t)v->size - 1) hi = (int64_t)v->size - 1;
    if (lo > hi) {
        *elo = *ehi = 0;
        return;
    }
    if (!ix.cst) an_set_bounds(u, f, ix.dim, lo, hi);
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
        if (cu->edim[e] >= 0) an_set_bounds(cu, &g, an_dim_elem(cu, e), lo, hi);
    }
    memcpy(g.wr, f->wr, p->nelems * sizeof *g.wr);
    memcpy(g.mi, f->mi, p->nelems);
    for (uint32_t k = 0; k < cu->nregs; k++) an_set_bounds(cu, &g, k, 0, 0);
    int64_t lo, hi;
    an_bounds(pu, f, an_lin_of(pu, arg), &lo, &hi);
    an_int32_range(&lo, &hi);
    an_set_bounds(cu, &g, an_dim_self(cu), lo, hi);
    an_set_bounds(cu, &g, an_dim_tid(cu), p->nstatic, p->nthreads - 1);
    an_normal(c->r, cu, &g);
}

static void arith(an_ctx *c, const an_unit *u, an_fact *f, const vm_insn *in)
{
    enum vm_opcode op = (enum vm_opcode)in->op;
    lin a = an_lin_of(u, &in->a), b = an_lin_of(u, &in->b);
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
                an_bounds(u, f, a, &alo, &ahi);
                set_fresh(u, f, rd, alo == INT64_MIN ? alo : 2 * alo, ahi == INT64_MAX ? ahi : 2 * ahi);
                return;
            }
            uint32_t d = 2 * u->n;
            an_bounds(u, f, a, &alo, &ahi);
            an_bounds(u, f, nb, &blo, &bhi);
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
        an_bounds(u, f, a, &alo, &ahi);
        an_bounds(u, f, b, &blo, &bhi);
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
    an_bounds(u, f, a, &alo, &ahi);
    an_bounds(u, f, b, &blo, &bhi);
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
    int v = decide(c, u, f, op, an_lin_of(u, &oa), an_lin_of(u, &ob));
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
    an_copy_block(u, c->scratch[0], an_block(u, pc));
    an_fact f = an_fact_at(u, c->scratch[0]);
    out[0].block = c->scratch[0];
    out[0].pc = pc + 1;
    if (an_is_import(p, in)) an_mix(c, ui, pc, &f);
    switch ((enum vm_opcode)in->op) {
    case VM_OP_end: return 0;
    case VM_OP_jmp: case VM_OP_call:
        out[0].pc = (uint32_t)in->obj;
        return 1;
    case VM_OP_ret:
        *more = vm_ret_sites(body, pc, nmore);
        return 0;
    case VM_OP_jz: case VM_OP_jnz: {
        an_copy_block(u, c->scratch[1], c->scratch[0]);
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
        assign_lin(u, &f, in->rd, an_lin_of(u, &in->a), 0);
        break;
    case VM_OP_neg:
        clobber(u, &f, in->rd);
        assign_neg(u, &f, in->rd, 0, an_lin_of(u, &in->a));
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
        lin a = an_lin_of(u, &in->a), b = an_lin_of(u, &in->b);
        wrap_lin(u, &f, a);
        wrap_lin(u, &f, b);
        int64_t alo, ahi, blo, bhi;
        an_bounds(u, &f, a, &alo, &ahi);
        an_bounds(u, &f, b, &blo, &bhi);
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
            an_source_values(c, ui, pc, &vlo, &vhi);
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
        lin a = an_lin_of(u, &in->a);
        if (hi - lo == 1 && u->edim[lo] >= 0) {
            assign_lin(u, &f, an_dim_elem(u, lo), a, 0);
            f.wr[lo] = (int32_t)ui;
            f.mi[lo] = 0;
        } else {
            int64_t alo, ahi;
            an_bounds(u, &f, a, &alo, &ahi);
            for (uint32_t e = lo; e < hi; e++) {
                int64_t elo, ehi;
                an_elem_bounds(u, &f, e, &elo, &ehi);
                if (hi - lo == 1) elo = INT64_MAX, ehi = INT64_MIN; /* one element: strong */
                an_set_elem(u, &f, e, alo < elo ? alo : elo, ahi > ehi ? ahi : ehi);
                f.wr[e] = hi - lo == 1 ? (int32_t)ui : wr_join(f.wr[e], (int32_t)ui);
                if (hi - lo == 1) f.mi[e] = 0;
            }
        }
        break;
    }
    case VM_OP_recv: {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        an_source_values(c, ui, pc, &lo, &hi);
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
