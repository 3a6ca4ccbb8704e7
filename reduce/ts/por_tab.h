/* por_tab.h: the tables of por.c (per analysis unit and pc, the objects
 * of a step and of a thread's future; Stoller section 6's pendInvisOps'),
 * private to reduce/ts/: por.c computes them and the persistent sets over
 * them, por_cycle.c the static cycle proviso from the same units. */
#ifndef MCHECK_POR_TAB_H
#define MCHECK_POR_TAB_H

#include "por_int.h"

typedef struct por_unit {
    uint32_t body;
    vm_absval self, tid;
    vm_absval *regs;   /* vm_absregs(): (nregs + 1) per pc */
    uint64_t *tail;    /* ncode * words */
    uint64_t *fut;     /* ncode * words */
    uint64_t *step;    /* ncode * words: the first instruction's objects and the tail */
    uint8_t *exact;    /* per pc: step[pc] holds whatever the registers (no
                          index or spawn argument left unknown) */
} por_unit;

struct por {
    const vm_program *p;
    uint8_t *discharged;       /* per element: independent of other threads' */
    uint32_t words;            /* uint64 words per object set */
    uint32_t obj_chan, obj_spawn, obj_cond, obj_elem;
    por_unit *units;
    uint32_t nunits, cap;
    uint32_t *static_unit;     /* per static thread */
    uint32_t *top_unit;        /* per body: the unit with self and tid unknown (procs) */
    /* per state scratch */
    uint64_t *step;            /* nthreads * words */
    const uint64_t **fut;      /* per thread: its future at its pc, or NULL if not live */
    uint64_t *adj;             /* per thread: the threads it adds to a closure */
    uint64_t *pend;            /* per thread: the waiting threads it would add
                                  (deferred: waiters_of(), closure()) */
    uint64_t *notif;           /* per waiting thread: who may notify its lock first */
    int32_t *wowner;           /* per waiting thread: its lock's owner, or -1 */
    uint64_t waiting;          /* the waiting threads of the last state */
    uint64_t *tmp;             /* words */
    uint8_t **cyc;             /* per unit, per pc: CYC_* (por_cycle_tables()), or NULL */
};

static inline bool por_known(vm_absval v) { return v != VM_ABS_TOP && v != VM_ABS_BOT; }

/* The unit of a thread of proc `body` with `self` (its spawn argument): the
 * one made for that value if any, else the proc's unit with self unknown. */
uint32_t por_spawn_unit(const por *P, uint32_t body, vm_absval self);
/* The unit of live thread t in s. */
const por_unit *por_unit_at(const por *P, const uint8_t *s, int t);

#endif
