/* report_json.c: the JSON report of a search (--json): one object with the
 * verdict, why the search stopped, the options, each kept error with its
 * replayed trace (also --trace-json's file), the error counts by kind, the
 * unreached code of a complete search and the statistics. Field names are an interface: docs/usage.md lists them
 * and tests/e2e/test_cli.py reads them. It prints what it is given: it decides
 * no verdict and replays nothing. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "report_int.h"
#include "store.h"

/* A {"name":..., "value":...} or {"name":..., "old":..., "new":...} item. */
static void json_value(FILE *out, const char *field, bool *open, const char *name, int32_t v)
{
    fprintf(out, *open ? "," : ",\"%s\":[", field);
    *open = true;
    fprintf(out, "{\"name\":");
    json_string(out, name);
    fprintf(out, ",\"value\":%" PRId32 "}", v);
}

static void json_write(FILE *out, bool *open, const char *name, int32_t old, int32_t v)
{
    fprintf(out, *open ? "," : ",\"writes\":[");
    *open = true;
    fprintf(out, "{\"name\":");
    json_string(out, name);
    fprintf(out, ",\"old\":%" PRId32 ",\"new\":%" PRId32 "}", old, v);
}

static void json_thread(FILE *out, const char *field, const vm_program *p, const trace *t,
                        int32_t tid)
{
    char name[64];
    if (tid < 0 || (uint32_t)tid >= p->nthreads) return;
    vm_thread_name(p, t->final_state, tid, name, sizeof name);
    fprintf(out, ",\"%s\":", field);
    json_string(out, name);
}

/* The structured fields of an entry's trace_effect (docs/usage.md):
 * "object", "reads", "writes", "taken", "sent", "depth", "woke",
 * "spawned", "joined", "returns_to" (call, ret: a pc, with its "return_line", and "depth"). */
static void print_effect_json(FILE *out, const vm_program *p, const trace *t,
                              const trace_entry *e, const vm_insn *in)
{
    const trace_effect *fx = &e->fx;
    char on[64], tn[64];
    bool reads = false, writes = false;
    if (!fx->recorded) return;
    enum vm_opcode op = (enum vm_opcode)in->op;
    const char *rd = report_reg_name(p, t, e, in->rd);
    bool lock = e->reacquire || (vm_ops[op].flags & VM_F_LOCK);
    if (lock || op == VM_OP_load || op == VM_OP_store) {
        report_fx_object(p, in, fx, lock, on, sizeof on);
        fprintf(out, ",\"object\":");
        json_string(out, on);
    } else if (op == VM_OP_csignal || op == VM_OP_cbroadcast) {
        report_fx_cond(p, in, fx, on, sizeof on);
        fprintf(out, ",\"object\":");
        json_string(out, on);
    } else if (op == VM_OP_send || op == VM_OP_recv) {
        fprintf(out, ",\"object\":");
        json_string(out, p->chans[in->obj].name);
    }
    if (e->reacquire || op == VM_OP_acquire || op == VM_OP_release || op == VM_OP_cwait) {
        if (fx->done && fx->obj >= 0) fprintf(out, ",\"depth\":%" PRId32, fx->val);
        return;
    }
    switch (op) {
    case VM_OP_load:
        if (!fx->done) break;
        json_value(out, "reads", &reads, on, fx->val);
        fprintf(out, "]");
        json_write(out, &writes, rd, fx->old, fx->val);
        break;
    case VM_OP_recv:
        if (!fx->done) break;
        json_value(out, "reads", &reads, p->chans[in->obj].name, fx->val);
        fprintf(out, "]");
        json_write(out, &writes, rd, fx->old, fx->val);
        break;
    case VM_OP_store:
        if (fx->done) json_write(out, &writes, on, fx->old, fx->val);
        break;
    case VM_OP_mov: case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_div:
    case VM_OP_mod: case VM_OP_and: case VM_OP_or: case VM_OP_xor: case VM_OP_shl:
    case VM_OP_shr: case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le:
    case VM_OP_gt: case VM_OP_ge: case VM_OP_not: case VM_OP_neg: case VM_OP_choose:
        if (fx->done) json_write(out, &writes, rd, fx->old, fx->val);
        break;
    case VM_OP_spawn:
        if (!fx->done) break;
        json_write(out, &writes, rd, fx->old, fx->val);
        fprintf(out, "]");
        writes = false;
        json_thread(out, "spawned", p, t, fx->val);
        break;
    case VM_OP_jz: case VM_OP_jnz: case VM_OP_assert: case VM_OP_assume:
        if (report_operand_name(p, t, e, &in->a))
            json_value(out, "reads", &reads, report_operand_name(p, t, e, &in->a), fx->old);
        if (reads) fprintf(out, "]");
        reads = false;
        if (op != VM_OP_assert && op != VM_OP_assume)
            fprintf(out, ",\"taken\":%s", (fx->old == 0) == (op == VM_OP_jz) ? "true" : "false");
        break;
    case VM_OP_send:
        fprintf(out, ",\"sent\":%" PRId32, fx->old);
        break;
    case VM_OP_join:
        if (fx->done) json_thread(out, "joined", p, t, fx->obj);
        break;
    case VM_OP_notify: case VM_OP_notifyall: case VM_OP_csignal: case VM_OP_cbroadcast:
        if (!fx->done) break;
        fprintf(out, ",\"woke\":[");
        for (uint32_t i = 0; i < fx->nwoke; i++) {
            vm_thread_name(p, t->final_state, t->woken[fx->woke + i], tn, sizeof tn);
            if (i) fputc(',', out);
            json_string(out, tn);
        }
        fprintf(out, "]");
        break;
    case VM_OP_call: case VM_OP_ret: /* the stack depth after it, where it returns */
        if (fx->done)
            fprintf(out, ",\"returns_to\":%" PRId32 ",\"return_line\":%d,\"depth\":%" PRId32, fx->val,
                    (int)in[fx->val - (int32_t)e->pc].line,
                    fx->old + (op == VM_OP_call ? 1 : -1));
        break;
    case VM_OP_acquire: case VM_OP_release: case VM_OP_wait: case VM_OP_cwait: case VM_OP_nop:
    case VM_OP_jmp: case VM_OP_end: case VM_OP_atomic: case VM_OP_end_atomic: case VM_OP_COUNT:
        break;
    }
    if (writes) fprintf(out, "]");
}

void report_trace_entry_json(FILE *out, const vm_program *p, const trace *t,
                             const trace_entry *e)
{
    char name[64], note[REPORT_NOTE_MAX];
    const vm_insn *in = report_entry_insn(p, t, e);
    vm_thread_name(p, t->final_state, e->tid, name, sizeof name);
    report_entry_note(e, in, note, sizeof note);
    fprintf(out, "{\"step\":%" PRIu32 ",\"thread\":", e->step);
    json_string(out, name);
    fprintf(out, ",\"tid\":%d,\"pc\":%" PRIu32 ",\"line\":%d,\"instruction\":", e->tid, e->pc,
            in->line);
    json_string(out, in->text);
    if (note[0]) { /* the choice or re-acquire, as before effects */
        fprintf(out, ",\"note\":");
        json_string(out, note);
    }
    report_trace_note(p, t, e, note, sizeof note);
    if (e->fx.recorded && note[0]) {
        fprintf(out, ",\"effect\":");
        json_string(out, note);
    }
    print_effect_json(out, p, t, e, in);
    if (e->step == 0) fprintf(out, ",\"start\":true"); /* --por: a thread's invisible start */
    fprintf(out, "}");
}

/* The trace's lines (trace_view.c): entry objects, and objects for what
 * stands for several (docs/usage.md, "Compact traces"). */
static void print_trace_json(FILE *out, const vm_program *p, const trace *t, bool all)
{
    trace_view v;
    fprintf(out, "[");
    if (trace_view_build(p, t, all, TRACE_VIEW_LINES, &v) != 0) {
        fprintf(out, "]");
        return;
    }
    for (uint32_t k = 0; k < v.n; k++) {
        const trace_item *it = &v.items[k];
        if (k) fputc(',', out);
        switch (it->kind) {
        case TRACE_ITEM_ENTRY:
            report_trace_entry_json(out, p, t, &t->entries[it->entry]);
            break;
        case TRACE_ITEM_REPEAT:
            fprintf(out, "{\"repeat\":{\"lines\":[%d,%d],\"times\":%" PRIu64 ",\"instructions\":%" PRIu64 "}}",
                    it->line_lo, it->line_hi, it->times, it->instructions);
            break;
        case TRACE_ITEM_STEPS:
            fprintf(out, "{\"repeat\":{\"steps\":[%" PRIu32 ",%" PRIu32 "],\"times\":%" PRIu64
                         ",\"step_count\":%" PRIu64 ",\"instructions\":%" PRIu64 "}}",
                    it->step_lo, it->step_hi, it->times, it->steps, it->instructions);
            break;
        case TRACE_ITEM_GAP:
            fprintf(out, "{\"not_kept\":{\"instructions\":%" PRIu64 "}}", it->instructions);
            break;
        case TRACE_ITEM_ELIDED:
            fprintf(out, "{\"left_out\":{\"lines\":%" PRIu64 ",\"instructions\":%" PRIu64
                         ",\"hint\":\"--trace-json FILE writes it all\"}}",
                    it->lines, it->instructions);
            break;
        }
    }
    trace_view_free(&v);
    fprintf(out, "]");
}

void report_trace_status_json(FILE *out, const trace *t)
{
    fprintf(out, ",\"trace_instructions\":%" PRIu64 ",\"trace_complete\":%s,\"trace_stopped\":",
            t->instructions, t->stopped == STOP_COMPLETE ? "true" : "false");
    if (t->stopped == STOP_COMPLETE)
        fprintf(out, "null");
    else
        fprintf(out, "\"%s\"", stop_reason_name(t->stopped));
}

/* "path": the error's scheduling decisions, [[tid,choice],...], all that
 * mcheck --replay reads of a trace (replay_cli.c). */
static void print_path_json(FILE *out, const explore_error *er)
{
    fprintf(out, ",\"path\":[");
    for (uint32_t i = 0; i < er->len; i++)
        fprintf(out, "%s[%" PRId32 ",%" PRIu64 "]", i ? "," : "", er->path[i].tid,
                er->path[i].choice);
    fprintf(out, "]");
}

/* The options that shape a path's steps besides reduce, race, por and
 * spurious_wakeups, for mcheck --replay: "max_invisible" and "defines"
 * (the -D overrides, in order), inside the caller's options object. */
static void print_step_options_json(FILE *out, const report_run *run)
{
    fprintf(out, "\"max_invisible\":%" PRIu64 ",\"defines\":[", run->eo->max_invisible);
    for (size_t i = 0; i < run->ndefs; i++) {
        fprintf(out, "%s{\"name\":", i ? "," : "");
        json_string(out, run->defs[i].name);
        fprintf(out, ",\"value\":%" PRId32 "}", run->defs[i].value);
    }
    fprintf(out, "]");
}

/* "shortened_from" (the depth-first path's steps, or null) and
 * "not_shortened" (why not, or null). */
static void print_shortened_json(FILE *out, const shorten_stats *sh)
{
    char why[256];
    if (sh && sh->outcome == SHORTEN_SHORTER)
        fprintf(out, ",\"shortened_from\":%" PRIu32, sh->from);
    else
        fprintf(out, ",\"shortened_from\":null");
    fprintf(out, ",\"not_shortened\":");
    if (report_not_shortened(sh, why, sizeof why))
        json_string(out, why);
    else
        fprintf(out, "null");
}

/* `t` is NULL when the trace could not be replayed for lack of memory;
 * `file`: the --trace-json file's error, which starts with the model and
 * the options that shape its steps; `all`: --trace=all; `sh`: how its path was
 * shortened (NULL: not tried); `after`: the caller wrote {"trace":[...] and its status fields first (--trace-json
 * streams them): these are the other fields. */
static void error_json(FILE *out, const report_run *file, const vm_program *p,
                       const explore_error *er, const trace *t, bool adapting, bool all,
                       const shorten_stats *sh, bool after)
{
    char name[64], why[192];
    report_hints hints;
    fputc(after ? ',' : '{', out);
    if (file) {
        const explore_options *eo = file->eo;
        fprintf(out, "\"model\":");
        json_string(out, file->model);
        fprintf(out, ",\"options\":{\"reduce\":\"%s\",\"race\":\"%s\",\"por\":%s,"
                     "\"spurious_wakeups\":%s,",
                reduce_mode_name(eo->reduce), race_mode_name(eo->race),
                eo->por ? "true" : "false", p->spurious_wakeups ? "true" : "false");
        if (eo->liveness) fprintf(out, "\"liveness\":\"%s\",", report_liveness_name(eo));
        if (eo->fair) fprintf(out, "\"fair\":true,\"fairness\":\"%s\",", fairness_name(eo->fair));
        if (eo->ltl_text) {
            fprintf(out, "\"ltl\":");
            json_string(out, eo->ltl_text);
            fputc(',', out);
        }
        print_step_options_json(out, file);
        fprintf(out, "},");
        if (file->adapt) {
            fprintf(out, "\"adapted\":[");
            for (uint32_t i = 0; i < file->adapt->nvars; i++) {
                if (i) fputc(',', out);
                json_string(out, p->vars[file->adapt->vars[i].var].name);
            }
            fprintf(out, "],");
        }
    }
    fprintf(out, "\"kind\":\"%s\",\"message\":", verdict_name(er->kind));
    json_string(out, er->msg);
    fprintf(out, ",\"hint\":");
    if (report_hint(p, er, t, adapting, &hints)) {
        char both[2 * REPORT_HINT_MAX + 2];
        snprintf(both, sizeof both, "%s%s%s", hints.line[0], hints.n > 1 ? ". " : "",
                 hints.n > 1 ? hints.line[1] : "");
        json_string(out, both);
    } else {
        fprintf(out, "null");
    }
    print_path_json(out, er);
    if (er->lasso) /* a non-progress cycle: the steps before the cycle */
        fprintf(out, ",\"cycle_start\":%" PRIu32, er->cycle_start);
    if (er->kind == VERDICT_STARVATION && t) { /* --liveness=starvation: the thread */
        vm_thread_name(p, t->final_state, er->starved, name, sizeof name);
        fprintf(out, ",\"starved\":");
        json_string(out, name);
        fprintf(out, ",\"starved_tid\":%" PRId32, er->starved); /* for --replay */
    }
    if (!t) {
        fprintf(out, ",\"thread\":null,\"line\":null,\"steps\":%" PRIu32, er->len);
        print_shortened_json(out, sh);
        fprintf(out, ",\"replayed\":false%s}", after ? "" : ",\"trace\":null");
        return;
    }
    const vm_insn *in = er->tid >= 0 ? report_insn_at(p, t->final_state, er->tid, er->pc) : NULL;
    if (in) {
        vm_thread_name(p, t->final_state, er->tid, name, sizeof name);
        fprintf(out, ",\"thread\":");
        json_string(out, name);
        fprintf(out, ",\"line\":%d,\"instruction\":", in->line);
        json_string(out, in->text);
    } else {
        fprintf(out, ",\"thread\":null,\"line\":null");
    }
    fprintf(out, ",\"steps\":%" PRIu32, er->len);
    print_shortened_json(out, sh);
    fprintf(out, ",\"replayed\":%s", t->diverged ? "false" : "true");
    if (!after) {
        fprintf(out, ",\"trace\":");
        print_trace_json(out, p, t, all);
        report_trace_status_json(out, t);
    }
    if (t->states) { /* --trace-states: the state after each step */
        fprintf(out, ",\"states\":[");
        for (uint32_t k = 0; k < t->nstates; k++) {
            if (k) fputc(',', out);
            report_state_json(out, p, t->states + (size_t)k * p->layout.size, t->states_from + k);
        }
        fprintf(out, "]");
    }
    report_accesses_json(out, p, t);
    if (er->kind == VERDICT_DEADLOCK) {
        fprintf(out, ",\"blocked\":[");
        bool first = true;
        for (uint32_t i = 0; i < p->nthreads; i++) {
            enum vm_tstatus st = vm_tstatus_of(p, t->final_state, (int)i);
            if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
            const vm_insn *bi = report_thread_insn(p, t->final_state, (int)i);
            vm_thread_name(p, t->final_state, (int)i, name, sizeof name);
            vm_describe_block(p, t->final_state, (int)i, why, sizeof why);
            fprintf(out, "%s{\"thread\":", first ? "" : ",");
            json_string(out, name);
            fprintf(out, ",\"line\":%d,\"instruction\":", bi->line);
            json_string(out, bi->text);
            fprintf(out, ",\"waits_for\":");
            json_string(out, why);
            fprintf(out, "}");
            first = false;
        }
        fprintf(out, "]");
    }
    fprintf(out, "}");
}

void report_error_json_mode(FILE *out, const vm_program *p, const explore_error *er,
                            const trace *t, bool adapting, bool all, const shorten_stats *sh)
{
    error_json(out, NULL, p, er, t, adapting, all, sh, false);
}

void report_trace_file_json(FILE *out, const report_run *run, const vm_program *p,
                            const explore_error *er, const trace *t)
{
    error_json(out, run, p, er, t, run->adapt != NULL, true, run->shorten, false);
}

void report_error_json_after_trace(FILE *out, const report_run *run, const vm_program *p,
                                   const explore_error *er, const trace *t)
{
    error_json(out, run, p, er, t, run->adapt != NULL, true, run->shorten, true);
}

/* "unreached": the instructions no thread reached in a complete search,
 * [{"body","line","instruction","pc"}, ...] in body and pc order; null when
 * the search cannot tell (partial, bitstate, out of memory). */
static void print_unreached_json(FILE *out, const vm_program *p, const explore_result *r)
{
    fprintf(out, ",\"unreached\":");
    if (!r->unreached_known) {
        fprintf(out, "null");
        return;
    }
    fprintf(out, "[");
    for (uint32_t i = 0; i < r->nunreached; i++) {
        const vm_body *b = &p->bodies[r->unreached[i].body];
        const vm_insn *in = &b->code[r->unreached[i].pc];
        fprintf(out, "%s{\"body\":", i ? "," : "");
        json_string(out, b->name);
        fprintf(out, ",\"line\":%d,\"instruction\":", (int)in->line);
        json_string(out, in->text);
        fprintf(out, ",\"pc\":%" PRIu32 "}", r->unreached[i].pc);
    }
    fprintf(out, "]");
}

/* The JSON sink: members of "stats" after the common ones, and arrays of
 * objects; text rows are the text report's. */
typedef struct json_rows {
    FILE *out;
    int depth;                /* arrays and objects open */
    bool empty[4];            /* the one open at each depth has no member yet */
    char close[4];            /* and what closes it */
} json_rows;

static void json_member(stats_sink *k, const stats_member *m)
{
    json_rows *j = k->out;
    if (m->kind == STATS_END) {
        if (j->depth) fputc(j->close[j->depth--], j->out);
        return;
    }
    if (j->depth && j->empty[j->depth])
        j->empty[j->depth] = false;
    else
        fputc(',', j->out);
    if (m->key) {
        json_string(j->out, m->key);
        fputc(':', j->out);
    }
    switch (m->kind) {
    case STATS_COUNT: fprintf(j->out, "%" PRIu64, m->count); break;
    case STATS_SIGNED: fprintf(j->out, "%" PRId64, m->number); break;
    case STATS_NULL: fprintf(j->out, "null"); break;
    case STATS_SECONDS: fprintf(j->out, "%.6f", m->seconds); break;
    case STATS_ARRAY:
    case STATS_OBJECT:
        fputc(m->kind == STATS_ARRAY ? '[' : '{', j->out);
        if (j->depth + 1 < 4) {
            j->depth++;
            j->empty[j->depth] = true;
            j->close[j->depth] = m->kind == STATS_ARRAY ? ']' : '}';
        }
        break;
    case STATS_END: break;
    }
}

/* The rows at one place among the common members (explore_stats_rows()). */
static void print_rows_json(FILE *out, const explore_options *eo, const explore_result *r,
                            stats_place at)
{
    json_rows j = {.out = out};
    stats_sink k = {.at = at, .member = json_member, .out = &j};
    explore_stats_rows(eo, r, &k);
}

void report_json(FILE *out, const report_run *run, const vm_program *p, const explore_result *r,
                 const trace *traces)
{
    const explore_stats *x = &r->stats;
    const explore_options *eo = run->eo;
    const explore_adaptation *a = run->adapt;
    fprintf(out, "{\"mcheck\":\"%s\",\"model\":", VM_VERSION);
    json_string(out, run->model);
    fprintf(out, ",\"verdict\":\"%s\",\"complete\":%s,\"stop\":\"%s\"",
            verdict_name(r->verdict),
            r->stop == STOP_COMPLETE ? "true" : "false", stop_reason_name(r->stop));
    /* the part of the counted memory that filled --memlimit; null otherwise */
    if (r->stop == STOP_MEMLIMIT)
        fprintf(out, ",\"memlimit_part\":\"%s\"", mem_part_name(r->memlimit_part));
    else
        fprintf(out, ",\"memlimit_part\":null");
    /* a stopped run's hint: a counter register (hint_counter.c), else the
     * bug-hunting searches (hint_hunt.c); or null */
    char counter[512];
    fprintf(out, ",\"stop_hint\":");
    if (report_stop_hint(p, eo, r, counter, sizeof counter))
        json_string(out, counter);
    else
        fprintf(out, "null");
    fprintf(out, ",\"options\":{\"reduce\":\"%s\",\"race\":\"%s\",\"store\":\"%s\","
                 "\"fingerprint_bits\":%u,\"search\":\"%s\",\"max_depth\":%" PRIu64
                 ",\"spurious_wakeups\":%s,\"por\":%s,\"workers\":%u,",
            reduce_mode_name(eo->reduce), race_mode_name(eo->race),
            eo->search == SEARCH_STATELESS ? "none" : store_kind_name(eo->store.kind),
            eo->store.fingerprint_bits, search_order_name(eo->search),
            eo->max_depth, p->spurious_wakeups ? "true" : "false",
            eo->por ? "true" : "false", eo->workers);
    print_step_options_json(out, run);
    if (eo->search == SEARCH_STATELESS) /* only then: the other reports stay as they were */
        fprintf(out, ",\"scheduling\":\"%s\"", eo->scheduling_races ? "races" : "all");
    if (eo->swarm) /* --swarm only, likewise */
        fprintf(out, ",\"swarm\":%u,\"swarm_seed\":%" PRIu64, eo->swarm, eo->swarm_seed);
    if (eo->ltl_text) { /* --ltl only, likewise */
        fprintf(out, ",\"ltl\":");
        json_string(out, eo->ltl_text);
    }
    if (eo->liveness) /* only then, likewise */
        fprintf(out, ",\"liveness\":\"%s\",\"progress_labels\":%" PRIu32,
                report_liveness_name(eo), report_progress_labels(p));
    if (eo->liveness == LIVENESS_STARVATION || eo->fair)
        fprintf(out, ",\"fair\":%s,\"fairness\":\"%s\"", eo->fair ? "true" : "false",
                fairness_name(eo->fair));
    fprintf(out, "}");
    const char *notes[REPORT_NOTES_MAX];
    int nnotes = report_run_notes(eo, notes, REPORT_NOTES_MAX);
    fprintf(out, ",\"notes\":[");
    for (int k = 0; k < nnotes; k++) {
        if (k) fputc(',', out);
        json_string(out, notes[k]);
    }
    fputc(']', out);
    if (a) { /* the variables --adapt made volatile, in order */
        fprintf(out, ",\"adapted\":[");
        for (uint32_t i = 0; i < a->nvars; i++) {
            if (i) fputc(',', out);
            json_string(out, p->vars[a->vars[i].var].name);
        }
        fprintf(out, "],\"adapt_runs\":%u", a->runs);
    }
    fprintf(out, ",\"error\":");
    if (r->nerrors)
        report_error_json_mode(out, p, &r->errors[0], report_trace_of(traces, 0), a != NULL,
                               run->trace_all, run->shorten);
    else
        fprintf(out, "null");
    fprintf(out, ",\"errors\":[");
    for (uint32_t i = 0; i < r->nerrors; i++) {
        if (i) fprintf(out, ",");
        report_error_json_mode(out, p, &r->errors[i], report_trace_of(traces, i), a != NULL,
                               run->trace_all, i == 0 ? run->shorten : NULL);
    }
    fprintf(out, "],\"error_counts\":{");
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++)
        if ((k != VERDICT_NON_PROGRESS || eo->liveness == LIVENESS_NPC) &&
            (k != VERDICT_STARVATION || eo->liveness == LIVENESS_STARVATION) &&
            (k != VERDICT_LTL || eo->ltl)) /* as it was */
            fprintf(out, "%s\"%s\":%" PRIu64, k == VERDICT_DEADLOCK ? "" : ",",
                    verdict_name((verdict)k), r->error_count[k]);
    fprintf(out, "}");
    print_unreached_json(out, p, r);
    double bps = x->states_stored ? (double)x->store_bytes / (double)x->states_stored : 0;
    fprintf(out,
            ",\"stats\":{\"states_stored\":%" PRIu64 ",\"transitions\":%" PRIu64
            ",\"states_matched\":%" PRIu64 ",\"max_depth\":%" PRIu64 ",\"instructions\":%" PRIu64
            ",\"invisible_instructions\":%" PRIu64 ",\"composed_transitions\":%" PRIu64
            ",\"avg_composed_step\":%.3f"
            ",\"state_vector_bytes\":%" PRIu64 ",\"store_bytes\":%" PRIu64
            ",\"bytes_per_state\":%.3f,\"search_bytes\":%" PRIu64 ",\"peak_rss_bytes\":%" PRIu64
            ",\"omission_probability\":%.6g,\"locksets\":%" PRIu64
            ",\"detector_seconds\":%.6f,\"search_bytes_used\":%" PRIu64
            ",\"search_bytes_reserved\":%" PRIu64 ",\"search_buffer_bytes\":%" PRIu64
            ",\"error_bytes\":%" PRIu64 ",\"counted_bytes\":%" PRIu64
            ",\"refused_bytes\":%" PRIu64 ",\"end_states\":%" PRIu64,
            x->states_stored, x->transitions, x->states_matched, x->max_depth, x->instructions,
            x->invisible, eo->reduce == REDUCE_COMPOSE ? x->transitions : 0,
            x->transitions ? (double)x->instructions / (double)x->transitions : 0.0,
            x->vector_bytes, x->store_bytes, bps, x->search_bytes, x->peak_rss, x->omission,
            x->locksets, x->detector_seconds, x->search_used, x->search_reserved,
            x->buffer_bytes, x->error_bytes, explore_counted_bytes(x), x->refused_bytes,
            x->end_states);
    print_rows_json(out, eo, r, STATS_REDUCTION);
    print_rows_json(out, eo, r, STATS_SEARCH);
    if (eo->store.kind == STORE_BITSTATE)
        fprintf(out, ",\"coverage\":%.6g", 1.0 - x->omission);
    else
        fprintf(out, ",\"coverage\":null");
    fprintf(out, ",\"seconds\":%.6f,\"states_per_second\":%.1f", x->seconds,
            x->seconds > 0 ? (double)x->states_stored / x->seconds : 0.0);
    /* the breadth-first search for a shorter trace (explore_shorten), not
     * counted in the search's figures above; null when none ran */
    const shorten_stats *sh = run->shorten;
    if (sh && sh->outcome != SHORTEN_NOT_TRIED)
        fprintf(out, ",\"shortening\":{\"states_stored\":%" PRIu64 ",\"seconds\":%.6f"
                     ",\"stop\":\"%s\",\"shortened\":%s}",
                sh->states, sh->seconds, stop_reason_name(sh->stop),
                sh->outcome == SHORTEN_SHORTER ? "true" : "false");
    else
        fprintf(out, ",\"shortening\":null");
    print_rows_json(out, eo, r, STATS_LOAD);
    fprintf(out, "}}\n");
}
