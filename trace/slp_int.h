/* slp_int.h: the trace module's private helpers and the per-rule summaries
 * of the grammar analyses (slp_hb.c: notes A2; slp_lockset.c: notes A3),
 * exposed here so that the unit tests can check the intermediate values the
 * notes list. Not part of the interface (trace.h). */
#ifndef MCHECK_TRACE_SLP_INT_H
#define MCHECK_TRACE_SLP_INT_H

#include "trace.h"

#include <stddef.h>
#include <stdint.h>

/* Grow *p (an array of elem-byte items with *cap slots) to hold need items;
 * false when out of memory (then *p is unchanged). */
bool tr_grow(void **p, uint64_t *cap, uint64_t need, size_t elem);

/* The rules reachable from rule 0 in an order where every rule comes after
 * the rules its body names (children first), into order[] (nrules slots);
 * *count gets how many. Iterative (deep DAGs). Returns 0, -1 when out of
 * memory, -2 when the grammar has a cycle or a symbol out of range. */
int tr_slp_topo(const tr_slp *g, uint32_t *order, uint32_t *count);

/* The absolute position of the first occurrence of each rule in the trace
 * (UINT64_MAX when unreachable or beyond UINT64_MAX), given len[] from
 * tr_slp_lengths() and a children-first order from tr_slp_topo(). One
 * top-down pass (reverse order). */
void tr_slp_first_pos(const tr_slp *g, const uint64_t *len, const uint32_t *order,
                      uint32_t count, uint64_t *first);

/* Saturating addition. */
static inline uint64_t tr_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- bitsets over a universe U (HB: threads then locks) ------------------ */

/* A set of U is nw uint64_t words; the analyses keep nw = ceil(|U| / 64). */
typedef struct tr_bits {
    uint64_t *w; /* nw words */
} tr_bits;

/* ---- the HB summary of a chunk (notes A2) -------------------------------- */

/* Universe: thread t is element t, lock l is element nthreads + l. */
typedef struct tr_hb_var {  /* per variable x written in the chunk */
    uint32_t x;
    uint64_t first_pos, last_pos; /* offsets of First/Last WEvents(x) in the chunk */
    uint64_t *al, *bf;            /* ALWr(x), BFWr(x): nw words each */
} tr_hb_var;

typedef struct tr_hb_rd { /* per (t, x) read in the chunk */
    uint32_t t, x;
    uint64_t first_pos, last_pos;
    uint64_t *al, *bf; /* ALRd(t,x), BFRd(t,x) */
} tr_hb_rd;

typedef struct tr_hb_sum {
    uint64_t len; /* saturating */
    bool race;
    uint64_t race_a, race_b; /* offsets in the chunk (saturating) when race */
    /* AF(u) and BL(u) for u in U: nu * nw words each, a row per u;
     * present[u] says u occurs (a row may be nonzero only then) */
    uint64_t *af, *bl;
    uint64_t *occurs; /* nw words: u has a nonempty AF or BL row */
    /* sorted by x (wr) and by (x, t) (rd) */
    tr_hb_var *wr;
    uint32_t nwr;
    tr_hb_rd *rd;
    uint32_t nrd;
} tr_hb_sum;

typedef struct tr_hb_ctx {
    uint32_t nthreads, nlocks, nu, nw;
} tr_hb_ctx;

void tr_hb_ctx_init(tr_hb_ctx *c, const tr_names *n);
/* The summary of one event; false when out of memory. */
bool tr_hb_leaf(const tr_hb_ctx *c, const tr_event *e, tr_hb_sum *out);
/* The summary of the concatenation b.c (notes A2 "combine"); false when
 * out of memory. out must differ from b and c. */
bool tr_hb_combine(const tr_hb_ctx *c, const tr_hb_sum *b, const tr_hb_sum *cc, tr_hb_sum *out);
void tr_hb_sum_free(tr_hb_sum *s);
/* Accessors for tests: NULL when absent. */
const tr_hb_var *tr_hb_find_wr(const tr_hb_sum *s, uint32_t x);
const tr_hb_rd *tr_hb_find_rd(const tr_hb_sum *s, uint32_t t, uint32_t x);
/* The summary of every rule of g (an array of nrules, rules not reachable
 * zeroed), no early exit, children kept: for tests. NULL when out of
 * memory. Free with tr_hb_sums_free. */
tr_hb_sum *tr_hb_all(const tr_slp *g, tr_hb_ctx *c);
void tr_hb_sums_free(tr_hb_sum *s, uint32_t n);

/* ---- the lockset summary of a chunk (notes A3) ----------------------------- */

/* Locksets are sets over locks then dummies: real lock l is element l,
 * Λ is element nlocks, Λt is element nlocks + 1 + t. */
typedef struct tr_ls_open { /* per (t, l) with a nonzero count */
    uint32_t t, l;
    uint64_t oa, orel; /* OpenAcq(t,l), OpenRel(t,l) */
} tr_ls_open;

typedef struct tr_ls_acc { /* per (t, x) accessed in the chunk (else ⊤) */
    uint32_t t, x;
    uint64_t *set; /* nw words */
} tr_ls_acc;

typedef struct tr_ls_sum {
    bool viol;
    uint32_t viol_var;
    tr_ls_open *open; /* sorted by (t, l) */
    uint32_t nopen;
    tr_ls_acc *acc; /* sorted by (x, t) */
    uint32_t nacc;
} tr_ls_sum;

typedef struct tr_ls_ctx {
    uint32_t nthreads, nlocks, nu, nw;
} tr_ls_ctx;

void tr_ls_ctx_init(tr_ls_ctx *c, const tr_names *n);
bool tr_ls_leaf(const tr_ls_ctx *c, const tr_event *e, tr_ls_sum *out);
bool tr_ls_combine(const tr_ls_ctx *c, const tr_ls_sum *b, const tr_ls_sum *cc, tr_ls_sum *out);
void tr_ls_sum_free(tr_ls_sum *s);
const tr_ls_open *tr_ls_find_open(const tr_ls_sum *s, uint32_t t, uint32_t l);
const tr_ls_acc *tr_ls_find_acc(const tr_ls_sum *s, uint32_t t, uint32_t x);
tr_ls_sum *tr_ls_all(const tr_slp *g, tr_ls_ctx *c);
void tr_ls_sums_free(tr_ls_sum *s, uint32_t n);

#endif
