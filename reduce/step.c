/* step.c: the composed step, Stoller's C(M) transition (section 5.1): a
 * visible instruction followed by the same thread's invisible ones until it
 * stands at a visible control point, ends, blocks or errs (execInvis), more
 * than --max-invisible of them being an error (BoundedInvis). An instruction
 * that errs in the tail ends the step before it, so that instruction is a
 * scheduling point (see docs/architecture.md, "Reduction"). With
 * REDUCE_NONE a step is one instruction. It knows nothing of stores, stacks
 * or queues: the search and trace replay both call it. */
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

/* The outcome of a step the detector stopped (one of its hooks returned
 * true): the violation as an error of the faulting thread, at the access
 * (the interpreter stops before it). The report's kind gives the cause.
 * False if the detector ran out of memory: then there is no verdict. */
static bool detector_outcome(const ls_detector *det, const vm_program *p, const uint8_t *s,
                             step_outcome *out)
{
    const ls_report *rep = ls_last_report(det);
    switch (rep->kind) {
    case LS_NOMEM: return false;
    case LS_LD:
    case LS_ERASER: out->cause = CAUSE_LOCK_DISCIPLINE; break;
    case LS_GOLDILOCKS: out->cause = CAUSE_RACE; break;
    default: out->cause = CAUSE_UNSHARED; break; /* unshared touched by two threads */
    }
    out->kind = error_verdict(out->cause, VM_FAULT_ASSERTION /* not read */);
    out->tid = rep->tid;
    out->pc = vm_tpc(p, s, rep->tid);
    out->elem = rep->elem;
    snprintf(out->msg, sizeof out->msg, "%s", rep->msg);
    return true;
}

bool step_run(const step_env *e, uint8_t *s, int tid, uint64_t choice, step_outcome *out,
              explore_stats *x)
{
    const vm_program *p = e->p;
    vm_fault f;
    out->kind = VERDICT_OK;
    out->cause = CAUSE_NONE;
    out->elem = UINT32_MAX;

    if (e->before && !e->before(e->ctx, s, tid, choice, true)) return false;
    vm_status rc = vm_step(p, s, tid, choice, e->hooks, &f);
    x->instructions++;
    if (rc == VM_OK && e->reduce == REDUCE_COMPOSE) {
        uint64_t n = 0;
        while (!vm_at_visible(p, s, tid)) {
            if (++n > e->max_invisible) {
                out->cause = CAUSE_BOUNDED_INVIS;
                out->kind = error_verdict(CAUSE_BOUNDED_INVIS, VM_FAULT_ASSERTION /* not read */);
                out->tid = tid;
                out->pc = vm_tpc(p, s, tid);
                bounded_invis_msg(out->msg, sizeof out->msg, e->max_invisible);
                return true;
            }
            if (e->before && !e->before(e->ctx, s, tid, 0, false)) return false;
            rc = vm_step(p, s, tid, 0, e->hooks, &f);
            if (rc == VM_FAULT ||
                (rc == VM_STOPPED && ls_last_report(e->det)->kind != LS_NOMEM)) {
                /* An error in the invisible tail: the composed step ends
                 * before the erring instruction (which left the state as it
                 * was), and that instruction becomes a scheduling point. The
                 * error is reached from the new state, after the other
                 * threads had their chance to move first: an assertion that
                 * fails here must not hide what they can reach. */
                if (e->cut) e->cut(e->ctx);
                return true;
            }
            x->instructions++;
            x->invisible++;
            if (rc != VM_OK) break;
        }
    }
    if (rc == VM_FAULT) {
        out->cause = CAUSE_FAULT;
        out->fault = f.kind;
        out->kind = error_verdict(CAUSE_FAULT, f.kind);
        out->tid = f.tid;
        out->pc = f.pc;
        snprintf(out->msg, sizeof out->msg, "%s", f.msg);
    } else if (rc == VM_STOPPED && !detector_outcome(e->det, p, s, out)) {
        return false;
    }
    return true;
}
