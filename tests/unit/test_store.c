/* test_store.c: unit tests of statestore/: find-or-put for the three kinds,
 * agreement of compact (64 and 128 bits) with exact, the compact bucket
 * splits (level growth, remainder narrowing), exact's collision chains
 * (forced through a weak test hash), STORE_FULL under a memory limit with
 * the set unchanged, the omission formulas of docs/statestore.md, invalid
 * configurations, and a sanity test of the system Judy itself (Judy 1.0.5
 * loses Judy1 keys when miscompiled with aggressive loop optimisation:
 * php-judy issue 131). main() runs these and those of test_store_pool.c
 * (the shards' allocator) and test_store_shared.c (the shared store). */
#include "test_store_int.h"

#include <Judy.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Inserts vectors [0, n) of seed: all must be ADDED, then PRESENT and
 * contained; vectors of another seed must not be contained. Returns how
 * many inserts failed those expectations. */
uint64_t insert_distinct_and_recheck(store *st, uint64_t seed, uint64_t n, size_t len)
{
    uint8_t v[256];
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        make_vector(seed, i, v, len);
        bad += store_insert(st, v) != STORE_ADDED;
    }
    for (uint64_t i = 0; i < n; i++) {
        make_vector(seed, i, v, len);
        bad += !store_contains(st, v);
        bad += store_insert(st, v) != STORE_PRESENT;
    }
    for (uint64_t i = 0; i < n; i++) {
        make_vector(seed + 1, i, v, len);
        bad += store_contains(st, v);
    }
    return bad;
}

static void check_kind_basics(store *st, uint64_t n, size_t len, double min_bps, double max_bps)
{
    CHECK(st != NULL);
    if (!st) return;
    CHECK_EQ_INT(store_count(st), 0);
    CHECK_EQ_INT(insert_distinct_and_recheck(st, 7, n, len), 0);
    CHECK_EQ_INT(store_count(st), n);
    CHECK(store_check(st));
    double bps = (double)store_bytes(st) / (double)n;
    if (bps < min_bps || bps > max_bps) {
        char b[128];
        snprintf(b, sizeof b, "%s: %.2f bytes/state not in [%.1f, %.1f]",
                 store_kind_name(st->kind), bps, min_bps, max_bps);
        test_fail(__FILE__, __LINE__, b);
    }
    store_free(st);
}

static void test_compact64_basics(void)
{
    check_kind_basics(new_store(STORE_COMPACT, 64, 0, 32), 200000, 32, 6.0, 11.0);
}

static void test_compact128_basics(void)
{
    check_kind_basics(new_store(STORE_COMPACT, 128, 0, 32), 200000, 32, 14.0, 20.0);
}

static void test_exact_basics(void)
{
    /* 32-byte records plus a JudyL of random 64-bit keys */
    check_kind_basics(new_store(STORE_EXACT, 0, 0, 32), 200000, 32, 32.0, 80.0);
}

static void test_bitstate_basics(void)
{
    /* 2^25 bits for 1e5 states, k = 3: ~1e-8 chance a new state is lost */
    check_kind_basics(new_store(STORE_BITSTATE, 0, 1u << 22, 32), 100000, 32, 40.0, 44.0);
}

static void test_invalid_configs(void)
{
    CHECK(store_new(NULL, 8) == NULL);
    CHECK(new_store(STORE_COMPACT, 0, 0, 8) == NULL);
    CHECK(new_store(STORE_COMPACT, 32, 0, 8) == NULL);
    CHECK(new_store(STORE_COMPACT, 96, 0, 8) == NULL);
    CHECK(new_store(STORE_COMPACT, 256, 0, 8) == NULL);
    CHECK(new_store(STORE_BITSTATE, 0, 0, 8) == NULL);
    CHECK(new_store(STORE_BITSTATE, 0, (uint64_t)1 << 62, 8) == NULL);
    store_config k65 = {.kind = STORE_BITSTATE, .bitstate_bytes = 64, .bitstate_k = 65};
    CHECK(store_new(&k65, 8) == NULL);
    store_config bad_kind = {.kind = (store_kind)42, .fingerprint_bits = 64};
    CHECK(store_new(&bad_kind, 8) == NULL);
    store_free(NULL);
    CHECK(!strcmp(store_kind_name(STORE_COMPACT), "compact"));
    CHECK(!strcmp(store_kind_name(STORE_EXACT), "exact"));
    CHECK(!strcmp(store_kind_name(STORE_BITSTATE), "bitstate"));
    CHECK(store_hash64("abc", 3) == XXH3_64bits("abc", 3));
}

/* vec_bytes 0 is allowed: there is exactly one (empty) vector. */
static void test_zero_length_vectors(void)
{
    store *s[] = {new_store(STORE_COMPACT, 64, 0, 0), new_store(STORE_COMPACT, 128, 0, 0),
                  new_store(STORE_EXACT, 0, 0, 0), new_store(STORE_BITSTATE, 0, 1, 0)};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        CHECK(s[i] != NULL);
        if (!s[i]) continue;
        CHECK(!store_contains(s[i], ""));
        CHECK_EQ_INT(store_insert(s[i], ""), STORE_ADDED);
        CHECK_EQ_INT(store_insert(s[i], ""), STORE_PRESENT);
        CHECK(store_contains(s[i], ""));
        CHECK_EQ_INT(store_count(s[i]), 1);
        store_free(s[i]);
    }
}

/* Compact 64 and 128 and exact see the same vectors and must give the same
 * answer for each, duplicates included (1- and 3-byte vectors repeat). */
static void test_compact_agrees_with_exact(void)
{
    static const size_t lens[] = {1, 3, 8, 37, 200};
    const uint64_t n = 200000;
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        size_t len = lens[l];
        store *ex = new_store(STORE_EXACT, 0, 0, len);
        store *c64 = new_store(STORE_COMPACT, 64, 0, len);
        store *c128 = new_store(STORE_COMPACT, 128, 0, len);
        CHECK(ex && c64 && c128);
        if (!ex || !c64 || !c128) return;
        uint8_t v[256];
        uint64_t disagree = 0, s = len;
        for (uint64_t i = 0; i < n; i++) {
            if (len < 8) {
                uint64_t w = splitmix64(&s);
                memcpy(v, &w, len);
            } else {
                make_vector(len, i, v, len);
            }
            store_result r = store_insert(ex, v);
            disagree += store_insert(c64, v) != r;
            disagree += store_insert(c128, v) != r;
        }
        CHECK_EQ_INT(disagree, 0);
        CHECK_EQ_INT(store_count(c64), store_count(ex));
        CHECK_EQ_INT(store_count(c128), store_count(ex));
        if (len == 1) CHECK_EQ_INT(store_count(ex), 256);
        if (len >= 8) CHECK_EQ_INT(store_count(ex), n);
        CHECK(store_check(ex) && store_check(c64) && store_check(c128));
        store_free(ex);
        store_free(c64);
        store_free(c128);
    }
}

/* With a split average of 2 the level (bits indexing the buckets) reaches
 * 17 within 3e5 states, so the remainder shrinks 8 -> 7 -> 6 bytes; check
 * the structure and every key after each doubling. */
static void check_rebuilds(unsigned bits, uint32_t avg, uint64_t n)
{
    store *st = new_store(STORE_COMPACT, bits, 0, 16);
    CHECK(st != NULL);
    if (!st) return;
    store_set_compact_split_average(st, avg);
    uint8_t v[16];
    unsigned level = store_compact_level(st), rebuilds = 0;
    uint64_t done = 0;
    for (uint64_t stop = 1024; done < n; stop *= 2) {
        if (stop > n) stop = n;
        for (; done < stop; done++) {
            make_vector(3, done, v, sizeof v);
            CHECK_EQ_INT(store_insert(st, v), STORE_ADDED);
            if (store_compact_level(st) != level) {
                level = store_compact_level(st);
                rebuilds++;
            }
        }
        CHECK(store_check(st));
        uint64_t missing = 0, spurious = 0;
        for (uint64_t i = 0; i < done; i++) {
            make_vector(3, i, v, sizeof v);
            missing += !store_contains(st, v);
            make_vector(4, i, v, sizeof v);
            spurious += store_contains(st, v);
        }
        CHECK_EQ_INT(missing, 0);
        CHECK_EQ_INT(spurious, 0);
    }
    CHECK_EQ_INT(store_count(st), n);
    CHECK(rebuilds >= 5);
    if (avg <= 2) CHECK(level >= 17);
    store_free(st);
}

static void test_compact_rebuilds(void)
{
    check_rebuilds(64, 2, 300000);
    check_rebuilds(128, 2, 300000);
    check_rebuilds(64, 192, 300000); /* the default: level 4 -> 10 */
}

/* The first word shifted up as hash: the low 32 bits, which pick the
 * bucket, are all zero, so every key lands in bucket 0 however often it
 * splits, and the position guess is always wrong: slow, still correct. */
uint64_t hash_first_word_shifted(const void *vec, size_t n)
{
    uint64_t w = 0;
    memcpy(&w, vec, n < 8 ? n : 8);
    return w << 32;
}

/* 64 distinct hash values for all vectors: long collision chains. */
static uint64_t hash_mod_64(const void *vec, size_t n)
{
    return XXH3_64bits(vec, n) % 64;
}

static void test_compact_skewed_hash(void)
{
    store *st = new_store(STORE_COMPACT, 64, 0, 8);
    CHECK(st != NULL);
    if (!st) return;
    store_set_hash_for_testing(st, hash_first_word_shifted);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < 6000; i++) {
        uint64_t k = (i * 7919) % 6000; /* not in order */
        bad += store_insert(st, &k) != STORE_ADDED;
    }
    for (uint64_t k = 0; k < 6000; k++) bad += !store_contains(st, &k);
    for (uint64_t k = 6000; k < 7000; k++) bad += store_contains(st, &k);
    CHECK_EQ_INT(bad, 0);
    CHECK(store_check(st));
    store_free(st);

    /* compact takes equal fingerprints as one state: that is the omission */
    st = new_store(STORE_COMPACT, 64, 0, 8);
    store_set_hash_for_testing(st, hash_mod_64);
    for (uint64_t k = 0; k < 1000; k++) store_insert(st, &k);
    CHECK_EQ_INT(store_count(st), 64);
    store_free(st);
}

static void test_exact_collision_chains(void)
{
    store *st = new_store(STORE_EXACT, 0, 0, 24);
    CHECK(st != NULL);
    if (!st) return;
    store_set_hash_for_testing(st, hash_mod_64);
    CHECK_EQ_INT(insert_distinct_and_recheck(st, 11, 12000, 24), 0);
    CHECK_EQ_INT(store_count(st), 12000);
    CHECK(store_check(st));
    store_free(st);
}

/* Many vectors through the real hash: chains stay empty, all found. */
static void test_exact_many(void)
{
    store *st = new_store(STORE_EXACT, 0, 0, 40);
    CHECK(st != NULL);
    if (!st) return;
    CHECK_EQ_INT(insert_distinct_and_recheck(st, 13, 200000, 40), 0);
    CHECK(store_check(st));
    store_free(st);
}

/* Fill under a memory limit until STORE_FULL; then the set must be as
 * before the failed insert, and usable once the limit is lifted. */
static void check_full_leaves_set_unchanged(store *st, size_t len)
{
    CHECK(st != NULL);
    if (!st) return;
    size_t limit = store_bytes(st) + 200000;
    store_set_memory_limit(st, limit);
    uint8_t v[64];
    uint64_t i = 0;
    store_result r = STORE_ADDED;
    for (; i < 10000000 && r == STORE_ADDED; i++) {
        make_vector(21, i, v, len);
        r = store_insert(st, v);
    }
    CHECK_EQ_INT(r, STORE_FULL);
    uint64_t n = store_count(st);
    CHECK_EQ_INT(n, i - 1);
    CHECK(!store_contains(st, v));
    CHECK(store_bytes(st) <= limit + 4096); /* Judy may pass it by a node */
    CHECK(store_check(st));
    make_vector(21, 0, v, len);
    CHECK_EQ_INT(store_insert(st, v), STORE_PRESENT); /* present is not full */
    uint64_t missing = 0;
    for (uint64_t j = 0; j < n; j++) {
        make_vector(21, j, v, len);
        missing += !store_contains(st, v);
    }
    CHECK_EQ_INT(missing, 0);
    store_set_memory_limit(st, 0);
    make_vector(21, n, v, len);
    CHECK_EQ_INT(store_insert(st, v), STORE_ADDED);
    CHECK(store_check(st));
    store_free(st);
}

static void test_full_under_memory_limit(void)
{
    check_full_leaves_set_unchanged(new_store(STORE_COMPACT, 64, 0, 32), 32);
    check_full_leaves_set_unchanged(new_store(STORE_COMPACT, 128, 0, 32), 32);
    check_full_leaves_set_unchanged(new_store(STORE_EXACT, 0, 0, 48), 48);
}

/* Compact under a limit, from an empty store: bucket splits and growth
 * both run out of memory on the way, the set stays consistent. */
static void test_compact_splits_under_memory_pressure(void)
{
    store *st = new_store(STORE_COMPACT, 64, 0, 16);
    CHECK(st != NULL);
    if (!st) return;
    store_set_compact_split_average(st, 8);
    store_set_memory_limit(st, 1 << 20);
    uint8_t v[16];
    uint64_t added = 0, full = 0;
    for (uint64_t i = 0; i < 400000; i++) {
        make_vector(5, i, v, sizeof v);
        store_result r = store_insert(st, v);
        added += r == STORE_ADDED;
        full += r == STORE_FULL;
    }
    CHECK(full > 0);
    CHECK_EQ_INT(store_count(st), added);
    CHECK(store_bytes(st) <= 1 << 20);
    CHECK(store_check(st));
    store_free(st);
}

static void test_bitstate_tiny_array_omits(void)
{
    store_config cfg = {.kind = STORE_BITSTATE, .bitstate_bytes = 64, .bitstate_k = 0};
    store *st = store_new(&cfg, 16);
    CHECK(st != NULL);
    if (!st) return;
    CHECK(store_omission_probability(st) == 0.0);
    uint8_t v[16];
    uint64_t present = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        make_vector(9, i, v, sizeof v);
        present += store_insert(st, v) == STORE_PRESENT;
    }
    CHECK(present > 0);
    CHECK_EQ_INT(store_count(st) + present, 1000);
    double p = store_omission_probability(st);
    CHECK(p > 0.1 && p < 1.0);
    CHECK_EQ_INT(store_bytes(st), store_alloc_cost(sizeof *st) + store_alloc_cost(64));
    store_free(st);

    /* more probes than bits: positions must stay inside the byte */
    store_config one = {.kind = STORE_BITSTATE, .bitstate_bytes = 1, .bitstate_k = 64};
    st = store_new(&one, 16);
    CHECK(st != NULL);
    if (!st) return;
    for (uint64_t i = 0; i < 100; i++) {
        make_vector(9, i, v, sizeof v);
        store_insert(st, v);
        CHECK(store_contains(st, v));
    }
    CHECK(store_count(st) >= 1 && store_count(st) <= 8);
    store_free(st);
}

/* The estimate should roughly match the truth: the fraction of distinct
 * inserted vectors reported PRESENT, at a moderate fill. */
static void test_bitstate_estimate_tracks_truth(void)
{
    store_config cfg = {.kind = STORE_BITSTATE, .bitstate_bytes = 8192, .bitstate_k = 3};
    store *st = store_new(&cfg, 16);
    CHECK(st != NULL);
    if (!st) return;
    uint8_t v[16];
    uint64_t lost = 0, n = 12000;
    for (uint64_t i = 0; i < n; i++) {
        make_vector(17, i, v, sizeof v);
        lost += store_insert(st, v) == STORE_PRESENT;
    }
    double truth = (double)lost / (double)n, est = store_omission_probability(st);
    CHECK(truth > 0.01);
    CHECK(fabs(est - truth) < 0.25 * truth);
    store_free(st);
}

static double birthday(uint64_t n, int bits)
{
    double x = ldexp((double)n * (double)(n - 1), -bits - 1);
    return x - x * x / 2 + x * x * x / 6; /* 1 - e^-x for tiny x */
}

static void test_compact_omission_formula(void)
{
    store *c64 = new_store(STORE_COMPACT, 64, 0, 8), *c128 = new_store(STORE_COMPACT, 128, 0, 8);
    store *ex = new_store(STORE_EXACT, 0, 0, 8);
    CHECK(c64 && c128 && ex);
    if (!c64 || !c128 || !ex) return;
    CHECK(store_omission_probability(c64) == 0.0);
    double prev = 0;
    uint8_t v[8];
    for (uint64_t i = 0; i < 100000; i++) {
        make_vector(1, i, v, 8);
        store_insert(c64, v);
        store_insert(c128, v);
        store_insert(ex, v);
        if ((i + 1) % 20000 == 0) {
            uint64_t n = i + 1;
            double p = store_omission_probability(c64);
            CHECK(p > prev);
            CHECK(fabs(p - birthday(n, 64)) <= 1e-9 * p);
            CHECK(p <= ldexp((double)n * (double)n, -65));
            double q = store_omission_probability(c128);
            CHECK(q > 0 && isfinite(q) && q < 1e-25);
            CHECK(fabs(q - birthday(n, 128)) <= 1e-9 * q);
            prev = p;
        }
    }
    CHECK(store_omission_probability(ex) == 0.0);
    store_free(c64);
    store_free(c128);
    store_free(ex);
}

/* The key patterns of the Judy sanity test: sequential, strided,
 * "cascade" groups of 15 keys under each of 9 high bytes (the shape that
 * overflows the 1-byte immediate of a miscompiled Judy1, php-judy #131/#134)
 * repeated across the key space, and pseudo-random. */
static uint64_t judy_pattern_key(uint64_t i)
{
    const uint64_t quarter = 500000;
    if (i < quarter) return i;
    if (i < 2 * quarter) return (i - quarter) * 4099 + 0x10000000u;
    if (i < 3 * quarter) {
        uint64_t j = i - 2 * quarter, group = j / 135, h = (j % 135) / 15, l = j % 15;
        return (group << 24) | (h << 8) | l | ((uint64_t)1 << 40);
    }
    uint64_t s = i;
    return splitmix64(&s);
}

static void test_judy_sanity(void)
{
    const uint64_t n = 2000000;
    Pvoid_t j1 = NULL, jl = NULL;
    JError_t je;
    uint64_t distinct = 0, errors = 0;
    for (uint64_t i = 0; i < n; i++) {
        Word_t k = judy_pattern_key(i);
        int r = Judy1Set(&j1, k, &je);
        if (r == JERR) errors++;
        distinct += r == 1;
        PPvoid_t slot = JudyLIns(&jl, k, &je);
        if (slot == PPJERR) errors++;
        else *(Word_t *)slot = k ^ 0xabcdef;
    }
    CHECK_EQ_INT(errors, 0);
    uint64_t missing = 0, wrong = 0;
    for (uint64_t i = 0; i < n; i++) {
        Word_t k = judy_pattern_key(i);
        missing += Judy1Test(j1, k, &je) != 1;
        PPvoid_t slot = JudyLGet(jl, k, &je);
        if (!slot || slot == PPJERR) missing++;
        else wrong += *(Word_t *)slot != (k ^ 0xabcdef);
    }
    CHECK_EQ_INT(missing, 0);
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(Judy1Count(j1, 0, ~(Word_t)0, &je), distinct);
    CHECK_EQ_INT(JudyLCount(jl, 0, ~(Word_t)0, &je), distinct);
    /* Count reads a population cache: walking finds what is really there */
    uint64_t walked = 0;
    Word_t k = 0;
    for (int r = Judy1First(j1, &k, &je); r == 1; r = Judy1Next(j1, &k, &je)) walked++;
    CHECK_EQ_INT(walked, distinct);
    CHECK(Judy1MemUsed(j1) > 0 && JudyLMemUsed(jl) > 0);
    CHECK(Judy1FreeArray(&j1, &je) != (Word_t)JERR);
    CHECK(JudyLFreeArray(&jl, &je) != (Word_t)JERR);
    CHECK(j1 == NULL && jl == NULL);
}

int main(void)
{
    TEST_RUN(test_invalid_configs);
    TEST_RUN(test_zero_length_vectors);
    TEST_RUN(test_compact64_basics);
    TEST_RUN(test_compact128_basics);
    TEST_RUN(test_exact_basics);
    TEST_RUN(test_bitstate_basics);
    TEST_RUN(test_compact_agrees_with_exact);
    TEST_RUN(test_compact_rebuilds);
    TEST_RUN(test_compact_skewed_hash);
    TEST_RUN(test_exact_collision_chains);
    TEST_RUN(test_exact_many);
    TEST_RUN(test_full_under_memory_limit);
    TEST_RUN(test_compact_splits_under_memory_pressure);
    TEST_RUN(test_bitstate_tiny_array_omits);
    TEST_RUN(test_bitstate_estimate_tracks_truth);
    TEST_RUN(test_compact_omission_formula);
    TEST_RUN(test_judy_sanity);
    TEST_RUN(test_pool_reuse_and_coalescing);
    TEST_RUN(test_pool_limit);
    TEST_RUN(test_pool_compaction);
    TEST_RUN(test_compact_on_pool);
    TEST_RUN(test_sstore_invalid_configs);
    TEST_RUN(test_sstore_same_answers);
    TEST_RUN(test_sstore_concurrent);
    TEST_RUN(test_sstore_full_under_memory_limit);
    TEST_RUN(test_sstore_bytes_per_state);
    return test_finish();
}
