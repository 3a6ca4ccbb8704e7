/* explore.c: the search's driver, explore_run(): it sets up the context
 * (detector, store, the work vectors, the recent-lookup cache), inserts the
 * initial state, runs the DFS (dfs.c) or the BFS (bfs.c), and fills in the
 * result. Every stored vector is the vm state followed by one marker byte:
 * 0, or for an error state the faulting thread's id + 1, so an error state
 * (which the interpreter leaves equal to its predecessor) is stored as a
 * state of its own and has no successors (LANGUAGE.md), and the errors of
 * two threads that fault in the same state are two error states, each
 * reported. It runs no step itself (step.c: with --por the static
 * threads' invisible starts too, before the initial state is stored) and
 * orders nothing (dfs.c, bfs.c); the search follows Stoller (section 5.1).
 * After a complete search it lists the instructions no step ran (the
 * steps mark them in S.ran, step_int.h), like SPIN's unreached code. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "por_int.h"
#include "races_int.h"
#include "search_int.h"

static void free_search(search *S)
{
    store_free(S->st);
    ls_free(S->det);
    free(S->dfs.frames);
    free(S->dfs.undo);
    free(S->cur);
    free(S->dfs.next);
    ahead_free(S);
    free(S->recent.slots);
    free(S->bfs.states);
    free(S->bfs.parent);
    free(S->bfs.via);
    free(S->scratch);
    free(S->env.fold_undo);
    free(S->ran);
    por_free(S->por);
    free(S->ps.frames);
    free(S->ps.onstack.key);
    free(S->ps.onstack.val);
    free(S->ps.slept.key);
    free(S->ps.slept.val);
    free(S->sl.frames);
    free(S->sl.errs);
    free(S->sl.init);
    races_free(S->rs);
    free(S->lv.frames);
    free(S->lv.onstack.key);
    free(S->lv.onstack.val);
    free(S->lv.check);
    free(S->lv.full.key);
    free(S->lv.full.val);
    free(S->lv.prop_objs);
    free(S->lt.frames);
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

int explore_run(const vm_program *p, const explore_options *o, explore_result *r)
{
    search S;
    memset(&S, 0, sizeof S);
    memset(r, 0, sizeof *r);
    if ((o->search == SEARCH_STATELESS && (o->workers || o->por)) || /* not supported */
        (o->scheduling_races && (o->search != SEARCH_STATELESS || o->preemption_bound >= 0)) ||
        /* --liveness=npc: the sequential DFS only (liveness.c) */
        (o->liveness && (o->search != SEARCH_DFS || o->workers ||
                         (o->por && o->liveness == LIVENESS_STARVATION) ||
                         o->store.kind == STORE_BITSTATE)) ||
        /* --ltl: likewise (ltl_search.c) */
        (o->ltl && (o->liveness || o->search != SEARCH_DFS || o->workers ||
                    o->store.kind == STORE_BITSTATE || o->ltl->nstates > 65535))) {
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        return -1;
    }
    if (o->workers) return explore_parallel(p, o, r);
    S.p = p;
    S.o = o;
    S.r = r;
    clock_gettime(CLOCK_MONOTONIC, &S.lim.t0);
    S.lim.next_progress = 2.0;
    if (o->por && o->reduce != REDUCE_COMPOSE) { /* --por works on composed steps */
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        return -1;
    }
    if (ls_needed(o->race, p)) { /* LS_OFF too, to check unshared variables */
        /* --por: statically discharged elements get no metadata */
        S.det = ls_new_opts(o->race, p, p->layout.size, o->por);
        if (!S.det) {
            r->stop = STOP_NOMEM;
            r->verdict = VERDICT_INCOMPLETE;
            return -1;
        }
        ls_hooks(S.det, &S.hooks);
    }
    S.ssize = p->layout.size + ls_meta_bytes(S.det);
    S.env = (step_env){.p = p, .hooks = &S.hooks, .det = S.det, .reduce = o->reduce,
                       .max_invisible = o->max_invisible, .fold_start = o->por,
                       .fold_undo = o->por ? malloc(S.ssize) : NULL, .state_bytes = S.ssize,
                       .stopped = &S.lim.stop, .t0 = &S.lim.t0, .timelimit = o->timelimit,
                       .interrupt = o->interrupt};
    S.ran = step_ran_new(p);
    S.env.ran = S.ran;
    S.vsize = S.ssize + 1;
    /* --liveness: the product's copy byte follows the vector (liveness.c) */
    size_t lv_byte = o->liveness ? 1 : 0;
    if (o->ltl) lv_byte = 3; /* --ltl: automaton state (2 bytes), nested flag */
    S.wsize = (S.vsize + lv_byte + 7) & ~(size_t)7;
    /* the stateless search stores no state; sleep sets use --por's
     * independence (not with a preemption bound: stateless.c) */
    bool stateless_search = o->search == SEARCH_STATELESS;
    bool sleep_sets = stateless_search && !o->no_sleep_sets && o->preemption_bound < 0;
    S.st = stateless_search ? NULL : store_new(&o->store, S.vsize + lv_byte);
    bool dfs_search = o->search != SEARCH_BFS;
    S.cur = calloc(1, S.wsize);
    S.dfs.next = dfs_search ? calloc(1, S.wsize) : NULL;
    S.recent.on = S.st && store_takes_hash(S.st);
    S.recent.slots = S.recent.on ? calloc(RECENT_SLOTS, sizeof *S.recent.slots) : NULL;
    if (!S.recent.slots) S.recent.on = false; /* it is only a cache */
    S.ahead.may = dfs_search && !o->por && !o->liveness && !o->ltl && !S.det && S.recent.on &&
                  o->lookahead != LOOKAHEAD_OFF;
    S.por = o->por || sleep_sets ? por_new(p) : NULL;
    S.vec_bytes = (dfs_search ? 2 : 1) * S.wsize;
    if (S.recent.slots) S.vec_bytes += RECENT_SLOTS * sizeof *S.recent.slots;
    if ((!S.st && !stateless_search) || !S.cur || !S.ran ||
        (dfs_search && (!S.dfs.next || (!stateless_search && !dfs_grow(&S, 1, false)))) ||
        (o->por && (!S.env.fold_undo || !S.por)) || (sleep_sets && !S.por)) {
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        free_search(&S);
        return -1;
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
    if (stateless_search)
        stateless(&S); /* no store: the initial state is its first level */
    else if (S.env.fold_start && !step_fold_starts(&S.env, s0, &r->stats, false))
        S.lim.stop = STOP_NOMEM; /* the detector ran out of memory */
    else
        rc = insert_successor(&S, s0, &out, &first, &nfirst);
    if (rc == INS_ERROR)
        record_error(&S, &out, NULL, 0);
    else if (rc == INS_NEW && o->check_lasso && o->liveness == LIVENESS_STARVATION)
        starvation_check_lasso(&S); /* mcheck --replay: no search */
    else if (rc == INS_NEW && o->check_lasso && o->ltl)
        ltl_check_lasso(&S);
    else if (rc == INS_NEW && o->search == SEARCH_BFS)
        bfs(&S);
    else if (rc == INS_NEW && o->liveness == LIVENESS_STARVATION)
        liveness_starvation(&S);
    else if (rc == INS_NEW && o->liveness)
        liveness_npc(&S);
    else if (rc == INS_NEW && o->ltl)
        ltl_search(&S);
    else if (rc == INS_NEW && S.por)
        dfs_por(&S);
    else if (rc == INS_NEW)
        dfs(&S, first, nfirst);

    fill_stats(&S);
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].cls == VM_SHARED) r->stats.shared_elements += p->vars[v].size;
    r->stats.discharged = ls_discharged(S.det);
    if (S.lim.stop == STOP_COMPLETE && S.lim.truncated) S.lim.stop = STOP_DEPTH;
    r->stop = S.lim.stop;
    if (r->stop == STOP_MEMLIMIT)
        r->memlimit_part = explore_memlimit_part(&r->stats, o->search == SEARCH_BFS);
    if (r->nerrors)
        r->verdict = r->errors[0].kind;
    else if (S.lim.stop == STOP_COMPLETE || S.lim.stop == STOP_PREEMPTION)
        r->verdict = VERDICT_OK; /* the preemption bound: no error within it */
    else
        r->verdict = VERDICT_INCOMPLETE;
    /* bitstate may have missed states: then what they run is not unreached */
    if (S.lim.stop == STOP_COMPLETE && o->store.kind != STORE_BITSTATE)
        collect_unreached(p, S.ran, r);
    if (o->progress && r->stats.seconds >= 2.0) progress_line(&S, r->stats.seconds);
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
    free(r->workers);
    r->workers = NULL;
    free(r->ranks);
    r->ranks = NULL;
    r->nranks = 0;
    r->nworkers = 0;
    r->nunreached = 0;
    r->unreached_known = false;
}
