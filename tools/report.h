/* report.h: how the mcheck tool prints findings (text and JSON) and runs a
 * random simulation. Private to tools/. */
#ifndef MCHECK_REPORT_H
#define MCHECK_REPORT_H

#include <stdio.h>

#include "reduce.h"
#include "vm.h"

/* A JSON string literal with escapes. */
void json_string(FILE *out, const char *s);

/* Print one trace line: step number (first instruction of a step only),
 * thread, source line, instruction as written, annotations. */
void report_trace_line(FILE *out, const vm_program *p, const trace *t,
                       const trace_entry *e);

/* One line per thread that has not ended: where it stands and what it
 * waits for (vm_describe_block), marked when it is at an end label. */
void report_blocked_threads(FILE *out, const vm_program *p, const uint8_t *s);

/* For a lock-discipline, race or unshared-variable error: the earlier
 * accesses that led to it, from the replayed trace (explain.c). Text: lines
 * after the error's location; JSON: fields of the error object
 * ("element", "locks_held", "earlier_accesses"), each starting with a
 * comma. Nothing when the trace holds no detector report. */
void report_accesses_text(FILE *out, const vm_program *p, const trace *t);
void report_accesses_json(FILE *out, const vm_program *p, const trace *t);

/* One random interleaving, one instruction per step. Returns the exit
 * status: 0 all threads ended (or a valid end), 1 deadlock or error, 3 step
 * limit. */
int simulate_run(const vm_program *p, unsigned long long seed,
                 unsigned long long max_steps, FILE *out);

#endif
