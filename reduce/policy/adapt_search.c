/* adapt_search.c: --adapt, a search policy. Stoller's reduction (transition
 * composition, "Model-checking multi-threaded distributed Java programs",
 * section 5) is sound only while the locking discipline LD' holds (Theorem
 * 9); a variable LD' finds unprotected can instead be declared volatile, its
 * accesses then visible. This file reruns the search with every variable a
 * run's lock_discipline errors name made volatile, until a run finds none.
 * It decides and returns data (which variables, the last result); it prints
 * nothing: tools/ reports what it did. Not here: the search itself
 * (explore.c), choosing variables by any other detector (only LD' is what
 * the reduction needs; Eraser and Goldilocks are not Theorem 9's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reduce.h"

/* The shared variable a lock_discipline error names, or UINT32_MAX. */
static uint32_t discipline_var(const vm_program *p, const explore_error *er)
{
    if (er->kind != VERDICT_LOCK_DISCIPLINE || er->elem >= p->nelems) return UINT32_MAX;
    const vm_var *v = vm_elem_var(p, er->elem);
    return v && v->cls == VM_SHARED ? (uint32_t)(v - p->vars) : UINT32_MAX;
}

/* Make every shared variable that a kept lock_discipline error of r names
 * volatile (with all_errors there may be several) and record it. Returns
 * how many, or -1 when memory runs out. */
static int adapt_variables(vm_program *p, const explore_result *r, explore_adaptation *a)
{
    int n = 0;
    for (uint32_t i = 0; i < r->nerrors; i++) {
        uint32_t v = discipline_var(p, &r->errors[i]); /* UINT32_MAX once adapted */
        if (v == UINT32_MAX) continue;
        explore_adapted *na = realloc(a->vars, (a->nvars + 1) * sizeof *na);
        if (!na) return -1;
        a->vars = na;
        explore_adapted *ad = &a->vars[a->nvars++];
        ad->var = v;
        snprintf(ad->why, sizeof ad->why, "%s", r->errors[i].msg);
        if (vm_make_volatile(p, v) < 0) return -1;
        n++;
    }
    return n;
}

/* Stoller's BoundedInvis error ("no visible operation within N steps"), the
 * one verdict that depends on what is visible: a thread spinning on a flag
 * that is not volatile yet never reaches a visible point. */
static bool bounded_invis(const explore_result *r)
{
    return r->nerrors && r->errors[0].cause == CAUSE_BOUNDED_INVIS;
}

static bool interrupted(const explore_options *o)
{
    return o->interrupt && *o->interrupt;
}

/* One search; counts it in a's totals. With a time limit, the limit is what
 * the earlier runs left. */
static int adapt_run(const vm_program *p, const explore_options *o, explore_result *r,
                     explore_adaptation *a)
{
    explore_options eo = *o;
    if (eo.timelimit > 0) {
        double left = eo.timelimit - a->seconds;
        eo.timelimit = left > 1e-6 ? left : 1e-6; /* 0 would mean no limit */
    }
    int rc = explore_run(p, &eo, r);
    a->runs++;
    a->states += r->stats.states_stored;
    a->seconds += r->stats.seconds;
    return rc;
}

/* Only an interrupt ends the loop early: a run that found violations before
 * a limit stopped it (with all_errors) is followed by another, which the
 * limit will stop too (the time limit bounds all runs together), so that
 * the verdict is never a violation adaptation could have removed. A run
 * that stops at a BoundedInvis error is followed by a search past errors for
 * a violation beyond it (the spin is on a flag LD' does not cover yet); if
 * there is one, adaptation goes on, else the BoundedInvis error is the
 * verdict. */
int explore_adapt(vm_program *p, const explore_options *o, explore_result *r,
                  explore_adaptation *a)
{
    memset(a, 0, sizeof *a);
    if (o->race != LS_LD) { /* only LD' violations are what the reduction needs */
        memset(r, 0, sizeof *r);
        r->verdict = VERDICT_INCOMPLETE;
        r->stop = STOP_NOMEM;
        return -1;
    }
    for (;;) {
        int rc = adapt_run(p, o, r, a);
        if (rc != 0 || interrupted(o)) return rc;
        int n = adapt_variables(p, r, a);
        if (n == 0 && r->stop == STOP_ERROR && bounded_invis(r)) {
            explore_options po = *o;
            explore_result pr;
            po.all_errors = true;
            po.max_traces = 1000; /* only the violations' elements are used */
            po.dump_states = NULL;
            if (adapt_run(p, &po, &pr, a) != 0)
                n = -1;
            else if (!interrupted(o))
                n = adapt_variables(p, &pr, a);
            explore_result_free(&pr);
        }
        if (n < 0) return -2; /* out of memory: no verdict */
        if (n == 0) return 0;
        if (o->dump_states) { /* the states of the last run only */
            fflush(o->dump_states);
            if (ftruncate(fileno(o->dump_states), 0) != 0 && !a->dump_errno) a->dump_errno = errno;
            rewind(o->dump_states);
        }
        explore_result_free(r);
    }
}

void explore_adaptation_free(explore_adaptation *a)
{
    if (!a) return;
    free(a->vars);
    a->vars = NULL;
    a->nvars = 0;
}
