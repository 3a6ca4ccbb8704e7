/* step_int.h: the composed step, private to reduce/. One transition of the
 * search from a stored state: Stoller's C(M) transition (section 5.1): the
 * thread's visible instruction, then its invisible tail (execInvis) up to a
 * visible control point, bounded by BoundedInvis, ending before an
 * instruction that errs; a detector's report becomes the step's outcome.
 * The search (dfs.c, bfs.c, lookahead.c) and trace replay (replay.c) both
 * run steps through step_run(); nothing else executes a transition. It does
 * not mark, hash or store the successor (search_int.h does). */
#ifndef MCHECK_STEP_INT_H
#define MCHECK_STEP_INT_H

#include "reduce.h"

/* What a step runs with. `before`, if set, is called before each
 * instruction (replay records it; false: out of memory, the step fails),
 * and `cut` when the step ends before an erring instruction of its tail
 * (the instruction `before` announced last was not executed). */
typedef struct step_env {
    const vm_program *p;
    const vm_hooks *hooks;
    const ls_detector *det;  /* the detector behind the hooks; NULL without */
    reduce_mode reduce;
    uint64_t max_invisible;  /* BoundedInvis */
    bool (*before)(void *ctx, const uint8_t *s, int tid, uint64_t choice, bool first);
    void (*cut)(void *ctx);
    void *ctx;
} step_env;

/* A step's outcome: OK, or the error it reached (an error state of `tid`). */
typedef struct step_outcome {
    verdict kind;      /* VERDICT_OK, or the error: error_verdict(cause, fault) */
    error_cause cause;
    vm_fault_kind fault;
    char msg[256];
    int tid;
    uint32_t pc;
    uint32_t elem;     /* the element a detector reported, else UINT32_MAX */
} step_outcome;

/* Apply step (tid, choice) to `s` in place: one instruction, then with
 * REDUCE_COMPOSE the thread's invisible tail. Counts the instructions it
 * runs in x->instructions and, of those, the tail's in x->invisible. False
 * only when there is no verdict: the detector or `before` ran out of memory
 * (the caller stops). */
bool step_run(const step_env *e, uint8_t *s, int tid, uint64_t choice, step_outcome *out,
              explore_stats *x);

/* The message of a BoundedInvis error (CAUSE_BOUNDED_INVIS). */
void bounded_invis_msg(char *buf, size_t n, uint64_t max_invisible);

#endif
