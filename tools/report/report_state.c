/* report_state.c: the whole state after a trace step (--trace-states, like
 * TLC's traces and SPIN's -g -l): every global, the lock elements that are
 * held or have waiters (and how many are free), the channels' contents and
 * each started thread's status, pc with its source line, registers by
 * name and return stack (if not empty). One walk over the state prints it either as the indented text block
 * under a step or as one JSON object of the error's "states" array
 * (docs/usage.md). It reads a state vector only: the detector's metadata,
 * the spawn counters and unused spawn slots are not shown. */
#include <inttypes.h>
#include <stdio.h>

#include "report_int.h"

static const char *const status_word[] = {"unused", "running", "waiting", "notified", "ended"};

/* The output's form: the separators the walk writes between its parts. */
typedef struct state_out {
    FILE *f;
    bool json;
    const char *indent; /* text: before each line */
} state_out;

/* Text: starts a line; JSON: a separator before the k-th member. */
static void item(const state_out *o, uint32_t k)
{
    if (o->json)
        fputs(k ? "," : "", o->f);
    else
        fprintf(o->f, "%s", o->indent);
}

static void name_out(const state_out *o, const char *name)
{
    if (o->json) {
        json_string(o->f, name);
        fputc(':', o->f);
    } else {
        fprintf(o->f, "%s = ", name);
    }
}

static void globals(const state_out *o, const vm_program *p, const uint8_t *s)
{
    if (o->json) fputs("\"globals\":{", o->f);
    for (uint32_t i = 0; i < p->nvars; i++) {
        const vm_var *v = &p->vars[i];
        item(o, i);
        name_out(o, v->name);
        if (v->is_array) fputs(o->json ? "[" : "{", o->f);
        for (uint32_t e = 0; e < v->size; e++)
            fprintf(o->f, "%s%" PRId32, e ? (o->json ? "," : ", ") : "",
                    vm_global(p, s, v->first_elem + e));
        if (v->is_array) fputs(o->json ? "]" : "}", o->f);
        if (!o->json) fputc('\n', o->f);
    }
    if (o->json) fputs("}", o->f);
}

static void locks(const state_out *o, const vm_program *p, const uint8_t *s)
{
    char name[64];
    uint32_t shown = 0, nfree = 0;
    if (o->json) fputs(",\"locks\":[", o->f);
    for (uint32_t l = 0; l < p->nlocks; l++) {
        const uint8_t *lk = s + p->layout.locks_off + l * p->layout.lock_bytes;
        const uint8_t *ws = lk + 3;
        int owner = vm_lock_owner(p, s, l);
        bool waiters = false;
        for (uint32_t b = 0; b < p->layout.wsbytes; b++) waiters |= ws[b] != 0;
        if (owner < 0 && !waiters) {
            nfree++;
            continue;
        }
        item(o, shown++);
        vm_lock_name(p, l, name, sizeof name);
        if (o->json) {
            fputs("{\"name\":", o->f);
            json_string(o->f, name);
            fputs(",\"owner\":", o->f);
        } else {
            fprintf(o->f, "%s: ", name);
        }
        if (owner >= 0) {
            vm_thread_name(p, s, owner, name, sizeof name);
            if (o->json) {
                json_string(o->f, name);
                fprintf(o->f, ",\"depth\":%" PRIu32 ",\"waiting\":[", vm_rd16(lk, 1));
            } else {
                fprintf(o->f, "held by %s, depth %" PRIu32, name, vm_rd16(lk, 1));
            }
        } else {
            fputs(o->json ? "null,\"depth\":0,\"waiting\":[" : "free", o->f);
        }
        uint32_t k = 0;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            if (!(ws[t >> 3] & (1u << (t & 7)))) continue;
            vm_thread_name(p, s, (int)t, name, sizeof name);
            if (o->json) {
                if (k++) fputc(',', o->f);
                json_string(o->f, name);
            } else {
                fprintf(o->f, "%s%s", k++ ? ", " : "; wait set: ", name);
            }
        }
        fputs(o->json ? "]}" : "\n", o->f);
    }
    if (o->json)
        fprintf(o->f, "],\"locks_free\":%" PRIu32, nfree);
    else if (nfree && p->nlocks)
        fprintf(o->f, "%s%" PRIu32 " %slock%s free\n", o->indent, nfree, shown ? "other " : "",
                nfree == 1 ? "" : "s");
}

/* The non-empty wait sets of the conds (nothing for a model without one:
 * the JSON of such a model keeps its fields). */
static void conds(const state_out *o, const vm_program *p, const uint8_t *s)
{
    char name[64];
    uint32_t shown = 0;
    if (!p->nconds) return;
    if (o->json) fputs(",\"conds\":{", o->f);
    for (uint32_t q = 0; q < p->nconds; q++) {
        const uint8_t *ws = s + vm_cond_off(p, q);
        uint32_t k = 0;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            if (!(ws[t >> 3] & (1u << (t & 7)))) continue;
            if (!k) {
                item(o, shown++);
                vm_cond_name(p, q, name, sizeof name);
                if (o->json) {
                    json_string(o->f, name);
                    fputs(":[", o->f);
                } else {
                    fprintf(o->f, "cond %s: wait set: ", name);
                }
            }
            vm_thread_name(p, s, (int)t, name, sizeof name);
            if (o->json) {
                if (k) fputc(',', o->f);
                json_string(o->f, name);
            } else {
                fprintf(o->f, "%s%s", k ? ", " : "", name);
            }
            k++;
        }
        if (k) fputs(o->json ? "]" : "\n", o->f);
    }
    if (o->json) fputs("}", o->f);
}

static void channels(const state_out *o, const vm_program *p, const uint8_t *s)
{
    if (o->json) fputs(",\"channels\":{", o->f);
    for (uint32_t c = 0; c < p->nchans; c++) {
        const vm_chan *ch = &p->chans[c];
        uint32_t len = s[ch->offset];
        item(o, c);
        if (o->json) {
            json_string(o->f, ch->name);
            fputs(":[", o->f);
        } else {
            fprintf(o->f, "chan %s = [", ch->name);
        }
        for (uint32_t i = 0; i < len; i++)
            fprintf(o->f, "%s%" PRId32, i ? (o->json ? "," : ", ") : "",
                    vm_rd32(s, ch->offset + 1 + 4 * i));
        if (o->json)
            fputc(']', o->f);
        else if (ch->cap == 0)
            fprintf(o->f, "] (rendezvous)\n");
        else
            fprintf(o->f, "] (%" PRIu32 " of %" PRIu32 ")\n", len, ch->cap);
    }
    if (o->json) fputs("}", o->f);
}

/* A thread's return stack, bottom first, as the pcs (and lines) its rets
 * will go to; nothing when it is empty. */
static void return_stack(const state_out *o, const vm_program *p, const uint8_t *s, uint32_t t,
                         const vm_body *b)
{
    const vm_thread_slot *sl = &p->threads[t];
    uint32_t sp = sl->stack_off ? s[sl->offset + sl->stack_off] : 0;
    if (!sp || !b) return;
    fputs(o->json ? ",\"return_stack\":[" : "; return stack:", o->f);
    for (uint32_t i = 0; i < sp; i++) {
        uint32_t to = vm_rd16(s, sl->offset + sl->stack_off + 1 + 2 * i);
        if (o->json)
            fprintf(o->f, "%s%" PRIu32, i ? "," : "", to);
        else
            fprintf(o->f, " line %d (pc %" PRIu32 ")", to < b->ncode ? (int)b->code[to].line : 0, to);
    }
    if (o->json) fputc(']', o->f);
}

static void threads(const state_out *o, const vm_program *p, const uint8_t *s)
{
    char name[64];
    uint32_t shown = 0;
    if (o->json) fputs(",\"threads\":[", o->f);
    for (uint32_t t = 0; t < p->nthreads; t++) {
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
        if (st == VM_T_UNUSED) continue;
        item(o, shown++);
        vm_thread_name(p, s, (int)t, name, sizeof name);
        const vm_body *b = vm_thread_body(p, s, (int)t);
        uint32_t pc = vm_tpc(p, s, (int)t);
        const vm_insn *in = report_thread_insn(p, s, (int)t);
        /* running, but no step of it can run (a held lock, an empty channel,
         * a join of a live thread): blocked, as the deadlock's list says */
        bool blocked = st == VM_T_RUNNING && vm_enabled(p, s, (int)t) == 0;
        if (o->json) {
            fputs("{\"name\":", o->f);
            json_string(o->f, name);
            fprintf(o->f, ",\"tid\":%" PRIu32 ",\"status\":\"%s\"%s", t, status_word[st],
                    blocked ? ",\"blocked\":true" : "");
        } else {
            fprintf(o->f, "%s: %s", name, blocked ? "blocked" : status_word[st]);
        }
        if (st == VM_T_ENDED) {
            fputs(o->json ? "}" : "\n", o->f);
            continue;
        }
        if (o->json) {
            fprintf(o->f, ",\"pc\":%" PRIu32 ",\"line\":%d,\"instruction\":", pc, (int)in->line);
            json_string(o->f, in->text);
            fputs(",\"registers\":{", o->f);
        } else {
            fprintf(o->f, " at line %d: %s", (int)in->line, in->text);
        }
        for (uint32_t r = 0; b && r < b->nregs; r++) {
            int32_t v = vm_rd32(s, vm_treg_off(&p->threads[t], r));
            if (o->json) {
                fputs(r ? "," : "", o->f);
                json_string(o->f, b->regname[r]);
                fprintf(o->f, ":%" PRId32, v);
            } else {
                fprintf(o->f, "%s%s = %" PRId32, r ? ", " : "; ", b->regname[r], v);
            }
        }
        if (o->json) fputc('}', o->f);
        return_stack(o, p, s, t, b);
        fputs(o->json ? "}" : "\n", o->f);
    }
    if (o->json) fputs("]", o->f);
}

void report_state_text(FILE *out, const vm_program *p, const uint8_t *s, uint32_t step)
{
    state_out o = {.f = out, .json = false, .indent = "          "};
    if (step)
        fprintf(out, "        state after step %" PRIu32 ":\n", step);
    else
        fprintf(out, "        state after the starts:\n");
    globals(&o, p, s);
    locks(&o, p, s);
    conds(&o, p, s);
    channels(&o, p, s);
    threads(&o, p, s);
}

void report_state_json(FILE *out, const vm_program *p, const uint8_t *s, uint32_t step)
{
    state_out o = {.f = out, .json = true, .indent = ""};
    fprintf(out, "{\"step\":%" PRIu32 ",", step);
    globals(&o, p, s);
    locks(&o, p, s);
    conds(&o, p, s);
    channels(&o, p, s);
    threads(&o, p, s);
    fputc('}', out);
}
