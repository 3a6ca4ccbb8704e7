/* parallel_int.h: the parallel search's shared structures (-j N,
 * parallel.c): items, tree nodes, workers and the run, and what the two
 * orders' worker loops (parallel_workers.c) call. Private to reduce/. */
#ifndef MCHECK_PARALLEL_INT_H
#define MCHECK_PARALLEL_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "por_int.h"
#include "search_int.h"
#include "store.h"

/* A node of the search tree: an expanded state with new successors. */
typedef struct pnode {
    struct pnode *parent;   /* NULL for the initial state's */
    explore_step via;       /* the step into the state ({-1, 0}: initial) */
    uint64_t depth;
    _Atomic uint32_t refs;  /* children not yet done */
} pnode;

/* An item: this header, then the state's vector (wsize bytes). */
typedef struct item_hdr {
    pnode *parent;
    explore_step via;
    uint32_t depth;         /* paths are at most 2^32 - 1 steps (explore_error.len) */
    uint32_t first;         /* the first thread enabled, and its choices (found when */
    uint64_t nfirst;        /* the state was stored, as the sequential DFS keeps them) */
} item_hdr;

typedef struct item_stack {
    uint8_t *buf;
    size_t n, cap;          /* items */
} item_stack;

enum { INBOX_WAIT = 0, INBOX_FILLED = 1, INBOX_DENIED = 2 };
enum { REQ_NONE = 0, REQ_CLOSED = -1 }; /* else a thief's id + 1 */

/* The barrier of the BFS levels: a worker spins a little (levels of a few
 * states come every few microseconds), then sleeps on a condition
 * variable (more workers than cores). The last to arrive runs `decide`
 * before the others go on, so that they all read one decision. */
typedef struct level_barrier {
    pthread_mutex_t m;
    pthread_cond_t c;
    unsigned n;
    _Alignas(64) _Atomic unsigned waiting;
    _Alignas(64) _Atomic uint64_t round;
} level_barrier;

#define BARRIER_SPINS 4000

#define NODE_SLAB 4096
#ifndef PREFETCH_STORE_BYTES
#define PREFETCH_STORE_BYTES ((size_t)4 << 20)
#endif
#ifndef SHARD_BITS
#define SHARD_BITS 8
#endif
#ifndef PAR_BATCH
#define PAR_BATCH 32        /* successors built before they are inserted */
#endif
#ifndef PAR_ITEMS
#define PAR_ITEMS 8         /* items expanded together (their successors in one batch) */
#endif
#define BFS_CHUNK 64        /* items a BFS worker takes at a time */
#ifndef BFS_SMALL
#define BFS_SMALL 64        /* a level of fewer items per worker is expanded by one */
#endif

struct par;

struct built;

typedef struct worker {
    struct par *P;
    unsigned id;
    pthread_t th;
    search S;               /* its own: detector (a clone), step env, ran table, recent
                               cache, persistent-set tables, statistics (S.r = &res),
                               S.lim.next_check: the work at which to look at the limits */
    explore_result res;
    item_stack stack;       /* dfs: its items; bfs: the part of the next level it made */
    item_stack in;          /* dfs: items handed to it */
    uint8_t *item;          /* the items being expanded (dfs: popped off the stack) */
    uint64_t *starts;       /* bfs: where each worker's part of the level begins */
    uint8_t *succ;          /* the initial state being built */
    struct built *batch;    /* successors built, not yet inserted (PAR_BATCH) */
    uint8_t *vecs;          /* their vectors */
    pnode *free_nodes;
    void **slabs;
    size_t nslabs, slabs_cap;
    bool prefetch;          /* the store has outgrown the caches: prefetch its lookups */
    double idle;            /* seconds waiting for work */
    uint64_t steals;        /* times it was handed work */
    /* what other workers read and write, on cache lines of their own (a
     * thief polling `avail` must not take the lines the owner writes) */
    _Alignas(64) _Atomic int request; /* dfs: REQ_NONE, REQ_CLOSED, or a thief's id + 1 */
    _Atomic int inbox;      /* dfs: INBOX_* */
    _Atomic uint64_t avail; /* its stack's items, published for thieves */
    _Alignas(64) _Atomic uint64_t pub_states, pub_transitions, pub_bytes; /* progress, --memlimit */
    _Atomic int64_t pub_used; /* worker_used(): its share of the items and nodes held */
    int64_t nodes_live;     /* nodes it took less nodes it released (either may be
                               another worker's: only the sum means something) */
    char pad[64];
} worker;

typedef struct par {
    const vm_program *p;
    const explore_options *o;
    explore_result *r;
    sstore *st;
    unsigned n;
    worker *w;
    ls_detector *det;       /* worker 0's; the others' are clones of it */
    search M;               /* the shared result: record_error() on M, under err_lock;
                               M.lim: the run's clock and progress (worker 0's) */
    pthread_mutex_t err_lock, dump_lock;
    runtime_shared rs;      /* the stop, --max-depth's truncation, the errors' bytes */
    _Alignas(64) _Atomic uint64_t active; /* dfs: workers that hold work */
    uint64_t buffer_bytes;  /* the workers' fixed buffers (worker_buffers()) */
    _Atomic uint64_t used_peak; /* the most bytes of items and nodes held, sampled */
    size_t isize;           /* bytes of an item */
    /* bfs */
    _Alignas(64) _Atomic uint64_t next[2]; /* level k: the next item to take, next[k & 1] */
    uint64_t level;         /* the level being expanded */
    _Atomic int go;         /* the workers wait for it: 1 all started, 2 not all could be */
    level_barrier bar;
    bool done;
} par;

/* ---- parallel.c: what the worker loops call ------------------------------- */

/* Room for `need` items in s; false if memory runs out. */
bool stack_reserve(par *P, item_stack *s, size_t need);
/* Expand items hs[0..m): their successors inserted, the new ones pushed
 * on `out`. False when the search stops. */
bool expand(worker *W, item_hdr *const *hs, unsigned m, item_stack *out);
/* Publish W's counts and check the limits; false when the search stops. */
bool par_limits(worker *W);

static inline item_hdr *item_at(const par *P, const item_stack *s, size_t i)
{
    return (item_hdr *)(s->buf + i * P->isize);
}

static inline uint8_t *item_vec(item_hdr *h) { return (uint8_t *)(h + 1); }

/* With --por a worker expands one item at a time (its proviso). */
static inline bool S_por(const worker *W)
{
    return W->S.por && por_applies(W->S.por);
}

static inline bool par_limits_ok(worker *W)
{
    if (search_work(&W->S) < W->S.lim.next_check) return !rt_shared_stopped(&W->P->rs);
    return par_limits(W);
}

/* ---- parallel_workers.c: the two orders ----------------------------------- */

/* A worker's thread: once every worker has started, depth-first (its own
 * stack, work stealing when it runs dry) or level-synchronous breadth-first
 * (chunks of each level, a barrier a level). */
void *worker_main(void *arg);

#endif
