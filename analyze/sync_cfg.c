/* sync_cfg.c: the sync-CFG of a model (RATCOP section 5, "sync-CFG
 * analyses"; notes-ratcop-ziptrack.md B3 and B8): its units, and which facts
 * each import instruction reads.
 *
 * Units: each static thread instance (its self and id known, the CFG
 * replicated per instance, notes B8) and each proc body (one summary for all
 * its instances). Intra-unit edges are the body's: pc + 1, jumps both ways,
 * `call L` to L, `ret` to every return site (vm_ret_sites). The sync edges,
 * buffer point -> import instruction, are those of Goldilocks (lockset.h),
 * the race freedom the premise asks for:
 *   release / end_atomic of lock l  (the fact after it)  -> acquire, atomic,
 *       wait, cwait of l; a `wait` or `cwait` is a release (its fact
 *       before) and then an acquire of its lock. `atomic` ... `end_atomic`
 *       is the hidden lock "(atomic)" held (vm.h).
 *   end (the fact before it)                            -> join of that thread
 *   send on c (before)                                  -> recv on c
 *   store to a volatile v (before)                      -> load of v
 *   spawn (before)                                      -> the proc's pc 0
 *       (pushed by the transfer function, not listed here)
 * Lock elements and joined thread ids come from vm_absregs() (constant
 * propagation over registers: thread-local, so sound without any premise);
 * an unknown index names every element of its declaration. A static unit
 * never reads its own buffers (notes B2: its own versions are never older);
 * a summary reads its own, which other instances of the proc wrote.
 * notify, notifyall, csignal and cbroadcast carry no data (nothing the
 * detector orders); `assume`, `choose`, `call`/`ret` and `atomic` blocks'
 * insides are thread-local (transfer.c).
 *
 * Packs: the elements a unit's loads and stores may name become octagon
 * variables (analyze_int.h), within PACK_ARRAY and PACK_MAX.
 *
 * Widening points: every target of a backward jump or return, every
 * successor of an import instruction (the spurious cycles through sync
 * edges, RATCOP Fig. 2, pass through one) and each summary's entry. */
#include <stdlib.h>
#include <string.h>

#include "analyze_int.h"

/* The pack's limits: an array indexed by an unknown value is packed only
 * up to this size (else its elements stay intervals, a weak update each),
 * and a pack holds at most PACK_MAX elements (the rest intervals): a closure
 * costs (2n)^3. */
#define PACK_ARRAY 8
#define PACK_MAX 64

static bool known(vm_absval v) { return v != VM_ABS_TOP && v != VM_ABS_BOT; }

void an_lock_range(const vm_program *p, const vm_insn *in, const vm_absval *regs,
                   vm_absval self, vm_absval tid, uint32_t *lo, uint32_t *hi)
{
    const vm_lockdecl *k = &p->lockdecls[in->obj];
    vm_absval i = vm_absop(&in->idx, regs, self, tid);
    *lo = k->first;
    *hi = k->first + k->size;
    if (known(i) && i >= 0 && i < (vm_absval)k->size) {
        *lo = k->first + (uint32_t)i;
        *hi = *lo + 1;
    }
}

bool an_is_import(const vm_program *p, const vm_insn *in)
{
    switch ((enum vm_opcode)in->op) {
    case VM_OP_acquire: case VM_OP_atomic: case VM_OP_wait: case VM_OP_cwait:
    case VM_OP_join: case VM_OP_recv:
        return true;
    case VM_OP_load: return p->vars[in->obj].cls == VM_VOLATILE;
    default: return false;
    }
}

/* Kinds of buffer points. */
enum { BUF_LOCK, BUF_END, BUF_SEND, BUF_VSTORE };

typedef struct buf {
    uint8_t kind;
    uint32_t unit, pc;  /* the fact read */
    uint32_t lo, hi;    /* BUF_LOCK: lock elements; BUF_SEND: chan; BUF_VSTORE: var */
} buf;

typedef struct grow {
    void *v;
    size_t n, cap, size;
} grow;

static bool push(grow *g, const void *x)
{
    if (g->n == g->cap) {
        size_t c = g->cap ? 2 * g->cap : 64;
        void *nv = realloc(g->v, c * g->size);
        if (!nv) return false;
        g->v = nv;
        g->cap = c;
    }
    memcpy((char *)g->v + g->n * g->size, x, g->size);
    g->n++;
    return true;
}

static void unit_vals(const an_result *r, uint32_t ui, vm_absval *self, vm_absval *tid)
{
    const an_unit *u = &r->units[ui];
    *self = u->summary ? VM_ABS_TOP : u->self;
    *tid = u->summary ? VM_ABS_TOP : u->tid;
}

/* Does the import at (ui, in, regs) read buffer b? */
static bool reads(const an_result *r, uint32_t ui, const vm_insn *in, const vm_absval *regs,
                  const buf *b)
{
    const vm_program *p = r->p;
    vm_absval self, tid;
    unit_vals(r, ui, &self, &tid);
    switch ((enum vm_opcode)in->op) {
    case VM_OP_acquire: case VM_OP_atomic: case VM_OP_wait: case VM_OP_cwait: {
        if (b->kind != BUF_LOCK) return false;
        uint32_t lo, hi;
        an_lock_range(p, in, regs, self, tid, &lo, &hi);
        return lo < b->hi && b->lo < hi;
    }
    case VM_OP_join: {
        if (b->kind != BUF_END) return false;
        vm_absval a = vm_absop(&in->a, regs, self, tid);
        if (!known(a)) return true;
        const an_unit *bu = &r->units[b->unit];
        if (!bu->summary) return a == bu->tid;
        return a >= (vm_absval)p->nstatic && a < (vm_absval)p->nthreads;
    }
    case VM_OP_recv: return b->kind == BUF_SEND && b->lo == (uint32_t)in->obj;
    case VM_OP_load: return b->kind == BUF_VSTORE && b->lo == (uint32_t)in->obj;
    default: return false;
    }
}

bool an_build(an_result *r)
{
    const vm_program *p = r->p;
    uint32_t nproc = 0;
    for (uint32_t b = 0; b < p->nbodies; b++) nproc += p->bodies[b].is_proc;
    r->nunits = p->nstatic + nproc;
    r->units = calloc(r->nunits ? r->nunits : 1, sizeof *r->units);
    vm_absval **regs = calloc(r->nunits ? r->nunits : 1, sizeof *regs);
    grow bufs = {.size = sizeof(buf)};
    bool ok = r->units && regs;
    for (uint32_t ui = 0, b = 0; ok && ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        if (ui < p->nstatic) {
            u->body = (uint32_t)p->threads[ui].body;
            u->self = p->threads[ui].self;
            u->tid = (int32_t)ui;
        } else {
            while (!p->bodies[b].is_proc) b++;
            u->body = b++;
            u->summary = true;
            u->self = u->tid = -1;
        }
        const vm_body *body = &p->bodies[u->body];
        u->nregs = body->nregs;
        u->nelems = p->nelems;
        uint32_t nc = body->ncode;
        vm_absval self, tid;
        unit_vals(r, ui, &self, &tid);
        regs[ui] = vm_absregs(p, u->body, self, tid);
        u->edim = malloc((p->nelems ? p->nelems : 1) * sizeof *u->edim);
        if (!(ok = regs[ui] && u->edim)) break;
        /* the pack: the non-volatile elements its reachable loads and stores may name */
        for (uint32_t e = 0; e < p->nelems; e++) u->edim[e] = -1;
        size_t row0 = (size_t)body->nregs + 1;
        uint32_t npack = 0;
        for (uint32_t pc = 0; pc < nc; pc++) {
            const vm_insn *in = &body->code[pc];
            const vm_absval *rg = regs[ui] + (size_t)pc * row0;
            if ((in->op != VM_OP_load && in->op != VM_OP_store) || rg[body->nregs] != 0) continue;
            const vm_var *v = &p->vars[in->obj];
            if (v->cls == VM_VOLATILE) continue;
            uint32_t lo = v->first_elem, hi = v->first_elem + v->size;
            vm_absval i = vm_absop(&in->idx, rg, self, tid);
            if (known(i)) {
                if (i < 0 || i >= (vm_absval)v->size) continue;
                lo += (uint32_t)i;
                hi = lo + 1;
            } else if (v->size > PACK_ARRAY) {
                continue; /* a large array under an unknown index: intervals */
            }
            for (uint32_t e = lo; e < hi && npack < PACK_MAX; e++)
                if (u->edim[e] < 0) u->edim[e] = (int32_t)(body->nregs + 2 + npack++);
        }
        u->n = body->nregs + 2 + npack;
        if (u->n > r->stats.dims_max) r->stats.dims_max = u->n;
        u->f_bytes = (size_t)4 * u->n * u->n * sizeof(int64_t) + u->nregs * sizeof(an_desc) +
                     p->nelems * sizeof(int32_t) + p->nelems;
        u->f_bytes = (u->f_bytes + 7) & ~(size_t)7;
        u->f_bytes += 2 * (size_t)p->nelems * sizeof(int64_t);
        u->facts = malloc(nc * u->f_bytes);
        u->reached = calloc(nc, sizeof *u->reached);
        u->updates = calloc(nc, sizeof *u->updates);
        u->widen_at = calloc(nc, sizeof *u->widen_at);
        u->src_off = calloc((size_t)nc + 1, sizeof *u->src_off);
        u->dep_off = calloc((size_t)nc + 1, sizeof *u->dep_off);
        ok = u->facts && u->reached && u->updates && u->widen_at && u->src_off && u->dep_off;
        r->stats.points += nc;
        if (!ok) break;
        /* widening points and buffer points */
        if (u->summary) u->widen_at[0] = true;
        size_t row = (size_t)body->nregs + 1;
        for (uint32_t pc = 0; ok && pc < nc; pc++) {
            const vm_insn *in = &body->code[pc];
            const vm_absval *rg = regs[ui] + (size_t)pc * row;
            enum vm_format f = vm_ops[in->op].format;
            if ((f == VM_FMT_L || f == VM_FMT_AL) && (uint32_t)in->obj <= pc)
                u->widen_at[in->obj] = true;
            unsigned nr;
            const uint32_t *rs = vm_ret_sites(body, pc, &nr);
            for (unsigned i = 0; i < nr; i++)
                if (rs[i] <= pc) u->widen_at[rs[i]] = true;
            if (an_is_import(p, in) && pc + 1 < nc) u->widen_at[pc + 1] = true;
            buf bf = {.unit = ui, .pc = pc};
            switch ((enum vm_opcode)in->op) {
            case VM_OP_release: case VM_OP_end_atomic:
                bf.pc = pc + 1;
                /* fall through */
            case VM_OP_wait: case VM_OP_cwait:
                bf.kind = BUF_LOCK;
                an_lock_range(p, in, rg, self, tid, &bf.lo, &bf.hi);
                if (bf.pc < nc) ok = push(&bufs, &bf);
                break;
            case VM_OP_end:
                bf.kind = BUF_END;
                ok = push(&bufs, &bf);
                break;
            case VM_OP_send:
                bf.kind = BUF_SEND;
                bf.lo = (uint32_t)in->obj;
                ok = push(&bufs, &bf);
                break;
            case VM_OP_store:
                if (p->vars[in->obj].cls != VM_VOLATILE) break;
                bf.kind = BUF_VSTORE;
                bf.lo = (uint32_t)in->obj;
                ok = push(&bufs, &bf);
                break;
            default: break;
            }
        }
    }
    /* sources of each import, CSR per unit; then the dependents */
    grow srcs = {.size = sizeof(an_src)};
    for (uint32_t ui = 0; ok && ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        const vm_body *body = &p->bodies[u->body];
        size_t row = (size_t)body->nregs + 1;
        srcs.n = 0;
        for (uint32_t pc = 0; ok && pc < body->ncode; pc++) {
            u->src_off[pc] = (uint32_t)srcs.n;
            const vm_insn *in = &body->code[pc];
            if (!an_is_import(p, in)) continue;
            const vm_absval *rg = regs[ui] + (size_t)pc * row;
            for (size_t k = 0; ok && k < bufs.n; k++) {
                const buf *bf = (const buf *)bufs.v + k;
                if (!reads(r, ui, in, rg, bf)) continue;
                an_src s = {.unit = bf->unit, .pc = bf->pc, .value_only = false};
                if (bf->unit == ui && !u->summary) {
                    if (bf->kind == BUF_LOCK || bf->kind == BUF_END) continue; /* own edge */
                    s.value_only = true;
                }
                ok = push(&srcs, &s);
            }
        }
        u->src_off[body->ncode] = (uint32_t)srcs.n;
        if (!ok) break;
        u->src = malloc((srcs.n ? srcs.n : 1) * sizeof *u->src);
        if (!(ok = u->src != NULL)) break;
        if (srcs.n) memcpy(u->src, srcs.v, srcs.n * sizeof *u->src);
        r->stats.sync_edges += (uint32_t)srcs.n;
    }
    /* dependents: count, offsets, fill */
    for (uint32_t ui = 0; ok && ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        uint32_t nc = p->bodies[u->body].ncode;
        for (uint32_t pc = 0; pc < nc; pc++)
            for (uint32_t k = u->src_off[pc]; k < u->src_off[pc + 1]; k++) {
                an_unit *su = &r->units[u->src[k].unit];
                su->dep_off[u->src[k].pc + 1]++;
            }
    }
    for (uint32_t ui = 0; ok && ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        uint32_t nc = p->bodies[u->body].ncode;
        for (uint32_t pc = 0; pc < nc; pc++) u->dep_off[pc + 1] += u->dep_off[pc];
        u->dep = malloc(((size_t)u->dep_off[nc] * 2 + 1) * sizeof *u->dep);
        ok = u->dep != NULL;
    }
    /* fill with per-unit cursors (reusing dep_off's copy) */
    uint32_t **cur = ok ? calloc(r->nunits, sizeof *cur) : NULL;
    ok = ok && cur;
    for (uint32_t ui = 0; ok && ui < r->nunits; ui++) {
        uint32_t nc = p->bodies[r->units[ui].body].ncode;
        cur[ui] = malloc((nc + 1) * sizeof **cur);
        if (!(ok = cur[ui] != NULL)) break;
        memcpy(cur[ui], r->units[ui].dep_off, (nc + 1) * sizeof **cur);
    }
    for (uint32_t ui = 0; ok && ui < r->nunits; ui++) {
        an_unit *u = &r->units[ui];
        uint32_t nc = p->bodies[u->body].ncode;
        for (uint32_t pc = 0; pc < nc; pc++)
            for (uint32_t k = u->src_off[pc]; k < u->src_off[pc + 1]; k++) {
                uint32_t su = u->src[k].unit, spc = u->src[k].pc;
                uint32_t at = cur[su][spc]++;
                r->units[su].dep[2 * at] = ui;
                r->units[su].dep[2 * at + 1] = pc;
            }
    }
    for (uint32_t ui = 0; cur && ui < r->nunits; ui++) free(cur[ui]);
    free(cur);
    free(srcs.v);
    free(bufs.v);
    for (uint32_t ui = 0; regs && ui < r->nunits; ui++) free(regs[ui]);
    free(regs);
    r->stats.units = r->nunits;
    return ok;
}
