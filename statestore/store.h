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
 * A store is not thread-safe; one store per search. sstore (below) is the
 * set shared by the threads of a parallel search. */
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

/* ---- sstore: one set shared by threads (shared.c) ----------------------
 * 2^shard_bits shards, each an ordinary store of the configured kind
 * behind its own lock. The owner of a state is
 *     shard = hash & (2^shard_bits - 1),   hash = store_hash64(vec)
 * (the low bits of the 64-bit XXH3), the function an MPI rank's range of
 * shards will use too. A 64-bit compact shard stores hash >> shard_bits,
 * so the set holds exactly the 64-bit fingerprints, as the single store
 * does: same answers, same collisions. A 128-bit compact shard stores
 * the XXH3_128 less its top shard_bits bits (the shard's bits of the
 * 64-bit hash take their place: still 128 bits a state); exact stores the vectors; bitstate gives each
 * shard bitstate_bytes / 2^shard_bits of the array (so bitstate_bytes must
 * be at least 2^shard_bits). Details and measurements: docs/statestore.md. */
typedef struct sstore sstore; /* a store safe for concurrent use */

#define SSTORE_MAX_SHARD_BITS 16

/* NULL on an invalid configuration (as store_new(), or shard_bits above
 * SSTORE_MAX_SHARD_BITS) or if memory is short. Free with sstore_free()
 * once no thread uses it. */
sstore *sstore_new(const store_config *cfg, size_t vec_bytes, unsigned shard_bits);
void sstore_free(sstore *s); /* NULL is a no-op */

/* The 64-bit XXH3 of the vector (= store_hash64(vec, vec_bytes)), for
 * every kind. Pure; any thread. */
uint64_t sstore_hash(const sstore *s, const void *vec);
/* The shard that owns a hash: hash & (2^shard_bits - 1). */
unsigned sstore_shard_of(const sstore *s, uint64_t hash);
unsigned sstore_shards(const sstore *s); /* 2^shard_bits */
/* Prefetch only (changes nothing, takes no lock): the shard's lock and,
 * for 64-bit compact, the bucket's table entry. Any thread. */
void sstore_prefetch(const sstore *s, uint64_t hash);
/* Optional second stage, as store_prefetch(): for 64-bit compact, the
 * bucket's entries (and with likely_new the rest of the bucket), found
 * through the table entry sstore_prefetch() loaded; call it a while after
 * that. It tries the shard's lock (one atomic exchange) and does nothing
 * if another thread holds it. Changes nothing. */
void sstore_prefetch_entries(sstore *s, uint64_t hash, bool likely_new);

/* Find-or-put, thread-safe; hash must be sstore_hash(s, vec). Among
 * threads inserting the same vector concurrently exactly one gets
 * STORE_ADDED. STORE_FULL: an allocation failed (or the test limit of
 * sstore_set_memory_limit was reached); the set is unchanged. */
store_result sstore_insert(sstore *s, const void *vec, uint64_t hash);
/* Is the vector (taken as) in the set? Thread-safe, changes nothing. */
bool sstore_contains(const sstore *s, const void *vec);

/* States added: a sum over the shards' counters (2^shard_bits relaxed
 * loads), exact once the inserts are over, a recent value while they go
 * on. For progress lines, not for every insert. */
uint64_t sstore_count(const sstore *s);
/* Bytes, all overhead included (as store_bytes): one atomic running total,
 * O(1), any thread, any time. */
size_t sstore_bytes(const sstore *s);
/* As store_omission_probability(), for the whole set; call it once the
 * inserts are over. compact: the birthday bound for n = sstore_count and
 * 64 (or 128) bits; exact: 0; bitstate: the shards' estimates combined. */
double sstore_omission_probability(const sstore *s);
/* Test hook: inserts that would take sstore_bytes() past `bytes` answer
 * STORE_FULL (0: no limit). With several threads the total may pass it by
 * one growth step per thread inserting concurrently. */
void sstore_set_memory_limit(sstore *s, size_t bytes);

#endif
