/* hint_hunt.c: the hint that ends a run a limit stopped before it found an
 * error (--timelimit, --memlimit, a signal), when nothing in the model is at
 * fault (hint_counter.c's hint comes first): the model is too big to finish
 * this way, and issue 34's bug-hunting searches may still meet an error in
 * it at once (docs/benchmarks.md section 19: the ring's deadlock, 9 million
 * states of the default DFS without it, 66 states of a swarm worker, 164
 * executions within one delay). It names `--swarm 0` (swarm.c) and
 * `--search=stateless --delay-bound 0..2` (delay_bound.c), each only where
 * the search would take it with the run's other options (explore_check(),
 * as the command line will ask), and the options of the run to leave out
 * for it. SPIN's manual gives the same advice for a search that runs out
 * of memory: a swarm of bitstate runs. */
#include <stdio.h>
#include <string.h>

#include "report_int.h"

/* Appends ", NAME" (or ", without NAME" first) to the drop list d. */
static void drop(char *d, size_t n, const char *name)
{
    size_t len = strlen(d);
    snprintf(d + len, n - len, "%s%s", len ? ", " : ", without ", name);
}

bool report_hunt_hint(const explore_options *eo, const explore_result *r, char *buf, size_t n)
{
    if (r->verdict != VERDICT_INCOMPLETE || r->nranks || eo->engine) return false;
    if (r->stop != STOP_TIMELIMIT && r->stop != STOP_MEMLIMIT && r->stop != STOP_INTERRUPTED)
        return false;
    char msg[256], sw[96] = "", sl[96] = "";
    bool swarm = false, stateless = false;
    if (!eo->swarm) { /* the swarm: depth-first, --por, one store a worker */
        explore_options o = *eo;
        o.swarm = 2;
        o.search = SEARCH_DFS;
        o.workers = 0;
        o.all_errors = false;
        o.por = true;
        swarm = !explore_check(&o, msg, sizeof msg);
        if (eo->search == SEARCH_BFS) drop(sw, sizeof sw, "--search=bfs");
        if (eo->search == SEARCH_STATELESS) drop(sw, sizeof sw, "--search=stateless");
        if (eo->workers) drop(sw, sizeof sw, "-j");
        if (eo->all_errors) drop(sw, sizeof sw, "--all-errors");
        if (!eo->por && eo->search != SEARCH_STATELESS) drop(sw, sizeof sw, "--por=off");
        if (eo->preemption_bound >= 0) swarm = false; /* a stateless option */
    }
    if (eo->delay_bound < 0) { /* the stateless search within 2 delays */
        explore_options o = *eo;
        o.search = SEARCH_STATELESS;
        o.delay_bound = 2;
        o.delay_iterate = true;
        o.preemption_bound = -1;
        o.preemption_iterate = false;
        o.workers = 0;
        o.swarm = 0;
        o.por = false;
        o.no_sleep_sets = true;
        stateless = !explore_check(&o, msg, sizeof msg);
        if (eo->workers) drop(sl, sizeof sl, "-j");
        if (eo->swarm) drop(sl, sizeof sl, "--swarm");
        if (eo->preemption_bound >= 0) drop(sl, sizeof sl, "--preemption-bound");
        if (eo->search != SEARCH_STATELESS && eo->store.kind != STORE_COMPACT)
            drop(sl, sizeof sl, "--store"); /* it stores no state */
    }
    if (!swarm && !stateless) return false;
    snprintf(buf, n, "no error found before the search stopped; to hunt for errors in a model too "
                     "big to finish, try %s%s%s%s",
             swarm ? "--swarm 0 (depth-first searches in different thread orders at once)" : "",
             swarm ? sw : "", swarm && stateless ? "; or " : "",
             stateless ? "--search=stateless --delay-bound 0..2 (every schedule within 2 delays "
                         "of a round-robin one)"
                       : "");
    if (stateless) snprintf(buf + strlen(buf), n - strlen(buf), "%s", sl);
    return true;
}

bool report_stop_hint(const vm_program *p, const explore_options *eo, const explore_result *r,
                      char *buf, size_t n)
{
    return report_counter_hint(p, r, buf, n) || report_hunt_hint(eo, r, buf, n);
}
