/* goldilocks.c: Goldilocks (Elmas, Qadeer, Tasiran, "Goldilocks: a race and
 * transaction-aware Java runtime", PLDI 2007), the eager rules of the paper
 * applied to every element at every synchronization event (lockset.h has
 * the rules and its metadata [W:u32][R[t]:u32 per thread]). Sync objects are
 * locks, threads, volatile elements and channels; a read by t is checked
 * against W, a write against W and every R[u]; a race is reported iff the
 * access and an earlier conflicting one are unordered by happens-before. Its
 * hooks are every event the interpreter reports; propagate() is the hot loop
 * (every lockset of every element, per event). One entry of the detector
 * table (lockset_int.h). */
#include "canon_int.h"
#include "lockset_int.h"

#include <string.h>

/* Goldilocks rule for a sync event: every lockset of every element that
 * contains `cond` gets `obj`. */
static bool propagate(ls_detector *d, uint8_t *s, int tid, uint32_t cond, uint32_t obj)
{
    const vm_program *p = d->p;
    const ls_sets *sh = d->sh;
    for (uint32_t e = 0; e < p->nelems; e++) {
        if (d->elem_off[e] == NONE) continue;
        uint8_t *m = s + d->meta_off + d->elem_off[e], *end = m + d->rec;
        for (; m < end; m += 4) {
            uint32_t id = (uint32_t)vm_rd32(m, 0);
            if (id == 0 || !sets_has(sh, id, cond)) continue;
            uint32_t r = add_obj(d, id, obj);
            if (r == NONE) return ls_nomem(d, e, tid, false);
            vm_wr32(m, 0, (int32_t)r);
        }
    }
    return false;
}

static bool access_goldilocks(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                              const vm_var *var, bool write)
{
    const vm_program *p = d->p;
    uint32_t me = LS_OBJ_THREAD(p, tid);
    if (var->cls == VM_VOLATILE) {
        uint32_t v = d->vol_obj[elem];
        return write ? propagate(d, s, tid, me, v) : propagate(d, s, tid, v, me);
    }
    uint32_t o = d->meta_off + d->elem_off[elem];
    uint32_t w = (uint32_t)vm_rd32(s, o);
    int reader = -1;
    uint32_t bad = 0;
    if (w != 0 && !set_has(d, w, me)) bad = w;
    for (uint32_t u = 0; write && !bad && u < p->nthreads; u++) {
        uint32_t r = (uint32_t)vm_rd32(s, o + 4 + 4 * u);
        if (r != 0 && !set_has(d, r, me)) {
            bad = r;
            reader = (int)u;
        }
    }
    if (bad) {
        char en[96], tn[64], rn[64], bs[128];
        vm_elem_name(p, elem, en, sizeof en);
        ls_thread_name(d, s, tid, tn, sizeof tn);
        ls_format_set(d, s, bad, bs, sizeof bs);
        if (reader >= 0) {
            ls_thread_name(d, s, reader, rn, sizeof rn);
            ls_report_fmt(d, LS_GOLDILOCKS, elem, tid, write,
                          "data race on '%s': written by %s, not ordered after the "
                          "read by %s (its lockset is %s)", en, tn, rn, bs);
            d->rep.other = reader;
            return true;
        }
        return ls_report_fmt(d, LS_GOLDILOCKS, elem, tid, write,
                             "data race on '%s': %s by %s, not ordered after the last "
                             "write (its lockset is %s)", en, write ? "written" : "read", tn,
                             bs);
    }
    uint32_t mine = add_obj(d, 0, me); /* {me} */
    if (mine == NONE) return ls_nomem(d, elem, tid, write);
    if (write) {
        vm_wr32(s, o, (int32_t)mine);
        memset(s + o + 4, 0, 4 * (size_t)p->nthreads);
    } else {
        vm_wr32(s, o + 4 + 4 * (uint32_t)tid, (int32_t)mine);
    }
    return false;
}

static bool on_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    return ls_access_hook(ctx, s, tid, elem, write, access_goldilocks);
}

/* The remaining events only matter to Goldilocks (the other detectors have
 * no hook for them). */
static bool on_acquire_(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, lock, LS_OBJ_THREAD(d->p, tid));
}

static bool on_release_(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, LS_OBJ_THREAD(d->p, tid), lock);
}

static bool on_spawn_(void *ctx, uint8_t *s, int parent, int child)
{
    ls_detector *d = ctx;
    return propagate(d, s, parent, LS_OBJ_THREAD(d->p, parent), LS_OBJ_THREAD(d->p, child));
}

static bool on_join_(void *ctx, uint8_t *s, int joiner, int joinee)
{
    ls_detector *d = ctx;
    return propagate(d, s, joiner, LS_OBJ_THREAD(d->p, joinee), LS_OBJ_THREAD(d->p, joiner));
}

static bool on_send_(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, LS_OBJ_THREAD(d->p, tid), d->chan_base + chan);
}

static bool on_recv_(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, d->chan_base + chan, LS_OBJ_THREAD(d->p, tid));
}

/* The hooks the interpreter calls: the rules above, timed (on_access is,
 * by ls_access_hook()). */
#define TIMED_HOOK(name, params, args)                                         \
    static bool name params                                                    \
    {                                                                          \
        struct timespec t0;                                                    \
        bool timed = ls_sample_begin(ctx, &t0);                                \
        bool r = name##_ args;                                                 \
        ls_sample_end(ctx, timed, &t0);                                        \
        return r;                                                              \
    }
TIMED_HOOK(on_acquire, (void *ctx, uint8_t *s, int tid, uint32_t lock), (ctx, s, tid, lock))
TIMED_HOOK(on_release, (void *ctx, uint8_t *s, int tid, uint32_t lock), (ctx, s, tid, lock))
TIMED_HOOK(on_spawn, (void *ctx, uint8_t *s, int parent, int child), (ctx, s, parent, child))
TIMED_HOOK(on_join, (void *ctx, uint8_t *s, int joiner, int joinee), (ctx, s, joiner, joinee))
TIMED_HOOK(on_send, (void *ctx, uint8_t *s, int tid, uint32_t chan), (ctx, s, tid, chan))
TIMED_HOOK(on_recv, (void *ctx, uint8_t *s, int tid, uint32_t chan), (ctx, s, tid, chan))
#undef TIMED_HOOK

/* canon.c's rule for Goldilocks, also while the variable may be written: a
 * lockset only grows until the access that replaces it, so once W holds
 * every thread that may still access the element, every later check against
 * it passes, as it does with no write at all: W becomes 0. Likewise R[u]
 * once it holds every thread that may still write the element; and the read
 * slots are only checked by writes, so with no write to come they are
 * cleared. */
static LS_HOT_INLINE void canon_goldilocks(ls_detector *d, uint8_t *s, uint32_t o,
                                           uint32_t v, uint32_t i, bool may_write)
{
    uint32_t w = (uint32_t)vm_rd32(s, o);
    if (w && ls_covers(d, w, v, i, false)) vm_wr32(s, o, 0);
    for (uint32_t r = 0; r < d->p->nthreads; r++) {
        uint32_t id = (uint32_t)vm_rd32(s, o + 4 + 4 * r);
        if (id && (!may_write || ls_covers(d, id, v, i, true))) vm_wr32(s, o + 4 + 4 * r, 0);
    }
}

static void canonicalize(ls_detector *d, uint8_t *s)
{
    ls_canon_walk(d, s, false, canon_goldilocks);
}

static uint32_t rec_goldilocks(const vm_program *p) { return 4 * (1 + p->nthreads); }

const ls_ops ls_ops_goldilocks = {
    .name = "goldilocks",
    .rec_bytes = rec_goldilocks,
    .set_off = 0,
    .hb_objects = true,
    .access = on_access,
    .acquire = on_acquire,
    .release = on_release,
    .spawn = on_spawn,
    .join = on_join,
    .send = on_send,
    .recv = on_recv,
    .canonicalize = canonicalize,
    .discharge = ls_discharge_goldilocks,
};
