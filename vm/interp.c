/* interp.c: executes one instruction of one thread on a state vector.
 *
 * Semantics are LANGUAGE.md's: 32-bit wrapping arithmetic, Java monitors
 * (recursive locks, wait releases fully and re-acquires with the saved depth
 * as a separate step, notify wakes one chosen waiter; with
 * p->spurious_wakeups a waiter may also re-acquire unwoken), pthread condition
 * variables (cwait releases its lock, held at depth 1, into the cond's wait
 * set; csignal / cbroadcast wake; the re-acquire restores depth 1), FIFO
 * channels kept canonical (contents always start at slot 0), rendezvous
 * channels (a send moves its receiver too), spawn slots allocated in spawn
 * order, subroutines on a per-thread return stack (call pushes pc + 1, ret
 * pops and zeroes the entry; overflow and an empty stack are faults). The
 * condition variables' instructions and the rendezvous are in interp_sync.c
 * (interp_int.h has what the two files share); enabledness, atomic blocks
 * and every other instruction are here. The assembler has checked every
 * operand; here only values computed at run time (indexes, thread ids, lock
 * ownership) are checked, and a model fault is returned as VM_FAULT with the
 * pc left on the faulting instruction. Events go to the hook table; this
 * file knows nothing of searches. */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "interp_int.h"

const vm_body *vm_thread_body(const vm_program *p, const uint8_t *s, int tid)
{
    if (s[tslot(p, tid) + VM_TS_STATUS] == VM_T_UNUSED) return NULL;
    return body_of(p, s, tid);
}

int32_t vm_operand_value(const vm_program *p, const uint8_t *s, int tid, const vm_operand *o)
{
    const thr th = thr_of(p, s, tid);
    return operand(&th, s, o);
}

vm_status interp_fault(vm_fault *f, vm_fault_kind kind, int tid, uint32_t pc,
                       const char *fmt, ...)
{
    if (f) {
        va_list ap;
        f->kind = kind;
        f->tid = tid;
        f->pc = pc;
        va_start(ap, fmt);
        vsnprintf(f->msg, sizeof f->msg, fmt, ap);
        va_end(ap);
    }
    return VM_FAULT;
}

static int64_t lock_elem(const vm_program *p, const uint8_t *s, const thr *t,
                         const vm_insn *in, int32_t *iv)
{
    return decl_elem(s, t, &p->lockdecls[in->obj], &in->idx, iv);
}

static int64_t mem_elem(const vm_program *p, const uint8_t *s, const thr *t,
                        const vm_insn *in, int32_t *iv)
{
    const vm_var *v = &p->vars[in->obj];
    int32_t i = operand(t, s, &in->idx);
    *iv = i;
    if (i < 0 || (uint32_t)i >= v->size) return -1;
    return (int64_t)v->first_elem + i;
}

/* Threads in the wait set at offset wso (a lock's or a cond's). */
static unsigned ws_count(const vm_program *p, const uint8_t *s, uint32_t wso)
{
    const uint8_t *ws = s + wso;
    unsigned n = 0;
    for (uint32_t i = 0; i < p->layout.wsbytes; i++)
        n += (unsigned)__builtin_popcount(ws[i]);
    return n;
}

static unsigned waiters(const vm_program *p, const uint8_t *s, uint32_t l)
{
    return ws_count(p, s, lock_off(p, l) + 3);
}

/* Resolve c[cidx] of a cond-naming instruction to a cond element; -1 when
 * the index is out of range (idx value in *iv). */
static int64_t cond_elem(const vm_program *p, const uint8_t *s, const thr *t,
                         const vm_insn *in, int32_t *iv)
{
    return decl_elem(s, t, &p->conddecls[in->cond], &in->cidx, iv);
}

/* ---- enabledness ------------------------------------------------------- */

/* Opcodes a running thread can always execute (vm_enabled() returns 1
 * without looking at the state); the switch below has the others. */
static const bool vm_always_enabled[VM_OP_COUNT + 1] = {
    [VM_OP_nop] = true, [VM_OP_mov] = true, [VM_OP_add] = true, [VM_OP_sub] = true,
    [VM_OP_mul] = true, [VM_OP_div] = true, [VM_OP_mod] = true, [VM_OP_and] = true,
    [VM_OP_or] = true, [VM_OP_xor] = true, [VM_OP_shl] = true, [VM_OP_shr] = true,
    [VM_OP_eq] = true, [VM_OP_ne] = true, [VM_OP_lt] = true, [VM_OP_le] = true,
    [VM_OP_gt] = true, [VM_OP_ge] = true, [VM_OP_not] = true, [VM_OP_neg] = true,
    [VM_OP_load] = true, [VM_OP_store] = true, [VM_OP_jmp] = true, [VM_OP_jz] = true,
    [VM_OP_jnz] = true, [VM_OP_assert] = true, [VM_OP_release] = true, [VM_OP_wait] = true,
    [VM_OP_notifyall] = true, [VM_OP_spawn] = true, [VM_OP_end] = true,
    [VM_OP_end_atomic] = true,
    [VM_OP_call] = true, [VM_OP_ret] = true,
    [VM_OP_cwait] = true, [VM_OP_cbroadcast] = true,
};

static uint64_t block_enabled(const vm_program *p, const uint8_t *s, const thr *th,
                              const vm_insn *in);

/* The successors of a running thread's instruction `in` (at its pc). */
static uint64_t insn_enabled(const vm_program *p, const uint8_t *s, const thr *thp,
                             const vm_insn *in)
{
    const thr th = *thp;
    const int tid = th.tid;
    int32_t iv;
    int64_t l;
    switch ((enum vm_opcode)in->op) {
    case VM_OP_assume: return operand(&th, s, &in->a) != 0;
    case VM_OP_atomic: return block_enabled(p, s, &th, in);
    case VM_OP_acquire:
        l = lock_elem(p, s, &th, in, &iv);
        if (l < 0) return 1; /* faults */
        {
            int owner = vm_lock_owner(p, s, (uint32_t)l);
            return owner < 0 || owner == tid;
        }
    case VM_OP_notify:
        l = lock_elem(p, s, &th, in, &iv);
        if (l < 0 || vm_lock_owner(p, s, (uint32_t)l) != tid) return 1;
        {
            unsigned n = waiters(p, s, (uint32_t)l);
            return n ? n : 1;
        }
    case VM_OP_csignal: {
        int64_t q = cond_elem(p, s, &th, in, &iv);
        if (q < 0) return 1; /* faults */
        unsigned n = ws_count(p, s, vm_cond_off(p, (uint32_t)q));
        return n ? n : 1; /* none waits: one step, the signal is lost */
    }
    case VM_OP_send: {
        const vm_chan *c = &p->chans[in->obj];
        int r;
        if (c->cap == 0) return interp_receivers(p, s, tid, (uint32_t)in->obj, 0, &r);
        return s[c->offset] < c->cap;
    }
    case VM_OP_recv: /* a rendezvous recv moves only with a send */
        return s[p->chans[in->obj].offset] > 0;
    case VM_OP_join: {
        int32_t t = operand(&th, s, &in->a);
        if (t < 0 || (uint32_t)t >= p->nthreads) return 1; /* faults */
        return s[tslot(p, t) + VM_TS_STATUS] == VM_T_ENDED;
    }
    case VM_OP_choose: {
        int64_t lo = operand(&th, s, &in->a);
        int64_t hi = operand(&th, s, &in->b);
        return lo > hi ? 1 : (uint64_t)(hi - lo) + 1;
    }
    case VM_OP_nop: case VM_OP_mov: case VM_OP_add: case VM_OP_sub:
    case VM_OP_mul: case VM_OP_div: case VM_OP_mod: case VM_OP_and:
    case VM_OP_or: case VM_OP_xor: case VM_OP_shl: case VM_OP_shr:
    case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le:
    case VM_OP_gt: case VM_OP_ge: case VM_OP_not: case VM_OP_neg:
    case VM_OP_load: case VM_OP_store: case VM_OP_jmp: case VM_OP_jz:
    case VM_OP_jnz: case VM_OP_assert: case VM_OP_release: case VM_OP_wait:
    case VM_OP_notifyall: case VM_OP_spawn: case VM_OP_end: case VM_OP_end_atomic:
    case VM_OP_call: case VM_OP_ret:
    case VM_OP_cwait: case VM_OP_cbroadcast:
    case VM_OP_COUNT:
        return 1;
    }
    return 1;
}

uint64_t vm_enabled(const vm_program *p, const uint8_t *s, int tid)
{
    uint32_t ts = tslot(p, tid);
    enum vm_tstatus st = (enum vm_tstatus)s[ts + VM_TS_STATUS];
    if (st != VM_T_RUNNING && st != VM_T_NOTIFIED &&
        !(st == VM_T_WAITING && p->spurious_wakeups))
        return 0;
    const vm_body *b = body_of(p, s, tid);
    const vm_insn *in = &b->code[vm_rd16(s, ts + VM_TS_PC)];
    /* most instructions are always enabled: no more to look at */
    if (st == VM_T_RUNNING && vm_always_enabled[in->op]) return 1;
    const thr th = thr_of(p, s, tid);
    if (st != VM_T_RUNNING) { /* notified, or waiting with spurious wakeups */
        int32_t iv;
        int64_t l = lock_elem(p, s, &th, in, &iv);
        assert(l >= 0 && "a waiting thread names a valid lock");
        return vm_lock_owner(p, s, (uint32_t)l) < 0;
    }
    return insn_enabled(p, s, &th, in);
}

uint64_t vm_enabled_at(const vm_program *p, const uint8_t *s, int tid, uint32_t pc)
{
    const vm_insn *in = &body_of(p, s, tid)->code[pc];
    if (vm_always_enabled[in->op]) return 1;
    const thr th = thr_of(p, s, tid);
    return insn_enabled(p, s, &th, in);
}

/* ---- atomic blocks ------------------------------------------------------ */

enum {
    BLOCK_STACK_BYTES = 4096,  /* a dry run copies a state this small on the stack */
    BLOCK_DRY_MAX = 1u << 20,  /* instructions of a dry run; past them the block
                                  counts as passing (its step then meets
                                  BoundedInvis) */
};

/* Does thread th's guarded block (at `atomic`, s) pass every `assume` when
 * its first instruction takes choice k? A dry run on a copy, no hooks. */
static __attribute__((noinline)) bool block_passes(const vm_program *p, const uint8_t *s,
                                                   int tid, uint64_t k)
{
    uint8_t small[BLOCK_STACK_BYTES];
    uint32_t size = p->layout.size;
    uint8_t *t = size <= sizeof small ? small : malloc(size);
    if (!t) return true; /* out of memory: the step runs the block and sees */
    memcpy(t, s, size);
    const uint32_t ts = tslot(p, tid);
    const vm_insn *code = body_of(p, s, tid)->code;
    vm_fault f;
    vm_status rc = vm_step(p, t, tid, 0, NULL, &f); /* the `atomic` */
    uint64_t ch = k;
    for (uint32_t n = 0; rc == VM_OK && n < BLOCK_DRY_MAX; n++) {
        if (t[ts + VM_TS_STATUS] != VM_T_RUNNING) break;
        if (!code[vm_rd16(t, ts + VM_TS_PC)].in_block) break;
        rc = vm_step(p, t, tid, ch, NULL, &f);
        ch = 0;
    }
    if (t != small) free(t);
    return rc != VM_NOT_TAKEN;
}

/* A block's successors: its first instruction's, and of those, in a
 * guarded block, the ones that pass every assume. */
static uint64_t block_enabled(const vm_program *p, const uint8_t *s, const thr *th,
                              const vm_insn *in)
{
    const vm_insn *first = in + 1;
    uint64_t n = vm_always_enabled[first->op] ? 1 : insn_enabled(p, s, th, first);
    if (!n || !in->b.val) return n;
    uint64_t pass = 0;
    for (uint64_t k = 0; k < n; k++) pass += block_passes(p, s, th->tid, k);
    return pass;
}

uint64_t vm_block_choice(const vm_program *p, const uint8_t *s, int tid, uint64_t c)
{
    const vm_insn *in = &body_of(p, s, tid)->code[vm_tpc(p, s, tid)];
    assert(in->op == VM_OP_atomic && "vm_block_choice at an atomic");
    if (!in->b.val) return c;
    const thr th = thr_of(p, s, tid);
    const vm_insn *first = in + 1;
    uint64_t n = vm_always_enabled[first->op] ? 1 : insn_enabled(p, s, &th, first);
    for (uint64_t k = 0; k < n; k++)
        if (block_passes(p, s, tid, k) && c-- == 0) return k;
    assert(!"a step choice within vm_enabled() of a guarded block");
    return 0;
}

/* ---- execution ---------------------------------------------------------- */

int32_t vm_arith(enum vm_opcode op, int32_t a, int32_t b)
{
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    switch (op) {
    case VM_OP_add: return (int32_t)(ua + ub);
    case VM_OP_sub: return (int32_t)(ua - ub);
    case VM_OP_mul: return (int32_t)(ua * ub);
    case VM_OP_div: return (a == INT32_MIN && b == -1) ? INT32_MIN : a / b;
    case VM_OP_mod: return (a == INT32_MIN && b == -1) ? 0 : a % b;
    case VM_OP_and: return (int32_t)(ua & ub);
    case VM_OP_or: return (int32_t)(ua | ub);
    case VM_OP_xor: return (int32_t)(ua ^ ub);
    case VM_OP_shl: return (int32_t)(ua << (ub & 31));
    case VM_OP_shr: return (int32_t)(ua >> (ub & 31));
    case VM_OP_eq: return a == b;
    case VM_OP_ne: return a != b;
    case VM_OP_lt: return a < b;
    case VM_OP_le: return a <= b;
    case VM_OP_gt: return a > b;
    case VM_OP_ge: return a >= b;
    default: assert(!"not an arithmetic opcode"); return 0;
    }
}

vm_status interp_resolve_decl(const uint8_t *s, const thr *t, uint32_t pc,
                              const vm_lockdecl *d, const vm_operand *idx,
                              const char *what, uint32_t *out, vm_fault *f)
{
    int32_t iv;
    int64_t e = decl_elem(s, t, d, idx, &iv);
    *out = 0;
    if (e < 0)
        return interp_fault(f, VM_FAULT_INDEX, t->tid, pc,
                            "index %" PRId32 " out of range for %s'%s[%" PRIu32 "]'",
                            iv, what, d->name, d->size);
    *out = (uint32_t)e;
    return VM_OK;
}

static void wake(const vm_program *p, uint8_t *s, uint32_t l, int t)
{
    uint8_t *ws = s + lock_off(p, l) + 3;
    ws[t >> 3] &= (uint8_t)~(1u << (t & 7));
    s[tslot(p, t) + VM_TS_STATUS] = VM_T_NOTIFIED;
}

/* The index-th waiter of lock l in thread id order. */
static int nth_waiter(const vm_program *p, const uint8_t *s, uint32_t l,
                      uint64_t index)
{
    const uint8_t *ws = s + lock_off(p, l) + 3;
    for (uint32_t t = 0; t < p->nthreads; t++)
        if ((ws[t >> 3] & (1u << (t & 7))) && index-- == 0) return (int)t;
    assert(!"notify choice within the number of waiters");
    return -1;
}

static vm_status spawn_thread(const vm_program *p, uint8_t *s, int tid,
                              uint32_t pc, const vm_insn *in, int32_t arg,
                              int *child, vm_fault *f)
{
    const vm_body *pb = &p->bodies[in->obj];
    uint32_t spawned = 0;
    for (uint32_t b = 0; b < p->nbodies; b++)
        spawned += s[p->layout.spawns_off + b];
    uint8_t *count = &s[p->layout.spawns_off + (uint32_t)in->obj];
    if (*count >= pb->count)
        return interp_fault(f, VM_FAULT_SPAWN_MAX, tid, pc,
                            "spawn of '%s' beyond its max of %" PRIu32 " instances",
                            pb->name, pb->count);
    uint32_t c = p->nstatic + spawned;
    assert(c < p->nthreads && "spawn slots cover every proc's max");
    const vm_thread_slot *sl = &p->threads[c];
    uint32_t cs = sl->offset;
    (*count)++;
    memset(s + cs, 0, sl->bytes);
    s[cs + VM_TS_STATUS] = VM_T_RUNNING;
    s[cs + VM_TS_BODY] = (uint8_t)in->obj;
    vm_wr32(s, cs + sl->self_off, arg);
    *child = (int)c;
    return VM_OK;
}

vm_status vm_step(const vm_program *p, uint8_t *s, int tid, uint64_t choice,
                  const vm_hooks *h, vm_fault *f)
{
    uint32_t ts = tslot(p, tid);
    enum vm_tstatus st = (enum vm_tstatus)s[ts + VM_TS_STATUS];
    const vm_body *b = body_of(p, s, tid);
    uint32_t pc = vm_rd16(s, ts + VM_TS_PC);
    const thr th = thr_of(p, s, tid);
    const vm_insn *in = &b->code[pc];
    uint32_t l;
    vm_status rc;

    assert((st == VM_T_RUNNING || st == VM_T_NOTIFIED ||
            (st == VM_T_WAITING && p->spurious_wakeups)) && "stepping a live thread");
    if (h && h->exec) h->exec(h->ctx, s, tid, pc);

    if (st != VM_T_RUNNING && in->op == VM_OP_cwait) /* the re-acquire after cwait */
        return interp_cwait_reacquire(p, s, &th, pc, in, st == VM_T_WAITING, h, f);
    if (st != VM_T_RUNNING) { /* the re-acquire after wait */
        if ((rc = resolve_lock(p, s, &th, pc, in, &l, f))) return rc;
        uint32_t lo = lock_off(p, l);
        if (st == VM_T_WAITING) /* a spurious wakeup: leave the wait set */
            s[lo + 3 + ((uint32_t)tid >> 3)] &= (uint8_t)~(1u << (tid & 7));
        assert(s[lo] == 0 && "re-acquire only when the lock is free");
        s[lo] = (uint8_t)(tid + 1);
        uint32_t dep = ts + p->threads[tid].depth_off;
        assert(p->threads[tid].depth_off && "a thread that waits has a saved depth");
        vm_wr16(s, lo + 1, vm_rd16(s, dep));
        vm_wr16(s, dep, 0);
        s[ts + VM_TS_STATUS] = VM_T_RUNNING;
        set_pc(s, ts, pc + 1);
        return HOOK(h, acquire, s, tid, l) ? VM_STOPPED : VM_OK;
    }

    switch ((enum vm_opcode)in->op) {
    case VM_OP_nop:
        break;
    case VM_OP_mov:
        reg_set(&th, s, in->rd, operand(&th, s, &in->a));
        break;
    case VM_OP_div:
    case VM_OP_mod:
        if (operand(&th, s, &in->b) == 0)
            return interp_fault(f, VM_FAULT_DIV_ZERO, tid, pc, "%s by zero",
                                in->op == VM_OP_div ? "division" : "modulo");
        /* fall through */
    case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_and:
    case VM_OP_or: case VM_OP_xor: case VM_OP_shl: case VM_OP_shr:
    case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le:
    case VM_OP_gt: case VM_OP_ge:
        reg_set(&th, s, in->rd,
                vm_arith((enum vm_opcode)in->op, operand(&th, s, &in->a),
                      operand(&th, s, &in->b)));
        break;
    case VM_OP_not:
        reg_set(&th, s, in->rd, operand(&th, s, &in->a) == 0);
        break;
    case VM_OP_neg:
        reg_set(&th, s, in->rd, (int32_t)(0u - (uint32_t)operand(&th, s, &in->a)));
        break;
    case VM_OP_load:
    case VM_OP_store: {
        int32_t iv;
        int64_t e = mem_elem(p, s, &th, in, &iv);
        const vm_var *v = &p->vars[in->obj];
        bool write = in->op == VM_OP_store;
        if (e < 0)
            return interp_fault(f, VM_FAULT_INDEX, tid, pc,
                                "index %" PRId32 " out of range for '%s[%" PRIu32 "]'",
                                iv, v->name, v->size);
        if (HOOK(h, access, s, tid, (uint32_t)e, write)) return VM_STOPPED;
        uint32_t off = p->layout.globals_off + 4 * (uint32_t)e;
        if (write)
            vm_wr32(s, off, operand(&th, s, &in->a));
        else
            reg_set(&th, s, in->rd, vm_rd32(s, off));
        break;
    }
    case VM_OP_jmp:
        set_pc(s, ts, (uint32_t)in->obj);
        return VM_OK;
    case VM_OP_jz:
    case VM_OP_jnz: {
        bool zero = operand(&th, s, &in->a) == 0;
        if (zero == (in->op == VM_OP_jz)) {
            set_pc(s, ts, (uint32_t)in->obj);
            return VM_OK;
        }
        break;
    }
    case VM_OP_call: {
        /* [sp:u8][return pc:u16 * cap]; the body's own depth is the limit */
        uint32_t so = ts + th.sl->stack_off, sp = s[so];
        assert(th.sl->stack_off && b->stack <= th.sl->stack_cap && "a body that calls has a stack");
        if (sp >= b->stack)
            return interp_fault(f, VM_FAULT_STACK_OVERFLOW, tid, pc,
                                "return stack overflow: call at depth %" PRIu32
                                " (stack %" PRIu32 ")",
                                sp, b->stack);
        vm_wr16(s, so + 1 + 2 * sp, pc + 1);
        s[so] = (uint8_t)(sp + 1);
        set_pc(s, ts, (uint32_t)in->obj);
        return VM_OK;
    }
    case VM_OP_ret: {
        uint32_t so = ts + th.sl->stack_off, sp = th.sl->stack_off ? s[so] : 0;
        if (sp == 0)
            return interp_fault(f, VM_FAULT_STACK_EMPTY, tid, pc, "ret with an empty return stack");
        uint32_t to = vm_rd16(s, so + 1 + 2 * (sp - 1));
        vm_wr16(s, so + 1 + 2 * (sp - 1), 0); /* canonical: unused entries zero */
        s[so] = (uint8_t)(sp - 1);
        set_pc(s, ts, to);
        return VM_OK;
    }
    case VM_OP_assert:
        if (operand(&th, s, &in->a) == 0)
            return interp_fault(f, VM_FAULT_ASSERTION, tid, pc,
                                "assertion violated: %s", in->msg ? in->msg : "");
        break;
    case VM_OP_choose: {
        int64_t lo = operand(&th, s, &in->a);
        int64_t hi = operand(&th, s, &in->b);
        if (lo > hi)
            return interp_fault(f, VM_FAULT_CHOOSE_EMPTY, tid, pc,
                                "choose from an empty range [%" PRId64 ", %" PRId64 "]",
                                lo, hi);
        assert(choice <= (uint64_t)(hi - lo) && "choice within the range");
        reg_set(&th, s, in->rd, (int32_t)(lo + (int64_t)choice));
        break;
    }
    case VM_OP_acquire: {
        if ((rc = resolve_lock(p, s, &th, pc, in, &l, f))) return rc;
        uint32_t lo = lock_off(p, l);
        int owner = (int)s[lo] - 1;
        assert((owner < 0 || owner == tid) && "acquire only when enabled");
        if (owner == tid) {
            uint32_t d = vm_rd16(s, lo + 1);
            if (d >= VM_MAX_LOCK_DEPTH) {
                char ln[64];
                vm_lock_name(p, l, ln, sizeof ln);
                return interp_fault(f, VM_FAULT_LOCK_DEPTH, tid, pc,
                                    "lock '%s' acquired more than %d times",
                                    ln, VM_MAX_LOCK_DEPTH);
            }
            vm_wr16(s, lo + 1, d + 1);
        } else {
            s[lo] = (uint8_t)(tid + 1);
            vm_wr16(s, lo + 1, 1);
            if (HOOK(h, acquire, s, tid, l)) return VM_STOPPED;
        }
        break;
    }
    case VM_OP_release: {
        if ((rc = resolve_lock(p, s, &th, pc, in, &l, f))) return rc;
        if ((rc = require_owner(p, s, tid, pc, l, "release", f))) return rc;
        uint32_t lo = lock_off(p, l);
        uint32_t d = vm_rd16(s, lo + 1) - 1;
        vm_wr16(s, lo + 1, d);
        if (d == 0) {
            s[lo] = 0;
            if (HOOK(h, release, s, tid, l)) return VM_STOPPED;
        }
        break;
    }
    case VM_OP_wait: {
        if ((rc = resolve_lock(p, s, &th, pc, in, &l, f))) return rc;
        if ((rc = require_owner(p, s, tid, pc, l, "wait", f))) return rc;
        uint32_t lo = lock_off(p, l);
        assert(p->threads[tid].depth_off && "a thread that waits has a saved depth");
        vm_wr16(s, ts + p->threads[tid].depth_off, vm_rd16(s, lo + 1));
        s[lo] = 0;
        vm_wr16(s, lo + 1, 0);
        s[lo + 3 + ((uint32_t)tid >> 3)] |= (uint8_t)(1u << (tid & 7));
        s[ts + VM_TS_STATUS] = VM_T_WAITING;
        return HOOK(h, release, s, tid, l) ? VM_STOPPED : VM_OK; /* pc stays */
    }
    case VM_OP_notify:
    case VM_OP_notifyall: {
        if ((rc = resolve_lock(p, s, &th, pc, in, &l, f))) return rc;
        if ((rc = require_owner(p, s, tid, pc, l, vm_ops[in->op].name, f))) return rc;
        if (in->op == VM_OP_notify) {
            if (waiters(p, s, l)) wake(p, s, l, nth_waiter(p, s, l, choice));
        } else {
            for (uint32_t t = 0; t < p->nthreads; t++)
                if (s[lock_off(p, l) + 3 + (t >> 3)] & (1u << (t & 7)))
                    wake(p, s, l, (int)t);
        }
        break;
    }
    case VM_OP_cwait:
        return interp_cwait_enter(p, s, &th, pc, in, h, f); /* pc stays */
    case VM_OP_csignal:
    case VM_OP_cbroadcast:
        if ((rc = interp_cond_wake(p, s, &th, pc, in, choice, f))) return rc;
        break;
    case VM_OP_send: {
        const vm_chan *c = &p->chans[in->obj];
        if (c->cap == 0) return interp_rendezvous(p, s, &th, pc, in, choice, h);
        uint8_t len = s[c->offset];
        assert(len < c->cap && "send only when not full");
        vm_wr32(s, c->offset + 1 + 4u * len, operand(&th, s, &in->a));
        s[c->offset] = (uint8_t)(len + 1);
        if (HOOK(h, send, s, tid, (uint32_t)in->obj)) return VM_STOPPED;
        break;
    }
    case VM_OP_recv: {
        const vm_chan *c = &p->chans[in->obj];
        uint8_t len = s[c->offset];
        assert(len > 0 && "recv only when not empty");
        uint8_t *slots = s + c->offset + 1;
        int32_t v = vm_rd32(slots, 0);
        memmove(slots, slots + 4, 4u * (len - 1u));
        memset(slots + 4u * (len - 1u), 0, 4);
        s[c->offset] = (uint8_t)(len - 1);
        reg_set(&th, s, in->rd, v);
        if (HOOK(h, recv, s, tid, (uint32_t)in->obj)) return VM_STOPPED;
        break;
    }
    case VM_OP_spawn: {
        int child = -1;
        if ((rc = spawn_thread(p, s, tid, pc, in, operand(&th, s, &in->a), &child, f)))
            return rc;
        reg_set(&th, s, in->rd, child);
        set_pc(s, ts, pc + 1);
        return HOOK(h, spawn, s, tid, child) ? VM_STOPPED : VM_OK;
    }
    case VM_OP_join: {
        int32_t t = operand(&th, s, &in->a);
        if (t < 0 || (uint32_t)t >= p->nthreads)
            return interp_fault(f, VM_FAULT_JOIN_NO_THREAD, tid, pc,
                                "join of thread %" PRId32 ", which does not exist", t);
        assert(s[tslot(p, t) + VM_TS_STATUS] == VM_T_ENDED && "join only when ended");
        if (HOOK(h, join, s, tid, t)) return VM_STOPPED;
        break;
    }
    case VM_OP_assume:
        /* enabled only while true; an assume of 0 is met only inside an
         * atomic block (the thread stands at its `atomic`, enabled by its
         * first instruction), where it says the block's step is not taken */
        if (operand(&th, s, &in->a) == 0) return VM_NOT_TAKEN;
        break;
    case VM_OP_atomic:
    case VM_OP_end_atomic: {
        /* the hidden lock "(atomic)": free at every scheduling point (a
         * block is one step), taken here so that the detectors see the
         * block's accesses under it */
        l = p->lockdecls[in->obj].first;
        uint32_t lo = lock_off(p, l);
        bool take = in->op == VM_OP_atomic;
        assert(s[lo] == (take ? 0 : (uint8_t)(tid + 1)) && "atomic blocks do not overlap");
        s[lo] = take ? (uint8_t)(tid + 1) : 0;
        vm_wr16(s, lo + 1, take);
        set_pc(s, ts, pc + 1);
        if (take) return HOOK(h, acquire, s, tid, l) ? VM_STOPPED : VM_OK;
        return HOOK(h, release, s, tid, l) ? VM_STOPPED : VM_OK;
    }
    case VM_OP_end:
    {
        /* canonical: registers, pc, saved depth and self cleared; a spawn
         * slot's body kept so the thread keeps its name */
        const vm_thread_slot *sl = &p->threads[tid];
        memset(s + ts + VM_TS_PC, 0, 2);
        uint32_t from = sl->body >= 0 ? VM_TS_HEADER_STATIC : VM_TS_BODY + 1;
        memset(s + ts + from, 0, sl->bytes - from);
        s[ts + VM_TS_STATUS] = VM_T_ENDED;
        return VM_OK;
    }
    case VM_OP_COUNT:
        assert(!"not an opcode");
        break;
    }
    set_pc(s, ts, pc + 1);
    return VM_OK;
}
