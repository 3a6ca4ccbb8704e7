/* store.h: visited-state sets over fixed-length byte vectors (LTSmin style
 * find-or-put). The store knows nothing of what the vectors mean.
 *
 * Kinds:
 *   compact   hash compaction: a 64- or 128-bit XXH3 fingerprint per state
 *             (Wolper & Leroy; Stern & Dill). Two states with the same
 *             fingerprint are taken as one: a state may be omitted, with the
 *             probability store_omission_probability() reports.
 *   exact     the full vectors, no omission possible.
 *   bitstate  Holzmann's supertrace: k hash functions over a bit array of a
 *             fixed size; partial coverage, reported as an estimate.
 * Not thread-safe; one store per search. */
#ifndef MCHECK_STORE_H
#define MCHECK_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum store_kind {
    STORE_COMPACT,
    STORE_EXACT,
    STORE_BITSTATE,
} store_kind;

typedef struct store_config {
    store_kind kind;
    unsigned fingerprint_bits; /* compact: 64 (default) or 128 */
    uint64_t bitstate_bytes;   /* bitstate: size of the bit array in bytes */
    unsigned bitstate_k;       /* bitstate: hash functions (default 3) */
} store_config;

typedef enum store_result {
    STORE_ADDED = 0,   /* the vector was new and is now in the set */
    STORE_PRESENT = 1, /* seen before (or, for compact/bitstate, taken as seen) */
    STORE_FULL = 2,    /* could not grow (allocation failed); set unchanged */
} store_result;

typedef struct store store;

/* A new empty store for vectors of `vec_bytes` bytes. NULL if the
 * configuration is invalid or memory is short. Free with store_free(). */
store *store_new(const store_config *cfg, size_t vec_bytes);
void store_free(store *st); /* NULL is a no-op */

/* Find-or-put. */
store_result store_insert(store *st, const void *vec);

/* The same in parts, for a caller that has other work to overlap with the
 * memory latency of a lookup: store_hash() hashes the vector;
 * store_prefetch_index() starts the lookup's first load (where the
 * bucket is), store_prefetch() its second (the entries, found through the
 * first; if the caller expects the state to be new, also every entry an
 * insertion moves): prefetches only, they change nothing; store_insert_prepared() is
 * store_insert() given that hash. Only the 64-bit compact store takes the
 * hash (store_takes_hash()); for the others store_hash() is 0, the
 * prefetches do nothing and store_insert_prepared() hashes again. */
bool store_takes_hash(const store *st);
uint64_t store_hash(const store *st, const void *vec);
void store_prefetch_index(const store *st, uint64_t hash);
void store_prefetch(const store *st, uint64_t hash, bool likely_new);
store_result store_insert_prepared(store *st, const void *vec, uint64_t hash);

/* Is the vector (taken as) in the set? Does not change the set. */
bool store_contains(const store *st, const void *vec);

uint64_t store_count(const store *st);  /* states added */
size_t store_bytes(const store *st);    /* bytes the store uses, all overhead included */

/* compact: probability that at least one state was omitted so far;
 * bitstate: estimated fraction of states omitted (1 - expected coverage);
 * exact: 0. */
double store_omission_probability(const store *st);

const char *store_kind_name(store_kind k); /* "compact", "exact", "bitstate" */

/* The 64-bit XXH3 hash of a vector, as the stores compute it. */
uint64_t store_hash64(const void *vec, size_t n);

#endif
