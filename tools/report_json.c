/* report_json.c: the JSON report of a search (--json): one object with the
 * verdict, why the search stopped, the options, each kept error with its
 * replayed trace (also --trace-json's file), the error counts by kind, the
 * unreached code of a complete search and the statistics. Field names are an interface: docs/usage.md lists them
 * and tests/test_cli.py reads them. It prints what it is given: it decides
 * no verdict and replays nothing. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "store.h"
#include "tools_int.h"

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void print_trace_json(FILE *out, const vm_program *p, const trace *t)
{
    char name[64], note[64];
    fprintf(out, "[");
    for (uint32_t i = 0; i < t->n; i++) {
        const trace_entry *e = &t->entries[i];
        const vm_insn *in = report_entry_insn(p, t, e);
        vm_thread_name(p, t->final_state, e->tid, name, sizeof name);
        report_entry_note(e, in, note, sizeof note);
        fprintf(out, "%s{\"step\":%" PRIu32 ",\"thread\":", i ? "," : "", e->step);
        json_string(out, name);
        fprintf(out, ",\"tid\":%d,\"pc\":%" PRIu32 ",\"line\":%d,\"instruction\":", e->tid, e->pc,
                in->line);
        json_string(out, in->text);
        if (note[0]) {
            fprintf(out, ",\"note\":");
            json_string(out, note);
        }
        if (e->step == 0) fprintf(out, ",\"start\":true"); /* --por: a thread's invisible start */
        fprintf(out, "}");
    }
    fprintf(out, "]");
}

/* `t` is NULL when the trace could not be replayed for lack of memory. */
void report_error_json(FILE *out, const vm_program *p, const explore_error *er,
                             const trace *t)
{
    char name[64], why[192];
    fprintf(out, "{\"kind\":\"%s\",\"message\":", verdict_name(er->kind));
    json_string(out, er->msg);
    if (!t) {
        fprintf(out, ",\"thread\":null,\"line\":null,\"steps\":%" PRIu32
                     ",\"replayed\":false,\"trace\":null}", er->len);
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
    fprintf(out, ",\"steps\":%" PRIu32 ",\"replayed\":%s,\"trace\":", er->len,
            t->diverged ? "false" : "true");
    print_trace_json(out, p, t);
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
    fprintf(out, ",\"options\":{\"reduce\":\"%s\",\"race\":\"%s\",\"store\":\"%s\","
                 "\"fingerprint_bits\":%u,\"search\":\"%s\",\"max_depth\":%" PRIu64
                 ",\"spurious_wakeups\":%s,\"por\":%s}",
            reduce_mode_name(eo->reduce), race_mode_name(eo->race),
            store_kind_name(eo->store.kind),
            eo->store.fingerprint_bits, search_order_name(eo->search),
            eo->max_depth, p->spurious_wakeups ? "true" : "false",
            eo->por ? "true" : "false");
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
        report_error_json(out, p, &r->errors[0], report_trace_of(traces, 0));
    else
        fprintf(out, "null");
    fprintf(out, ",\"errors\":[");
    for (uint32_t i = 0; i < r->nerrors; i++) {
        if (i) fprintf(out, ",");
        report_error_json(out, p, &r->errors[i], report_trace_of(traces, i));
    }
    fprintf(out, "],\"error_counts\":{");
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++)
        fprintf(out, "%s\"%s\":%" PRIu64, k == VERDICT_DEADLOCK ? "" : ",", verdict_name((verdict)k),
                r->error_count[k]);
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
            ",\"detector_seconds\":%.6f",
            x->states_stored, x->transitions, x->states_matched, x->max_depth, x->instructions,
            x->invisible, eo->reduce == REDUCE_COMPOSE ? x->transitions : 0,
            x->transitions ? (double)x->instructions / (double)x->transitions : 0.0,
            x->vector_bytes, x->store_bytes, bps, x->search_bytes, x->peak_rss, x->omission,
            x->locksets, x->detector_seconds);
    if (eo->por) /* only with --por: the default report stays as it was */
        fprintf(out, ",\"discharged_elements\":%" PRIu64 ",\"shared_elements\":%" PRIu64,
                x->discharged, x->shared_elements);
    /* bitstate covers part of the states, by an estimate; the others all */
    if (eo->por)
        fprintf(out, ",\"por_reduced_states\":%" PRIu64 ",\"por_proviso_states\":%" PRIu64,
                x->por_reduced, x->por_proviso);
    if (eo->store.kind == STORE_BITSTATE)
        fprintf(out, ",\"coverage\":%.6g", 1.0 - x->omission);
    else
        fprintf(out, ",\"coverage\":null");
    fprintf(out, ",\"seconds\":%.6f,\"states_per_second\":%.1f}}\n", x->seconds,
            x->seconds > 0 ? (double)x->states_stored / x->seconds : 0.0);
}
