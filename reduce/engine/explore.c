/* explore.c: the search's driver, explore_run(): it takes the engine the
 * options select (engines.c; a refused combination returns
 * EXPLORE_REFUSED), sets up the context every engine shares (detector,
 * store, the work vectors, the recent-lookup cache) and the engine's
 * private one, inserts the initial state, runs the engine, and fills in
 * the result. An engine that drives its own run (-j N) is handed the
 * whole run (over the same runtime, runtime_int.h). Every stored vector is the vm state followed by one marker byte:
 * 0, or for an error state the faulting thread's id + 1, so an error state
 * (which the interpreter leaves equal to its predecessor) is stored as a
 * state of its own and has no successors (LANGUAGE.md), and the errors of
 * two threads that fault in the same state are two error states, each
 * reported. It runs no step itself (step.c: with --por the static
 * threads' invisible starts too, before the initial state is stored) and
 * orders nothing (the engines do); the search follows Stoller (section 5.1).
 * After a complete search it lists the instructions no step ran (the
 * steps mark them in S.ran, step_int.h), like SPIN's unreached code. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "por_int.h"
#include "search_int.h"

static void free_search(search *S)
{
    /* the engine's own (a context it was given, or none: the DFS's look-ahead) */
    if (S->eng && S->eng->free_ctx && (S->ctx || !S->eng->ctx_size)) S->eng->free_ctx(S);
    free(S->ctx);
    store_free(S->st);
    ls_free(S->det);
    free(S->dfs.frames);
    free(S->dfs.undo);
    free(S->cur);
    free(S->dfs.next);
    free(S->recent.slots);
    free(S->scratch);
    free(S->env.fold_undo);
    free(S->ran);
    por_free(S->por);
}

/* After a complete search: the instructions no step ran, but for each
 * body's implicit trailing `end` (the assembler's, not the user's). Out of
 * memory, r->unreached_known stays false. */
void collect_unreached(const vm_program *p, uint8_t *const *ran, explore_result *r)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc + 1 < p->bodies[b].ncode; pc++) n += !ran[b][pc];
    explore_unreached *u = n ? malloc(n * sizeof *u) : NULL;
    if (n && !u) return;
    n = 0;
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc + 1 < p->bodies[b].ncode; pc++)
            if (!ran[b][pc]) u[n++] = (explore_unreached){.body = b, .pc = pc};
    r->unreached = u;
    r->nunreached = n;
    r->unreached_known = true;
}

static int refused(explore_result *r, int rc)
{
    r->stop = STOP_NOMEM;
    r->verdict = VERDICT_INCOMPLETE;
    return rc;
}

int explore_run(const vm_program *p, const explore_options *o, explore_result *r)
{
    search S;
    memset(&S, 0, sizeof S);
    memset(r, 0, sizeof *r);
    char msg[512];
    if (explore_check(o, msg, sizeof msg)) return refused(r, EXPLORE_REFUSED);
    const engine *e = engine_for(o);
    r->engine = e; /* its statistics' rows (explore_stats_rows()) */
    if (e->drive) return e->drive(p, o, r);
    S.p = p;
    S.o = o;
    S.r = r;
    S.eng = e;
    rt_start(&S.lim, RT_PROGRESS_FIRST, RT_PROGRESS_EVERY);
    if (ls_needed(o->race, p)) { /* LS_OFF too, to check unshared variables */
        /* --por: statically discharged elements get no metadata */
        S.det = ls_new_opts(o->race, p, p->layout.size, o->por);
        if (!S.det) return refused(r, -1);
        ls_hooks(S.det, &S.hooks);
    }
    /* the product's bytes follow the vector (nested.c) */
    size_t extra = e->product_bytes;
    search_layout(&S, extra);
    S.ran = step_ran_new(p);
    search_env(&S, &S.lim.t0);
    /* the stateless search stores no state; sleep sets use --por's
     * independence (with a preemption bound: bounded_sleep.c's); none
     * under a delay bound (delay_bound.c) */
    bool sleep_sets = e->stateless && !o->no_sleep_sets && o->delay_bound < 0;
    S.st = e->stateless ? NULL : store_new(&o->store, S.vsize + extra);
    S.cur = calloc(1, S.wsize);
    S.dfs.next = e->depth_first ? calloc(1, S.wsize) : NULL;
    S.recent.on = S.st && store_takes_hash(S.st);
    S.recent.slots = S.recent.on ? calloc(RECENT_SLOTS, sizeof *S.recent.slots) : NULL;
    if (!S.recent.slots) S.recent.on = false; /* it is only a cache */
    S.ahead.may = e == &engine_dfs && !S.det && S.recent.on && o->lookahead != LOOKAHEAD_OFF;
    S.por = o->por || sleep_sets ? por_new(p) : NULL;
    S.ctx = e->ctx_size ? calloc(1, e->ctx_size) : NULL;
    S.vec_bytes = (e->depth_first ? 2 : 1) * S.wsize;
    if (S.recent.slots) S.vec_bytes += RECENT_SLOTS * sizeof *S.recent.slots;
    if ((!S.st && !e->stateless) || !S.cur || !S.ran || (e->ctx_size && !S.ctx) ||
        (e->depth_first && (!S.dfs.next || (!e->stateless && !dfs_grow(&S, 1, false)))) ||
        (o->por && (!S.env.fold_undo || !S.por)) || (sleep_sets && !S.por)) {
        free_search(&S);
        return refused(r, -1);
    }
    uint8_t *s0 = S.cur;
    memcpy(s0, p->init_state, p->layout.size);
    if (S.det) ls_init_meta(S.det, s0);
    s0[S.ssize] = 0;
    step_outcome out = {.kind = VERDICT_OK, .elem = UINT32_MAX};
    uint32_t first;
    uint64_t nfirst;
    /* --por: the static threads' invisible starts, before the initial
     * state is stored */
    int rc = INS_STOP;
    if (e->stateless)
        e->run(&S, p->nthreads, 0); /* no store: the initial state is its first level */
    else if (S.env.fold_start && !step_fold_starts(&S.env, s0, &r->stats, false))
        S.lim.stop = STOP_NOMEM; /* the detector ran out of memory */
    else
        rc = insert_successor(&S, s0, &out, &first, &nfirst);
    if (rc == INS_ERROR)
        record_error(&S, &out, NULL, 0);
    else if (rc == INS_NEW)
        e->run(&S, first, nfirst);

    fill_stats(&S);
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].cls == VM_SHARED) r->stats.shared_elements += p->vars[v].size;
    r->stats.discharged = ls_discharged(S.det);
    if (S.lim.truncated) rt_stop(&S.lim, STOP_DEPTH);
    rt_result(r, S.lim.stop, o);
    if (!e->stateless && S.cur && (S.lim.stop == STOP_MEMLIMIT || S.lim.stop == STOP_TIMELIMIT ||
                                   S.lim.stop == STOP_INTERRUPTED))
        if ((r->stop_state = malloc(p->layout.size))) /* NULL: no hint */
            memcpy(r->stop_state, S.cur, p->layout.size);
    /* bitstate may have missed states: then what they run is not unreached */
    if (S.lim.stop == STOP_COMPLETE && o->store.kind != STORE_BITSTATE)
        collect_unreached(p, S.ran, r);
    if (rt_progress_last(o, r->stats.seconds)) progress_line(&S, r->stats.seconds);
    free_search(&S);
    return 0;
}

void explore_result_free(explore_result *r)
{
    if (!r) return;
    for (uint32_t i = 0; i < r->nerrors; i++) free(r->errors[i].path);
    free(r->errors);
    r->errors = NULL;
    r->nerrors = 0;
    free(r->unreached);
    r->unreached = NULL;
    free(r->stop_state);
    r->stop_state = NULL;
    free(r->workers);
    r->workers = NULL;
    free(r->swarm);
    r->swarm = NULL;
    r->nswarm = 0;
    free(r->ranks);
    r->ranks = NULL;
    r->nranks = 0;
    r->nworkers = 0;
    r->nunreached = 0;
    r->unreached_known = false;
}
