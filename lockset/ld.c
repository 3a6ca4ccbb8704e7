/* ld.c: LD', Stoller's lock discipline (his section 7; lockset.h has the
 * rules, its metadata [mode:u8][cand:u32] and how it differs from Eraser):
 * every access is checked from the first one on, the candidate set is the
 * intersection of the locks held at every access, and an empty candidate
 * set on an element that has been written is a violation (read-only
 * elements never violate: LD-RO). Under `init T` the first access to each
 * element is unchecked and must be T's. It is what the reduction needs
 * (Stoller, Theorem 9): under LD' every access after initialization is
 * protected, so invisible steps commute. One entry of the detector table
 * (lockset_int.h). */
#include "canon_int.h"
#include "lockset_int.h"

#include <string.h>

static bool access_ld(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                      const vm_var *var, bool write)
{
    if (var->cls != VM_SHARED) return false; /* volatile: no discipline */
    const vm_program *p = d->p;
    uint32_t o = d->meta_off + d->elem_off[elem];
    uint8_t mode = s[o];
    char en[96], tn[64];
    if (mode == 0 && var->init_body >= 0) {
        if (vm_thread_body(p, s, tid) != &p->bodies[var->init_body]) {
            vm_elem_name(p, elem, en, sizeof en);
            ls_thread_name(d, s, tid, tn, sizeof tn);
            return ls_report_fmt(d, LS_LD, elem, tid, write,
                                 "lock discipline violated on '%s': first %s by %s, not "
                                 "by its init thread '%s'", en, write ? "written" : "read",
                                 tn, p->bodies[var->init_body].name);
        }
        s[o] = 1; /* the one unchecked initializing access */
        return false;
    }
    uint32_t held = ls_held(d, s, tid);
    if (held == NONE) return ls_nomem(d, elem, tid, write);
    uint32_t before = mode >= 2 ? (uint32_t)vm_rd32(s, o + 1) : NONE;
    uint32_t cand = before == NONE ? held : meet(d, before, held);
    if (cand == NONE) return ls_nomem(d, elem, tid, write);
    bool written = mode == 3 || write;
    if (!written || cand != 0) {
        s[o] = written ? 3 : 2;
        vm_wr32(s, o + 1, (int32_t)cand);
        return false;
    }
    /* a violation: the metadata stays as it was (a fault leaves the state
     * unchanged, so the error state is its predecessor) */
    char hs[96], bs[96];
    vm_elem_name(p, elem, en, sizeof en);
    ls_thread_name(d, s, tid, tn, sizeof tn);
    ls_format_set(d, s, held, hs, sizeof hs);
    if (before == NONE)
        return ls_report_fmt(d, LS_LD, elem, tid, write,
                             "lock discipline violated on '%s': written by %s holding {} "
                             "(first checked access)", en, tn);
    ls_format_set(d, s, before, bs, sizeof bs);
    return ls_report_fmt(d, LS_LD, elem, tid, write,
                         "lock discipline violated on '%s': %s by %s holding %s; candidate "
                         "locks were %s%s", en, write ? "written" : "read", tn, hs, bs,
                         mode == 3 ? ", and it was written before" : "");
}

static bool on_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    return ls_access_hook(ctx, s, tid, elem, write, access_ld);
}

/* canon.c's rule for LD', on an element nobody may write again: LD' can only
 * report a violation on an element that has been written, so an element not
 * written since it became checked (modes 0 and 2; mode 1 of an `init`
 * variable) behaves the same whatever its candidate set: it becomes mode 0
 * (mode 1 with `init T`, whose mode 0 still demands T's first access). */
static LS_HOT_INLINE void canon_ld(ls_detector *d, uint8_t *s, uint32_t o,
                                   uint32_t v, uint32_t i, bool may_write)
{
    const vm_var *var = &d->p->vars[v];
    uint8_t *m = s + o;
    if (may_write || m[0] == 3 || (m[0] == 0 && var->init_body >= 0)) return;
    memset(m, 0, d->rec);
    if (var->init_body >= 0) m[0] = 1;
}

static bool checked_ld(const uint8_t *m) { return m[0] >= 2; }

/* discharge.c's case for LD': a lone accessor is not enough (no exclusive
 * phase), a common lock is, with every accessor running the `init T` body;
 * a read-only variable unless another thread may make an `init T` variable's
 * first access. */
static ls_why discharge_ld(const vm_var *v, const ls_elem_facts *x)
{
    if (!v->stored && (v->init_body < 0 || x->init_ok)) return LS_READ_ONLY;
    return x->lock != NONE && x->init_ok ? LS_COMMON_LOCK : LS_CHECKED;
}

static void canonicalize(ls_detector *d, uint8_t *s)
{
    ls_canon_walk(d, s, true, canon_ld);
}

static uint32_t rec_ld(const vm_program *p) { return 5; }

const ls_ops ls_ops_ld = {
    .name = "ld",
    .rec_bytes = rec_ld,
    .set_off = 1,
    .access = on_access,
    .canonicalize = canonicalize,
    .elem_checked = checked_ld,
    .discharge = discharge_ld,
};
