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

void ahead_drop(search *S);   /* drop the guessed path (take back its counts) */
void ahead_extend(search *S, size_t depth, explore_step st, const uint8_t *ns,
                  const step_outcome *out, bool recent, unsigned ctx, bool prev_new);
void ahead_count(search *S, unsigned ctx, bool prev_new, bool is_new);

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
