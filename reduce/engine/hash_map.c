/* hash_map.c: a map from 64-bit hashes to non-zero values, open addressing
 * with linear probing (load under a half) and backward-shift deletion, so
 * no tombstones. The searches' stack sets and side tables use it: the --por
 * DFS's stack multiset and stored sleep sets (dfs_por.c), the nested
 * searches' stack sets and the outer search's full expansions (nested.h),
 * the starvation graph's index (starvation.c). Growth is counted against
 * --memlimit like every other structure of the search (search_memory()). */
#include <stdlib.h>

#include "hash_map.h"
#include "search_int.h"

static inline size_t map_home(uint64_t k, size_t mask)
{
    return (size_t)(k * 0x9e3779b97f4a7c15ull >> 20) & mask;
}

/* The slot of key k, or the empty slot where it would go (cap > 0). */
size_t map_slot(const hash_map *m, uint64_t k)
{
    size_t mask = m->cap - 1, j = map_home(k, mask);
    while (m->key[j] && m->key[j] != k) j = (j + 1) & mask;
    return j;
}

/* The value of hash h, 0 if none. */
uint64_t map_get(const hash_map *m, uint64_t h)
{
    if (!m->cap) return 0;
    size_t j = map_slot(m, map_key_of(h));
    return m->key[j] ? m->val[j] : 0;
}

/* Set h's value to v (non-zero); false with S->lim.stop set if the map
 * cannot grow (it keeps its load under a half). */
bool map_put(search *S, hash_map *m, uint64_t h, uint64_t v)
{
    if (2 * (m->len + 1) > m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 1024;
        if (S->o->memlimit && search_memory(S) + (nc - m->cap) * 16 > S->o->memlimit) {
            S->lim.stop = STOP_MEMLIMIT;
            S->lim.refused = (nc - m->cap) * 16;
            return false;
        }
        hash_map n = {calloc(nc, sizeof(uint64_t)), malloc(nc * sizeof(uint64_t)), nc, m->len};
        if (!n.key || !n.val) {
            free(n.key);
            free(n.val);
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t j = map_slot(&n, m->key[i]);
                n.key[j] = m->key[i];
                n.val[j] = m->val[i];
            }
        free(m->key);
        free(m->val);
        *m = n;
    }
    uint64_t k = map_key_of(h);
    size_t j = map_slot(m, k);
    if (!m->key[j]) {
        m->key[j] = k;
        m->len++;
    }
    m->val[j] = v;
    return true;
}

bool map_put_new(search *S, hash_map *m, uint64_t h, uint64_t v, uint8_t *put)
{
    *put = 0;
    if (map_get(m, h)) return true;
    if (!map_put(S, m, h, v)) return false;
    *put = 1;
    return true;
}

/* Remove hash h, which is there (backward-shift deletion: no tombstones). */
void map_del(hash_map *m, uint64_t h)
{
    size_t mask = m->cap - 1, j = map_slot(m, map_key_of(h));
    for (size_t i = (j + 1) & mask; m->key[i]; i = (i + 1) & mask) {
        size_t home = map_home(m->key[i], mask);
        /* the entry at i may move to j if its home is not in (j, i] cyclically */
        if (((i - home) & mask) >= ((i - j) & mask)) {
            m->key[j] = m->key[i];
            m->val[j] = m->val[i];
            j = i;
        }
    }
    m->key[j] = 0;
    m->len--;
}

