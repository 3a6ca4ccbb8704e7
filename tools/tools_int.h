/* tools_int.h: private to tools/. What the files of the mcheck tool share:
 * the names of option values (names.c), the text report (report_text.c),
 * the JSON report (report_json.c), the detector explanations (explain.c)
 * and the random simulation (simulate.c). mcheck.c, the command line, calls
 * them; none of them parses options or decides a verdict. */
#ifndef MCHECK_TOOLS_INT_H
#define MCHECK_TOOLS_INT_H

#include <stdio.h>

#include "reduce.h"
#include "vm.h"

/* ---- names (names.c): one table per enumeration the tool names ---------- */

/* A name and its enum value; tables end with {NULL, 0}. Verdict and stop
 * reason names are reduce/'s (verdict_name, stop_reason_name), store kinds
 * statestore/'s (store_kind_name): these are the ones only tools/ names. */
typedef struct name_value {
    const char *name;
    int value;
} name_value;

const name_value *reduce_names(void);    /* --reduce=compose|none */
const name_value *race_names(void);      /* --race=off|ld|eraser|goldilocks */
const name_value *search_names(void);    /* --search=dfs|bfs */
const name_value *lookahead_names(void); /* --lookahead=auto|on|child|sibling|off */
/* --store: the kinds in --help's order, named by store_kind_name(). */
const name_value *store_names(void);

/* The name of `value` in t, or "?". */
const char *name_of(const name_value *t, int value);
/* Sets *value to the value named s; false if t has no such name. */
bool name_parse(const name_value *t, const char *s, int *value);
/* The names of t for a usage error: "'a', 'b' or 'c'". */
void name_expected(const name_value *t, char *buf, size_t n);
/* How the text report says why the search stopped. */
const char *stop_text(stop_reason s);

/* ---- reports (report_text.c, report_json.c) ----------------------------- */

/* What a report describes besides the search's result. */
typedef struct report_run {
    const char *model;                /* the file name as given */
    const explore_options *eo;        /* the search's options */
    const explore_adaptation *adapt;  /* --adapt: what it did; NULL without */
    const vm_define *defs;            /* the -D overrides, in order */
    size_t ndefs;
    bool trace_all;                   /* --trace=all: every recorded line */
    const shorten_stats *shorten;     /* how the first error's path was shortened
                                         (explore_shorten); NULL: not tried
                                         (--shorten=off, --search=bfs) */
    bool first_of_each;               /* --all-errors, text: only the first of
                                         errors alike (report_error_shown) is
                                         replayed and printed */
    double search_seconds;            /* the search alone (the statistics'
                                         time also covers shortening and
                                         the traces' replays) */
    double trace_seconds;             /* replaying the traces */
} report_run;

/* Error i of r is printed with its trace: always, but with first_of_each
 * only when no earlier error is alike: the same kind and cause, and for a
 * fault or report the same thread body, pc and element (every deadlock is
 * alike, as for shortening: explore_shorten). */
static inline bool report_error_shown(const report_run *run, const explore_result *r, uint32_t i)
{
    if (!run->first_of_each) return true;
    const explore_error *e = &r->errors[i];
    for (uint32_t j = 0; j < i; j++) {
        const explore_error *f = &r->errors[j];
        if (f->kind != e->kind || f->cause != e->cause) continue;
        if (e->cause == CAUSE_DEADLOCK ||
            (f->fault == e->fault && f->body == e->body && f->pc == e->pc && f->elem == e->elem))
            return false;
    }
    return true;
}

/* The replayed trace of error i, or NULL if it could not be replayed (out
 * of memory: trace_free() left it without a final state). */
static inline const trace *report_trace_of(const trace *traces, uint32_t i)
{
    return traces && traces[i].final_state ? &traces[i] : NULL;
}

/* The whole text report: options line, errors with traces, verdict,
 * statistics. traces[i] is error i's replay (report_trace_of). */
void report_text(FILE *out, const report_run *run, const vm_program *p,
                 const explore_result *r, const trace *traces);
/* What the run's options leave out, one sentence each (text: "note: "
 * lines after the options line; JSON: the "notes" array): the reduced
 * search with --race=eraser keeps every LD' violation, not every Eraser
 * report (only LD' is what the reduction preserves, Stoller's Theorem 9).
 * Returns how many it set in notes[0 .. max). */
#define REPORT_NOTES_MAX 4
int report_run_notes(const explore_options *eo, const char **notes, int max);
/* The instructions a `progress*` label names (--liveness=npc: none, and
 * every cycle is a non-progress cycle; the reports say so). */
uint32_t report_progress_labels(const vm_program *p);
/* --liveness's name in the reports: "npc" or "starvation". */
const char *report_liveness_name(const explore_options *eo);
/* One line per variable --adapt made volatile, and why. */
void report_adapt_text(FILE *out, const vm_program *p, const explore_adaptation *a);
/* The whole JSON report: one object and a newline. */
void report_json(FILE *out, const report_run *run, const vm_program *p,
                 const explore_result *r, const trace *traces);
/* One error as a JSON object (also --trace-json); `t` is NULL when the
 * trace could not be replayed for lack of memory; `adapting`: the run used
 * --adapt (its hint does not suggest it again); `sh`: how its path was
 * shortened (NULL: not tried). */
void report_error_json(FILE *out, const vm_program *p, const explore_error *er,
                       const trace *t, bool adapting, const shorten_stats *sh);

/* Why a path was not shortened (the text after "not shortened: "), into
 * buf; false when it was shortened or not tried (sh NULL, or one step). */
bool report_not_shortened(const shorten_stats *sh, char *buf, size_t n);

/* The --trace-json file: the error as report_error_json() prints it,
 * starting with what mcheck --replay needs besides its "path": "model",
 * "options" (the ones that shape the steps, and the -D overrides) and,
 * after --adapt, "adapted" (docs/usage.md). */
void report_trace_file_json(FILE *out, const report_run *run, const vm_program *p,
                            const explore_error *er, const trace *t);
/* report_error_json() with --trace=all (`all`) or the compact trace. */
void report_error_json_mode(FILE *out, const vm_program *p, const explore_error *er,
                            const trace *t, bool adapting, bool all, const shorten_stats *sh);
/* The fields of report_error_json() but "trace" and its status: the
 * caller wrote `{"trace":[...]` and report_trace_status_json() first
 * (--trace-json streams the whole trace while it is replayed, mcheck.c). */
void report_error_json_after_trace(FILE *out, const report_run *run, const vm_program *p,
                                   const explore_error *er, const trace *t);
/* One trace entry as a JSON object (the "trace" arrays' entries). */
void report_trace_entry_json(FILE *out, const vm_program *p, const trace *t,
                             const trace_entry *e);
/* ,"trace_instructions":N,"trace_complete":B,"trace_stopped":null|"time_limit" */
void report_trace_status_json(FILE *out, const trace *t);

/* A JSON string literal with escapes. */
void json_string(FILE *out, const char *s);

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
/* Print one trace line: step number (first instruction of a step only),
 * thread, source line, instruction as written and, padded to `width`,
 * "; " and its note (report_trace_note). */
void report_trace_line(FILE *out, const vm_program *p, const trace *t,
                       const trace_entry *e, int width);
/* The name of register slot r of the body entry e's thread runs. */
const char *report_reg_name(const vm_program *p, const trace *t, const trace_entry *e,
                            uint32_t r);
/* How a value operand is named in a note: its register's name, "self" or
 * "tid"; NULL for a constant. */
const char *report_operand_name(const vm_program *p, const trace *t, const trace_entry *e,
                                const vm_operand *o);
/* The object an effect resolved: lock element or global element `fx->obj`
 * by name, or NAME[idx] when the index was out of range. */
void report_fx_object(const vm_program *p, const vm_insn *in, const trace_effect *fx, bool lock,
                      char *buf, size_t n);

/* The whole state `s` after trace step `step` (report_state.c,
 * --trace-states): text, an indented block "state after step N:" for the
 * lines under a step; JSON, one object of an error's "states" array. */
void report_state_text(FILE *out, const vm_program *p, const uint8_t *s, uint32_t step);
void report_state_json(FILE *out, const vm_program *p, const uint8_t *s, uint32_t step);
/* The state trace_replay_states() kept after step `step`, or NULL. */
static inline const uint8_t *report_state_after(const vm_program *p, const trace *t,
                                                uint32_t step)
{
    if (!t->states || step < t->states_from || step - t->states_from >= t->nstates) return NULL;
    return t->states + (size_t)(step - t->states_from) * p->layout.size;
}
/* One error as the search's text report prints it (its location, the
 * detector's explanation, hints, trace, blocked threads), without the
 * search's notes on trace length: mcheck --replay's report. */
void report_error_text(FILE *out, const vm_program *p, const explore_error *er, const trace *t,
                       bool adapting);
/* A trace without an error: the "trace (N steps, M instructions):" header
 * and report_trace_line()s as the error report prints them (`steps`: the
 * scheduling decisions it followed). */
void report_trace_text(FILE *out, const vm_program *p, const trace *t, uint32_t steps);

/* One line per thread that has not ended: where it stands and what it
 * waits for (vm_describe_block), marked when it is at an end label. */
void report_blocked_threads(FILE *out, const vm_program *p, const uint8_t *s);

/* For a lock-discipline, race or unshared-variable error: the earlier
 * accesses that led to it, from the replayed trace (explain.c). Text: lines
 * after the error's location; JSON: fields of the error object
 * ("element", "locks_held", "earlier_accesses"), each starting with a
 * comma. Nothing when the trace holds no detector report. */
void report_accesses_text(FILE *out, const vm_program *p, const trace *t);
/* The index of the trace entry whose access the detector reported. */
bool report_reported_entry(const trace *t, uint32_t *at);

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
/* The option or event that stops a replay: "--timelimit", "--memlimit". */
const char *report_stop_option(stop_reason s);
/* "trace: not complete: replay stopped by --timelimit after N
 * instructions" when a limit stopped t's replay; nothing otherwise. */
void report_trace_stopped_text(FILE *out, const trace *t);

/* ---- the HTML page (report_html.c) -------------------------------------- */

/* --trace-html: one self-contained page of error 0 of r and its replay
 * (report_trace_of(traces, 0)), or a page saying that no error was found.
 * Returns 0, or -1 with errno ENOMEM (the page is then incomplete). Write
 * errors are the caller's to find (ferror). */
int report_html(FILE *out, const report_run *run, const vm_program *p, const explore_result *r,
                const trace *traces);
/* ---- replay (replay_cli.c) --------------------------------------------- */

/* mcheck --replay FILE MODEL: what the command line gives it. */
typedef struct replay_request {
    const char *file;           /* the --trace-json file or --json report */
    const char *model;
    unsigned long long error;   /* --replay-error K: error K of a report,
                                   from 1 (0: not given, the first) */
    const explore_options *eo;  /* the command line's: reduce, race, por and
                                   max_invisible where given, the limits */
    bool reduce_set, race_set, por_set, max_invisible_set; /* given */
    bool spurious;              /* --spurious-wakeups given */
    const vm_define *defs;      /* -D: override the recorded ones by name */
    size_t ndefs;
    bool json;                  /* --json: a JSON report of the replay */
    const char *trace_json;     /* --trace-json: the replayed error's file */
} replay_request;

/* Read the trace, assemble the model with its recorded options, replay
 * the path (trace_replay) and report the outcome. Returns the exit status:
 * 1 an error occurred (the recorded one or another), 0 none, 2 a bad file,
 * a contradicting option or a path that cannot be followed, 3 out of
 * memory. */
int replay_run(const replay_request *rq);

/* The whole file at `path` (at most 1 GiB), or NULL with *nomem telling
 * out of memory from an error reading it (errno) (mcheck.c). */
char *tool_read_file(const char *path, size_t *len, bool *nomem);

/* ---- simulation (simulate.c) ------------------------------------------- */

/* One random interleaving, one instruction per step. Returns the exit
 * status: 0 all threads ended (or a valid end), 1 deadlock or error, 3 step
 * limit. */
int simulate_run(const vm_program *p, unsigned long long seed,
                 unsigned long long max_steps, FILE *out);

#ifdef MCHECK_MPI
/* ---- mcheck-mpi (mcheck_mpi.c) ------------------------------------------ */
/* mcheck.c's main, renamed: mcheck_mpi.c's main runs it on every rank. */
int mcheck_main(int argc, char **argv);
/* This process's rank in MPI_COMM_WORLD. */
int mcheck_mpi_rank(void);
/* Collective, once per rank: true if every rank says ok (it is about to
 * search). A rank that returns from mcheck_main() without calling it calls
 * it with false on the way out, so the others never wait for it. */
bool mcheck_mpi_ready(bool ok);
#endif

#endif
