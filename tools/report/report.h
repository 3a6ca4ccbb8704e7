/* report.h: the reports' interface, what the command line (tools/cli/)
 * calls: the text report (report_text.c), the JSON report and the
 * --trace-json file (report_json.c), the --trace-html page (report_html.c),
 * mcheck --replay's error and trace (report_text.c) and --simulate's trace
 * lines (trace_line.c). A report prints what it is given: it parses no
 * option, decides no verdict and replays nothing. report_int.h is what the
 * files of tools/report/ share besides. */
#ifndef MCHECK_TOOLS_REPORT_H
#define MCHECK_TOOLS_REPORT_H

#include <stdio.h>

#include "reduce.h"
#include "vm.h"

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

/* ---- the text and JSON reports (report_text.c, report_json.c) ---------- */

/* The whole text report: options line, errors with traces, verdict,
 * statistics. traces[i] is error i's replay (report_trace_of). */
void report_text(FILE *out, const report_run *run, const vm_program *p,
                 const explore_result *r, const trace *traces);
/* One line per variable --adapt made volatile, and why. */
void report_adapt_text(FILE *out, const vm_program *p, const explore_adaptation *a);
/* The whole JSON report: one object and a newline. */
void report_json(FILE *out, const report_run *run, const vm_program *p,
                 const explore_result *r, const trace *traces);

/* The --trace-json file: the error as report_error_json_mode() prints it,
 * starting with what mcheck --replay needs besides its "path": "model",
 * "options" (the ones that shape the steps, and the -D overrides) and,
 * after --adapt, "adapted" (docs/usage.md). */
void report_trace_file_json(FILE *out, const report_run *run, const vm_program *p,
                            const explore_error *er, const trace *t);
/* The fields of report_error_json_mode() but "trace" and its status: the
 * caller wrote `{"trace":[...]` and report_trace_status_json() first
 * (--trace-json streams the whole trace while it is replayed, mcheck.c). */
void report_error_json_after_trace(FILE *out, const report_run *run, const vm_program *p,
                                   const explore_error *er, const trace *t);
/* One trace entry as a JSON object (the "trace" arrays' entries). */
void report_trace_entry_json(FILE *out, const vm_program *p, const trace *t,
                             const trace_entry *e);
/* ,"trace_instructions":N,"trace_complete":B,"trace_stopped":null|"time_limit" */
void report_trace_status_json(FILE *out, const trace *t);

/* ---- mcheck --replay and --simulate (report_text.c, trace_line.c) ------ */

/* Print one trace line: step number (first instruction of a step only),
 * thread, source line, instruction as written and, padded to `width`,
 * "; " and its note (report_trace_note). */
void report_trace_line(FILE *out, const vm_program *p, const trace *t,
                       const trace_entry *e, int width);

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

#endif
