/* absint.c: constant propagation over a thread body's registers, the value
 * analysis beneath the static reasoning about which elements and locks an
 * instruction can name (lockset/'s static discharge, reduce/'s persistent
 * sets; in the spirit of RATCOP's thread-local analyses, Mukherjee et al.).
 * The domain is the flat lattice of int32 constants per register; `self`
 * and the thread id may be known (a static instance) or not (a spawn).
 * It knows nothing of locks held or of other threads: what a load, recv,
 * choose or spawn yields is unknown. Worklist iteration to the fixpoint;
 * each register's value can only go BOT -> constant -> TOP, so it ends. */
#include <stdlib.h>
#include <string.h>

#include "vm.h"

static vm_absval join(vm_absval a, vm_absval b)
{
    if (a == VM_ABS_BOT) return b;
    if (b == VM_ABS_BOT || a == b) return a;
    return VM_ABS_TOP;
}

vm_absval vm_absop(const vm_operand *o, const vm_absval *regs, vm_absval self, vm_absval tid)
{
    switch ((enum vm_argkind)o->kind) {
    case VM_ARG_IMM: return o->val;
    case VM_ARG_REG: return regs[o->val];
    case VM_ARG_SELF: return self;
    case VM_ARG_TID: return tid;
    }
    return VM_ABS_TOP;
}

static bool known(vm_absval v) { return v != VM_ABS_TOP && v != VM_ABS_BOT; }

unsigned vm_abssucc(const vm_body *b, uint32_t pc, const vm_absval *regs, vm_absval self,
                    vm_absval tid, uint32_t buf[2], const uint32_t **succp)
{
    const vm_insn *in = &b->code[pc];
    uint32_t *succ = buf;
    unsigned n = 0;
    *succp = buf;
    switch ((enum vm_opcode)in->op) {
    case VM_OP_end: return 0;
    case VM_OP_ret: *succp = vm_ret_sites(b, pc, &n); return n; /* all < ncode */
    case VM_OP_call: /* pc + 1 is reached through the subroutine's ret */
    case VM_OP_jmp: succ[n++] = (uint32_t)in->obj; return n;
    case VM_OP_jz:
    case VM_OP_jnz: {
        vm_absval a = vm_absop(&in->a, regs, self, tid);
        if (known(a)) {
            bool taken = (a == 0) == (in->op == VM_OP_jz);
            succ[n++] = taken ? (uint32_t)in->obj : pc + 1;
        } else {
            succ[n++] = (uint32_t)in->obj;
            if (pc + 1 != (uint32_t)in->obj) succ[n++] = pc + 1;
        }
        break;
    }
    default: succ[n++] = pc + 1; break;
    }
    /* the trailing implicit `end` keeps every target in range */
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (succ[i] < b->ncode) succ[k++] = succ[i];
    return k;
}

/* The registers after the instruction at pc: `in` is a copy of the
 * registers before it (nregs), changed in place. */
static void transfer(const vm_insn *in, vm_absval *r, vm_absval self, vm_absval tid)
{
    vm_absval a, b;
    switch ((enum vm_opcode)in->op) {
    case VM_OP_mov: r[in->rd] = vm_absop(&in->a, r, self, tid); break;
    case VM_OP_div:
    case VM_OP_mod:
    case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_and:
    case VM_OP_or: case VM_OP_xor: case VM_OP_shl: case VM_OP_shr:
    case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le:
    case VM_OP_gt: case VM_OP_ge:
        a = vm_absop(&in->a, r, self, tid);
        b = vm_absop(&in->b, r, self, tid);
        if (known(a) && known(b) &&
            !((in->op == VM_OP_div || in->op == VM_OP_mod) && b == 0))
            r[in->rd] = vm_arith((enum vm_opcode)in->op, (int32_t)a, (int32_t)b);
        else
            r[in->rd] = VM_ABS_TOP; /* (a division by zero faults: no successor state) */
        break;
    case VM_OP_not:
        a = vm_absop(&in->a, r, self, tid);
        r[in->rd] = known(a) ? (a == 0) : VM_ABS_TOP;
        break;
    case VM_OP_neg:
        a = vm_absop(&in->a, r, self, tid);
        r[in->rd] = known(a) ? (int32_t)(0u - (uint32_t)(int32_t)a) : VM_ABS_TOP;
        break;
    case VM_OP_load:
    case VM_OP_choose:
    case VM_OP_recv:
    case VM_OP_spawn: r[in->rd] = VM_ABS_TOP; break;
    default: break; /* no register written */
    }
}

vm_absval *vm_absregs(const vm_program *p, uint32_t body, vm_absval self, vm_absval tid)
{
    const vm_body *b = &p->bodies[body];
    uint32_t nr = b->nregs, nc = b->ncode;
    size_t row = (size_t)nr + 1; /* the registers, then 0 if reached */
    vm_absval *regs = malloc((size_t)nc * row * sizeof *regs);
    vm_absval *tmp = malloc(row * sizeof *tmp);
    uint32_t *work = malloc((size_t)nc * sizeof *work);
    bool *queued = calloc(nc, sizeof *queued);
    bool *reached = calloc(nc, sizeof *reached);
    if (!regs || !tmp || !work || !queued || !reached) {
        free(regs);
        regs = NULL;
        goto out;
    }
    for (size_t i = 0; i < (size_t)nc * row; i++) regs[i] = VM_ABS_BOT;
    for (uint32_t r = 0; r <= nr; r++) regs[r] = 0;
    reached[0] = true;
    uint32_t nwork = 0;
    work[nwork++] = 0;
    queued[0] = true;
    while (nwork) {
        uint32_t pc = work[--nwork];
        queued[pc] = false;
        memcpy(tmp, regs + (size_t)pc * row, nr * sizeof *tmp);
        uint32_t sbuf[2];
        const uint32_t *succ;
        unsigned ns = vm_abssucc(b, pc, tmp, self, tid, sbuf, &succ);
        transfer(&b->code[pc], tmp, self, tid);
        for (unsigned i = 0; i < ns; i++) {
            vm_absval *dst = regs + (size_t)succ[i] * row;
            bool changed = !reached[succ[i]];
            reached[succ[i]] = true;
            dst[nr] = 0;
            for (uint32_t r = 0; r < nr; r++) {
                vm_absval j = join(dst[r], tmp[r]);
                if (j != dst[r]) {
                    dst[r] = j;
                    changed = true;
                }
            }
            if (changed && !queued[succ[i]]) {
                queued[succ[i]] = true;
                work[nwork++] = succ[i];
            }
        }
    }
out:
    free(tmp);
    free(work);
    free(queued);
    free(reached);
    return regs;
}
