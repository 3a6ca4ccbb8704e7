/* stateless_int.h: the stateless search's private context (stateless.c),
 * which the race-driven transactions (stateless_races.c) share. Private to
 * reduce/. */
#ifndef MCHECK_STATELESS_INT_H
#define MCHECK_STATELESS_INT_H

#include "search_int.h"

/* A level of the stateless search: the path's node, its step being taken,
 * its sleep set, and what the preemption bound needs. The state is the
 * plain DFS's (S->cur and the undo log). */
typedef struct sl_frame {
    frame fr;          /* the thread being expanded (tid -1: none yet), its
                          next choice, the level's undo record */
    uint64_t sleep;    /* the sleep set: threads (t < 64) whose steps here
                          lead only to executions equivalent to explored ones */
    uint64_t indep;    /* of sleep, those independent of fr.tid's step */
    int32_t last;      /* the thread of the step into this level (-1: root) */
    uint32_t preempt;  /* preemptions on the path to this level (with a
                          delay bound: delays, delay_bound.c) */
    bool last_enabled; /* `last` has a step here: another thread preempts it */
    bool last_ended;   /* `last` has ended here (for good: bounded_sleep.c) */
    bool took;         /* a step was taken from here (else a leaf: an execution) */
    bool erred;        /* a step of fr.tid from here reached an error: fr.tid
                          does not go to sleep (an error state has no
                          successors, so the executions a sleeping step
                          stands for, which would reach other error states
                          of it, are not explored elsewhere) */
    /* with a preemption bound (bounded_sleep.c): */
    uint64_t added;    /* the threads explored from here (asleep in the later
                          siblings) */
    uint64_t covered;  /* the enabled threads whose steps from here lead only
                          to executions covered by explored ones of no more
                          preemptions */
    int32_t pend;      /* a sleeping thread z whose steps since it was met
                          asleep at an ancestor (pi_0) led here, each
                          independent of the steps X since z was explored
                          (at rho): the path is rho X z^k, and rho z^k X is
                          explored before it (-1: none) */
    int32_t pxm;       /* the last thread of X (the step into pi_0) */
    uint32_t pbase;    /* an upper bound on the preemptions of rho z^k X
                          but for X's first step after z */
    uint32_t dk;       /* with a delay bound: the delays of fr.tid's step */
} sl_frame;

/* The engine's private context (S->ctx). */
typedef struct sl_stack {
    sl_frame *frames;
    size_t cap;
    uint64_t *errs;    /* --all-errors: hashes of the error states found (each
                          error counted once), open addressing, 0 empty */
    size_t errs_cap, errs_len;
    uint8_t *init;     /* the initial state (each iteration starts there) */
    struct races *rs;  /* --scheduling=races: stateless_races.c's path and
                          clocks (races_int.h), else NULL */
    uint64_t *fp;      /* with a preemption bound and sleep sets: per level,
                          the objects of the step taken from it (por_words()
                          words each) */
    uint64_t *pf;      /* per level with pend >= 0: the objects of X */
    uint64_t *bf;      /* per level: the objects of the last thread's next
                          step where it is blocked (not ended) */
    size_t fp_cap;     /* levels fp and pf hold */
    uint32_t words;    /* por_words() */
} sl_stack;

#define SL(S) ((sl_stack *)(S)->ctx)

/* Would thread t's step from level f be a preemption? */
static inline bool preempts(const sl_frame *f, int32_t t)
{
    return f->last >= 0 && t != f->last && f->last_enabled;
}

/* delay_bound.c: the next thread to expand at level f after f->fr.tid
 * within `bound` delays (-1 if none; one left out sets *pruned). */
int32_t dlb_next(search *S, sl_frame *f, int64_t bound, bool *pruned, uint64_t *n, bool count);

/* bounded_sleep.c: sleep sets that respect a preemption bound. */
bool bsl_grow(search *S, size_t levels);
void bsl_took(search *S, size_t depth, int32_t t);
void bsl_child(search *S, size_t depth, int32_t t, sl_frame *child);
void bsl_cover(search *S, sl_frame *f);

#endif
