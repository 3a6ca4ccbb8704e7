/* step.c: the composed step, Stoller's C(M) transition (section 5.1): a
 * visible instruction followed by the same thread's invisible ones until it
 * stands at a visible control point, ends, blocks or errs (execInvis), more
 * than --max-invisible of them being an error (BoundedInvis). An instruction
 * that errs in the tail ends the step before it, so that instruction is a
 * scheduling point (see docs/architecture.md, "Reduction"). With
 * REDUCE_NONE a step is one instruction. It knows nothing of stores, stacks
 * or queues: the search and trace replay both call it. The step itself,
 * step_exec(), is in step_int.h, inline, as it runs once per transition
 * (out of line the BFS ran 2% more instructions); here are its cold parts:
 * the outcomes of a fault, of BoundedInvis and of a detector's report. */
#include <inttypes.h>
#include <stdio.h>

#include "step_int.h"

verdict error_verdict(error_cause c, vm_fault_kind fault)
{
    switch (c) {
    case CAUSE_NONE: return VERDICT_OK;
    case CAUSE_DEADLOCK: return VERDICT_DEADLOCK;
    case CAUSE_FAULT:
        return fault == VM_FAULT_ASSERTION ? VERDICT_ASSERTION : VERDICT_RUNTIME_ERROR;
    case CAUSE_BOUNDED_INVIS: return VERDICT_RUNTIME_ERROR;
    case CAUSE_LOCK_DISCIPLINE: return VERDICT_LOCK_DISCIPLINE;
    case CAUSE_RACE: return VERDICT_RACE;
    case CAUSE_UNSHARED: return VERDICT_RUNTIME_ERROR;
    }
    return VERDICT_RUNTIME_ERROR;
}

void bounded_invis_msg(char *buf, size_t n, uint64_t max_invisible)
{
    snprintf(buf, n, "no visible operation within %" PRIu64 " steps", max_invisible);
}

void step_fault(const vm_fault *f, step_outcome *out)
{
    out->cause = CAUSE_FAULT;
    out->fault = f->kind;
    out->kind = error_verdict(CAUSE_FAULT, f->kind);
    out->tid = f->tid;
    out->pc = f->pc;
    snprintf(out->msg, sizeof out->msg, "%s", f->msg);
}

void step_bounded_invis(const step_env *e, const uint8_t *s, int tid, step_outcome *out)
{
    out->cause = CAUSE_BOUNDED_INVIS;
    out->kind = error_verdict(CAUSE_BOUNDED_INVIS, VM_FAULT_ASSERTION /* not read */);
    out->tid = tid;
    out->pc = vm_tpc(e->p, s, tid);
    bounded_invis_msg(out->msg, sizeof out->msg, e->max_invisible);
}

/* A step the detector stopped (one of its hooks returned true): the
 * violation as an error of the reported thread, at the access (the
 * interpreter stops before it). The report's kind gives the cause. */
bool step_detector(const step_env *e, const uint8_t *s, step_outcome *out)
{
    const ls_report *rep = ls_last_report(e->det);
    switch (rep->kind) {
    case LS_NOMEM: return false;
    case LS_LD:
    case LS_ERASER: out->cause = CAUSE_LOCK_DISCIPLINE; break;
    case LS_GOLDILOCKS: out->cause = CAUSE_RACE; break;
    default: out->cause = CAUSE_UNSHARED; break; /* unshared touched by two threads */
    }
    out->kind = error_verdict(out->cause, VM_FAULT_ASSERTION /* not read */);
    out->tid = rep->tid;
    out->pc = vm_tpc(e->p, s, rep->tid);
    out->elem = rep->elem;
    snprintf(out->msg, sizeof out->msg, "%s", rep->msg);
    return true;
}
