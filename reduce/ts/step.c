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
 * the outcomes of a fault, of BoundedInvis and of a detector's report.
 * Also here, for --por, a thread's invisible start (step_fold_start()),
 * run as part of the step before it: the initial state's (explore.c,
 * replay.c) and a spawned thread's (the spawn step). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    case CAUSE_NON_PROGRESS: return VERDICT_NON_PROGRESS;
    case CAUSE_LTL: return VERDICT_LTL;
    case CAUSE_STARVATION: return VERDICT_STARVATION;
    }
    return VERDICT_RUNTIME_ERROR;
}

void bounded_invis_msg(char *buf, size_t n, uint64_t max_invisible)
{
    snprintf(buf, n, "no visible operation within %" PRIu64 " steps", max_invisible);
}

void step_fault(const step_env *e, const uint8_t *s, const vm_fault *f, step_outcome *out)
{
    out->body = vm_tbody_index(e->p, s, f->tid); /* the fault left s as it was */
    out->cause = CAUSE_FAULT;
    out->fault = f->kind;
    out->kind = error_verdict(CAUSE_FAULT, f->kind);
    out->tid = f->tid;
    out->pc = f->pc;
    out->elem = UINT32_MAX;
    snprintf(out->msg, sizeof out->msg, "%s", f->msg);
}

void step_bounded_invis(const step_env *e, const uint8_t *s, int tid, step_outcome *out)
{
    out->cause = CAUSE_BOUNDED_INVIS;
    out->fault = VM_FAULT_ASSERTION; /* not read; set, so that errors compare alike */
    out->kind = error_verdict(CAUSE_BOUNDED_INVIS, out->fault);
    out->tid = tid;
    out->elem = UINT32_MAX;
    out->pc = vm_tpc(e->p, s, tid);
    out->body = vm_tbody_index(e->p, s, tid);
    bounded_invis_msg(out->msg, sizeof out->msg, e->max_invisible);
}

void step_error(explore_error *er, const step_outcome *so, uint32_t len)
{
    memset(er, 0, sizeof *er);
    er->kind = so->kind;
    er->cause = so->cause;
    er->fault = so->fault;
    snprintf(er->msg, sizeof er->msg, "%s", so->msg);
    er->tid = so->tid;
    er->pc = so->pc;
    er->body = so->body;
    er->elem = so->elem;
    er->len = len;
}

bool step_limit_hit(const step_env *e)
{
    if (e->interrupt && *e->interrupt) {
        *e->stopped = STOP_INTERRUPTED;
        return true;
    }
    if (e->timelimit > 0 && e->t0 && now_since(e->t0) >= e->timelimit) {
        *e->stopped = STOP_TIMELIMIT;
        return true;
    }
    return false;
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
    out->fault = VM_FAULT_ASSERTION; /* not read; set, so that errors compare alike */
    out->kind = error_verdict(out->cause, out->fault);
    out->tid = rep->tid;
    out->pc = vm_tpc(e->p, s, rep->tid);
    out->body = vm_tbody_index(e->p, s, rep->tid);
    out->elem = rep->elem;
    snprintf(out->msg, sizeof out->msg, "%s", rep->msg);
    return true;
}

/* Visible by its own right, not only by InitVis: the visible flag the
 * assembler gives any pc but 0 (asm_code.c: the opcode's VM_F_VIS, or a
 * load or store of a volatile variable, vm_make_volatile()'s included). */
static bool insn_visible(const vm_program *p, const vm_insn *in)
{
    unsigned fl = vm_ops[in->op].flags;
    return (fl & VM_F_VIS) || ((fl & VM_F_MEM) && p->vars[in->obj].cls == VM_VOLATILE);
}

step_env step_env_new(const vm_program *p, const explore_options *o, const vm_hooks *h,
                      const ls_detector *det, size_t state_bytes, uint8_t *const *ran)
{
    bool fold = o->por && o->reduce == REDUCE_COMPOSE;
    return (step_env){.p = p, .hooks = h, .det = det, .reduce = o->reduce,
                      .max_invisible = o->max_invisible, .fold_start = fold,
                      .fold_undo = fold ? malloc(state_bytes) : NULL,
                      .state_bytes = state_bytes, .ran = ran, .timelimit = o->timelimit,
                      .interrupt = o->interrupt};
}

uint8_t **step_ran_new(const vm_program *p)
{
    size_t rows = p->nbodies * sizeof(uint8_t *), bytes = 0;
    for (uint32_t b = 0; b < p->nbodies; b++) bytes += p->bodies[b].ncode;
    uint8_t **ran = calloc(1, rows + bytes + 1);
    if (!ran) return NULL;
    uint8_t *row = (uint8_t *)ran + rows;
    for (uint32_t b = 0; b < p->nbodies; b++) {
        ran[b] = row;
        row += p->bodies[b].ncode;
    }
    return ran;
}

const vm_insn *step_spawn_insn(const vm_program *p, const uint8_t *s, int tid)
{
    if (vm_tstatus_of(p, s, tid) != VM_T_RUNNING) return NULL;
    const vm_insn *in = &vm_thread_body(p, s, tid)->code[vm_tpc(p, s, tid)];
    return in->op == VM_OP_spawn ? in : NULL;
}

/* A load of a shared variable no `store` names and no `init T` governs:
 * it reads the initial value whatever the other threads do, and with --por
 * no detector keeps metadata for it (ls_discharge_why(): LS_READ_ONLY), so
 * a start may run it before every other thread's first move. */
static bool reads_constant(const vm_program *p, const vm_insn *in)
{
    if (in->op != VM_OP_load) return false;
    const vm_var *v = &p->vars[in->obj];
    return v->cls == VM_SHARED && !v->stored && v->init_body < 0;
}

bool step_fold_start(const step_env *e, uint8_t *s, int tid, explore_stats *x, bool observed)
{
    const vm_program *p = e->p;
    if (vm_tstatus_of(p, s, tid) != VM_T_RUNNING || vm_tpc(p, s, tid) != 0) return true;
    /* A start that a prop watches (T@label) is not folded: the states
     * before the label, where the prop is false, would not be seen. */
    if (p->threads[tid].loc_read) return true;
    const vm_insn *code = vm_thread_body(p, s, tid)->code;
    if (insn_visible(p, &code[0])) return true;
    if (observed) {
        /* Replay records a start only once it knows the start folds: it
         * runs it unobserved first (a start is deterministic: invisible
         * instructions, no global), so no recorded entry is taken back
         * (its sink may have written it out). */
        explore_stats dry = {0};
        if (!step_fold_start(e, s, tid, &dry, false)) return false;
        if (!dry.instructions) return true; /* rolled back: not folded */
        memcpy(s, e->fold_undo, e->state_bytes); /* as before the start */
    }
    memcpy(e->fold_undo, s, e->state_bytes);
    /* As the thread's own step from pc 0 would run it: its first
     * instruction and at most max_invisible more. Invisible instructions
     * never block. */
    uint64_t n = 0;
    vm_fault f;
    uint8_t *ran = e->ran[vm_tbody_index(p, s, tid)];
    do {
        if (n > e->max_invisible) goto roll_back; /* BoundedInvis */
        if (n && n % STEP_LIMIT_EVERY == 0 && e->stopped && step_limit_hit(e)) return false;
        /* A prefix that touches a global is not folded: run before every
         * other thread's first move, its access could decide what their
         * accesses are checked against (an `init` variable's first access,
         * Eraser's exclusive owner, an unshared variable's owner), and a
         * violation of the full search would be missed
         * (tests/semantics/init_violation.bc). Registers, jumps, asserts
         * and `end` touch nothing another thread sees before it moves;
         * nor does a read of a variable nobody writes (reads_constant()). */
        if (vm_ops[code[vm_tpc(p, s, tid)].op].flags & VM_F_MEM &&
            !reads_constant(p, &code[vm_tpc(p, s, tid)]))
            goto roll_back;
        if (observed && !e->before(e->ctx, s, tid, 0, false)) return false;
        n++;
        ran[vm_tpc(p, s, tid)] = 1; /* a prefix rolled back runs again later */
        vm_status rc = vm_step(p, s, tid, 0, e->hooks, &f);
        if (rc == VM_STOPPED && ls_last_report(e->det)->kind == LS_NOMEM) return false;
        if (rc != VM_OK) goto roll_back; /* a fault, or the detector's report */
    } while (!vm_at_visible(p, s, tid));
    x->instructions += n;
    x->invisible += n;
    return true;
roll_back:
    memcpy(s, e->fold_undo, e->state_bytes);
    if (observed)
        for (uint64_t i = 0; i < n; i++) e->cut(e->ctx);
    return true;
}

bool step_fold_starts(const step_env *e, uint8_t *s, explore_stats *x, bool observed)
{
    for (uint32_t t = 0; t < e->p->nstatic; t++)
        if (!step_fold_start(e, s, (int)t, x, observed)) return false;
    return true;
}

bool step_rendezvous(const step_env *e, uint8_t *s, int tid, uint64_t choice, step_outcome *out,
                     explore_stats *x, bool observed)
{
    const vm_program *p = e->p;
    const int r = vm_rendezvous_receiver(p, s, tid, choice);
    assert(r >= 0 && "a rendezvous send's choice names a receiver");
    const uint32_t rbody = vm_tbody_index(p, s, r);
    e->ran[rbody][vm_rd16(s, p->threads[r].offset + VM_TS_PC)] = 1;
    if (observed && !e->before(e->ctx, s, r, 0, false)) return false;
    vm_fault f;
    vm_status rc = vm_step(p, s, tid, choice, e->hooks, &f);
    x->instructions += 2;
    /* the sender's tail, then the receiver's: also when the sender's was
     * cut before an erring instruction, not when the step errs */
    for (int k = 0; k < 2 && rc == VM_OK && e->reduce == REDUCE_COMPOSE; k++) {
        const int t = k ? r : tid;
        const uint32_t b = k ? rbody : vm_tbody_index(p, s, tid);
        switch (observed ? step_tail(e, s, t, b, 0, &rc, &f, out, x, true)
                         : step_tail(e, s, t, b, 0, &rc, &f, out, x, false)) {
        case TAIL_RAN:
        case TAIL_CUT: break;
        case TAIL_BOUNDED: return true;
        case TAIL_FAILED: return false;
        }
    }
    return step_end(e, s, rc, &f, -1, out, x, observed);
}
