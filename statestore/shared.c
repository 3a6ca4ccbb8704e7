/* shared.c: sstore, the visited-state set shared by the threads of a
 * parallel search. States are partitioned by fingerprint into 2^k shards
 * (shard = the low k bits of the 64-bit XXH3), each an ordinary store of
 * the configured kind behind its own mutex, the design of SPIN's and
 * LTSmin's distributed stores (Stern & Dill, "Parallelizing the Murphi
 * verifier", CAV 1997: a state's owner is a hash of it), so that threads
 * and MPI ranks can share one partitioning. A 64-bit compact shard stores
 * hash >> k: the shard bits are implied, as quotienting implies the bucket
 * bits. Not here: lock-free insertion, resizing the number of shards,
 * deletion; docs/statestore.md has the measurements. */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP (glibc) */
#include "store_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SSTORE_LINE 64 /* cache line: one shard a line, no false sharing */

/* One shard: its lock, its store, and a copy of the store's count that
 * readers may load without the lock (written under it). Invariant: count
 * == st->count whenever the lock is free. */
typedef struct shard {
    _Alignas(SSTORE_LINE) pthread_mutex_t lock;
    store *st;
    _Atomic uint64_t count;
} shard;

struct sstore {
    store_kind kind;
    bool wide; /* 128-bit compact */
    size_t vec_bytes;
    unsigned shard_bits;
    uint64_t mask; /* 2^shard_bits - 1 */
    shard *shards;
    _Atomic size_t limit; /* test hook; 0: none */
    /* sum of store_bytes() over the shards plus this struct and the shard
     * array; its own line, as every thread adds to it */
    _Alignas(SSTORE_LINE) _Atomic size_t bytes;
};

/* An adaptive mutex spins briefly before sleeping in the kernel: cheap
 * when uncontended (an atomic exchange each way), no lost time slices
 * when a holder is descheduled (more threads than cores). */
static bool shard_lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a) != 0) return false;
#if defined(PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP)
    (void)pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    bool ok = pthread_mutex_init(m, &a) == 0;
    pthread_mutexattr_destroy(&a);
    return ok;
}

static size_t sstore_own_bytes(unsigned nshards)
{
    return store_alloc_cost(sizeof(sstore)) + store_alloc_cost((size_t)nshards * sizeof(shard));
}

sstore *sstore_new(const store_config *cfg, size_t vec_bytes, unsigned shard_bits)
{
    if (!cfg || shard_bits > SSTORE_MAX_SHARD_BITS || shard_bits > COMPACT_MAX_DROP_BITS)
        return NULL;
    size_t n = (size_t)1 << shard_bits;
    if (cfg->kind == STORE_BITSTATE && cfg->bitstate_bytes < n) return NULL;
    sstore *s = aligned_alloc(SSTORE_LINE, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->kind = cfg->kind;
    s->wide = cfg->kind == STORE_COMPACT && cfg->fingerprint_bits == 128;
    s->vec_bytes = vec_bytes;
    s->shard_bits = shard_bits;
    s->mask = n - 1;
    s->shards = aligned_alloc(SSTORE_LINE, n * sizeof(shard));
    if (!s->shards) {
        free(s);
        return NULL;
    }
    memset(s->shards, 0, n * sizeof(shard));
    size_t total = sstore_own_bytes((unsigned)n), made = 0;
    for (; made < n; made++) {
        shard *sh = &s->shards[made];
        store_config c = *cfg;
        if (c.kind == STORE_BITSTATE) /* spread the array, remainder to the first */
            c.bitstate_bytes = cfg->bitstate_bytes / n + (made < cfg->bitstate_bytes % n);
        sh->st = store_new_part(&c, vec_bytes, shard_bits, shard_bits > 0);
        if (!sh->st) break;
        if (!shard_lock_init(&sh->lock)) {
            store_free(sh->st);
            break;
        }
        total += store_bytes(sh->st);
    }
    if (made < n) {
        for (size_t i = 0; i < made; i++) {
            pthread_mutex_destroy(&s->shards[i].lock);
            store_free(s->shards[i].st);
        }
        free(s->shards);
        free(s);
        return NULL;
    }
    atomic_init(&s->bytes, total);
    return s;
}

void sstore_free(sstore *s)
{
    if (!s) return;
    for (uint64_t i = 0; i <= s->mask; i++) {
        pthread_mutex_destroy(&s->shards[i].lock);
        store_free(s->shards[i].st);
    }
    free(s->shards);
    free(s);
}

uint64_t sstore_hash(const sstore *s, const void *vec)
{
    return XXH3_64bits(vec, s->vec_bytes);
}

unsigned sstore_shard_of(const sstore *s, uint64_t hash)
{
    return (unsigned)(hash & s->mask);
}

unsigned sstore_shards(const sstore *s)
{
    return (unsigned)(s->mask + 1);
}

void sstore_prefetch(const sstore *s, uint64_t hash)
{
    const shard *sh = &s->shards[hash & s->mask];
#if defined(__GNUC__)
    __builtin_prefetch(sh, 1);
#endif
    if (s->kind == STORE_COMPACT && !s->wide)
        compact_prefetch_index64_unlocked(sh->st, hash >> s->shard_bits);
}

store_result sstore_insert(sstore *s, const void *vec, uint64_t hash)
{
    shard *sh = &s->shards[hash & s->mask];
    pthread_mutex_lock(&sh->lock);
    store *st = sh->st;
    size_t before = store_bytes(st);
    size_t limit = atomic_load_explicit(&s->limit, memory_order_relaxed);
    st->mem.limit = 0;
    if (limit) { /* this shard may take what the whole set has left */
        size_t total = atomic_load_explicit(&s->bytes, memory_order_relaxed);
        st->mem.limit = st->mem.bytes + (total < limit ? limit - total : 0);
    }
    store_result r = STORE_FULL;
    switch (s->kind) {
    case STORE_COMPACT:
        r = s->wide ? compact_insert(st, vec) : compact_insert64(st, vec, hash >> s->shard_bits);
        break;
    case STORE_EXACT: r = exact_insert_hashed(st, vec, hash); break;
    case STORE_BITSTATE: r = bitstate_insert(st, vec); break;
    }
    size_t after = store_bytes(st);
    if (after != before) /* a decrease wraps around, as it should */
        atomic_fetch_add_explicit(&s->bytes, after - before, memory_order_relaxed);
    if (r == STORE_ADDED) atomic_store_explicit(&sh->count, st->count, memory_order_relaxed);
    pthread_mutex_unlock(&sh->lock);
    return r;
}

bool sstore_contains(const sstore *s, const void *vec)
{
    shard *sh = &s->shards[sstore_hash(s, vec) & s->mask];
    pthread_mutex_lock(&sh->lock);
    bool r = store_contains(sh->st, vec);
    pthread_mutex_unlock(&sh->lock);
    return r;
}

uint64_t sstore_count(const sstore *s)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i <= s->mask; i++)
        n += atomic_load_explicit(&s->shards[i].count, memory_order_relaxed);
    return n;
}

size_t sstore_bytes(const sstore *s)
{
    return atomic_load_explicit(&s->bytes, memory_order_relaxed);
}

/* compact: one shard and one fingerprint is one state, so an omission is a
 * collision of the whole 64-bit hash (shard bits and stored bits), as in
 * the single store: the same birthday formula. 128 bits: a collision needs
 * the same shard and the same XXH3_128, so the 128-bit formula is a bound.
 * bitstate: every shard is a bit array of its own, filled by its share of
 * the states; the expected omissions add up (store.c's estimate, summed). */
double sstore_omission_probability(const sstore *s)
{
    switch (s->kind) {
    case STORE_COMPACT: return compact_omission_probability(sstore_count(s), s->wide ? 128 : 64);
    case STORE_EXACT: return 0.0;
    case STORE_BITSTATE: {
        double omitted = 0, n = 0;
        for (uint64_t i = 0; i <= s->mask; i++) {
            shard *sh = &s->shards[i];
            pthread_mutex_lock(&sh->lock);
            omitted += sh->st->u.bitstate.omitted;
            n += (double)sh->st->count;
            pthread_mutex_unlock(&sh->lock);
        }
        return n + omitted > 0 ? omitted / (n + omitted) : 0.0;
    }
    }
    return 0.0;
}

void sstore_set_memory_limit(sstore *s, size_t bytes)
{
    atomic_store_explicit(&s->limit, bytes, memory_order_relaxed);
}
