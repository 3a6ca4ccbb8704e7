/* memstat.h: private to statestore/. The memory accounting every allocation
 * of a store goes through: bytes taken from malloc, counted as glibc's
 * malloc spends them, and an optional limit past which an allocation fails
 * (the store then answers STORE_FULL instead of dying). It knows nothing of
 * the store kinds: the backends (compact.c, exact.c, bitstate.c) call it,
 * and store.c reads it; it calls neither. Judy's own memory is not counted
 * here (exact.c adds JudyLMemUsed() when asked); pool.c's chunks are. */
#ifndef MCHECK_MEMSTAT_H
#define MCHECK_MEMSTAT_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes the store has taken from malloc, each block counted as
 * store_alloc_cost() says. */
typedef struct store_mem {
    size_t bytes;
    size_t limit; /* 0: none; else allocations that would pass it fail */
} store_mem;

/* What a malloc of n bytes costs the process (header and rounding). */
size_t store_alloc_cost(size_t n);
/* True if `extra` more bytes (already counted as costs) would pass the limit. */
bool store_mem_would_pass(const store_mem *m, size_t extra);
/* A block of n (> 0) bytes, zeroed if asked, counted; NULL on failure or
 * when it would pass the limit. */
void *store_mem_alloc(store_mem *m, size_t n, bool zero);
/* Resize a block of old_n bytes to new_n (> 0). NULL on failure, the old
 * block then untouched. */
void *store_mem_realloc(store_mem *m, void *p, size_t old_n, size_t new_n);
/* Free a block of n bytes (NULL: nothing) and uncount it. */
void store_mem_free(store_mem *m, void *p, size_t n);

#endif
