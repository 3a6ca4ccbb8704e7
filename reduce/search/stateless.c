/* stateless.c: --search=stateless, Stoller's IF-SSS_cyc (section 5.1,
 * Figure 2): a depth-first search over executions, not states. It keeps
 * only the current path (a frame and an undo record per level, the plain
 * DFS's undo log) and never stores a visited state, so its memory grows
 * with the path's length. Steps are the composed steps (the invisible-first
 * rule: only visible states branch). Sleep sets (Godefroid's thesis,
 * chapter 5) prune steps that lead only to executions equivalent to ones
 * explored: once a thread's step has been explored from a node, it sleeps in
 * the later siblings, and a child keeps asleep the threads whose steps are
 * independent of the step taken (por.c's relation). Cycles: iterative
 * deepening, SSS_bnd(d) with d doubled from 32 until an iteration cuts no
 * execution at the bound (then it is complete) or d reaches --max-depth
 * (default STATELESS_DEFAULT_DEPTH: incomplete). A preemption bound (CHESS)
 * leaves out the steps that would exceed it; its sleep sets are
 * bounded_sleep.c's (a thread sleeps only where an equivalent order explored
 * first costs no more preemptions).
 * A delay bound (delay_bound.c) explores the executions within K delays of
 * a round-robin scheduler, without sleep sets.
 * It does not shorten traces, run -j, or use persistent sets. With
 * --scheduling=races (its context's rs) the threads each level expands are
 * stateless_races.c's (races_int.h): race-driven transactions, a dynamic
 * partial-order reduction; the loop, the path and the sleep sets stay
 * here. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "por_int.h"
#include "races_int.h"

#ifndef SL_FIRST_BOUND
#define SL_FIRST_BOUND 32u /* the first iteration's depth bound */
#endif

static bool sl_frames_grow(search *S, size_t need)
{
    if (need <= SL(S)->cap) return true;
    void *f = SL(S)->frames;
    bool ok = frames_grow_slow(S, &f, &SL(S)->cap, need, sizeof(sl_frame), true);
    SL(S)->frames = f;
    return ok;
}

/* --all-errors: is the error state with hash h new? Adds it. The set holds
 * 8 bytes an error state, counted as the errors' memory. False with
 * S->lim.stop set if it cannot grow. */
static bool err_new(search *S, uint64_t h, bool *fresh)
{
    sl_stack *sl = SL(S);
    if (!h) h = 1;
    if (2 * (sl->errs_len + 1) > sl->errs_cap) {
        size_t nc = sl->errs_cap ? 2 * sl->errs_cap : 256;
        if (S->o->memlimit && search_memory(S) + (nc - sl->errs_cap) * 8 > S->o->memlimit) {
            S->lim.stop = STOP_MEMLIMIT;
            S->lim.refused = (nc - sl->errs_cap) * 8;
            return false;
        }
        uint64_t *n = calloc(nc, sizeof *n);
        if (!n) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        for (size_t i = 0; i < sl->errs_cap; i++) {
            if (!sl->errs[i]) continue;
            size_t j = (size_t)(sl->errs[i] * 0x9e3779b97f4a7c15ull >> 17) & (nc - 1);
            while (n[j]) j = (j + 1) & (nc - 1);
            n[j] = sl->errs[i];
        }
        S->lim.error_bytes += (nc - sl->errs_cap) * 8;
        free(sl->errs);
        sl->errs = n;
        sl->errs_cap = nc;
    }
    size_t mask = sl->errs_cap - 1, j = (size_t)(h * 0x9e3779b97f4a7c15ull >> 17) & mask;
    while (sl->errs[j] && sl->errs[j] != h) j = (j + 1) & mask;
    *fresh = !sl->errs[j];
    if (*fresh) {
        sl->errs[j] = h;
        sl->errs_len++;
    }
    return true;
}

/* An error reached after the steps of levels 0 .. depth - 1 and then
 * `last` (NULL: at level `depth`, a deadlock); `v` is the error state,
 * marked. Without --all-errors the first stops the search; with it each
 * error state counts once (a later execution may reach it again, or a
 * later iteration). False if the search must stop. */
static bool sl_error(search *S, size_t depth, const explore_step *last, const step_outcome *out,
                     const uint8_t *v)
{
    if (S->o->all_errors) {
        bool fresh;
        if (!err_new(S, store_hash64(v, S->vsize), &fresh)) return false;
        if (!fresh) return true;
    }
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    uint32_t len = (uint32_t)depth + (last ? 1 : 0);
    explore_step *path = malloc((len ? len : 1) * sizeof *path);
    if (!path) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    for (size_t i = 0; i < depth; i++) /* level i + 1 came from level i's last step */
        path[i] = (explore_step){SL(S)->frames[i].fr.tid, SL(S)->frames[i].fr.choice - 1};
    if (last) path[depth] = *last;
    bool go_on = record_error(S, out, path, len);
    free(path);
    return go_on;
}

/* A valid end state at the current level: with --all-errors, counted once
 * (by its hash, in the error states' set: an end state is never an error
 * state) in stats.end_states, which the tests compare with the stateful
 * search's. False if the set cannot grow. */
static bool end_state(search *S)
{
    if (!S->o->all_errors) return true;
    bool fresh;
    if (!err_new(S, store_hash64(S->cur, S->vsize), &fresh)) return false;
    S->r->stats.end_states += fresh;
    return true;
}

/* What one iteration found besides errors. */
typedef struct sl_iter {
    uint64_t bound;     /* the depth bound */
    int64_t k;          /* the preemption bound (-1: none) */
    int64_t d;          /* the delay bound (-1: none; delay_bound.c) */
    bool cut;           /* an execution was cut at the depth bound */
    bool pruned;        /* a step was left out for the preemption or delay bound */
} sl_iter;

/* The next thread to expand at level f after f->fr.tid: enabled, not
 * asleep, within the preemption bound (one left out for the bound sets
 * it->pruned); -1 if none. With a preemption bound a sleeping thread is
 * taken, and the covered ones are left out (bounded_sleep.c). With
 * `count`, counts the steps the sleep set and the bound leave out. A delay
 * bound's order and cost are delay_bound.c's. */
static int32_t next_thread(search *S, sl_frame *f, sl_iter *it, uint64_t *n, bool count)
{
    if (it->d >= 0) return dlb_next(S, f, it->d, &it->pruned, n, count);
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    const uint64_t skip = it->k >= 0 ? f->covered : f->sleep;
    /* the order: by id; with a bound and sleep sets, the last thread first
     * (its step is free: bounded_sleep.c's covering favours the order
     * tried first) */
    const int32_t nt = (int32_t)p->nthreads, l = it->k >= 0 && S->por ? f->last : -1;
    const int32_t from = f->fr.tid < 0 || l < 0 ? f->fr.tid : f->fr.tid == l ? 0 : f->fr.tid + 1;
    for (int32_t i = from + 1; i < nt + (l >= 0); i++) {
        int32_t t = l < 0 ? i : i == 0 ? l : i - 1;
        if (l >= 0 && i > 0 && t == l) continue;
        if (!(*n = vm_enabled(p, S->cur, t))) continue;
        if (it->k >= 0 && f->preempt + preempts(f, t) > (uint64_t)it->k) {
            x->preemption_pruned += count;
            it->pruned = true;
            continue;
        }
        if (t < 64 && (skip >> t & 1)) {
            x->sleep_avoided += count;
            continue;
        }
        return t;
    }
    return -1;
}

/* Start level `depth` (state S->cur): an error if it is deadlocked, a leaf
 * at the depth bound. False if the search must stop. */
static bool level_start(search *S, size_t depth, int32_t last, uint32_t preempt, uint64_t sleep,
                        sl_iter *it)
{
    const vm_program *p = S->p;
    sl_frame *f = &SL(S)->frames[depth];
    f->fr = (frame){.tid = -1, .undo = f->fr.undo}; /* undo: set by the push */
    f->sleep = sleep;
    f->indep = 0;
    f->last = last;
    f->preempt = preempt;
    f->last_enabled = last >= 0 && vm_enabled(p, S->cur, last) != 0;
    f->last_ended = last >= 0 && vm_tstatus_of(p, S->cur, last) == VM_T_ENDED;
    f->took = false;
    f->erred = false;
    f->added = 0;
    f->covered = 0;
    if (it->k >= 0 && S->por) bsl_cover(S, f); /* f->pend: set by the caller */
    mark_reached(S, S->cur);
    if (depth > S->r->stats.max_depth) S->r->stats.max_depth = depth;
    if (SL(S)->rs && !races_level(S, depth, last)) return false;
    if (!any_enabled(p, S->cur)) {
        f->fr.tid = (int32_t)p->nthreads; /* a leaf */
        if (vm_valid_end(p, S->cur)) return end_state(S);
        step_outcome out;
        deadlock_outcome(&out);
        return sl_error(S, depth, NULL, &out, S->cur);
    }
    if (depth >= it->bound) {
        /* a leaf: cut if a step would have been taken here. Every enabled
         * thread is scanned once, as at an inner node, so the steps the
         * sleep set or the preemption bound leave out here are counted
         * (they would be left out at any depth bound) */
        uint64_t n;
        if (SL(S)->rs) {
            for (int32_t t; (t = races_next(S, depth, f->sleep, &n, true)) >= 0;) it->cut = true;
        } else {
            for (int32_t t; (t = next_thread(S, f, it, &n, true)) >= 0; f->fr.tid = t) it->cut = true;
        }
        f->fr.tid = (int32_t)p->nthreads;
    }
    return true;
}

/* One iteration: SSS_bnd(it->bound) with preemption bound it->k. */
static void iteration(search *S, sl_iter *it)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    const bool sleep_sets = S->por != NULL;
    const bool bounded = sleep_sets && it->k >= 0; /* bounded_sleep.c */
    memcpy(S->cur, SL(S)->init, S->wsize);
    S->dfs.undo_len = 0;
    if (SL(S)->rs) races_reset(SL(S)->rs);
    size_t depth = 0;
    SL(S)->frames[0].fr.undo = 0;
    SL(S)->frames[0].pend = -1;
    SL(S)->frames[0].covered = 0;
    if (!level_start(S, 0, -1, 0, 0, it)) return;
    while (S->lim.stop == STOP_COMPLETE) {
        sl_frame *f = &SL(S)->frames[depth];
        if (f->fr.tid < 0 || (f->fr.tid < (int32_t)p->nthreads && f->fr.choice >= f->fr.nchoices)) {
            /* tid's steps are explored: it sleeps in the later siblings */
            if (f->fr.tid >= 0 && f->fr.tid < 64 && sleep_sets && !f->erred) {
                f->sleep |= 1ull << f->fr.tid;
                f->added |= 1ull << f->fr.tid;
            }
            f->erred = false;
            uint64_t n = 0;
            int32_t t = SL(S)->rs ? races_next(S, depth, f->sleep, &n, true) : next_thread(S, f, it, &n, true);
            if (t < 0) {
                f->fr.tid = (int32_t)p->nthreads;
            } else {
                f->fr.tid = t;
                f->fr.choice = 0;
                f->fr.nchoices = n;
                f->indep = f->sleep ? por_independent(S->por, S->cur, t, f->sleep) : 0;
                if (bounded) bsl_took(S, depth, t);
            }
        }
        if (f->fr.tid >= (int32_t)p->nthreads) { /* backtrack */
            if (!f->took) x->executions++; /* a leaf ends an execution */
            if (depth == 0) break;
            undo_pop(S, f->fr.undo);
            depth--;
            if (SL(S)->rs) races_pop(SL(S)->rs, depth);
            continue;
        }
        explore_step st = {f->fr.tid, f->fr.choice++};
        f->took = true;
        uint8_t *ns = S->dfs.next;
        memcpy(ns, S->cur, S->ssize);
        step_outcome out;
        if (!run_step(S, ns, st.tid, st.choice, &out)) break;
        mark_outcome(S, ns, &out);
        x->transitions++;
        if (out.kind != VERDICT_OK) { /* an error state: no successors */
            x->executions++;
            f->erred = true;
            if (SL(S)->rs) races_erred(S, depth);
            if (!sl_error(S, depth, &st, &out, ns)) break;
        } else {
            if (!sl_frames_grow(S, depth + 2) || !undo_grow(S)) break;
            if (bounded && !bsl_grow(S, depth + 2)) break;
            if (SL(S)->rs && !races_took(S, depth, st.tid, S->cur, ns)) break;
            /* the child's preemptions, or its delays (delay_bound.c) */
            uint32_t pre = f->preempt + (it->d >= 0 ? f->dk : preempts(f, st.tid));
            uint64_t z = f->sleep & f->indep; /* the child keeps the independent ones asleep */
            depth++;
            sl_frame *nf = &SL(S)->frames[depth];
            nf->pend = -1;
            if (bounded) bsl_child(S, depth - 1, st.tid, nf);
            nf->fr.undo = undo_push(S, S->cur, ns);
            S->dfs.next = S->cur;
            S->cur = ns;
            if (!level_start(S, depth, st.tid, pre, z, it)) break;
        }
        if (!limits_ok(S)) break;
    }
}

static void stateless(search *S, uint32_t first, uint64_t n)
{
    (void)first;
    (void)n;
    explore_stats *x = &S->r->stats;
    const explore_options *o = S->o;
    uint64_t cap = o->max_depth ? o->max_depth : STATELESS_DEFAULT_DEPTH;
    const bool delays = o->delay_bound >= 0; /* else a preemption bound, or none */
    int64_t K = delays ? o->delay_bound : o->preemption_bound;
    const bool iterate = delays ? o->delay_iterate : o->preemption_iterate;
    /* --max-depth given: one iteration at it (deepening from 32 would run
     * the shallower trees again); else deepen from SL_FIRST_BOUND */
    const uint64_t bound0 = o->max_depth || cap < SL_FIRST_BOUND ? cap : SL_FIRST_BOUND;
    sl_iter it = {.bound = bound0, .k = -1, .d = -1};
    int64_t *kb = delays ? &it.d : &it.k; /* the bound raised by 0..K */
    *kb = K >= 0 && iterate ? 0 : K;
    SL(S)->init = malloc(S->wsize);
    if (!SL(S)->init || !sl_frames_grow(S, 2)) {
        if (S->lim.stop == STOP_COMPLETE) S->lim.stop = STOP_NOMEM;
        return;
    }
    S->vec_bytes += S->wsize;
    memcpy(SL(S)->init, S->cur, S->wsize);
    if (K >= 0 && S->por) { /* bounded_sleep.c's objects per level */
        SL(S)->words = por_words(S->por);
        if (!bsl_grow(S, 2)) return;
    }
    if (o->scheduling_races) {
        SL(S)->rs = races_new(S); /* NULL: every node full (races_new()) */
        if (S->lim.stop != STOP_COMPLETE) return;
    }
    for (;;) {
        it.cut = it.pruned = false;
        x->iterations++;
        x->depth_bound = it.bound;
        x->preemption_bound = it.k;
        x->delay_bound = it.d;
        iteration(S, &it);
        if (S->lim.stop != STOP_COMPLETE) return;
        if (it.cut) { /* deeper executions exist: raise the bound */
            if (it.bound < cap) {
                it.bound = it.bound > cap / 2 ? cap : 2 * it.bound;
                continue;
            }
            /* cut at --max-depth: incomplete, but with 0..K a larger
             * preemption bound may still meet an error within the depth */
            S->lim.truncated = true;
            if (!(it.pruned && *kb < K)) return;
        }
        if (it.pruned && *kb < K) {
            /* the next preemption bound deepens again from the first depth
             * bound, as --preemption-bound k + 1 alone would: a bounded
             * tree grows with the depth like a polynomial (degree about
             * k + 2), so the shallower iterations cost a fraction of the
             * last, and an error within k + 1 preemptions is met in a
             * truncated tree, where depth-first order reaches it sooner */
            (*kb)++;
            it.bound = bound0;
            continue;
        }
        if (it.pruned) S->lim.stop = delays ? STOP_DELAY : STOP_PREEMPTION;
        return;
    }
}

static void stateless_free(search *S)
{
    sl_stack *sl = SL(S);
    free(sl->frames);
    free(sl->errs);
    free(sl->init);
    free(sl->fp);
    free(sl->pf);
    free(sl->bf);
    races_free(sl->rs);
}

static uint64_t stateless_reserved(const search *S)
{
    return SL(S)->cap * sizeof(sl_frame) + SL(S)->fp_cap * SL(S)->words * 3 * sizeof(uint64_t);
}

static uint64_t stateless_used(const search *S, uint64_t levels)
{
    return frames_used(S, SL(S)->cap, sizeof(sl_frame), levels);
}

static bool stateless_selects(const explore_options *o)
{
    return o->search == SEARCH_STATELESS || o->scheduling_races;
}

static const char *stateless_refuses(const explore_options *o, char *msg, size_t n)
{
    if (o->scheduling_races && o->search != SEARCH_STATELESS) {
        snprintf(msg, n, "--scheduling=races is a stateless search: it cannot be used with "
                         "--search=%s", search_order_name(o->search));
        return msg;
    }
    if (o->scheduling_races && (o->race == LS_LD || o->race == LS_ERASER)) {
        snprintf(msg, n, "--scheduling=races needs --race=goldilocks (or off), not --race=%s: "
                         "once volatile accesses stop being scheduling points, violations of a "
                         "locking discipline are no longer all found; races by "
                         "happens-before are", race_mode_name(o->race));
        return msg;
    }
    if (o->scheduling_races && o->preemption_bound >= 0)
        return "--preemption-bound cannot be used with --scheduling=races (a "
               "bounded search needs every preemption as a scheduling choice)";
    if (o->scheduling_races && o->delay_bound >= 0)
        return "--delay-bound cannot be used with --scheduling=races (a bounded "
               "search needs every thread switch as a scheduling choice)";
    if (o->delay_bound >= 0 && o->preemption_bound >= 0)
        return "--delay-bound cannot be used with --preemption-bound (one bound at a time)";
    if (o->workers) return "-j applies to the stateful search, not to --search=stateless";
    if (o->por)
        return "--por needs a state store (its cycle proviso); --search=stateless "
               "uses sleep sets (--sleep-sets)";
    if (o->lookahead != LOOKAHEAD_AUTO && o->lookahead != LOOKAHEAD_OFF) {
        snprintf(msg, n, "--lookahead=%s applies to the stateful depth-first search",
                 lookahead_mode_name(o->lookahead));
        return msg;
    }
    return NULL;
}

/* It stores no state: executions, not states, and the iterations of its
 * depth bound; sleep sets, the race-driven nodes, the preemption bound. */
static void stateless_rows(const explore_options *o, const explore_result *r, stats_sink *k)
{
    const explore_stats *x = &r->stats;
    stats_row(k, STATS_COUNTS, "executions", "%" PRIu64 " (no state stored)", x->executions);
    stats_row(k, STATS_COUNTS, "iterations",
              "%" PRIu64 " (iterative deepening; last depth bound %" PRIu64 ")", x->iterations,
              x->depth_bound);
    if (o->no_sleep_sets || o->delay_bound >= 0)
        stats_row(k, STATS_SEARCH, "sleep sets", "off (%s)",
                  o->no_sleep_sets ? "--sleep-sets=off" : "under a delay bound");
    else
        stats_row(k, STATS_SEARCH, "sleep sets", "%" PRIu64 " steps not taken (revisits avoided%s)",
                  x->sleep_avoided, o->preemption_bound >= 0 ? "; within the bound" : "");
    if (o->scheduling_races)
        stats_row(k, STATS_SEARCH, "race-driven",
                  "%" PRIu64 " light nodes (no choice), %" PRIu64 " races found (backtrack "
                  "points added), %" PRIu64 " fallbacks to full",
                  x->light_nodes, x->races_found, x->race_fallbacks);
    if (o->preemption_bound >= 0)
        stats_row(k, STATS_SEARCH, "preemption bound", "%" PRId64 "%s (%" PRIu64 " steps left out)",
                  x->preemption_bound, o->preemption_iterate ? ", raised from 0" : "",
                  x->preemption_pruned);
    if (o->delay_bound >= 0)
        stats_row(k, STATS_SEARCH, "delay bound", "%" PRId64 "%s (%" PRIu64 " steps left out)",
                  x->delay_bound, o->delay_iterate ? ", raised from 0" : "", x->delay_pruned);
    stats_count(k, STATS_SEARCH, "executions", x->executions);
    stats_count(k, STATS_SEARCH, "iterations", x->iterations);
    stats_count(k, STATS_SEARCH, "depth_bound", x->depth_bound);
    stats_count(k, STATS_SEARCH, "sleep_avoided", x->sleep_avoided);
    stats_count(k, STATS_SEARCH, "preemption_pruned", x->preemption_pruned);
    if (o->preemption_bound >= 0)
        stats_signed(k, STATS_SEARCH, "preemption_bound", x->preemption_bound);
    else
        stats_null(k, STATS_SEARCH, "preemption_bound");
    stats_count(k, STATS_SEARCH, "delay_pruned", x->delay_pruned);
    if (o->delay_bound >= 0)
        stats_signed(k, STATS_SEARCH, "delay_bound", x->delay_bound);
    else
        stats_null(k, STATS_SEARCH, "delay_bound");
    stats_count(k, STATS_SEARCH, "light_nodes", x->light_nodes);
    stats_count(k, STATS_SEARCH, "races_found", x->races_found);
    stats_count(k, STATS_SEARCH, "race_fallbacks", x->race_fallbacks);
}

/* No store: the initial state is its first level. */
const engine engine_stateless = {
    .name = "stateless",
    .selects = stateless_selects,
    .refuses = stateless_refuses,
    .stateless = true,
    .depth_first = true,
    .ctx_size = sizeof(sl_stack),
    .run = stateless,
    .free_ctx = stateless_free,
    .reserved = stateless_reserved,
    .used = stateless_used,
    .rows = stateless_rows,
};
