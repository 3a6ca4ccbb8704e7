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
    uint32_t preempt;  /* preemptions on the path to this level */
    bool last_enabled; /* `last` has a step here: another thread preempts it */
    bool took;         /* a step was taken from here (else a leaf: an execution) */
    bool erred;        /* a step of fr.tid from here reached an error: fr.tid
                          does not go to sleep (an error state has no
                          successors, so the executions a sleeping step
                          stands for, which would reach other error states
                          of it, are not explored elsewhere) */
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
} sl_stack;

#define SL(S) ((sl_stack *)(S)->ctx)

#endif
