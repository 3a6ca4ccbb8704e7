/* run_notes.c: the sentences about a run that the text, JSON and HTML
 * reports share: why the search stopped, what the options leave out, the
 * progress labels --liveness=npc counts, --liveness's name, and why a path
 * was not shortened. */
#include <inttypes.h>
#include <stdio.h>

#include "report_int.h"

const char *stop_text(stop_reason s)
{
    switch (s) {
    case STOP_COMPLETE: return "search complete";
    case STOP_ERROR: return "search stopped at the first error";
    case STOP_DEPTH: return "search incomplete: paths longer than --max-depth were pruned";
    case STOP_MEMLIMIT: return "search incomplete: memory limit reached";
    case STOP_TIMELIMIT: return "search incomplete: time limit reached";
    case STOP_INTERRUPTED: return "search incomplete: interrupted";
    case STOP_NOMEM: return "search incomplete: out of memory";
    case STOP_STATELIMIT: return "search incomplete: state limit reached";
    case STOP_PREEMPTION:
        return "search incomplete: executions with more preemptions than the bound were not explored";
    case STOP_DELAY:
        return "search incomplete: executions with more delays than the bound were not explored";
    }
    return "?";
}

int report_run_notes(const explore_options *eo, const char **notes, int max)
{
    int n = 0;
    /* Eraser's reports depend on the order of the invisible accesses too,
     * which the composed steps fix (tests/semantics/eraser_reduced.bc) */
    if (eo->race == LS_ERASER && eo->reduce == REDUCE_COMPOSE && n < max)
        notes[n++] = "the reduced search keeps every LD' violation, not every Eraser report; "
                     "--reduce=none finds them all";
    /* Stoller's reduction is sound for programs that follow the discipline
     * the detector checks (Theorem 9): without one it trusts the model */
    if (eo->race == LS_OFF && eo->reduce == REDUCE_COMPOSE && n < max)
        notes[n++] = RACE_OFF_NOTE;
    return n;
}

uint32_t report_progress_labels(const vm_program *p)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++) n += p->bodies[b].code[pc].progress_label;
    return n;
}

const char *report_liveness_name(const explore_options *eo)
{
    return eo->liveness == LIVENESS_STARVATION ? "starvation" : "npc";
}

bool report_not_shortened(const shorten_stats *sh, char *buf, size_t n)
{
    if (!sh || sh->outcome == SHORTEN_NOT_TRIED || sh->outcome == SHORTEN_SHORTER) return false;
    if (sh->outcome == SHORTEN_NONE_SHORTER) {
        snprintf(buf, n, "a breadth-first search of %" PRIu64 " states found no shorter path "
                         "to this error", sh->states);
        return true;
    }
    switch (sh->stop) {
    case STOP_STATELIMIT:
        snprintf(buf, n, "the breadth-first search for a shorter path reached its budget of "
                         "%" PRIu64 " states (--shorten=STATES sets it)", sh->budget);
        break;
    case STOP_TIMELIMIT:
        snprintf(buf, n, "the time limit ran out (--timelimit; the breadth-first search "
                         "for a shorter path stored %" PRIu64 " states)", sh->states);
        break;
    case STOP_MEMLIMIT:
        snprintf(buf, n, "the breadth-first search for a shorter path reached the memory "
                         "limit (--memlimit) after %" PRIu64 " states", sh->states);
        break;
    case STOP_INTERRUPTED:
        snprintf(buf, n, "the breadth-first search for a shorter path was interrupted");
        break;
    default:
        snprintf(buf, n, "out of memory in the breadth-first search for a shorter path");
        break;
    }
    return true;
}
