/* shorten.c: a shorter counterexample after a depth-first search, like
 * SPIN's -i but by breadth-first search: explore_shorten() runs the
 * sequential BFS (bfs.c) with the search's options, bounded to paths shorter
 * than the depth-first one and to a budget of states, time and memory,
 * searching past the errors that do not match (explore_options.target,
 * record_error()) and stopping at the first that does: a shortest path to
 * that error among the states the store kept. It is not a search of its own
 * (no second BFS), nor a trace minimizer: it never edits the path it is
 * given, and a path it returns is replayed like any other. The matching rule
 * is explore_error_matches(). */
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

bool explore_error_matches(const explore_error *t, error_cause cause, vm_fault_kind fault,
                           uint32_t body, uint32_t pc, uint32_t elem)
{
    if (cause != t->cause) return false;
    switch (cause) {
    case CAUSE_NONE: return false;
    case CAUSE_DEADLOCK: return true;
    case CAUSE_FAULT: return fault == t->fault && body == t->body && pc == t->pc;
    case CAUSE_BOUNDED_INVIS: return body == t->body && pc == t->pc;
    case CAUSE_LOCK_DISCIPLINE:
    case CAUSE_RACE:
    case CAUSE_UNSHARED: return elem == t->elem;
    case CAUSE_NON_PROGRESS: return false; /* a cycle, not an error state */
    case CAUSE_LTL: return false;
    case CAUSE_STARVATION: return false;
    }
    return false;
}

int explore_shorten(const vm_program *p, const explore_options *o, const explore_error *er,
                    const shorten_budget *b, explore_error *out, shorten_stats *st)
{
    memset(out, 0, sizeof *out);
    memset(st, 0, sizeof *st);
    st->from = er->len;
    st->budget = b->states;
    st->stop = STOP_COMPLETE;
    /* a path of one step is a shortest one: the search stores the initial
     * state first, and an error there has a path of none */
    if (er->len <= 1) return 0;
    if (b->timelimit < 0) { /* the search used all of --timelimit */
        st->outcome = SHORTEN_STOPPED;
        st->stop = STOP_TIMELIMIT;
        return 0;
    }
    explore_options so = *o;
    so.search = SEARCH_BFS;
    so.workers = 0;
    so.swarm = 0;
    so.all_errors = false;
    so.max_traces = 1;
    so.max_depth = er->len - 1; /* levels below it are expanded: paths of <= len - 1 steps */
    so.max_states = b->states;
    so.timelimit = b->timelimit;
    so.memlimit = b->memlimit;
    so.progress = NULL;
    so.dump_states = NULL;
    so.target = er;
    if (so.store.kind == STORE_BITSTATE) { /* a partial search would miss paths */
        explore_options d;
        explore_options_default(&d);
        so.store = d.store;
    }
    explore_result r;
    int rc = explore_run(p, &so, &r);
    st->states = r.stats.states_stored;
    st->seconds = r.stats.seconds;
    st->stop = r.stop;
    if (rc == 0 && r.nerrors) {
        *out = r.errors[0]; /* the path moves to out */
        r.errors[0].path = NULL;
        st->outcome = SHORTEN_SHORTER;
    } else if (rc == 0 && (r.stop == STOP_DEPTH || r.stop == STOP_COMPLETE)) {
        st->outcome = SHORTEN_NONE_SHORTER;
    } else {
        st->outcome = SHORTEN_STOPPED;
    }
    explore_result_free(&r);
    return rc;
}
