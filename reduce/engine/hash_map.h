/* hash_map.h: a map from 64-bit hashes to non-zero values (hash_map.c),
 * the searches' stack sets and side tables. Private to reduce/. */
#ifndef MCHECK_HASH_MAP_H
#define MCHECK_HASH_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct hash_map {
    uint64_t *key, *val; /* key 0: an empty slot (hash 0 is taken as 1) */
    size_t cap, len;     /* slots (a power of 2, or 0), entries */
} hash_map;

struct search;

/* The key hash h is stored under (0 is the empty slot's). */
static inline uint64_t map_key_of(uint64_t h) { return h ? h : 1; }
/* The slot of key k, or the empty slot where it would go (cap > 0). */
size_t map_slot(const hash_map *m, uint64_t k);
/* The value of hash h (0 if none). */
uint64_t map_get(const hash_map *m, uint64_t h);
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
static inline uint64_t map_bytes(const hash_map *m) { return (uint64_t)m->cap * 2 * sizeof(uint64_t); }
static inline void map_free(hash_map *m)
{
    free(m->key);
    free(m->val);
}

#endif
