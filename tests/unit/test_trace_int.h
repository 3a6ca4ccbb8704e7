/* test_trace_int.h: what the trace module's unit tests share (one
 * executable, test_trace): building traces and grammars by hand, sets by
 * name, and the case functions of each file. test_trace.c holds main() and
 * the worked examples (notes A2, A3, A7), test_trace_sequitur.c Sequitur
 * and the grammar builders, test_trace_diff.c the differential and
 * exponential cases. */
#ifndef MCHECK_TEST_TRACE_INT_H
#define MCHECK_TEST_TRACE_INT_H

#include "slp_int.h"
#include "testutil.h"

#include <stdint.h>

/* Append <thread:op(obj)> to t, interning the names. */
void ev(tr_trace *t, const char *thread, tr_op op, const char *obj);
/* A grammar over t's events from rule texts "NAME -> SYM ...", the first
 * rule the start; a SYM "eK" is event K of t (1-based), else a rule's
 * name. Names are copied. false on a malformed text. */
bool slp_by_hand(const tr_trace *t, const char *const *rules, int n, tr_slp *g);
/* The rule of g named NAME in rules (its index), as slp_by_hand numbers them. */
uint32_t rule_no(const char *const *rules, int n, const char *name);
/* The expansion of g into out (names copied); false when out of memory. */
bool slp_expand(const tr_slp *g, tr_trace *out);
/* Whether set s (nw words; NULL = ∅) is exactly the elements named in
 * `want`, space-separated: for HB, thread names then "l:NAME" for locks;
 * for locksets lock names, "Λ" and "Λ<thread>". */
bool hb_set_is(const tr_hb_ctx *c, const tr_names *n, const uint64_t *s, const char *want);
bool ls_set_is(const tr_ls_ctx *c, const tr_names *n, const uint64_t *s, const char *want);

void sequitur_known_outputs(void);
void sequitur_round_trips(void);
void builders_round_trip(void);
void differential_random_traces(void);
void wellformed_differential(void);
void deep_comb(void);
void exponential_grammars(void);
void exponential_racy(void);

#endif
