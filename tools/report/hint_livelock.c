/* hint_livelock.c: the hint of a BoundedInvis error ("no visible operation
 * within N steps"): the loop the erring thread repeats at the end of its
 * step, the global elements it reads there and does not write (it spins on
 * them: inside one composed step no other thread runs, so they never
 * change), their class, and the declaration that makes each read a
 * scheduling point (`volatile`). A loop that reads no such element never
 * ends whatever the other threads do. It reads the replayed trace only (the
 * loop is the shortest period of the step's last entries); it does not
 * prove the fix makes the model pass: the next search checks that. */
#include <stdio.h>
#include <string.h>

#include "report_int.h"

#define MAX_LOOP 128
#define MAX_SPIN 4 /* elements named in the hint */

static bool same_insn(const trace_entry *a, const trace_entry *b)
{
    return a->tid == b->tid && a->pc == b->pc;
}

/* The loop at the end of the trace: the smallest period p such that the
 * last entries of the last step repeat with it at least twice; 0 if none. */
static uint32_t loop_period(const trace *t, uint32_t *from)
{
    uint32_t end = t->n, a = end;
    while (a > 0 && t->entries[a - 1].step == t->entries[end - 1].step && !t->entries[a - 1].omitted)
        a--;
    if (a > 0 && t->entries[a - 1].step == t->entries[end - 1].step) a--; /* the entry after a gap */
    for (uint32_t p = 1; p <= MAX_LOOP && a + 2 * p <= end; p++) {
        bool ok = true;
        for (uint32_t k = end - p; ok && k < end; k++) ok = same_insn(&t->entries[k], &t->entries[k - p]);
        if (ok) {
            *from = end - p;
            return p;
        }
    }
    return 0;
}

static void decl_name(const vm_var *v, char *buf, size_t n)
{
    if (v->is_array)
        snprintf(buf, n, "%s[%u]", v->name, v->size);
    else
        snprintf(buf, n, "%s", v->name);
}

static const char *class_name(enum vm_varclass c)
{
    switch (c) {
    case VM_SHARED: return "shared";
    case VM_VOLATILE: return "volatile";
    case VM_UNSHARED: return "unshared";
    }
    return "?";
}

int report_livelock_hint(const vm_program *p, const explore_error *er, const trace *t,
                         report_hints *h)
{
    memset(h, 0, sizeof *h);
    if (er->cause != CAUSE_BOUNDED_INVIS || !t || t->n == 0 || t->diverged) return 0;
    uint32_t from, per = loop_period(t, &from);
    if (!per) return 0;
    int32_t reads[MAX_LOOP], writes[MAX_LOOP];
    uint32_t nr = 0, nw = 0;
    int lo = 0, hi = 0;
    for (uint32_t k = from; k < from + per; k++) {
        const trace_entry *e = &t->entries[k];
        const vm_insn *in = report_entry_insn(p, t, e);
        if (k == from || in->line < lo) lo = in->line;
        if (k == from || in->line > hi) hi = in->line;
        int32_t elem = e->fx.recorded ? e->fx.obj : e->elem;
        if (elem < 0) continue;
        if (in->op == VM_OP_load) reads[nr++] = elem;
        if (in->op == VM_OP_store) writes[nw++] = elem;
    }
    int32_t spin[MAX_SPIN];
    uint32_t ns = 0;
    for (uint32_t i = 0; i < nr && ns < MAX_SPIN; i++) {
        bool skip = false;
        for (uint32_t j = 0; j < nw && !skip; j++) skip = writes[j] == reads[i];
        for (uint32_t j = 0; j < ns && !skip; j++) skip = spin[j] == reads[i];
        if (!skip) spin[ns++] = reads[i];
    }
    char tn[64], lines[32];
    vm_thread_name(p, t->final_state, t->entries[from].tid, tn, sizeof tn);
    if (lo == hi)
        snprintf(lines, sizeof lines, "line %d", lo);
    else
        snprintf(lines, sizeof lines, "lines %d-%d", lo, hi);
    char *l = h->line[h->n++];
    if (!ns) {
        snprintf(l, REPORT_HINT_MAX, "%s loops on %s, which read no global variable it does not "
                 "write itself: the loop never ends, whatever the other threads do", tn, lines);
        return h->n;
    }
    /* "'x' (shared)", "'x' (shared) and 'y[1]' (shared)"; the declarations */
    char names[300] = "", decls[300] = "";
    size_t nn = 0, nd = 0;
    uint32_t nvars = 0;
    for (uint32_t i = 0; i < ns; i++) {
        char en[96], dn[96];
        const vm_var *v = vm_elem_var(p, (uint32_t)spin[i]);
        vm_elem_name(p, (uint32_t)spin[i], en, sizeof en);
        nn += (size_t)snprintf(names + nn, sizeof names - nn, "%s'%s' (%s)",
                               i == 0 ? "" : i + 1 == ns ? " and " : ", ", en, class_name(v->cls));
        if (nn >= sizeof names) nn = sizeof names - 1;
        bool seen = false; /* one declaration per variable */
        for (uint32_t j = 0; j < i && !seen; j++) seen = vm_elem_var(p, (uint32_t)spin[j]) == v;
        if (seen) continue;
        decl_name(v, dn, sizeof dn);
        nd += (size_t)snprintf(decls + nd, sizeof decls - nd, "%s'volatile %s'", nvars ? ", " : "", dn);
        if (nd >= sizeof decls) nd = sizeof decls - 1;
        nvars++;
    }
    snprintf(l, REPORT_HINT_MAX, "%s spins on %s in its loop at %s: inside one composed step no other thread "
             "can change %s; declare %s %s so that each read is a scheduling point",
             tn, names, lines, ns > 1 ? "them" : "it", nvars > 1 ? "them" : "it", decls);
    return h->n;
}
