/* shared.c: sstore, the visited-state set shared by the threads of a
 * parallel search. States are partitioned by fingerprint into 2^k shards
 * (shard = the low k bits of the 64-bit XXH3), each an ordinary store of
 * the configured kind behind its own lock, the design of SPIN's and
 * LTSmin's distributed stores (Stern & Dill, "Parallelizing the Murphi
 * verifier", CAV 1997: a state's owner is a hash of it), so that threads
 * and MPI ranks can share one partitioning. A 64-bit compact shard stores
 * hash >> k: the shard bits are implied, as quotienting implies the bucket
 * bits. A compact shard's buckets come from an allocator of its own
 * (pool.c), so no insert calls malloc. Not here: lock-free insertion,
 * resizing the number of shards, deletion; docs/statestore.md has the
 * measurements. */
#include "store_int.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SSTORE_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define SSTORE_PAUSE() __asm__ __volatile__("yield")
#else
#define SSTORE_PAUSE() ((void)0)
#endif

#define SSTORE_LINE 64 /* cache line: one shard a line, no false sharing */

/* One shard: its lock (1: held), a copy of its store's count that readers
 * may load without the lock (written under it), and the store itself,
 * inside the shard's lines (one block for all shards: no malloc header
 * per shard, and lock and store are neighbours, not a page apart).
 * Invariant: count == st.count whenever the lock is free. */
typedef struct shard {
    _Alignas(SSTORE_LINE) _Atomic int lock;
    _Atomic uint64_t count;
    store st;
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

/* The lock: an atomic exchange to take it, a release store to give it back
 * (x86: one locked instruction and a plain move, 7 ns uncontended here; a
 * glibc mutex, adaptive or not, takes two locked instructions, 13.5 ns,
 * and the search calls this once a transition). A waiter spins on a plain
 * load for a short while (a critical section is ~100 ns), then yields its
 * core, so a holder that was descheduled (more threads than cores) gets
 * it back instead of waiting out the spinners' time slices. No futex: the
 * unlocker would need a second atomic operation to see whether to wake. */
#define SSTORE_SPINS 128

static inline void shard_lock(shard *sh)
{
    while (atomic_exchange_explicit(&sh->lock, 1, memory_order_acquire)) {
        for (unsigned i = 0; atomic_load_explicit(&sh->lock, memory_order_relaxed); i++) {
            if (i < SSTORE_SPINS) SSTORE_PAUSE();
            else sched_yield();
        }
    }
}

static inline void shard_unlock(shard *sh)
{
    atomic_store_explicit(&sh->lock, 0, memory_order_release);
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
        if (!store_init_part(&sh->st, &c, vec_bytes, shard_bits, shard_bits > 0, 0)) break;
        if (c.kind == STORE_COMPACT && !compact_use_pool(&sh->st)) {
            store_fini(&sh->st);
            break;
        }
        atomic_init(&sh->lock, 0);
        atomic_init(&sh->count, 0);
        total += store_bytes(&sh->st);
    }
    if (made < n) {
        for (size_t i = 0; i < made; i++) store_fini(&s->shards[i].st);
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
    for (uint64_t i = 0; i <= s->mask; i++) store_fini(&s->shards[i].st);
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
    __builtin_prefetch((const char *)sh + SSTORE_LINE); /* the compact set's fields */
#endif
    if (s->kind == STORE_COMPACT && !s->wide)
        compact_prefetch_index64_unlocked(&sh->st, hash >> s->shard_bits);
}

/* store_bytes() of a shard, inline for the kinds without Judy. */
static inline size_t shard_bytes(const sstore *s, const store *st)
{
    return s->kind == STORE_EXACT ? store_bytes(st) : st->mem.bytes;
}

/* The second stage finds the bucket through the table, which only the
 * lock holder may read (a split may free it): a try of the lock, one
 * atomic exchange, and nothing at all if another thread holds it. */
void sstore_prefetch_entries(sstore *s, uint64_t hash, bool likely_new)
{
    if (s->kind != STORE_COMPACT || s->wide) return;
    shard *sh = &s->shards[hash & s->mask];
    if (atomic_load_explicit(&sh->lock, memory_order_relaxed) ||
        atomic_exchange_explicit(&sh->lock, 1, memory_order_acquire))
        return;
    compact_prefetch64(&sh->st, hash >> s->shard_bits, likely_new);
    shard_unlock(sh);
}

store_result sstore_insert(sstore *s, const void *vec, uint64_t hash)
{
    shard *sh = &s->shards[hash & s->mask];
    shard_lock(sh);
    store *st = &sh->st;
    size_t before = shard_bytes(s, st);
    size_t limit = atomic_load_explicit(&s->limit, memory_order_relaxed);
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
    size_t after = shard_bytes(s, st);
    if (after != before) /* a decrease wraps around, as it should */
        atomic_fetch_add_explicit(&s->bytes, after - before, memory_order_relaxed);
    if (r == STORE_ADDED) atomic_store_explicit(&sh->count, st->count, memory_order_relaxed);
    shard_unlock(sh);
    return r;
}

bool sstore_contains(const sstore *s, const void *vec)
{
    shard *sh = &s->shards[sstore_hash(s, vec) & s->mask];
    shard_lock(sh);
    bool r = store_contains(&sh->st, vec);
    shard_unlock(sh);
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
 * the same shard (k bits of the 64-bit hash) and the same stored 128 - k
 * bits of the XXH3_128: 128 bits of two hashes, the same formula.
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
            shard_lock(sh);
            omitted += sh->st.u.bitstate.omitted;
            n += (double)sh->st.count;
            shard_unlock(sh);
        }
        return n + omitted > 0 ? omitted / (n + omitted) : 0.0;
    }
    }
    return 0.0;
}

void sstore_set_memory_limit(sstore *s, size_t bytes)
{
    atomic_store_explicit(&s->limit, bytes, memory_order_relaxed);
    if (bytes) return; /* inserts set the shards' limits from now on */
    for (uint64_t i = 0; i <= s->mask; i++) {
        shard_lock(&s->shards[i]);
        s->shards[i].st.mem.limit = 0;
        shard_unlock(&s->shards[i]);
    }
}

/* Every shard's store consistent (store_check), its published count equal
 * to its store's, and the running byte total equal to the sum. Call it
 * with no insert under way. */
bool sstore_check(const sstore *s)
{
    size_t bytes = sstore_own_bytes((unsigned)(s->mask + 1));
    for (uint64_t i = 0; i <= s->mask; i++) {
        const shard *sh = &s->shards[i];
        if (!store_check(&sh->st)) return false;
        if (atomic_load_explicit(&sh->count, memory_order_relaxed) != sh->st.count) return false;
        bytes += store_bytes(&sh->st);
    }
    return bytes == sstore_bytes(s);
}
