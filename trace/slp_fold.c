/* slp_fold.c: the summary of one rule's body from its symbols' summaries,
 * for every analysis on the grammar (slp_hb.c, slp_lockset.c). A summary
 * describes a chunk of the trace whatever the bracketing (ZipTrack's
 * combine is associative: the differential test runs every analysis on
 * random bracketings), so a body of n symbols is folded as a balanced
 * tree, a binary counter over a stack, rather than left to right: folding
 * left combines the whole prefix's summary (up to threads x variables rows)
 * with each symbol, and Sequitur leaves r0 with thousands of symbols; the
 * balanced fold combines small chunks low in the tree and few large ones
 * near its root. */
#include "slp_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    void *sum;      /* owned: in the arena; else a child's summary */
    bool owned;
    uint32_t level; /* a chunk of up to 2^level symbols */
    uint64_t off;   /* its first event's offset in the rule */
} entry;

typedef struct fold {
    const tr_fold_ops *ops;
    void *ctx;
    entry *st;
    char *arena; /* one summary per stack slot */
    uint32_t sp;
} fold;

static void *slot(fold *f, uint32_t i) { return f->arena + (size_t)i * f->ops->size; }

static void drop(fold *f, entry *e)
{
    if (e->owned) f->ops->free(e->sum);
    e->owned = false;
}

/* st[i] = st[i] . st[i + 1], into st[i]'s slot. false: out of memory. */
static bool merge(fold *f, uint32_t i, void *tmp)
{
    entry *a = &f->st[i], *b = &f->st[i + 1];
    bool ok = f->ops->combine(f->ctx, a->sum, b->sum, tmp);
    drop(f, a);
    drop(f, b);
    if (!ok) return false;
    memcpy(slot(f, i), tmp, f->ops->size);
    a->sum = slot(f, i);
    a->owned = true;
    a->level++;
    return true;
}

/* Done early: the chunk at st[i] shows the finding; its positions made
 * relative to the rule. */
static void finish_early(fold *f, uint32_t i, void *out)
{
    if (f->ops->shift) f->ops->shift(f->st[i].sum, f->st[i].off);
    memcpy(out, f->st[i].sum, f->ops->size);
    f->st[i].owned = false;
}

/* Merge the two entries on top; -1: out of memory; 0: done early (the
 * merged chunk shows the finding, in out); 1: go on. */
static int merge_top(fold *f, void *tmp, bool early, void *out)
{
    if (!merge(f, f->sp - 2, tmp)) return -1;
    f->sp--;
    if (!early || !f->ops->found(f->st[f->sp - 1].sum)) return 1;
    finish_early(f, f->sp - 1, out);
    return 0;
}

bool tr_fold_rule(const tr_slp *g, const tr_fold_ops *ops, void *ctx, const void *sums,
                  const uint64_t *len, uint32_t r, bool early, void *out)
{
    uint64_t n = g->body[r + 1] - g->body[r];
    size_t sz = ops->size;
    memset(out, 0, sz);
    if (n == 0) return true; /* the empty chunk */
    /* a binary counter holds at most log2(n) + 2 entries */
    uint32_t cap = 2;
    for (uint64_t m = n; m; m >>= 1) cap++;
    fold f = {ops, ctx, calloc(cap, sizeof *f.st), calloc((size_t)cap + 2, sz), 0};
    bool ok = false;
    if (!f.st || !f.arena) goto out;
    void *tmp = slot(&f, cap), *empty = slot(&f, cap + 1); /* zeroed: the empty chunk */
    uint64_t off = 0;
    for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++) {
        uint32_t s = g->sym[i];
        entry *e = &f.st[f.sp];
        *e = (entry){NULL, false, 0, off};
        if (s < g->nterms) {
            if (!ops->leaf(ctx, &g->terms[s], slot(&f, f.sp))) goto out;
            e->sum = slot(&f, f.sp);
            e->owned = true;
            off++;
        } else {
            e->sum = (char *)sums + (size_t)(s - g->nterms) * sz;
            off = len ? tr_sat_add(off, len[s - g->nterms]) : off;
        }
        f.sp++;
        while (f.sp >= 2 && f.st[f.sp - 2].level == f.st[f.sp - 1].level) {
            int rc = merge_top(&f, tmp, early, out);
            if (rc <= 0) {
                ok = rc == 0;
                goto out;
            }
        }
    }
    /* the rest, right to left: st[0] . (st[1] . (... st[sp-1])) */
    while (f.sp >= 2) {
        int rc = merge_top(&f, tmp, early, out);
        if (rc <= 0) {
            ok = rc == 0;
            goto out;
        }
    }
    if (!f.st[0].owned) { /* one child's summary: a copy of it */
        if (!ops->combine(ctx, empty, f.st[0].sum, tmp)) goto out;
        memcpy(slot(&f, 0), tmp, sz);
        f.st[0] = (entry){slot(&f, 0), true, 0, 0};
    }
    finish_early(&f, 0, out);
    ok = true;
out:
    for (uint32_t i = 0; f.st && i < f.sp; i++) drop(&f, &f.st[i]);
    free(f.st);
    free(f.arena);
    return ok;
}
