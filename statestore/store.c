/* store.c: the store.h interface: validates the configuration, dispatches
 * to the kind (compact.c, exact.c, bitstate.c), reports the statistics and
 * the omission probabilities. It holds no global state. The memory
 * accounting every allocation goes through is memstat.c, which the kinds
 * call: the kinds never call back into this file.
 * Omission formulas: docs/statestore.md (birthday bound for hash
 * compaction, after Wolper & Leroy 1993 and Stern & Dill 1995). */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>

store *store_new(const store_config *cfg, size_t vec_bytes)
{
    if (!cfg) return NULL;
    store *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    if (!store_init_part(st, cfg, vec_bytes, 0, false, store_alloc_cost(sizeof *st))) {
        free(st);
        return NULL;
    }
    return st;
}

/* Exact chunks of a shard: 64 KiB / 2^shard_bits, at least 4 KiB, so the
 * slack of the last chunk of every shard stays small next to the states. */
static size_t exact_chunk_target(unsigned shard_bits)
{
    size_t t = ((size_t)64 << 10) >> shard_bits;
    return t < ((size_t)4 << 10) ? (size_t)4 << 10 : t;
}

bool store_init_part(store *st, const store_config *cfg, size_t vec_bytes, unsigned shard_bits,
                     bool small_start, size_t self_bytes)
{
    st->kind = cfg->kind;
    st->vec_bytes = vec_bytes;
    st->self_bytes = self_bytes;
    st->mem.bytes = self_bytes;
    bool ok = false;
    switch (cfg->kind) {
    case STORE_COMPACT:
        ok = (cfg->fingerprint_bits == 64 || cfg->fingerprint_bits == 128) &&
             compact_init(st, cfg->fingerprint_bits == 128, shard_bits, small_start);
        break;
    case STORE_EXACT:
        ok = exact_init(st, shard_bits ? exact_chunk_target(shard_bits) : 0);
        break;
    case STORE_BITSTATE:
        ok = bitstate_init(st, cfg->bitstate_bytes, cfg->bitstate_k ? cfg->bitstate_k : 3);
        break;
    }
    return ok;
}

void store_fini(store *st)
{
    switch (st->kind) {
    case STORE_COMPACT: compact_free(st); break;
    case STORE_EXACT: exact_free(st); break;
    case STORE_BITSTATE: bitstate_free(st); break;
    }
}

void store_free(store *st)
{
    if (!st) return;
    store_fini(st);
    free(st);
}

static bool takes_hash(const store *st)
{
    return st->kind == STORE_COMPACT && !st->u.compact.wide;
}

bool store_takes_hash(const store *st)
{
    return takes_hash(st);
}

uint64_t store_hash(const store *st, const void *vec)
{
    return takes_hash(st) ? store_vec_hash64(st, vec) : 0;
}

void store_prefetch_index(const store *st, uint64_t hash)
{
    if (takes_hash(st)) compact_prefetch_index64(st, hash);
}

void store_prefetch(const store *st, uint64_t hash, bool likely_new)
{
    if (takes_hash(st)) compact_prefetch64(st, hash, likely_new);
}

store_result store_insert_prepared(store *st, const void *vec, uint64_t hash)
{
    if (!takes_hash(st)) return store_insert(st, vec);
    return compact_insert64(st, vec, hash);
}

store_result store_insert(store *st, const void *vec)
{
    switch (st->kind) {
    case STORE_COMPACT: return compact_insert(st, vec);
    case STORE_EXACT: return exact_insert(st, vec);
    case STORE_BITSTATE: return bitstate_insert(st, vec);
    }
    return STORE_FULL;
}

bool store_contains(const store *st, const void *vec)
{
    switch (st->kind) {
    case STORE_COMPACT: return compact_contains(st, vec);
    case STORE_EXACT: return exact_contains(st, vec);
    case STORE_BITSTATE: return bitstate_contains(st, vec);
    }
    return false;
}

uint64_t store_count(const store *st)
{
    return st->count;
}

size_t store_bytes(const store *st)
{
    return st->mem.bytes + (st->kind == STORE_EXACT ? exact_judy_bytes(st) : 0);
}

/* Hash compaction with b-bit fingerprints stored losslessly (some bits are
 * the bucket, the rest are in the entry): the i-th new state is lost when
 * its fingerprint equals one of the i earlier ones, probability i / 2^b.
 * P(no omission in n) = prod (1 - i/2^b) ~ exp(-n(n-1) / 2^(b+1)), so
 * P(some omission) = 1 - exp(-n(n-1)/2^(b+1)) <= n(n-1)/2^(b+1). expm1 and
 * ldexp keep it exact for 128 bits, where the exponent is ~1e-20. */
double compact_omission_probability(uint64_t n, unsigned bits)
{
    if (n < 2) return 0.0;
    double pairs = (double)n * (double)(n - 1);
    return -expm1(-ldexp(pairs, -(int)bits - 1));
}

double store_omission_probability(const store *st)
{
    switch (st->kind) {
    case STORE_COMPACT:
        return compact_omission_probability(st->count, st->u.compact.wide ? 128 : 64);
    case STORE_EXACT: return 0.0;
    case STORE_BITSTATE: return bitstate_omission_estimate(st);
    }
    return 0.0;
}

const char *store_kind_name(store_kind k)
{
    switch (k) {
    case STORE_COMPACT: return "compact";
    case STORE_EXACT: return "exact";
    case STORE_BITSTATE: return "bitstate";
    }
    return "?";
}

uint64_t store_hash64(const void *vec, size_t n)
{
    return XXH3_64bits(vec, n);
}

void store_set_hash_for_testing(store *st, store_hash_fn *fn)
{
    st->hash64 = fn;
}

void store_set_memory_limit(store *st, size_t bytes)
{
    st->mem.limit = bytes;
}

bool store_check(const store *st)
{
    switch (st->kind) {
    case STORE_COMPACT: return compact_check(st);
    case STORE_EXACT: return exact_check(st);
    case STORE_BITSTATE: return true;
    }
    return false;
}

void store_set_compact_split_average(store *st, uint32_t avg)
{
    if (st->kind == STORE_COMPACT) compact_set_split_average(st, avg);
}

unsigned store_compact_level(const store *st)
{
    return st->kind == STORE_COMPACT ? st->u.compact.level : 0;
}
