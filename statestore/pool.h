/* pool.h: private to statestore/. An allocator for the blocks of one store,
 * used under that store's lock (a shard of shared.c), so that growing a
 * bucket never calls malloc/realloc/free: glibc would take the lock of the
 * arena of the thread that allocated the block, which another worker may
 * hold (docs/statestore.md "sstore"). Blocks are carved from chunks taken
 * from malloc through memstat.h, so store_bytes() counts the chunks (what
 * the process holds, free blocks included) and the memory limit applies.
 * A block costs what glibc's would (store_alloc_cost: an 8-byte header,
 * 16-byte rounding), and, as in glibc, free neighbours coalesce and a
 * block grows in place into a free neighbour; a block's owner is in its
 * header, so the blocks can be slid together (store_pool_compact). Not
 * thread-safe; chunks are only returned when the pool is deleted. */
#ifndef MCHECK_POOL_H
#define MCHECK_POOL_H

#include "memstat.h"

#include <stdint.h>

#define POOL_CLASSES 64 /* free lists by size, 64 bytes apart (pool.c) */

typedef struct pool_chunk pool_chunk;

typedef struct store_pool {
    void *free[POOL_CLASSES];           /* doubly linked lists of free blocks */
    uint64_t nonempty[(POOL_CLASSES + 63) / 64]; /* bit c: free[c] != NULL */
    pool_chunk *chunks;
    size_t chunk_cost;  /* what the chunks cost (counted in the store_mem) */
    size_t free_bytes;  /* in free blocks */
    uint64_t in_use;    /* blocks allocated */
    uint64_t compactions, moved_bytes; /* store_pool_compact() statistics */
} store_pool;

#define POOL_MAX_OWNER (((uint64_t)1 << 28) - 1) /* what a block header holds */

/* When a block no free block fits would need a new chunk while more than
 * 1/2^POOL_COMPACT_SHIFT of the chunks is free, store_pool_compact() first. */
#ifndef POOL_COMPACT_SHIFT
#define POOL_COMPACT_SHIFT 3
#endif
static inline bool store_pool_fragmented(const store_pool *p)
{
    return p->free_bytes > (p->chunk_cost >> POOL_COMPACT_SHIFT);
}

/* A pool, counted in m; NULL if memory is short or the limit says no. */
store_pool *store_pool_new(store_mem *m);
/* Frees the chunks, with every block in them, and the pool (NULL: nothing). */
void store_pool_delete(store_mem *m, store_pool *p);
/* A block with n (> 0) usable bytes, 8-byte aligned, of `owner` (at most
 * POOL_MAX_OWNER: whom store_pool_compact() tells when it moves it); NULL
 * if memory is short or a new chunk would pass m's limit. */
void *store_pool_alloc(store_mem *m, store_pool *p, size_t n, uint64_t owner);
/* Resize block b to new_n (> 0) usable bytes (its owner stays): in place when it shrinks or
 * the block after it is free and large enough; else a new block, a copy,
 * and b freed. NULL on failure, b then untouched. */
void *store_pool_realloc(store_mem *m, store_pool *p, void *b, size_t new_n);
/* True if store_pool_realloc(b, new_n) (b NULL: store_pool_alloc(new_n))
 * would need no new chunk. */
bool store_pool_fits(const store_pool *p, const void *b, size_t new_n);
/* Frees block b (NULL: nothing). */
void store_pool_release(store_pool *p, void *b);
/* What the pool itself and its chunks cost. */
size_t store_pool_cost(const store_pool *p);
/* Walks every chunk: headers, footers and the free lists agree, free
 * neighbours are coalesced, in_use blocks are allocated, and owner_ok (if
 * not NULL) accepts each block's owner and data. */
bool store_pool_check(const store_pool *p, bool (*owner_ok)(const void *ctx, uint64_t owner,
                                                             const void *data),
                      const void *ctx);
/* Slides the blocks in use of every chunk to its start, calling moved()
 * with the owner and new data of each block that moved: the free space of
 * a chunk becomes one block at its end. Allocates nothing. */
void store_pool_compact(store_pool *p, void (*moved)(void *ctx, uint64_t owner, void *data),
                        void *ctx);

#endif
