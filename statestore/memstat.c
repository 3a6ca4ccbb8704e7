/* memstat.c: the statestore's memory accounting (memstat.h). Every block a
 * store kind allocates is counted at what glibc's malloc spends on it, so
 * that store_bytes() is what the process pays and --memlimit can make a
 * store answer "full" before the machine runs out. Split out of store.c so
 * that the kinds call this file and store.c dispatches to the kinds, with no
 * calls going both ways. Not here: Judy's memory (exact.c asks Judy), the
 * search's own allocations (reduce/ counts those). */
#include "memstat.h"

#include <stdlib.h>

/* glibc's malloc spends 8 bytes of header per block and rounds to 16, with
 * a 32-byte minimum: count that, so store_bytes() is what the process pays. */
size_t store_alloc_cost(size_t n)
{
    if (n == 0) return 0;
    size_t c = (n + 8 + 15) & ~(size_t)15;
    return c < 32 ? 32 : c;
}

bool store_mem_would_pass(const store_mem *m, size_t extra)
{
    return m->limit && m->bytes + extra > m->limit;
}

void *store_mem_alloc(store_mem *m, size_t n, bool zero)
{
    size_t cost = store_alloc_cost(n);
    if (n == 0 || store_mem_would_pass(m, cost)) return NULL;
    void *p = zero ? calloc(1, n) : malloc(n);
    if (p) m->bytes += cost;
    return p;
}

void *store_mem_realloc(store_mem *m, void *p, size_t old_n, size_t new_n)
{
    size_t old_cost = store_alloc_cost(old_n), new_cost = store_alloc_cost(new_n);
    if (new_n == 0) return NULL;
    if (new_cost > old_cost && store_mem_would_pass(m, new_cost - old_cost)) return NULL;
    void *q = realloc(p, new_n);
    if (q) m->bytes = m->bytes - old_cost + new_cost;
    return q;
}

void store_mem_free(store_mem *m, void *p, size_t n)
{
    if (!p) return;
    free(p);
    m->bytes -= store_alloc_cost(n);
}
