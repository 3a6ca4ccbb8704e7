/* analyze.h: thread-local abstract interpretation of race-free models (the
 * interface of the analyze/ module; issue 33).
 *
 * Mukherjee, Padon, Shoham, D'Souza, Rinetzky, "A thread-local semantics and
 * efficient static analyses for race free programs" (RATCOP): for a
 * data-race-free program, an analysis that runs every thread alone and
 * imports other threads' facts only at synchronization (release -> acquire,
 * spawn, join, send -> recv, volatile store -> load) is sound for the
 * variables each thread owns at each point (their Theorem 4, Corollary 2).
 * an_run() computes such a sync-CFG analysis over a vm_program: one fact per
 * (unit, pc), a unit being a static thread instance (self and id known) or a
 * proc body (one summary for all its instances). Facts are octagons (Mine's
 * DBMs with strong closure, oct.c) or intervals (the same matrices with the
 * binary constraints dropped), over the unit's registers, self, tid and every
 * global element, with 32-bit wrap-around handled lazily (oct.c's header).
 *
 * What it does not do: check the premise. The facts are sound only when the
 * model is free of data races (Goldilocks' happens-before races, with the
 * same edges the analysis has); the command line says which elements the
 * static discharge (lockset/) proves race-free and how to confirm the rest
 * with the search. Nothing here keeps global state; the result owns all it
 * points to. */
#ifndef MCHECK_ANALYZE_H
#define MCHECK_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vm.h"

typedef enum an_domain { AN_INTERVAL, AN_OCTAGON } an_domain;

typedef struct an_options {
    an_domain domain;
    bool tids;      /* RATCOP's thread ids (section 5.5), per element: at an
                       acquire, a buffer whose value of x only the acquiring
                       (static) thread wrote is not imported for x */
    unsigned narrow; /* descending passes after the widened fixpoint, at most
                        (8; they stop when one changes nothing) */
} an_options;

/* The defaults: octagons, thread ids on, up to 8 narrowing passes. */
void an_options_default(an_options *o);

typedef enum an_status { AN_PROVED, AN_UNKNOWN, AN_UNREACHABLE } an_status;

/* One `assert` of the model, over every unit that runs its body. */
typedef struct an_assert {
    uint32_t body, pc;
    int32_t line, col;
    const char *msg;    /* the assert's message (the program owns it) */
    an_status status;   /* proved: in every unit that reaches it, the fact
                           there contradicts the operand being 0 */
    uint32_t unit;      /* a unit that reaches it and does not prove it
                           (unknown), or the first that reaches it (proved);
                           UINT32_MAX when unreachable */
} an_assert;

typedef struct an_stats {
    uint32_t units;        /* analysis units */
    uint32_t points;       /* (unit, pc) program points */
    uint32_t reached;      /* of those, with a fact that is not bottom */
    uint32_t sync_edges;   /* buffer point -> import instruction pairs */
    uint64_t transfers;    /* instructions processed by the worklist */
    uint32_t dims_max;     /* the largest octagon (variables) */
    double seconds;
} an_stats;

typedef struct an_result an_result;

/* Analyze p (which must outlive the result). NULL when memory runs out. */
an_result *an_run(const vm_program *p, const an_options *o);
void an_free(an_result *r); /* NULL is a no-op */

const an_stats *an_result_stats(const an_result *r);
uint32_t an_nasserts(const an_result *r);
const an_assert *an_asserts(const an_result *r);

/* Units: 0 .. nstatic-1 are the static threads (unit u is thread id u),
 * then one per proc body. */
uint32_t an_nunits(const an_result *r);
void an_unit_name(const an_result *r, uint32_t u, char *buf, size_t n);
uint32_t an_unit_body(const an_result *r, uint32_t u);
/* Whether unit u reaches pc (its fact there is not bottom). */
bool an_reached(const an_result *r, uint32_t u, uint32_t pc);

/* Print the fact at (u, pc), as constraints over the registers by name,
 * self, tid and the global elements by name ("r0 = r1, 0 <= x <= 5"), with
 * every bound an int32 (each variable brought into the int32 range, where a
 * variable that cannot be is left out). Only globals for which `owned`
 * says true (NULL: every global; the argument is the element). "false" for
 * bottom. */
void an_fact_print(const an_result *r, uint32_t u, uint32_t pc, FILE *out,
                   bool (*owned)(void *ctx, uint32_t elem), void *ctx);

/* The same fact as an_fact_print() says it, as JSON by name:
 * {"reached":true,"bounds":[{"var":"r0","min":1,"max":1},...],
 *  "relations":[{"lhs":[[1,"r0"],[-1,"r1"]],"op":"=","rhs":0},...]}, a bound
 * null where the int32 range is all there is, each relation
 * a + b op rhs (coefficients 1 or -1, op "=", "<=" or ">="), with
 * "mod_2_32":true for an equality that holds modulo 2^32 only. */
void an_fact_print_json(const an_result *r, uint32_t u, uint32_t pc, FILE *out,
                        bool (*owned)(void *ctx, uint32_t elem), void *ctx);

/* The fact as raw constraints (the soundness test's): {"bottom":false,"cons":[[a,i,b,j,c],...]}, each
 * constraint a*v_i + b*v_j <= c with a, b in {-1, 0, 1} (b = 0, j = -1 for
 * a bound on one variable), variables numbered as in the unit: registers
 * 0 .. nregs-1, then self, tid, then the global elements. */
void an_fact_json(const an_result *r, uint32_t u, uint32_t pc, FILE *out);

#endif
