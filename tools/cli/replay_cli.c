/* replay_cli.c: mcheck --replay FILE MODEL, mcheck's SPIN trail replay
 * (spin -t). With the file read and the model assembled (replay_read.c),
 * re-executes the recorded "path" of scheduling decisions through the
 * interpreter (trace_replay(), reduce/ts/replay.c) and says whether the
 * recorded error occurs again, another one, none, or where and why the
 * path cannot be followed; it prints with the reports' functions
 * (report/report.h). A lasso (--liveness, --ltl: "cycle_start") has its
 * cycle re-checked: npc's here (lasso_closes()), starvation's and ltl's by
 * the searches' own checks (explore_options.check_lasso). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

/* True if `theirs`, a string cJSON decoded, is `ours` as common.c's
 * json_string() wrote it: each byte outside printable ASCII was written as
 * \u00XX, which cJSON decodes to the UTF-8 of U+00XX. */
static bool same_text(const char *ours, const char *theirs)
{
    const unsigned char *a = (const unsigned char *)ours, *b = (const unsigned char *)theirs;
    for (; *a; a++) {
        if (*a < 0x80) {
            if (*b++ != *a) return false;
        } else {
            if (b[0] != (0xc0 | (*a >> 6)) || b[1] != (0x80 | (*a & 0x3f))) return false;
            b += 2;
        }
    }
    return *b == '\0';
}

/* Why step `k` (from 1) of the path cannot run in `s`, the state before it. */
static void why_stuck(const vm_program *p, const uint8_t *s, const explore_step *st, uint32_t k,
                      char *buf, size_t n)
{
    char name[64], why[192];
    size_t at;
    if ((uint32_t)st->tid >= p->nthreads) {
        snprintf(buf, n, "step %" PRIu32 ": the model has no thread %" PRId32 " (it has %" PRIu32
                 " thread slots)", k, st->tid, p->nthreads);
        return;
    }
    vm_thread_name(p, s, st->tid, name, sizeof name);
    enum vm_tstatus ts = vm_tstatus_of(p, s, st->tid);
    uint64_t en = vm_enabled(p, s, st->tid);
    if (ts == VM_T_UNUSED) {
        snprintf(buf, n, "step %" PRIu32 ": thread %" PRId32 " was never spawned", k, st->tid);
    } else if (ts == VM_T_ENDED) {
        snprintf(buf, n, "step %" PRIu32 ": %s has ended", k, name);
    } else if (en == 0) {
        vm_describe_block(p, s, st->tid, why, sizeof why);
        snprintf(buf, n, "step %" PRIu32 ": %s cannot move (%s)", k, name, why);
    } else {
        snprintf(buf, n, "step %" PRIu32 ": %s has %" PRIu64 " choice%s here (0 to %" PRIu64
                 "), the trace takes choice %" PRIu64, k, name, en, en == 1 ? "" : "s", en - 1,
                 st->choice);
        return;
    }
    bool any = false;
    for (uint32_t i = 0; i < p->nthreads && !any; i++) any = vm_enabled(p, s, (int)i) > 0;
    at = strlen(buf);
    if (!any && at < n)
        snprintf(buf + at, n - at, "; no thread can move after step %" PRIu32 "%s", k - 1,
                 vm_valid_end(p, s) ? " (a valid end state)" : ": a deadlock");
}

typedef enum outcome {
    OUT_REPRODUCED,   /* the recorded error at the path's end */
    OUT_EARLIER,      /* the recorded error, before the path's end */
    OUT_DIFFERENT,    /* another error */
    OUT_NO_ERROR,     /* the path followed to its end, no error */
    OUT_DIVERGED,     /* a step could not run */
    OUT_STOPPED,      /* --timelimit, --memlimit or an interrupt stopped it */
} outcome;

static const char *const outcome_names[] = {
    [OUT_REPRODUCED] = "reproduced", [OUT_EARLIER] = "reproduced_earlier",
    [OUT_DIFFERENT] = "different_error", [OUT_NO_ERROR] = "no_error",
    [OUT_DIVERGED] = "diverged", [OUT_STOPPED] = "stopped",
};

/* The sentence that ends the text report (not for OUT_DIVERGED). */
static void outcome_text(FILE *out, outcome oc, const recorded *r, const explore_error *end,
                         const trace *t)
{
    switch (oc) {
    case OUT_STOPPED:
        fprintf(out, "replay: stopped by %s after %" PRIu64 " instructions, at step %" PRIu32
                     " of %" PRIu32 ": incomplete, neither reproduced nor refuted\n",
                report_stop_option(t->stopped), t->instructions,
                t->n ? t->entries[t->n - 1].step : 0, r->len);
        break;
    case OUT_REPRODUCED:
        fprintf(out, "replay: reproduced (%s) after %" PRIu32 " step%s\n", end->msg, end->len,
                end->len == 1 ? "" : "s");
        break;
    case OUT_EARLIER:
        fprintf(out, "replay: reproduced (%s) at step %" PRIu32 ", before the trace's last "
                     "step %" PRIu32 "\n", end->msg, end->len, r->len);
        break;
    case OUT_DIFFERENT:
        fprintf(out, "replay: a different error: %s (%s) at step %" PRIu32 "; the trace "
                     "recorded %s (%s) after %" PRIu32 " step%s\n",
                verdict_name(end->kind), end->msg, end->len, r->kind, r->message, r->len,
                r->len == 1 ? "" : "s");
        break;
    case OUT_NO_ERROR:
        fprintf(out, "replay: the trace replays to its end (%" PRIu32 " step%s), but no error "
                     "occurs: the model no longer has the recorded %s (%s) on this path\n",
                r->len, r->len == 1 ? "" : "s", r->kind, r->message);
        break;
    case OUT_DIVERGED:
        break;
    }
}

static void json_define_list(FILE *out, const recorded *r)
{
    fprintf(out, "[");
    for (size_t i = 0; i < r->ndefs; i++) {
        fprintf(out, "%s{\"name\":", i ? "," : "");
        json_string(out, r->defs[i].name);
        fprintf(out, ",\"value\":%" PRId32 "}", r->defs[i].value);
    }
    fprintf(out, "]");
}

/* --json: one object, the replayed error as report_trace_file_json()
 * writes it (itself replayable). */
static void outcome_json(FILE *out, const replay_request *rq, const recorded *r,
                         const vm_program *p, const trace *t, outcome oc,
                         const explore_error *er, const char *why, const report_run *run)
{
    char name[64];
    fprintf(out, "{\"mcheck\":\"%s\",\"replay\":", VM_VERSION);
    json_string(out, rq->file);
    fprintf(out, ",\"model\":");
    json_string(out, rq->model);
    fprintf(out, ",\"recorded_model\":");
    if (r->model) json_string(out, r->model); else fprintf(out, "null");
    fprintf(out, ",\"options\":{\"reduce\":\"%s\",\"race\":\"%s\",\"por\":%s,"
                 "\"spurious_wakeups\":%s,\"max_invisible\":%" PRIu64 ",\"defines\":",
            reduce_mode_name(r->eo.reduce), race_mode_name(r->eo.race),
            r->eo.por ? "true" : "false", r->spurious ? "true" : "false", r->eo.max_invisible);
    json_define_list(out, r);
    if (r->eo.liveness) /* only then, as the search's report */
        fprintf(out, ",\"liveness\":\"%s\"", r->eo.liveness == LIVENESS_NPC ? "npc" : "starvation");
    if (r->eo.fair) fprintf(out, ",\"fair\":true,\"fairness\":\"%s\"", fairness_name(r->eo.fair));
    if (r->eo.ltl_text) {
        fprintf(out, ",\"ltl\":");
        json_string(out, r->eo.ltl_text);
    }
    fprintf(out, "},\"recorded\":{\"kind\":");
    json_string(out, r->kind);
    fprintf(out, ",\"message\":");
    json_string(out, r->message);
    fprintf(out, ",\"steps\":%" PRIu32 "},\"outcome\":\"%s\",\"verdict\":\"%s\"", r->len,
            outcome_names[oc],
            verdict_name(oc == OUT_STOPPED ? VERDICT_INCOMPLETE : er ? er->kind : VERDICT_OK));
    if (oc == OUT_STOPPED) fprintf(out, ",\"stopped\":\"%s\"", stop_reason_name(t->stopped));
    fprintf(out, ",\"steps_followed\":%" PRIu32 ",\"divergence\":",
            oc == OUT_DIVERGED ? t->stuck - 1 : t->end.len);
    if (oc == OUT_DIVERGED) {
        const explore_step *st = &r->path[t->stuck - 1];
        fprintf(out, "{\"step\":%" PRIu32 ",\"tid\":%" PRId32 ",\"thread\":", t->stuck, st->tid);
        if ((uint32_t)st->tid < p->nthreads &&
            vm_tstatus_of(p, t->final_state, st->tid) != VM_T_UNUSED) {
            vm_thread_name(p, t->final_state, st->tid, name, sizeof name);
            json_string(out, name);
        } else {
            fprintf(out, "null");
        }
        fprintf(out, ",\"choice\":%" PRIu64 ",\"reason\":", st->choice);
        json_string(out, why);
        fprintf(out, "}");
    } else {
        fprintf(out, "null");
    }
    fprintf(out, ",\"error\":");
    if (er)
        report_trace_file_json(out, run, p, er, t);
    else
        fprintf(out, "null");
    fprintf(out, "}\n");
}

/* A lasso's replay (trace_replay_states()): the state (vm part) after the
 * whole path equals the state after its first cycle_start steps, and no
 * step of the cycle executes a progress-labelled instruction. */
static bool lasso_closes(const vm_program *p, const recorded *r, const trace *t)
{
    /* with --por the states start at step 0, the folded starts */
    const uint8_t *at = report_state_after(p, t, r->cycle_start);
    const uint8_t *end = report_state_after(p, t, r->len);
    if (!at && r->cycle_start == 0 && t->states_from == 1) at = p->init_state;
    if (!at || !end) return false;
    for (uint32_t i = 0; i < t->n; i++) {
        const trace_entry *e = &t->entries[i];
        const vm_body *b = vm_thread_body(p, t->final_state, e->tid);
        if (e->first && e->step > r->cycle_start && b && e->pc < b->ncode &&
            b->code[e->pc].progress_label)
            return false;
    }
    return memcmp(at, end, p->layout.size) == 0;
}

/* A starvation or ltl lasso whose path replayed without an error: the
 * search's own check of it (explore_options.check_lasso, starvation.c's and
 * ltl_search.c's lasso_holds()). *er gets the error it records, if any;
 * *stop how the check ended (a limit: STOP_TIMELIMIT...). 0, or the exit
 * status after a message. */
static int check_lasso(const replay_request *rq, const recorded *r, const vm_program *p,
                       const trace *t, explore_error *er, stop_reason *stop)
{
    char name[64];
    explore_lasso l = {.path = r->path, .len = r->len, .cycle_start = r->cycle_start,
                       .starved = r->starved};
    for (uint32_t u = 0; r->starvation && l.starved < 0 && u < p->nthreads; u++) {
        if (vm_tstatus_of(p, t->final_state, (int)u) == VM_T_UNUSED) continue;
        vm_thread_name(p, t->final_state, (int)u, name, sizeof name);
        if (!strcmp(name, r->starved_name)) l.starved = (int32_t)u;
    }
    if (r->starvation && l.starved < 0)
        return replay_file_error(rq, "\"starved\": no thread '%s' on the replayed path",
                          r->starved_name);
    if (r->starvation && ((uint32_t)l.starved >= p->nthreads ||
                          vm_tstatus_of(p, t->final_state, l.starved) == VM_T_UNUSED))
        return replay_file_error(rq, "\"starved_tid\": no thread %d on the replayed path (the "
                                     "model has %u thread slots)", l.starved, p->nthreads);
    explore_options o = r->eo;
    o.search = SEARCH_DFS;
    o.workers = 0;
    o.all_errors = false;
    o.max_depth = 0;
    o.max_states = 0;
    o.target = NULL;
    o.progress = o.dump_states = NULL;
    o.check_lasso = &l;
    o.engine = NULL; /* the sequential check, also in mcheck-mpi */
    explore_result res;
    int rc = explore_run(p, &o, &res);
    if (rc != 0) {
        explore_result_free(&res);
        if (rc == EXPLORE_REFUSED) { /* the saved options: a search that has no lasso check */
            char msg[512];
            fprintf(stderr, "mcheck: error: %s: %s\n", rq->file,
                    explore_check(&o, msg, sizeof msg));
            return 2;
        }
        fprintf(stderr, "mcheck: error: out of memory checking the cycle of %s\n", rq->file);
        return 3;
    }
    *stop = res.stop;
    if (res.nerrors) {
        *er = res.errors[0];
        er->path = NULL;
    }
    explore_result_free(&res);
    return 0;
}

/* Replay the path and report; the exit status. */
static int replay_report(const replay_request *rq, recorded *r, vm_program *p)
{
    trace t;
    char why[512] = "";
    bool npc = r->lasso && !r->ltl_lasso && !r->starvation; /* checked here */
    if ((npc ? trace_replay_states(p, &r->eo, r->path, r->len, &t)
             : trace_replay(p, &r->eo, r->path, r->len, &t)) != 0) {
        fprintf(stderr, "mcheck: error: out of memory replaying %s\n", rq->file);
        return 3;
    }
    outcome oc;
    explore_error er = t.end;
    if (r->lasso && !npc && er.kind == VERDICT_OK && !t.stuck && t.stopped == STOP_COMPLETE) {
        stop_reason stop = STOP_COMPLETE;
        int rc = check_lasso(rq, r, p, &t, &er, &stop);
        if (rc) {
            trace_free(&t);
            return rc;
        }
        if (stop != STOP_COMPLETE && stop != STOP_ERROR) t.stopped = stop;
    }
    if (npc && er.kind == VERDICT_OK && !t.stuck && t.stopped == STOP_COMPLETE &&
        lasso_closes(p, r, &t)) { /* the cycle: reproduced */
        er.kind = VERDICT_NON_PROGRESS;
        er.cause = CAUSE_NON_PROGRESS;
        er.tid = -1;
        er.len = r->len;
        er.lasso = true;
        er.cycle_start = r->cycle_start;
        snprintf(er.msg, sizeof er.msg, "%s", r->message);
    }
    if (npc) { /* kept for the check only: the report prints no states */
        free(t.states);
        t.states = NULL;
        t.nstates = 0;
    }
    bool error = er.kind != VERDICT_OK;
    er.path = r->path;
    if (t.stopped != STOP_COMPLETE) { /* a limit: whatever came so far says nothing */
        oc = OUT_STOPPED;
        error = false;
    } else if (t.stuck) {
        oc = OUT_DIVERGED;
        why_stuck(p, t.final_state, &r->path[t.stuck - 1], t.stuck, why, sizeof why);
    } else if (!error) {
        oc = OUT_NO_ERROR;
    } else if (strcmp(verdict_name(er.kind), r->kind) || !same_text(er.msg, r->message)) {
        oc = OUT_DIFFERENT;
    } else {
        oc = er.len == r->len ? OUT_REPRODUCED : OUT_EARLIER;
    }
    t.diverged = false; /* the report says how the replay ended, not the trace */
    report_run run = {.model = rq->model, .eo = &r->eo, .adapt = r->adapted ? &r->ad : NULL,
                      .defs = r->defs, .ndefs = r->ndefs};
    if (rq->json) {
        outcome_json(stdout, rq, r, p, &t, oc, error ? &er : NULL, why, &run);
    } else {
        printf("mcheck %s: replay of %s on %s (reduce=%s%s%s%s%s%s)\n", VM_VERSION, rq->file,
               rq->model, reduce_mode_name(r->eo.reduce), r->eo.por ? "+por" : "",
               r->eo.race != LS_OFF ? ", race=" : "",
               r->eo.race != LS_OFF ? race_mode_name(r->eo.race) : "",
               r->adapted ? ", adapted" : "", r->spurious ? ", spurious-wakeups" : "");
        if (r->eo.liveness) /* the search the trace came from */
            printf("search: --liveness=%s%s\n", r->eo.liveness == LIVENESS_NPC ? "npc" : "starvation",
                   r->eo.fair == FAIR_STRONG ? " --fair=strong" : r->eo.fair ? " --fair=weak" : "");
        if (r->eo.ltl_text) printf("search: --ltl '%s'\n", r->eo.ltl_text);
        if (r->model && strcmp(r->model, rq->model))
            printf("note: the trace was recorded on %s\n", r->model);
        if (error) {
            report_error_text(stdout, p, &er, &t, r->adapted != NULL);
        } else {
            report_trace_text(stdout, p, &t, oc == OUT_DIVERGED ? t.stuck - 1
                                             : oc == OUT_STOPPED && t.n ? t.entries[t.n - 1].step
                                                                        : r->len);
        }
        if (oc == OUT_STOPPED) report_trace_stopped_text(stdout, &t);
        outcome_text(stdout, oc, r, &er, &t);
    }
    fflush(stdout);
    if (rq->trace_json && error) {
        FILE *tf = fopen(rq->trace_json, "w");
        if (!tf) {
            fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", rq->trace_json,
                    strerror(errno));
        } else {
            report_trace_file_json(tf, &run, p, &er, &t);
            fprintf(tf, "\n");
            fclose(tf);
        }
    }
    if (oc == OUT_DIVERGED)
        fprintf(stderr, "mcheck: error: %s does not replay on %s: %s\n", rq->file, rq->model, why);
    trace_free(&t);
    return oc == OUT_STOPPED ? 3 : oc == OUT_DIVERGED ? 4 : error ? 1 : 0;
}

int replay_run(const replay_request *rq)
{
    recorded r = {0};
    vm_program *p = NULL;
    cJSON *root = NULL;
    int status = replay_read(rq, &root, &r, &p);
    if (status == 0) status = replay_report(rq, &r, p);
    vm_program_free(p);
    free(r.path);
    free(r.defs);
    free(r.ad.vars);
    ltl_free(r.ltl);
    cJSON_Delete(root);
    return status;
}
