/* por_cycle.c: the static cycle proviso of the distributed search (mpi.c).
 * A search that cannot tell, where it expands a state, whether a successor
 * had been stored before (mcheck-mpi: each successor is inserted at the rank
 * that owns it) needs a cycle proviso that looks at the state alone. This is
 * the static one of Valmari (and of LTSmin's distributed partial-order
 * reduction): a state is expanded fully when its persistent set holds a
 * thread whose step from its pc may run a backward control transfer. Per
 * unit and pc, over the unit's registers (vm_absregs(); a pc the analysis
 * does not reach takes both ways of every branch):
 *   CYC_OWN    the instruction there may send the pc to one <= its own (a
 *              jump or branch back, as vm_abssucc() allows) or leave it where
 *              it is (a wait: the thread then waits at its pc);
 *   CYC_TAIL   the invisible tail after it (the instructions the step goes
 *              on with while the thread stands at invisible pcs) may run
 *              such an instruction; at a wait, the tail of the re-acquire of
 *              a notified thread (or one woken spuriously), which moves it
 *              from the wait to the next pc;
 *   CYC_CHILD  a spawn whose child's invisible start, folded into the step
 *              with --por (step_fold_start()), may run one (its pc 0's
 *              CYC_OWN or CYC_TAIL in the child's unit).
 * Why it is the cycle condition (C3: every cycle of the reduced state graph
 * has a fully expanded state): on a cycle some thread moves (every step runs
 * an instruction of its thread, or of a child it starts) and comes back to
 * the state it had, its pc included, so the pcs that thread's instructions
 * go through on the cycle form a closed walk over its control-flow graph, of
 * one edge at least; a closed walk over integers has an edge whose target
 * is <= its source. The step that runs that edge leaves from a state of the
 * cycle at which the step's thread was in the explored set (the reduced
 * graph has no other edges), and there the step's flag (its first
 * instruction, its tail, the child's start) covers the edge: that state is
 * expanded fully. (A spawn is never on a cycle, the thread id counter only
 * grows, so CYC_CHILD is only prudence.) */
#include <stdlib.h>

#include "por_tab.h"

enum { CYC_OWN = 1, CYC_TAIL = 2, CYC_CHILD = 4 };

/* May the instruction at pc leave the pc where it is or send it back? */
static bool insn_back(const vm_body *b, uint32_t pc, const vm_absval *regs, vm_absval self,
                      vm_absval tid)
{
    if (b->code[pc].op == VM_OP_wait || b->code[pc].op == VM_OP_cwait) return true;
    uint32_t sbuf[2];
    const uint32_t *succ;
    unsigned ns = vm_abssucc(b, pc, regs, self, tid, sbuf, &succ);
    for (unsigned i = 0; i < ns; i++)
        if (succ[i] <= pc) return true;
    return false;
}

bool por_cycle_tables(por *P)
{
    if (P->cyc) return true;
    const vm_program *p = P->p;
    P->cyc = calloc(P->nunits ? P->nunits : 1, sizeof *P->cyc);
    if (!P->cyc) return false;
    for (uint32_t i = 0; i < P->nunits; i++) {
        const por_unit *u = &P->units[i];
        const vm_body *b = &p->bodies[u->body];
        size_t row = (size_t)b->nregs + 1;
        uint8_t *c = P->cyc[i] = calloc(b->ncode ? b->ncode : 1, 1);
        if (!c) {
            for (uint32_t k = 0; k < i; k++) free(P->cyc[k]);
            free(P->cyc);
            P->cyc = NULL;
            return false;
        }
        for (uint32_t pc = 0; pc < b->ncode; pc++)
            if (insn_back(b, pc, u->regs + pc * row, u->self, u->tid)) c[pc] = CYC_OWN;
        for (bool changed = true; changed;) { /* the tails, to the fixpoint */
            changed = false;
            for (uint32_t pc = b->ncode; pc-- > 0;) {
                if (c[pc] & CYC_TAIL) continue;
                uint32_t sbuf[2];
                const uint32_t *succ;
                unsigned ns = vm_abssucc(b, pc, u->regs + pc * row, u->self, u->tid, sbuf, &succ);
                for (unsigned k = 0; k < ns; k++)
                    if (!b->code[succ[k]].visible && c[succ[k]] & (CYC_OWN | CYC_TAIL)) {
                        c[pc] |= CYC_TAIL;
                        changed = true;
                        break;
                    }
            }
        }
    }
    for (uint32_t i = 0; i < P->nunits; i++) { /* spawns: the child's start */
        const por_unit *u = &P->units[i];
        const vm_body *b = &p->bodies[u->body];
        size_t row = (size_t)b->nregs + 1;
        for (uint32_t pc = 0; pc < b->ncode; pc++) {
            const vm_insn *in = &b->code[pc];
            if (in->op != VM_OP_spawn) continue;
            vm_absval cself = vm_absop(&in->a, u->regs + pc * row, u->self, u->tid);
            vm_absval cs = por_known(cself) ? cself : VM_ABS_TOP;
            uint32_t c = por_spawn_unit(P, (uint32_t)in->obj, cs);
            if (P->cyc[c][0] & (CYC_OWN | CYC_TAIL)) P->cyc[i][pc] |= CYC_CHILD;
        }
    }
    return true;
}

bool por_may_close_cycle(const por *P, const uint8_t *s, int t)
{
    const vm_program *p = P->p;
    if (!P->cyc) return true;
    const por_unit *u = por_unit_at(P, s, t);
    uint32_t pc = vm_tpc(p, s, t);
    uint8_t f = P->cyc[u - P->units][pc];
    if (vm_tstatus_of(p, s, t) == VM_T_RUNNING) return f != 0;
    /* notified (or waiting, with spurious wakeups): the re-acquire */
    enum vm_opcode op = (enum vm_opcode)vm_thread_body(p, s, t)->code[pc].op;
    return (op != VM_OP_wait && op != VM_OP_cwait) || (f & CYC_TAIL);
}

