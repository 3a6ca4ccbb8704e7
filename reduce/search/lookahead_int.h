/* lookahead_int.h: the calls through which dfs() uses the look-ahead
 * (lookahead.c), private to reduce/. The DFS look-ahead builds, hashes and
 * prefetches the steps the search will likely take next. It changes nothing
 * but time: dfs() takes a built step only when it is the step it takes next
 * (ahead_take()), and every count and trace is that of --lookahead=off.
 * Without it, each of these calls does nothing (ahead_take() answers false,
 * ahead_after_step() too). Inline, as they run on every transition. */
#ifndef MCHECK_LOOKAHEAD_INT_H
#define MCHECK_LOOKAHEAD_INT_H

#include "search_int.h"

void ahead_drop(search *S); /* drop the guessed path (take back its counts) */

/* Build the step after the path's tail tl and make it the tail (false if
 * there is none to guess). */
bool next_ahead(search *S, size_t depth, explore_step st, const uint8_t *ns, path_tail *tl,
                bool fetch);

/* The odds that a store lookup (a successor not in the recent cache) is of
 * a new state, by context: whether its step is a later one of its level
 * (CTX_LATER; else the first, after the parent was new), whether its thread
 * is below the thread of the step into its level (CTX_LOWER: then the two
 * steps in the other order were searched already, and if they commute the
 * state was seen), and whether the store lookup before it was new. Counted
 * as the search goes, over a decaying window. Philosophers N=5: a first
 * step is new 98% of the time, and 8% with CTX_LOWER; a later one after a
 * seen lookup 20%; prodcons: a first step 96%, a later one after a new
 * lookup 99%. --lookahead=child and =sibling always guess new and seen. */
#define ODDS_WINDOW 4096
static inline bool guess_new(const search *S, unsigned ctx, bool prev_new, uint32_t *conf)
{
    const odds_count *o = &S->ahead.odds[ctx][prev_new];
    if (S->o->lookahead == LOOKAHEAD_CHILD || S->o->lookahead == LOOKAHEAD_SIBLING) {
        *conf = 256;
        return S->o->lookahead == LOOKAHEAD_CHILD;
    }
    *conf = o->conf;
    return o->guess;
}

/* Count a store lookup of context (ctx, prev_new) in the odds (guess_new()). */
static inline void ahead_count(search *S, unsigned ctx, bool prev_new, bool is_new)
{
    odds_count *o = &S->ahead.odds[ctx][prev_new];
    o->tries++;
    o->news += is_new;
    if (o->tries >= ODDS_WINDOW) {
        o->tries /= 2;
        o->news /= 2;
    }
    if ((o->tries & 63) == 0) { /* the guess and its share, now and then */
        o->guess = o->news * 2 >= o->tries;
        o->conf = (o->guess ? o->news : o->tries - o->news) * 256 / o->tries;
    }
}

/* Extend the guessed path of the steps after (depth, st) to ns, the one
 * being looked up (`recent`: found in the recent cache; `ctx`: its
 * context, see guess_new(); `prev_new`: the store lookup before it found a
 * new state), while it holds fewer than AHEAD_LOOKUPS store lookups and is
 * likely enough. Each store lookup on the path is guessed new or seen by
 * the odds of its context (guess_new()); one in the recent cache, an error
 * or a state at the depth limit is surely not descended into. After a
 * successor guessed new comes its first step; after one guessed seen, the
 * next step of its level, or of the level below when its level has none.
 * The path's last step is kept (S->ahead.tail) so that the path grows from
 * it; dfs() takes the path while the search follows it. */
static inline void ahead_extend(search *S, size_t depth, explore_step st, const uint8_t *ns,
                                const step_outcome *out, bool recent, unsigned ctx,
                                bool prev_new)
{
    lookahead *A = &S->ahead;
    /* how likely the path is, of 256: the step being looked up, then each slot */
    uint32_t conf = 256;
    bool g = !recent && guess_new(S, ctx, prev_new, &conf);
    for (unsigned k = 0; k < A->n; k++) conf = conf * AHEAD(S, k)->conf / 256;
    path_tail *tl = &A->tail;
    if (A->n == 0) { /* the tail is the step being looked up */
        tl->depth = depth;
        tl->step = st;
        tl->nchoices = S->dfs.frames[depth].nchoices;
        tl->from = S->cur;
        tl->into_tid = depth ? S->dfs.frames[depth - 1].tid : -1;
        tl->vec = ns;
        tl->seen = !g || out->kind != VERDICT_OK ||
                   (S->o->max_depth && depth + 1 >= S->o->max_depth);
        tl->prev_new = recent ? prev_new : g;
    }
    while (A->n < AHEAD_MAX && A->lookups < AHEAD_LOOKUPS && conf >= AHEAD_MIN_CONF &&
           S->lim.stop == STOP_COMPLETE) {
        if (!next_ahead(S, depth, st, ns, tl, A->lookups == 0)) return;
        conf = conf * AHEAD(S, A->n - 1)->conf / 256;
    }
}

/* At the start of dfs(): --lookahead=on/child/sibling start at once. */
static inline void ahead_begin(search *S)
{
    if (S->ahead.may && S->o->lookahead != LOOKAHEAD_AUTO) ahead_start(S);
    S->ahead.parent_of = SIZE_MAX;
    S->ahead.prev_new = false;
}

/* Before the search picks the next step of the top level f (at depth): if
 * the path's next step follows the step just taken at this level, the
 * threads between were found disabled in this same state when it was
 * built, so f's cursor moves to it without asking them again. */
static inline void ahead_skip(const search *S, size_t depth, frame *f)
{
    if (!S->ahead.n) return;
    const ahead_slot *a = AHEAD(S, 0);
    if ((a->ctx & CTX_LATER) && a->depth == depth && a->after.tid == f->tid &&
        a->after.choice + 1 == f->choice) {
        f->tid = a->step.tid;
        f->choice = a->step.choice;
        f->nchoices = a->nchoices;
    }
}

/* The path's first step was taken: the rest moves up, and the entries of
 * its first store lookup are prefetched if they are not yet. */
static inline void advance_ahead(search *S)
{
    S->ahead.lookups -= !AHEAD(S, 0)->recent;
    S->ahead.head = (S->ahead.head + 1) & (AHEAD_MAX - 1);
    S->ahead.n--;
    for (unsigned k = 0; k < S->ahead.n; k++) {
        ahead_slot *a = AHEAD(S, k);
        if (a->recent) continue;
        if (!a->fetched) {
            store_prefetch(S->st, a->hash, a->guess_new);
            a->fetched = true;
        }
        break;
    }
}

/* The step st of level depth: if it is the path's next step, take its
 * built successor (into *ns, S->dfs.next trading places with the slot's
 * vector), outcome, hash and recent-cache answer, and return true. Else
 * drop the path: false, and the caller builds the step itself. */
static HOT_INLINE bool ahead_take(search *S, size_t depth, explore_step st, uint8_t **ns,
                                  step_outcome *out, uint64_t *hash, bool *recent)
{
    if (S->ahead.n) {
        ahead_slot *a = AHEAD(S, 0);
        if (a->depth == depth && a->step.tid == st.tid && a->step.choice == st.choice) {
            *recent = a->recent;
            *ns = a->vec; /* built (and prefetched) before */
            a->vec = S->dfs.next;
            S->dfs.next = *ns;
            if (a->out.kind == VERDICT_OK) { /* the message is not read */
                out->kind = VERDICT_OK;
                out->elem = UINT32_MAX;
            } else {
                *out = a->out;
            }
            *hash = a->hash;
            advance_ahead(S);
            return true;
        }
        ahead_drop(S);
    }
    return false;
}

/* After the step st of level depth to ns (before its insert): grow the
 * path. True if the path's next step is ns's first step: then *first and
 * *n hold ns's first enabled thread and its choices. */
static HOT_INLINE bool ahead_after_step(search *S, size_t depth, explore_step st,
                                        const uint8_t *ns, const step_outcome *out,
                                        bool recent, bool fresh, uint32_t *first, uint64_t *n)
{
    if (!S->ahead.on) return false;
    unsigned ctx = (fresh ? 0 : CTX_LATER) |
                   (depth && st.tid < S->dfs.frames[depth - 1].tid ? CTX_LOWER : 0);
    S->ahead.ctx = ctx;
    if (S->ahead.n < AHEAD_MAX && S->ahead.lookups < AHEAD_LOOKUPS) /* else long enough */
        ahead_extend(S, depth, st, ns, out, recent, ctx, S->ahead.prev_new);
    const ahead_slot *c = AHEAD(S, 0);
    if (S->ahead.n && c->depth == depth + 1 && !(c->ctx & CTX_LATER)) {
        *first = (uint32_t)c->step.tid;
        *n = c->nchoices;
        return true;
    }
    return false;
}

/* After the insert of that step (rc: INS_*): count the odds. */
static HOT_INLINE void ahead_after_insert(search *S, bool recent, int rc)
{
    if (S->ahead.on && !recent) {
        ahead_count(S, S->ahead.ctx, S->ahead.prev_new, rc == INS_NEW);
        S->ahead.prev_new = rc == INS_NEW;
    }
}

/* The search pushes a new top level `depth` (S->cur still the old top):
 * the path's tail may stand on the old top or its parent. */
static inline void ahead_push(search *S, size_t depth)
{
    S->ahead.parent_of = SIZE_MAX;
    if (!S->ahead.n) return;
    if (S->ahead.tail.from == S->ahead.parent) {
        ahead_drop(S);
    } else if (S->ahead.tail.from == S->cur) { /* the old top is the new parent */
        memcpy(S->ahead.parent, S->cur, S->ssize);
        S->ahead.parent_of = depth;
        S->ahead.tail.from = S->ahead.parent;
    }
}

/* The search pops the top level (S->cur still its state). */
static inline void ahead_pop(search *S)
{
    if (S->ahead.n) {
        if (S->ahead.tail.from == S->cur) /* its level is gone */
            ahead_drop(S);
        else if (S->ahead.tail.from == S->ahead.parent) /* its level becomes the top */
            S->ahead.tail.from = S->cur;
    }
    S->ahead.parent_of = SIZE_MAX;
}

#endif
