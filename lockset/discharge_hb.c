/* discharge_hb.c: the happens-before part of the static discharge
 * (discharge.c), for Goldilocks only: a shared element whose every two
 * conflicting accesses (at least one a write) that different threads may
 * make are ordered by happens-before in every run can never be reported by
 * Goldilocks, so with --por it needs no metadata (LS_ORDERED).
 *
 * Why that suffices. Goldilocks (Elmas, Qadeer, Tasiran, PLDI 2007,
 * section 3, Theorem 1: the lockset of the last access to x holds thread t
 * exactly when that access happens before t's current one) reports an access
 * only when it and an earlier conflicting access are unordered by the
 * happens-before relation of its sync edges: lock release -> later acquire,
 * volatile write -> later read, send on c -> later recv on c, spawn -> the
 * child's first step, the joinee's last step -> join (lockset.h, the rules
 * as goldilocks.c applies them), closed under program order and transitively.
 * Thread ids are never reused (a spawn slot serves one spawn), so a thread in
 * a lockset is one thread of the run. If the analysis below proves a pair
 * ordered by a subset of those edges, the detector's check on it passes.
 *
 * Analysis units are discharge.c's: each static thread instance (one thread)
 * and each proc body (up to `max` threads; with `max 1` one thread over the
 * whole run). Per unit, over the pcs vm_absregs() reaches (its successors:
 * vm_abssucc, a superset of what a run does, so every may-fact below is an
 * over- and every must-fact an under-approximation), a forward dataflow
 * computes at each pc:
 *   pending[q], per spawn site q of the unit: NONE (every child spawned at q
 *     so far has been joined), ONE (all but the latest), LOST (no guarantee);
 *     at a merge the maximum. Spawn at q: NONE -> ONE, else LOST.
 *   mark[r], per register: "r holds the id of the latest child spawned at
 *     q" (spawn writes it into rd, `mov` copies it, any other write of r and
 *     a later spawn at q clear it; at a merge it survives only if equal).
 *     `join r` with r marked q and pending[q] = ONE makes it NONE: the join
 *     waits for that child to end.
 *   joined: the static threads joined so far (`join k`, k a known static id;
 *     a must-set, intersected at merges).
 *   received: the channels this thread has completed a recv on (must-set).
 * and per spawn or send site q, the pcs reachable after q: "q never runs
 * before pc a" when a is not among them (every run of a precedes every run
 * of q in that thread).
 *
 * A pair, access a of unit A and access b of unit B (different threads;
 * two threads of one proc body included), is ordered when one of:
 *   lock: a lock element is must-held at both (discharge.c's must-hold
 *     analysis): whichever comes second, its thread acquired the lock after
 *     the other released it (the common-lock case of discharge.c, per pair).
 *   spawn/join, A one thread, B a proc body: every spawn site q of B's body
 *     is either in A with pending[q] = NONE at a (every B thread A spawned
 *     before this run of a was joined before it: its accesses happen before
 *     a; every one spawned later starts after a), or in a proc body X all of
 *     whose threads start after a (X's spawn sites are in A and never run
 *     before a, or in such a proc body again: a greatest fixed point, sound
 *     by induction on the order of the spawns, since the first thread of X
 *     cannot be spawned by a thread of X). A body no reached spawn names
 *     never runs.
 *   join, A one thread, B a static thread: B is in joined at a.
 *   channel, A one thread: for some channel c every reached `send` on c is
 *     in A and never runs before a, and B has received on c before b. The
 *     recv took a message some send on c put there (channels start empty),
 *     and every send on c comes after every run of a: a -> send -> recv -> b.
 * (or the same with A and B swapped). Anything else keeps the element:
 * volatile hand-overs (they need the value read, which this does not
 * track), chains through a channel and a spawn, a join of a thread that
 * spawned the accessor, joins through a thread id read from memory, and two
 * threads of one multi-instance proc ordered by anything but a lock.
 * With many accesses (MAX_ACCESSES, MAX_PAIR_WORK) it gives up: nothing is
 * ordered.
 *
 * LD' and Eraser are disciplines, not happens-before: they report such a
 * hand-over by design, and their discharge ignores this fact, as does the
 * reduction's independence (reduce/ts/por.c reads only the other facts). */
#include "lockset_int.h"

#include <stdlib.h>
#include <string.h>

enum { PEND_NONE, PEND_ONE, PEND_LOST };

#define MAX_ACCESSES 4096u
#define MAX_PAIR_WORK (1u << 24) /* element visits over all pairs */

static bool known(vm_absval v) { return v != VM_ABS_TOP && v != VM_ABS_BOT; }

typedef struct hb_site {
    uint32_t unit, pc, obj; /* spawn: the child's body; send: the channel */
} hb_site;

typedef struct hb_unit {
    bool used;       /* a static instance, or a proc body */
    bool single;     /* at most one thread ever runs it */
    uint32_t body;
    vm_absval self, tid;
    vm_absval *regs; /* vm_absregs() */
    uint32_t sp0, sp1, sd0, sd1, ac0, ac1; /* its spawn sites, send sites, accesses */
} hb_unit;

typedef struct hb_access {
    uint32_t unit, pc;
    bool write;
    uint32_t lo, hi; /* global elements [lo, hi); empty: not reached */
} hb_access;

typedef struct hb {
    const vm_program *p;
    uint32_t nu;
    hb_unit *units;
    hb_site *spawns, *sends;
    uint32_t nspawns, nsends, cap_spawns, cap_sends;
    hb_access *acc;
    uint32_t nacc, cap_acc;
    uint32_t lw, sw, dw, cw, jw; /* words: locks, spawn sites, send sites, channels, statics */
    /* per access */
    uint64_t *held;    /* lw: locks must-held at it */
    uint64_t *joined0; /* sw: pending NONE at it (spawn sites of its unit) */
    uint64_t *nbspawn; /* sw: the spawn site never runs before it */
    uint64_t *nbsend;  /* dw: the send site never runs before it */
    uint64_t *jstatic; /* jw: static threads joined before it */
    uint64_t *recvd;   /* cw: channels received on before it */
    uint64_t *before;  /* cw: every send on the channel comes after it */
    uint8_t *ord;      /* nu: LS_HB_* edges ordering it with every access of that unit */
} hb;

static uint32_t words(uint32_t n) { return n ? (n + 63) / 64 : 1; }

static bool push(void **arr, uint32_t *n, uint32_t *cap, size_t size, const void *x)
{
    if (*n == *cap) {
        uint32_t c = *cap ? 2 * *cap : 16;
        void *a = realloc(*arr, (size_t)c * size);
        if (!a) return false;
        *arr = a;
        *cap = c;
    }
    memcpy((char *)*arr + (size_t)*n * size, x, size);
    (*n)++;
    return true;
}

/* Pass 1: the units, their registers, spawn and send sites and accesses. */
static bool collect(hb *h)
{
    const vm_program *p = h->p;
    for (uint32_t u = 0; u < h->nu; u++) {
        hb_unit *U = &h->units[u];
        if (u < p->nstatic) {
            U->body = (uint32_t)p->threads[u].body;
            U->self = p->threads[u].self;
            U->tid = u;
            U->single = true;
        } else {
            U->body = u - p->nstatic;
            if (!p->bodies[U->body].is_proc) continue;
            U->self = U->tid = VM_ABS_TOP;
            U->single = p->bodies[U->body].count <= 1;
        }
        U->used = true;
        const vm_body *body = &p->bodies[U->body];
        if (!(U->regs = vm_absregs(p, U->body, U->self, U->tid))) return false;
        size_t row = (size_t)body->nregs + 1;
        U->sp0 = h->nspawns;
        U->sd0 = h->nsends;
        U->ac0 = h->nacc;
        for (uint32_t pc = 0; pc < body->ncode; pc++) {
            const vm_insn *in = &body->code[pc];
            const vm_absval *r = U->regs + (size_t)pc * row;
            if (r[body->nregs] != 0) continue; /* not reached */
            hb_site s = {u, pc, (uint32_t)in->obj};
            if (in->op == VM_OP_spawn &&
                !push((void **)&h->spawns, &h->nspawns, &h->cap_spawns, sizeof s, &s))
                return false;
            if (in->op == VM_OP_send &&
                !push((void **)&h->sends, &h->nsends, &h->cap_sends, sizeof s, &s))
                return false;
            if (in->op != VM_OP_load && in->op != VM_OP_store) continue;
            const vm_var *v = &p->vars[in->obj];
            if (v->cls != VM_SHARED) continue;
            hb_access a = {u, pc, in->op == VM_OP_store, v->first_elem,
                           v->first_elem + v->size};
            vm_absval i = vm_absop(&in->idx, r, U->self, U->tid);
            if (known(i)) {
                if (i < 0 || i >= (vm_absval)v->size) continue; /* faults */
                a.lo += (uint32_t)i;
                a.hi = a.lo + 1;
            }
            if (!push((void **)&h->acc, &h->nacc, &h->cap_acc, sizeof a, &a)) return false;
        }
        U->sp1 = h->nspawns;
        U->sd1 = h->nsends;
        U->ac1 = h->nacc;
    }
    return true;
}

/* The dataflow state of one unit at every pc (see the header). */
typedef struct flow {
    uint32_t nsl, nr, jw, cw;
    uint8_t *pend;   /* ncode * nsl */
    int32_t *mark;   /* ncode * nr: a local spawn site, or -1 */
    uint64_t *js;    /* ncode * jw */
    uint64_t *rc;    /* ncode * cw */
    bool *seen;
    /* scratch: one state */
    uint8_t *opend;
    int32_t *omark;
    uint64_t *ojs, *orc;
} flow;

/* The state after the instruction at pc into the scratch o*. */
static void transfer(const hb *h, const hb_unit *U, flow *F, uint32_t pc, const vm_absval *r)
{
    const vm_program *p = h->p;
    const vm_insn *in = &p->bodies[U->body].code[pc];
    memcpy(F->opend, F->pend + (size_t)pc * F->nsl, F->nsl);
    memcpy(F->omark, F->mark + (size_t)pc * F->nr, F->nr * sizeof *F->omark);
    memcpy(F->ojs, F->js + (size_t)pc * F->jw, F->jw * sizeof *F->ojs);
    memcpy(F->orc, F->rc + (size_t)pc * F->cw, F->cw * sizeof *F->orc);
    switch ((enum vm_opcode)in->op) {
    case VM_OP_spawn: {
        int32_t k = -1;
        for (uint32_t s = U->sp0; s < U->sp1; s++)
            if (h->spawns[s].pc == pc) k = (int32_t)(s - U->sp0);
        if (k < 0) break; /* (every reached spawn is a site) */
        F->opend[k] = F->opend[k] == PEND_NONE ? PEND_ONE : PEND_LOST;
        for (uint32_t i = 0; i < F->nr; i++)
            if (F->omark[i] == k) F->omark[i] = -1;
        F->omark[in->rd] = k;
        return;
    }
    case VM_OP_join: {
        if (in->a.kind == VM_ARG_REG) {
            int32_t k = F->omark[in->a.val];
            if (k >= 0 && F->opend[k] == PEND_ONE) F->opend[k] = PEND_NONE;
        }
        vm_absval t = vm_absop(&in->a, r, U->self, U->tid);
        if (known(t) && t >= 0 && t < (vm_absval)p->nstatic)
            F->ojs[(uint64_t)t >> 6] |= 1ull << ((uint64_t)t & 63);
        return;
    }
    case VM_OP_recv:
        F->orc[(uint32_t)in->obj >> 6] |= 1ull << ((uint32_t)in->obj & 63);
        F->omark[in->rd] = -1;
        return;
    case VM_OP_mov:
        F->omark[in->rd] = in->a.kind == VM_ARG_REG ? F->omark[in->a.val] : -1;
        return;
    default: break;
    }
    switch ((enum vm_format)vm_ops[in->op].format) {
    case VM_FMT_RA: case VM_FMT_RAB: case VM_FMT_RM: case VM_FMT_RC: case VM_FMT_RPA:
        F->omark[in->rd] = -1;
        break;
    default: break;
    }
}

/* Merge the scratch state into pc's; true if pc's changed. */
static bool merge(flow *F, uint32_t pc)
{
    uint8_t *pe = F->pend + (size_t)pc * F->nsl;
    int32_t *mk = F->mark + (size_t)pc * F->nr;
    uint64_t *js = F->js + (size_t)pc * F->jw, *rc = F->rc + (size_t)pc * F->cw;
    if (!F->seen[pc]) {
        F->seen[pc] = true;
        memcpy(pe, F->opend, F->nsl);
        memcpy(mk, F->omark, F->nr * sizeof *mk);
        memcpy(js, F->ojs, F->jw * sizeof *js);
        memcpy(rc, F->orc, F->cw * sizeof *rc);
        return true;
    }
    bool changed = false;
    for (uint32_t i = 0; i < F->nsl; i++)
        if (F->opend[i] > pe[i]) {
            pe[i] = F->opend[i];
            changed = true;
        }
    for (uint32_t i = 0; i < F->nr; i++)
        if (mk[i] != F->omark[i] && mk[i] != -1) {
            mk[i] = -1;
            changed = true;
        }
    for (uint32_t w = 0; w < F->jw; w++) {
        uint64_t v = js[w] & F->ojs[w];
        changed |= v != js[w];
        js[w] = v;
    }
    for (uint32_t w = 0; w < F->cw; w++) {
        uint64_t v = rc[w] & F->orc[w];
        changed |= v != rc[w];
        rc[w] = v;
    }
    return changed;
}

static void setbit(uint64_t *w, uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }
static bool getbit(const uint64_t *w, uint32_t i) { return (w[i >> 6] >> (i & 63)) & 1; }

/* The pcs reachable after the instruction at pc (not pc itself unless on a
 * cycle) into reach; work is scratch of ncode entries. */
static void reach_after(const hb *h, const hb_unit *U, uint32_t pc0, bool *reach, uint32_t *work)
{
    const vm_body *body = &h->p->bodies[U->body];
    size_t row = (size_t)body->nregs + 1;
    memset(reach, 0, body->ncode * sizeof *reach);
    uint32_t n = 0, sbuf[2];
    const uint32_t *succ;
    unsigned ns = vm_abssucc(body, pc0, U->regs + pc0 * row, U->self, U->tid, sbuf, &succ);
    for (unsigned i = 0; i < ns; i++)
        if (!reach[succ[i]]) reach[succ[i]] = true, work[n++] = succ[i];
    while (n) {
        uint32_t pc = work[--n];
        ns = vm_abssucc(body, pc, U->regs + pc * row, U->self, U->tid, sbuf, &succ);
        for (unsigned i = 0; i < ns; i++)
            if (!reach[succ[i]]) reach[succ[i]] = true, work[n++] = succ[i];
    }
}

/* Pass 2, one unit: the dataflow, the reach sets, each access's facts. */
static bool analyse_unit(hb *h, uint32_t u)
{
    const vm_program *p = h->p;
    hb_unit *U = &h->units[u];
    const vm_body *body = &p->bodies[U->body];
    uint32_t nc = body->ncode;
    size_t row = (size_t)body->nregs + 1;
    flow F = {.nsl = U->sp1 - U->sp0, .nr = body->nregs, .jw = h->jw, .cw = h->cw};
    uint64_t *held = malloc((size_t)nc * h->lw * sizeof *held);
    bool *hseen = malloc(nc * sizeof *hseen);
    F.pend = calloc((size_t)nc * (F.nsl ? F.nsl : 1), 1);
    F.mark = malloc((size_t)nc * (F.nr ? F.nr : 1) * sizeof *F.mark);
    F.js = calloc((size_t)nc * F.jw, sizeof *F.js);
    F.rc = calloc((size_t)nc * F.cw, sizeof *F.rc);
    F.seen = calloc(nc, sizeof *F.seen);
    F.opend = calloc(F.nsl ? F.nsl : 1, 1);
    F.omark = malloc((F.nr ? F.nr : 1) * sizeof *F.omark);
    F.ojs = calloc(F.jw, sizeof *F.ojs);
    F.orc = calloc(F.cw, sizeof *F.orc);
    uint32_t *work = malloc(nc * sizeof *work);
    bool *queued = calloc(nc, sizeof *queued), *reach = malloc(nc * sizeof *reach);
    bool ok = held && hseen && F.pend && F.mark && F.js && F.rc && F.seen && F.opend &&
              F.omark && F.ojs && F.orc && work && queued && reach &&
              ls_unit_held(p, U->body, U->regs, U->self, U->tid, held, hseen);
    if (ok) {
        /* pc 0: nothing pending, no mark, nothing joined or received */
        F.seen[0] = true;
        for (uint32_t i = 0; i < F.nr; i++) F.mark[i] = -1;
        uint32_t n = 0;
        work[n++] = 0;
        queued[0] = true;
        while (n) {
            uint32_t pc = work[--n];
            queued[pc] = false;
            const vm_absval *r = U->regs + pc * row;
            transfer(h, U, &F, pc, r);
            uint32_t sbuf[2];
            const uint32_t *succ;
            unsigned ns = vm_abssucc(body, pc, r, U->self, U->tid, sbuf, &succ);
            for (unsigned i = 0; i < ns; i++)
                if (merge(&F, succ[i]) && !queued[succ[i]]) {
                    queued[succ[i]] = true;
                    work[n++] = succ[i];
                }
        }
        for (uint32_t a = U->ac0; a < U->ac1; a++) {
            hb_access *x = &h->acc[a];
            if (!hseen[x->pc] || !F.seen[x->pc]) {
                x->hi = x->lo; /* not reached: no access */
                continue;
            }
            memcpy(h->held + (size_t)a * h->lw, held + (size_t)x->pc * h->lw,
                   h->lw * sizeof *h->held);
            memcpy(h->jstatic + (size_t)a * h->jw, F.js + (size_t)x->pc * h->jw,
                   h->jw * sizeof *h->jstatic);
            memcpy(h->recvd + (size_t)a * h->cw, F.rc + (size_t)x->pc * h->cw,
                   h->cw * sizeof *h->recvd);
            for (uint32_t k = 0; k < F.nsl; k++)
                if (F.pend[(size_t)x->pc * F.nsl + k] == PEND_NONE)
                    setbit(h->joined0 + (size_t)a * h->sw, U->sp0 + k);
        }
        for (uint32_t s = U->sp0; s < U->sp1; s++) {
            reach_after(h, U, h->spawns[s].pc, reach, work);
            for (uint32_t a = U->ac0; a < U->ac1; a++)
                if (!reach[h->acc[a].pc]) setbit(h->nbspawn + (size_t)a * h->sw, s);
        }
        for (uint32_t s = U->sd0; s < U->sd1; s++) {
            reach_after(h, U, h->sends[s].pc, reach, work);
            for (uint32_t a = U->ac0; a < U->ac1; a++)
                if (!reach[h->acc[a].pc]) setbit(h->nbsend + (size_t)a * h->dw, s);
        }
    }
    free(held);
    free(hseen);
    free(F.pend);
    free(F.mark);
    free(F.js);
    free(F.rc);
    free(F.seen);
    free(F.opend);
    free(F.omark);
    free(F.ojs);
    free(F.orc);
    free(work);
    free(queued);
    free(reach);
    return ok;
}

/* Access a of a one-thread unit A: ord[a * nu + u], the edges ordering it
 * with every access of unit u (0: not ordered), and before[a], the channels
 * whose every send comes after it. cand is scratch, one per body. */
static void order_access(hb *h, uint32_t a, bool *cand)
{
    const vm_program *p = h->p;
    uint32_t A = h->acc[a].unit;
    const uint64_t *nbs = h->nbspawn + (size_t)a * h->sw;
    const uint64_t *j0 = h->joined0 + (size_t)a * h->sw;
    /* cand[b]: every thread of proc body b starts after a (greatest fixed
     * point: a body no spawn names, or one only such bodies spawn, stays) */
    for (uint32_t b = 0; b < p->nbodies; b++) cand[b] = p->bodies[b].is_proc;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t s = 0; s < h->nspawns; s++) {
            const hb_site *q = &h->spawns[s];
            if (!cand[q->obj]) continue;
            bool ok = q->unit == A ? getbit(nbs, s)
                                   : q->unit >= p->nstatic && cand[h->units[q->unit].body];
            if (!ok) {
                cand[q->obj] = false;
                changed = true;
            }
        }
    }
    uint8_t *ord = h->ord + (size_t)a * h->nu;
    for (uint32_t u = 0; u < h->nu; u++) {
        const hb_unit *U = &h->units[u];
        if (u == A || !U->used) continue;
        if (u < p->nstatic) { /* a static thread: joined before a */
            if (getbit(h->jstatic + (size_t)a * h->jw, u))
                ord[u] = LS_HB_ORDERED | LS_HB_JOIN;
            continue;
        }
        uint8_t k = LS_HB_ORDERED;
        for (uint32_t s = 0; k && s < h->nspawns; s++) {
            const hb_site *q = &h->spawns[s];
            if (q->obj != U->body) continue;
            if (q->unit == A)
                k = getbit(nbs, s) ? k | LS_HB_SPAWN : getbit(j0, s) ? k | LS_HB_JOIN : 0;
            else if (q->unit >= p->nstatic && cand[h->units[q->unit].body])
                k |= LS_HB_SPAWN;
            else
                k = 0;
        }
        ord[u] = k;
    }
    uint64_t *bf = h->before + (size_t)a * h->cw;
    for (uint32_t c = 0; c < p->nchans; c++) setbit(bf, c);
    for (uint32_t s = 0; s < h->nsends; s++)
        if (h->sends[s].unit != A || !getbit(h->nbsend + (size_t)a * h->dw, s))
            bf[h->sends[s].obj >> 6] &= ~(1ull << (h->sends[s].obj & 63));
}

static bool any_common(const uint64_t *x, const uint64_t *y, uint32_t n)
{
    for (uint32_t w = 0; w < n; w++)
        if (x[w] & y[w]) return true;
    return false;
}

/* The edges ordering accesses i and j of different threads, 0 if none. */
static uint8_t pair_order(const hb *h, uint32_t i, uint32_t j)
{
    uint32_t A = h->acc[i].unit, B = h->acc[j].unit;
    if (any_common(h->held + (size_t)i * h->lw, h->held + (size_t)j * h->lw, h->lw))
        return LS_HB_ORDERED | LS_HB_LOCK;
    if (h->units[A].single && h->ord[(size_t)i * h->nu + B]) return h->ord[(size_t)i * h->nu + B];
    if (h->units[B].single && h->ord[(size_t)j * h->nu + A]) return h->ord[(size_t)j * h->nu + A];
    if (any_common(h->before + (size_t)i * h->cw, h->recvd + (size_t)j * h->cw, h->cw) ||
        any_common(h->before + (size_t)j * h->cw, h->recvd + (size_t)i * h->cw, h->cw))
        return LS_HB_ORDERED | LS_HB_CHAN;
    return 0;
}

bool ls_hb_facts(const vm_program *p, ls_elem_facts *f)
{
    hb h = {.p = p, .nu = p->nstatic + p->nbodies};
    bool ok = (h.units = calloc(h.nu ? h.nu : 1, sizeof *h.units)) && collect(&h);
    uint8_t *hbk = NULL, *bad = NULL;
    bool *cand = NULL;
    if (ok && h.nacc <= MAX_ACCESSES) {
        size_t na = h.nacc ? h.nacc : 1;
        h.lw = words(p->nlocks);
        h.sw = words(h.nspawns);
        h.dw = words(h.nsends);
        h.cw = words(p->nchans);
        h.jw = words(p->nstatic);
        ok = (h.held = calloc(na * h.lw, sizeof *h.held)) &&
             (h.joined0 = calloc(na * h.sw, sizeof *h.joined0)) &&
             (h.nbspawn = calloc(na * h.sw, sizeof *h.nbspawn)) &&
             (h.nbsend = calloc(na * h.dw, sizeof *h.nbsend)) &&
             (h.jstatic = calloc(na * h.jw, sizeof *h.jstatic)) &&
             (h.recvd = calloc(na * h.cw, sizeof *h.recvd)) &&
             (h.before = calloc(na * h.cw, sizeof *h.before)) &&
             (h.ord = calloc(na * (h.nu ? h.nu : 1), 1)) &&
             (hbk = calloc(p->nelems ? p->nelems : 1, 1)) &&
             (bad = calloc(p->nelems ? p->nelems : 1, 1)) &&
             (cand = calloc(p->nbodies ? p->nbodies : 1, sizeof *cand));
        for (uint32_t u = 0; ok && u < h.nu; u++)
            if (h.units[u].used) ok = analyse_unit(&h, u);
        for (uint32_t a = 0; ok && a < h.nacc; a++)
            if (h.units[h.acc[a].unit].single && h.acc[a].lo < h.acc[a].hi)
                order_access(&h, a, cand);
        uint64_t work = 0;
        for (uint32_t i = 0; ok && i < h.nacc && work <= MAX_PAIR_WORK; i++) {
            const hb_access *x = &h.acc[i];
            for (uint32_t j = i; j < h.nacc && work <= MAX_PAIR_WORK; j++) {
                const hb_access *y = &h.acc[j];
                uint32_t lo = x->lo > y->lo ? x->lo : y->lo, hi = x->hi < y->hi ? x->hi : y->hi;
                if (lo >= hi || !(x->write || y->write)) continue;
                if (x->unit == y->unit && h.units[x->unit].single) continue; /* one thread */
                uint8_t k = pair_order(&h, i, j);
                work += hi - lo;
                for (uint32_t e = lo; e < hi; e++) {
                    hbk[e] |= k;
                    bad[e] |= !k;
                }
            }
        }
        if (ok && work <= MAX_PAIR_WORK)
            for (uint32_t e = 0; e < p->nelems; e++)
                if (vm_elem_var(p, e)->cls == VM_SHARED && f[e].threads >= 2 && !bad[e])
                    f[e].hb = (uint8_t)(hbk[e] | LS_HB_ORDERED);
    }
    for (uint32_t u = 0; h.units && u < h.nu; u++) free(h.units[u].regs);
    free(h.units);
    free(h.spawns);
    free(h.sends);
    free(h.acc);
    free(h.held);
    free(h.joined0);
    free(h.nbspawn);
    free(h.nbsend);
    free(h.jstatic);
    free(h.recvd);
    free(h.before);
    free(h.ord);
    free(hbk);
    free(bad);
    free(cand);
    return ok;
}
