/* por_int.h: persistent sets over composed steps (por.c), private to
 * reduce/: the static tables a search builds once (por_new) and the set of
 * threads to explore in a state (por_persistent). The cycle proviso is the
 * searches' (dfs_por.c: a successor on the stack; bfs.c: a successor seen
 * before; mpi.c: the static one, from this file's por_may_close_cycle()). */
#ifndef MCHECK_POR_INT_H
#define MCHECK_POR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm.h"

typedef struct por por;

/* The tables for program p (p must outlive them). NULL when memory runs
 * out. */
por *por_new(const vm_program *p);
void por_free(por *P); /* NULL is a no-op */
size_t por_bytes(const por *P);

/* False when the program has more threads than a mask holds (64): then
 * por_persistent() returns every enabled thread. */
bool por_applies(const por *P);

/* A persistent set of s: a non-empty subset of `enabled` (bit t: thread t
 * has a step), equal to it when nothing smaller is found. */
uint64_t por_persistent(por *P, const uint8_t *s, uint64_t enabled);
/* The same from another seed: the closure of enabled thread `seed`, the
 * thread a search in another order runs first (--swarm, dfs_por.c);
 * por_persistent() is por_persistent_from() of the lowest enabled thread. */
uint64_t por_persistent_from(por *P, const uint8_t *s, uint64_t enabled, uint32_t seed);

/* The threads of `mask` (enabled in s) whose steps in s are independent
 * of enabled thread t's: no object in common (so neither disables the
 * other and they commute). For sleep sets. */
uint64_t por_independent(por *P, const uint8_t *s, int t, uint64_t mask);

/* Object sets (por_words() words each) for the bounded stateless search's
 * sleep sets (stateless.c): or into `out` the objects of enabled thread
 * t's step in s (the same set por_independent() compares); whether two
 * sets have an object in common (if not, the steps commute). */
uint32_t por_words(const por *P);
void por_step_objects(por *P, const uint8_t *s, int t, uint64_t *out);
bool por_objects_meet(const por *P, const uint64_t *a, const uint64_t *b);

/* The live threads (of `live`) that may enable disabled thread t in s
 * (used by por_persistent; the caller has filled the futures). */
uint64_t por_enablers(por *P, const uint8_t *s, int t, uint64_t live);

/* The threads other than t that t's step in s moves too (the receivers a
 * rendezvous send may take), as a mask. */
uint64_t por_partners(const por *P, const uint8_t *s, int t);

/* For the liveness searches' visibility condition (live_por.c): the
 * objects the props of `used` (bit i: p->props[i]) read, global elements
 * and lock elements (their owners), as a new object set (NULL: no memory;
 * free() it), and in *at the threads whose location at a label a prop
 * reads; whether live thread t's step in s may write an object of `objs`
 * with its first instruction (a store to one of its elements; an acquire,
 * release or wait of one of its locks, which may change the owner). */
uint64_t *por_prop_objects(const por *P, uint64_t used, uint64_t *at);
bool por_first_writes(por *P, const uint8_t *s, int t, const uint64_t *objs);

/* The static cycle proviso, for a search that cannot see whether a
 * successor was stored before (mpi.c; the argument is in por.c): build the
 * tables once (false when out of memory; then por_may_close_cycle() says
 * true), then whether the step of enabled thread t in s may run a backward
 * control transfer (a jump or branch to a pc <= its own, or a wait, which
 * leaves the pc where it is) in its first instruction, its invisible tail
 * or the folded start of the thread it spawns. A state whose explored set
 * holds such a thread must be expanded fully. */
bool por_cycle_tables(por *P);
bool por_may_close_cycle(const por *P, const uint8_t *s, int t);

/* por_persistent(), but if the set it picks holds a thread of `avoid`, the
 * smallest persistent set (a closure of one seed) that holds none of them,
 * if any (else por_persistent()'s). */
uint64_t por_persistent_avoiding(por *P, const uint8_t *s, uint64_t enabled, uint64_t avoid);

#endif
