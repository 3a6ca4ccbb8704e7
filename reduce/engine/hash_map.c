/* hash_map.c: a map from 64-bit hashes to non-zero values, open addressing
 * with linear probing (load under a half) and backward-shift deletion, so
 * no tombstones. A key and its value share a slot, so a lookup reads one
 * cache line; the lookup is inline (hash_map.h). The searches' stack sets
 * and side tables use it: the --por DFS's stack multiset and stored sleep
 * sets (dfs_por.c), the nested searches' stack sets and the outer search's
 * full expansions (nested.h), the starvation graph's index (starvation.c).
 * Growth is counted against --memlimit like every other structure of the
 * search (search_memory()). */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE (Linux) */
#include <stdlib.h>
#include <sys/mman.h>

#include "hash_map.h"
#include "search_int.h"

void hint_huge(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    if (bytes >= (size_t)4 << 20) {
        uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* failure is fine */
    }
#else
    (void)p;
    (void)bytes;
#endif
}

/* A table of n slots, all empty. From 4 MB on it is mapped on its own, not
 * taken from malloc: with the heap's dynamic mmap threshold (glibc raises it
 * to the size of the last mapped block freed, up to 32 MB) a doubled table
 * could land on the heap and leave its pages resident when freed; mapped,
 * its pages are zero and resident only once touched, go back to the system
 * when it is freed, and may be huge (hint_huge()). */
#define MAP_OWN_BYTES ((size_t)4 << 20)

static hash_slot *slots_new(size_t n)
{
    size_t bytes = n * sizeof(hash_slot);
#if defined(MAP_ANONYMOUS)
    if (bytes >= MAP_OWN_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        hint_huge(p, bytes);
        return p;
    }
#endif
    return calloc(n, sizeof(hash_slot));
}

static void slots_free(hash_slot *s, size_t n)
{
    if (!s) return;
#if defined(MAP_ANONYMOUS)
    if (n * sizeof(hash_slot) >= MAP_OWN_BYTES) {
        munmap(s, n * sizeof(hash_slot));
        return;
    }
#endif
    free(s);
}

void map_free(hash_map *m) { slots_free(m->slot, m->cap); }

/* Set h's value to v (non-zero); false with S->lim.stop set if the map
 * cannot grow (it keeps its load under a half). */
bool map_put(search *S, hash_map *m, uint64_t h, uint64_t v)
{
    if (2 * (m->len + 1) > m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 1024;
        if (S->o->memlimit && search_memory(S) + (nc - m->cap) * sizeof(hash_slot) > S->o->memlimit) {
            S->lim.stop = STOP_MEMLIMIT;
            S->lim.refused = (nc - m->cap) * sizeof(hash_slot);
            return false;
        }
        hash_map n = {slots_new(nc), nc, m->len};
        if (!n.slot) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->slot[i].key) n.slot[map_slot(&n, m->slot[i].key)] = m->slot[i];
        map_free(m);
        *m = n;
    }
    uint64_t k = map_key_of(h);
    size_t j = map_slot(m, k);
    if (!m->slot[j].key) {
        m->slot[j].key = k;
        m->len++;
    }
    m->slot[j].val = v;
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
    for (size_t i = (j + 1) & mask; m->slot[i].key; i = (i + 1) & mask) {
        size_t home = map_home(m->slot[i].key, mask);
        /* the entry at i may move to j if its home is not in (j, i] cyclically */
        if (((i - home) & mask) >= ((i - j) & mask)) {
            m->slot[j] = m->slot[i];
            j = i;
        }
    }
    m->slot[j].key = 0;
    m->len--;
}

