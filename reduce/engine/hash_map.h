/* hash_map.h: a map from 64-bit hashes to non-zero values (hash_map.c),
 * the searches' stack sets and side tables. Private to reduce/. */
#ifndef MCHECK_HASH_MAP_H
#define MCHECK_HASH_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A key and its value side by side, so that a lookup reads one cache line. */
typedef struct hash_slot {
    uint64_t key, val; /* key 0: an empty slot (hash 0 is taken as 1) */
} hash_slot;

typedef struct hash_map {
    hash_slot *slot;
    size_t cap, len; /* slots (a power of 2, or 0), entries */
} hash_map;

struct search;

/* The key hash h is stored under (0 is the empty slot's). */
static inline uint64_t map_key_of(uint64_t h) { return h ? h : 1; }
/* Where key k's probe starts (cap > 0). */
static inline size_t map_home(uint64_t k, size_t mask)
{
    return (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & mask;
}
/* The slot of key k, or the empty slot where it would go (cap > 0). */
static inline size_t map_slot(const hash_map *m, uint64_t k)
{
    size_t mask = m->cap - 1, j = map_home(k, mask);
    while (m->slot[j].key && m->slot[j].key != k) j = (j + 1) & mask;
    return j;
}
/* The value of hash h (0 if none). */
static inline uint64_t map_get(const hash_map *m, uint64_t h)
{
    if (!m->cap) return 0;
    size_t j = map_slot(m, map_key_of(h));
    return m->slot[j].key ? m->slot[j].val : 0;
}
/* Start loading the slot where hash h's probe starts (speed only: a
 * caller that knows h a while before it looks h up). */
static inline void map_prefetch(const hash_map *m, uint64_t h)
{
#if defined(__GNUC__)
    if (m->cap) __builtin_prefetch(&m->slot[map_home(map_key_of(h), m->cap - 1)]);
#else
    (void)m;
    (void)h;
#endif
}
/* Set h's value to v != 0; false with S->lim.stop set if the map cannot
 * grow (within --memlimit, or at all). */
bool map_put(struct search *S, hash_map *m, uint64_t h, uint64_t v);
/* Remove hash h, which is there. */
void map_del(hash_map *m, uint64_t h);
/* The nested searches' stack sets: put h -> v unless h is there already (a
 * collision: the first stays), *put set to whether it was put. False with
 * S->lim.stop set if the map cannot grow. */
bool map_put_new(struct search *S, hash_map *m, uint64_t h, uint64_t v, uint8_t *put);
/* Bytes the map reserves. */
static inline uint64_t map_bytes(const hash_map *m) { return (uint64_t)m->cap * sizeof(hash_slot); }
void map_free(hash_map *m);

#endif
