/* interp_int.h: what the interpreter's two files share (private to vm/).
 *
 * interp.c       enabledness, atomic blocks and vm_step(): every instruction
 *                but the two below
 * interp_sync.c  pthread condition variables (cwait and its re-acquire,
 *                csignal, cbroadcast) and rendezvous channels (`chan c[0]`:
 *                the receivers of a send, the send that moves both threads)
 * Shared here: a thread's slot and registers (thr), operands, the state
 * fields of locks, the HOOK() call, faults, and the lock and cond names an
 * instruction resolves. The small helpers are static inline (vm_step() runs
 * once per instruction; they were inline in interp.c before the split); the
 * cold ones (interp_fault(), interp_resolve_decl()) are out of line, as they
 * were. Functions one file calls in the other are named interp_*. */
#ifndef MCHECK_INTERP_INT_H
#define MCHECK_INTERP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "vm.h"

/* ---- state fields ------------------------------------------------------ */

static inline uint32_t tslot(const vm_program *p, int tid)
{
    return p->threads[tid].offset;
}

static inline uint32_t lock_off(const vm_program *p, uint32_t l)
{
    return p->layout.locks_off + l * p->layout.lock_bytes;
}

/* What an instruction of thread tid needs of its slot, read once per call
 * (every byte store into the state may alias the program, so the compiler
 * would reload the slot after each). */
typedef struct thr {
    const vm_thread_slot *sl;
    uint32_t regs; /* offset of register 0 */
    int tid;
} thr;

static inline thr thr_of(const vm_program *p, const uint8_t *s, int tid)
{
    const vm_thread_slot *sl = &p->threads[tid];
    (void)s;
    return (thr){sl, sl->offset + sl->regs_off, tid};
}

static inline void reg_set(const thr *t, uint8_t *s, uint32_t r, int32_t v)
{
    vm_wr32(s, t->regs + 4 * r, v);
}

static inline void set_pc(uint8_t *s, uint32_t ts, uint32_t pc)
{
    vm_wr16(s, ts + VM_TS_PC, pc);
}

static inline const vm_body *body_of(const vm_program *p, const uint8_t *s,
                                     int tid)
{
    const vm_thread_slot *sl = &p->threads[tid];
    return &p->bodies[sl->body >= 0 ? (uint32_t)sl->body : s[sl->offset + VM_TS_BODY]];
}

static inline int32_t operand(const thr *t, const uint8_t *s, const vm_operand *o)
{
    switch ((enum vm_argkind)o->kind) {
    case VM_ARG_IMM: return o->val;
    case VM_ARG_REG: return vm_rd32(s, t->regs + 4 * (uint32_t)o->val);
    case VM_ARG_SELF:
        return t->sl->self_off ? vm_rd32(s, t->sl->offset + t->sl->self_off) : t->sl->self;
    case VM_ARG_TID: return t->tid;
    }
    return 0;
}

/* Element NAME[idx] of lock or cond declaration d; -1 when the index is
 * out of range (its value in *iv). */
static inline int64_t decl_elem(const uint8_t *s, const thr *t, const vm_lockdecl *d,
                                const vm_operand *idx, int32_t *iv)
{
    int32_t i = operand(t, s, idx);
    *iv = i;
    if (i < 0 || (uint32_t)i >= d->size) return -1;
    return (int64_t)d->first + i;
}

/* ---- execution (interp.c) ----------------------------------------------- */

#define HOOK(h, fn, ...) ((h) && (h)->fn && (h)->fn((h)->ctx, __VA_ARGS__))

/* Fill *f (if not NULL) with a fault of thread tid at pc; VM_FAULT. */
vm_status interp_fault(vm_fault *f, vm_fault_kind kind, int tid, uint32_t pc,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Element NAME[idx] of declaration d (a lock or cond: `what`), or a fault
 * for an index out of range. */
vm_status interp_resolve_decl(const uint8_t *s, const thr *t, uint32_t pc,
                              const vm_lockdecl *d, const vm_operand *idx,
                              const char *what, uint32_t *out, vm_fault *f);

/* The lock an instruction names, or a fault for an index out of range. */
static inline vm_status resolve_lock(const vm_program *p, const uint8_t *s,
                                     const thr *t, uint32_t pc,
                                     const vm_insn *in, uint32_t *l, vm_fault *f)
{
    return interp_resolve_decl(s, t, pc, &p->lockdecls[in->obj], &in->idx, "lock ", l, f);
}

/* Fault unless thread tid owns lock l (release, wait, notify, cwait). */
static inline vm_status require_owner(const vm_program *p, const uint8_t *s, int tid,
                                      uint32_t pc, uint32_t l, const char *what,
                                      vm_fault *f)
{
    int owner = vm_lock_owner(p, s, l);
    if (owner == tid) return VM_OK;
    char ln[64], on[64];
    vm_lock_name(p, l, ln, sizeof ln);
    if (owner < 0)
        return interp_fault(f, VM_FAULT_NOT_OWNER, tid, pc, "%s of '%s', which is not held",
                            what, ln);
    vm_thread_name(p, s, owner, on, sizeof on);
    return interp_fault(f, VM_FAULT_NOT_OWNER, tid, pc, "%s of '%s', which is held by %s%s",
                        what, ln, on,
                        vm_tstatus_of(p, s, owner) == VM_T_ENDED ? " (ended while holding it)"
                                                                 : "");
}

/* ---- condition variables and rendezvous channels (interp_sync.c) -------- */

/* The threads other than `tid` running at a `recv` on channel `chan`, in
 * id order: their number, and in *kth the k-th of them (-1 if none). */
uint64_t interp_receivers(const vm_program *p, const uint8_t *s, int tid, uint32_t chan,
                          uint64_t k, int *kth);

/* cwait c, lk (pc stays: the thread waits in c's wait set). */
vm_status interp_cwait_enter(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                             const vm_insn *in, const vm_hooks *h, vm_fault *f);
/* The re-acquire of lk after cwait: woken, or (spurious) not. */
vm_status interp_cwait_reacquire(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                                 const vm_insn *in, bool spurious, const vm_hooks *h,
                                 vm_fault *f);
/* csignal (the choice-th waiter) and cbroadcast (all); the caller moves the pc. */
vm_status interp_cond_wake(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                           const vm_insn *in, uint64_t choice, vm_fault *f);
/* A send on a rendezvous channel to the choice-th receiver: both threads'
 * pcs move. */
vm_status interp_rendezvous(const vm_program *p, uint8_t *s, const thr *t, uint32_t pc,
                            const vm_insn *in, uint64_t choice, const vm_hooks *h);

#endif
