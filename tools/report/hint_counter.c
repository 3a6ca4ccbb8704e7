/* hint_counter.c: the hint that ends a run stopped by a resource limit
 * (--memlimit, --timelimit, a signal) when a thread's own registers make
 * every state new (issue 31): `loop: add i, i, 1 / jmp loop` at a body's
 * first instruction, a scheduling point, stores a state per value of i, so
 * the search can never end, and only the limit stops it. The rule, from
 * the state the search was expanding when it stopped (explore_result's
 * stop_state): a live thread holds a register whose value is at least
 * COUNTER_MIN in magnitude, and its body has an instruction that computes
 * that register from itself (add, sub, mul or shl rd, rd, ...: a counter
 * or an accumulator). The hint names the thread, the register, its value
 * and that instruction, and the fix: bound it (a loop limit, or `mod`).
 * SPIN's users meet the same thing as a state vector that keeps growing
 * (its manual: "unbounded counters"). Not a proof: a large value can be
 * meant; the line says what the last state shows. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "report_int.h"

#define COUNTER_MIN 1000

/* The first instruction of body b that computes register r from itself, or
 * NULL. */
static const vm_insn *self_update(const vm_body *b, uint32_t r)
{
    for (uint32_t pc = 0; pc < b->ncode; pc++) {
        const vm_insn *in = &b->code[pc];
        switch ((enum vm_opcode)in->op) {
        case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_shl:
            if (in->rd == r && ((in->a.kind == VM_ARG_REG && (uint32_t)in->a.val == r) ||
                                (in->b.kind == VM_ARG_REG && (uint32_t)in->b.val == r)))
                return in;
            break;
        default:
            break;
        }
    }
    return NULL;
}

bool report_counter_hint(const vm_program *p, const explore_result *r, char *buf, size_t n)
{
    const uint8_t *s = r->stop_state;
    if (!s) return false;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        const vm_body *b = vm_thread_body(p, s, (int)t);
        if (!b) continue;
        const vm_thread_slot *sl = &p->threads[t];
        for (uint32_t k = 0; k < b->nregs; k++) {
            int32_t v = vm_rd32(s, vm_treg_off(sl, k));
            if (v > -COUNTER_MIN && v < COUNTER_MIN) continue;
            const vm_insn *in = self_update(b, k);
            if (!in) continue;
            char tn[64];
            vm_thread_name(p, s, (int)t, tn, sizeof tn);
            snprintf(buf, n, "in the last state searched, %s's register %s is %" PRId32 ", "
                     "updated from itself at line %d (%s): if it grows with every round of a "
                     "loop, every state is new and the search cannot end; bound it (a loop "
                     "limit, or `mod`)", tn, b->regname[k], v, in->line, in->text);
            return true;
        }
    }
    return false;
}
