/* html_int.h: private to the --trace-html page (report_html.c,
 * report_html_walk.c, report_html_style.c): the walk over a trace's rows,
 * the page's style sheet and its script. */
#ifndef MCHECK_TOOLS_REPORT_HTML_INT_H
#define MCHECK_TOOLS_REPORT_HTML_INT_H

#include "report_int.h"

#define HTML_LANES 12 /* lock bars per thread column (more: no bar) */

/* ---- the walk: who holds, waits and ends, row by row (report_html_walk.c) */

enum th_state { TH_UNBORN, TH_LIVE, TH_WAIT, TH_NOTIFIED, TH_ENDED };

/* One lock bar of a thread's column: lock element `lock` held from row
 * `from` to row `to` (UINT32_MAX while held); free for another lock from
 * the row after `to`. */
typedef struct lane {
    int32_t lock;
    uint32_t from, to;
} lane;

typedef struct walk {
    const vm_program *p;
    const trace *t;
    uint32_t nrows;      /* rows of steps (the start row of --por included) */
    bool start_row;      /* entries of step 0 (--por) make row 0 */
    uint8_t *st;         /* enum th_state per thread */
    int32_t *wlock;      /* TH_WAIT, TH_NOTIFIED: the lock element */
    const vm_insn **wcv; /* TH_WAIT, TH_NOTIFIED after a cwait: the cwait (its
                            cond named with wcvi), else NULL */
    int32_t *wcvi;       /* the cond's index when the cwait writes it as a
                            number, else -1 */
    uint32_t *born;      /* the row a spawned thread was spawned in */
    uint32_t *next;      /* per entry: the next entry of its thread (t->n: none) */
    uint32_t *pending;   /* per thread: its next entry not walked yet */
    int32_t *holder;     /* per lock element: the thread, -1 free */
    lane *lanes;         /* nthreads * HTML_LANES */
    int *nlanes;         /* per thread: lanes it ever used */
    int *col;            /* per thread: 1 if it has a column */
    bool *seen_lock;     /* locks some thread held: the legend */
} walk;

/* A walk before the first step. False: out of memory. */
bool html_walk_init(walk *w, const vm_program *p, const trace *t, uint32_t steps);
void html_walk_free(walk *w);
/* Back to the state before the first step; the lane counts, columns and
 * seen locks of an earlier walk stay (the rows print them). */
void html_walk_reset(walk *w);
/* Entry i of row r ran: who holds what, who waits, who ended. */
void html_walk_entry(walk *w, uint32_t i, uint32_t r);
/* Thread tid's HTML_LANES lanes. */
lane *html_lanes_of(const walk *w, int tid);
/* The instruction thread `tid` stands at after the rows walked so far, and
 * the object its operand names there (lock element or thread id; -1). */
const vm_insn *html_stands_at(const walk *w, int tid, int32_t *obj);

/* ---- the style sheet and the script (report_html_style.c) --------------- */

extern const char *const html_css;
/* Scrolls the page, once loaded, to the failing row or the cycle. */
extern const char *const html_script;

#endif
