/* search_int.h: the search context every engine shares, private to
 * reduce/. One struct per concern, each owned by one file: limits, clock and
 * progress (the runtime, runtime_int.h), statistics (search.c), the
 * recent-lookup cache and insertion (here and
 * search.c), the DFS stack and undo log (dfs.c; the depth-first engines
 * share it), the look-ahead (lookahead.c, speed only; the calls dfs() makes
 * are in lookahead_int.h). An engine's own state is its private context
 * (S->ctx, engine.h), defined in its file. Also the inline helpers of the
 * hot path (insertion, the undo log, the limit check), kept here so that
 * each engine's loop inlines them. The idea of one file per strategy over
 * a shared context is LTSmin's pins2lts-mc; the transition itself is
 * step_int.h's. */
#ifndef MCHECK_SEARCH_INT_H
#define MCHECK_SEARCH_INT_H

#include <string.h>
#include <time.h>

#include "engine.h"
#include "hash_map.h"
#include "reduce.h"
#include "runtime_int.h"
#include "step_int.h"

/* ---- the cache of recent lookups (insert_prepared()) --------------------- */

#ifndef RECENT_SLOTS
#define RECENT_SLOTS (1u << 15) /* 256 KB: about the L2 cache */
#endif

typedef struct recent_cache {
    bool on;          /* the store takes a hash (store_takes_hash) and the cache exists */
    uint64_t *slots;  /* RECENT_SLOTS hashes of recent lookups */
} recent_cache;

/* ---- the DFS stack and undo log (dfs.c) ---------------------------------- */

/* A DFS stack level. The step that led to level d is the one level d - 1
 * took last: its tid and choice - 1, so it is not stored. Nor is the state:
 * the search keeps the state of the top level, and per level an undo
 * record (UNDO_REC bytes for each 8-byte word of the vector that the step
 * to the level changed: the word's index, u32, and its value in the parent),
 * so a backtrack restores the parent. The stacks of these searches are about
 * as deep as they have states (philosophers: 20 million levels), so a
 * level costs 24 bytes and a few undo records rather than a whole vector,
 * memory the kernel would otherwise have to zero page after page. */
typedef struct frame {
    int32_t tid;       /* thread being expanded */
    uint32_t undo;     /* bytes of this level's undo record */
    uint64_t choice;   /* next choice of tid */
    uint64_t nchoices; /* vm_enabled(tid); 0 until computed */
} frame;

#define UNDO_REC 12

typedef struct dfs_stack {
    frame *frames;
    size_t cap;        /* frames allocated */
    uint8_t *undo;     /* the undo records of every level, bottom first */
    size_t undo_len, undo_cap;
    size_t undo_peak;  /* the longest undo_len (statistics: bytes used) */
    uint8_t *next;     /* the successor being built */
} dfs_stack;

/* ---- the DFS look-ahead (lookahead.c; speed only) ------------------------ */

/* At most AHEAD_MAX steps guessed ahead, of which at most AHEAD_LOOKUPS
 * store lookups, while the path is at least AHEAD_MIN_CONF/256 likely. -D
 * overrides them (and AHEAD_STORE_BYTES, RECENT_SLOTS) for tuning;
 * docs/benchmarks.md has what was tried. */
#ifndef AHEAD_MAX
#define AHEAD_MAX 4
#endif
_Static_assert(AHEAD_MAX >= 2 && (AHEAD_MAX & (AHEAD_MAX - 1)) == 0,
               "AHEAD_MAX: a power of 2 (the slots are a ring)");
#ifndef AHEAD_LOOKUPS
#define AHEAD_LOOKUPS 2
#endif
#ifndef AHEAD_MIN_CONF
#define AHEAD_MIN_CONF 100
#endif

/* A guess costs a step and a hash when it is wrong, and pays only when
 * lookups miss the caches: --lookahead=auto guesses from a store of this
 * size on (philosophers N=4, 1.5 MB: 10% more instructions, none saved);
 * so does dfs_por.c's step built ahead. */
#ifndef AHEAD_STORE_BYTES
#define AHEAD_STORE_BYTES ((size_t)4 << 20)
#endif

/* How often a store lookup in one context found a new state (guess_new()). */
typedef struct odds_count {
    uint32_t tries, news;
    bool guess;    /* news are the majority */
    uint32_t conf; /* the majority's share, of 256; 0 (no guess) until 64 tries */
} odds_count;

/* Contexts of a lookup's odds (lookahead.c, guess_new()). */
enum { CTX_LATER = 1, CTX_LOWER = 2 };

/* A step on the guessed path, built. */
typedef struct ahead_slot {
    uint8_t *vec;            /* the successor, built and marked */
    size_t depth;            /* the level it is a successor of */
    explore_step step;
    step_outcome out;
    uint64_t hash;
    uint64_t instructions;   /* counted for it, taken back if unused */
    uint64_t invisible;      /* of those, the tails' (taken back too) */
    bool recent;             /* in the recent cache when built: surely seen */
    bool fetched;            /* its entries are prefetched (else its index only) */
    unsigned ctx;            /* its lookup's context (CTX_LATER, CTX_LOWER) */
    bool guess_new;          /* a store lookup: guessed to find a new state */
    uint32_t conf;           /* a store lookup: that guess's odds, of 256 */
    explore_step after;      /* a later step: the step of its level before it, from which
                              * the threads up to step.tid were found disabled */
    uint64_t nchoices;       /* vm_enabled(step.tid) in the state it was built from */
} ahead_slot;

/* The last step of the guessed path (extend_ahead()), kept while the path
 * has steps, so that the path grows from it without a walk. */
typedef struct path_tail {
    size_t depth;          /* the level it is taken from */
    explore_step step;
    uint64_t nchoices;     /* vm_enabled(step.tid) there */
    const uint8_t *from;   /* the state of that level: a slot's vector, the successor
                            * being looked up, S->cur or ahead.parent (ahead_push() and
                            * ahead_pop() move it when the search pushes or pops over it) */
    int32_t into_tid;      /* the thread of the step into that level; -1 for level 0 */
    const uint8_t *vec;    /* its successor */
    bool seen;             /* the successor is not descended into: guessed seen, in the
                            * recent cache, an error or at the depth limit */
    bool prev_new;         /* the guess of the path's last store lookup */
} path_tail;

typedef struct lookahead {
    bool may;                /* DFS, no detector, a hashing store, not --lookahead=off */
    bool on;                 /* started (ahead_start): at once, or (auto) once the store is big */
    ahead_slot slot[AHEAD_MAX]; /* the guessed path, a ring: AHEAD(S, 0) comes next */
    unsigned head, n;
    unsigned lookups;        /* of the slots, those not in the recent cache */
    path_tail tail;          /* the path's last step (valid while n > 0) */
    uint8_t *parent;         /* the state of the level below the top (state_at) */
    size_t parent_of;        /* the top level whose parent it is now (SIZE_MAX: none) */
    odds_count odds[4][2];   /* odds that a store lookup is new, by context (guess_new) */
    unsigned ctx;            /* the context of the step being inserted */
    bool prev_new;           /* the last store lookup found a new state */
} lookahead;

#define AHEAD(S, k) (&(S)->ahead.slot[((S)->ahead.head + (k)) & (AHEAD_MAX - 1)])

/* ---- the context ---------------------------------------------------------- */

/* One search: what it reads (program, options), what it writes (result),
 * its store and detector, the work vectors, and one sub-struct per concern.
 * Nothing global, so several searches can run in one process. */
typedef struct search {
    const vm_program *p;
    const explore_options *o;
    explore_result *r;
    store *st;
    size_t ssize;      /* the state: vm part, then the detector's metadata */
    size_t vsize;      /* stored vector: the state + error marker */
    size_t wsize;      /* bytes of the work vectors: vsize rounded up to 8, zero padded */
    ls_detector *det;  /* lock-discipline / race detector, NULL for --race=off */
    vm_hooks hooks;
    step_env env;      /* what step_run() runs with */
    uint8_t **ran;     /* env.ran: the instructions run (step_ran_new()) */
    uint8_t *cur;      /* DFS: the state of the top level; BFS: the successor being built */
    size_t vec_bytes;  /* of the work vectors, look-ahead, batch and recent cache */
    uint8_t *scratch;  /* a state to try a step on (all_visible) */
    void *dump_lock;   /* -j N: the pthread_mutex_t the workers take for
                          --dump-states (dump_state()); NULL: one thread */
    runtime lim;       /* limits, clock, progress, error bytes (runtime_int.h) */
    recent_cache recent;
    dfs_stack dfs;
    lookahead ahead;
    struct por *por;   /* --por: the persistent-set tables (por_int.h), else NULL;
                          the stateless search's independence for sleep sets */
    const struct engine *eng; /* the search that runs (engine.h) */
    void *ctx;         /* its private context: dfs_por.c's stack and maps,
                          bfs.c's queue, ... (eng->ctx_size bytes) */
} search;

/* ---- search.c: limits, statistics, errors, insertion --------------------- */

uint64_t search_memory(const search *S);  /* everything, as --memlimit counts it */
void fill_stats(search *S);
void progress_line(search *S, double t);
bool limits_check(search *S);
uint64_t grown_capacity(search *S, uint64_t cap, uint64_t need, size_t entry,
                        size_t first_bytes, uint64_t first_max, bool enforce);
bool record_error(search *S, const step_outcome *e, const explore_step *path, uint32_t len);
void dump_state(search *S, const uint8_t *s, bool deadlock);

/* The first thread enabled in s, and its number of choices in *n; nthreads
 * (and *n = 0) if none. */
static inline uint32_t first_enabled(const vm_program *p, const uint8_t *s, uint64_t *n)
{
    for (uint32_t t = 0; t < p->nthreads; t++)
        if ((*n = vm_enabled(p, s, (int)t)) != 0) return t;
    *n = 0;
    return p->nthreads;
}

static inline bool any_enabled(const vm_program *p, const uint8_t *s)
{
    uint64_t n;
    return first_enabled(p, s, &n) < p->nthreads;
}

/* The search's initial state into work vector v (wsize bytes): the
 * program's, with the detector's metadata and, with --por, the static
 * threads' invisible starts run (the replay checks of the liveness
 * searches start there). False with S->lim.stop set if memory runs out. */
bool search_initial(search *S, uint8_t *v, explore_stats *dry);

/* The liveness searches' replay checks of a lasso, step by step: may
 * thread st.tid take choice st.choice in v? Then lasso_step() runs it on v
 * (search.c): true if it ends without an error (its outcome marked in v),
 * false if it errs or, with S->lim.stop set, memory runs out. */
static inline bool lasso_can_step(const vm_program *p, const uint8_t *v, explore_step st)
{
    return st.tid >= 0 && (uint32_t)st.tid < p->nthreads && st.choice < vm_enabled(p, v, st.tid);
}
bool lasso_step(search *S, uint8_t *v, explore_step st, explore_stats *dry);

/* Make e the outcome of a deadlock (search.c). */
void deadlock_outcome(step_outcome *e);

/* Classify a newly stored, non-error state: a deadlock is an error. The
 * first enabled thread and its choices go to *first, *n (first_enabled()),
 * where the DFS starts expanding the state. */
static inline bool is_deadlock(const vm_program *p, const uint8_t *s, step_outcome *e,
                               uint32_t *first, uint64_t *n)
{
    *first = first_enabled(p, s, n);
    if (*first < p->nthreads || vm_valid_end(p, s)) return false;
    deadlock_outcome(e);
    return true;
}

/* Work done so far, for pacing the clock: an instruction is 1, a transition
 * also copies and hashes a vector (1 per 64 bytes), so a model with
 * megabyte states looks at the clock every few transitions, a small one
 * every thousand or so. */
static inline uint64_t search_work(const search *S)
{
    const explore_stats *x = &S->r->stats;
    return x->instructions + x->transitions * (1 + S->vsize / 64);
}

/* limits_check(), with the common case (no --memlimit of the user's, clock not
 * due) inline (the default --memlimit is checked when the clock is):
 * false when the search must stop (S->lim.stop says why). */
static inline bool limits_ok(search *S)
{
    if ((!S->o->memlimit || S->o->memlimit_default) && search_work(S) < S->lim.next_check)
        return true; /* rt_clock_due() */
    return limits_check(S);
}

static inline bool keeps_trace(const search *S)
{
    return S->r->nerrors < (S->o->max_traces ? S->o->max_traces : 10);
}

/* Run step (tid, choice) on s in place (step_run() with the search's
 * environment). False if the search must stop (S->lim.stop says why). */
static HOT_INLINE bool run_step(search *S, uint8_t *s, int tid, uint64_t choice,
                                step_outcome *out)
{
    if (step_run(&S->env, s, tid, choice, out, &S->r->stats)) return true;
    rt_stop(&S->lim, STOP_NOMEM); /* else a limit in the step */
    return false;
}

enum { INS_STOP = -1, INS_SEEN = 0, INS_NEW = 1, INS_ERROR = 2 };

/* Make s a vector to store: the detector's metadata canonicalized, and the
 * error marker that follows the state. */
static inline void mark_outcome(const search *S, uint8_t *s, const step_outcome *out)
{
    if (S->det) ls_canonicalize(S->det, s); /* metadata no later check reads */
    /* tid < VM_MAX_THREADS = 255, so tid + 1 fits the byte */
    s[S->ssize] = out->kind != VERDICT_OK ? (uint8_t)(out->tid + 1) : 0;
}

/* Mark as ran the instruction each thread stands at in a new state: a
 * thread blocked there for good (a deadlock, a valid end, a `join` of a
 * thread that faulted, an `acquire` of a lock never released) has reached
 * it, as SPIN counts reached states; the others will run it from here.
 * Once per new state, a few instructions per thread. */
static inline void mark_reached(const search *S, const uint8_t *s)
{
    const vm_program *p = S->p;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        const vm_thread_slot *sl = &p->threads[t];
        uint8_t st = s[sl->offset + VM_TS_STATUS];
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        uint32_t b = sl->body >= 0 ? (uint32_t)sl->body : s[sl->offset + VM_TS_BODY];
        S->ran[b][vm_rd16(s, sl->offset + VM_TS_PC)] = 1;
    }
}

/* Is the hash in the cache of recent lookups (see insert_prepared())? */
static inline bool is_recent(const search *S, uint64_t hash)
{
    return hash && S->recent.slots[(hash >> 24) & (RECENT_SLOTS - 1)] == hash;
}

/* Start loading hash's slot of the cache of recent lookups (speed only). */
static inline void recent_prefetch(const search *S, uint64_t hash)
{
#if defined(__GNUC__)
    __builtin_prefetch(&S->recent.slots[(hash >> 24) & (RECENT_SLOTS - 1)]);
#else
    (void)S;
    (void)hash;
#endif
}

/* The store answered sr for a lookup of hash: a stored hash goes into the
 * cache of recent lookups. */
static inline void recent_note(search *S, uint64_t hash, store_result sr)
{
    if (sr != STORE_FULL) S->recent.slots[(hash >> 24) & (RECENT_SLOTS - 1)] = hash;
}

/* Insert a successor. INS_NEW: to be explored, from thread *first with *n
 * choices (first_enabled()); INS_SEEN: stored before; INS_ERROR: a new
 * error state, or a new deadlocked state (out says which); INS_STOP: the
 * store is full. insert_prepared() is insert_successor() for a marked
 * vector the caller has hashed (store_hash()), for a store that takes the
 * hash: the hashes of recent lookups are kept in a direct-mapped cache
 * (S->recent), and one found there is seen without a store lookup. They
 * are fingerprints the store holds, so the cache changes no answer; it
 * saves a lookup for the states a search revisits soon after storing them
 * (most of them in prodcons_monitor, a third in philosophers). `recent`:
 * is_recent(hash), which the caller has asked already (or a lookahead's
 * earlier answer: a hash once in the cache is in the store). `known`: *first
 * and *n hold first_enabled(s) already (the lookahead built the state's
 * first step), so a new state needs no look at its threads. */
/* What insertion makes of the store's answer `sr` for s (insert_prepared();
 * the parallel search's par_insert() over the shared store): the counts, the
 * marks of reached code, a deadlock, --dump-states. */
static HOT_INLINE int insert_result(search *S, uint8_t *s, step_outcome *out, store_result sr,
                                    bool known, uint32_t *first, uint64_t *n)
{
    explore_stats *x = &S->r->stats;
    if (sr == STORE_FULL) {
        S->lim.stop = STOP_NOMEM;
        return INS_STOP;
    }
    if (sr == STORE_PRESENT) {
        x->states_matched++;
        return INS_SEEN;
    }
    x->states_stored++;
    if (out->kind != VERDICT_OK) return INS_ERROR;
    mark_reached(S, s);
    if (known) { /* a thread is enabled */
        if (S->o->dump_states) dump_state(S, s, false);
        return INS_NEW;
    }
    bool dead = is_deadlock(S->p, s, out, first, n);
    if (!dead && *first >= S->p->nthreads) S->r->stats.end_states++;
    if (S->o->dump_states) dump_state(S, s, dead);
    return dead ? INS_ERROR : INS_NEW;
}

static HOT_INLINE int insert_prepared(search *S, uint8_t *s, step_outcome *out, uint64_t hash,
                                      bool prepared, bool recent, bool known, uint32_t *first,
                                      uint64_t *n)
{
    store_result sr;
    if (prepared) {
        if (recent) {
            sr = STORE_PRESENT;
        } else {
            sr = store_insert_prepared(S->st, s, hash);
            recent_note(S, hash, sr);
        }
    } else {
        sr = store_insert(S->st, s);
    }
    return insert_result(S, s, out, sr, known, first, n);
}

static HOT_INLINE int insert_successor(search *S, uint8_t *s, step_outcome *out,
                                       uint32_t *first, uint64_t *n)
{
    mark_outcome(S, s, out);
    if (S->recent.on) {
        uint64_t h = store_hash(S->st, s);
        return insert_prepared(S, s, out, h, true, is_recent(S, h), false, first, n);
    }
    return insert_prepared(S, s, out, 0, false, false, false, first, n);
}

/* The sizes of the search's vectors (search.c): ssize, the state (vm part
 * and S->det's metadata); vsize, with the error marker; wsize, the work
 * vectors', with `product_bytes` after the stored vector (nested.c's
 * automaton state), rounded up to 8. */
void search_layout(search *S, size_t product_bytes);
/* S->env, the composed step's environment (step_env_new()) over S's
 * detector, hooks, sizes and `ran`, stopping at the run's limits (S->lim,
 * the clock started at t0). Its fold_undo is NULL if that malloc failed. */
void search_env(search *S, const struct timespec *t0);

/* ---- dfs.c ----------------------------------------------------------------- */

bool dfs_grow_slow(search *S, size_t need, bool enforce);
/* Grow a DFS's array of frames (`entry` bytes each: dfs.c's, dfs_por.c's) to
 * hold `need`; false with S->lim.stop set if it cannot. */
bool frames_grow_slow(search *S, void **frames, size_t *cap, size_t need, size_t entry,
                      bool enforce);
/* Record an error reached by `last` from level `depth` of a DFS whose
 * frames (`stride` bytes apart) each begin with a `frame`: the path is each
 * level's tid and last choice taken. False if the search must stop. */
bool stack_error(search *S, const void *frames, size_t stride, size_t depth,
                 const explore_step *last, const step_outcome *out);
bool undo_grow_slow(search *S, size_t need);

/* Room for `need` frames on the DFS stack; false with S->lim.stop set if not. */
static inline bool dfs_grow(search *S, size_t need, bool enforce)
{
    return need <= S->dfs.cap || dfs_grow_slow(S, need, enforce);
}

/* Room for one more level's undo record (at most every word of the vector). */
static inline bool undo_grow(search *S)
{
    size_t need = S->dfs.undo_len + S->wsize / 8 * UNDO_REC;
    return need <= S->dfs.undo_cap || undo_grow_slow(S, need);
}

/* Append the undo record of the step from `old` to `neu` (the words that
 * differ, with their old values); returns its bytes. */
static inline uint32_t undo_push(search *S, const uint8_t *old, const uint8_t *neu)
{
    uint8_t *o = S->dfs.undo + S->dfs.undo_len, *start = o;
    for (size_t i = 0; i < S->wsize; i += 8) {
        uint64_t a, b;
        memcpy(&a, old + i, 8);
        memcpy(&b, neu + i, 8);
        if (a != b) {
            uint32_t w = (uint32_t)(i / 8);
            memcpy(o, &w, 4);
            memcpy(o + 4, &a, 8);
            o += UNDO_REC;
        }
    }
    S->dfs.undo_len += (size_t)(o - start);
    if (S->dfs.undo_len > S->dfs.undo_peak) S->dfs.undo_peak = S->dfs.undo_len;
    return (uint32_t)(o - start);
}

/* Apply the top level's undo record (of `bytes`) to a copy of the top
 * state at dst: it becomes the parent's state. */
static inline void undo_apply(const search *S, uint8_t *dst, uint32_t bytes)
{
    const uint8_t *rec = S->dfs.undo + S->dfs.undo_len - bytes;
    for (uint32_t k = 0; k < bytes; k += UNDO_REC) {
        uint32_t w;
        memcpy(&w, rec + k, 4);
        memcpy(dst + 8 * (size_t)w, rec + k + 4, 8);
    }
}

/* Undo the step that led to the top level (record of `bytes`): S->cur
 * becomes the parent's state again. */
static inline void undo_pop(search *S, uint32_t bytes)
{
    undo_apply(S, S->cur, bytes);
    S->dfs.undo_len -= bytes;
}

/* ---- what several engines share ---------------------------------------- */

/* A hint for the big arrays of a search (hash_map.c): where the kernel has
 * transparent huge pages on request, ask for them for the `bytes` at p
 * (from 4 MB), so that a deep stack costs a page fault per 2 MB rather than
 * per 4 KB, and a random lookup in a big map no TLB miss. */
void hint_huge(void *p, size_t bytes);

/* The statistics' bytes used by a stack `levels` deep of an engine's frames
 * (`fb` bytes each, `cap` allocated), or of the plain DFS's frames when the
 * engine allocated none of its own (engine.used). */
static inline uint64_t frames_used(const search *S, size_t cap, size_t fb, uint64_t levels)
{
    return cap ? levels * fb : S->dfs.cap ? levels * sizeof(frame) : 0;
}

/* The mask of threads with a step in s (at most 64 threads: S->por). */
static inline uint64_t enabled_mask(const vm_program *p, const uint8_t *s)
{
    uint64_t m = 0;
    for (uint32_t t = 0; t < p->nthreads && t < 64; t++)
        if (vm_enabled(p, s, (int)t)) m |= 1ull << t;
    return m;
}

/* Does the step of thread tid from s execute a progress-labelled
 * instruction? (The labelled instructions are visible, vm_mark_progress(),
 * so a composed step executes one only as its first.) */
static inline bool is_progress(const vm_program *p, const uint8_t *s, int tid)
{
    const vm_body *b = vm_thread_body(p, s, tid);
    uint32_t pc = vm_tpc(p, s, tid);
    return b && pc < b->ncode && b->code[pc].progress_label;
}

/* ---- explore.c, parallel.c ---------------------------------------------- */

/* After a complete search: the instructions of `ran` not run, into r. */
void collect_unreached(const vm_program *p, uint8_t *const *ran, explore_result *r);

/* ---- lookahead.c (the calls dfs() makes: lookahead_int.h) ---------------- */

void ahead_start(search *S);  /* allocate and turn on, if it fits */
void ahead_free(search *S);

#endif
