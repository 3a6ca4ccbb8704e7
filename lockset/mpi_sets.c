/* mpi_sets.c: sets between detectors of different processes (lockset.h's
 * last section), for the distributed search (reduce/mpi/mpi.c): each rank has a
 * detector of its own, so a set's id in a vector means something only in the
 * process that made it. A vector sent to another rank carries the bits of
 * the sets its ids name (where they are: ls_id_offsets, from the detector's
 * record layout, lockset_int.h's ls_ops), and the receiver interns them and
 * puts its own ids in their place. */
#include "lockset_int.h"

uint32_t ls_set_words(const ls_detector *d) { return d->words; }

const uint64_t *ls_set_bits(const ls_detector *d, uint32_t id)
{
    if (id >= atomic_load_explicit(&d->sh->nsets, memory_order_acquire)) return NULL;
    return set_words(d, id);
}

uint32_t ls_intern_bits(ls_detector *d, const uint64_t *w) { return ls_intern_words(d, w); }

uint32_t ls_id_offsets(const ls_detector *d, uint32_t *offs)
{
    /* the record's set ids run from set_off to its end (none for LS_OFF,
     * whose records are empty) */
    uint32_t n = 0, first = d->ops->set_off;
    uint32_t count = d->rec > first ? (d->rec - first) / 4 : 0;
    if (count == 0) return 0;
    for (uint32_t e = 0; e < d->p->nelems; e++) { /* elem_off ascends with e */
        if (d->elem_off[e] == NONE) continue;
        for (uint32_t k = 0; k < count; k++) {
            if (offs) offs[n] = d->meta_off + d->elem_off[e] + first + 4 * k;
            n++;
        }
    }
    return n;
}
