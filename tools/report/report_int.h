/* report_int.h: private to tools/report/. What its files share besides
 * the interface (report.h): the sentences about a run (run_notes.c), the
 * statistics block (stats_text.c), the instruction and note of a trace
 * line (trace_line.c), the whole state after a step (report_state.c), the
 * detectors' explanations (explain.c), the hints (hint.c,
 * hint_livelock.c) and the view of a trace (trace_view.c). */
#ifndef MCHECK_TOOLS_REPORT_INT_H
#define MCHECK_TOOLS_REPORT_INT_H

#include "common.h"
#include "report.h"

/* ---- the run (run_notes.c) ---------------------------------------------- */

/* How the reports say why the search stopped. */
const char *stop_text(stop_reason s);
/* What the run's options leave out, one sentence each (text: "note: "
 * lines after the options line; JSON: the "notes" array): the reduced
 * search with --race=eraser keeps every LD' violation, not every Eraser
 * report (only LD' is what the reduction preserves, Stoller's Theorem 9);
 * with --race=off the reduced search trusts the model to follow the
 * discipline (RACE_OFF_NOTE). Returns how many it set in notes[0 .. max). */
#define REPORT_NOTES_MAX 4
#define RACE_OFF_NOTE                                                                            \
    "--race=off: nothing checks the locking discipline, which the reduced search relies on "  \
    "(Stoller's Theorem 9): in a program with a data race it may miss an error; --race=ld "    \
    "(the default) checks it, --reduce=none needs no discipline"
int report_run_notes(const explore_options *eo, const char **notes, int max);
/* The instructions a `progress*` label names (--liveness=npc: none, and
 * every cycle is a non-progress cycle; the reports say so). */
uint32_t report_progress_labels(const vm_program *p);
/* --liveness's name in the reports: "npc" or "starvation". */
const char *report_liveness_name(const explore_options *eo);
/* Why a path was not shortened (the text after "not shortened: "), into
 * buf; false when it was shortened or not tried (sh NULL, or one step). */
bool report_not_shortened(const shorten_stats *sh, char *buf, size_t n);

/* ---- an error as JSON (report_json.c) ----------------------------------- */

/* One error as a JSON object (also --trace-json); `t` is NULL when the
 * trace could not be replayed for lack of memory; `adapting`: the run used
 * --adapt (its hint does not suggest it again); `all`: --trace=all, else
 * the compact trace; `sh`: how its path was shortened (NULL: not tried). */
void report_error_json_mode(FILE *out, const vm_program *p, const explore_error *er,
                            const trace *t, bool adapting, bool all, const shorten_stats *sh);

/* ---- the statistics (stats_text.c) ------------------------------------- */

/* The text report's "statistics:" block. */
void report_stats_text(FILE *out, const explore_options *eo, const explore_result *r);
/* After "search incomplete: memory limit reached": the limit, the part
 * that filled it, every part as --memlimit counts it, and what to try. */
void report_memlimit_text(FILE *out, const explore_options *eo, const explore_result *r);

/* ---- a trace line (trace_line.c) --------------------------------------- */

/* The instruction at `pc` of the body thread `tid` runs in state `s`, or NULL
 * if there is none (a trace that did not replay may end in a state where the
 * thread was never spawned). */
const vm_insn *report_insn_at(const vm_program *p, const uint8_t *s, int tid, uint32_t pc);
/* The instruction of a trace entry, or a placeholder "?" at line 0. */
const vm_insn *report_entry_insn(const vm_program *p, const trace *t, const trace_entry *e);
/* The instruction thread `tid` stands at in `s`, or the placeholder. */
const vm_insn *report_thread_insn(const vm_program *p, const uint8_t *s, int tid);
/* Annotation of a trace entry: the value a choose picked, the re-acquire;
 * "" when there is none. */
void report_entry_note(const trace_entry *e, const vm_insn *in, char *buf, size_t n);

/* The note of a trace line: what the instruction did with values, from
 * its trace_effect ("meals[1]: 0 -> 1", "fork[2]", "m = 3"), or without one
 * (--simulate) report_entry_note()'s; "" when there is none. */
#define REPORT_NOTE_MAX 160
void report_trace_note(const vm_program *p, const trace *t, const trace_entry *e, char *buf,
                       size_t n);
/* The column notes start at: the longest instruction text with a note of
 * at most REPORT_NOTE_COLUMN characters (a longer one pushes its own note
 * right). */
#define REPORT_NOTE_COLUMN 28
int report_trace_width(const vm_program *p, const trace *t);
/* The name of register slot r of the body entry e's thread runs. */
const char *report_reg_name(const vm_program *p, const trace *t, const trace_entry *e,
                            uint32_t r);
/* How a value operand is named in a note: its register's name, "self" or
 * "tid"; NULL for a constant. */
const char *report_operand_name(const vm_program *p, const trace *t, const trace_entry *e,
                                const vm_operand *o);
/* The object an effect resolved: lock element or global element `fx->obj`
 * by name, or NAME[idx] when the index was out of range. */
/* The name of the cond a csignal / cbroadcast named ("c", "cv[2]"). */
void report_fx_cond(const vm_program *p, const vm_insn *in, const trace_effect *fx, char *buf,
                    size_t n);
void report_fx_object(const vm_program *p, const vm_insn *in, const trace_effect *fx, bool lock,
                      char *buf, size_t n);

/* The whole state `s` after trace step `step` (report_state.c,
 * --trace-states): text, an indented block "state after step N:" for the
 * lines under a step; JSON, one object of an error's "states" array. */
void report_state_text(FILE *out, const vm_program *p, const uint8_t *s, uint32_t step);
void report_state_json(FILE *out, const vm_program *p, const uint8_t *s, uint32_t step);
/* For a lock-discipline, race or unshared-variable error: the earlier
 * accesses that led to it, from the replayed trace (explain.c). Text: lines
 * after the error's location; JSON: fields of the error object
 * ("element", "locks_held", "earlier_accesses"), each starting with a
 * comma. Nothing when the trace holds no detector report. */
void report_accesses_text(FILE *out, const vm_program *p, const trace *t);
/* The index of the trace entry whose access the detector reported. */
bool report_reported_entry(const trace *t, uint32_t *at);

/* The happens-before check over a lock-discipline report's own trace
 * (hb_trace.c): whether two accesses to the reported element (entry `at`)
 * race in it (then entries `first` and `second`, the earliest such pair by
 * its later access), or all are ordered. False when it cannot tell (a
 * bounded trace, effects not recorded, no memory). */
typedef struct report_hb {
    bool race;
    uint32_t first, second;
    uint32_t accesses;
    bool one_thread; /* every access to the element in the trace is by one thread */
} report_hb;
bool report_hb_check(const vm_program *p, const trace *t, uint32_t at, report_hb *out);

/* The hint of a lock-discipline error (hint.c): the pattern the search saw
 * and the declaration or option that fits it, then (unless `adapting`,
 * the run's --adapt) what --adapt does and its warning. Returns the number of
 * lines in h (0 for any other error). */
#define REPORT_HINT_MAX 1024
typedef struct report_hints {
    int n;
    char line[2][REPORT_HINT_MAX];
} report_hints;
int report_hint(const vm_program *p, const explore_error *er, const trace *t, bool adapting,
                report_hints *h);
void report_accesses_json(FILE *out, const vm_program *p, const trace *t);
/* The hint of a BoundedInvis error (hint_livelock.c; report_hint() calls
 * it): the variables the looping thread spins on and the fix, or that the
 * loop never ends. Returns the number of lines (0: no loop found). */
int report_livelock_hint(const vm_program *p, const explore_error *er, const trace *t,
                         report_hints *h);

/* The hint of a run stopped by a resource limit (hint_counter.c): a live
 * thread of the state the search stopped in whose register is large and
 * computed from itself (a counter that makes every state new). False when
 * none (or the search kept no such state). */
bool report_counter_hint(const vm_program *p, const explore_result *r, char *buf, size_t n);

/* The hint of a run a limit stopped with no error found (hint_hunt.c): the
 * bug-hunting searches the run's options allow (--swarm 0, --search=stateless
 * --delay-bound 0..2). False when none applies. */
bool report_hunt_hint(const explore_options *eo, const explore_result *r, char *buf, size_t n);
/* A stopped run's hint, the one both reports print: the counter's (the
 * model is at fault) if any, else the hunt's. */
bool report_stop_hint(const vm_program *p, const explore_options *eo, const explore_result *r,
                      char *buf, size_t n);

/* ---- what a report prints of a trace (trace_view.c) -------------------- */

/* One printed line of a trace: an entry, or a line standing for several. */
typedef enum trace_item_kind {
    TRACE_ITEM_ENTRY,   /* t->entries[entry] */
    TRACE_ITEM_REPEAT,  /* a loop in one step: after its first iteration
                           (lines line_lo..line_hi), `times` more iterations
                           of `instructions` in all, then its last one */
    TRACE_ITEM_STEPS,   /* steps step_lo..step_hi, then they repeat `times`
                           more times (`steps` steps, `instructions`), then
                           their last repetition */
    TRACE_ITEM_GAP,     /* `instructions` of a long step the replay did not
                           keep (reduce.h, `trace`) */
    TRACE_ITEM_ELIDED,  /* the view was too long: `lines` lines of it, with
                           `instructions`, not printed */
} trace_item_kind;

typedef struct trace_item {
    trace_item_kind kind;
    uint32_t entry;
    int line_lo, line_hi;
    uint32_t step_lo, step_hi;
    uint64_t times, steps, instructions, lines;
} trace_item;

typedef struct trace_view {
    trace_item *items;
    uint32_t n;
} trace_view;

/* The default bound of a compact view, in lines. */
#define TRACE_VIEW_LINES 1000
/* The lines of trace t to print: with `all` (--trace=all) every recorded
 * entry (and the gaps the replay left); else (--trace=compact) loops and
 * repeating steps folded and at most max_lines lines (0: no bound).
 * Returns 0, or -1 out of memory. Free with trace_view_free(). */
int trace_view_build(const vm_program *p, const trace *t, bool all, uint32_t max_lines,
                     trace_view *v);
void trace_view_free(trace_view *v);

/* n with thousands separators ("49,998"), in buf. */
const char *report_count(uint64_t n, char *buf, size_t size);

#endif
