/* eraser.c: Eraser's lockset algorithm (Savage, Burrows, Nelson, Sobalvarro,
 * Anderson, "Eraser: a dynamic data race detector for multithreaded
 * programs", TOCS 1997; lockset.h has the rules, its metadata
 * [mode:u8][first:u8][cand:u32] and how it differs from LD'): an element is
 * exclusive to its first thread, the candidate set starts at the locks held
 * at the first access by a second thread and is refined on every later one;
 * only an empty candidate set in shared-modified is reported. Eraser ignores
 * `init T`. One entry of the detector table (lockset_int.h). */
#include "canon_int.h"
#include "lockset_int.h"

#include <stdio.h>
#include <string.h>

static bool access_eraser(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                          const vm_var *var, bool write)
{
    if (var->cls != VM_SHARED) return false; /* volatile: no discipline */
    uint32_t o = d->meta_off + d->elem_off[elem];
    uint8_t mode = s[o];
    if (mode == 0) {
        s[o] = 1;
        s[o + 1] = (uint8_t)(tid + 1);
        return false;
    }
    if (mode == 1 && s[o + 1] == tid + 1) return false;
    uint32_t held = ls_held(d, s, tid);
    if (held == NONE) return ls_nomem(d, elem, tid, write);
    uint32_t before = mode == 1 ? NONE : (uint32_t)vm_rd32(s, o + 2);
    uint32_t cand = before == NONE ? held : meet(d, before, held);
    if (cand == NONE) return ls_nomem(d, elem, tid, write);
    if (mode == 1) mode = write ? 3 : 2;
    else if (write) mode = 3;
    if (mode != 3 || cand != 0) {
        s[o] = mode;
        s[o + 1] = 0;
        vm_wr32(s, o + 2, (int32_t)cand);
        return false;
    }
    char en[96], tn[64], hs[96], bs[96];
    vm_elem_name(d->p, elem, en, sizeof en);
    ls_thread_name(d, s, tid, tn, sizeof tn);
    ls_format_set(d, s, held, hs, sizeof hs);
    if (before == NONE) snprintf(bs, sizeof bs, "all locks (exclusive until now)");
    else ls_format_set(d, s, before, bs, sizeof bs);
    return ls_report_fmt(d, LS_ERASER, elem, tid, write,
                         "lock discipline violated (Eraser) on '%s': %s by %s holding %s; "
                         "candidate locks were %s", en, write ? "written" : "read", tn, hs, bs);
}

static bool on_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    return ls_access_hook(ctx, s, tid, elem, write, access_eraser);
}

/* canon.c's rule for Eraser, on an element nobody may write again: virgin,
 * exclusive and shared all become virgin (only shared-modified can
 * report). */
static LS_HOT_INLINE void canon_eraser(ls_detector *d, uint8_t *s, uint32_t o,
                                       uint32_t v, uint32_t i, bool may_write)
{
    if (!may_write && s[o] != 3) memset(s + o, 0, d->rec);
}

static bool checked_eraser(const uint8_t *m) { return m[0] >= 2; }

static void canonicalize(ls_detector *d, uint8_t *s)
{
    ls_canon_walk(d, s, true, canon_eraser);
}

static uint32_t rec_eraser(const vm_program *p) { return 6; }

const ls_ops ls_ops_eraser = {
    .name = "eraser",
    .rec_bytes = rec_eraser,
    .set_off = 2,
    .access = on_access,
    .canonicalize = canonicalize,
    .elem_checked = checked_eraser,
    .discharge = ls_discharge_lone_or_lock,
};
