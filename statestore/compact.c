/* compact.c: hash compaction (Wolper & Leroy 1993; Stern & Dill 1995): a
 * state is stored as its 64- or 128-bit XXH3 fingerprint, and two states
 * with one fingerprint are taken as one.
 *
 * Layout: quotienting (Cleary's compact hash tables) over linear hashing
 * (Litwin 1980). The low `level` bits of the fingerprint's first word pick
 * the bucket and are not stored; a bucket is a sorted array of the other
 * 64 - level bits in ceil((64 - level) / 8) bytes (plus the second word, 8
 * bytes, for 128-bit fingerprints). Lookup guesses the position from the
 * value (fingerprints are uniform) and scans from there; insertion is a
 * memmove. When the average bucket passes split_avg one bucket splits in two
 * on its lowest stored bit, so the structure grows a bucket at a time: no
 * rebuild pause, no transient copy, freed memory reused at once. At 1e6
 * states: 7.4 bytes a state counted, 8.7 resident (Judy1: 8.3, 10.0);
 * measurements and tuning: docs/statestore.md.
 * A part of a sharded store (shared.c) is given fingerprints with fewer
 * significant bits in the first word (drop_bits of them dropped: the
 * 64-bit ones are implied by the shard; for 128 bits the shard's bits of
 * the 64-bit hash take their place), and stores only those, as it does
 * not store its bucket bits.
 * Not here: deletion, concurrency (shared.c locks each shard; the few
 * fields its prefetch reads unlocked are written with relaxed atomics). */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE (Linux): a hint for the bucket table */
#include "store_int.h"

#include <stdint.h>
#include <sys/mman.h>

#ifndef COMPACT_SPLIT_AVG
#define COMPACT_SPLIT_AVG 128 /* split when the average bucket passes this */
#endif
#ifndef COMPACT_GROWTH_SHIFT
#define COMPACT_GROWTH_SHIFT 5 /* a full bucket grows by 1/2^shift, plus 4 */
#endif
#define COMPACT_MIN_LEVEL 4
#define COMPACT_MAX_LEVEL 48 /* 2^48 buckets: never reached in practice */
#define COMPACT_MIN_REM_BITS 16 /* a level never leaves fewer stored bits */

typedef struct fingerprint {
    uint64_t hi; /* bucket bits and remainder */
    uint64_t lo; /* 128 bits: the second word, stored whole; 64 bits: 0 */
} fingerprint;

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Writes the low nbytes of v at p. The 8 bytes at p must lie inside the
 * block (every entry may be loaded as 8 bytes: see bucket_block_bytes), so
 * the write is a load, a merge and a store rather than a memcpy of a
 * variable length; the bytes past nbytes keep their value. */
static inline void store_le(uint8_t *p, uint64_t v, unsigned nbytes)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (unsigned i = 0; i < nbytes; i++) p[i] = (uint8_t)(v >> (8 * i));
#else
    if (nbytes < 8) {
        uint64_t keep = ~(uint64_t)0 << (8 * nbytes), old;
        memcpy(&old, p, 8);
        v = (v & ~keep) | (old & keep);
    }
    memcpy(p, &v, 8);
#endif
}

/* hi_bits: significant bits of the first word (64 - drop_bits). */
static compact_layout layout_for(unsigned level, unsigned hi_bits, bool wide)
{
    compact_layout l;
    l.level = level;
    l.rem_bits = hi_bits - level;
    l.rem_bytes = (l.rem_bits + 7) / 8;
    l.entry_bytes = l.rem_bytes + (wide ? 8 : 0);
    l.rem_mask = ~(uint64_t)0 >> (64 - l.rem_bits);
    return l;
}

/* The fields the unlocked prefetch of a shared store reads (shared.c):
 * written with relaxed atomics (plain moves on the usual targets) so that
 * read is no data race. Everything else is touched under the shard lock. */
#define SET_RELAXED(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

/* Sets everything that follows from (level, split_next). */
static void compact_set_shape(compact_set *cs, unsigned level, size_t split_next)
{
    unsigned hi_bits = 64 - cs->drop_bits;
    SET_RELAXED(cs->level, level);
    SET_RELAXED(cs->split_next, split_next);
    cs->lay[0] = layout_for(level, hi_bits, cs->wide);
    cs->lay[1] = layout_for(level + 1, hi_bits, cs->wide);
    size_t nb = ((size_t)1 << level) + split_next;
    bool may_grow = level < COMPACT_MAX_LEVEL && level + 1 + COMPACT_MIN_REM_BITS <= hi_bits;
    cs->split_at = may_grow ? (uint64_t)cs->split_avg * nb : UINT64_MAX;
}

static size_t compact_buckets(const compact_set *cs)
{
    return ((size_t)1 << cs->level) + cs->split_next;
}

/* Linear hashing: buckets below split_next have split already and use one
 * more bit, as do those at 2^level and above (their new halves). */
static inline size_t bucket_index(const compact_set *cs, uint64_t hi)
{
    size_t b = (size_t)(hi & (((uint64_t)1 << cs->level) - 1));
    if (b < cs->split_next) b = (size_t)(hi & (((uint64_t)2 << cs->level) - 1));
    return b;
}

static inline const compact_layout *bucket_layout(const compact_set *cs, size_t b)
{
    return &cs->lay[b < cs->split_next || b >> cs->level];
}

static inline fingerprint fingerprint_of(const store *st, const void *vec)
{
    if (st->u.compact.wide) {
        XXH128_hash_t h = XXH3_128bits(vec, st->vec_bytes);
        return (fingerprint){h.high64 >> st->u.compact.drop_bits, h.low64};
    }
    return (fingerprint){store_vec_hash64(st, vec) >> st->u.compact.drop_bits, 0};
}

static inline uint64_t entry_rem(const compact_layout *l, const uint8_t *e)
{
    return load_le64(e) & l->rem_mask;
}

static inline uint64_t entry_lo(const compact_layout *l, const uint8_t *e)
{
    return l->entry_bytes > l->rem_bytes ? load_le64(e + l->rem_bytes) : 0;
}

/* <0, 0, >0 as the entry at e is below, equal to, above (rem, lo). */
static inline int entry_cmp(const compact_layout *l, const uint8_t *e, uint64_t rem, uint64_t lo)
{
    uint64_t r = entry_rem(l, e);
    if (r != rem) return r < rem ? -1 : 1;
    uint64_t el = entry_lo(l, e);
    return (el > lo) - (el < lo);
}

static inline void entry_write(const compact_layout *l, uint8_t *e, uint64_t rem, uint64_t lo)
{
    store_le(e, rem, l->rem_bytes);
    if (l->entry_bytes > l->rem_bytes) store_le(e + l->rem_bytes, lo, 8);
}

/* Where remainder rem would sit among n uniform entries: the top 32 bits
 * of its (64 - level)-bit value, scaled to n. */
static inline uint32_t interpolate(const compact_layout *l, uint64_t rem, uint32_t n)
{
    unsigned rem_bits = l->rem_bits;
    uint64_t top32 = rem_bits >= 32 ? rem >> (rem_bits - 32) : rem << (32 - rem_bits);
    return (uint32_t)((top32 * n) >> 32);
}

/* First position in the bucket whose entry is >= (rem, lo). The remainders
 * are uniform, so rem / 2^(64 - level) * n is within a few entries of the
 * answer (interpolation); scan from there. Any distribution stays correct,
 * only slower. */
static uint32_t bucket_lower_bound(const compact_layout *l, const compact_bucket *b,
                                   uint64_t rem, uint64_t lo)
{
    uint32_t n = b->n;
    if (n == 0) return 0;
    uint32_t i = interpolate(l, rem, n);
    const uint8_t *d = b->data;
    size_t w = l->entry_bytes;
    if (entry_cmp(l, d + i * w, rem, lo) < 0) {
        do i++;
        while (i < n && entry_cmp(l, d + i * w, rem, lo) < 0);
    } else {
        while (i > 0 && entry_cmp(l, d + (size_t)(i - 1) * w, rem, lo) >= 0) i--;
    }
    return i;
}

/* Block bytes for cap entries: an 8-byte load at the last entry must stay
 * inside, hence the pad when entries are narrower than 8 bytes. */
static size_t bucket_block_bytes(uint32_t cap, unsigned entry_bytes)
{
    return cap ? (size_t)cap * entry_bytes + (entry_bytes < 8 ? 8 - entry_bytes : 0) : 0;
}

/* The most entries a block of `bytes` holds. */
static uint32_t bucket_cap_in(size_t bytes, unsigned entry_bytes)
{
    size_t pad = entry_bytes < 8 ? 8 - entry_bytes : 0;
    size_t cap = bytes > pad ? (bytes - pad) / entry_bytes : 0;
    return cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
}

/* A capacity of at least `want` entries that fills its malloc block. */
static uint32_t bucket_cap_for(uint64_t want, unsigned entry_bytes)
{
    if (want == 0) return 0;
    if (want > UINT32_MAX) want = UINT32_MAX;
    size_t block = bucket_block_bytes((uint32_t)want, entry_bytes);
    return bucket_cap_in(store_alloc_cost(block) - 8, entry_bytes);
}

/* Resizes b's block from old_bytes to hold new_cap entries of entry_bytes;
 * false (b unchanged) if memory is short. */
/* The pool's callbacks: a block's owner is its bucket's index. */
static void bucket_moved(void *ctx, uint64_t owner, void *data)
{
    ((compact_set *)ctx)->tab[owner].data = data;
}

static bool bucket_owns(const void *ctx, uint64_t owner, const void *data)
{
    const compact_set *cs = ctx;
    return owner < compact_buckets(cs) && cs->tab[owner].data == data;
}

static bool bucket_resize(store *st, compact_bucket *b, size_t old_bytes, uint32_t new_cap,
                          unsigned entry_bytes)
{
    size_t new_bytes = bucket_block_bytes(new_cap, entry_bytes);
    store_pool *pool = st->u.compact.pool;
    uint8_t *d;
    if (pool) { /* its blocks cost what malloc's would: same capacities */
        if (new_bytes == 0) {
            store_pool_release(pool, b->data);
            d = NULL;
        } else if (!b->data) {
            d = store_pool_alloc(&st->mem, pool, new_bytes, (uint64_t)(b - st->u.compact.tab));
        } else {
            d = store_pool_realloc(&st->mem, pool, b->data, new_bytes);
        }
    } else if (new_bytes == 0) {
        store_mem_free(&st->mem, b->data, old_bytes);
        d = NULL;
    } else if (!b->data) {
        d = store_mem_alloc(&st->mem, new_bytes, false);
    } else {
        d = store_mem_realloc(&st->mem, b->data, old_bytes, new_bytes);
    }
    if (!d && new_bytes) return false;
    b->data = d;
    b->cap = new_cap;
    return true;
}

static bool bucket_grow(store *st, compact_bucket *b, unsigned entry_bytes)
{
    if (b->cap == UINT32_MAX) return false;
    uint64_t want = (uint64_t)b->cap + (b->cap >> COMPACT_GROWTH_SHIFT) + 4;
    uint32_t cap = bucket_cap_for(want, entry_bytes);
    store_pool *pool = st->u.compact.pool;
    if (pool && store_pool_fragmented(pool) &&
        !store_pool_fits(pool, b->data, bucket_block_bytes(cap, entry_bytes)))
        store_pool_compact(pool, bucket_moved, &st->u.compact); /* rather than a new chunk */
    return bucket_resize(st, b, bucket_block_bytes(b->cap, entry_bytes), cap, entry_bytes);
}

/* Table room for the buckets of the next level, before a round starts. */
static bool compact_table_reserve(store *st, size_t want)
{
    compact_set *cs = &st->u.compact;
    if (want <= cs->tab_cap) return true;
    compact_bucket *t = store_mem_realloc(&st->mem, cs->tab, cs->tab_cap * sizeof *t,
                                          want * sizeof *t);
    if (!t) return false;
    memset(t + cs->tab_cap, 0, (want - cs->tab_cap) * sizeof *t);
    SET_RELAXED(cs->tab, t);
    cs->tab_cap = want;
#if defined(MADV_HUGEPAGE)
    /* every lookup reads a random entry: with huge pages, without a TLB miss */
    size_t bytes = want * sizeof *t;
    if (bytes >= (size_t)4 << 20) {
        uintptr_t a = ((uintptr_t)t + 4095) & ~(uintptr_t)4095;
        uintptr_t e = ((uintptr_t)t + bytes) & ~(uintptr_t)4095;
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* a hint: failure is fine */
    }
#endif
    return true;
}

/* Splits bucket split_next (level L) into itself and split_next + 2^L (both
 * level L + 1) on the lowest stored bit. Entries keep their order in both
 * halves (dropping that bit is monotonic); the lower half is recoded in
 * place (entries only shrink or stay), the upper half goes to a new block
 * allocated first, so running out of memory changes nothing: the split is
 * then retried after 1/8 more states. */
static void compact_split_one(store *st)
{
    compact_set *cs = &st->u.compact;
    size_t s = cs->split_next, t = s + ((size_t)1 << cs->level);
    const compact_layout *from = &cs->lay[0], *to = &cs->lay[1];
    if (!compact_table_reserve(st, (size_t)2 << cs->level)) goto out_of_memory;
    compact_bucket *old = &cs->tab[s], *upper = &cs->tab[t];
    size_t wf = from->entry_bytes, wt = to->entry_bytes;
    uint32_t ones = 0;
    for (uint32_t j = 0; j < old->n; j++) ones += entry_rem(from, old->data + j * wf) & 1;
    if (!bucket_resize(st, upper, 0, bucket_cap_for(ones, (unsigned)wt), (unsigned)wt))
        goto out_of_memory;
    uint32_t n0 = 0, n1 = 0;
    for (uint32_t j = 0; j < old->n; j++) {
        const uint8_t *e = old->data + j * wf;
        uint64_t rem = entry_rem(from, e), lo = entry_lo(from, e);
        if (rem & 1) entry_write(to, upper->data + (n1++) * wt, rem >> 1, lo);
        else entry_write(to, old->data + (n0++) * wt, rem >> 1, lo);
    }
    upper->n = n1;
    size_t old_bytes = bucket_block_bytes(old->cap, (unsigned)wf);
    old->n = n0;
    old->cap = bucket_cap_in(old_bytes, (unsigned)wt); /* what the block holds now */
    /* shrink to fit; if even that fails the block stays, still valid */
    bucket_resize(st, old, old_bytes, bucket_cap_for(n0, (unsigned)wt), (unsigned)wt);
    if (s + 1 == ((size_t)1 << cs->level)) compact_set_shape(cs, cs->level + 1, 0);
    else compact_set_shape(cs, cs->level, s + 1);
    return;
out_of_memory:
    cs->split_at = st->count + st->count / 8;
}

bool compact_init(store *st, bool wide, unsigned drop_bits, bool small_start)
{
    compact_set *cs = &st->u.compact;
    unsigned level = small_start ? 0 : COMPACT_MIN_LEVEL;
    if (drop_bits > COMPACT_MAX_DROP_BITS) return false;
    cs->wide = wide;
    cs->drop_bits = drop_bits;
    cs->split_avg = COMPACT_SPLIT_AVG;
    compact_set_shape(cs, level, 0);
    return compact_table_reserve(st, (size_t)2 << level);
}

/* compact_prefetch_index64() for a store other threads may be changing
 * (a shard of shared.c, its lock not held): reads the table pointer and
 * the shape with relaxed atomics, which may be stale or of two shapes; the
 * address is then wrong or freed, harmless for a prefetch, which never
 * faults. The entries themselves (second load) are not prefetched: that
 * would read the table entry, which may be freed memory. */
void compact_prefetch_index64_unlocked(const store *st, uint64_t hash)
{
#if defined(__GNUC__)
    const compact_set *cs = &st->u.compact;
    const compact_bucket *tab = __atomic_load_n(&cs->tab, __ATOMIC_RELAXED);
    unsigned level = __atomic_load_n(&cs->level, __ATOMIC_RELAXED) & 63;
    size_t split_next = __atomic_load_n(&cs->split_next, __ATOMIC_RELAXED);
    size_t b = (size_t)(hash & (((uint64_t)1 << level) - 1));
    if (b < split_next) b = (size_t)(hash & (((uint64_t)2 << level) - 1));
    __builtin_prefetch((const void *)((uintptr_t)tab + b * sizeof *tab));
#else
    (void)st;
    (void)hash;
#endif
}

/* bucket_lower_bound() for 64-bit fingerprints (entries hold only the
 * remainder): one masked load and compare per entry scanned. */
static inline uint32_t bucket_lower_bound64(const compact_layout *l, const compact_bucket *b,
                                            uint64_t rem)
{
    uint32_t n = b->n;
    if (n == 0) return 0;
    uint32_t i = interpolate(l, rem, n);
    const uint8_t *d = b->data;
    size_t w = l->entry_bytes;
    uint64_t mask = l->rem_mask;
    if ((load_le64(d + i * w) & mask) < rem) {
        do i++;
        while (i < n && (load_le64(d + i * w) & mask) < rem);
    } else {
        while (i > 0 && (load_le64(d + (size_t)(i - 1) * w) & mask) >= rem) i--;
    }
    return i;
}

/* The first of the two loads of compact_insert64(hash): the bucket's table
 * entry. For a batch of lookups: prefetch every entry first, then
 * compact_prefetch64() each (its own load of the entry then hits). */
void compact_prefetch_index64(const store *st, uint64_t hash)
{
#if defined(__GNUC__)
    const compact_set *cs = &st->u.compact;
    __builtin_prefetch(&cs->tab[bucket_index(cs, hash)]);
#else
    (void)st;
    (void)hash;
#endif
}

/* Start loading what compact_insert64(hash) will read first: the bucket
 * table entry and the entries around the interpolated position (the
 * prefetch of the latter waits for the former, but out of order, while the
 * caller goes on). The scan from the guess moves a few entries either way,
 * so the lines 32 bytes before and after it are loaded too (mostly the
 * same line). likely_new: the rest of the bucket as well, which an insert
 * moves up by an entry (half a bucket on average: about 6 lines at 128
 * entries of 6 bytes); its misses were a third of an insert's time. */
void compact_prefetch64(const store *st, uint64_t hash, bool likely_new)
{
    const compact_set *cs = &st->u.compact;
    size_t bi = bucket_index(cs, hash);
    const compact_bucket *b = &cs->tab[bi];
    const compact_layout *l = bucket_layout(cs, bi);
    uint64_t rem = hash >> l->level;
    uint32_t i = interpolate(l, rem, b->n);
#if defined(__GNUC__)
    if (b->data) {
        const uint8_t *e = b->data + (size_t)i * l->entry_bytes;
        __builtin_prefetch(e);
        if (i > 8) __builtin_prefetch(e - 32);
        if (i + 8 < b->n) __builtin_prefetch(e + 32);
        if (likely_new) {
            const uint8_t *end = b->data + (size_t)b->n * l->entry_bytes;
            for (const uint8_t *q = e + 64; q < end; q += 64) __builtin_prefetch(q);
        }
    }
#else
    (void)i;
    (void)likely_new;
#endif
}

/* compact_insert() for 64-bit fingerprints, given the hash. */
static inline store_result insert64(store *st, uint64_t hi)
{
    compact_set *cs = &st->u.compact;
    size_t bi = bucket_index(cs, hi);
    compact_bucket *b = &cs->tab[bi];
    const compact_layout *l = bucket_layout(cs, bi);
    uint64_t rem = hi >> l->level;
    uint32_t i = bucket_lower_bound64(l, b, rem);
    size_t w = l->entry_bytes;
    if (i < b->n && (load_le64(b->data + i * w) & l->rem_mask) == rem) return STORE_PRESENT;
    if (b->n == b->cap && !bucket_grow(st, b, (unsigned)w)) return STORE_FULL;
    uint8_t *e = b->data + i * w;
    memmove(e + w, e, (size_t)(b->n - i) * w);
    store_le(e, rem, l->rem_bytes);
    b->n++;
    if (++st->count > cs->split_at) compact_split_one(st);
    return STORE_ADDED;
}

store_result compact_insert64(store *st, const void *vec, uint64_t hash)
{
    (void)vec;
    return insert64(st, hash);
}

store_result compact_insert(store *st, const void *vec)
{
    compact_set *cs = &st->u.compact;
    if (!cs->wide) return insert64(st, store_vec_hash64(st, vec) >> cs->drop_bits);
    fingerprint f = fingerprint_of(st, vec);
    size_t bi = bucket_index(cs, f.hi);
    compact_bucket *b = &cs->tab[bi];
    const compact_layout *l = bucket_layout(cs, bi);
    uint64_t rem = f.hi >> l->level;
    uint32_t i = bucket_lower_bound(l, b, rem, f.lo);
    size_t w = l->entry_bytes;
    if (i < b->n && entry_cmp(l, b->data + i * w, rem, f.lo) == 0) return STORE_PRESENT;
    if (b->n == b->cap && !bucket_grow(st, b, (unsigned)w)) return STORE_FULL;
    uint8_t *e = b->data + i * w;
    memmove(e + w, e, (size_t)(b->n - i) * w);
    entry_write(l, e, rem, f.lo);
    b->n++;
    if (++st->count > cs->split_at) compact_split_one(st);
    return STORE_ADDED;
}

bool compact_contains(const store *st, const void *vec)
{
    const compact_set *cs = &st->u.compact;
    fingerprint f = fingerprint_of(st, vec);
    size_t bi = bucket_index(cs, f.hi);
    const compact_bucket *b = &cs->tab[bi];
    const compact_layout *l = bucket_layout(cs, bi);
    uint64_t rem = f.hi >> l->level;
    uint32_t i = bucket_lower_bound(l, b, rem, f.lo);
    return i < b->n && entry_cmp(l, b->data + i * l->entry_bytes, rem, f.lo) == 0;
}

bool compact_use_pool(store *st)
{
    compact_set *cs = &st->u.compact;
    if (cs->pool) return true;
    cs->pool = store_pool_new(&st->mem);
    return cs->pool != NULL;
}

void compact_free(store *st)
{
    compact_set *cs = &st->u.compact;
    size_t nb = compact_buckets(cs);
    for (size_t b = 0; cs->pool == NULL && b < nb; b++) /* pooled: go with the chunks */
        store_mem_free(&st->mem, cs->tab[b].data,
                       bucket_block_bytes(cs->tab[b].cap, bucket_layout(cs, b)->entry_bytes));
    store_pool_delete(&st->mem, cs->pool);
    cs->pool = NULL;
    store_mem_free(&st->mem, cs->tab, cs->tab_cap * sizeof *cs->tab);
    cs->tab = NULL;
    cs->tab_cap = 0;
}

void compact_set_split_average(store *st, uint32_t avg)
{
    compact_set *cs = &st->u.compact;
    cs->split_avg = avg ? avg : 1;
    compact_set_shape(cs, cs->level, cs->split_next);
}

/* Entries strictly increasing in every bucket, the counts adding up, the
 * memory accounting equal to the blocks' costs (with a pool: to its
 * chunks', the pool consistent, one block in use a bucket that has one). */
bool compact_check(const store *st)
{
    const compact_set *cs = &st->u.compact;
    size_t nb = compact_buckets(cs);
    uint64_t total = 0, blocks = 0;
    size_t bytes = st->self_bytes + store_alloc_cost(cs->tab_cap * sizeof *cs->tab);
    if (cs->pool) bytes += store_pool_cost(cs->pool);
    if (nb > cs->tab_cap) return false;
    for (size_t b = 0; b < cs->tab_cap; b++) {
        const compact_bucket *bk = &cs->tab[b];
        const compact_layout *l = bucket_layout(cs, b);
        if (bk->n > bk->cap || (bk->cap == 0) != (bk->data == NULL)) return false;
        if (b >= nb && bk->cap) return false;
        for (uint32_t i = 1; i < bk->n; i++) {
            const uint8_t *e = bk->data + (size_t)i * l->entry_bytes;
            if (entry_cmp(l, e - l->entry_bytes, entry_rem(l, e), entry_lo(l, e)) >= 0)
                return false;
        }
        total += bk->n;
        blocks += bk->data != NULL;
        if (!cs->pool) bytes += store_alloc_cost(bucket_block_bytes(bk->cap, l->entry_bytes));
    }
    if (cs->pool && (!store_pool_check(cs->pool, bucket_owns, cs) || cs->pool->in_use != blocks))
        return false;
    return total == st->count && bytes == st->mem.bytes;
}
