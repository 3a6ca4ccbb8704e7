/* interp_sync.c: the interpreter's pthread condition variables and
 * rendezvous channels (LANGUAGE.md; interp.c has the other instructions).
 *
 * cwait c, lk releases lk, held at depth exactly 1, and joins c's wait set
 * (one step); its re-acquire, once woken (or, with p->spurious_wakeups,
 * unwoken: it first leaves the wait set), restores depth 1 as a separate
 * step. csignal wakes the choice-th waiter (nothing when none waits: the
 * signal is lost), cbroadcast all of them; neither needs a lock. A send on
 * a `chan c[0]` is one step of two threads: the choice-th receiver standing
 * at its `recv` gets the value, and both pcs move. Split out of interp.c,
 * whose vm_step() calls these; interp_int.h has what the two share. */
#include <assert.h>
#include <inttypes.h>
#include <stdbool.h>

#include "interp_int.h"

/* ---- rendezvous channels ------------------------------------------------ */

uint64_t interp_receivers(const vm_program *p, const uint8_t *s, int tid, uint32_t chan,
                          uint64_t k, int *kth)
{
    uint64_t n = 0;
    *kth = -1;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        if ((int)t == tid || s[tslot(p, (int)t) + VM_TS_STATUS] != VM_T_RUNNING) continue;
        const vm_insn *in = &body_of(p, s, (int)t)->code[vm_rd16(s, tslot(p, (int)t) + VM_TS_PC)];
        if (in->op != VM_OP_recv || (uint32_t)in->obj != chan) continue;
        if (n++ == k) *kth = (int)t;
    }
    return n;
}

int vm_rendezvous_receiver(const vm_program *p, const uint8_t *s, int tid, uint64_t c)
{
    uint32_t ts = tslot(p, tid);
    if (s[ts + VM_TS_STATUS] != VM_T_RUNNING) return -1;
    const vm_insn *in = &body_of(p, s, tid)->code[vm_rd16(s, ts + VM_TS_PC)];
    if (in->op != VM_OP_send || p->chans[in->obj].cap != 0) return -1;
    int r;
    interp_receivers(p, s, tid, (uint32_t)in->obj, c, &r);
    return r;
}

/* A send on a rendezvous channel: one step of two threads. The receiver
 * (the choice-th, interp_receivers()) gets the value and passes its `recv`,
 * the sender passes its `send`. The detectors see the handshake both ways:
 * send and recv of the sender's message, then of the receiver's
 * acknowledgment (each one's earlier events are ordered before the
 * other's later ones). */
vm_status interp_rendezvous(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                            const vm_insn *in, uint64_t choice, const vm_hooks *h)
{
    const uint32_t c = (uint32_t)in->obj;
    int r;
    interp_receivers(p, s, t->tid, c, choice, &r);
    assert(r >= 0 && "a rendezvous send takes a receiver's choice");
    const thr rt = thr_of(p, s, r);
    const uint32_t rs = tslot(p, r);
    const uint32_t rpc = vm_rd16(s, rs + VM_TS_PC);
    reg_set(&rt, s, body_of(p, s, r)->code[rpc].rd, operand(t, s, &in->a));
    set_pc(s, rs, rpc + 1);
    if (HOOK(h, send, s, t->tid, c) || HOOK(h, recv, s, r, c) || HOOK(h, send, s, r, c) ||
        HOOK(h, recv, s, t->tid, c))
        return VM_STOPPED;
    set_pc(s, tslot(p, t->tid), pc + 1);
    return VM_OK;
}

/* ---- condition variables (cwait, csignal, cbroadcast) ------------------- */

/* The cond an instruction names, or a fault for an index out of range. */
static vm_status resolve_cond(const vm_program *p, const uint8_t *s, const thr *t,
                              uint32_t pc, const vm_insn *in, uint32_t *q, vm_fault *f)
{
    return interp_resolve_decl(s, t, pc, &p->conddecls[in->cond], &in->cidx, "cond ", q, f);
}

/* cwait c, lk: lk must be ours at depth exactly 1 (a pthread mutex is not
 * recursive: a deeper hold would stay held by the waiter); it is freed and
 * the thread joins c's wait set, one step. */
vm_status interp_cwait_enter(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                             const vm_insn *in, const vm_hooks *h, vm_fault *f)
{
    uint32_t q = 0, l = 0;
    vm_status rc;
    int tid = t->tid;
    if ((rc = resolve_cond(p, s, t, pc, in, &q, f))) return rc;
    if ((rc = resolve_lock(p, s, t, pc, in, &l, f))) return rc;
    if ((rc = require_owner(p, s, tid, pc, l, "cwait", f))) return rc;
    uint32_t lo = lock_off(p, l), d = vm_rd16(s, lo + 1);
    if (d != 1) {
        char ln[64], cn[64];
        vm_lock_name(p, l, ln, sizeof ln);
        vm_cond_name(p, q, cn, sizeof cn);
        return interp_fault(f, VM_FAULT_NOT_OWNER, tid, pc,
                            "cwait on '%s' with '%s' held at depth %" PRIu32 " (must be exactly 1)",
                            cn, ln, d);
    }
    s[lo] = 0;
    vm_wr16(s, lo + 1, 0);
    s[vm_cond_off(p, q) + ((uint32_t)tid >> 3)] |= (uint8_t)(1u << (tid & 7));
    s[tslot(p, tid) + VM_TS_STATUS] = VM_T_WAITING;
    return HOOK(h, release, s, tid, l) ? VM_STOPPED : VM_OK;
}

/* The re-acquire of lk after cwait (woken, or a spurious wakeup that first
 * leaves c's wait set): owner := self, depth 1, pc past the cwait. */
vm_status interp_cwait_reacquire(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                                 const vm_insn *in, bool spurious, const vm_hooks *h,
                                 vm_fault *f)
{
    uint32_t q = 0, l = 0;
    vm_status rc;
    int tid = t->tid;
    if ((rc = resolve_lock(p, s, t, pc, in, &l, f))) return rc;
    if (spurious) {
        if ((rc = resolve_cond(p, s, t, pc, in, &q, f))) return rc;
        s[vm_cond_off(p, q) + ((uint32_t)tid >> 3)] &= (uint8_t)~(1u << (tid & 7));
    }
    uint32_t lo = lock_off(p, l), ts = tslot(p, tid);
    assert(s[lo] == 0 && "re-acquire only when the lock is free");
    s[lo] = (uint8_t)(tid + 1);
    vm_wr16(s, lo + 1, 1);
    s[ts + VM_TS_STATUS] = VM_T_RUNNING;
    set_pc(s, ts, pc + 1);
    return HOOK(h, acquire, s, tid, l) ? VM_STOPPED : VM_OK;
}

/* csignal (wake the choice-th waiter of c in thread id order; nothing when
 * none waits) and cbroadcast (wake all). No lock is needed. */
vm_status interp_cond_wake(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                           const vm_insn *in, uint64_t choice, vm_fault *f)
{
    uint32_t q;
    vm_status rc;
    if ((rc = resolve_cond(p, s, t, pc, in, &q, f))) return rc;
    uint8_t *ws = s + vm_cond_off(p, q);
    bool all = in->op == VM_OP_cbroadcast;
    for (uint32_t w = 0; w < p->nthreads; w++) {
        if (!(ws[w >> 3] & (1u << (w & 7)))) continue;
        if (!all && choice-- != 0) continue;
        ws[w >> 3] &= (uint8_t)~(1u << (w & 7));
        s[tslot(p, (int)w) + VM_TS_STATUS] = VM_T_NOTIFIED;
        if (!all) break;
    }
    return VM_OK;
}
