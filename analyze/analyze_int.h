/* analyze_int.h: private to analyze/: the octagon matrices (oct.c), the
 * sync-CFG (sync_cfg.c), the transfer functions (transfer.c) and the
 * fixpoint's context (fixpoint.c). */
#ifndef MCHECK_ANALYZE_INT_H
#define MCHECK_ANALYZE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze.h"
#include "vm.h"

/* ---- octagons (oct.c) ------------------------------------------------------
 * A DBM over 2n literals: literal 2k is +v_k, 2k+1 is -v_k, and m[i*2n + j]
 * bounds V_j - V_i <= m (Mine, "The octagon abstract domain", HOSC 2006).
 * Entries are int64: AN_INF for none; finite ones are kept within
 * +-AN_BIG, a larger bound becomes AN_INF, a smaller one -AN_BIG (both only
 * weaken the matrix), so that sums of two never overflow. Values are
 * mathematical integers whose int32 wrap is the concrete value (oct.c). */
#define AN_INF INT64_MAX
#define AN_BIG ((int64_t)1 << 40)
#define AN_WRAP ((int64_t)1 << 32)

static inline uint32_t oct_bar(uint32_t i) { return i ^ 1u; }

void oct_top(int64_t *m, uint32_t n);
/* Strong (tight, integer) closure; false if the octagon is empty. */
bool oct_close(int64_t *m, uint32_t n);
/* Add V_j - V_i <= c and its coherent twin (no closure). */
void oct_add(int64_t *m, uint32_t n, uint32_t i, uint32_t j, int64_t c);
/* Forget variable v (m closed: the rest stays exact). */
void oct_forget(int64_t *m, uint32_t n, uint32_t v);
/* Bounds of variable v in the closed m: *lo, *hi (INT64_MIN / INT64_MAX for
 * none). */
void oct_bounds(const int64_t *m, uint32_t n, uint32_t v, int64_t *lo, int64_t *hi);
/* v := v + c, exactly (every constraint on v shifted). */
void oct_shift(int64_t *m, uint32_t n, uint32_t v, int64_t c);
/* v := -v, exactly. */
void oct_negate(int64_t *m, uint32_t n, uint32_t v);
/* a := max(a, b) (the join of two closed matrices is closed). */
void oct_join(int64_t *a, const int64_t *b, uint32_t n);
/* a := a widened by b: a bound of b above a's goes to AN_INF. */
void oct_widen(int64_t *a, const int64_t *b, uint32_t n);
/* The same with thresholds (th ascending, nth of them): a bound of b above
 * a's goes to the least threshold at or above it, AN_INF past the last
 * (Mine's widening with thresholds: each entry climbs a finite ladder). */
void oct_widen_th(int64_t *a, const int64_t *b, uint32_t n, const int64_t *th, size_t nth);
/* The least threshold at or above v, or AN_INF. */
int64_t oct_threshold_above(int64_t v, const int64_t *th, size_t nth);
/* a := min(a, b) (not closed). */
void oct_meet(int64_t *a, const int64_t *b, uint32_t n);
/* Keep only the bounds on single variables (the interval domain). */
void oct_box(int64_t *m, uint32_t n);
/* a <= b entrywise (b includes a when a is closed). */
bool oct_leq(const int64_t *a, const int64_t *b, uint32_t n);
/* Saturating sum of two entries. */
static inline int64_t oct_sum(int64_t a, int64_t b)
{
    return a == AN_INF || b == AN_INF ? AN_INF : a + b;
}

/* ---- facts ------------------------------------------------------------------
 * One per (unit, pc), in a block of f_bytes: the matrix, then per register
 * the comparison that set it (so that `eq r2, r0, r1; assert r2` is read as
 * `assert r0 == r1`, notes B8), then per global element the writer (thread
 * ids, RATCOP 5.5), then per global element an interval. Variables of the
 * matrix: registers 0 .. nregs-1, self, tid, then the unit's pack: the
 * global elements its loads and stores may name (notes B8's packing). The
 * others it only carries from import to release, never relating them to
 * anything (an import brings intervals), so an interval each loses nothing:
 * the cost of a unit grows with what it touches, not with the model. */
typedef struct an_desc {
    uint8_t op;        /* 0: none; else a comparison opcode: rd = (a op b) */
    vm_operand a, b;
} an_desc;

#define AN_WR_NONE (-1)  /* only the initial value: no thread wrote it */
#define AN_WR_MANY (-2)  /* written by several units, or by a summary */

typedef struct an_fact {
    int64_t *m;
    an_desc *desc;
    int32_t *wr;
    uint8_t *mi;  /* per element: 1 if some run may still hold its initial
                     value in this thread's view (no write at all); 0: its
                     version is at least 1 */
    int64_t *iv;  /* per element: lo, hi (INT64_MIN / INT64_MAX: none); only
                     those outside the pack mean something */
} an_fact;

/* ---- the sync-CFG (sync_cfg.c) -------------------------------------------- */

/* A source of an import: the fact at (unit, pc) is a buffer it reads. */
typedef struct an_src {
    uint32_t unit, pc;
    bool value_only; /* the importer's own buffer: read for a value (recv,
                        volatile) but not mixed (an own edge, notes B2) */
} an_src;

typedef struct an_unit {
    uint32_t body;
    uint32_t nelems;   /* the program's global elements */
    bool summary;     /* a proc body: every instance, self and tid unknown */
    int32_t self, tid; /* static: known */
    uint32_t nregs, n; /* registers; variables (nregs + 2 + pack size) */
    int32_t *edim;     /* per global element: its variable, or -1 outside the pack */
    size_t f_bytes;
    uint8_t *facts;    /* ncode facts of f_bytes */
    bool *reached;     /* per pc */
    uint32_t *updates; /* per pc: times its fact grew (widening delay) */
    bool *widen_at;    /* per pc: a widening point */
    /* per pc, CSR: the sources an import instruction reads */
    uint32_t *src_off;
    an_src *src;
    /* per pc, CSR: the import instructions reading this pc's fact */
    uint32_t *dep_off;
    uint32_t *dep;     /* unit << 16 | pc pairs as two words: see fixpoint.c */
} an_unit;

struct an_result {
    const vm_program *p;
    an_options o;
    uint32_t nunits;
    an_unit *units;
    an_assert *asserts;
    uint32_t nasserts;
    an_stats stats;
};

/* Build units, sources, dependents and widening points; false when memory
 * runs out (what was allocated is freed by an_free). */
bool an_build(an_result *r);
/* The lock elements instruction in of unit u may name (vm_absregs of the
 * unit): a range [*lo, *hi) (the whole declaration when unknown). */
void an_lock_range(const vm_program *p, const vm_insn *in, const vm_absval *regs,
                   vm_absval self, vm_absval tid, uint32_t *lo, uint32_t *hi);
/* Is the instruction an import point (it reads other units' facts)? */
bool an_is_import(const vm_program *p, const vm_insn *in);

static inline an_fact an_fact_at(const an_unit *u, uint8_t *block)
{
    an_fact f;
    size_t mb = (size_t)4 * u->n * u->n * sizeof(int64_t);
    f.m = (int64_t *)block;
    f.desc = (an_desc *)(block + mb);
    f.wr = (int32_t *)(block + mb + u->nregs * sizeof(an_desc));
    f.mi = (uint8_t *)(f.wr + u->nelems);
    f.iv = (int64_t *)(block + u->f_bytes) - 2 * (size_t)u->nelems;
    return f;
}
static inline uint8_t *an_block(const an_unit *u, uint32_t pc)
{
    return u->facts + (size_t)pc * u->f_bytes;
}
static inline uint32_t an_dim_self(const an_unit *u) { return u->nregs; }
static inline uint32_t an_dim_tid(const an_unit *u) { return u->nregs + 1; }
/* The variable of element e (in the pack: edim[e] >= 0). */
static inline uint32_t an_dim_elem(const an_unit *u, uint32_t e) { return (uint32_t)u->edim[e]; }
/* The bounds of element e in fact f of unit u (packed or not). */
void an_elem_bounds(const an_unit *u, const an_fact *f, uint32_t e, int64_t *lo, int64_t *hi);

/* ---- transfer functions (transfer.c) --------------------------------------- */

/* Where an instruction's outputs go. */
typedef struct an_out {
    uint32_t pc;
    uint8_t *block; /* the fact to join into pc (scratch owned by the caller) */
} an_out;

typedef struct an_ctx {
    an_result *r;
    uint8_t *scratch[4]; /* blocks of the largest f_bytes */
    uint8_t *child;      /* a proc's entry fact made at a spawn */
} an_ctx;

/* The initial fact of a static unit into block. */
void an_initial(an_result *r, const an_unit *u, uint8_t *block);
/* Run instruction pc of unit ui on its fact (reached): the facts for its
 * successors into out[] (ctx scratch), returns how many (0 .. 3: a ret may
 * have more, then *more lists them with the same fact in out[0]). A spawn
 * also joins the child's entry into *spawn_unit's pc 0 through the callback. */
typedef void (*an_spawn_fn)(void *cb, uint32_t child_unit, const uint8_t *entry);
unsigned an_transfer(an_ctx *c, uint32_t ui, uint32_t pc, an_out *out, const uint32_t **more,
                     unsigned *nmore, an_spawn_fn spawn, void *cb);
/* Closure (and, for intervals, the box) of a fact; false if bottom. */
bool an_normal(const an_result *r, const an_unit *u, an_fact *f);
/* Is `a == 0` impossible in the fact (an assert of a is proved)? */
bool an_proves_nonzero(an_ctx *c, const an_unit *u, const uint8_t *block, const vm_operand *a);
/* Bring variable v into the int32 range exactly (a shift by a multiple of
 * 2^32) or forget it to [INT32_MIN, INT32_MAX]; the matrix stays closed. */
void an_wrap(const an_unit *u, an_fact *f, uint32_t v);

#endif
