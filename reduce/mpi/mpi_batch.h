/* mpi_batch.h: the records of mcheck-mpi's batches (mpi_batch.c), a
 * compact encoding kept apart from MPI so that it is tested on its own
 * (tests/unit/test_mpi_batch.c). A record is a varint tag (its type and the
 * step's thread), the step's choice as a varint, the parent's index as a
 * zigzag varint of its difference to the previous record's, and the state
 * vector as the runs of bytes where it differs from the previous vector of
 * the same batch (a batch starts from a vector of zeros): successors sent
 * together differ in a few bytes. A set's record (MB_SET) and a depth's
 * (MB_DEPTH: the depth of the states that follow it) are the tag and a
 * varint. Not here: the set bits and error outcomes
 * that follow some records (mpi.c appends them raw). */
#ifndef MCHECK_MPI_BATCH_H
#define MCHECK_MPI_BATCH_H

#include <stddef.h>
#include <stdint.h>

enum { MB_STATE = 1, MB_ERROR = 2, MB_SET = 3, MB_DEPTH = 4 };

typedef struct mb_rec {
    uint32_t type;     /* MB_STATE, MB_ERROR, MB_SET or MB_DEPTH */
    uint32_t tid;      /* the step into the state (< 2^30) */
    uint64_t choice;
    uint64_t pidx;     /* the parent's index at the sender; MB_SET: the set's id;
                          MB_DEPTH: the depth of the states after it */
} mb_rec;

/* One end of a batch: the previous vector and parent index (both sides
 * keep one per peer, and reset it when a batch starts). */
typedef struct mb_ctx {
    uint8_t *prev;     /* vsize bytes */
    size_t vsize;
    uint64_t pidx;
} mb_ctx;

/* The bytes a record can take at most for vectors of vsize bytes. */
size_t mb_max(size_t vsize);

/* A batch starts: the previous vector is zeros, the previous index 0. */
void mb_reset(mb_ctx *c);

/* Encode r (and for MB_STATE and MB_ERROR, vector v) at dst, which has
 * room for mb_max(c->vsize) bytes. Returns the bytes written. */
size_t mb_put(mb_ctx *c, uint8_t *dst, const mb_rec *r, const uint8_t *v);

/* Decode a record from src (n bytes left) into r; for a state, its vector
 * is c->prev afterwards. Returns the bytes read, 0 if the bytes are not a
 * record (cut short, a run past the vector, a field too large). */
size_t mb_get(mb_ctx *c, const uint8_t *src, size_t n, mb_rec *r);

#endif
