/* trace.h: event traces, their straight-line programs (SLPs) and the race
 * analyses on both (issue 32). The analyses on the grammar are ZipTrack's
 * (Kini, Mathur and Viswanathan, "Data race detection on compressed
 * traces", ESEC/FSE 2018: happens-before races, section 3; Eraser-style
 * lockset violations, section 4), read closely in
 * ../shared/seeds/notes-ratcop-ziptrack.md part A; the analyses on the
 * expanded stream (vector clocks, Goldilocks, the Eraser discipline) are
 * their baseline and their oracle.
 *
 * Vocabulary (notes A1). A trace is a sequence of events <t:op(obj)>: r(x),
 * w(x) on variables, acq(l), rel(l) on re-entrant locks, fork(u), join(u)
 * on threads. Threads, locks and variables are numbered densely from 0 in
 * the order their names first appear; each kind has its own name table.
 * An SLP has one rule per nonterminal; a rule's body is two or more
 * symbols (Sequitur's output is not in CNF: analyses fold bodies left,
 * notes A2); it generates exactly one string, the trace. The alphabet
 * (terminals) is the set of distinct events (thread, op, obj, loc).
 *
 * This module knows nothing of models, searches or the interpreter: the
 * recorder that turns a simulation into events (notes A8's encodings) is
 * the caller's. Positions in a trace are 0-based uint64 (a grammar can
 * generate 2^60 events). */
#ifndef MCHECK_TRACE_H
#define MCHECK_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum tr_op {
    TR_READ,  /* r(x): obj a variable */
    TR_WRITE, /* w(x) */
    TR_ACQ,   /* acq(l): obj a lock */
    TR_REL,   /* rel(l) */
    TR_FORK,  /* fork(u): obj a thread */
    TR_JOIN,  /* join(u) */
    TR_NOPS
} tr_op;

/* One event. loc indexes tr_names.locs (a source location as the input
 * gave it, e.g. "model.bc:14" or RAPID's LOC field); TR_NO_LOC if none. */
typedef struct tr_event {
    uint32_t thread;
    uint32_t obj;
    uint32_t loc;
    uint8_t op; /* tr_op */
} tr_event;

#define TR_NO_LOC UINT32_MAX

/* A table of names, index = id; idx is an open-addressing hash index over
 * v (slot = id + 1, 0 empty; icap a power of two or 0), kept by
 * tr_intern(). A zeroed table is empty. */
typedef struct tr_table {
    char **v;
    uint32_t n, cap;
    uint32_t *idx;
    uint32_t icap;
} tr_table;

typedef struct tr_names {
    tr_table threads, locks, vars, locs;
} tr_names;

/* An expanded trace. */
typedef struct tr_trace {
    tr_names names;
    tr_event *ev;
    uint64_t n, cap;
} tr_trace;

/* A straight-line program. Symbol s < nterms is terminal terms[s]; s >=
 * nterms is the rule s - nterms. Rule 0 generates the trace. Rule r's body
 * is sym[body[r] .. body[r + 1]). Every rule is reachable from rule 0, the
 * rules form a DAG, and every rule but rule 0 has a body of two or more
 * symbols (rule 0 may have one, or none: the empty trace). */
typedef struct tr_slp {
    tr_names names;
    tr_event *terms;
    uint32_t nterms;
    uint32_t nrules;
    uint64_t *body; /* nrules + 1 offsets into sym */
    uint32_t *sym;
} tr_slp;

/* ---- names, traces, grammars (trace.c) --------------------------------- */

/* The id of `name` in t, added if new; UINT32_MAX when out of memory. */
uint32_t tr_intern(tr_table *t, const char *name, size_t len);
void tr_names_free(tr_names *n);
bool tr_push(tr_trace *t, tr_event e); /* false: out of memory */
void tr_trace_free(tr_trace *t);
void tr_slp_free(tr_slp *g);
/* The length of the string each rule generates (saturating at UINT64_MAX),
 * into len[nrules]; false when out of memory. */
bool tr_slp_lengths(const tr_slp *g, uint64_t *len);
/* Call fn on every event of the expanded trace in order, with its
 * position; stops early (returning false) when fn returns false. No
 * recursion (a grammar may be deep). */
bool tr_slp_each(const tr_slp *g, bool (*fn)(void *ctx, uint64_t pos, const tr_event *e),
                 void *ctx);

/* ---- input and output (rapid.c, slp_file.c) ---------------------------- */

/* Read a trace in RAPID's text format: one event per line,
 * `THREAD|OP(ARG)|LOC` with OP one of r w acq rel fork join (LOC
 * optional). Errors go to diag as `FILE:LINE: error: ...`; returns false
 * on bad input or out of memory (*nomem says which). */
bool tr_read_rapid(FILE *in, const char *file, FILE *diag, tr_trace *out, bool *nomem);
/* The same, streaming: each event to fn (names interned into *names) as
 * its line is read, none after the first error; fn returning false means
 * out of memory. */
bool tr_read_rapid_each(FILE *in, const char *file, FILE *diag, tr_names *names,
                        bool (*fn)(void *ctx, const tr_event *e), void *ctx, bool *nomem);
void tr_write_rapid(FILE *out, const tr_names *n, const tr_event *e);
/* The name of an op as RAPID spells it ("r", "w", "acq", "rel", "fork",
 * "join"; "?" out of range), and the op named by the len bytes at s
 * (TR_NOPS if none). */
const char *tr_op_name(unsigned op);
unsigned tr_op_parse(const char *s, size_t len);
/* The table an op's obj indexes: vars for r and w, locks for acq and rel,
 * threads for fork and join. */
const tr_table *tr_obj_table(const tr_names *n, unsigned op);

/* The grammar file format (docs/usage.md, "Traces"): read and write. A
 * file is recognised by its first line. Errors as for tr_read_rapid(). */
bool tr_slp_is_file(FILE *in); /* peeks and rewinds */
bool tr_slp_read(FILE *in, const char *file, FILE *diag, tr_slp *out, bool *nomem);
bool tr_slp_write(FILE *out, const tr_slp *g);

/* ---- building grammars (sequitur.c, slp_build.c) ------------------------ */

/* Sequitur (Nevill-Manning and Witten 1997; notes A4), online: push events
 * one at a time; finish gives the grammar (names moved into it). */
typedef struct tr_sequitur tr_sequitur;
tr_sequitur *tr_sequitur_new(void);
bool tr_sequitur_push(tr_sequitur *q, const tr_event *e);
bool tr_sequitur_finish(tr_sequitur *q, tr_names *names, tr_slp *out); /* frees q */
/* The trivial grammars of a trace, for the differential tests: the left
 * comb (A[1,i] -> A[1,i-1] e_i) and a random bracketing (seeded). */
bool tr_slp_comb(const tr_trace *t, tr_slp *out);
bool tr_slp_random(const tr_trace *t, uint64_t seed, tr_slp *out);

/* ---- well-formedness (wellformed.c; notes A1, A8) ----------------------------- */

/* The analyses assume what ZipTrack's paper assumes (A1) and what a real
 * run gives: a thread is forked at most once, never by itself, before any
 * event of its own; it is joined at most once, by the thread that forked it
 * (a thread never forked, one that was running from the start, may be
 * joined once by any other thread), and has no events after its join; a
 * lock is released only by a thread that holds it (re-entrantly counted)
 * and never acquired while another thread holds it. Two joiners of one
 * thread would make the grammar analysis report false races (A8); a
 * release without its acquire breaks OpenAcq/OpenRel. A trace or grammar
 * that breaks a rule is bad input: the command line exits 2.
 *
 * On failure *pos is the 0-based position of the offending event
 * (UINT64_MAX for a structural fault of a grammar) and why says what, as
 * "thread 'T2' is joined twice (by 'T1' and 'T3')". tr_slp_check() first
 * checks the grammar's structure (symbols in range, no cycle, bodies of two
 * or more symbols but rule 0's, event fields within the name tables), then
 * the rules above from per-rule summaries, in time linear in the grammar;
 * only a bad grammar is expanded, up to its first offending event. */
typedef enum tr_wf { TR_WF_OK, TR_WF_BAD, TR_WF_NOMEM } tr_wf;
tr_wf tr_check_wellformed(const tr_trace *t, uint64_t *pos, char *why, size_t n);
tr_wf tr_slp_check(const tr_slp *g, uint64_t *pos, char *why, size_t n);

/* ---- analyses ------------------------------------------------------------ */

/* A happens-before race: two conflicting events (different threads, one a
 * write, the same variable) unordered by happens-before (notes A1), at
 * positions first < second. Which racing pair is named depends on the
 * analysis (an SLP analysis stops at the first rule where one appears,
 * notes A2 "Driver"); every analysis finds one iff the trace has one. */
typedef struct tr_race {
    bool found;
    uint64_t first, second;
} tr_race;

/* An Eraser-style lockset violation (notes A1, ZipTrack's variant with the
 * dummy locks Λ and Λt): a variable whose locksets have an empty
 * intersection. Every analysis names the same pair, the one Eraser's
 * report points at: `second` is the first access of the trace at which
 * the accesses of `var` so far share no lock (nor Λ, nor one Λt); `first`
 * is the earliest access of var such that the accesses up to it, with
 * `second`, share none (first < second; often the one access that
 * conflicts with second, but an empty intersection may take three). */
typedef struct tr_violation {
    bool found;
    uint32_t var;
    uint64_t first, second;
} tr_violation;

/* On the expanded stream (oracle.c): vector clocks (Djit+), Goldilocks
 * (notes A1's update rules) and the Eraser discipline. false: out of
 * memory. */
bool tr_race_vc(const tr_trace *t, tr_race *out);
bool tr_race_goldilocks(const tr_trace *t, tr_race *out);
bool tr_lockset(const tr_trace *t, tr_violation *out);
/* The same on a grammar's trace, walked in order and never stored (memory:
 * the analysis' state and the walk's stack, not the trace). */
bool tr_race_vc_slp(const tr_slp *g, tr_race *out);
bool tr_race_goldilocks_slp(const tr_slp *g, tr_race *out);
bool tr_lockset_slp(const tr_slp *g, tr_violation *out);

/* On the grammar, never expanding it (slp_hb.c: notes A2, with the witness
 * extraction; slp_lockset.c: notes A3). false: out of memory. Time linear
 * in the grammar (times the set sizes), never in the trace; memory: the
 * summaries of the rules whose parents are not all done. They assume a
 * well-formed input (tr_slp_check()): on a grammar with a cycle they
 * report nothing; on a trace that breaks the rules their verdict may be
 * wrong (A8). The race's positions are absolute (the rule's first
 * occurrence plus the offsets inside it), saturating at UINT64_MAX. */
bool tr_slp_race(const tr_slp *g, tr_race *out);
/* The lockset witness is found after the verdict by two descents from rule
 * 0 over prefix summaries (slp_lockset.c), holding every rule's summary:
 * memory bounded by the grammar, time linear in it. */
bool tr_slp_lockset(const tr_slp *g, tr_violation *out);

#endif
