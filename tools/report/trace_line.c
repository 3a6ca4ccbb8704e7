/* trace_line.c: what every report prints of one trace line and of one
 * thread: the instruction an entry or a thread stands at (a placeholder
 * when the trace did not replay that far), the note of a line (what the
 * instruction did with values, from its trace_effect), the line itself,
 * the blocked threads of a deadlock and the sentence of a replay a limit
 * stopped. The text, JSON and HTML reports, the explanations, the hints
 * and the trace view call it; it calls none of them (split out of
 * report_text.c, so that the files around it need not call one another). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

const vm_insn *report_insn_at(const vm_program *p, const uint8_t *s, int tid, uint32_t pc)
{
    if (!s || tid < 0 || (uint32_t)tid >= p->nthreads) return NULL;
    const vm_body *b = vm_thread_body(p, s, tid);
    return b && pc < b->ncode ? &b->code[pc] : NULL;
}

static const vm_insn unknown_insn = {.line = 0, .text = "?"};

const vm_insn *report_entry_insn(const vm_program *p, const trace *t, const trace_entry *e)
{
    const vm_insn *in = report_insn_at(p, t->final_state, e->tid, e->pc);
    return in ? in : &unknown_insn;
}

const vm_insn *report_thread_insn(const vm_program *p, const uint8_t *s, int tid)
{
    const vm_insn *in = report_insn_at(p, s, tid, vm_tpc(p, s, tid));
    return in ? in : &unknown_insn;
}

void report_entry_note(const trace_entry *e, const vm_insn *in, char *buf, size_t n)
{
    buf[0] = '\0';
    bool cv = in->op == VM_OP_cwait;
    if (e->reacquire && e->spurious)
        snprintf(buf, n, "(spurious wakeup: re-acquire without a %s)", cv ? "signal" : "notify");
    else if (e->reacquire)
        snprintf(buf, n, "(re-acquire after %s)", cv ? "cwait" : "notify");
    else if (e->first && in->op == VM_OP_choose && in->a.kind == VM_ARG_IMM)
        snprintf(buf, n, "(chose %" PRId64 ")", (int64_t)in->a.val + (int64_t)e->choice);
    else if (e->first && in->op == VM_OP_choose)
        snprintf(buf, n, "(choice %" PRIu64 ")", e->choice);
    else if (e->first && (in->op == VM_OP_notify || in->op == VM_OP_csignal) && e->choice)
        snprintf(buf, n, "(wakes waiter %" PRIu64 ")", e->choice + 1);
}

const char *report_reg_name(const vm_program *p, const trace *t, const trace_entry *e,
                            uint32_t r)
{
    const vm_body *b = t->final_state ? vm_thread_body(p, t->final_state, e->tid) : NULL;
    return b && r < b->nregs ? b->regname[r] : "?";
}

const char *report_operand_name(const vm_program *p, const trace *t, const trace_entry *e,
                                const vm_operand *o)
{
    switch ((enum vm_argkind)o->kind) {
    case VM_ARG_REG: return report_reg_name(p, t, e, (uint32_t)o->val);
    case VM_ARG_SELF: return "self";
    case VM_ARG_TID: return "tid";
    case VM_ARG_IMM: break;
    }
    return NULL;
}

void report_fx_object(const vm_program *p, const vm_insn *in, const trace_effect *fx, bool lock,
                      char *buf, size_t n)
{
    if (fx->obj >= 0 && lock)
        vm_lock_name(p, (uint32_t)fx->obj, buf, n);
    else if (fx->obj >= 0)
        vm_elem_name(p, (uint32_t)fx->obj, buf, n);
    else
        snprintf(buf, n, "%s[%" PRId32 "]", lock ? p->lockdecls[in->obj].name : p->vars[in->obj].name,
                 fx->idx);
}

void report_fx_cond(const vm_program *p, const vm_insn *in, const trace_effect *fx, char *buf,
                    size_t n)
{
    const vm_lockdecl *d = &p->conddecls[in->cond];
    if (d->is_array)
        snprintf(buf, n, "%s[%" PRId32 "]", d->name, fx->idx);
    else
        snprintf(buf, n, "%s", d->name);
}

/* The lock's name when an operand decided it, then its depth when held
 * recursively (`depth` > 1, or `held` > 0 after a release). */
static void lock_effect(const vm_program *p, const vm_insn *in, const trace_effect *fx,
                        bool release, char *buf, size_t n)
{
    char ln[64] = "";
    if (in->idx.kind != VM_ARG_IMM || fx->obj < 0) report_fx_object(p, in, fx, true, ln, sizeof ln);
    if (fx->done && fx->obj >= 0 && (release ? fx->val > 0 : fx->val > 1))
        snprintf(buf, n, "%s%s%sdepth %" PRId32, ln, ln[0] ? ", " : "",
                 release ? "still held, " : "", fx->val);
    else
        snprintf(buf, n, "%s", ln);
}

/* The effect of a recorded entry (trace_effect), as one short note. */
static void effect_note(const vm_program *p, const trace *t, const trace_entry *e,
                        const vm_insn *in, char *buf, size_t n)
{
    const trace_effect *fx = &e->fx;
    char on[64], tn[64];
    const char *rd = report_reg_name(p, t, e, in->rd);
    buf[0] = '\0';
    if (e->reacquire) {
        if (in->idx.kind != VM_ARG_IMM) report_fx_object(p, in, fx, true, on, sizeof on);
        snprintf(buf, n, "%s%s%s%s", e->spurious ? "spurious wakeup: re-acquire" : "re-acquire",
                 in->idx.kind != VM_ARG_IMM ? " " : "", in->idx.kind != VM_ARG_IMM ? on : "",
                 e->spurious ? (in->op == VM_OP_cwait ? " without a signal" : " without a notify")
                             : (in->op == VM_OP_cwait ? " after cwait" : " after notify"));
        if (fx->done && fx->val > 1)
            snprintf(buf + strlen(buf), n - strlen(buf), ", depth %" PRId32, fx->val);
        return;
    }
    switch ((enum vm_opcode)in->op) {
    case VM_OP_mov:
        if (in->a.kind == VM_ARG_IMM) break; /* says it already */
        /* fall through */
    case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_div: case VM_OP_mod:
    case VM_OP_and: case VM_OP_or: case VM_OP_xor: case VM_OP_shl: case VM_OP_shr:
    case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le: case VM_OP_gt: case VM_OP_ge:
    case VM_OP_not: case VM_OP_neg:
        if (fx->done) snprintf(buf, n, "%s = %" PRId32, rd, fx->val);
        break;
    case VM_OP_choose:
        if (fx->done) snprintf(buf, n, "chose %s = %" PRId32, rd, fx->val);
        break;
    case VM_OP_load:
        report_fx_object(p, in, fx, false, on, sizeof on);
        if (fx->done)
            snprintf(buf, n, "%s = %" PRId32 " -> %s", on, fx->val, rd);
        else if (fx->obj < 0 || in->idx.kind != VM_ARG_IMM)
            snprintf(buf, n, "%s%s", on, fx->obj < 0 ? " (out of range)" : "");
        break;
    case VM_OP_store:
        report_fx_object(p, in, fx, false, on, sizeof on);
        if (fx->done)
            snprintf(buf, n, "%s: %" PRId32 " -> %" PRId32, on, fx->old, fx->val);
        else if (fx->obj < 0 || in->idx.kind != VM_ARG_IMM)
            snprintf(buf, n, "%s%s", on, fx->obj < 0 ? " (out of range)" : "");
        break;
    case VM_OP_jz: case VM_OP_jnz: {
        const char *taken = (fx->old == 0) == (in->op == VM_OP_jz) ? "taken" : "not taken";
        const char *a = report_operand_name(p, t, e, &in->a);
        if (a)
            snprintf(buf, n, "%s = %" PRId32 ": %s", a, fx->old, taken);
        else
            snprintf(buf, n, "%s", taken);
        break;
    }
    case VM_OP_assert: case VM_OP_assume:
        if (report_operand_name(p, t, e, &in->a))
            snprintf(buf, n, "%s = %" PRId32, report_operand_name(p, t, e, &in->a), fx->old);
        break;
    case VM_OP_atomic:
        /* in points into its body's code, where a.val is the end's pc */
        snprintf(buf, n, "one step, to end_atomic at line %d",
                 (int)in[(uint32_t)in->a.val - e->pc].line);
        break;
    case VM_OP_acquire: case VM_OP_wait:
        lock_effect(p, in, fx, false, buf, n);
        break;
    case VM_OP_release: case VM_OP_cwait:
        lock_effect(p, in, fx, true, buf, n);
        break;
    case VM_OP_csignal: case VM_OP_cbroadcast: {
        size_t k = 0;
        if (in->cidx.kind != VM_ARG_IMM) {
            report_fx_cond(p, in, fx, on, sizeof on);
            k = (size_t)snprintf(buf, n, "%s%s", on, fx->done ? ": " : "");
        }
        if (!fx->done || k >= n) break;
        if (!fx->nwoke) snprintf(buf + k, n - k, "no waiter (lost)");
        for (uint32_t i = 0; i < fx->nwoke && k < n; i++) {
            vm_thread_name(p, t->final_state, t->woken[fx->woke + i], tn, sizeof tn);
            k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "wakes ", tn);
        }
        break;
    }
    case VM_OP_notify: case VM_OP_notifyall: {
        size_t k = 0;
        if (in->idx.kind != VM_ARG_IMM || fx->obj < 0) {
            report_fx_object(p, in, fx, true, on, sizeof on);
            k = (size_t)snprintf(buf, n, "%s%s", on, fx->done ? ": " : "");
        }
        if (!fx->done || k >= n) break;
        if (!fx->nwoke) snprintf(buf + k, n - k, "no waiter");
        for (uint32_t i = 0; i < fx->nwoke && k < n; i++) {
            vm_thread_name(p, t->final_state, t->woken[fx->woke + i], tn, sizeof tn);
            k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "wakes ", tn);
        }
        break;
    }
    case VM_OP_send:
        snprintf(buf, n, "%" PRId32 " -> %s", fx->old, p->chans[in->obj].name);
        break;
    case VM_OP_recv:
        if (fx->done) snprintf(buf, n, "%" PRId32 " from %s -> %s", fx->val, p->chans[in->obj].name, rd);
        break;
    case VM_OP_spawn:
        if (fx->done && fx->val >= 0 && (uint32_t)fx->val < p->nthreads) {
            vm_thread_name(p, t->final_state, fx->val, tn, sizeof tn);
            snprintf(buf, n, "%s = %" PRId32 " (%s)", rd, fx->val, tn);
        }
        break;
    case VM_OP_join:
        if (fx->done && fx->obj >= 0 && (uint32_t)fx->obj < p->nthreads) {
            vm_thread_name(p, t->final_state, fx->obj, tn, sizeof tn);
            snprintf(buf, n, "joined %s", tn);
        }
        break;
    case VM_OP_call: case VM_OP_ret: /* where it returns (in + k is pc + k's insn) */
        if (fx->done)
            snprintf(buf, n, "%s line %d, pc %" PRId32 " (depth %" PRId32 ")",
                     in->op == VM_OP_call ? "returns to" : "back to",
                     (int)in[fx->val - (int32_t)e->pc].line, fx->val,
                     fx->old + (in->op == VM_OP_call ? 1 : -1));
        else
            snprintf(buf, n, "%s (depth %" PRId32 ")",
                     in->op == VM_OP_call ? "return stack full" : "return stack empty", fx->old);
        break;
    case VM_OP_nop: case VM_OP_jmp: case VM_OP_end: case VM_OP_end_atomic: case VM_OP_COUNT:
        break;
    }
}

void report_trace_note(const vm_program *p, const trace *t, const trace_entry *e, char *buf,
                       size_t n)
{
    const vm_insn *in = report_entry_insn(p, t, e);
    if (e->fx.recorded && in != &unknown_insn)
        effect_note(p, t, e, in, buf, n);
    else
        report_entry_note(e, in, buf, n);
}

int report_trace_width(const vm_program *p, const trace *t)
{
    char note[REPORT_NOTE_MAX];
    int w = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        report_trace_note(p, t, &t->entries[i], note, sizeof note);
        int len = (int)strlen(report_entry_insn(p, t, &t->entries[i])->text);
        if (note[0] && len > w && len <= REPORT_NOTE_COLUMN) w = len;
    }
    return w;
}

void report_trace_line(FILE *out, const vm_program *p, const trace *t, const trace_entry *e,
                       int width)
{
    char name[64], note[REPORT_NOTE_MAX], step[16] = "";
    const vm_insn *in = report_entry_insn(p, t, e);
    vm_thread_name(p, t->final_state, e->tid, name, sizeof name);
    if (e->first) snprintf(step, sizeof step, "%" PRIu32, e->step);
    if (e->fx.recorded) {
        report_trace_note(p, t, e, note, sizeof note);
        if (note[0])
            fprintf(out, "%6s  %-14s %5d  %-*s  ; %s\n", step, name, in->line, width, in->text, note);
        else
            fprintf(out, "%6s  %-14s %5d  %s\n", step, name, in->line, in->text);
        return;
    }
    report_entry_note(e, in, note, sizeof note); /* --simulate: no effects */
    fprintf(out, "%6s  %-14s %5d  %s%s%s\n", step, name, in->line, in->text, note[0] ? "  " : "",
            note);
}

void report_blocked_threads(FILE *out, const vm_program *p, const uint8_t *s)
{
    char name[64], why[192];
    for (uint32_t t = 0; t < p->nthreads; t++) {
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        const vm_insn *in = report_thread_insn(p, s, (int)t);
        vm_thread_name(p, s, (int)t, name, sizeof name);
        vm_describe_block(p, s, (int)t, why, sizeof why);
        fprintf(out, "  %-14s line %d (%s): %s%s\n", name, in->line, in->text, why,
                in->end_label ? " [end label]" : "");
    }
}

const char *report_stop_option(stop_reason s)
{
    switch (s) {
    case STOP_TIMELIMIT: return "--timelimit";
    case STOP_MEMLIMIT: return "--memlimit";
    case STOP_INTERRUPTED: return "an interrupt";
    default: return "out of memory";
    }
}

void report_trace_stopped_text(FILE *out, const trace *t)
{
    if (t->stopped == STOP_COMPLETE) return;
    fprintf(out, "trace: not complete: replay stopped by %s after %" PRIu64 " instructions\n",
            report_stop_option(t->stopped), t->instructions);
}
