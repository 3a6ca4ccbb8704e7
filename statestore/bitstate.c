/* bitstate.c: Holzmann's supertrace (bitstate hashing, "An analysis of
 * bitstate hashing", FMSD 1998): a state is k bits in an array of m bits,
 * and is taken as seen when all k are set, so a new state whose bits were
 * all set by others is omitted. The k positions come from one XXH3_128bits
 * by enhanced double hashing (Dillinger & Manolios, "Bloom filters in
 * probabilistic verification", FMCAD 2004): x = h1 mod m, y = h2 mod m,
 * probe x, then x += y, y += i. m is exactly bitstate_bytes * 8 (no
 * rounding: positions are reduced mod m). The omission estimate is in
 * docs/statestore.md. Not here: resizing (the array is fixed), exact
 * coverage (only an estimate is possible). */
#include "store_int.h"

#define BITSTATE_MAX_K 64
#define BITSTATE_MAX_BYTES ((uint64_t)1 << 60)

/* The k bit positions of vec, by enhanced double hashing. */
static void bitstate_positions(const bitstate_set *bs, const void *vec, size_t n, uint64_t *pos)
{
    XXH128_hash_t h = XXH3_128bits(vec, n);
    uint64_t x = h.low64 % bs->m, y = h.high64 % bs->m;
    for (unsigned i = 0; i < bs->k; i++) {
        pos[i] = x;
        x += y; /* x, y < m <= 2^63: no overflow */
        if (x >= bs->m) x -= bs->m;
        y += i;
        while (y >= bs->m) y -= bs->m; /* once, unless m < k */
    }
}

static inline bool bit_is_set(const uint8_t *bits, uint64_t pos)
{
    return bits[pos >> 3] >> (pos & 7) & 1;
}

bool bitstate_init(store *st, uint64_t bytes, unsigned k)
{
    bitstate_set *bs = &st->u.bitstate;
    if (bytes == 0 || bytes > BITSTATE_MAX_BYTES || bytes > SIZE_MAX || k > BITSTATE_MAX_K)
        return false;
    bs->bits = store_mem_alloc(&st->mem, (size_t)bytes, true);
    bs->m = bytes * 8;
    bs->k = k;
    return bs->bits != NULL;
}

/* (set_bits / m)^k: the chance that a new state finds all its bits set. */
static double bitstate_fill_power(const bitstate_set *bs)
{
    double fill = (double)bs->set_bits / (double)bs->m, q = 1.0;
    for (unsigned i = 0; i < bs->k; i++) q *= fill;
    return q;
}

store_result bitstate_insert(store *st, const void *vec)
{
    bitstate_set *bs = &st->u.bitstate;
    double q = bitstate_fill_power(bs);
    uint64_t pos[BITSTATE_MAX_K], newly_set = 0;
    bitstate_positions(bs, vec, st->vec_bytes, pos);
    for (unsigned i = 0; i < bs->k; i++) {
        if (!bit_is_set(bs->bits, pos[i])) {
            bs->bits[pos[i] >> 3] |= (uint8_t)(1u << (pos[i] & 7));
            newly_set++;
        }
    }
    if (!newly_set) return STORE_PRESENT;
    bs->set_bits += newly_set;
    /* new states omitted since the last add: geometric, q fixed meanwhile */
    bs->omitted += q / (1.0 - q);
    st->count++;
    return STORE_ADDED;
}

bool bitstate_contains(const store *st, const void *vec)
{
    const bitstate_set *bs = &st->u.bitstate;
    uint64_t pos[BITSTATE_MAX_K];
    bitstate_positions(bs, vec, st->vec_bytes, pos);
    for (unsigned i = 0; i < bs->k; i++)
        if (!bit_is_set(bs->bits, pos[i])) return false;
    return true;
}

void bitstate_free(store *st)
{
    bitstate_set *bs = &st->u.bitstate;
    store_mem_free(&st->mem, bs->bits, (size_t)(bs->m / 8));
    bs->bits = NULL;
}

double bitstate_omission_estimate(const store *st)
{
    const bitstate_set *bs = &st->u.bitstate;
    double n = (double)st->count;
    return n + bs->omitted > 0 ? bs->omitted / (n + bs->omitted) : 0.0;
}
