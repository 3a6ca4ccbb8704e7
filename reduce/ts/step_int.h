/* step_int.h: the composed step, private to reduce/. One transition of the
 * search from a stored state: Stoller's C(M) transition (section 5.1): the
 * thread's visible instruction, then its invisible tail (execInvis) up to a
 * visible control point, bounded by BoundedInvis, ending before an
 * instruction that errs; a detector's report becomes the step's outcome.
 * With --por (fold_start) a `spawn` step also runs the new thread's
 * invisible start (step_fold_start(), step.c).
 * The search (dfs.c, bfs.c, lookahead.c) and trace replay (replay.c) both
 * run steps through step_exec() (step_run(), step_run_observed()); nothing
 * else executes a transition. It is inline (it runs once per transition);
 * its cold parts are in step.c. It does not mark, hash or store the
 * successor (search_int.h does). */
#ifndef MCHECK_STEP_INT_H
#define MCHECK_STEP_INT_H

#include <assert.h>
#include <time.h>

#include "reduce.h"

/* Seconds since t0 (CLOCK_MONOTONIC; search.c). */
double now_since(const struct timespec *t0);

/* What a step runs with. With step_run_observed(), `before` is called
 * before each instruction (replay records it; false: out of memory, the
 * step fails), and `cut` when the step ends before an erring instruction
 * of its tail (the instruction `before` announced last was not executed). */
typedef struct step_env {
    const vm_program *p;
    const vm_hooks *hooks;
    const ls_detector *det;  /* the detector behind the hooks; NULL without */
    reduce_mode reduce;
    uint64_t max_invisible;  /* BoundedInvis */
    /* --por: threads' invisible starts are folded into the step before them
     * (step_fold_start()); fold_undo has room for a state of state_bytes
     * bytes (vm part and detector metadata), to roll a start back. One
     * step at a time uses it. */
    bool fold_start;
    uint8_t *fold_undo;
    size_t state_bytes;
    bool (*before)(void *ctx, const uint8_t *s, int tid, uint64_t choice, bool first);
    void (*cut)(void *ctx);
    void *ctx;
    /* What ran, for the report of unreached code: ran[b][pc] is set to 1
     * for every instruction of body b that a step runs (or tries to run:
     * it may fault or be stopped by the detector). One store per
     * instruction, unconditional: every step_env needs it (step_ran_new()).
     * The search also marks where threads stand in new states
     * (mark_reached(), search_int.h). */
    uint8_t *const *ran;
    /* The run's --timelimit and interrupt, looked at once every
     * STEP_LIMIT_EVERY invisible instructions of one step (a composed step
     * of --max-invisible instructions can run for seconds): when one has
     * passed, *stopped is set (STOP_TIMELIMIT, STOP_INTERRUPTED) and the
     * step fails, its state half-run (the caller stops the search and
     * stores nothing of it). stopped NULL: not looked at (trace replay
     * has its own checks). */
    stop_reason *stopped;
    const struct timespec *t0;  /* the run's start (CLOCK_MONOTONIC) */
    double timelimit;           /* seconds; 0: none */
    const atomic_int *interrupt;
} step_env;

#define STEP_LIMIT_EVERY (1u << 20)

/* A step's outcome: OK, or the error it reached (an error state of `tid`). */
typedef struct step_outcome {
    verdict kind;      /* VERDICT_OK, or the error: error_verdict(cause, fault) */
    error_cause cause;
    vm_fault_kind fault;
    char msg[256];
    int tid;
    uint32_t pc;
    uint32_t body;     /* the body tid runs (UINT32_MAX: a deadlock) */
    uint32_t elem;     /* the element a detector reported, else UINT32_MAX */
} step_outcome;

/* The cold parts of a step, in step.c: the outcome of a fault, of
 * BoundedInvis, and of a detector's report (false if the detector ran out
 * of memory: there is no verdict then). */
void step_fault(const step_env *e, const uint8_t *s, const vm_fault *f, step_outcome *out);
void step_bounded_invis(const step_env *e, const uint8_t *s, int tid, step_outcome *out);
bool step_detector(const step_env *e, const uint8_t *s, step_outcome *out);
/* The error of outcome `so` as the search keeps it, reached after `len`
 * steps (no path: er->path NULL). */
void step_error(explore_error *er, const step_outcome *so, uint32_t len);
/* True, with *e->stopped set, when the time limit or an interrupt has come
 * (step_env.stopped). */
bool step_limit_hit(const step_env *e);

/* The message of a BoundedInvis error (CAUSE_BOUNDED_INVIS). */
void bounded_invis_msg(char *buf, size_t n, uint64_t max_invisible);

/* --por: a thread's invisible start (step.c). If thread `tid` stands, not
 * yet moved, at pc 0 and the instruction there is invisible (visible only
 * by InitVis), run its instructions until it stands at a visible control
 * point or ends: its prefix, counted in x->instructions and x->invisible.
 * If an instruction of the prefix faults, the detector reports it, the
 * prefix runs into BoundedInvis, or it would load or store a global (it
 * could decide how other threads' accesses are checked), the state is
 * restored as it was before the prefix (detector metadata included; with
 * `observed`, the prefix's trace entries are cut) and the thread stays at
 * pc 0, an ordinary scheduling point whose step meets the error. False
 * only when there is no verdict (the detector or e->before ran out of
 * memory). */
bool step_fold_start(const step_env *e, uint8_t *s, int tid, explore_stats *x, bool observed);

/* step_fold_start() for every static thread in id order: the initial
 * state of a search with --por (trace replay records these as step 0). */
bool step_fold_starts(const step_env *e, uint8_t *s, explore_stats *x, bool observed);

/* A ran table for step_env.ran: a row of p->bodies[b].ncode zero bytes per
 * body b, in one allocation (free() it); NULL if out of memory. */
uint8_t **step_ran_new(const vm_program *p);
/* The environment of the composed step under options o, the one way the
 * search, -j, MPI and trace replay make it: the program, the detector det
 * behind hooks h, --reduce, --max-invisible, --por's folded starts (their
 * roll-back buffer fold_undo malloc'd: NULL if that failed, which the
 * caller checks), states of state_bytes bytes, and the table `ran`. The
 * run's limits (stopped, t0, timelimit, interrupt) and a replay's
 * before/cut/ctx are the caller's to set. */
step_env step_env_new(const vm_program *p, const explore_options *o, const vm_hooks *h,
                      const ls_detector *det, size_t state_bytes, uint8_t *const *ran);

/* The pending instruction of thread `tid` if it is a `spawn`, else NULL. */
const vm_insn *step_spawn_insn(const vm_program *p, const uint8_t *s, int tid);

/* Inlined into the search loops: it runs once per transition. */
#if defined(__GNUC__)
#define HOT_INLINE inline __attribute__((always_inline))
#else
#define HOT_INLINE inline
#endif

/* How a thread's invisible tail ended (step_tail()). */
enum tail_end {
    TAIL_RAN,     /* up to a visible control point or the thread's end;
                     *rc is the last instruction's status (an error inside
                     an atomic block is the step's own) */
    TAIL_CUT,     /* before an erring instruction, which stays the thread's
                     next scheduling point (the state is as before it) */
    TAIL_BOUNDED, /* BoundedInvis: *out says so */
    TAIL_FAILED,  /* no verdict: `before` ran out of memory or a limit came */
};

/* Run thread tid's invisible tail from where it stands (the rest of an
 * atomic block in every mode; with REDUCE_COMPOSE every invisible
 * instruction), the first instruction with choice `next`; body is the
 * body tid runs (fixed while the thread runs). */
static HOT_INLINE enum tail_end step_tail(const step_env *e, uint8_t *s, int tid, uint32_t body,
                                          uint64_t next, vm_status *rc, vm_fault *f,
                                          step_outcome *out, explore_stats *x, const bool observed)
{
    const vm_program *p = e->p;
    const uint32_t ts = p->threads[tid].offset;
    const vm_insn *code = p->bodies[body].code;
    uint8_t *ran = e->ran[body];
    const bool compose = e->reduce == REDUCE_COMPOSE;
    uint64_t n = 0;
    for (;;) {
        /* vm_at_visible(), inline: the pc it reads is the one to mark,
         * and the call it saves pays for the mark */
        if (s[ts + VM_TS_STATUS] != VM_T_RUNNING) break;
        const uint32_t pc = vm_rd16(s, ts + VM_TS_PC);
        if (code[pc].visible) break;
        if (!compose && !code[pc].in_block) break; /* --reduce=none: the block's end */
        if (++n > e->max_invisible) { /* BoundedInvis */
            step_bounded_invis(e, s, tid, out);
            return TAIL_BOUNDED;
        }
        if (__builtin_expect(n % STEP_LIMIT_EVERY == 0, 0) && e->stopped && step_limit_hit(e))
            return TAIL_FAILED; /* a limit, inside a long step */
        if (observed && !e->before(e->ctx, s, tid, next, false)) return TAIL_FAILED;
        ran[pc] = 1;
        *rc = vm_step(p, s, tid, next, e->hooks, f);
        next = 0;
        /* inside a block an error is the step's own (no thread may
         * come in between), as is a false assume vm_enabled() ruled out */
        if (code[pc].in_block && *rc != VM_OK) {
            assert(*rc != VM_NOT_TAKEN && "a block's guard passes on the step vm_enabled() counted");
            x->instructions++;
            break;
        }
        if (*rc == VM_FAULT ||
            (*rc == VM_STOPPED && ls_last_report(e->det)->kind != LS_NOMEM)) {
            /* An error in the invisible tail: the composed step ends
             * before the erring instruction (which left the state as it
             * was), and that instruction becomes a scheduling point. The
             * error is reached from the new state, after the other
             * threads had their chance to move first: an assertion that
             * fails here must not hide what they can reach. */
            if (observed) e->cut(e->ctx);
            *rc = VM_OK;
            return TAIL_CUT;
        }
        x->instructions++;
        x->invisible++;
        if (*rc != VM_OK) break;
    }
    return TAIL_RAN;
}

/* The end of a step (step_exec(), step_rendezvous()) once its instructions
 * and tails have run, the last with status rc (fault f): the outcome of a
 * fault or of a detector's report, else with --por the invisible start of
 * `child`, the thread the step spawned (step_fold_start(); -1: none). False
 * only when there is no verdict. */
static HOT_INLINE bool step_end(const step_env *e, uint8_t *s, vm_status rc, const vm_fault *f,
                                int child, step_outcome *out, explore_stats *x,
                                const bool observed)
{
    if (rc == VM_FAULT) step_fault(e, s, f, out);
    else if (rc == VM_STOPPED) return step_detector(e, s, out);
    else if (child >= 0) return step_fold_start(e, s, child, x, observed);
    return true;
}

/* A rendezvous step (step.c, out of line: rare): step_exec() for thread
 * tid at a `send` on a `chan c[0]`, whose pc the caller has marked run
 * and, when observed, announced. The receiver's `recv` is marked and
 * announced too (a send's entry needs nothing from the state after it),
 * the two threads' instructions run in one vm_step(), then under
 * composition the sender's tail and the receiver's (step_tail() each). */
bool step_rendezvous(const step_env *e, uint8_t *s, int tid, uint64_t choice, step_outcome *out,
                     explore_stats *x, bool observed);

/* Apply step (tid, choice) to `s` in place: one instruction, then with
 * REDUCE_COMPOSE the thread's invisible tail (step_tail()). A rendezvous
 * (a send on a `chan c[0]`) moves the receiver too: its invisible tail
 * follows the sender's, also when the sender's was cut before an erring
 * instruction, not when the step errs. Counts the instructions it
 * runs in x->instructions and, of those, the tails' in x->invisible. With
 * e->fold_start, a `spawn` step ends with the new thread's invisible start
 * (step_fold_start()), after the spawner's tail: the step is then the
 * spawn step followed by the child's first step, a path of the search
 * without --por (the child's start is folded also when the tail was cut
 * before an erring instruction, not when the step errs). False
 * only when there is no verdict: the detector or `before` ran out of memory,
 * or a limit came inside the step (e->stopped says which; the caller stops). The search calls step_run(), which leaves out the
 * calls to e->before and e->cut (a constant `observed` folds them away);
 * replay calls step_run_observed(). */
static HOT_INLINE bool step_exec(const step_env *e, uint8_t *s, int tid, uint64_t choice,
                                 step_outcome *out, explore_stats *x, const bool observed)
{
    const vm_program *p = e->p;
    vm_fault f;
    out->kind = VERDICT_OK;
    out->cause = CAUSE_NONE;
    out->elem = UINT32_MAX;

    if (observed && !e->before(e->ctx, s, tid, choice, true)) return false;
    const vm_insn *spawn = e->fold_start ? step_spawn_insn(p, s, tid) : NULL;
    const uint32_t body = vm_tbody_index(p, s, tid);
    const uint32_t pc0 = vm_rd16(s, p->threads[tid].offset + VM_TS_PC);
    const vm_insn *in = &p->bodies[body].code[pc0];
    /* an atomic block: its instructions follow in this step, in every
     * mode, the first with the block's choice (vm_block_choice()) */
    const bool block = in->op == VM_OP_atomic;
    const uint64_t next = block ? vm_block_choice(p, s, tid, choice) : 0;
    e->ran[body][pc0] = 1;
    /* a rendezvous: the receiver moves in this step too */
    if (__builtin_expect(in->op == VM_OP_send, 0) && p->chans[in->obj].cap == 0)
        return step_rendezvous(e, s, tid, choice, out, x, observed);
    vm_status rc = vm_step(p, s, tid, block ? 0 : choice, e->hooks, &f);
    x->instructions++;
    /* --por: the thread a spawn started, whose start ends the step */
    const int child = spawn && rc == VM_OK ? vm_rd32(s, vm_treg_off(&p->threads[tid], spawn->rd)) : -1;
    const bool compose = e->reduce == REDUCE_COMPOSE;
    if (rc == VM_OK && (compose || block)) {
        switch (step_tail(e, s, tid, body, next, &rc, &f, out, x, observed)) {
        case TAIL_RAN:
        case TAIL_CUT: break;
        case TAIL_BOUNDED: return true;
        case TAIL_FAILED: return false;
        }
    }
    return step_end(e, s, rc, &f, child, out, x, observed);
}

static HOT_INLINE bool step_run(const step_env *e, uint8_t *s, int tid, uint64_t choice,
                                step_outcome *out, explore_stats *x)
{
    return step_exec(e, s, tid, choice, out, x, false);
}

/* step_run() with e->before and e->cut called (both must be set). */
static inline bool step_run_observed(const step_env *e, uint8_t *s, int tid, uint64_t choice,
                                     step_outcome *out, explore_stats *x)
{
    return step_exec(e, s, tid, choice, out, x, true);
}

#endif
