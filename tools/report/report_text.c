/* report_text.c: the text report of a search: the options line, each
 * error with its location, the detector's explanation (explain.c), the
 * replayed trace and, for a deadlock, the blocked threads; then the verdict,
 * why the search stopped and the statistics block (stats_text.c), and the
 * unreached code of a complete search (SPIN's "unreached in"); mcheck
 * --replay's error and trace. The trace lines themselves are
 * trace_line.c's, the sentences it shares with the JSON report
 * run_notes.c's. It prints what it is given: it decides no verdict and
 * replays nothing (cli/mcheck.c replays every trace before printing it). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"
#include "store.h"

const char *report_count(uint64_t n, char *buf, size_t size)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n), o = 0;
    for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
        if (i && (len - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* The trace's lines (trace_view.c): entries, and the lines that stand for
 * loops, repeated steps and what was left out. */
/* --trace-states: after the last line of a step, the state it left. */
static void print_state_after(FILE *out, const vm_program *p, const trace *t, uint32_t i)
{
    uint32_t step = t->entries[i].step;
    const uint8_t *after = report_state_after(p, t, step);
    if (after && (i + 1 == t->n || t->entries[i + 1].step != step))
        report_state_text(out, p, after, step);
}

/* A lasso (--liveness=npc): the line that marks where its cycle starts,
 * before the first line of step cycle_step (0: not a lasso). */
static void print_cycle_mark(FILE *out, uint32_t cycle_step, uint32_t step, bool *done)
{
    if (!cycle_step || *done || step < cycle_step) return;
    fprintf(out, "        <<<<< cycle starts here: steps %" PRIu32 "- repeat forever >>>>>\n",
            cycle_step);
    *done = true;
}

static void print_trace_view(FILE *out, const vm_program *p, const trace *t, bool all,
                             uint32_t cycle_step)
{
    trace_view v;
    bool marked = false;
    char a[32], b[32], c[32];
    int width = report_trace_width(p, t);
    if (trace_view_build(p, t, all, TRACE_VIEW_LINES, &v) != 0) {
        fprintf(out, "        ... the trace's lines: out of memory ...\n");
        return;
    }
    for (uint32_t k = 0; k < v.n; k++) {
        const trace_item *it = &v.items[k];
        switch (it->kind) {
        case TRACE_ITEM_ENTRY:
            print_cycle_mark(out, cycle_step, t->entries[it->entry].step, &marked);
            if (it->entry == 0 && t->entries[0].step == 0) /* --por: the entries of step 0 */
                fprintf(out, "%-6s  %s\n", "start:", "each thread's invisible first instructions (--por)");
            report_trace_line(out, p, t, &t->entries[it->entry], width);
            print_state_after(out, p, t, it->entry);
            break;
        case TRACE_ITEM_REPEAT:
            if (it->line_lo == it->line_hi)
                fprintf(out, "        ... line %d repeats %s more time%s (%s instructions) ...\n",
                        it->line_lo, report_count(it->times, a, sizeof a),
                        it->times == 1 ? "" : "s", report_count(it->instructions, b, sizeof b));
            else
                fprintf(out, "        ... lines %d-%d repeat %s more time%s (%s instructions) ...\n",
                        it->line_lo, it->line_hi, report_count(it->times, a, sizeof a),
                        it->times == 1 ? "" : "s", report_count(it->instructions, b, sizeof b));
            break;
        case TRACE_ITEM_STEPS:
            print_cycle_mark(out, cycle_step, it->step_lo, &marked);
            if (it->step_lo == it->step_hi)
                fprintf(out, "        ... step %" PRIu32 " repeats %s more time%s (%s steps, %s instructions) ...\n",
                        it->step_lo, report_count(it->times, a, sizeof a),
                        it->times == 1 ? "" : "s", report_count(it->steps, b, sizeof b), report_count(it->instructions, c, sizeof c));
            else
                fprintf(out, "        ... steps %" PRIu32 "-%" PRIu32 " repeat %s more time%s (%s steps, %s instructions) ...\n",
                        it->step_lo, it->step_hi, report_count(it->times, a, sizeof a),
                        it->times == 1 ? "" : "s", report_count(it->steps, b, sizeof b), report_count(it->instructions, c, sizeof c));
            break;
        case TRACE_ITEM_GAP:
            fprintf(out, "        ... %s instructions not kept by the replay ...\n",
                    report_count(it->instructions, a, sizeof a));
            break;
        case TRACE_ITEM_ELIDED:
            fprintf(out, "        ... %s lines left out (%s instructions); --trace-json FILE writes it all ...\n",
                    report_count(it->lines, a, sizeof a), report_count(it->instructions, b, sizeof b));
            break;
        }
    }
    if (cycle_step && !marked)
        fprintf(out, "        <<<<< the cycle: steps %" PRIu32 "- (their lines left out above) >>>>>\n",
                cycle_step);
    trace_view_free(&v);
}

/* `t` is NULL when the trace could not be replayed for lack of memory; `all`
 * --trace=all; `sh` how its path was shortened (NULL: not tried). */
static void print_error_text(FILE *out, const vm_program *p, const explore_error *er,
                             const trace *t, bool bfs_hint, unsigned workers, bool adapting,
                             bool all, const shorten_stats *sh)
{
    char why[256];
    bool shortened = sh && sh->outcome == SHORTEN_SHORTER;
    bool shortest = shortened || (sh && sh->outcome == SHORTEN_NONE_SHORTER);
    char name[64];
    report_hints hints;
    report_hint(p, er, t, adapting, &hints);
    fprintf(out, "error: %s\n", er->msg);
    if (!t) {
        for (int k = 0; k < hints.n; k++) fprintf(out, "hint: %s\n", hints.line[k]);
        fprintf(out, "trace (%" PRIu32 " step%s): not available: out of memory while replaying it\n",
                er->len, er->len == 1 ? "" : "s");
        return;
    }
    const vm_insn *in = er->tid >= 0 ? report_insn_at(p, t->final_state, er->tid, er->pc) : NULL;
    if (in) {
        vm_thread_name(p, t->final_state, er->tid, name, sizeof name);
        fprintf(out, "  in %s at %s:%d: %s\n", name, p->filename, in->line, in->text);
    }
    report_accesses_text(out, p, t);
    for (int k = 0; k < hints.n; k++) fprintf(out, "hint: %s\n", hints.line[k]);
    report_trace_stopped_text(out, t);
    fprintf(out, "trace (%" PRIu32 " step%s, %" PRIu64 " instruction%s", er->len,
            er->len == 1 ? "" : "s", t->instructions, t->instructions == 1 ? "" : "s");
    if (shortened)
        fprintf(out, "; shortened from %" PRIu32 " steps by a breadth-first search of %" PRIu64
                     " states", sh->from, sh->states);
    fprintf(out, "):\n");
    fprintf(out, "%6s  %-14s %5s  %s\n", "step", "thread", "line", "instruction");
    print_trace_view(out, p, t, all, er->lasso ? er->cycle_start + 1 : 0);
    if (er->lasso)
        fprintf(out, "lasso: after step %" PRIu32 " the state is again the state after step %" PRIu32
                     "%s (replayed and compared)\n", er->len, er->cycle_start,
                er->cycle_start ? "" : " (the initial state)");
    if (t->diverged) fprintf(out, "warning: the trace did not replay: %s\n", t->why);
    if (er->kind == VERDICT_DEADLOCK) {
        fprintf(out, "blocked threads:\n");
        report_blocked_threads(out, p, t->final_state);
    }
    if (report_not_shortened(sh, why, sizeof why)) fprintf(out, "not shortened: %s\n", why);
    if (workers && !bfs_hint)
        fprintf(out, "note: the trace is a shortest one (breadth-first: levels in step with %u "
                     "workers)\n", workers);
    else if (workers && shortest)
        fprintf(out, "note: the trace is a shortest one to this error (a sequential "
                     "breadth-first search after the parallel depth-first one), not necessarily "
                     "to the nearest error; --search=bfs -j %u finds that\n", workers);
    else if (workers)
        fprintf(out, "note: a parallel depth-first trace need not be the shortest, nor the "
                     "sequential search's; --search=bfs -j %u finds a shortest one\n", workers);
    else if (bfs_hint && !shortest && er->len > 20 && !er->lasso)
        fprintf(out, "note: depth-first traces can be long; --search=bfs finds a shortest one\n");
}

void report_error_text(FILE *out, const vm_program *p, const explore_error *er, const trace *t,
                       bool adapting)
{
    print_error_text(out, p, er, t, false, 0, adapting, false, NULL);
}

void report_trace_text(FILE *out, const vm_program *p, const trace *t, uint32_t steps)
{
    fprintf(out, "trace (%" PRIu32 " step%s, %" PRIu64 " instruction%s):\n", steps,
            steps == 1 ? "" : "s", t->instructions, t->instructions == 1 ? "" : "s");
    fprintf(out, "%6s  %-14s %5s  %s\n", "step", "thread", "line", "instruction");
    print_trace_view(out, p, t, false, 0);
}

/* --all-errors: the counts, and which traces were shown (`left` of the
 * errors kept were alike an earlier one: report_error_shown). */
static void print_error_counts(FILE *out, const explore_result *r, uint32_t shown, uint32_t left)
{
    uint64_t total = 0;
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++) total += r->error_count[k];
    fprintf(out, "errors found: %" PRIu64, total);
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++)
        if (r->error_count[k]) fprintf(out, ", %s %" PRIu64, verdict_name((verdict)k), r->error_count[k]);
    if (left)
        fprintf(out, " (a trace shown for the first of errors alike: %" PRIu32 " of the %" PRIu32
                     " kept; --json lists them all, --replay-error K replays one)", shown,
                r->nerrors);
    else if (total > r->nerrors)
        fprintf(out, " (traces of the first %" PRIu32 " shown)", r->nerrors);
    fprintf(out, "\n");
}

/* --liveness=starvation: a note naming the threads not checked (no
 * progress label in their body); spawned threads are checked when the
 * body they run has one. */
static void print_unchecked_threads(FILE *out, const vm_program *p)
{
    char name[64];
    bool any = false;
    for (uint32_t t = 0; t < p->nstatic; t++) {
        const vm_thread_slot *sl = &p->threads[t];
        if (sl->body < 0) continue;
        const vm_body *b = &p->bodies[sl->body];
        bool lab = false;
        for (uint32_t pc = 0; pc < b->ncode && !lab; pc++) lab = b->code[pc].progress_label;
        if (lab) continue;
        vm_thread_name(p, p->init_state, (int)t, name, sizeof name);
        fprintf(out, "%s%s", any ? ", " : "note: not checked for starvation (no progress label "
                                          "in the body): ", name);
        any = true;
    }
    if (any) fprintf(out, "\n");
}

void report_adapt_text(FILE *out, const vm_program *p, const explore_adaptation *a)
{
    for (uint32_t i = 0; i < a->nvars; i++)
        fprintf(out, "adapt: '%s' treated as volatile (%s)\n", p->vars[a->vars[i].var].name,
                a->vars[i].why);
}

/* Unreached code, after SPIN's "unreached in proctype": one line per
 * instruction no thread reached in a complete search (body, source line,
 * the instruction as written), then the bodies that have none; a partial
 * search says it cannot tell. */
static void print_unreached_text(FILE *out, const vm_program *p, const explore_options *eo,
                                 const explore_result *r)
{
    if (!r->unreached_known) {
        fprintf(out, "unreached code: not reported (%s)\n",
                r->stop != STOP_COMPLETE ? "the search was not complete"
                : eo->store.kind == STORE_BITSTATE ? "bitstate may have missed states"
                                                    : "out of memory");
        return;
    }
    if (!r->nunreached) {
        fprintf(out, "unreached code: none (every instruction was reached)\n");
        return;
    }
    int w = 0, lw = 1; /* widths of the body names and the line numbers */
    for (uint32_t i = 0; i < r->nunreached; i++) {
        const vm_body *b = &p->bodies[r->unreached[i].body];
        int len = (int)strlen(b->name);
        if (len > w) w = len;
        int digits = snprintf(NULL, 0, "%d", (int)b->code[r->unreached[i].pc].line);
        if (digits > lw) lw = digits;
    }
    fprintf(out, "unreached code (never reached in the complete search):\n");
    for (uint32_t i = 0; i < r->nunreached; i++) {
        const vm_body *b = &p->bodies[r->unreached[i].body];
        const vm_insn *in = &b->code[r->unreached[i].pc];
        fprintf(out, "  %-*s  line %-*d  %s\n", w, b->name, lw, (int)in->line, in->text);
    }
    uint32_t k = 0, nfull = 0;
    for (uint32_t b = 0; b < p->nbodies; b++) {
        while (k < r->nunreached && r->unreached[k].body < b) k++;
        if (k < r->nunreached && r->unreached[k].body == b) continue;
        fprintf(out, "%s%s", nfull++ ? ", " : "  (every instruction of ", p->bodies[b].name);
    }
    if (nfull) fprintf(out, " was reached)\n");
}

void report_text(FILE *out, const report_run *run, const vm_program *p,
                 const explore_result *r, const trace *traces)
{
    const explore_options *eo = run->eo;
    const explore_adaptation *a = run->adapt;
    char jobs[32] = "";
    if (eo->workers) snprintf(jobs, sizeof jobs, ", workers=%u", eo->workers);
    if (eo->swarm) snprintf(jobs, sizeof jobs, ", swarm=%u", eo->swarm);
    if (r->nranks) snprintf(jobs, sizeof jobs, ", ranks=%" PRIu32, r->nranks); /* mcheck-mpi */
    fprintf(out, "mcheck %s: %s (reduce=%s%s%s%s%s%s, store=%s, search=%s%s%s)\n", VM_VERSION,
            run->model, reduce_mode_name(eo->reduce), eo->por ? "+por" : "", ", race=",
            race_mode_name(eo->race), a ? ", adapt" : "",
            p->spurious_wakeups ? ", spurious-wakeups" : "",
            eo->search == SEARCH_STATELESS ? "none" : store_kind_name(eo->store.kind),
            search_order_name(eo->search),
            jobs, eo->liveness == LIVENESS_STARVATION
                      ? (eo->fair == FAIR_STRONG ? ", liveness=starvation, fair=strong"
                         : eo->fair ? ", liveness=starvation, fair=weak" : ", liveness=starvation")
                  : eo->liveness ? (eo->fair == FAIR_STRONG ? ", liveness=npc, fair=strong"
                                    : eo->fair ? ", liveness=npc, fair=weak" : ", liveness=npc")
                  : eo->ltl ? (eo->fair == FAIR_STRONG ? ", ltl, fair=strong"
                               : eo->fair ? ", ltl, fair=weak" : ", ltl") : "");
    if (eo->ltl) /* the formula and its automaton (reduce/liveness/ltl.c) */
        fprintf(out, "ltl: %s (the negation's automaton: %" PRIu32 " states, %" PRIu32
                     " edges)\n", eo->ltl_text ? eo->ltl_text : "?", eo->ltl->nstates,
                eo->ltl->nedges);
    const char *notes[REPORT_NOTES_MAX];
    for (int k = 0, n = report_run_notes(eo, notes, REPORT_NOTES_MAX); k < n; k++)
        fprintf(out, "note: %s\n", notes[k]);
    if (eo->liveness == LIVENESS_STARVATION)
        print_unchecked_threads(out, p);
    else if (eo->liveness && !report_progress_labels(p))
        fprintf(out, "note: no progress label in the model: every cycle is a non-progress "
                     "cycle\n");
    if (r->stats.cycles_rejected)
        fprintf(out, "note: %" PRIu64 " cycle%s found by the nested search failed the replay "
                     "check (a hash collision; not reported)\n", r->stats.cycles_rejected,
                r->stats.cycles_rejected == 1 ? "" : "s");
    uint32_t shown = 0, left = 0;
    for (uint32_t i = 0; i < r->nerrors; i++) shown += report_error_shown(run, r, i);
    for (uint32_t i = 0, k = 0; i < r->nerrors; i++) {
        if (!report_error_shown(run, r, i)) {
            left++;
            continue;
        }
        if (shown > 1) fprintf(out, "\n--- error %" PRIu32 " of %" PRIu32 " ---\n", ++k, shown);
        print_error_text(out, p, &r->errors[i], report_trace_of(traces, i), eo->search == SEARCH_DFS,
                         eo->workers, a != NULL, run->trace_all, i == 0 ? run->shorten : NULL);
    }
    if (eo->all_errors) print_error_counts(out, r, shown, left);
    char decider[96];
    if (explore_swarm_decider(r, decider, sizeof decider)) fprintf(out, "%s\n", decider);
    if (a) {
        fprintf(out, "adapted:%s", a->nvars ? "" : " none");
        for (uint32_t i = 0; i < a->nvars; i++)
            fprintf(out, "%s '%s'", i ? "," : "", p->vars[a->vars[i].var].name);
        fprintf(out, "%s\n", a->nvars ? " (treated as volatile)" : "");
        if (a->nvars)
            fprintf(out, "warning: a variable --adapt made volatile is no longer checked: a real "
                         "race on it goes unreported (--race=goldilocks reports races)\n");
    }
    fprintf(out, "verdict: %s", verdict_name(r->verdict));
    if (r->verdict == VERDICT_OK && r->stop == STOP_PREEMPTION)
        fprintf(out, " (no error found within %" PRId64 " preemption%s: incomplete)",
                r->stats.preemption_bound, r->stats.preemption_bound == 1 ? "" : "s");
    else if (r->verdict == VERDICT_OK && r->stop == STOP_DELAY)
        fprintf(out, " (no error found within %" PRId64 " delay%s: incomplete)",
                r->stats.delay_bound, r->stats.delay_bound == 1 ? "" : "s");
    else if (r->verdict == VERDICT_OK)
        fprintf(out, " (no error found)");
    fprintf(out, "\n%s", stop_text(r->stop));
    if (eo->store.kind == STORE_BITSTATE && r->stop == STOP_COMPLETE)
        fprintf(out, " (bitstate: partial coverage, states may have been missed)");
    fprintf(out, "\n");
    if (r->stop == STOP_MEMLIMIT) report_memlimit_text(out, eo, r);
    char counter[512];
    if (report_stop_hint(p, eo, r, counter, sizeof counter)) fprintf(out, "hint: %s\n", counter);
    report_stats_text(out, eo, r);
    if (r->nerrors && run->search_seconds > 0) {
        fprintf(out, "  time split           search %.3f s", run->search_seconds);
        if (run->shorten && run->shorten->outcome != SHORTEN_NOT_TRIED)
            fprintf(out, ", a shorter trace %.3f s", run->shorten->seconds);
        fprintf(out, ", replaying traces %.3f s\n", run->trace_seconds);
    }
    if (run->shorten && run->shorten->outcome != SHORTEN_NOT_TRIED)
        fprintf(out, "  shortening           %" PRIu64 " states, %.3f s (breadth-first, for a "
                     "shorter trace; in the time above, not in the counts)\n",
                run->shorten->states, run->shorten->seconds);
    if (a)
        fprintf(out, "  adapt                %u search%s, %" PRIu64 " states stored and %.3f s in all\n",
                a->runs, a->runs == 1 ? "" : "es", a->states, a->seconds);
    print_unreached_text(out, p, eo, r);
}
