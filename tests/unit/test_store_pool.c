/* test_store_pool.c: unit tests of the sstore shards' allocator
 * (statestore/pool.c): reuse and coalescing of freed blocks, its memory
 * limit, compaction that moves blocks and tells their owners, and the
 * compact store living on a pool. */
#include <stdlib.h>

#include "pool.h"
#include "test_store_int.h"

/* ---- pool (the sstore shards' allocator) ---------------------------------- */

static bool pool_accounted(const store_mem *m, const store_pool *p)
{
    return m->bytes == store_pool_cost(p) && store_pool_check(p, NULL, NULL);
}

/* A freed block is reused for a block of its size, neighbours coalesce, a
 * block grows in place into the free block after it and shrinks in place,
 * and the store_mem holds exactly the pool and its chunks. */
void test_pool_reuse_and_coalescing(void)
{
    store_mem m = {0, 0};
    store_pool *p = store_pool_new(&m);
    CHECK(p != NULL);
    if (!p) return;
    uint8_t *a = store_pool_alloc(&m, p, 100, 0), *b = store_pool_alloc(&m, p, 100, 1);
    uint8_t *c = store_pool_alloc(&m, p, 100, 2);
    CHECK(a && b && c && a != b && b != c);
    if (!a || !b || !c) return;
    memset(a, 0xa1, 100), memset(b, 0xb2, 100), memset(c, 0xc3, 100);
    size_t chunks = p->chunk_cost;
    CHECK(pool_accounted(&m, p));
    store_pool_release(p, b);
    CHECK(store_pool_alloc(&m, p, 100, 1) == b); /* reused, no new chunk */
    CHECK_EQ_INT(p->chunk_cost, chunks);
    store_pool_release(p, b);
    uint8_t *a2 = store_pool_realloc(&m, p, a, 200); /* into b's place */
    CHECK(a2 == a);
    CHECK(a[0] == 0xa1 && a[99] == 0xa1);
    a2 = store_pool_realloc(&m, p, a, 40); /* shrinks in place */
    CHECK(a2 == a);
    CHECK(pool_accounted(&m, p));
    store_pool_release(p, a);
    /* a, b and the space between coalesced: one block of 200 fits there */
    CHECK(store_pool_alloc(&m, p, 200, 3) == a);
    CHECK_EQ_INT(p->in_use, 2);
    CHECK(c[0] == 0xc3 && c[99] == 0xc3);
    CHECK(pool_accounted(&m, p));
    store_pool_delete(&m, p);
    CHECK_EQ_INT(m.bytes, 0);
}

/* Past the limit no new chunk is taken (NULL, nothing changed), while a
 * block that a free one fits still comes. */
void test_pool_limit(void)
{
    store_mem m = {0, 0};
    store_pool *p = store_pool_new(&m);
    CHECK(p != NULL);
    if (!p) return;
    uint8_t *a = store_pool_alloc(&m, p, 500, 0);
    CHECK(a != NULL);
    m.limit = m.bytes;
    size_t bytes = m.bytes;
    void *big = store_pool_alloc(&m, p, 64 << 10, 1);
    CHECK(big == NULL);
    CHECK_EQ_INT(m.bytes, bytes);
    CHECK(store_pool_alloc(&m, p, 100, 2) != NULL); /* the chunk has room */
    CHECK(store_pool_realloc(&m, p, a, 64 << 10) == NULL);
    CHECK(pool_accounted(&m, p));
    m.limit = 0;
    CHECK((a = store_pool_realloc(&m, p, a, 64 << 10)) != NULL); /* a larger chunk */
    CHECK(m.bytes > bytes);
    CHECK(pool_accounted(&m, p));
    store_pool_delete(&m, p);
    CHECK_EQ_INT(m.bytes, 0);
}

#define POOL_TEST_BLOCKS 600
typedef struct pool_test_owners {
    uint8_t *data[POOL_TEST_BLOCKS];
    size_t n[POOL_TEST_BLOCKS];
} pool_test_owners;

static void pool_test_moved(void *ctx, uint64_t owner, void *data)
{
    ((pool_test_owners *)ctx)->data[owner] = data;
}

static bool pool_test_owns(const void *ctx, uint64_t owner, const void *data)
{
    const pool_test_owners *o = ctx;
    return owner < POOL_TEST_BLOCKS && o->data[owner] == data;
}

/* Blocks of many sizes, grown and freed at random; compaction slides them
 * together, tells their owners, keeps their contents, and leaves at most
 * one free block a chunk. */
void test_pool_compaction(void)
{
    static pool_test_owners o;
    memset(&o, 0, sizeof o);
    store_mem m = {0, 0};
    store_pool *p = store_pool_new(&m);
    CHECK(p != NULL);
    if (!p) return;
    uint64_t seed = 5;
    bool ok = true;
    for (unsigned round = 0; round < 20000; round++) {
        unsigned i = (unsigned)(splitmix64(&seed) % POOL_TEST_BLOCKS);
        size_t n = 8 + splitmix64(&seed) % 3000;
        if (!o.data[i]) {
            o.data[i] = store_pool_alloc(&m, p, n, i);
        } else if (splitmix64(&seed) % 4 == 0) {
            store_pool_release(p, o.data[i]);
            o.data[i] = NULL;
        } else {
            size_t keep = o.n[i] < n ? o.n[i] : n;
            for (size_t j = 0; j < keep; j++) ok &= o.data[i][j] == (uint8_t)(i + j);
            o.data[i] = store_pool_realloc(&m, p, o.data[i], n);
        }
        if (!o.data[i]) {
            o.n[i] = 0;
            continue;
        }
        o.n[i] = n;
        for (size_t j = 0; j < n; j++) o.data[i][j] = (uint8_t)(i + j);
        if (round % 5000 == 4999) {
            store_pool_compact(p, pool_test_moved, &o);
            size_t free_blocks = 0;
            for (unsigned c = 0; c < POOL_CLASSES; c++)
                for (uint8_t *f = p->free[c]; f; memcpy(&f, f + 8, sizeof f)) free_blocks++;
            size_t nchunks = 0;
            for (const pool_chunk *ch = p->chunks; ch; ch = *(pool_chunk *const *)ch) nchunks++;
            CHECK(free_blocks <= nchunks);
            CHECK(store_pool_check(p, pool_test_owns, &o));
        }
    }
    CHECK(ok);
    for (unsigned i = 0; i < POOL_TEST_BLOCKS; i++)
        for (size_t j = 0; j < o.n[i]; j++) ok &= o.data[i][j] == (uint8_t)(i + j);
    CHECK(ok);
    CHECK(pool_accounted(&m, p));
    CHECK(store_pool_check(p, pool_test_owns, &o));
    store_pool_delete(&m, p);
    CHECK_EQ_INT(m.bytes, 0);
}

/* A compact store on a pool (as a shard of shared.c is): same answers,
 * consistent after every phase, also with one huge bucket (blocks past
 * the size lists) and with early splits (many level changes). */
void test_compact_on_pool(void)
{
    store *st = new_store(STORE_COMPACT, 64, 0, 16);
    CHECK(st && compact_use_pool(st));
    if (!st) return;
    CHECK_EQ_INT(insert_distinct_and_recheck(st, 21, 300000, 16), 0);
    CHECK(store_check(st));
    CHECK(st->u.compact.pool->compactions > 0);
    store_free(st);

    st = new_store(STORE_COMPACT, 128, 0, 16);
    CHECK(st && compact_use_pool(st));
    if (!st) return;
    store_set_compact_split_average(st, 3);
    CHECK_EQ_INT(insert_distinct_and_recheck(st, 22, 50000, 16), 0);
    CHECK(store_check(st));
    store_free(st);

    st = new_store(STORE_COMPACT, 64, 0, 8);
    CHECK(st && compact_use_pool(st));
    if (!st) return;
    store_set_hash_for_testing(st, hash_first_word_shifted);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < 6000; i++) {
        uint64_t k = (i * 7919) % 6000;
        bad += store_insert(st, &k) != STORE_ADDED;
    }
    for (uint64_t k = 0; k < 6000; k++) bad += !store_contains(st, &k);
    CHECK_EQ_INT(bad, 0);
    CHECK(store_check(st));
    store_free(st);
}
