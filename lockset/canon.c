/* canon.c: ls_canonicalize(), metadata that does not split states
 * (architecture.md, "Metadata that does not split states"): before a state
 * is stored, what no later check can read is reset to a canonical value, from
 * the may-access analysis (may_access.c) at each live thread's pc. The rules
 * are below; the walk over variables and elements is inline in canon_int.h,
 * instantiated by each detector with its rule for a record (ld.c, eraser.c,
 * goldilocks.c; LS_OFF's in lockset.c); the cold parts are here. Verdicts
 * are unchanged; tests/ref/refcheck.py --ld implements the same rules
 * independently. */
#include "lockset_int.h"

/* Zero (or reset to an equivalent value) the metadata no later check can
 * read, so that states differing only there are one state. Which variables
 * any thread may still access, and which it may still write, comes from
 * ls_compute_future() at each live thread's pc (a thread that may be spawned
 * later is covered by its spawner's set). Rules, per element of a variable:
 *   no thread may access it again: the record is zeroed (its checks are
 *     over; an unshared variable's owner is forgotten);
 *   no thread may write it again: LD' can only report a violation on an
 *     element that has been written, so an element not written since it
 *     became checked (modes 0 and 2; mode 1 of an `init` variable) behaves
 *     the same whatever its candidate set: it becomes mode 0 (mode 1 with
 *     `init T`, whose mode 0 still demands T's first access). Eraser
 *     likewise: virgin, exclusive and shared all become virgin (only
 *     shared-modified can report). Goldilocks: the read slots R[t] are
 *     only checked by writes and are cleared.
 *   Goldilocks, also while the variable is live: a lockset only grows until
 *     the access that replaces it, so once W holds every thread that may
 *     still access the element, every later check against it passes, as it
 *     does with no write at all: W becomes 0. Likewise R[u] once it holds
 *     every thread that may still write the element. (A spawn slot not
 *     started yet counts as a thread that may access it.)
 * Mode 3 (written, LD) and shared-modified (Eraser) are kept: a later read
 * with the wrong locks is a violation. */

/* May live thread t still access element i of var v (write it, if
 * `writes`)? */
static bool thread_may(const ls_detector *d, uint32_t t, uint32_t v, uint32_t i, bool writes)
{
    const uint64_t *f = d->tfut[t];
    uint32_t vw = d->vwords;
    if (bit_get(f + (writes ? FUT_WR : FUT_ANY) * vw, v)) return true;
    return bit_get(f + (writes ? FUT_SELF_WR : FUT_SELF_ANY) * vw, v) &&
           d->tself[t] == (int32_t)i;
}

/* Goldilocks (its canonicalization rule): does set id hold every thread that may still
 * access element i of var v (may still write it, if `writes`)? A spawn slot
 * not started yet counts as one that may. */
bool ls_covers(const ls_detector *d, uint32_t id, uint32_t v, uint32_t i, bool writes)
{
    const vm_program *p = d->p;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        if (d->tstate[t] == 0) continue;
        if (d->tstate[t] == 1 && !thread_may(d, t, v, i, writes)) continue;
        if (!set_has(d, id, LS_OBJ_THREAD(p, t))) return false;
    }
    return true;
}

void ls_canonicalize(ls_detector *d, uint8_t *s)
{
    if (d->nmeta_vars == 0) return; /* no metadata: nothing to reset, nothing to time */
    struct timespec t0;
    bool timed = ls_sample_begin(d, &t0);
    d->ops->canonicalize(d, s);
    ls_sample_end(d, timed, &t0);
}
