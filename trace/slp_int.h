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

/* The alphabet of a grammar: the distinct events, numbered densely in the
 * order they first appear (slp_build.c). A zeroed tr_alpha is empty. */
typedef struct tr_alpha {
    tr_event *terms;
    uint32_t n;
    uint64_t cap;
    uint32_t *idx; /* open addressing: term id + 1, 0 empty */
    uint64_t icap;
} tr_alpha;

uint32_t tr_alpha_id(tr_alpha *a, const tr_event *e); /* UINT32_MAX: out of memory */
void tr_alpha_free(tr_alpha *a);
/* A copy of n's tables into out (zeroed first); false when out of memory. */
bool tr_names_copy(const tr_names *n, tr_names *out);

/* Well-formedness (trace.h) decided from per-rule summaries, never
 * expanding the grammar (wellformed.c): 1 well-formed, 0 not, -1 out of
 * memory or a malformed structure. */
int tr_wf_summary_ok(const tr_slp *g);
/* How far tr_slp_check() walks a bad grammar to name its first offending
 * event (default 10^8 events). */
extern uint64_t tr_wf_locate_max;

/* ---- oracle internals, for tests (oracle.c) ------------------------------- */

/* Every event's vector clock (n x |Threads| uint32, row i = event i's; an
 * event ticks its thread), NULL when out of memory; free() it. */
uint32_t *tr_vc_stamps(const tr_trace *t);
/* Whether events a and b race: conflicting (different threads, the same
 * variable, one a write) and unordered by happens-before. */
bool tr_vc_races(const tr_trace *t, const uint32_t *stamps, uint64_t a, uint64_t b);
/* Per variable (vars.n entries), whether ZipTrack's Eraser discipline is
 * violated on it; false when out of memory. */
bool tr_lockset_vars(const tr_trace *t, bool *viol);

/* ---- the HB summary of a chunk (notes A2) -------------------------------- */

/* Universe U: thread t is element t, lock l is element nthreads + l; a set
 * of U is nw uint64_t words, nw = ceil(|U| / 64) (at least 1). Every set of
 * a summary lives in the summary's one pool. */
typedef struct tr_hb_var { /* per variable x written in the chunk */
    uint32_t x;
    uint64_t first_pos, last_pos; /* offsets of First/Last WEvents(x) in the chunk */
    uint64_t *al, *bf;            /* ALWr(x), BFWr(x) */
} tr_hb_var;

typedef struct tr_hb_rd { /* per (t, x) read in the chunk */
    uint32_t t, x;
    uint64_t first_pos, last_pos; /* of First/Last REvents(t,x) */
    uint64_t *al, *bf;            /* ALRd(t,x), BFRd(t,x) */
} tr_hb_rd;

typedef struct tr_hb_row { /* AF(u) or BL(u) for an u that has one in the chunk */
    uint32_t u;
    uint64_t *set;
} tr_hb_row;

typedef struct tr_hb_sum {
    uint64_t len; /* saturating */
    bool race;
    uint64_t race_a, race_b; /* offsets in the chunk (saturating) when race */
    tr_hb_row *af, *bl;      /* sorted by u; u absent: the empty set */
    uint32_t naf, nbl;
    tr_hb_var *wr; /* sorted by x: Wr(D) */
    uint32_t nwr;
    tr_hb_rd *rd; /* sorted by (x, t): Rd(D) */
    uint32_t nrd;
    uint64_t *pool;
} tr_hb_sum;

/* The fold of a rule's body (slp_fold.c), for any analysis' summaries:
 * leaf, combine (out differs from both; a zeroed summary is the empty
 * chunk), free; with early, the fold stops at the first chunk where found()
 * holds and shift() makes its positions relative to the rule (len: the
 * rules' lengths, needed then). sums: an array of the rules' summaries,
 * `size` bytes each. false: out of memory. */
typedef struct tr_fold_ops {
    size_t size;
    bool (*leaf)(void *ctx, const tr_event *e, void *out);
    bool (*combine)(void *ctx, const void *b, const void *c, void *out);
    void (*free)(void *s);
    bool (*found)(const void *s);
    void (*shift)(void *s, uint64_t off); /* NULL: no positions to shift */
} tr_fold_ops;
bool tr_fold_rule(const tr_slp *g, const tr_fold_ops *ops, void *ctx, const void *sums,
                  const uint64_t *len, uint32_t r, bool early, void *out);

#define TR_HB_MEMO 256
typedef struct tr_hb_memo { /* a one-word set and its fwd (or bwd) in one combine */
    uint32_t gen;
    uint64_t key, val;
} tr_hb_memo;

typedef struct tr_hb_ctx {
    uint32_t nthreads, nlocks, nu, nw;
    /* scratch, nu slots each, kept zero between calls: u -> its row + 1 in
     * the right chunk's AF rows, in the left chunk's BL rows */
    uint32_t *iaf, *ibl;
    tr_hb_memo *memo; /* 2 x TR_HB_MEMO: fwd through C's AF, bwd through B's BL */
    uint32_t gen;     /* the current combine's generation (memo slots) */
} tr_hb_ctx;

bool tr_hb_ctx_init(tr_hb_ctx *c, const tr_names *n); /* false: out of memory */
void tr_hb_ctx_free(tr_hb_ctx *c);
/* The summary of one event (notes A2, "Leaf"); false when out of memory. */
bool tr_hb_leaf(tr_hb_ctx *c, const tr_event *e, tr_hb_sum *out);
/* The summary of the concatenation b.c (notes A2 "combine"); false when
 * out of memory. out must differ from b and c. A zeroed summary is the
 * empty chunk (the identity). */
bool tr_hb_combine(tr_hb_ctx *c, const tr_hb_sum *b, const tr_hb_sum *cc, tr_hb_sum *out);
void tr_hb_sum_free(tr_hb_sum *s);
/* Lookups for tests: NULL when absent (the empty set). */
const uint64_t *tr_hb_af(const tr_hb_sum *s, uint32_t u);
const uint64_t *tr_hb_bl(const tr_hb_sum *s, uint32_t u);
const tr_hb_var *tr_hb_find_wr(const tr_hb_sum *s, uint32_t x);
const tr_hb_rd *tr_hb_find_rd(const tr_hb_sum *s, uint32_t t, uint32_t x);
/* The summary of every rule of g (an array of nrules; unreachable rules
 * zeroed), without early exit and keeping every summary: for tests. NULL
 * when out of memory. */
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
    uint64_t *pool; /* the sets of acc */
} tr_ls_sum;

typedef struct tr_ls_ctx {
    uint32_t nthreads, nlocks, nu, nw; /* nu = nlocks + 1 + nthreads */
    uint32_t *tidx; /* scratch: nthreads slots, kept zero between calls */
} tr_ls_ctx;

bool tr_ls_ctx_init(tr_ls_ctx *c, const tr_names *n); /* false: out of memory */
void tr_ls_ctx_free(tr_ls_ctx *c);
static inline uint32_t tr_ls_lambda(const tr_ls_ctx *c) { return c->nlocks; }
static inline uint32_t tr_ls_lambda_t(const tr_ls_ctx *c, uint32_t t) { return c->nlocks + 1 + t; }
/* Leaf and combine (notes A3, "Algorithm"); a zeroed summary is the empty
 * chunk. out must differ from b and c. false: out of memory. */
bool tr_ls_leaf(tr_ls_ctx *c, const tr_event *e, tr_ls_sum *out);
bool tr_ls_combine(tr_ls_ctx *c, const tr_ls_sum *b, const tr_ls_sum *cc, tr_ls_sum *out);
void tr_ls_sum_free(tr_ls_sum *s);
/* NULL when absent: counts 0, lockset ⊤ */
const tr_ls_open *tr_ls_find_open(const tr_ls_sum *s, uint32_t t, uint32_t l);
const tr_ls_acc *tr_ls_find_acc(const tr_ls_sum *s, uint32_t t, uint32_t x);
tr_ls_sum *tr_ls_all(const tr_slp *g, tr_ls_ctx *c);
void tr_ls_sums_free(tr_ls_sum *s, uint32_t n);

#endif
