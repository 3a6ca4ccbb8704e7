/* test_mpi_batch.c: unit tests of mcheck-mpi's batch records
 * (reduce/mpi/mpi_batch.c), without MPI: batches of random records (states,
 * errors, sets) with large and small tids, choices and parent indices
 * (up to UINT64_MAX, decreasing ones too) and vectors that change in no
 * byte, a few, every other one or all, decode to what was encoded, within
 * mb_max() bytes each; a batch restarts from zeros; the sizes of the common
 * case (a few bytes changed, small fields) are as docs/benchmarks.md section
 * 11 says; cut or corrupt input is refused, never read past. */
#include "mpi_batch.h"
#include "testutil.h"

#include <stdlib.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t field(void)
{
    switch (next() % 5) {
    case 0: return 0;
    case 1: return next() % 128;
    case 2: return UINT64_MAX - next() % 3;
    case 3: return (uint64_t)1 << (next() % 64);
    default: return next();
    }
}

static void mutate(uint8_t *v, size_t vs)
{
    switch (next() % 5) {
    case 0: break; /* the same vector */
    case 1:
        for (int k = 0; k < 3; k++) v[next() % vs]++;
        break;
    case 2:
        for (size_t i = 0; i < vs; i += 2) v[i] ^= 0x5a;
        break;
    case 3:
        for (size_t i = 0; i < vs; i++) v[i] = (uint8_t)(next() | 1) + v[i];
        break;
    default:
        v[0]++;
        v[vs - 1]++;
    }
}

static void roundtrip_size(size_t vs)
{
    enum { N = 400 };
    mb_ctx enc = {.prev = calloc(1, vs), .vsize = vs}, dec = {.prev = calloc(1, vs), .vsize = vs};
    mb_rec *rec = calloc(N, sizeof *rec);
    uint8_t *vecs = calloc(N, vs), *buf = malloc(N * mb_max(vs)), *v = calloc(1, vs);
    size_t n = 0;
    mb_reset(&enc);
    for (int i = 0; i < N; i++) {
        uint32_t t = (uint32_t)(next() % 4) + 1;
        rec[i] = (mb_rec){.type = t, .tid = next() % 2 ? (uint32_t)(next() % 8) : (1u << 30) - 1,
                          .choice = t == MB_SET || t == MB_DEPTH ? 0 : field(), .pidx = field()};
        mutate(v, vs);
        memcpy(vecs + i * vs, v, vs);
        size_t k = mb_put(&enc, buf + n, &rec[i], v);
        CHECK(k > 0 && k <= mb_max(vs));
        n += k;
    }
    mb_reset(&dec);
    size_t pos = 0;
    for (int i = 0; i < N; i++) {
        mb_rec r;
        size_t k = mb_get(&dec, buf + pos, n - pos, &r);
        if (!k) {
            CHECK(k > 0);
            break;
        }
        pos += k;
        CHECK_EQ_INT(r.type, rec[i].type);
        CHECK_EQ_INT(r.tid, rec[i].tid);
        CHECK(r.pidx == rec[i].pidx);
        if (r.type != MB_SET && r.type != MB_DEPTH) {
            CHECK(r.choice == rec[i].choice);
            CHECK(!memcmp(dec.prev, vecs + i * vs, vs));
        }
    }
    CHECK_EQ_INT(pos, n);
    free(enc.prev);
    free(dec.prev);
    free(rec);
    free(vecs);
    free(buf);
    free(v);
}

static void roundtrip(void)
{
    static const size_t sizes[] = {1, 2, 7, 8, 9, 170, 1000, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) roundtrip_size(sizes[i]);
}

/* The common case: tid < 32, choice 0, the next parent or the same, a
 * vector 170 bytes long with 3 bytes changed in one place: 1 + 1 + 1 + 1
 * (one run) + 2 (its header) + 3 = 9 bytes; unchanged: 4; a set: 2. */
static void sizes(void)
{
    uint8_t prev[170] = {0}, v[170] = {0}, buf[512];
    mb_ctx c = {.prev = prev, .vsize = 170};
    mb_reset(&c);
    v[40] = 1;
    v[41] = 2;
    v[42] = 3;
    mb_rec r = {.type = MB_STATE, .tid = 5, .choice = 0, .pidx = 0};
    CHECK_EQ_INT(mb_put(&c, buf, &r, v), 9);
    r.pidx = 1;
    CHECK_EQ_INT(mb_put(&c, buf, &r, v), 4);
    mb_rec s = {.type = MB_SET, .pidx = 9};
    CHECK_EQ_INT(mb_put(&c, buf, &s, NULL), 2);
    mb_rec dp = {.type = MB_DEPTH, .pidx = 38000}; /* a depth: the tag and a 3-byte varint */
    CHECK_EQ_INT(mb_put(&c, buf, &dp, NULL), 4);
    /* the first record of a batch: every nonzero byte */
    memset(v, 7, sizeof v);
    mb_reset(&c);
    CHECK_EQ_INT(mb_put(&c, buf, &r, v), 1 + 1 + 1 + 1 + 1 + 2 + 170);
    /* a record with more than 127 runs moves its run count up a byte */
    uint8_t big[1200] = {0}, bprev[1200], bv[1200] = {0}, out[8192];
    mb_ctx b = {.prev = bprev, .vsize = 1200}, d = {.prev = big, .vsize = 1200};
    mb_reset(&b);
    for (size_t i = 0; i < 1200; i += 4) bv[i] = 1; /* 300 runs */
    size_t k = mb_put(&b, out, &r, bv);
    CHECK_EQ_INT(k, 3 + 2 + 300 * 3);
    mb_rec g;
    mb_reset(&d);
    CHECK_EQ_INT(mb_get(&d, out, k, &g), k);
    CHECK(!memcmp(big, bv, sizeof bv));
}

static void refused(void)
{
    uint8_t prev[16], v[16], buf[128], dprev[16];
    mb_ctx c = {.prev = prev, .vsize = 16}, d = {.prev = dprev, .vsize = 16};
    mb_reset(&c);
    for (int i = 0; i < 16; i++) v[i] = (uint8_t)(i + 1);
    mb_rec r = {.type = MB_ERROR, .tid = 3, .choice = 300, .pidx = 1ull << 40};
    size_t n = mb_put(&c, buf, &r, v);
    mb_rec g;
    for (size_t cut = 0; cut < n; cut++) { /* cut short anywhere */
        mb_reset(&d);
        CHECK_EQ_INT(mb_get(&d, buf, cut, &g), 0);
    }
    /* a run past the vector: one run of 17 bytes */
    uint8_t bad[] = {MB_STATE, 0, 0, 1, 0, 17};
    mb_reset(&d);
    CHECK_EQ_INT(mb_get(&d, bad, sizeof bad, &g), 0);
    /* a type 0 or 5, an 11-byte varint */
    uint8_t zero[] = {0, 0, 0, 0}, five[] = {5, 0, 0, 0};
    CHECK_EQ_INT(mb_get(&d, zero, sizeof zero, &g), 0);
    CHECK_EQ_INT(mb_get(&d, five, sizeof five, &g), 0);
    uint8_t longv[12];
    memset(longv, 0x81, sizeof longv);
    CHECK_EQ_INT(mb_get(&d, longv, sizeof longv, &g), 0);
}

int main(void)
{
    TEST_RUN(roundtrip);
    TEST_RUN(sizes);
    TEST_RUN(refused);
    return test_finish();
}
