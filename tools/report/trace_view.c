/* trace_view.c: what the reports print of a replayed trace (--trace). The
 * compact view (the default) shows a loop inside one composed step (one
 * thread repeating the same pcs) once, as its first iteration, a fold line
 * and its last iteration; likewise a run of whole steps that repeats; and
 * of a view still longer than a bound, the head and the tail with the
 * count left out. --trace=all shows every recorded entry. Either says where
 * the replay left instructions out of a long step (reduce.h, `trace`). It
 * reads the trace's pcs only (no values): two iterations that differ only
 * in values fold. It prints nothing: report_text.c and report_json.c do. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define MAX_LOOP 128  /* the longest loop body a step is searched for */
#define MAX_CYCLE 16  /* the most steps a repeating run of steps spans */

typedef struct view_b {
    trace_view *v;
    uint32_t cap;
    bool nomem;
} view_b;

static void add(view_b *b, trace_item it)
{
    trace_view *v = b->v;
    if (b->nomem) return;
    if (v->n == b->cap) {
        uint32_t nc = b->cap ? b->cap * 2 : 64;
        trace_item *ni = realloc(v->items, nc * sizeof *ni);
        if (!ni) {
            b->nomem = true;
            return;
        }
        v->items = ni;
        b->cap = nc;
    }
    v->items[v->n++] = it;
}

static void add_entry(view_b *b, const trace *t, uint32_t i)
{
    if (t->entries[i].omitted)
        add(b, (trace_item){.kind = TRACE_ITEM_GAP, .instructions = t->entries[i].omitted});
    add(b, (trace_item){.kind = TRACE_ITEM_ENTRY, .entry = i});
}

static bool same_insn(const trace_entry *a, const trace_entry *b)
{
    return a->tid == b->tid && a->pc == b->pc && a->reacquire == b->reacquire;
}

/* The first entry after i (up to `end`) that follows a gap, or `end`. */
static uint32_t next_gap(const trace *t, uint32_t i, uint32_t end)
{
    for (uint32_t k = i + 1; k < end; k++)
        if (t->entries[k].omitted) return k;
    return end;
}

/* A loop of period p starting at entry i of the step [i, end): how many
 * instructions (virtual: left-out ones too) from i on equal the one p
 * later; *last set to the entry that starts the region after the last gap
 * crossed, *vlast to its virtual offset from i. A gap is crossed only when
 * the replay saw it repeat with period p (trace_entry.omitted_period). */
static uint64_t run_length(const trace *t, uint32_t i, uint32_t end, uint32_t p, uint32_t *last,
                           uint64_t *vlast)
{
    uint64_t len = 0;
    uint32_t k = i;
    *last = i;
    *vlast = 0;
    for (;;) {
        uint32_t g = next_gap(t, k, end);
        if (k + p < end && g > k + p) {
            if (!same_insn(&t->entries[k], &t->entries[k + p])) break;
            k++;
            len++;
        } else if (g < end && g <= k + p && t->entries[g].omitted_period == p) {
            len += (g - k) + t->entries[g].omitted;
            k = g;
            *last = g;
            *vlast = len;
        } else {
            break;
        }
    }
    return len;
}

static void lines_of(const vm_program *p, const trace *t, uint32_t i, uint32_t n,
                     trace_item *it)
{
    it->line_lo = it->line_hi = report_entry_insn(p, t, &t->entries[i])->line;
    for (uint32_t k = i; k < i + n; k++) {
        int l = report_entry_insn(p, t, &t->entries[k])->line;
        if (l < it->line_lo) it->line_lo = l;
        if (l > it->line_hi) it->line_hi = l;
    }
}

/* The entries [a, end) of one step, loops folded. */
static void view_step(view_b *b, const vm_program *p, const trace *t, uint32_t a, uint32_t end,
                      bool all)
{
    uint32_t i = a;
    while (i < end) {
        uint32_t best_p = 0, best_last = 0;
        uint64_t best_total = 0, best_vlast = 0;
        for (uint32_t per = 1; !all && per <= MAX_LOOP && i + per < end; per++) {
            if (next_gap(t, i, end) < i + per) break; /* the first iteration is whole */
            uint32_t last;
            uint64_t vlast, len = run_length(t, i, end, per, &last, &vlast);
            uint64_t total = (len + per) / per; /* whole iterations */
            if (total < 3 || (total - 2) * per < 2) continue;
            /* the last iteration must be recorded, after the last gap */
            uint64_t vstart = (total - 1) * per;
            if (vstart < vlast) continue;
            if (best_p && total * per <= best_total * best_p) continue; /* ties: the shorter */
            best_p = per;
            best_total = total;
            best_last = last;
            best_vlast = vlast;
        }
        if (!best_p) {
            add_entry(b, t, i++);
            continue;
        }
        for (uint32_t k = i; k < i + best_p; k++) add_entry(b, t, k);
        trace_item it = {.kind = TRACE_ITEM_REPEAT, .times = best_total - 2,
                         .instructions = (best_total - 2) * best_p};
        lines_of(p, t, i, best_p, &it);
        add(b, it);
        uint32_t li = best_last + (uint32_t)((best_total - 1) * best_p - best_vlast);
        for (uint32_t k = li; k < li + best_p; k++) add(b, (trace_item){.kind = TRACE_ITEM_ENTRY, .entry = k});
        i = li + best_p;
    }
}

/* Steps as ranges of entries: start[k] is step k's first entry. */
static bool steps_equal(const trace *t, const uint32_t *start, uint32_t x, uint32_t y)
{
    uint32_t n = start[x + 1] - start[x];
    if (start[y + 1] - start[y] != n) return false;
    for (uint32_t k = 0; k < n; k++) {
        const trace_entry *e = &t->entries[start[x] + k], *f = &t->entries[start[y] + k];
        if (!same_insn(e, f) || e->omitted != f->omitted || e->first != f->first) return false;
    }
    return true;
}

static uint64_t step_instructions(const trace *t, const uint32_t *start, uint32_t x)
{
    uint64_t n = start[x + 1] - start[x];
    for (uint32_t k = start[x]; k < start[x + 1]; k++) n += t->entries[k].omitted;
    return n;
}

/* Bound the view to max_lines: its head and tail, the middle counted. */
static void elide(trace_view *v, uint32_t max_lines)
{
    if (v->n <= max_lines) return;
    uint32_t head = max_lines / 2, tail = max_lines - head;
    trace_item mid = {.kind = TRACE_ITEM_ELIDED};
    for (uint32_t k = head; k < v->n - tail; k++) {
        const trace_item *it = &v->items[k];
        mid.lines++;
        mid.instructions += it->kind == TRACE_ITEM_ENTRY ? 1 : it->instructions;
    }
    v->items[head] = mid;
    memmove(&v->items[head + 1], &v->items[v->n - tail], tail * sizeof *v->items);
    v->n = head + 1 + tail;
}

int trace_view_build(const vm_program *p, const trace *t, bool all, uint32_t max_lines,
                     trace_view *v)
{
    memset(v, 0, sizeof *v);
    view_b b = {.v = v};
    uint32_t nsteps = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (i == 0 || t->entries[i].step != t->entries[i - 1].step) nsteps++;
    uint32_t *start = malloc((nsteps + 1) * sizeof *start);
    if (!start) return -1;
    nsteps = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (i == 0 || t->entries[i].step != t->entries[i - 1].step) start[nsteps++] = i;
    start[nsteps] = t->n;
    uint32_t s = 0;
    while (s < nsteps) {
        uint32_t best_q = 0;
        uint64_t best_total = 0;
        for (uint32_t q = 1; !all && q <= MAX_CYCLE && s + q < nsteps; q++) {
            uint64_t len = 0;
            while (s + len + q < nsteps && steps_equal(t, start, s + (uint32_t)len, s + (uint32_t)len + q))
                len++;
            uint64_t total = (len + q) / q;
            if (total >= 3 && total * q > best_total * (best_q ? best_q : 1)) {
                best_q = q;
                best_total = total;
            }
        }
        if (!best_q) {
            view_step(&b, p, t, start[s], start[s + 1], all);
            s++;
            continue;
        }
        for (uint32_t k = s; k < s + best_q; k++) view_step(&b, p, t, start[k], start[k + 1], all);
        uint32_t hidden = (uint32_t)((best_total - 2) * best_q);
        trace_item it = {.kind = TRACE_ITEM_STEPS, .times = best_total - 2,
                         .step_lo = t->entries[start[s]].step,
                         .step_hi = t->entries[start[s + best_q - 1]].step, .steps = hidden};
        for (uint32_t k = s + best_q; k < s + best_q + hidden; k++)
            it.instructions += step_instructions(t, start, k);
        add(&b, it);
        uint32_t lastit = s + best_q + hidden;
        for (uint32_t k = lastit; k < lastit + best_q; k++)
            view_step(&b, p, t, start[k], start[k + 1], all);
        s = lastit + best_q;
    }
    free(start);
    if (b.nomem) {
        trace_view_free(v);
        return -1;
    }
    if (!all && max_lines) elide(v, max_lines);
    return 0;
}

void trace_view_free(trace_view *v)
{
    if (!v) return;
    free(v->items);
    memset(v, 0, sizeof *v);
}
