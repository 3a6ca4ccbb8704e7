/* report_html.c: --trace-html FILE, the first error's replayed trace as one
 * self-contained HTML page (inline CSS and one inline script; no script,
 * font or image fetched). A header (verdict and model; options and verdict
 * on one line; message, hints, path length and a link to the failing step
 * or the cycle), then a table with one column per thread and one row per
 * scheduling step: the instructions of the thread that moved, each with
 * report_trace_note()'s note; the locks each thread holds as coloured bars
 * from the acquire's row to the release's; waits and blocked acquires in
 * the waiting thread's column; the failing step marked and, for a deadlock,
 * a last row with what each thread waits for (vm_describe_block); for a
 * lasso (--liveness, --ltl) no failing step but a row marking where the
 * cycle starts and the cycle's rows marked, its last step as the one that
 * closes it. The table scrolls in a pane under the header that opens at its
 * end (the failing step) and, by the script, at the cycle (see
 * report_html_style.c). A long trace keeps its first and last rows
 * (HTML_HEAD_ROWS, HTML_TAIL_ROWS) and a long step its first and last
 * instructions; the page says what it left out (--trace-json has it all).
 * It prints what it is given: it replays nothing, decides nothing. The walk
 * over the rows is report_html_walk.c's, the style sheet and the script
 * report_html_style.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"
#include "store.h"

#define HTML_HEAD_ROWS 1000 /* a longer trace: its first rows ... */
#define HTML_TAIL_ROWS 1000 /* ... and its last, 2000 at most */
#define HTML_CELL_HEAD 20   /* a longer step: its first instructions ... */
#define HTML_CELL_TAIL 10   /* ... and its last */
#define HTML_COLOURS 10     /* lock colours, by lock element */

/* Model text into HTML text or an attribute value. */
static void esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                fputs("&#xfffd;", out);
            else
                fputc(*s, out);
        }
    }
}

/* ---- the page ------------------------------------------------------------ */

/* What the search ran with, as the text report's first line says it. */
static void html_options(FILE *out, const report_run *run, const vm_program *p)
{
    const explore_options *eo = run->eo;
    fprintf(out, "reduce=%s%s", reduce_mode_name(eo->reduce), eo->por ? "+por" : "");
    if (eo->race != LS_OFF) fprintf(out, ", race=%s", race_mode_name(eo->race));
    if (run->adapt) fprintf(out, ", adapt");
    if (p->spurious_wakeups) fprintf(out, ", spurious-wakeups");
    fprintf(out, ", store=%s, search=%s", store_kind_name(eo->store.kind),
            search_order_name(eo->search));
    if (eo->workers) fprintf(out, ", workers=%u", eo->workers);
    if (eo->max_depth) fprintf(out, ", max-depth=%" PRIu64, eo->max_depth);
    if (eo->liveness == LIVENESS_STARVATION)
        fprintf(out, ", liveness=starvation%s", eo->fair ? ", fair" : "");
    else if (eo->liveness)
        fprintf(out, ", liveness=npc");
    if (eo->ltl) {
        fprintf(out, ", ltl: <code>");
        esc(out, eo->ltl_text ? eo->ltl_text : "?");
        fprintf(out, "</code>");
    }
}

/* The page up to the header's content; `pane`: the page of a trace, whose
 * table scrolls in a pane under the header (the style sheet's body.pane). */
static void html_head(FILE *out, const report_run *run, const char *what, bool pane)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"generator\" content=\"mcheck %s\">\n<title>mcheck: ",
            VM_VERSION);
    esc(out, what);
    fprintf(out, " in ");
    esc(out, run->model);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body%s>\n<header>\n", html_css,
            pane ? " class=\"pane\"" : "");
}

static void meta_row(FILE *out, const char *name, const char *id)
{
    fprintf(out, "<tr><th>%s</th><td id=\"%s\">", name, id);
}

/* The line under the title every page has: model, options, verdict. */
static void html_meta(FILE *out, const report_run *run, const vm_program *p,
                      const explore_result *r)
{
    fprintf(out, "<p class=\"run\"><span class=\"lb\">model</span><code id=\"model\">");
    esc(out, run->model);
    fprintf(out, "</code> &middot; <span class=\"lb\">options</span><span id=\"options\">");
    html_options(out, run, p);
    fprintf(out, "</span> &middot; <span class=\"lb\">verdict</span>"
                 "<span id=\"verdict\">%s (%s)</span></p>\n",
            verdict_name(r->verdict), stop_text(r->stop));
}

static void html_tail(FILE *out)
{
    fprintf(out, "</body>\n</html>\n");
}

/* The page of a search that found no error. */
static void html_no_error(FILE *out, const report_run *run, const vm_program *p,
                          const explore_result *r)
{
    bool complete = r->stop == STOP_COMPLETE;
    html_head(out, run, "no error found", false);
    fprintf(out, "<h1><span class=\"verdict %s\">%s</span>no error found</h1>\n",
            complete ? "ok" : "incomplete", verdict_name(r->verdict));
    html_meta(out, run, p, r);
    fprintf(out, "</header>\n<main>\n<p id=\"noerror\">%s</p>\n</main>\n",
            complete ? "The search was complete and found no error: there is no trace to show."
                     : "The search stopped before it was complete and found no error in the part "
                       "it searched: there is no trace to show.");
    html_tail(out);
}

/* The entry the error is about: the access the detector reported, or the
 * erring thread's last instruction; t->n for a deadlock. */
static uint32_t culprit_entry(const trace *t, const explore_error *er)
{
    uint32_t at;
    if (er->kind == VERDICT_DEADLOCK) return t->n;
    if (report_reported_entry(t, &at)) return at;
    for (uint32_t i = t->n; i-- > 0;)
        if (t->entries[i].tid == er->tid && t->entries[i].pc == er->pc) return i;
    return t->n;
}

/* Where the failing instruction is, as the text report's "in ... at" line. */
static void html_where(FILE *out, const vm_program *p, const explore_error *er, const trace *t)
{
    char name[64];
    const vm_insn *in = er->tid >= 0 ? report_insn_at(p, t->final_state, er->tid, er->pc) : NULL;
    if (!in) return;
    vm_thread_name(p, t->final_state, er->tid, name, sizeof name);
    meta_row(out, "where", "where");
    esc(out, name);
    fprintf(out, " at ");
    esc(out, p->filename);
    fprintf(out, ":%d: <code>", in->line);
    esc(out, in->text);
    fprintf(out, "</code></td></tr>\n");
}

/* report_accesses_text()'s explanation, through a memory stream. */
static void html_accesses(FILE *out, const vm_program *p, const trace *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    report_accesses_text(m, p, t);
    if (fclose(m) == 0 && buf && len) {
        meta_row(out, "explanation", "explanation");
        fprintf(out, "<pre>");
        esc(out, buf);
        fprintf(out, "</pre></td></tr>\n");
    }
    free(buf);
}

static void lock_name(const vm_program *p, int32_t l, char *buf, size_t n)
{
    if (l >= 0 && (uint32_t)l < p->nlocks)
        vm_lock_name(p, (uint32_t)l, buf, n);
    else
        snprintf(buf, n, "?");
}

static void thread_name(const walk *w, int tid, char *buf, size_t n)
{
    vm_thread_name(w->p, w->t->final_state, tid, buf, n);
}

/* The lock bars of thread `tid` in row r. */
static void html_bars(FILE *out, const walk *w, int tid, uint32_t r)
{
    char ln[64], tn[64];
    const lane *l = html_lanes_of(w, tid);
    for (int k = 0; k < w->nlanes[tid]; k++) {
        if (l[k].lock < 0 || l[k].from > r || l[k].to < r) continue;
        lock_name(w->p, l[k].lock, ln, sizeof ln);
        thread_name(w, tid, tn, sizeof tn);
        fprintf(out, "<i class=\"bar l%d k%d%s%s\" title=\"", k, l[k].lock % HTML_COLOURS,
                l[k].from == r ? " s" : "", l[k].to == r ? " e" : "");
        esc(out, tn);
        fprintf(out, " holds ");
        esc(out, ln);
        fprintf(out, "\"></i>");
    }
}

static void td_open(FILE *out, const walk *w, int tid, const char *cls)
{
    fprintf(out, "<td class=\"c%s%s", cls[0] ? " " : "", cls);
    if (w->nlanes[tid]) fprintf(out, " p%d", w->nlanes[tid]);
    fprintf(out, "\" data-tid=\"%d\">", tid);
}

/* One instruction line: source line, the instruction as written, a chip
 * naming the lock it took, dropped or waited on, and its note. */
static void html_insn(FILE *out, const walk *w, uint32_t i, bool bad, const char *msg)
{
    const vm_program *p = w->p;
    const trace_entry *e = &w->t->entries[i];
    const vm_insn *in = report_entry_insn(p, w->t, e);
    char note[REPORT_NOTE_MAX], ln[64] = "";
    report_trace_note(p, w->t, e, note, sizeof note);
    bool lock = e->reacquire || (vm_ops[in->op].flags & VM_F_LOCK);
    fprintf(out, "<div class=\"i%s\"%s><span class=\"ln\">%d</span><span><code>", bad ? " bad" : "",
            bad ? " id=\"culprit\"" : "", in->line);
    esc(out, in->text);
    fprintf(out, "</code><wbr>"); /* a narrow column puts the chips on the next line */
    if (lock && e->fx.recorded && e->fx.obj >= 0 && (uint32_t)e->fx.obj < p->nlocks) {
        lock_name(p, e->fx.obj, ln, sizeof ln);
        fprintf(out, "<span class=\"lk k%d\">", e->fx.obj % HTML_COLOURS);
        esc(out, ln);
        fprintf(out, "</span>");
    }
    if (note[0] && strcmp(note, ln) != 0) {
        const char *cls = in->op == VM_OP_store && !e->reacquire ? "w"
                          : in->op == VM_OP_load && !e->reacquire ? "r"
                          : lock ? "k" : "v";
        fprintf(out, "<span class=\"fx %s\">", cls);
        esc(out, note);
        fprintf(out, "</span>");
    }
    if (bad) {
        fprintf(out, "<span class=\"errmsg\"><br>&#10007; ");
        esc(out, msg);
        fprintf(out, "</span>");
    }
    fprintf(out, "</span></div>");
}

/* Thread tid's instructions among entries [b, e) (at most HTML_CELL_HEAD +
 * HTML_CELL_TAIL of them, and a line saying how many more ran). */
static void html_moves(FILE *out, const walk *w, int tid, uint32_t b, uint32_t e,
                       uint32_t bad, const char *msg)
{
    uint32_t n = 0, k = 0;
    for (uint32_t i = b; i < e; i++) n += w->t->entries[i].tid == tid;
    for (uint32_t i = b; i < e; i++) {
        if (w->t->entries[i].tid != tid) continue;
        if (n > HTML_CELL_HEAD + HTML_CELL_TAIL && k >= HTML_CELL_HEAD &&
            k < n - HTML_CELL_TAIL) {
            if (k == HTML_CELL_HEAD)
                fprintf(out, "<div class=\"cut\">&#8942; %" PRIu32 " more instructions of this step "
                             "left out (--trace-json has them all)</div>",
                        n - HTML_CELL_HEAD - HTML_CELL_TAIL);
            k++;
            continue;
        }
        html_insn(out, w, i, i == bad, msg);
        k++;
    }
}

/* The cell of a thread that did not move in row r. */
static void html_idle(FILE *out, const walk *w, int tid, uint32_t r)
{
    char ln[64], tn[64];
    int32_t obj;
    switch ((enum th_state)w->st[tid]) {
    case TH_UNBORN:
        td_open(out, w, tid, "nb");
        break;
    case TH_ENDED:
        td_open(out, w, tid, "gone");
        break;
    case TH_WAIT:
        lock_name(w->p, w->wlock[tid], ln, sizeof ln);
        if (w->wcv[tid]) { /* a cwait: the cond's wait set */
            const vm_lockdecl *d = &w->p->conddecls[w->wcv[tid]->cond];
            if (!d->is_array)
                snprintf(ln, sizeof ln, "%s", d->name);
            else if (w->wcvi[tid] >= 0)
                snprintf(ln, sizeof ln, "%s[%d]", d->name, (int)w->wcvi[tid]);
            else
                snprintf(ln, sizeof ln, "%s[..]", d->name);
        }
        td_open(out, w, tid, "wt");
        fprintf(out, "<span class=\"st\">waiting: in the wait set of ");
        esc(out, ln);
        fprintf(out, "</span>");
        break;
    case TH_NOTIFIED: {
        int32_t l = w->wlock[tid];
        lock_name(w->p, l, ln, sizeof ln);
        td_open(out, w, tid, "wt");
        fprintf(out, "<span class=\"st\">%s: to re-acquire ",
                w->wcv[tid] ? "signalled" : "notified");
        esc(out, ln);
        if (l >= 0 && (uint32_t)l < w->p->nlocks && w->holder[l] >= 0 && w->holder[l] != tid) {
            thread_name(w, w->holder[l], tn, sizeof tn);
            fprintf(out, ", held by ");
            esc(out, tn);
        }
        fprintf(out, "</span>");
        break;
    }
    case TH_LIVE: {
        const vm_insn *in = html_stands_at(w, tid, &obj);
        bool born = tid >= 0 && (uint32_t)tid >= w->p->nstatic && w->born[tid] == r;
        if (in && in->op == VM_OP_acquire && obj >= 0 && (uint32_t)obj < w->p->nlocks &&
            w->holder[obj] >= 0 && w->holder[obj] != tid) {
            lock_name(w->p, obj, ln, sizeof ln);
            thread_name(w, w->holder[obj], tn, sizeof tn);
            td_open(out, w, tid, "bl");
            fprintf(out, "<span class=\"st\">blocked: acquire of ");
            esc(out, ln);
            fprintf(out, ", held by ");
            esc(out, tn);
            fprintf(out, "</span>");
        } else if (in && in->op == VM_OP_join && obj >= 0 && (uint32_t)obj < w->p->nthreads &&
                   obj != tid && w->st[obj] != TH_ENDED) {
            thread_name(w, obj, tn, sizeof tn);
            td_open(out, w, tid, "bl");
            fprintf(out, "<span class=\"st\">joining ");
            esc(out, tn);
            fprintf(out, "</span>");
        } else if (born) {
            td_open(out, w, tid, "sp");
            fprintf(out, "<span class=\"st\">spawned</span>");
        } else {
            td_open(out, w, tid, "");
        }
        break;
    }
    }
    html_bars(out, w, tid, r);
    fprintf(out, "</td>");
}

/* The shared variables the row's stores changed. */
static void html_writes(FILE *out, const walk *w, uint32_t b, uint32_t e)
{
    char note[REPORT_NOTE_MAX];
    fprintf(out, "<td class=\"wr\">");
    for (uint32_t i = b; i < e; i++) {
        const trace_entry *en = &w->t->entries[i];
        const vm_insn *in = report_entry_insn(w->p, w->t, en);
        if (en->reacquire || in->op != VM_OP_store || !en->fx.done) continue;
        report_trace_note(w->p, w->t, en, note, sizeof note);
        fprintf(out, "<span class=\"wv\">");
        esc(out, note);
        fprintf(out, "</span><br>");
    }
    fprintf(out, "</td>");
}

/* What the rows mark: the failing row, or a lasso's cycle (rows nrows: none). */
typedef struct marks {
    uint32_t fail_row;  /* the row of the failing step */
    uint32_t cycle_row; /* a lasso: the row of the cycle's first step, er->cycle_start + 1 */
    uint32_t bad;       /* the failing entry (t->n: none) */
    const explore_error *er;
} marks;

static uint32_t ncolumns(const walk *w)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->p->nthreads; k++) n += w->col[k] != 0;
    return n + 2;
}

/* A lasso: the row before the first row of the cycle shown. */
static void html_cycle_mark(FILE *out, const walk *w, const marks *mk, uint32_t first_shown)
{
    const explore_error *er = mk->er;
    fprintf(out, "<tr class=\"cycmark\" id=\"cycle\" data-cycle-start=\"%" PRIu32 "\">"
                 "<td colspan=\"%" PRIu32 "\"><div>&#8635; the cycle starts here: steps %" PRIu32
                 " to %" PRIu32 " repeat forever (after step %" PRIu32 " the state is again the "
                 "state after step %" PRIu32 "%s; replayed and compared)",
            er->cycle_start + 1, ncolumns(w), er->cycle_start + 1, er->len, er->len,
            er->cycle_start, er->cycle_start ? "" : ", the initial state");
    if (first_shown != mk->cycle_row)
        fprintf(out, "; its steps before step %" PRIu32 " are among those left out above",
                first_shown + (w->start_row ? 0 : 1));
    fprintf(out, "</div></td></tr>\n");
}

static void html_row(FILE *out, const walk *w, uint32_t r, uint32_t b, uint32_t e,
                     const marks *mk)
{
    uint32_t step = w->start_row ? r : r + 1;
    bool fail = r == mk->fail_row, cyc = r >= mk->cycle_row && r < w->nrows;
    bool first = cyc && r == mk->cycle_row, last = cyc && r == w->nrows - 1;
    fprintf(out, "<tr class=\"step%s%s%s%s\" data-step=\"%" PRIu32 "\"%s><td class=\"sn\"",
            fail ? " fail" : "", cyc ? " cyc" : "", first ? " cs" : "", last ? " ce" : "", step,
            fail ? " id=\"fail\"" : "");
    if (last)
        fprintf(out, " title=\"the cycle's last step: after it the state is again the state "
                     "after step %" PRIu32 ", and step %" PRIu32 " follows\"",
                mk->er->cycle_start, mk->er->cycle_start + 1);
    fprintf(out, ">");
    if (step == 0)
        fprintf(out, "start");
    else
        fprintf(out, "%s%" PRIu32 "%s", fail ? "&#10007; " : first ? "&#8635; " : "", step,
                last ? " &#8634;" : "");
    fprintf(out, "</td>");
    for (uint32_t k = 0; k < w->p->nthreads; k++) {
        if (!w->col[k]) continue;
        bool moved = false;
        for (uint32_t i = b; i < e && !moved; i++) moved = w->t->entries[i].tid == (int32_t)k;
        if (!moved) {
            html_idle(out, w, (int)k, r);
            continue;
        }
        td_open(out, w, (int)k, "mv");
        html_moves(out, w, (int)k, b, e, mk->bad, mk->er->msg);
        html_bars(out, w, (int)k, r);
        fprintf(out, "</td>");
    }
    html_writes(out, w, b, e);
    fprintf(out, "</tr>\n");
}

static void html_gap(FILE *out, const walk *w, uint32_t from, uint32_t to)
{
    fprintf(out, "<tr class=\"gap\" data-omitted=\"%" PRIu32 "\"><td colspan=\"%" PRIu32 "\">"
                 "&#8942; steps %" PRIu32 " to %" PRIu32 " (%" PRIu32 " steps) left out to keep "
                 "the page small; --trace-json FILE has them all</td></tr>\n",
            to - from + 1, ncolumns(w), from, to, to - from + 1);
}

/* The deadlock's last row: what each thread that has not ended waits for. */
static void html_blocked_row(FILE *out, const walk *w)
{
    const vm_program *p = w->p;
    const uint8_t *s = w->t->final_state;
    char why[192];
    fprintf(out, "<tr class=\"fail blocked\" id=\"fail\"><td class=\"sn\">&#10007; deadlock</td>");
    for (uint32_t k = 0; k < p->nthreads; k++) {
        if (!w->col[k]) continue;
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)k);
        if (st == VM_T_UNUSED || st == VM_T_ENDED) {
            td_open(out, w, (int)k, "gone");
        } else {
            const vm_insn *in = report_thread_insn(p, s, (int)k);
            vm_describe_block(p, s, (int)k, why, sizeof why);
            td_open(out, w, (int)k, "");
            fprintf(out, "<div class=\"i\"><span class=\"ln\">%d</span><span><code>", in->line);
            esc(out, in->text);
            fprintf(out, "</code></span></div><div class=\"errmsg\">");
            esc(out, why);
            fprintf(out, "%s</div>", in->end_label ? " [end label]" : "");
        }
        html_bars(out, w, (int)k, w->nrows);
        fprintf(out, "</td>");
    }
    fprintf(out, "<td class=\"wr\"></td></tr>\n");
}

/* The rows to mark: a lasso's cycle (its last step closes the cycle: it
 * is not a failing step), or the failing step (none for a deadlock: its
 * own last row says what each thread waits for). */
static marks html_marks(const walk *w, const explore_error *er, uint32_t bad)
{
    const trace *t = w->t;
    marks mk = {.fail_row = w->nrows, .cycle_row = w->nrows, .bad = bad, .er = er};
    if (er->lasso) {
        if (er->cycle_start < er->len) mk.cycle_row = er->cycle_start + (w->start_row ? 1 : 0);
    } else if (bad < t->n) {
        mk.fail_row = t->entries[bad].step - (w->start_row ? 0 : 1);
    } else if (er->kind != VERDICT_DEADLOCK && w->nrows) {
        mk.fail_row = w->nrows - 1;
    }
    return mk;
}

/* Walk every row (the page needs every thread's lane count before its
 * first row); with `out`, print the rows shown. */
static void html_walk(FILE *out, walk *w, const explore_error *er, uint32_t bad)
{
    const trace *t = w->t;
    uint32_t i = 0;
    bool cut = w->nrows > HTML_HEAD_ROWS + HTML_TAIL_ROWS, marked = false;
    marks mk = html_marks(w, er, bad);
    for (uint32_t r = 0; r < w->nrows; r++) {
        uint32_t step = w->start_row ? r : r + 1, b = i;
        while (i < t->n && t->entries[i].step <= step) i++;
        for (uint32_t k = b; k < i; k++) html_walk_entry(w, k, r);
        if (!out) continue;
        bool shown = !cut || r < HTML_HEAD_ROWS || r >= w->nrows - HTML_TAIL_ROWS;
        if (cut && r == w->nrows - HTML_TAIL_ROWS)
            html_gap(out, w, (w->start_row ? 0 : 1) + HTML_HEAD_ROWS, step - 1);
        if (!shown) continue;
        if (!marked && r >= mk.cycle_row) {
            html_cycle_mark(out, w, &mk, r);
            marked = true;
        }
        html_row(out, w, r, b, i, &mk);
    }
}

/* The header's link to what the page is about: the failing step, the
 * deadlock or the cycle (the script opens the page there). */
static void html_goto(FILE *out, const walk *w, const explore_error *er, uint32_t bad)
{
    marks mk = html_marks(w, er, bad);
    char tn[64];
    if (mk.cycle_row < w->nrows) {
        fprintf(out, " &middot; <a class=\"goto cy\" href=\"#cycle\">&#8635; the cycle: steps %"
                     PRIu32 " to %" PRIu32 "</a>", er->cycle_start + 1, er->len);
    } else if (er->kind == VERDICT_DEADLOCK) {
        fprintf(out, " &middot; <a class=\"goto fl\" href=\"#fail\">&#10007; the deadlock, after "
                     "step %" PRIu32 "</a>", er->len);
    } else if (mk.fail_row < w->nrows) {
        fprintf(out, " &middot; <a class=\"goto fl\" href=\"#fail\">&#10007; the failing step: %"
                     PRIu32, mk.fail_row + (w->start_row ? 0 : 1));
        if (er->tid >= 0 && (uint32_t)er->tid < w->p->nthreads) {
            thread_name(w, er->tid, tn, sizeof tn);
            fprintf(out, ", ");
            esc(out, tn);
        }
        fprintf(out, "</a>");
    }
}

static void html_legend(FILE *out, const walk *w)
{
    char ln[64];
    fprintf(out, "<p class=\"legend\" id=\"legend\">");
    for (uint32_t l = 0; l < w->p->nlocks; l++) {
        if (!w->seen_lock[l]) continue;
        lock_name(w->p, (int32_t)l, ln, sizeof ln);
        fprintf(out, "<span><i class=\"sw k%d\"></i>", (int)(l % HTML_COLOURS));
        esc(out, ln);
        fprintf(out, " held</span>");
    }
    fprintf(out, "<span><i class=\"sw\" style=\"background:#fff1e0\"></i>blocked</span>"
                 "<span><i class=\"sw\" style=\"background:#eaf2ff\"></i>waiting</span>"
                 "<span><i class=\"sw\" style=\"background:#f3f4f6\"></i>ended</span>"
                 "<span><i class=\"sw nb\" style=\"background:repeating-linear-gradient(135deg,"
                 "#d0d7de 0 3px,#fff 3px 6px)\"></i>not spawned yet</span>"
                 "<span><i class=\"sw\" style=\"background:#fff0a0\"></i>shared variable "
                 "written</span></p>\n");
}

int report_html(FILE *out, const report_run *run, const vm_program *p, const explore_result *r,
                const trace *traces)
{
    if (!r->nerrors) {
        html_no_error(out, run, p, r);
        return 0;
    }
    const explore_error *er = &r->errors[0];
    const trace *t = report_trace_of(traces, 0);
    walk w;
    if (t && !html_walk_init(&w, p, t, er->len)) {
        errno = ENOMEM;
        return -1;
    }
    report_hints hints;
    report_hint(p, er, t, run->adapt != NULL, &hints);
    html_head(out, run, verdict_name(er->kind), t != NULL);
    fprintf(out, "<h1><span class=\"verdict\">%s</span>", verdict_name(er->kind));
    esc(out, run->model);
    fprintf(out, "</h1>\n<table class=\"meta\">\n");
    html_meta(out, run, p, r);
    meta_row(out, "error", "message");
    fprintf(out, "<span class=\"msg\">");
    esc(out, er->msg);
    fprintf(out, "</span>");
    if (r->nerrors > 1)
        fprintf(out, " (the first of %" PRIu32 " errors kept; --json lists them all)",
                r->nerrors);
    fprintf(out, "</td></tr>\n");
    if (t) html_where(out, p, er, t);
    for (int k = 0; k < hints.n; k++) {
        meta_row(out, "hint", k ? "hint2" : "hint");
        esc(out, hints.line[k]);
        fprintf(out, "</td></tr>\n");
    }
    if (t) html_accesses(out, p, t);
    meta_row(out, "path", "path");
    if (!t) {
        fprintf(out, "%" PRIu32 " steps; the trace is not available: out of memory while "
                     "replaying it</td></tr>\n</table>\n</header>\n", er->len);
        html_tail(out);
        return 0;
    }
    uint32_t bad = culprit_entry(t, er);
    fprintf(out, "<span id=\"steps\">%" PRIu32 "</span> step%s, %" PRIu32 " instruction%s", er->len,
            er->len == 1 ? "" : "s", t->n, t->n == 1 ? "" : "s");
    if (w.nrows > HTML_HEAD_ROWS + HTML_TAIL_ROWS)
        fprintf(out, "; the first %d and the last %d rows are shown (--trace-json has them all)",
                HTML_HEAD_ROWS, HTML_TAIL_ROWS);
    html_goto(out, &w, er, bad);
    fprintf(out, "</td></tr>\n");
    if (t->diverged) {
        meta_row(out, "warning", "warning");
        fprintf(out, "<span class=\"warn\">the trace did not replay: ");
        esc(out, t->why);
        fprintf(out, "</span></td></tr>\n");
    }
    fprintf(out, "</table>\n");
    html_walk(NULL, &w, er, bad); /* lanes and the legend's locks */
    html_legend(out, &w);
    fprintf(out, "</header>\n<main>\n<table class=\"trace\" id=\"trace\">\n<thead><tr>"
                 "<th>step</th>");
    char tn[64];
    for (uint32_t k = 0; k < p->nthreads; k++) {
        if (!w.col[k]) continue;
        thread_name(&w, (int)k, tn, sizeof tn);
        fprintf(out, "<th data-tid=\"%" PRIu32 "\">", k);
        esc(out, tn);
        fprintf(out, "</th>");
    }
    fprintf(out, "<th class=\"wr\">shared writes</th></tr></thead>\n<tbody>\n");
    html_walk_reset(&w);
    html_walk(out, &w, er, bad);
    if (er->kind == VERDICT_DEADLOCK) html_blocked_row(out, &w);
    fprintf(out, "</tbody>\n</table>\n</main>\n<script>%s</script>\n", html_script);
    html_walk_free(&w);
    html_tail(out);
    return 0;
}
