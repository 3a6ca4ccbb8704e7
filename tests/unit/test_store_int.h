/* test_store_int.h: what the statestore unit tests share (test_store.c,
 * test_store_pool.c, test_store_shared.c): the vectors they insert, a store
 * of a kind, and the test functions main() runs. */
#ifndef MCHECK_TEST_STORE_INT_H
#define MCHECK_TEST_STORE_INT_H

#include <stdint.h>
#include <string.h>

#include "store.h"
#include "store_int.h"
#include "testutil.h"

static inline uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Vector i of `len` bytes: for len >= 8 distinct for distinct i (the first
 * word is i times an odd constant), the rest pseudo-random from `seed`. For
 * len < 8 just pseudo-random bytes (duplicates expected). */
static inline void make_vector(uint64_t seed, uint64_t i, uint8_t *v, size_t len)
{
    uint64_t s = seed ^ (i * 0xd1342543de82ef95u);
    for (size_t j = 0; j < len; j += 8) {
        uint64_t w = splitmix64(&s);
        memcpy(v + j, &w, len - j < 8 ? len - j : 8);
    }
    if (len >= 8) {
        uint64_t w = i * 0x9e3779b97f4a7c15u + seed;
        memcpy(v, &w, 8);
    }
}

static inline store *new_store(store_kind kind, unsigned bits, uint64_t bitstate_bytes, size_t vec)
{
    store_config cfg = {.kind = kind, .fingerprint_bits = bits, .bitstate_bytes = bitstate_bytes};
    return store_new(&cfg, vec);
}

/* test_store.c */
uint64_t insert_distinct_and_recheck(store *st, uint64_t seed, uint64_t n, size_t len);
uint64_t hash_first_word_shifted(const void *vec, size_t n);

/* test_store_pool.c: the sstore shards' allocator */
void test_pool_reuse_and_coalescing(void);
void test_pool_limit(void);
void test_pool_compaction(void);
void test_compact_on_pool(void);

/* test_store_shared.c: the shared store (sstore) */
void test_sstore_concurrent(void);
void test_sstore_same_answers(void);
void test_sstore_invalid_configs(void);
void test_sstore_full_under_memory_limit(void);
void test_sstore_bytes_per_state(void);

#endif
