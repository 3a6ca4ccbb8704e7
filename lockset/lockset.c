/* lockset.c: the detector object of lockset/ (lockset.h has the rules, the
 * metadata layout and how LD', Eraser and Goldilocks differ): the detector
 * table, construction (the metadata layout, the sync-object numbering, the
 * tables ls_canonicalize reads), clones, the hooks the interpreter gets, the
 * sampled timing, reports, and the `unshared` owner check every kind makes
 * (LANGUAGE.md: part of the language, not of a detector), which is all an
 * LS_OFF detector does. The detectors' rules are in ld.c, eraser.c and
 * goldilocks.c; interning in intern.c; the may-access analysis in
 * may_access.c; canonicalization in canon.c; sets between processes in
 * mpi_sets.c. Nothing here reads or writes the state vector except the
 * metadata area. */
#include "canon_int.h"
#include "lockset_int.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the detector table ------------------------------------------------- */

/* LS_OFF: only the owners of unshared variables (ls_access_hook), no record
 * per shared element, nothing to canonicalize but those owners. */
static bool access_off(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                       const vm_var *var, bool write)
{
    return false;
}

static bool on_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    return ls_access_hook(ctx, s, tid, elem, write, access_off);
}

static void canon_off(ls_detector *d, uint8_t *s, uint32_t o, uint32_t v, uint32_t i,
                      bool may_write)
{
    /* no shared element has metadata: only unshared owners are reset */
}

static void canonicalize(ls_detector *d, uint8_t *s)
{
    ls_canon_walk(d, s, true, canon_off);
}

static ls_why discharge_off(const vm_var *v, const ls_elem_facts *x)
{
    return LS_CHECKED; /* no shared metadata to drop */
}

static uint32_t rec_off(const vm_program *p) { return 0; }

const ls_ops ls_ops_off = {
    .name = "off",
    .rec_bytes = rec_off,
    .access = on_access,
    .canonicalize = canonicalize,
    .discharge = discharge_off,
};

#define LS_TABLE_ENTRY(kind, name) [kind] = &ls_ops_##name,
static const ls_ops *const ls_detectors[] = {LS_DETECTORS(LS_TABLE_ENTRY)};
#undef LS_TABLE_ENTRY

const ls_ops *ls_ops_of(ls_kind kind)
{
    assert((size_t)kind < sizeof ls_detectors / sizeof *ls_detectors && ls_detectors[kind] &&
           "a detector kind of the table");
    return ls_detectors[kind];
}

/* ---- timing --------------------------------------------------------------- */

/* The shortest of a few back-to-back clock reads: subtracted from every
 * sample, so that short calls are not charged for the clock. */
static int64_t clock_overhead(void)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < 32; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        int64_t ns = (b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec);
        if (ns < best) best = ns;
    }
    return best;
}

double ls_seconds(const ls_detector *d)
{
    return d ? (double)d->sampled_ns * LS_SAMPLE * 1e-9 : 0.0;
}

/* ---- construction ------------------------------------------------------ */

/* The per-detector scratch (ls_new_opts, ls_clone); false when memory runs
 * out (ls_free frees what was allocated). */
static bool alloc_scratch(ls_detector *d)
{
    const vm_program *p = d->p;
    uint32_t nv = p->nvars ? p->nvars : 1, nt = p->nthreads ? p->nthreads : 1;
    uint32_t maxsize = 1;
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].size > maxsize) maxsize = p->vars[v].size;
    d->tmp = calloc(d->words, sizeof *d->tmp);
    d->live = calloc(FUT_BLOCKS * (size_t)d->vwords, sizeof *d->live);
    d->emark = calloc(maxsize, 1);
    d->tself = calloc(nt, sizeof *d->tself);
    d->samask = calloc(nv, sizeof *d->samask);
    d->swmask = calloc(nv, sizeof *d->swmask);
    d->tstate = calloc(nt, sizeof *d->tstate);
    d->tfut = calloc(nt, sizeof *d->tfut);
    return d->tmp && d->live && d->emark && d->tself && d->samask && d->swmask &&
           d->tstate && d->tfut;
}

ls_detector *ls_new(ls_kind kind, const vm_program *p, uint32_t meta_off)
{
    return ls_new_opts(kind, p, meta_off, false);
}

ls_detector *ls_new_opts(ls_kind kind, const vm_program *p, uint32_t meta_off,
                         bool discharge)
{
    ls_detector *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->kind = kind;
    d->ops = ls_ops_of(kind);
    d->rec = d->ops->rec_bytes(p);
    bool records = d->rec != 0; /* shared elements have metadata (not LS_OFF) */
    ls_elem_facts *facts = NULL;
    if (discharge && records && !(facts = ls_discharge_facts(p))) goto fail;
    d->p = p;
    d->clock_ns = clock_overhead();
    d->meta_off = meta_off;
    uint32_t ne = p->nelems ? p->nelems : 1, nv = p->nvars ? p->nvars : 1;
    d->elem_off = malloc(ne * sizeof *d->elem_off);
    d->vol_obj = malloc(ne * sizeof *d->vol_obj);
    d->obj_elem = malloc(ne * sizeof *d->obj_elem);
    d->var_off = malloc(nv * sizeof *d->var_off);
    if (!d->elem_off || !d->vol_obj || !d->obj_elem || !d->var_off) goto fail;
    uint32_t off = 0;
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *var = &p->vars[v];
        for (uint32_t e = var->first_elem; e < var->first_elem + var->size; e++) {
            d->elem_off[e] = NONE;
            d->vol_obj[e] = NONE;
            if (records && var->cls == VM_SHARED) {
                if (facts && ls_discharge_why(kind, p, facts, e) != LS_CHECKED) {
                    d->ndischarged++; /* never reported: no metadata */
                } else {
                    d->elem_off[e] = off;
                    off += d->rec;
                }
            }
            if (d->ops->hb_objects && var->cls == VM_VOLATILE) {
                d->vol_obj[e] = p->nlocks + p->nthreads + d->nvol;
                d->obj_elem[d->nvol++] = e;
            }
        }
    }
    for (uint32_t v = 0; v < p->nvars; v++) {
        d->var_off[v] = NONE;
        if (p->vars[v].cls == VM_UNSHARED) d->var_off[v] = off++; /* every kind */
    }
    d->meta_bytes = off;
    d->chan_base = p->nlocks + p->nthreads + d->nvol;
    d->nobj = d->ops->hb_objects ? d->chan_base + p->nchans : p->nlocks;
    d->words = d->nobj ? (d->nobj + 63) / 64 : 1;
    d->vwords = (nv + 63) / 64;
    if (!ls_sets_new(d)) goto fail;
    d->meta_vars = malloc(nv * sizeof *d->meta_vars);
    d->meta_mask = calloc(d->vwords, sizeof *d->meta_mask);
    d->meta_index = calloc((size_t)d->vwords * 64, sizeof *d->meta_index);
    if (!d->meta_vars || !d->meta_mask || !d->meta_index || !alloc_scratch(d)) goto fail;
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *var = &p->vars[v];
        bool meta = var->cls == VM_UNSHARED;
        for (uint32_t e = var->first_elem; !meta && e < var->first_elem + var->size; e++)
            meta = var->cls == VM_SHARED && d->elem_off[e] != NONE;
        if (meta) {
            d->meta_index[v] = d->nmeta_vars;
            d->meta_vars[d->nmeta_vars++] = v;
            bit_set(d->meta_mask, v);
        }
    }
    if ((records || d->nmeta_vars) && !ls_compute_future(d)) goto fail;
    if (ls_intern_words(d, d->tmp) != 0) goto fail; /* the empty set is id 0 */
    free(facts);
    return d;
fail:
    free(facts);
    ls_free(d);
    return NULL;
}

uint32_t ls_discharged(const ls_detector *d) { return d ? d->ndischarged : 0; }

/* A clone: the read-only tables and the interning table are d's, the rest
 * is its own (empty memos, no report, no time). Only the fields before
 * `meet`, which nobody writes after ls_new_opts(), are read from d, so d may
 * be in use by another thread meanwhile. */
ls_detector *ls_clone(const ls_detector *d)
{
    ls_detector *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    memcpy(c, d, offsetof(ls_detector, meet));
    c->clone = true;
    if (!alloc_scratch(c)) {
        ls_free(c);
        return NULL;
    }
    return c;
}

void ls_free(ls_detector *d)
{
    if (!d) return;
    if (!d->clone) {
        free(d->elem_off);
        free(d->var_off);
        free(d->vol_obj);
        free(d->obj_elem);
        ls_sets_free(d->sh);
        if (d->future)
            for (uint32_t b = 0; b < d->p->nbodies; b++) free(d->future[b]);
        free(d->future);
        free(d->meta_vars);
        free(d->meta_mask);
        free(d->meta_index);
    }
    free(d->tmp);
    free(d->live);
    free(d->samask);
    free(d->swmask);
    free(d->tstate);
    free(d->emark);
    free(d->tself);
    free(d->tfut);
    ls_memo_free(&d->meet);
    ls_memo_free(&d->add);
    ls_memo_free(&d->held);
    free(d);
}

uint32_t ls_meta_bytes(const ls_detector *d) { return d ? d->meta_bytes : 0; }

bool ls_needed(ls_kind kind, const vm_program *p)
{
    if (kind != LS_OFF) return true;
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].cls == VM_UNSHARED) return true;
    return false;
}

void ls_init_meta(const ls_detector *d, uint8_t *s)
{
    memset(s + d->meta_off, 0, d->meta_bytes);
}

const ls_report *ls_last_report(const ls_detector *d) { return &d->rep; }

uint32_t ls_obj_volatile(const ls_detector *d, uint32_t elem)
{
    return elem < d->p->nelems ? d->vol_obj[elem] : NONE;
}

uint32_t ls_obj_chan(const ls_detector *d, uint32_t chan)
{
    return d->ops->hb_objects && chan < d->p->nchans ? d->chan_base + chan : NONE;
}

uint32_t ls_elem_set(const ls_detector *d, const uint8_t *s, uint32_t elem)
{
    if (elem >= d->p->nelems || d->elem_off[elem] == NONE) return 0;
    /* the first set id of the record (LS_OFF has no records, so no
     * element has an offset) */
    return (uint32_t)vm_rd32(s, d->meta_off + d->elem_off[elem] + d->ops->set_off);
}

bool ls_elem_checked(const ls_detector *d, const uint8_t *s, uint32_t elem)
{
    if (elem >= d->p->nelems || d->elem_off[elem] == NONE) return false;
    return d->ops->elem_checked && d->ops->elem_checked(s + d->meta_off + d->elem_off[elem]);
}

void ls_thread_name(const ls_detector *d, const uint8_t *s, int tid, char *buf, size_t n)
{
    if (s && vm_tstatus_of(d->p, s, tid) != VM_T_UNUSED)
        vm_thread_name(d->p, s, tid, buf, n);
    else
        snprintf(buf, n, "t%d", tid);
}

/* ---- reports ------------------------------------------------------------ */

bool ls_report_fmt(ls_detector *d, int kind, uint32_t elem, int tid, bool write,
                   const char *fmt, ...)
{
    d->rep.kind = kind;
    d->rep.elem = elem;
    d->rep.tid = tid;
    d->rep.write = write;
    d->rep.other = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->rep.msg, sizeof d->rep.msg, fmt, ap);
    va_end(ap);
    return true;
}

bool ls_nomem(ls_detector *d, uint32_t elem, int tid, bool write)
{
    return ls_report_fmt(d, LS_NOMEM, elem, tid, write, "out of memory interning locksets");
}

bool ls_unshared_report(ls_detector *d, const uint8_t *s, int tid, uint32_t elem,
                        const vm_var *var, bool write, int owner)
{
    /* the owner's element is not stored (it would split states no check
     * reads): the trace's explanation shows the owner's first access */
    char en[96], a[64], b[64];
    vm_elem_name(d->p, elem, en, sizeof en);
    ls_thread_name(d, s, owner, a, sizeof a);
    ls_thread_name(d, s, tid, b, sizeof b);
    if (var->is_array)
        return ls_report_fmt(d, LS_UNSHARED, elem, tid, write,
                             "unshared variable '%s' touched by %s, but '%s' belongs to %s "
                             "(the first thread to touch any of its elements)", en, b,
                             var->name, a);
    return ls_report_fmt(d, LS_UNSHARED, elem, tid, write,
                         "unshared variable '%s' touched by %s, but it belongs to %s (the "
                         "first thread to touch it)", en, b, a);
}

void ls_hooks(ls_detector *d, vm_hooks *h)
{
    h->ctx = d;
    /* no element with metadata (nothing shared is left to check, no
     * unshared owner): no event can lead to a report, so no hook at all */
    bool any = d->nmeta_vars != 0;
    const ls_ops *o = d->ops;
    h->access = any ? o->access : NULL;
    h->acquire = any ? o->acquire : NULL;
    h->release = any ? o->release : NULL;
    h->spawn = any ? o->spawn : NULL;
    h->join = any ? o->join : NULL;
    h->send = any ? o->send : NULL;
    h->recv = any ? o->recv : NULL;
}
