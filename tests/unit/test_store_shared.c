/* test_store_shared.c: unit tests of the shared store (sstore,
 * statestore/shared.c): threads inserting overlapping sets concurrently
 * (each vector ADDED exactly once), per kind and shard count; the same
 * answers as the single store for the same 64-bit hashes (collisions
 * included); invalid configurations; STORE_FULL under its memory limit;
 * bytes per state. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "test_store_int.h"

/* ---- sstore ---------------------------------------------------------------- */

static sstore *new_sstore(store_kind kind, unsigned bits, uint64_t bitstate_bytes, size_t vec,
                          unsigned shard_bits)
{
    store_config cfg = {.kind = kind, .fingerprint_bits = bits, .bitstate_bytes = bitstate_bytes};
    return sstore_new(&cfg, vec, shard_bits);
}

#define SS_THREADS 4
#define SS_VEC 24

/* Threads inserting vectors [0, n) of seed 31 into one sstore: thread t
 * inserts every vector i with i % SS_THREADS != t (so each vector by
 * SS_THREADS - 1 threads), starting at a different offset, and counts in
 * added[i] how often it got STORE_ADDED. */
typedef struct ss_job {
    sstore *s;
    uint64_t n;
    unsigned t;
    _Atomic uint8_t *added;
    uint64_t full; /* STORE_FULL answers */
} ss_job;

static void *ss_worker(void *arg)
{
    ss_job *j = arg;
    uint8_t v[SS_VEC];
    for (uint64_t k = 0; k < j->n; k++) {
        uint64_t i = (k + j->t * j->n / SS_THREADS) % j->n;
        if (i % SS_THREADS == j->t) continue;
        make_vector(31, i, v, SS_VEC);
        uint64_t h = sstore_hash(j->s, v);
        sstore_prefetch(j->s, h); /* reads the shard unlocked: TSan checks it */
        sstore_prefetch_entries(j->s, h, k % 2);
        store_result r = sstore_insert(j->s, v, h);
        if (r == STORE_ADDED) atomic_fetch_add(&j->added[i], 1);
        if (r == STORE_FULL) j->full++;
        if (k % 1024 == 0) (void)sstore_count(j->s), (void)sstore_bytes(j->s);
    }
    return NULL;
}

/* Runs the SS_THREADS workers; returns how many vectors were ADDED more
 * than once (and *none: how many never). */
static uint64_t ss_run(sstore *s, uint64_t n, _Atomic uint8_t *added, uint64_t *none,
                       uint64_t *full)
{
    pthread_t th[SS_THREADS];
    ss_job jobs[SS_THREADS];
    for (unsigned t = 0; t < SS_THREADS; t++) {
        jobs[t] = (ss_job){.s = s, .n = n, .t = t, .added = added};
        if (pthread_create(&th[t], NULL, ss_worker, &jobs[t]) != 0) ss_worker(&jobs[t]), th[t] = 0;
    }
    *full = 0;
    for (unsigned t = 0; t < SS_THREADS; t++) {
        if (th[t]) pthread_join(th[t], NULL);
        *full += jobs[t].full;
    }
    uint64_t twice = 0;
    *none = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t a = atomic_load(&added[i]);
        twice += a > 1;
        *none += a == 0;
    }
    return twice;
}

static void check_sstore_concurrent(store_kind kind, unsigned bits, unsigned shard_bits)
{
    uint64_t n = 30000, none, full;
    sstore *s = new_sstore(kind, bits, 16 * n, SS_VEC, shard_bits);
    CHECK(s != NULL);
    if (!s) return;
    CHECK_EQ_INT(sstore_shards(s), 1u << shard_bits);
    _Atomic uint8_t *added = calloc(n, sizeof *added);
    CHECK_EQ_INT(ss_run(s, n, added, &none, &full), 0); /* never ADDED twice */
    CHECK_EQ_INT(full, 0);
    CHECK(sstore_check(s));
    uint8_t v[SS_VEC];
    uint64_t missing = 0, again = 0, other = 0;
    for (uint64_t i = 0; i < n; i++) {
        make_vector(31, i, v, SS_VEC);
        uint64_t h = sstore_hash(s, v);
        CHECK(h == store_hash64(v, SS_VEC));
        if (sstore_shard_of(s, h) != (h & ((1u << shard_bits) - 1))) missing++;
        missing += !sstore_contains(s, v);
        again += sstore_insert(s, v, h) != STORE_PRESENT;
        make_vector(32, i, v, SS_VEC);
        other += sstore_contains(s, v);
    }
    CHECK_EQ_INT(missing, 0);
    CHECK_EQ_INT(again, 0);
    if (kind == STORE_BITSTATE) {
        /* 16 bits a state: a few omitted (never twice added, checked above) */
        CHECK(none < n / 50);
        CHECK_EQ_INT(sstore_count(s), n - none);
        double om = sstore_omission_probability(s);
        CHECK(om > 0 && om < 0.02);
        CHECK(other < n / 50);
    } else {
        CHECK_EQ_INT(none, 0);
        CHECK_EQ_INT(sstore_count(s), n);
        CHECK_EQ_INT(other, 0);
        double om = sstore_omission_probability(s);
        CHECK(kind == STORE_EXACT ? om == 0 : om > 0 && om < 1e-10);
    }
    CHECK(sstore_check(s));
    free(added);
    sstore_free(s);
}

void test_sstore_concurrent(void)
{
    const unsigned shard_bits[] = {0, 3, 10};
    for (unsigned i = 0; i < 3; i++) {
        check_sstore_concurrent(STORE_COMPACT, 64, shard_bits[i]);
        check_sstore_concurrent(STORE_COMPACT, 128, shard_bits[i]);
        check_sstore_concurrent(STORE_EXACT, 0, shard_bits[i]);
        check_sstore_concurrent(STORE_BITSTATE, 0, shard_bits[i]);
    }
}

/* Given the same 64-bit hashes (a few random, many equal or one bit
 * apart: the shard bits, the bucket bits, the top bit), the sharded 64-bit
 * compact store answers exactly as the single store: the set is the set of
 * 64-bit fingerprints. */
void test_sstore_same_answers(void)
{
    const unsigned shard_bits[] = {0, 1, 6, 10, 16};
    for (unsigned k = 0; k < 5; k++) {
        store *st = new_store(STORE_COMPACT, 64, 0, 8);
        sstore *s = new_sstore(STORE_COMPACT, 64, 0, 8, shard_bits[k]);
        CHECK(st && s);
        if (!st || !s) {
            store_free(st);
            sstore_free(s);
            return;
        }
        uint64_t seed = 5, base[64], differ = 0, added = 0;
        for (unsigned i = 0; i < 64; i++) base[i] = splitmix64(&seed);
        for (uint64_t i = 0; i < 200000; i++) {
            uint64_t r = splitmix64(&seed), h;
            switch (r % 4) {
            case 0: h = splitmix64(&seed); break;          /* fresh */
            case 1: h = base[r >> 58]; break;              /* repeated */
            default: h = base[r >> 58] ^ ((uint64_t)1 << (r >> 20) % 64); break; /* one bit off */
            }
            uint8_t v[8];
            memcpy(v, &i, 8); /* the vector does not matter to a 64-bit compact store */
            store_result a = store_insert_prepared(st, v, h), b = sstore_insert(s, v, h);
            differ += a != b;
            added += a == STORE_ADDED;
        }
        CHECK_EQ_INT(differ, 0);
        CHECK_EQ_INT(sstore_count(s), store_count(st));
        CHECK(added > 50000 && added < 60000); /* the fresh ones, the bases, their one-bit variants */
        CHECK(sstore_omission_probability(s) == store_omission_probability(st));
        CHECK(sstore_check(s));
        store_free(st);
        sstore_free(s);
    }
}

void test_sstore_invalid_configs(void)
{
    CHECK(new_sstore(STORE_COMPACT, 64, 0, 8, SSTORE_MAX_SHARD_BITS + 1) == NULL);
    CHECK(new_sstore(STORE_COMPACT, 100, 0, 8, 2) == NULL);
    CHECK(new_sstore(STORE_BITSTATE, 0, 0, 8, 0) == NULL);
    CHECK(new_sstore(STORE_BITSTATE, 0, 15, 8, 4) == NULL); /* less than a byte a shard */
    CHECK(sstore_new(NULL, 8, 0) == NULL);
    sstore_free(NULL);
    sstore *s = new_sstore(STORE_BITSTATE, 0, 1000, 8, 3); /* 1000 = 8 x 125 */
    CHECK(s != NULL);
    if (s) CHECK(sstore_bytes(s) >= 1000);
    sstore_free(s);
}

/* Threads fill a sharded store under a memory limit until STORE_FULL:
 * the total stays within a growth step a thread of the limit, every ADDED
 * vector is in the set, every other is not (each vector is offered by
 * three threads: one ADDED or none), and the set is consistent. */
static void check_sstore_full(store_kind kind, unsigned bits, unsigned shard_bits)
{
    uint64_t n = 60000, none, full;
    sstore *s = new_sstore(kind, bits, 0, SS_VEC, shard_bits);
    CHECK(s != NULL);
    if (!s) return;
    size_t limit = sstore_bytes(s) + 150000;
    sstore_set_memory_limit(s, limit);
    _Atomic uint8_t *added = calloc(n, sizeof *added);
    CHECK_EQ_INT(ss_run(s, n, added, &none, &full), 0);
    CHECK(full > 0);
    CHECK(none > 0);
    CHECK_EQ_INT(sstore_count(s), n - none);
    CHECK(sstore_bytes(s) <= limit + SS_THREADS * 8192);
    CHECK(sstore_check(s));
    uint8_t v[SS_VEC];
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < n; i++) {
        make_vector(31, i, v, SS_VEC);
        wrong += sstore_contains(s, v) != (atomic_load(&added[i]) == 1);
    }
    CHECK_EQ_INT(wrong, 0);
    sstore_set_memory_limit(s, 0);
    make_vector(33, 0, v, SS_VEC);
    CHECK_EQ_INT(sstore_insert(s, v, sstore_hash(s, v)), STORE_ADDED);
    CHECK(sstore_check(s));
    free(added);
    sstore_free(s);
}

void test_sstore_full_under_memory_limit(void)
{
    check_sstore_full(STORE_COMPACT, 64, 0);
    check_sstore_full(STORE_COMPACT, 64, 4);
    check_sstore_full(STORE_COMPACT, 128, 4);
    check_sstore_full(STORE_EXACT, 0, 4);
}

/* The sharded 64-bit compact store stores 64 - shard_bits bits a state, so
 * a state takes the bytes it takes in the single store; each shard adds a
 * fixed ~230 bytes (its line and its store struct: SSTORE_SHARD_BYTES
 * allowed), its pool (pool.h) and that pool's last chunk (POOL_SHARD_BYTES).
 * But the single store counts only its malloc blocks (memstat.c), not the
 * free memory between them in glibc's heap, while a shard counts its chunks,
 * free blocks included (SSTORE_FREE_SHARE allowed; glibc's own is ~18% at
 * 4e5 states, mallinfo2). docs/statestore.md has the benchmark. */
#define SSTORE_SHARD_BYTES 240
#define POOL_SHARD_BYTES (1024 + 8192)
#define SSTORE_FREE_SHARE 1.25
static void check_sstore_bytes_per_state(unsigned bits)
{
    uint64_t n = 400000;
    store *st = new_store(STORE_COMPACT, bits, 0, 16);
    CHECK(st != NULL);
    if (!st) return;
    uint8_t v[16];
    for (uint64_t i = 0; i < n; i++) {
        make_vector(41, i, v, 16);
        store_insert(st, v);
    }
    const unsigned shard_bits[] = {0, 6, 8};
    for (unsigned k = 0; k < 3; k++) {
        sstore *s = new_sstore(STORE_COMPACT, bits, 0, 16, shard_bits[k]);
        CHECK(s != NULL);
        if (!s) break;
        for (uint64_t i = 0; i < n; i++) {
            make_vector(41, i, v, 16);
            sstore_insert(s, v, sstore_hash(s, v));
        }
        CHECK_EQ_INT(sstore_count(s), store_count(st));
        double single = (double)store_bytes(st) / (double)n;
        double sharded = (double)sstore_bytes(s) / (double)n;
        double fixed =
            (double)((SSTORE_SHARD_BYTES + POOL_SHARD_BYTES) << shard_bits[k]) / (double)n;
        if (sharded > single * SSTORE_FREE_SHARE + fixed) {
            char b[128];
            snprintf(b, sizeof b, "%u bits, shard_bits %u: %.3f bytes a state, single store %.3f",
                     bits, shard_bits[k], sharded, single);
            test_fail(__FILE__, __LINE__, b);
        }
        sstore_free(s);
    }
    store_free(st);
}

void test_sstore_bytes_per_state(void)
{
    check_sstore_bytes_per_state(64);
    check_sstore_bytes_per_state(128);
}
