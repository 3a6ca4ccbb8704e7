/* pool.c: the allocator of pool.h, one per shard of a shared store: the
 * boundary tags of Knuth (TAOCP 2.5) as in Lea's dlmalloc, with segregated
 * free lists (Wilson et al., "Dynamic storage allocation: a survey and
 * critical review", IWMM 1995). A block is an 8-byte header (size, "in
 * use", "previous in use", owner) and its data; a free block also holds its list
 * links and a footer with its size, so a freed block merges with free
 * neighbours at once and a growing block takes the free space after it.
 * Free blocks of [64c, 64c + 64) bytes (1 < c < 64) are on list c, found
 * by a bitmap (about best fit); smaller ones on list 1, larger on list 0
 * (first fit). Chunks grow
 * with the pool (1/16 of what it holds, 2 KiB to 1 MiB), each ending in an
 * "in use" sentinel header. Not here: thread safety, returning chunks. */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#define POOL_MIN_CHUNK ((size_t)2 << 10)
#define POOL_MAX_CHUNK ((size_t)1 << 20)
#define POOL_MIN_BLOCK 32 /* header, two links, footer */
/* A block that moves gets 1/2^POOL_SPARE_SHIFT more room than asked, kept
 * as it grows (0: none). At 4 (prodcons, docs/statestore.md) -j 2 was ~6%
 * faster and the store 11% bigger: off. */
#ifndef POOL_SPARE_SHIFT
#define POOL_SPARE_SHIFT 0
#endif
#if POOL_SPARE_SHIFT
#define POOL_SPARE(n) ((n) >> POOL_SPARE_SHIFT)
#else
#define POOL_SPARE(n) ((size_t)0)
#endif
#define POOL_BIG ((size_t)64 * POOL_CLASSES) /* and larger: list 0 */

/* A header: the flags, the size (a multiple of 16) below bit 36, and for a
 * block in use its owner (store_pool_alloc) from bit 36 on. */
#define INUSE ((uint64_t)1)
#define PINUSE ((uint64_t)2) /* the block before this one is in use */
#define FLAGS ((uint64_t)15)
#define SIZE_MASK ((((uint64_t)1 << 36) - 1) & ~FLAGS)
#define OWNER_SHIFT 36

/* 16 bytes, before the first block: the payload stays 16-byte aligned. */
struct pool_chunk {
    pool_chunk *next;
    size_t cost; /* what it costs in the store_mem; its blocks and sentinel
                    take cost - 32 bytes from offset 16 (memstat.c: a malloc
                    of cost - 8 costs `cost`, the chunk asks cost - 16) */
};

static inline uint64_t *hdr(uint8_t *h)
{
    return (uint64_t *)(void *)h;
}

static inline size_t size_of(uint8_t *h)
{
    return (size_t)(*hdr(h) & SIZE_MASK);
}

static inline uint64_t owner_bits(uint64_t owner)
{
    return owner << OWNER_SHIFT;
}

static inline uint8_t **link_next(uint8_t *h)
{
    return (uint8_t **)(void *)(h + 8);
}

static inline uint8_t **link_prev(uint8_t *h)
{
    return (uint8_t **)(void *)(h + 16);
}

/* List c (1 < c < POOL_CLASSES) holds the free blocks of [64c, 64c + 64)
 * bytes, list 1 the smaller ones, list 0 those of POOL_BIG and more. */
static inline unsigned class_of(size_t s)
{
    return s >= POOL_BIG ? 0 : s < 128 ? 1 : (unsigned)(s / 64);
}

static void list_insert(store_pool *p, uint8_t *h, size_t s)
{
    unsigned c = class_of(s);
    uint8_t *next = p->free[c];
    *link_next(h) = next;
    *link_prev(h) = NULL;
    if (next) *link_prev(next) = h;
    p->free[c] = h;
    p->nonempty[c / 64] |= (uint64_t)1 << (c % 64);
    p->free_bytes += s;
}

static void list_unlink(store_pool *p, uint8_t *h, size_t s)
{
    unsigned c = class_of(s);
    uint8_t *next = *link_next(h), *prev = *link_prev(h);
    if (prev) *link_next(prev) = next;
    else p->free[c] = next;
    if (next) *link_prev(next) = prev;
    if (!p->free[c]) p->nonempty[c / 64] &= ~((uint64_t)1 << (c % 64));
    p->free_bytes -= s;
}

/* Makes [h, h + s) a free block (its previous block in use iff pinuse) and
 * tells the block after it. The caller has merged any free neighbours. */
static void make_free(store_pool *p, uint8_t *h, size_t s, uint64_t pinuse)
{
    *hdr(h) = s | pinuse;
    *hdr(h + s - 8) = s;
    *hdr(h + s) &= ~PINUSE;
    list_insert(p, h, s);
}

/* The first nonempty list among classes [c, 256) (c > 0), or 0. */
static unsigned first_nonempty(const store_pool *p, unsigned c)
{
    for (unsigned i = c; i < POOL_CLASSES;) {
        uint64_t w = p->nonempty[i / 64] >> (i % 64);
        if (w) return i + (unsigned)__builtin_ctzll(w);
        i = (i / 64 + 1) * 64;
    }
    return 0;
}

store_pool *store_pool_new(store_mem *m)
{
    return store_mem_alloc(m, sizeof(store_pool), true);
}

void store_pool_delete(store_mem *m, store_pool *p)
{
    if (!p) return;
    for (pool_chunk *c = p->chunks, *next; c; c = next) {
        next = c->next;
        m->bytes -= c->cost;
        free(c);
    }
    store_mem_free(m, p, sizeof *p);
}

/* A new chunk with a free block of at least s bytes; that block, or NULL. */
static uint8_t *new_chunk(store_mem *m, store_pool *p, size_t s)
{
    size_t want = p->chunk_cost / 16;
    if (want < POOL_MIN_CHUNK) want = POOL_MIN_CHUNK;
    if (want > POOL_MAX_CHUNK) want = POOL_MAX_CHUNK;
    if (want < 4 * s) want = 4 * s; /* room for the neighbours of a large block */
    size_t payload = (want - 32 + 15) & ~(size_t)15;
    if (payload < s) payload = s;
    size_t cost = payload + 32;
    if (store_mem_would_pass(m, cost)) return NULL;
    pool_chunk *c = malloc(cost - 8);
    if (!c) return NULL;
    m->bytes += cost;
    c->cost = cost;
    c->next = p->chunks;
    p->chunks = c;
    p->chunk_cost += cost;
    uint8_t *h = (uint8_t *)c + 16;
    *hdr(h + payload) = INUSE; /* the sentinel */
    make_free(p, h, payload, PINUSE);
    return h;
}

/* Allocates s bytes at free block h: the rest, if a block, stays free. */
static void *take(store_pool *p, uint8_t *h, size_t s, uint64_t owner)
{
    size_t b = size_of(h);
    uint64_t pin = *hdr(h) & PINUSE;
    list_unlink(p, h, b);
    if (b - s >= POOL_MIN_BLOCK) {
        *hdr(h) = s | INUSE | pin | owner_bits(owner);
        make_free(p, h + s, b - s, PINUSE);
    } else {
        *hdr(h) = b | INUSE | pin | owner_bits(owner);
        *hdr(h + b) |= PINUSE;
    }
    p->in_use++;
    return h + 8;
}

/* A free block of at least s bytes, or NULL. */
static uint8_t *find_free(const store_pool *p, size_t s)
{
    unsigned c = class_of(s);
    if (c && p->free[c] && size_of(p->free[c]) >= s) return p->free[c];
    c = c ? first_nonempty(p, c + 1) : 0; /* any block of a higher list fits */
    if (c) return p->free[c];
    uint8_t *h = p->free[0];
    while (h && size_of(h) < s) h = *link_next(h);
    return h;
}

void *store_pool_alloc(store_mem *m, store_pool *p, size_t n, uint64_t owner)
{
    if (owner > POOL_MAX_OWNER) return NULL;
    size_t s = store_alloc_cost(n);
    uint8_t *h = find_free(p, s);
    if (!h && !(h = new_chunk(m, p, s))) return NULL;
    return take(p, h, s, owner);
}

bool store_pool_fits(const store_pool *p, const void *b, size_t new_n)
{
    size_t t = store_alloc_cost(new_n);
    if (b) {
        uint8_t *h = (uint8_t *)b - 8, *next = h + size_of(h);
        if (t <= size_of(h) || (!(*hdr(next) & INUSE) && size_of(h) + size_of(next) >= t))
            return true;
    }
    return find_free(p, t) != NULL;
}

void store_pool_release(store_pool *p, void *b)
{
    if (!b) return;
    uint8_t *h = (uint8_t *)b - 8;
    size_t s = size_of(h);
    uint64_t pin = *hdr(h) & PINUSE;
    p->in_use--;
    if (!pin) { /* merge with the free block before */
        size_t ps = *hdr(h - 8);
        h -= ps;
        list_unlink(p, h, ps);
        s += ps;
        pin = *hdr(h) & PINUSE;
    }
    uint8_t *next = h + s;
    if (!(*hdr(next) & INUSE)) {
        size_t ns = size_of(next);
        list_unlink(p, next, ns);
        s += ns;
    }
    make_free(p, h, s, pin);
}

void *store_pool_realloc(store_mem *m, store_pool *p, void *b, size_t new_n)
{
    uint8_t *h = (uint8_t *)b - 8;
    size_t s = size_of(h), t = store_alloc_cost(new_n);
    uint64_t keep = *hdr(h) & ~SIZE_MASK; /* flags and owner */
    if (t <= s) { /* a block with room to spare (below) keeps it when grown */
        if (s - t >= POOL_MIN_BLOCK && s - t > POOL_SPARE(s)) { /* cut it */
            *hdr(h) = t | keep;
            *hdr(h + t) = (s - t) | INUSE | PINUSE;
            p->in_use++;
            store_pool_release(p, h + t + 8);
        }
        return b;
    }
    uint8_t *next = h + s;
    if (!(*hdr(next) & INUSE) && s + size_of(next) >= t) { /* grow in place */
        size_t total = s + size_of(next);
        list_unlink(p, next, size_of(next));
        if (total - t >= POOL_MIN_BLOCK) {
            *hdr(h) = t | keep;
            make_free(p, h + t, total - t, PINUSE);
        } else {
            *hdr(h) = total | keep;
            *hdr(h + total) |= PINUSE;
        }
        return b;
    }
    /* the block moves (with room to spare if configured, so that it grows
     * in place a while rather than moving again and leaving a hole) */
    void *d = store_pool_alloc(m, p, new_n + POOL_SPARE(new_n), keep >> OWNER_SHIFT);
    if (!d) return NULL;
    memcpy(d, b, s - 8);
    store_pool_release(p, b);
    return d;
}

size_t store_pool_cost(const store_pool *p)
{
    return store_alloc_cost(sizeof *p) + p->chunk_cost;
}

bool store_pool_check(const store_pool *p, bool (*owner_ok)(const void *ctx, uint64_t owner,
                                                             const void *data),
                      const void *ctx)
{
    size_t walked_free = 0, listed_free = 0, cost = 0;
    uint64_t used = 0;
    for (const pool_chunk *c = p->chunks; c; c = c->next) {
        cost += c->cost;
        uint8_t *h = (uint8_t *)c + 16, *end = (uint8_t *)c + c->cost - 16;
        bool prev_free = false;
        while (h < end) {
            size_t s = size_of(h);
            if (s < POOL_MIN_BLOCK || s % 16 || h + s > end) return false;
            if (!(*hdr(h) & PINUSE) != prev_free) return false;
            if (*hdr(h) & INUSE) {
                used++;
                if (owner_ok && !owner_ok(ctx, *hdr(h) >> OWNER_SHIFT, h + 8)) return false;
                prev_free = false;
            } else {
                if (prev_free || *hdr(h + s - 8) != s) return false; /* coalesced */
                walked_free += s;
                prev_free = true;
            }
            h += s;
        }
        if (h != end || *hdr(h) != (INUSE | (prev_free ? 0 : PINUSE))) return false;
    }
    for (unsigned c = 0; c < POOL_CLASSES; c++) {
        if (!((p->nonempty[c / 64] >> (c % 64)) & 1) != !p->free[c]) return false;
        uint8_t *prev = NULL;
        for (uint8_t *h = p->free[c]; h; prev = h, h = *link_next(h)) {
            if ((*hdr(h) & INUSE) || class_of(size_of(h)) != c || *link_prev(h) != prev)
                return false;
            listed_free += size_of(h);
        }
    }
    return cost == p->chunk_cost && used == p->in_use && walked_free == listed_free &&
           listed_free == p->free_bytes;
}

/* Lisp 2's sliding compaction (Knuth, TAOCP 2.5; Jones & Lins, "Garbage
 * Collection" ch. 5), chunk by chunk: the blocks in use slide down in
 * address order (memmove), their owners are told, and each chunk ends in
 * one free block, which the next allocations take from the front, so the
 * blocks moved there grow in place. */
void store_pool_compact(store_pool *p, void (*moved)(void *ctx, uint64_t owner, void *data),
                        void *ctx)
{
    memset(p->free, 0, sizeof p->free);
    memset(p->nonempty, 0, sizeof p->nonempty);
    p->free_bytes = 0;
    p->compactions++;
    for (pool_chunk *c = p->chunks; c; c = c->next) {
        uint8_t *h = (uint8_t *)c + 16, *end = (uint8_t *)c + c->cost - 16, *dst = h;
        while (h < end) {
            uint64_t word = *hdr(h);
            size_t s = (size_t)(word & SIZE_MASK);
            if (word & INUSE) {
                if (dst != h) {
                    memmove(dst, h, s);
                    *hdr(dst) = word | PINUSE;
                    moved(ctx, word >> OWNER_SHIFT, dst + 8);
                    p->moved_bytes += s;
                }
                dst += s;
            }
            h += s;
        }
        *hdr(end) = INUSE | PINUSE;
        if (dst < end) make_free(p, dst, (size_t)(end - dst), PINUSE);
    }
}
