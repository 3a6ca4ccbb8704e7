/* hint.c: the hint that ends a lock-discipline report (LD' or Eraser): the
 * common pattern the search's own facts show, and the declaration or option
 * that fits it, so that a correct model of that pattern has a way forward
 * (issue 18). The rules, tried in order, each conservative:
 *   unshared: the static analysis (discharge.c's facts) finds one thread
 *     that may access the variable, and in the trace only it did;
 *   init T (LD', no `init` clause yet): the element's first access in the
 *     trace held no lock, and LD' with that access unchecked (what `init T`
 *     does, LANGUAGE.md) finds no violation in the rest of the trace; unless
 *     another thread that existed then could reach an access to the
 *     variable along its code (jumps taken both ways): it may make the
 *     first access on another path, so `volatile` or Goldilocks instead;
 *   init too late (LD', `init T` declared): another thread made the
 *     element's first access;
 *   flag: every `store` to the variable is in one body of one instance, and
 *     the trace has a read of the element by another thread.
 * Otherwise a generic line names the choices. Every hint but one under
 * --adapt adds --adapt, with its warning. Not done: proving that a hint
 * fixes every path (it names what this trace shows, the next search checks
 * the rest); Goldilocks, unshared and other errors get no hint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* The declaration's name as written: "x", or "buf[2]" for an array. */
static void decl_name(const vm_var *v, char *buf, size_t n)
{
    if (v->is_array)
        snprintf(buf, n, "%s[%u]", v->name, v->size);
    else
        snprintf(buf, n, "%s", v->name);
}

static bool in_var(const vm_var *v, int32_t elem)
{
    return elem >= 0 && (uint32_t)elem >= v->first_elem && (uint32_t)elem < v->first_elem + v->size;
}

/* Rule 1: statically one thread may access v, and the trace agrees. */
static bool one_thread(const vm_program *p, const trace *t, uint32_t at, const vm_var *v)
{
    ls_elem_facts *f = ls_discharge_facts(p);
    if (!f) return false;
    bool ok = true, any = false;
    int32_t unit = LS_NO_UNIT;
    for (uint32_t e = v->first_elem; ok && e < v->first_elem + v->size; e++) {
        if (f[e].threads == 0) continue;
        if (f[e].threads != 1 || (any && f[e].unit != unit)) ok = false;
        unit = f[e].unit;
        any = true;
    }
    free(f);
    int tid = t->entries[at].tid;
    for (uint32_t i = 0; ok && i <= at; i++)
        if (in_var(v, t->entries[i].elem) && t->entries[i].tid != tid) ok = false;
    return ok && any;
}

/* Rule 2: the first access to the element held no lock, and without it the
 * rest of the trace keeps LD'. Returns that access's entry index, or -1. */
static int64_t init_fits(const trace *t, uint32_t at)
{
    int32_t elem = t->entries[at].elem;
    int64_t first = -1;
    uint32_t cand = 0;
    bool checked = false, written = false;
    for (uint32_t i = 0; i <= at; i++) {
        const trace_entry *e = &t->entries[i];
        if (e->elem != elem) continue;
        if (first < 0) {
            if (e->held != 0) return -1; /* set id 0 is the empty set */
            first = i;
            continue;
        }
        cand = checked ? ls_meet(t->det, cand, e->held) : e->held;
        if (cand == UINT32_MAX) return -1;
        checked = true;
        written = written || e->write;
    }
    return written && cand == 0 ? -1 : first;
}

/* The reported access is the first to its element in the trace. */
static bool init_first(const trace *t, uint32_t at)
{
    for (uint32_t i = 0; i < at; i++)
        if (t->entries[i].elem == t->entries[at].elem) return false;
    return true;
}

/* Rule 3: the body every store to v is in, when it is one body with one
 * instance, else -1. */
static int32_t one_writer(const vm_program *p, const vm_var *v)
{
    int32_t w = -1;
    uint32_t var = (uint32_t)(v - p->vars);
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++) {
            const vm_insn *in = &p->bodies[b].code[pc];
            if (in->op != VM_OP_store || (uint32_t)in->obj != var) continue;
            if (w >= 0 && w != (int32_t)b) return -1;
            w = (int32_t)b;
        }
    return w >= 0 && p->bodies[w].count == 1 ? w : -1;
}

/* Whether a body other than w has a `load` of v. */
static bool other_loads(const vm_program *p, const vm_var *v, int32_t w)
{
    uint32_t var = (uint32_t)(v - p->vars);
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; b != (uint32_t)w && pc < p->bodies[b].ncode; pc++)
            if (p->bodies[b].code[pc].op == VM_OP_load &&
                (uint32_t)p->bodies[b].code[pc].obj == var)
                return true;
    return false;
}

/* A thread not running body w that read the reported element in the trace,
 * or -1. */
static int32_t other_reader(const vm_program *p, const trace *t, uint32_t at, int32_t w)
{
    for (uint32_t i = 0; i <= at; i++) {
        const trace_entry *e = &t->entries[i];
        if (e->elem == t->entries[at].elem && !e->write &&
            vm_thread_body(p, t->final_state, e->tid) != &p->bodies[w])
            return e->tid;
    }
    return -1;
}

/* Whether body b, from pc `from`, can reach a load or store of variable
 * `var` along its code (every branch both ways). */
static bool reaches_access(const vm_body *b, uint32_t from, uint32_t var)
{
    bool found = false;
    uint8_t *seen = calloc(b->ncode, 1);
    uint32_t *todo = malloc(b->ncode * sizeof *todo);
    vm_absval *regs = malloc((b->nregs ? b->nregs : 1) * sizeof *regs);
    if (!seen || !todo || !regs) { /* no memory: assume it can (no init T hint) */
        found = true;
        goto out;
    }
    for (uint32_t r = 0; r < b->nregs; r++) regs[r] = VM_ABS_TOP;
    uint32_t n = 0;
    if (from < b->ncode) {
        seen[from] = 1;
        todo[n++] = from;
    }
    while (n && !found) {
        uint32_t pc = todo[--n], sbuf[2];
        const uint32_t *succ;
        const vm_insn *in = &b->code[pc];
        found = (in->op == VM_OP_load || in->op == VM_OP_store) && (uint32_t)in->obj == var;
        unsigned k = vm_abssucc(b, pc, regs, VM_ABS_TOP, VM_ABS_TOP, sbuf, &succ);
        for (unsigned i = 0; i < k; i++)
            if (succ[i] < b->ncode && !seen[succ[i]]) {
                seen[succ[i]] = 1;
                todo[n++] = succ[i];
            }
    }
out:
    free(seen);
    free(todo);
    free(regs);
    return found;
}

/* A thread other than the one of entry `first` (the first access to the
 * element, by body `ib`) that existed then and could reach an access to
 * variable v from where it stood (its last entry before `first`, or pc 0
 * if it had not run), or -1. */
static int32_t first_rival(const vm_program *p, const trace *t, uint32_t first, const vm_var *v)
{
    uint32_t var = (uint32_t)(v - p->vars);
    int32_t me = t->entries[first].tid;
    for (uint32_t u = 0; u < p->nthreads; u++) {
        if ((int32_t)u == me) continue;
        bool exists = u < p->nstatic;
        uint32_t from = 0;
        for (uint32_t i = 0; i < first; i++) {
            const trace_entry *e = &t->entries[i];
            if (e->tid == (int32_t)u) {
                exists = true;
                from = e->pc;
            }
            if (e->fx.recorded && e->fx.done && e->fx.val == (int32_t)u &&
                report_entry_insn(p, t, e)->op == VM_OP_spawn)
                exists = true; /* spawned before the first access */
        }
        const vm_body *b = vm_thread_body(p, t->final_state, (int)u);
        if (exists && b && reaches_access(b, from, var)) return (int32_t)u;
    }
    return -1;
}

int report_hint(const vm_program *p, const explore_error *er, const trace *t, bool adapting,
                report_hints *h)
{
    memset(h, 0, sizeof *h);
    if (er->cause == CAUSE_BOUNDED_INVIS) return report_livelock_hint(p, er, t, h);
    if (er->kind != VERDICT_LOCK_DISCIPLINE) return 0;
    uint32_t at;
    const ls_report *rep = t && t->det && !t->diverged && report_reported_entry(t, &at)
                           ? ls_last_report(t->det) : NULL;
    if (rep && rep->kind != LS_LD && rep->kind != LS_ERASER) rep = NULL;
    bool ld = !rep || rep->kind == LS_LD;
    char *l = h->line[h->n++];
    if (!rep) {
        snprintf(l, REPORT_HINT_MAX, "if the accesses without a common lock are intended, "
                 "declare the variable `unshared` (one thread only), add `init T` (thread T's first access "
                 "initializes it), make it `volatile` (a flag), or check for real races with "
                 "--race=goldilocks");
    } else {
        const trace_entry *r = &t->entries[at];
        const vm_var *v = vm_elem_var(p, (uint32_t)r->elem);
        char en[96], dn[96], tn[64];
        vm_elem_name(p, (uint32_t)r->elem, en, sizeof en);
        decl_name(v, dn, sizeof dn);
        int64_t first;
        int32_t w, reader, rival = -1;
        if (one_thread(p, t, at, v)) {
            vm_thread_name(p, t->final_state, r->tid, tn, sizeof tn);
            snprintf(l, REPORT_HINT_MAX, "only %s can touch '%s' (no other thread may access "
                     "it): declare it `unshared %s`, which needs no lock", tn, v->name, dn);
        } else if (ld && v->init_body < 0 && (first = init_fits(t, at)) >= 0 &&
                   vm_thread_body(p, t->final_state, t->entries[first].tid) &&
                   (rival = first_rival(p, t, (uint32_t)first, v)) >= 0) {
            const trace_entry *f = &t->entries[first];
            char rn[64];
            vm_thread_name(p, t->final_state, f->tid, tn, sizeof tn);
            vm_thread_name(p, t->final_state, rival, rn, sizeof rn);
            snprintf(l, REPORT_HINT_MAX, "the first access to '%s' here (%s by %s, holding no "
                     "lock) looks like its initialization, but %s may reach its own access to "
                     "'%s' first, so `init %s` would not hold: make it `volatile %s` (a flag), "
                     "or check for real races with --race=goldilocks",
                     en, f->write ? "a write" : "a read", tn, rn, v->name,
                     vm_thread_body(p, t->final_state, f->tid)->name, dn);
        } else if (ld && v->init_body < 0 && (first = init_fits(t, at)) >= 0 &&
                   vm_thread_body(p, t->final_state, t->entries[first].tid)) {
            const trace_entry *f = &t->entries[first];
            const vm_body *b = vm_thread_body(p, t->final_state, f->tid);
            vm_thread_name(p, t->final_state, f->tid, tn, sizeof tn);
            snprintf(l, REPORT_HINT_MAX, "the first access to '%s' (%s by %s, holding no "
                     "lock) looks like its initialization, and the rest of this trace keeps "
                     "the discipline: if %s always makes the first access (the search checks "
                     "it), declare `shared %s init %s`, which leaves that access unchecked",
                     en, f->write ? "a write" : "a read", tn, b->name, dn, b->name);
            w = one_writer(p, v);
            if (w >= 0 && &p->bodies[w] == b && other_loads(p, v, w)) {
                size_t k = strlen(l);
                snprintf(l + k, REPORT_HINT_MAX - k, "; if another thread may read it before "
                         "%s writes it, make it `volatile %s` (a flag) or check for real races "
                         "with --race=goldilocks instead", tn, dn);
            }
        } else if (ld && v->init_body >= 0 && init_first(t, at)) {
            const char *in = p->bodies[v->init_body].name;
            bool own = one_writer(p, v) == v->init_body; /* T alone writes it: a flag? */
            vm_thread_name(p, t->final_state, r->tid, tn, sizeof tn);
            snprintf(l, REPORT_HINT_MAX, "`init %s` needs %s to make the first access to "
                     "'%s' on every path, and %s got there first: make %s wait for %s (on a "
                     "`volatile` flag or a lock)%s%s%s, or check for real races with "
                     "--race=goldilocks", in, in, en, tn, tn, in,
                     own ? ", declare it `volatile " : "", own ? dn : "",
                     own ? "` if it is the flag itself" : "");
        } else if ((w = one_writer(p, v)) >= 0 && (reader = other_reader(p, t, at, w)) >= 0) {
            vm_thread_name(p, t->final_state, reader, tn, sizeof tn);
            snprintf(l, REPORT_HINT_MAX, "'%s' is written by %s only and read by %s without "
                     "a common lock, as a flag that hands off other data is: declare it "
                     "`volatile %s`, or check for real races with --race=goldilocks", v->name,
                     p->bodies[w].name, tn, dn);
        }
        if (!l[0])
            snprintf(l, REPORT_HINT_MAX, "if the accesses to '%s' without a common lock are "
                     "intended, declare it `unshared` (one thread only)%s, make it `volatile` (a flag), "
                     "or check for real races with --race=goldilocks", v->name,
                     ld && v->init_body < 0
                         ? ", add `init T` (thread T's first access initializes it)" : "");
    }
    if (!adapting)
        snprintf(h->line[h->n++], REPORT_HINT_MAX, "%s makes each variable that violates the "
                 "discipline volatile and searches again, but it can hide a real race (a "
                 "volatile variable is not checked)", ld ? "--adapt" : "--race=ld --adapt");
    return h->n;
}
