/* fixpoint.c: the sync-CFG analysis's fixpoint and what it proves (RATCOP
 * section 5, the abstract fixpoint of notes B3; Theorem 4 for why the facts
 * are sound on a race-free model).
 *
 * A worklist over program points (unit, pc): processing one runs its
 * instruction (transfer.c) and joins the result into each successor's fact;
 * a fact that grows queues its own instruction and every import instruction
 * that reads it as a buffer (the sync edges of sync_cfg.c), and a spawn
 * joins the child's entry into the proc's pc 0. At widening points
 * (sync_cfg.c) the join becomes a widening after 3 plain growths (with
 * thresholds: a bound that grew moves to the next constant of the program
 * above it, to infinity past the last); a point
 * that has grown 60 times is set to top (every variable forgotten), so the
 * iteration always ends. Then `narrow` descending passes: every fact is met
 * with what one application of the transfer functions to all facts gives
 * (F(X) is sound whenever X is, so X meet F(X) is too), until a pass
 * changes nothing.
 *
 * An assertion `assert a` at pc is proved when, in every unit that reaches
 * pc, the fact there and a == 0 are contradictory; unreachable when no unit
 * reaches it (the fact is bottom everywhere: sound under DRF, Theorem 4
 * with gamma(bottom) empty). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze_int.h"

#define WIDEN_DELAY 3
#define GIVE_UP 60

void an_options_default(an_options *o)
{
    o->domain = AN_OCTAGON;
    o->tids = true;
    o->narrow = 8;
}

typedef struct fx {
    an_result *r;
    an_ctx c;
    uint32_t *q;      /* circular queue of unit << 16 | pc ... as pairs */
    size_t qcap, qhead, qlen;
    bool **queued;
    uint8_t *tmp;     /* a join's result */
    /* narrowing: the facts one pass computes */
    uint8_t **next;
    bool **next_reached;
    bool narrowing;
    int64_t *th;      /* widening thresholds, ascending (thresholds()) */
    size_t nth;
} fx;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The widening's thresholds: every constant of the program (immediate
 * operands, array sizes, initial values up to 64 per variable) k, as -k,
 * k, and doubled (a DBM keeps a variable's bounds as 2x), with 0 and +-1 and
 * +-2; ascending, no duplicates. A loop bounded by `lt ok, i, 3` then widens
 * i to 3, not to infinity, where the plain widening loses the bound a later
 * guard (or a wrap-around) cannot give back. NULL when memory runs out. */
static int64_t *thresholds(const vm_program *p, size_t *n)
{
    size_t cap = 8;
    for (uint32_t b = 0; b < p->nbodies; b++) cap += 2 * (size_t)p->bodies[b].ncode;
    for (uint32_t v = 0; v < p->nvars; v++) cap += 1 + (p->vars[v].size < 64 ? p->vars[v].size : 64);
    int64_t *t = malloc(4 * cap * sizeof *t);
    if (!t) return NULL;
    size_t k = 0;
#define TH(val) do { int64_t v_ = (val); t[k++] = v_; t[k++] = -v_; t[k++] = 2 * v_; \
                     t[k++] = -2 * v_; } while (0)
    TH(0);
    TH(1);
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++) {
            const vm_insn *in = &p->bodies[b].code[pc];
            if (in->a.kind == VM_ARG_IMM) TH(in->a.val);
            if (in->b.kind == VM_ARG_IMM) TH(in->b.val);
        }
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *x = &p->vars[v];
        TH((int64_t)x->size);
        for (uint32_t i = 0; x->init && i < x->size && i < 64; i++) TH(x->init[i]);
    }
#undef TH
    qsort(t, k, sizeof *t, cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!m || t[i] != t[m - 1]) t[m++] = t[i];
    *n = m;
    return t;
}

static void enqueue(fx *x, uint32_t ui, uint32_t pc)
{
    if (x->queued[ui][pc]) return;
    x->queued[ui][pc] = true;
    size_t at = (x->qhead + x->qlen) % x->qcap;
    x->q[2 * at] = ui;
    x->q[2 * at + 1] = pc;
    x->qlen++;
}

static bool desc_eq(const an_desc *a, const an_desc *b)
{
    return a->op == b->op && a->a.kind == b->a.kind && a->a.val == b->a.val &&
           a->b.kind == b->b.kind && a->b.val == b->b.val;
}

static int32_t wr_join(int32_t a, int32_t b)
{
    if (a == b || b == AN_WR_NONE) return a;
    if (a == AN_WR_NONE) return b;
    return AN_WR_MANY;
}

/* dst := dst join src (descriptors kept where equal, writers joined). */
static void join_fact(const vm_program *p, const an_unit *u, an_fact *dst, const an_fact *src)
{
    oct_join(dst->m, src->m, u->n);
    for (uint32_t k = 0; k < u->nregs; k++)
        if (!desc_eq(&dst->desc[k], &src->desc[k])) dst->desc[k].op = 0;
    for (uint32_t e = 0; e < p->nelems; e++) {
        dst->wr[e] = wr_join(dst->wr[e], src->wr[e]);
        dst->mi[e] |= src->mi[e];
        if (src->iv[2 * e] < dst->iv[2 * e]) dst->iv[2 * e] = src->iv[2 * e];
        if (src->iv[2 * e + 1] > dst->iv[2 * e + 1]) dst->iv[2 * e + 1] = src->iv[2 * e + 1];
    }
}

static void top_fact(const vm_program *p, const an_unit *u, an_fact *f)
{
    oct_top(f->m, u->n);
    memset(f->desc, 0, u->nregs * sizeof *f->desc);
    for (uint32_t e = 0; e < p->nelems; e++) {
        f->wr[e] = AN_WR_MANY;
        f->mi[e] = 1;
        f->iv[2 * e] = INT64_MIN;
        f->iv[2 * e + 1] = INT64_MAX;
    }
}

/* Equal facts (not memcmp: an_desc has padding). */
static bool same_fact(const vm_program *p, const an_unit *u, uint8_t *a, uint8_t *b)
{
    an_fact x = an_fact_at(u, a), y = an_fact_at(u, b);
    if (memcmp(x.m, y.m, (size_t)4 * u->n * u->n * sizeof *x.m)) return false;
    for (uint32_t k = 0; k < u->nregs; k++)
        if (x.desc[k].op != y.desc[k].op || (x.desc[k].op && !desc_eq(&x.desc[k], &y.desc[k])))
            return false;
    return !memcmp(x.wr, y.wr, p->nelems * sizeof *x.wr) && !memcmp(x.mi, y.mi, p->nelems) &&
           !memcmp(x.iv, y.iv, 2 * (size_t)p->nelems * sizeof *x.iv);
}

/* Join block into the fact of (ui, pc), widening there when due. */
static void propagate(fx *x, uint32_t ui, uint32_t pc, const uint8_t *block)
{
    an_result *r = x->r;
    const vm_program *p = r->p;
    an_unit *u = &r->units[ui];
    if (x->narrowing) {
        uint8_t *dst = x->next[ui] + (size_t)pc * u->f_bytes;
        if (!x->next_reached[ui][pc]) {
            memcpy(dst, block, u->f_bytes);
            x->next_reached[ui][pc] = true;
        } else {
            an_fact d = an_fact_at(u, dst), s = an_fact_at(u, (uint8_t *)block);
            join_fact(p, u, &d, &s);
        }
        return;
    }
    uint8_t *dst = an_block(u, pc);
    if (!u->reached[pc]) {
        memcpy(dst, block, u->f_bytes);
        u->reached[pc] = true;
    } else {
        memcpy(x->tmp, dst, u->f_bytes);
        an_fact t = an_fact_at(u, x->tmp), s = an_fact_at(u, (uint8_t *)block);
        join_fact(p, u, &t, &s);
        if (same_fact(p, u, x->tmp, dst)) return; /* nothing new */
        an_fact d = an_fact_at(u, dst);
        if (++u->updates[pc] > GIVE_UP) {
            top_fact(p, u, &d);
        } else if (u->widen_at[pc] && u->updates[pc] > WIDEN_DELAY) {
            oct_widen_th(d.m, t.m, u->n, x->th, x->nth);
            memcpy(d.desc, t.desc, u->nregs * sizeof *d.desc);
            memcpy(d.wr, t.wr, p->nelems * sizeof *d.wr);
            memcpy(d.mi, t.mi, p->nelems);
            for (uint32_t e = 0; e < p->nelems; e++) {
                if (t.iv[2 * e] < d.iv[2 * e]) { /* the greatest threshold at or below */
                    int64_t b = t.iv[2 * e] == INT64_MIN
                                    ? AN_INF : oct_threshold_above(-t.iv[2 * e], x->th, x->nth);
                    d.iv[2 * e] = b == AN_INF ? INT64_MIN : -b;
                }
                if (t.iv[2 * e + 1] > d.iv[2 * e + 1]) {
                    int64_t b = oct_threshold_above(t.iv[2 * e + 1], x->th, x->nth);
                    d.iv[2 * e + 1] = b == AN_INF ? INT64_MAX : b;
                }
            }
            an_normal(r, u, &d);
        } else {
            memcpy(dst, x->tmp, u->f_bytes);
        }
    }
    enqueue(x, ui, pc);
    for (uint32_t k = u->dep_off[pc]; k < u->dep_off[pc + 1]; k++)
        enqueue(x, u->dep[2 * k], u->dep[2 * k + 1]);
}

static void on_spawn(void *cb, uint32_t child, const uint8_t *entry)
{
    propagate(cb, child, 0, entry);
}

static void process(fx *x, uint32_t ui, uint32_t pc)
{
    an_out out[3];
    const uint32_t *more = NULL;
    unsigned nmore = 0;
    x->r->stats.transfers++;
    unsigned n = an_transfer(&x->c, ui, pc, out, &more, &nmore, on_spawn, x);
    for (unsigned i = 0; i < n; i++) propagate(x, ui, out[i].pc, out[i].block);
    for (unsigned i = 0; i < nmore; i++) propagate(x, ui, more[i], out[0].block);
}

static void seed_entries(fx *x)
{
    an_result *r = x->r;
    for (uint32_t ui = 0; ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        if (u->summary) continue;
        an_initial(r, u, x->c.scratch[1]);
        propagate(x, ui, 0, x->c.scratch[1]);
    }
}

/* One descending pass; false when it changed nothing. */
static bool narrow_pass(fx *x)
{
    bool changed = false;
    an_result *r = x->r;
    const vm_program *p = r->p;
    x->narrowing = true;
    for (uint32_t ui = 0; ui < r->nunits; ui++)
        memset(x->next_reached[ui], 0, p->bodies[r->units[ui].body].ncode);
    seed_entries(x);
    for (uint32_t ui = 0; ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        for (uint32_t pc = 0; pc < p->bodies[u->body].ncode; pc++)
            if (u->reached[pc]) process(x, ui, pc);
    }
    x->narrowing = false;
    for (uint32_t ui = 0; ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        for (uint32_t pc = 0; pc < p->bodies[u->body].ncode; pc++) {
            if (!u->reached[pc]) continue;
            if (!x->next_reached[ui][pc]) {
                u->reached[pc] = false;
                changed = true;
                continue;
            }
            memcpy(x->tmp, an_block(u, pc), u->f_bytes);
            an_fact d = an_fact_at(u, an_block(u, pc));
            an_fact s = an_fact_at(u, x->next[ui] + (size_t)pc * u->f_bytes);
            oct_meet(d.m, s.m, u->n);
            for (uint32_t k = 0; k < u->nregs; k++)
                if (s.desc[k].op) d.desc[k] = s.desc[k];
            memcpy(d.wr, s.wr, p->nelems * sizeof *d.wr);
            memcpy(d.mi, s.mi, p->nelems);
            bool empty = false;
            for (uint32_t e = 0; e < p->nelems; e++) {
                if (s.iv[2 * e] > d.iv[2 * e]) d.iv[2 * e] = s.iv[2 * e];
                if (s.iv[2 * e + 1] < d.iv[2 * e + 1]) d.iv[2 * e + 1] = s.iv[2 * e + 1];
                empty |= u->edim[e] < 0 && d.iv[2 * e] > d.iv[2 * e + 1];
            }
            if (empty || !an_normal(r, u, &d)) u->reached[pc] = false;
            changed |= !u->reached[pc] || !same_fact(p, u, x->tmp, an_block(u, pc));
        }
    }
    return changed;
}

static void assertions(fx *x)
{
    an_result *r = x->r;
    const vm_program *p = r->p;
    uint32_t n = 0;
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++)
            if (p->bodies[b].code[pc].op == VM_OP_assert) {
                if (r->asserts) {
                    const vm_insn *in = &p->bodies[b].code[pc];
                    an_assert *a = &r->asserts[n];
                    *a = (an_assert){.body = b, .pc = pc, .line = in->line, .col = in->col,
                                     .msg = in->msg, .status = AN_UNREACHABLE,
                                     .unit = UINT32_MAX};
                    for (uint32_t ui = 0; ui < r->nunits; ui++) {
                        an_unit *u = &r->units[ui];
                        if (u->body != b || !u->reached[pc]) continue;
                        bool ok = an_proves_nonzero(&x->c, u, an_block(u, pc), &in->a);
                        if (a->status == AN_UNREACHABLE) {
                            a->status = ok ? AN_PROVED : AN_UNKNOWN;
                            a->unit = ui;
                        } else if (!ok && a->status == AN_PROVED) {
                            a->status = AN_UNKNOWN;
                            a->unit = ui;
                        }
                    }
                }
                n++;
            }
    r->nasserts = n;
}

void an_free(an_result *r)
{
    if (!r) return;
    for (uint32_t ui = 0; r->units && ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        free(u->facts);
        free(u->reached);
        free(u->updates);
        free(u->widen_at);
        free(u->src_off);
        free(u->src);
        free(u->dep_off);
        free(u->dep);
        free(u->edim);
    }
    free(r->units);
    free(r->asserts);
    free(r);
}

an_result *an_run(const vm_program *p, const an_options *o)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    an_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->p = p;
    r->o = *o;
    fx x = {.r = r, .c = {.r = r}};
    bool ok = an_build(r);
    size_t fmax = 64, total = 0;
    for (uint32_t ui = 0; ok && ui < r->nunits; ui++) {
        if (r->units[ui].f_bytes > fmax) fmax = r->units[ui].f_bytes;
        total += p->bodies[r->units[ui].body].ncode;
    }
    if (ok) {
        for (int i = 0; i < 4; i++) ok &= (x.c.scratch[i] = malloc(fmax)) != NULL;
        ok &= (x.th = thresholds(p, &x.nth)) != NULL;
        ok &= (x.c.child = malloc(fmax)) != NULL;
        ok &= (x.tmp = malloc(fmax)) != NULL;
        x.qcap = total ? total : 1;
        ok &= (x.q = malloc(2 * x.qcap * sizeof *x.q)) != NULL;
        ok &= (x.queued = calloc(r->nunits ? r->nunits : 1, sizeof *x.queued)) != NULL;
        ok &= (x.next = calloc(r->nunits ? r->nunits : 1, sizeof *x.next)) != NULL;
        ok &= (x.next_reached = calloc(r->nunits ? r->nunits : 1, sizeof *x.next_reached)) != NULL;
    }
    for (uint32_t ui = 0; ok && ui < r->nunits; ui++) {
        uint32_t nc = p->bodies[r->units[ui].body].ncode;
        ok &= (x.queued[ui] = calloc(nc, 1)) != NULL;
        if (o->narrow) {
            ok &= (x.next[ui] = malloc(nc * r->units[ui].f_bytes)) != NULL;
            ok &= (x.next_reached[ui] = calloc(nc, 1)) != NULL;
        }
    }
    if (ok) {
        seed_entries(&x);
        while (x.qlen) {
            uint32_t ui = x.q[2 * x.qhead], pc = x.q[2 * x.qhead + 1];
            x.qhead = (x.qhead + 1) % x.qcap;
            x.qlen--;
            x.queued[ui][pc] = false;
            if (r->units[ui].reached[pc]) process(&x, ui, pc);
        }
        for (unsigned k = 0; k < o->narrow && narrow_pass(&x); k++) continue;
        assertions(&x);
        r->asserts = calloc(r->nasserts ? r->nasserts : 1, sizeof *r->asserts);
        ok = r->asserts != NULL;
        if (ok) assertions(&x);
        for (uint32_t ui = 0; ui < r->nunits; ui++)
            for (uint32_t pc = 0; pc < p->bodies[r->units[ui].body].ncode; pc++)
                r->stats.reached += r->units[ui].reached[pc];
    }
    for (int i = 0; i < 4; i++) free(x.c.scratch[i]);
    free(x.c.child);
    free(x.tmp);
    free(x.th);
    free(x.q);
    for (uint32_t ui = 0; ui < r->nunits; ui++) {
        if (x.queued) free(x.queued[ui]);
        if (x.next) free(x.next[ui]);
        if (x.next_reached) free(x.next_reached[ui]);
    }
    free(x.queued);
    free(x.next);
    free(x.next_reached);
    if (!ok) {
        an_free(r);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->stats.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    return r;
}

const an_stats *an_result_stats(const an_result *r) { return &r->stats; }
uint32_t an_nasserts(const an_result *r) { return r->nasserts; }
const an_assert *an_asserts(const an_result *r) { return r->asserts; }
uint32_t an_nunits(const an_result *r) { return r->nunits; }
uint32_t an_unit_body(const an_result *r, uint32_t u) { return r->units[u].body; }
bool an_reached(const an_result *r, uint32_t u, uint32_t pc) { return r->units[u].reached[pc]; }

void an_unit_name(const an_result *r, uint32_t u, char *buf, size_t n)
{
    const an_unit *x = &r->units[u];
    const vm_body *b = &r->p->bodies[x->body];
    if (x->summary) snprintf(buf, n, "%s[*]", b->name);
    else if (b->is_array) snprintf(buf, n, "%s[%d]", b->name, (int)x->self);
    else snprintf(buf, n, "%s", b->name);
}
