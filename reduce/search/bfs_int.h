/* bfs_int.h: the BFS's queue, its private context (bfs.c; tests/test_search.c
 * tests it). Private to reduce/. */
#ifndef MCHECK_BFS_INT_H
#define MCHECK_BFS_INT_H

#include "search_int.h"

/* Every state's parent link and step (for traces), the vectors of the
 * states from base on (the level being expanded and the next one). */
typedef struct bfs_queue {
    uint64_t *parent;
    explore_step *via;
    uint64_t len, cap;
    uint8_t *states;   /* state i at (i - base) * vsize */
    uint64_t base, vcap;
    uint64_t vpeak;    /* the most vectors held at once (statistics: bytes used) */
} bfs_queue;

/* The BFS engine's context. */
#define BFSQ(S) ((bfs_queue *)(S)->ctx)

/* Append a state to the queue; false with S->lim.stop set if it cannot. */
bool bfs_push(search *S, const uint8_t *s, uint64_t parent, const explore_step *via,
              bool enforce);

/* The vector of queue entry i (i >= q->base), vectors of vsize bytes. */
static inline uint8_t *queue_vec(const bfs_queue *q, size_t vsize, uint64_t i)
{
    return q->states + (size_t)(i - q->base) * vsize;
}

static inline uint8_t *bfs_vec(const search *S, uint64_t i)
{
    return queue_vec(BFSQ(S), S->vsize, i);
}

#endif
