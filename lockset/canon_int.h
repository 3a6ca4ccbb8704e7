/* canon_int.h: the walk of ls_canonicalize() (canon.c has the rules and the
 * cold parts), inline so that each detector instantiates it with its own
 * rule for a record (ls_canon_rule) as a constant: the rule runs for every
 * element with metadata on every state stored, so it is inlined rather than
 * called through a pointer. A detector's ops.canonicalize is
 * ls_canon_walk(d, s, keep, its_rule); shared code never asks the kind.
 * Which variables any thread may still access, and which it may still
 * write, comes from ls_compute_future() (may_access.c) at each live thread's
 * pc. Included by the detector files only. */
#ifndef MCHECK_CANON_INT_H
#define MCHECK_CANON_INT_H

#include "lockset_int.h"

#include <string.h>

/* A detector's rule for the record at offset o of s, of element i of
 * variable v, which a live thread may still access (may still write, if
 * may_write): reset what no later check reads. */
typedef void ls_canon_rule(ls_detector *d, uint8_t *s, uint32_t o, uint32_t v, uint32_t i,
                           bool may_write);

/* Reset what no later check reads in s: a variable no live thread may
 * access again loses its metadata (an unshared variable its owner), and
 * every other element with metadata goes to rule. With keep (LD', Eraser,
 * LS_OFF), an element that may still be written keeps its record as it is:
 * rule is not called for it, and a variable all of whose elements may still
 * be written is skipped whole. */
static LS_HOT_INLINE void ls_canon_walk(ls_detector *d, uint8_t *s, bool keep,
                                         ls_canon_rule *rule)
{
    const vm_program *p = d->p;
    uint32_t vw = d->vwords, stride = FUT_BLOCKS * vw;
    if (d->nmeta_vars == 0) return; /* LS_OFF: only unshared owners */
    uint64_t *u = d->live; /* the union of the live threads' blocks */
    memset(u, 0, (size_t)stride * sizeof *u);
    /* per variable of up to 64 elements, the elements live threads reach
     * through their self (a bit mask: access, write); larger variables use
     * emark below */
    uint64_t *samask = d->samask, *swmask = d->swmask;
    const uint64_t *mmask = d->meta_mask;
    const uint32_t *mindex = d->meta_index;
    uint8_t *tstate = d->tstate;
    const uint64_t **tfut = d->tfut;
    int32_t *tself = d->tself;
    uint64_t *const *future = (uint64_t *const *)d->future;
    const uint32_t nthreads = p->nthreads, nbodies = p->nbodies;
    if (keep && vw == 1) {
        /* the usual case first: every element may still be written (by any
         * thread at any element, or each by the thread whose self it is),
         * and then there is nothing to reset */
        uint64_t wr = 0;
        memset(swmask, 0, d->nmeta_vars * sizeof *swmask);
        for (uint32_t t = 0; t < nthreads; t++) {
            enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
            if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
            uint32_t b = vm_tbody_index(p, s, (int)t), pc = vm_tpc(p, s, (int)t);
            if (b >= nbodies || pc >= p->bodies[b].ncode) continue;
            const uint64_t *f = future[b] + (size_t)pc * FUT_BLOCKS;
            wr |= f[FUT_WR];
            uint64_t sw = f[FUT_SELF_WR] & mmask[0] & ~wr;
            if (!sw) continue;
            int32_t self = vm_tself(p, s, (int)t);
            if (self < 0 || self >= 64) continue;
            for (; sw; sw &= sw - 1) swmask[mindex[__builtin_ctzll(sw)]] |= 1ull << self;
        }
        bool all = true;
        for (uint32_t k = 0; k < d->nmeta_vars && all; k++) {
            const vm_var *var = &p->vars[d->meta_vars[k]];
            uint64_t full = var->size >= 64 ? ~0ull : (1ull << var->size) - 1;
            all = ((wr >> d->meta_vars[k]) & 1) || (var->size <= 64 && swmask[k] == full);
        }
        if (all) return;
    }
    memset(samask, 0, d->nmeta_vars * sizeof *samask);
    memset(swmask, 0, d->nmeta_vars * sizeof *swmask);
    for (uint32_t t = 0; t < nthreads; t++) {
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
        tstate[t] = st == VM_T_UNUSED ? 2 : 0;
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        uint32_t b = vm_tbody_index(p, s, (int)t), pc = vm_tpc(p, s, (int)t);
        if (b >= nbodies || pc >= p->bodies[b].ncode) continue;
        const uint64_t *f = future[b] + (size_t)pc * stride;
        int32_t self = vm_tself(p, s, (int)t);
        tstate[t] = 1;
        tfut[t] = f;
        tself[t] = self;
        for (uint32_t i = 0; i < stride; i++) u[i] |= f[i];
        if (self < 0 || self >= 64) continue;
        for (uint32_t i = 0; i < vw; i++) { /* usually no bit or one */
            uint64_t sw = f[FUT_SELF_WR * vw + i];
            for (uint64_t w = f[FUT_SELF_ANY * vw + i] & mmask[i]; w; w &= w - 1) {
                uint32_t bit = (uint32_t)__builtin_ctzll(w), k = mindex[i * 64 + bit];
                samask[k] |= 1ull << self;
                swmask[k] |= ((sw >> bit) & 1) << self;
            }
        }
    }
    for (uint32_t k = 0; k < d->nmeta_vars; k++) {
        uint32_t v = d->meta_vars[k];
        const vm_var *var = &p->vars[v];
        bool any_o = bit_get(u + FUT_ANY * vw, v), wr_o = bit_get(u + FUT_WR * vw, v);
        bool any_s = bit_get(u + FUT_SELF_ANY * vw, v);
        bool small = var->size <= 64;
        uint64_t full = var->size >= 64 ? ~0ull : (1ull << var->size) - 1;
        if (keep && (wr_o || (small && d->swmask[k] == full))) continue; /* all may be written */
        if (var->cls == VM_UNSHARED) {
            if (!any_o && !any_s) s[d->meta_off + d->var_off[v]] = 0;
            continue;
        }
        bool marked = any_s && !small; /* 1 access, 2 write */
        if (marked)
            for (uint32_t t = 0; t < p->nthreads; t++) {
                if (d->tstate[t] != 1 || d->tself[t] < 0 || (uint32_t)d->tself[t] >= var->size)
                    continue;
                uint8_t *mk = &d->emark[d->tself[t]];
                if (bit_get(d->tfut[t] + FUT_SELF_ANY * vw, v)) *mk |= 1;
                if (bit_get(d->tfut[t] + FUT_SELF_WR * vw, v)) *mk |= 2;
            }
        for (uint32_t i = 0; i < var->size; i++) {
            uint32_t e = var->first_elem + i;
            if (d->elem_off[e] == NONE) continue; /* discharged: no metadata */
            uint32_t o = d->meta_off + d->elem_off[e];
            uint8_t *m = s + o;
            bool may_access, may_write;
            if (small) {
                may_access = any_o || ((d->samask[k] >> i) & 1);
                may_write = wr_o || ((d->swmask[k] >> i) & 1);
            } else {
                may_access = any_o || (marked && (d->emark[i] & 1));
                may_write = wr_o || (marked && (d->emark[i] & 2));
            }
            if (!may_access) {
                memset(m, 0, d->rec);
                continue;
            }
            if (!(keep && may_write)) rule(d, s, o, v, i, may_write);
        }
        if (marked)
            for (uint32_t t = 0; t < p->nthreads; t++)
                if (d->tstate[t] == 1 && d->tself[t] >= 0 && (uint32_t)d->tself[t] < var->size)
                    d->emark[d->tself[t]] = 0;
    }
}

#endif
