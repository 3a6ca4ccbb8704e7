/* transfer_int.h: what transfer.c (an instruction's effect on a fact) and
 * mix.c (the mix at an import: RATCOP section 5.4, regions section 7)
 * share: linear forms over a unit's dimensions and the fact updates both
 * make. */
#ifndef ANALYZE_TRANSFER_INT_H
#define ANALYZE_TRANSFER_INT_H

#include "analyze_int.h"

/* An operand as a linear form: the constant c, or dimension dim plus c. */
typedef struct lin {
    bool cst;
    int64_t c;
    uint32_t dim;
} lin;

/* Who wrote an element last, joined: one unit, none, or many. */
static inline int32_t wr_join(int32_t a, int32_t b)
{
    if (a == b || b == AN_WR_NONE) return a;
    if (a == AN_WR_NONE) return b;
    return AN_WR_MANY;
}

lin an_lin_of(const an_unit *u, const vm_operand *o);
/* The bounds of l in f (unbounded: INT64 extremes). */
void an_bounds(const an_unit *u, const an_fact *f, lin l, int64_t *lo, int64_t *hi);
/* [lo, hi] brought into int32 (all of it when the range wraps). */
void an_int32_range(int64_t *lo, int64_t *hi);
void an_set_bounds(const an_unit *u, an_fact *f, uint32_t v, int64_t lo, int64_t hi);
void an_set_elem(const an_unit *u, an_fact *f, uint32_t e, int64_t lo, int64_t hi);
void an_copy_block(const an_unit *u, uint8_t *dst, const uint8_t *src);

/* mix.c: the own fact joined with the buffers the sync-CFG lists for the
 * import at (ui, pc); the hull of the values the sources of (ui, pc) send
 * or store (*lo > *hi: none reached). */
void an_mix(an_ctx *c, uint32_t ui, uint32_t pc, an_fact *f);
void an_source_values(an_ctx *c, uint32_t ui, uint32_t pc, int64_t *lo, int64_t *hi);

#endif
