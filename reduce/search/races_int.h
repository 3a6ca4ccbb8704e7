/* races_int.h: race-driven transactions (stateless_races.c), private to
 * reduce/: what the stateless search (stateless.c) calls when
 * --scheduling=races is on. The search keeps its loop, its path and its
 * sleep sets; this file decides which threads each level expands
 * (backtrack sets) and keeps the happens-before clocks that find races. */
#ifndef MCHECK_RACES_INT_H
#define MCHECK_RACES_INT_H

#include "stateless_int.h"

typedef struct races races;

/* The tables for S's program; NULL with S->lim.stop set when memory runs
 * out, or (without setting it) when the program has more than 64 threads:
 * then every node is full, the plain stateless search. */
races *races_new(search *S);
void races_free(races *R); /* NULL is a no-op */

/* A new iteration: empty path, zero clocks. */
void races_reset(races *R);

/* A new node at `depth` (state S->cur; `last` the thread of the step into
 * it, -1 at the root): its enabled and light threads, its backtrack set
 * (light: {last}; full: every enabled thread), and FG's race detection for
 * the next step of each thread. False with S->lim.stop set if memory runs
 * out. */
bool races_level(search *S, size_t depth, int32_t last);

/* The next thread to expand at `depth`: in its backtrack set, not done,
 * not in `sleep`; -1 if none. With `count`, marks it done and counts the
 * steps the sleep set leaves out; *n: its choices. */
int32_t races_next(search *S, size_t depth, uint64_t sleep, uint64_t *n, bool count);

/* Thread tid's step from `depth` (state pre) led to post without error:
 * apply its clock updates and record its volatile access. False with
 * S->lim.stop set if memory runs out. */
bool races_took(search *S, size_t depth, int32_t tid, const uint8_t *pre, const uint8_t *post);

/* Back at `depth` from depth + 1: undo what races_took() did there. */
void races_pop(races *R, size_t depth);

/* A step from `depth` reached an error (no successor): the node becomes
 * full (the error ends the execution, so the other threads' steps there
 * are not explored elsewhere). */
void races_erred(search *S, size_t depth);

#endif
