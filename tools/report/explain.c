/* explain.c: what a lock-discipline or race report shows besides its trace:
 * the earlier accesses that led to it, found in the replayed trace (the
 * search does not store access histories, which would split states no later
 * check reads; the replay recomputes them for the one path that matters).
 *
 *   LD' and Eraser: every earlier access to the element that narrowed its
 *     candidate set (the first checked access sets it), with the locks held
 *     and the set after it, so the user sees which accesses emptied it.
 *   Goldilocks: the earlier access the reported one races with: the last
 *     write to the element, or the reading thread's last read since it.
 *   unshared: the owner's first access to the variable. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

typedef struct picked {
    uint32_t *idx; /* entry indices */
    uint32_t n;
} picked;

/* The reported access: the last entry whose access the detector stopped. */
bool report_reported_entry(const trace *t, uint32_t *at)
{
    for (uint32_t i = t->n; i-- > 0;)
        if (t->entries[i].elem >= 0 && t->entries[i].set == UINT32_MAX) {
            *at = i;
            return true;
        }
    return false;
}

static void add(picked *pk, uint32_t i, uint32_t *buf)
{
    pk->idx = buf;
    pk->idx[pk->n++] = i;
}

/* Choose the entries to show for the report; `buf` has room for t->n.
 * Returns the heading (in `title`), or NULL when there is nothing to
 * explain. */
static const char *pick(const vm_program *p, const trace *t, uint32_t at, picked *pk,
                        uint32_t *buf, char *title, size_t n)
{
    const ls_report *rep = ls_last_report(t->det);
    const trace_entry *r = &t->entries[at];
    char en[96];
    vm_elem_name(p, (uint32_t)r->elem, en, sizeof en);
    switch (rep->kind) {
    case LS_LD:
    case LS_ERASER: {
        bool had = false;
        uint32_t cand = 0;
        for (uint32_t i = 0; i < at; i++) {
            const trace_entry *e = &t->entries[i];
            if (e->elem != r->elem || !e->checked) continue;
            if (!had || e->set != cand) add(pk, i, buf);
            had = true;
            cand = e->set;
        }
        snprintf(title, n, "earlier accesses to '%s' that narrowed its candidate locks:", en);
        return title;
    }
    case LS_GOLDILOCKS:
        for (uint32_t i = at; i-- > 0;) {
            const trace_entry *e = &t->entries[i];
            if (e->elem != r->elem) continue;
            if (rep->other < 0 ? e->write : (!e->write && e->tid == rep->other)) {
                add(pk, i, buf);
                break;
            }
        }
        snprintf(title, n, "it races with this earlier access to '%s':", en);
        return title;
    case LS_UNSHARED: {
        const vm_var *v = vm_elem_var(p, (uint32_t)r->elem);
        for (uint32_t i = 0; i < at; i++) {
            const trace_entry *e = &t->entries[i];
            if (e->elem >= 0 && vm_elem_var(p, (uint32_t)e->elem) == v) {
                add(pk, i, buf);
                break;
            }
        }
        snprintf(title, n, "'%s' was first touched by:", v->name);
        return title;
    }
    default: return NULL;
    }
}

/* Entries to show, or NULL (no detector report in this trace). */
static const char *explain(const vm_program *p, const trace *t, picked *pk, uint32_t *at,
                           char *title, size_t n)
{
    memset(pk, 0, sizeof *pk);
    if (!t || !t->det || t->diverged || !report_reported_entry(t, at)) return NULL;
    uint32_t *buf = malloc((size_t)t->n * sizeof *buf);
    if (!buf) return NULL;
    const char *h = pick(p, t, *at, pk, buf, title, n);
    if (!pk->n) free(buf);
    return h;
}

void report_accesses_text(FILE *out, const vm_program *p, const trace *t)
{
    picked pk;
    uint32_t at;
    char title[192];
    if (!explain(p, t, &pk, &at, title, sizeof title) || !pk.n) return;
    char name[64], held[128], set[128];
    bool ld = ls_last_report(t->det)->kind == LS_LD || ls_last_report(t->det)->kind == LS_ERASER;
    fprintf(out, "  %s\n", title);
    for (uint32_t k = 0; k < pk.n; k++) {
        const trace_entry *e = &t->entries[pk.idx[k]];
        const vm_insn *in = report_entry_insn(p, t, e);
        vm_thread_name(p, t->final_state, e->tid, name, sizeof name);
        ls_format_set(t->det, t->final_state, e->held, held, sizeof held);
        fprintf(out, "    step %" PRIu32 "  %s  line %d  %-20s holding %s", e->step, name,
                in->line, in->text, held);
        if (ld) fprintf(out, "  -> candidates %s", ls_format_set(t->det, t->final_state, e->set, set, sizeof set));
        fputc('\n', out);
    }
    free(pk.idx);
    report_hb hb;
    if (!ld || !report_hb_check(p, t, at, &hb)) return;
    char en[96];
    vm_elem_name(p, (uint32_t)t->entries[at].elem, en, sizeof en);
    if (hb.race) {
        const trace_entry *a = &t->entries[hb.first], *b = &t->entries[hb.second];
        char an[64], bn[64];
        vm_thread_name(p, t->final_state, a->tid, an, sizeof an);
        vm_thread_name(p, t->final_state, b->tid, bn, sizeof bn);
        fprintf(out, "  happens-before: a data race too: the %s of '%s' at step %" PRIu32
                " (%s, line %d) and the %s at step %" PRIu32 " (%s, line %d) are not ordered "
                "by any lock, spawn, join, channel or volatile access between them\n",
                a->write ? "write" : "read", en, a->step, an, report_entry_insn(p, t, a)->line,
                b->write ? "write" : "read", b->step, bn, report_entry_insn(p, t, b)->line);
    } else if (hb.one_thread) {
        char tn[64];
        vm_thread_name(p, t->final_state, t->entries[at].tid, tn, sizeof tn);
        fprintf(out, "  happens-before: only %s accesses '%s' in this trace, so it shows no data "
                "race (the discipline is broken by one thread alone); --race=goldilocks checks "
                "every path for races\n", tn, en);
    } else {
        fprintf(out, "  happens-before: the accesses to '%s' in this trace are all ordered (a "
                "lock, spawn, join, channel or volatile access between them): no data race "
                "here, so the program may be race-free and break only the discipline; "
                "--race=goldilocks checks every path for races\n", en);
    }
}

void report_accesses_json(FILE *out, const vm_program *p, const trace *t)
{
    picked pk;
    uint32_t at;
    char title[192];
    if (!explain(p, t, &pk, &at, title, sizeof title)) return;
    char name[64], held[128], set[128];
    bool ld = ls_last_report(t->det)->kind == LS_LD || ls_last_report(t->det)->kind == LS_ERASER;
    const trace_entry *r = &t->entries[at];
    char en[96];
    vm_elem_name(p, (uint32_t)r->elem, en, sizeof en);
    fprintf(out, ",\"element\":");
    json_string(out, en);
    ls_format_set(t->det, t->final_state, r->held, held, sizeof held);
    fprintf(out, ",\"locks_held\":");
    json_string(out, held);
    fprintf(out, ",\"earlier_accesses\":[");
    for (uint32_t k = 0; k < pk.n; k++) {
        const trace_entry *e = &t->entries[pk.idx[k]];
        const vm_insn *in = report_entry_insn(p, t, e);
        vm_thread_name(p, t->final_state, e->tid, name, sizeof name);
        ls_format_set(t->det, t->final_state, e->held, held, sizeof held);
        fprintf(out, "%s{\"step\":%" PRIu32 ",\"thread\":", k ? "," : "", e->step);
        json_string(out, name);
        fprintf(out, ",\"line\":%d,\"instruction\":", in->line);
        json_string(out, in->text);
        fprintf(out, ",\"access\":\"%s\",\"locks_held\":", e->write ? "write" : "read");
        json_string(out, held);
        if (ld) {
            fprintf(out, ",\"candidates_after\":");
            json_string(out, ls_format_set(t->det, t->final_state, e->set, set, sizeof set));
        }
        fprintf(out, "}");
    }
    fprintf(out, "]");
    free(pk.idx);
    report_hb hb;
    if (!ld || !report_hb_check(p, t, at, &hb)) return;
    if (hb.race)
        fprintf(out, ",\"happens_before\":{\"race\":true,\"steps\":[%" PRIu32 ",%" PRIu32 "]}",
                t->entries[hb.first].step, t->entries[hb.second].step);
    else
        fprintf(out, ",\"happens_before\":{\"race\":false,\"one_thread\":%s}",
                hb.one_thread ? "true" : "false");
}
