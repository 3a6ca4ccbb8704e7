/* store_int.h: private to statestore/. The store struct shared by the three
 * kinds (compact.c, exact.c, bitstate.c; store.c dispatches; every
 * allocation is counted through memstat.h), and hooks for the unit tests
 * (a replacement hash to force collisions, a memory limit to force
 * STORE_FULL, an invariant check). Nothing here is for the search: it uses
 * store.h only. */
#ifndef MCHECK_STORE_INT_H
#define MCHECK_STORE_INT_H

#include "memstat.h"
#include "pool.h"
#include "store.h"

#include <Judy.h>
#include <string.h>

#define XXH_INLINE_ALL /* the hash is the inner loop: let it inline */
#include <xxhash.h>

_Static_assert(sizeof(Word_t) == sizeof(uint64_t),
               "the Judy indexes are keyed by 64-bit hashes: needs a 64-bit Word_t");

typedef uint64_t store_hash_fn(const void *vec, size_t n);

/* compact: a bucket is a sorted array of n entries (remainder, then for
 * 128 bits the second word), cap entries allocated, plus a pad so an 8-byte
 * load at any entry stays inside the block. Invariant: entries strictly
 * increasing; data == NULL iff cap == 0. */
typedef struct compact_bucket {
    uint8_t *data;
    uint32_t n, cap;
} compact_bucket;

/* How a bucket of a given level stores an entry: the fingerprint's low
 * `level` bits are the bucket, the other rem_bits = 64 - drop_bits - level
 * in rem_bytes. */
typedef struct compact_layout {
    unsigned level, rem_bits, rem_bytes, entry_bytes;
    uint64_t rem_mask; /* the low rem_bits bits */
} compact_layout;

/* A shard of a shared store drops at most this many bits (its number). */
#define COMPACT_MAX_DROP_BITS 16

/* Linear hashing: buckets [0, split_next) and [2^level, 2^level +
 * split_next) are at level + 1 (lay[1]), the rest at level (lay[0]). */
typedef struct compact_set {
    compact_bucket *tab; /* 2^level + split_next buckets in use */
    size_t tab_cap;      /* 2^(level + 1) */
    unsigned level;
    size_t split_next;   /* the next bucket to split */
    compact_layout lay[2];
    bool wide;           /* 128-bit fingerprints */
    unsigned drop_bits;  /* the first word is hash >> drop_bits (a shard of
                            shared.c: its shard bits are implied) */
    uint64_t split_at;   /* count at which the next bucket splits */
    uint32_t split_avg;  /* average bucket size that triggers a split */
    store_pool *pool;    /* NULL: buckets are malloc blocks; else the pool's
                            (a shard of shared.c), known by their room */
} compact_set;

/* exact: vectors in fixed-size chunks of 2^chunk_shift records, record i at
 * chunks[i >> chunk_shift]; index: JudyL hash -> first record + 1; chain:
 * JudyL record -> next record with the same hash + 1 (sparse: only hash
 * collisions of distinct vectors have an entry). */
typedef struct exact_set {
    Pvoid_t index;
    Pvoid_t chain;
    uint8_t **chunks;
    size_t nchunks, chunks_cap;
    unsigned chunk_shift;
} exact_set;

/* bitstate: m bits, k probes per state; set_bits counts bits that are 1. */
typedef struct bitstate_set {
    uint8_t *bits;
    uint64_t m;
    unsigned k;
    uint64_t set_bits;
    double omitted; /* expected number of new states lost so far */
} bitstate_set;

struct store {
    store_kind kind;
    size_t vec_bytes;
    uint64_t count;
    store_mem mem;
    size_t self_bytes; /* what the struct itself costs (in mem.bytes) */
    store_hash_fn *hash64; /* XXH3_64bits unless a test replaced it */
    union {
        compact_set compact;
        exact_set exact;
        bitstate_set bitstate;
    } u;
};

static inline uint64_t store_vec_hash64(const store *st, const void *vec)
{
    return st->hash64 ? st->hash64(vec, st->vec_bytes) : XXH3_64bits(vec, st->vec_bytes);
}

/* Sets up a zeroed store in the caller's memory, e.g. one shard of a
 * shared store (shared.c). For 64-bit compact the fingerprints it is given
 * are then hash >> shard_bits (it stores 64 - shard_bits bits of each);
 * small_start: compact starts with one bucket; exact takes smaller chunks
 * when shard_bits > 0, as a shard holds 1/2^shard_bits of the states.
 * self_bytes: what the struct itself costs, counted in store_bytes() (0
 * when it lies inside a bigger block). False if the configuration is
 * invalid or memory short; nothing to undo then. store_fini() frees what
 * the store holds, not the struct. store_new() is calloc + this with
 * (0, false, store_alloc_cost(sizeof(store))). */
bool store_init_part(store *st, const store_config *cfg, size_t vec_bytes, unsigned shard_bits,
                     bool small_start, size_t self_bytes);
void store_fini(store *st);
/* P(some omission) among n states with b-bit fingerprints (store.c). */
double compact_omission_probability(uint64_t n, unsigned bits);

/* Per-kind halves of the store.h functions; init gets a zeroed union. */
bool compact_init(store *st, bool wide, unsigned drop_bits, bool small_start);
void compact_prefetch_index64_unlocked(const store *st, uint64_t hash);
store_result compact_insert(store *st, const void *vec);
void compact_prefetch_index64(const store *st, uint64_t hash);
void compact_prefetch64(const store *st, uint64_t hash, bool likely_new);
store_result compact_insert64(store *st, const void *vec, uint64_t hash);
bool compact_contains(const store *st, const void *vec);
void compact_free(store *st);
bool compact_check(const store *st);
void compact_set_split_average(store *st, uint32_t avg);
/* Buckets from a pool of the store's own (pool.h) from now on; call before
 * the first insert. False if memory is short. */
bool compact_use_pool(store *st);

bool exact_init(store *st, size_t chunk_target_bytes);
store_result exact_insert(store *st, const void *vec);
store_result exact_insert_hashed(store *st, const void *vec, uint64_t hash);
bool exact_contains(const store *st, const void *vec);
void exact_free(store *st);
size_t exact_judy_bytes(const store *st);
bool exact_check(const store *st);

bool bitstate_init(store *st, uint64_t bytes, unsigned k);
store_result bitstate_insert(store *st, const void *vec);
bool bitstate_contains(const store *st, const void *vec);
void bitstate_free(store *st);
double bitstate_omission_estimate(const store *st);

/* Test hooks. Call before the first insert. */
/* Replace the 64-bit hash used by exact and 64-bit compact (128-bit compact
 * and bitstate keep XXH3): a weak hash forces collisions. */
void store_set_hash_for_testing(store *st, store_hash_fn *fn);
/* Fail any allocation that would take store_bytes() past `bytes`. */
void store_set_memory_limit(store *st, size_t bytes);
/* Walk the whole structure and check its invariants; false if broken. */
bool store_check(const store *st);
/* compact: the current level (bits of the fingerprint that index the
 * buckets), and the average bucket size that triggers a split (small values
 * make the level, and the byte width of the remainder, change early). */
unsigned store_compact_level(const store *st);
void store_set_compact_split_average(store *st, uint32_t avg);
/* sstore: every shard passes store_check(), the published counts and the
 * byte total agree with the shards. No insert may be under way. */
bool sstore_check(const sstore *s);

#endif
