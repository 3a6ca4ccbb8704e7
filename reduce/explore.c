/* explore.c: the search. Depth-first with an explicit stack of state vectors
 * (no recursion), or breadth-first with parent links for shortest traces.
 *
 * Successors are Stoller's composed transitions (section 5.1: a visible step
 * followed by the thread's invisible steps, bounded by BoundedInvis; step.c)
 * or, with REDUCE_NONE, single instructions. Every stored vector is the vm state
 * followed by one marker byte: 0, or for an error state the faulting thread's
 * id + 1, so an error state (which the interpreter leaves equal to its
 * predecessor) is stored as a state of its own and has no successors
 * (LANGUAGE.md), and the errors of two threads that fault in the same state
 * are two error states, each reported (with a marker of just 1 the second
 * was taken for "seen before" and never reported under --all-errors).
 * Deadlocks are
 * checked when a state is first stored. Paths are rebuilt from the stack or
 * the parent links; trace_replay() (replay.c) re-executes them for printing.
 * --memlimit counts everything the search allocates (store, stack or queue,
 * the errors it keeps): checked after every transition, and before the
 * stack or queue grows, so that a big state vector cannot take it past the
 * limit in one step. */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE (Linux), a hint for the DFS stack */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "step_int.h"

void explore_options_default(explore_options *o)
{
    memset(o, 0, sizeof *o);
    o->reduce = REDUCE_COMPOSE;
    o->search = SEARCH_DFS;
    o->store.kind = STORE_COMPACT;
    o->store.fingerprint_bits = 64;
    o->store.bitstate_k = 3;
    o->store.bitstate_bytes = 64u << 20;
    o->max_invisible = 100000;
    o->race = LS_LD; /* the reduction is sound only while LD' holds */
}

const char *verdict_name(verdict v)
{
    switch (v) {
    case VERDICT_OK: return "ok";
    case VERDICT_DEADLOCK: return "deadlock";
    case VERDICT_ASSERTION: return "assertion";
    case VERDICT_RUNTIME_ERROR: return "runtime_error";
    case VERDICT_LOCK_DISCIPLINE: return "lock_discipline";
    case VERDICT_RACE: return "race";
    case VERDICT_INCOMPLETE: return "incomplete";
    }
    return "?";
}

const char *stop_reason_name(stop_reason s)
{
    switch (s) {
    case STOP_COMPLETE: return "complete";
    case STOP_ERROR: return "error";
    case STOP_DEPTH: return "depth_limit";
    case STOP_MEMLIMIT: return "memory_limit";
    case STOP_TIMELIMIT: return "time_limit";
    case STOP_INTERRUPTED: return "interrupted";
    case STOP_NOMEM: return "out_of_memory";
    }
    return "?";
}

/* ---- the search context -------------------------------------------------- */

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

#ifndef RECENT_SLOTS
#define RECENT_SLOTS (1u << 15) /* 256 KB: about the L2 cache */
#endif

/* The DFS lookahead (extend_ahead()): at most AHEAD_MAX steps guessed
 * ahead, of which at most AHEAD_LOOKUPS store lookups, while the path is at
 * least AHEAD_MIN_CONF/256 likely. -D overrides them (and AHEAD_STORE_BYTES,
 * RECENT_SLOTS) for tuning; docs/benchmarks.md has what was tried. */
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

/* How often a store lookup in one context found a new state (guess_new()). */
typedef struct odds_count {
    uint32_t tries, news;
    bool guess;    /* news are the majority */
    uint32_t conf; /* the majority's share, of 256; 0 (no guess) until 64 tries */
} odds_count;

/* A step on the guessed path, built. */
typedef struct ahead_slot {
    uint8_t *vec;            /* the successor, built and marked */
    size_t depth;            /* the level it is a successor of */
    explore_step step;
    step_outcome out;
    uint64_t hash;
    uint64_t instructions;   /* counted for it, taken back if unused */
    bool recent;             /* in the recent cache when built: surely seen */
    bool fetched;            /* its entries are prefetched (else its index only) */
    unsigned ctx;            /* its lookup's context (CTX_LATER, CTX_LOWER) */
    bool guess_new;          /* a store lookup: guessed to find a new state */
    uint32_t conf;           /* a store lookup: that guess's odds, of 256 */
    explore_step after;      /* a later step: the step of its level before it, from which
                              * the threads up to step.tid were found disabled */
    uint64_t nchoices;       /* vm_enabled(step.tid) in the state it was built from */
} ahead_slot;

#define AHEAD(S, k) (&(S)->ahead[((S)->ahead_head + (k)) & (AHEAD_MAX - 1)])

/* The last step of the guessed path (extend_ahead()), kept while the path
 * has steps, so that the path grows from it without a walk. */
typedef struct path_tail {
    size_t depth;          /* the level it is taken from */
    explore_step step;
    uint64_t nchoices;     /* vm_enabled(step.tid) there */
    const uint8_t *from;   /* the state of that level: a slot's vector, the successor
                            * being looked up, S->cur or S->parent (dfs() moves it
                            * to S->parent or S->cur when it pushes or pops over it) */
    int32_t into_tid;      /* the thread of the step into that level; -1 for level 0 */
    const uint8_t *vec;    /* its successor */
    bool seen;             /* the successor is not descended into: guessed seen, in the
                            * recent cache, an error or at the depth limit */
    bool prev_new;         /* the guess of the path's last store lookup */
} path_tail;

typedef struct search {
    const vm_program *p;
    const explore_options *o;
    explore_result *r;
    store *st;
    size_t ssize;      /* the state: vm part, then the detector's metadata */
    size_t vsize;      /* stored vector: the state + error marker */
    ls_detector *det;  /* lock-discipline / race detector, NULL for --race=off */
    vm_hooks hooks;
    step_env env;      /* what step_run() runs with */
    /* DFS stack (frame above) */
    frame *frames;
    size_t cap;        /* frames allocated */
    uint8_t *undo;     /* the undo records of every level, bottom first */
    size_t undo_len, undo_cap;
    uint8_t *cur;      /* the state of the top level (also BFS's initial state) */
    uint8_t *next;     /* the successor being built (DFS only) */
    size_t wsize;      /* bytes of cur and next: vsize rounded up to 8, zero padded */
    size_t vec_bytes;  /* of cur, next, ahead and recent together */
    bool hashing;      /* the store takes a hash (store_takes_hash): recent is on */
    uint64_t *recent;  /* RECENT_SLOTS hashes of recent lookups (insert_prepared) */
    /* DFS lookahead (extend_ahead(), without a detector): the steps the
     * search will likely take next, built, hashed and prefetched before
     * they are taken */
    bool may_look_ahead;     /* DFS, no detector, a hashing store, not --lookahead=off */
    bool ahead_on;           /* started (start_ahead): at once, or (auto) once the store is big */
    ahead_slot ahead[AHEAD_MAX]; /* the guessed path, a ring: AHEAD(S, 0) comes next */
    unsigned ahead_head, nahead;
    unsigned ahead_lookups;  /* of the slots, those not in the recent cache */
    path_tail tail;          /* the path's last step (valid while nahead > 0) */
    uint8_t *parent;         /* the state of the level below the top (state_at) */
    size_t parent_of;        /* the top level whose parent it is now (SIZE_MAX: none) */
    odds_count odds[4][2];   /* odds that a store lookup is new, by context (guess_new) */
    /* BFS queue: every state's parent link and step (for traces), the
     * vectors of the states from qbase on (the level being expanded and the
     * next one) */
    uint64_t *qparent;
    explore_step *qvia;
    uint64_t qlen, qcap;
    uint8_t *qstates;  /* state i at (i - qbase) * vsize */
    uint64_t qbase, vcap;
    size_t error_bytes; /* r->errors and their paths */
    /* limits and progress */
    struct timespec t0;
    double next_progress;
    uint64_t next_check; /* work (search_work()) at which to look at the clock */
    stop_reason stop;
    bool truncated;
    uint8_t *scratch;  /* a state to try a step on (all_visible) */
} search;

static double now_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static uint64_t peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (uint64_t)ru.ru_maxrss * 1024u;
}

/* Bytes of the DFS stack or the BFS queue (what stats.search_bytes shows). */
static uint64_t stack_queue_bytes(const search *S)
{
    return (uint64_t)S->cap * sizeof(frame) + S->undo_cap + S->vec_bytes +
           S->qcap * (sizeof(uint64_t) + sizeof(explore_step)) + S->vcap * S->vsize;
}

/* Everything the search holds, as --memlimit counts it. */
static uint64_t search_memory(const search *S)
{
    return (uint64_t)store_bytes(S->st) + stack_queue_bytes(S) + S->error_bytes;
}

static void fill_stats(search *S)
{
    explore_stats *x = &S->r->stats;
    x->vector_bytes = S->ssize;
    if (S->st) {
        x->store_bytes = store_bytes(S->st);
        x->omission = store_omission_probability(S->st);
    }
    x->locksets = S->det ? ls_interned(S->det) : 0;
    x->detector_seconds = ls_seconds(S->det);
    x->search_bytes = stack_queue_bytes(S);
    x->peak_rss = peak_rss();
    x->seconds = now_since(&S->t0);
}

static void progress_line(search *S, double t)
{
    explore_stats *x = &S->r->stats;
    fprintf(S->o->progress,
            "mcheck: %" PRIu64 " states, %.0f states/s, %" PRIu64
            " transitions, depth %" PRIu64 ", store %.1f MB, %.0f s\n",
            x->states_stored, t > 0 ? (double)x->states_stored / t : 0.0,
            x->transitions, x->max_depth, (double)store_bytes(S->st) / 1048576.0, t);
    fflush(S->o->progress);
}

/* Work done so far, for pacing the clock: an instruction is 1, a transition
 * also copies and hashes a vector (1 per 64 bytes), so a model with
 * megabyte states looks at the clock every few transitions, a small one
 * every thousand or so. */
static uint64_t search_work(const search *S)
{
    const explore_stats *x = &S->r->stats;
    return x->instructions + x->transitions * (1 + S->vsize / 64);
}

/* A guess costs a step and a hash when it is wrong, and pays only when
 * lookups miss the caches: --lookahead=auto guesses from a store of this
 * size on (philosophers N=4, 1.5 MB: 10% more instructions, none saved). */
#ifndef AHEAD_STORE_BYTES
#define AHEAD_STORE_BYTES ((size_t)4 << 20)
#endif

/* Turn the lookahead on: its AHEAD_MAX + 1 vectors, if they fit in memory
 * and under --memlimit (else it stays off: it only saves time). The slots'
 * vectors trade places with S->next as steps are taken (each is its own
 * allocation; free_vectors() frees them all). */
static void start_ahead(search *S)
{
    size_t bytes = (AHEAD_MAX + 1) * S->wsize;
    S->may_look_ahead = false;
    if (S->o->memlimit && search_memory(S) + bytes > S->o->memlimit) return;
    for (unsigned k = 0; k < AHEAD_MAX; k++)
        if (!(S->ahead[k].vec = calloc(1, S->wsize))) return;
    if (!(S->parent = calloc(1, S->wsize))) return;
    S->vec_bytes += bytes;
    S->ahead_on = true;
}

static void free_vectors(search *S)
{
    free(S->cur);
    free(S->next);
    for (unsigned k = 0; k < AHEAD_MAX; k++) free(S->ahead[k].vec);
    free(S->parent);
    free(S->recent);
}

/* Memory after every transition; time, interrupt and progress every 8192
 * units of work (and whether the lookahead is on). Returns false when the
 * search must stop (S->stop says why). */
static bool limits_check(search *S)
{
    if (S->may_look_ahead && !S->ahead_on &&
        (S->o->lookahead != LOOKAHEAD_AUTO || store_bytes(S->st) > AHEAD_STORE_BYTES))
        start_ahead(S);
    if (S->o->memlimit && search_memory(S) > S->o->memlimit) {
        S->stop = STOP_MEMLIMIT;
        return false;
    }
    uint64_t work = search_work(S);
    if (work < S->next_check) return true;
    S->next_check = work + 8192;
    if (S->o->interrupt && *S->o->interrupt) {
        S->stop = STOP_INTERRUPTED;
        return false;
    }
    double t = now_since(&S->t0);
    if (S->o->timelimit > 0 && t >= S->o->timelimit) {
        S->stop = STOP_TIMELIMIT;
        return false;
    }
    if (S->o->progress && t >= S->next_progress) {
        progress_line(S, t);
        S->next_progress = t + 3.0;
    }
    return true;
}

/* limits_check(), with the common case (no --memlimit, clock not due) inline. */
static inline bool limits_ok(search *S)
{
    if (!S->o->memlimit && search_work(S) < S->next_check) return true;
    return limits_check(S);
}

/* ---- successors ---------------------------------------------------------- */


/* The two steps of every transition, inlined into the search loops. */
#if defined(__GNUC__)
#define HOT_INLINE inline __attribute__((always_inline))
#else
#define HOT_INLINE inline
#endif

/* Run step (tid, choice) on s in place: the composed step (step.c) with the
 * search's environment. False if the search must stop (S->stop says why). */
static HOT_INLINE bool run_step(search *S, uint8_t *s, int tid, uint64_t choice,
                                step_outcome *out)
{
    if (step_run(&S->env, s, tid, choice, out, &S->r->stats)) return true;
    S->stop = STOP_NOMEM;
    return false;
}

/* The first thread enabled in s, and its number of choices in *n; nthreads
 * (and *n = 0) if none. */
static uint32_t first_enabled(const vm_program *p, const uint8_t *s, uint64_t *n)
{
    for (uint32_t t = 0; t < p->nthreads; t++)
        if ((*n = vm_enabled(p, s, (int)t)) != 0) return t;
    *n = 0;
    return p->nthreads;
}

static bool any_enabled(const vm_program *p, const uint8_t *s)
{
    uint64_t n;
    return first_enabled(p, s, &n) < p->nthreads;
}

/* Is every thread at a control point the reduced search can store: a
 * visible pc, or an instruction that errs in this state (the composed step
 * ends before it)? For --dump-states of the full search only (it steps a
 * scratch copy). */
static bool all_visible(search *S, const uint8_t *s)
{
    const vm_program *p = S->p;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        if (vm_at_visible(p, s, (int)t)) continue;
        if (!S->scratch && !(S->scratch = malloc(S->vsize))) return false;
        memcpy(S->scratch, s, S->ssize);
        vm_fault f;
        vm_status rc = vm_step(p, S->scratch, (int)t, 0, &S->hooks, &f);
        if (rc == VM_OK) return false;
    }
    return true;
}

static void dump_state(search *S, const uint8_t *s)
{
    static const char hex[] = "0123456789abcdef";
    if (!S->o->dump_states) return;
    if (S->o->reduce == REDUCE_NONE && !all_visible(S, s)) return;
    for (size_t i = 0; i < S->p->layout.size; i++) {
        fputc(hex[s[i] >> 4], S->o->dump_states);
        fputc(hex[s[i] & 15], S->o->dump_states);
    }
    fputc('\n', S->o->dump_states);
}

static bool keeps_trace(const search *S)
{
    return S->r->nerrors < (S->o->max_traces ? S->o->max_traces : 10);
}

/* Record an error with its path (the first max_traces errors keep it; later
 * ones are counted, so --all-errors on a model with thousands of deep
 * errors stays within memory). Returns false if the search must stop. */
static bool record_error(search *S, const step_outcome *e, const explore_step *path,
                         uint32_t len)
{
    explore_result *r = S->r;
    r->error_count[e->kind]++;
    if (keeps_trace(S)) {
        explore_error *ne = realloc(r->errors, (r->nerrors + 1) * sizeof *ne);
        if (!ne) {
            S->stop = STOP_NOMEM;
            return false;
        }
        r->errors = ne;
        S->error_bytes += sizeof *ne;
        explore_error *er = &ne[r->nerrors];
        memset(er, 0, sizeof *er);
        er->kind = e->kind;
        er->cause = e->cause;
        er->fault = e->fault;
        snprintf(er->msg, sizeof er->msg, "%s", e->msg);
        er->tid = e->tid;
        er->pc = e->pc;
        er->elem = e->elem;
        er->len = len;
        er->path = malloc((len ? len : 1) * sizeof *path);
        if (!er->path) {
            S->stop = STOP_NOMEM;
            return false;
        }
        if (len) memcpy(er->path, path, len * sizeof *path);
        S->error_bytes += (len ? len : 1) * sizeof *path;
        r->nerrors++;
    }
    if (!S->o->all_errors) {
        S->stop = STOP_ERROR;
        return false;
    }
    return true;
}

/* Classify a newly stored, non-error state: a deadlock is an error. The
 * first enabled thread and its choices go to *first, *n (first_enabled()),
 * where the DFS starts expanding the state. */
static bool is_deadlock(const vm_program *p, const uint8_t *s, step_outcome *e,
                        uint32_t *first, uint64_t *n)
{
    *first = first_enabled(p, s, n);
    if (*first < p->nthreads || vm_valid_end(p, s)) return false;
    e->kind = VERDICT_DEADLOCK;
    e->cause = CAUSE_DEADLOCK;
    e->tid = -1;
    e->pc = 0;
    e->elem = UINT32_MAX;
    snprintf(e->msg, sizeof e->msg, "deadlock: no thread can move");
    return true;
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

/* Is the hash in the cache of recent lookups (see insert_prepared())? */
static inline bool is_recent(const search *S, uint64_t hash)
{
    return hash && S->recent[(hash >> 24) & (RECENT_SLOTS - 1)] == hash;
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
static HOT_INLINE int insert_prepared(search *S, uint8_t *s, step_outcome *out, uint64_t hash,
                                      bool prepared, bool recent, bool known, uint32_t *first,
                                      uint64_t *n)
{
    explore_stats *x = &S->r->stats;
    store_result sr;
    if (prepared) {
        uint64_t *rc = &S->recent[(hash >> 24) & (RECENT_SLOTS - 1)];
        if (recent) {
            sr = STORE_PRESENT;
        } else {
            sr = store_insert_prepared(S->st, s, hash);
            if (sr != STORE_FULL) *rc = hash;
        }
    } else {
        sr = store_insert(S->st, s);
    }
    if (sr == STORE_FULL) {
        S->stop = STOP_NOMEM;
        return INS_STOP;
    }
    if (sr == STORE_PRESENT) {
        x->states_matched++;
        return INS_SEEN;
    }
    x->states_stored++;
    if (out->kind != VERDICT_OK) return INS_ERROR;
    if (S->o->dump_states) dump_state(S, s);
    if (known) return INS_NEW; /* a thread is enabled */
    return is_deadlock(S->p, s, out, first, n) ? INS_ERROR : INS_NEW;
}

static HOT_INLINE int insert_successor(search *S, uint8_t *s, step_outcome *out,
                                       uint32_t *first, uint64_t *n)
{
    mark_outcome(S, s, out);
    if (S->hashing) {
        uint64_t h = store_hash(S->st, s);
        return insert_prepared(S, s, out, h, true, is_recent(S, h), false, first, n);
    }
    return insert_prepared(S, s, out, 0, false, false, false, first, n);
}

/* ---- depth-first -------------------------------------------------------- */

/* New capacity for an array of `cap` entries of `entry` bytes that must
 * hold `need`: double it (starting with about `first_bytes` worth, at
 * least 2 entries, at most `first_max`), but never past --memlimit, so a
 * search with big vectors stops at the limit instead of allocating far
 * beyond it. 0 (S->stop set) if `need` does not fit. `enforce` is false
 * only for the initial state, which the search cannot do without: it gets
 * `need` entries then, even past the limit (the next check stops). */
static uint64_t grown_capacity(search *S, uint64_t cap, uint64_t need, size_t entry,
                               size_t first_bytes, uint64_t first_max, bool enforce)
{
    uint64_t nc = cap ? cap * 2 : first_bytes / entry;
    if (!cap && nc > first_max) nc = first_max;
    if (nc < 2) nc = 2;
    if (nc < need) nc = need;
    if (nc > SIZE_MAX / entry / 2) { /* no allocation could be that big */
        S->stop = STOP_NOMEM;
        return 0;
    }
    if (S->o->memlimit) {
        uint64_t used = search_memory(S);
        uint64_t room = used < S->o->memlimit ? (S->o->memlimit - used) / entry : 0;
        if (nc - cap > room) nc = cap + room;
        if (nc < need && enforce) {
            S->stop = STOP_MEMLIMIT;
            return 0;
        }
        if (nc < need) nc = need;
    }
    return nc;
}

/* A hint for the DFS arrays: where the kernel has transparent huge pages
 * on request, ask for them, so that a deep stack costs a page fault per
 * 2 MB rather than per 4 KB. */
static void hint_huge(void *p, size_t bytes)
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

/* Room for `need` frames on the DFS stack; false with S->stop set if not. */
static bool dfs_grow_slow(search *S, size_t need, bool enforce)
{
    uint64_t nc = grown_capacity(S, S->cap, need, sizeof(frame), (size_t)1 << 20, 1u << 16,
                                 enforce);
    if (!nc) return false;
    frame *nf = realloc(S->frames, (size_t)nc * sizeof *nf);
    if (!nf) {
        S->stop = STOP_NOMEM;
        return false;
    }
    S->frames = nf;
    S->cap = (size_t)nc;
    hint_huge(nf, (size_t)nc * sizeof *nf);
    return true;
}

static inline bool dfs_grow(search *S, size_t need, bool enforce)
{
    return need <= S->cap || dfs_grow_slow(S, need, enforce);
}

/* Room for one more level's undo record (at most every word of the vector). */
static bool undo_grow_slow(search *S, size_t need)
{
    uint64_t nc = grown_capacity(S, S->undo_cap, need, 1, (size_t)1 << 20, (size_t)1 << 20, true);
    if (!nc) return false;
    uint8_t *nu = realloc(S->undo, (size_t)nc);
    if (!nu) {
        S->stop = STOP_NOMEM;
        return false;
    }
    S->undo = nu;
    S->undo_cap = (size_t)nc;
    hint_huge(nu, (size_t)nc);
    return true;
}

static inline bool undo_grow(search *S)
{
    size_t need = S->undo_len + S->wsize / 8 * UNDO_REC;
    return need <= S->undo_cap || undo_grow_slow(S, need);
}

static inline uint8_t *undo_word(uint8_t *o, size_t at, uint64_t old)
{
    uint32_t w = (uint32_t)(at / 8);
    memcpy(o, &w, 4);
    memcpy(o + 4, &old, 8);
    return o + UNDO_REC;
}

/* Append the undo record of the step from `old` to `neu` (the words that
 * differ, with their old values); returns its bytes. */
static inline uint32_t undo_push(search *S, const uint8_t *old, const uint8_t *neu)
{
    uint8_t *o = S->undo + S->undo_len, *start = o;
    for (size_t i = 0; i < S->wsize; i += 8) {
        uint64_t a, b;
        memcpy(&a, old + i, 8);
        memcpy(&b, neu + i, 8);
        if (a != b) o = undo_word(o, i, a);
    }
    S->undo_len += (size_t)(o - start);
    return (uint32_t)(o - start);
}

/* Apply the top level's undo record (of `bytes`) to a copy of the top
 * state at dst: it becomes the parent's state. */
static inline void undo_apply(const search *S, uint8_t *dst, uint32_t bytes)
{
    const uint8_t *rec = S->undo + S->undo_len - bytes;
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
    S->undo_len -= bytes;
}

/* Record an error reached from the top of the stack (index depth) by `last`. */
static bool dfs_error(search *S, size_t depth, const explore_step *last,
                      const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    explore_step *path = malloc((depth + 1) * sizeof *path);
    if (!path) {
        S->stop = STOP_NOMEM;
        return false;
    }
    for (size_t i = 0; i < depth; i++) { /* level i + 1 came from level i's last step */
        const frame *f = &S->frames[i];
        path[i] = (explore_step){f->tid, f->choice - 1};
    }
    path[depth] = *last;
    bool go_on = record_error(S, out, path, (uint32_t)depth + 1);
    free(path);
    return go_on;
}

/* The odds that a store lookup (a successor not in the recent cache) is of
 * a new state, by context: whether its step is a later one of its level
 * (CTX_LATER; else the first, after the parent was new), whether its thread
 * is below the thread of the step into its level (CTX_LOWER: then the two
 * steps in the other order were searched already, and if they commute the
 * state was seen), and whether the store lookup before it was new. Counted
 * as the search goes, over a decaying window. Philosophers N=5: a first
 * step is new 98% of the time, and 8% with CTX_LOWER; a later one after a
 * seen lookup 20%; prodcons: a first step 96%, a later one after a new
 * lookup 99%. --lookahead=child and =sibling always guess new and seen. */
enum { CTX_LATER = 1, CTX_LOWER = 2 };
#define ODDS_WINDOW 4096
static inline bool guess_new(const search *S, unsigned ctx, bool prev_new, uint32_t *conf)
{
    const odds_count *o = &S->odds[ctx][prev_new];
    if (S->o->lookahead == LOOKAHEAD_CHILD || S->o->lookahead == LOOKAHEAD_SIBLING) {
        *conf = 256;
        return S->o->lookahead == LOOKAHEAD_CHILD;
    }
    *conf = o->conf;
    return o->guess;
}

static inline void odds_count_one(search *S, unsigned ctx, bool prev_new, bool is_new)
{
    odds_count *o = &S->odds[ctx][prev_new];
    o->tries++;
    o->news += is_new;
    if (o->tries >= ODDS_WINDOW) {
        o->tries /= 2;
        o->news /= 2;
    }
    if ((o->tries & 63) == 0) { /* the guess and its share, now and then */
        o->guess = o->news * 2 >= o->tries;
        o->conf = (o->guess ? o->news : o->tries - o->news) * 256 / o->tries;
    }
}

/* Take back the unused lookaheads' counts. */
static inline void drop_ahead(search *S)
{
    for (unsigned k = 0; k < S->nahead; k++) {
        S->r->stats.instructions -= AHEAD(S, k)->instructions;
        S->r->stats.invisible -= AHEAD(S, k)->instructions - 1;
    }
    S->nahead = 0;
    S->ahead_lookups = 0;
}

/* Append to the guessed path the successor that step st takes from
 * `from`, the state of level depth; hash it and, if it is not in the recent
 * cache, start its lookup: the index, and the entries too if `fetch`. */
static HOT_INLINE ahead_slot *build_ahead(search *S, const uint8_t *from, size_t depth,
                                          explore_step st, bool fetch, unsigned ctx,
                                          bool prev_new)
{
    explore_stats *x = &S->r->stats;
    ahead_slot *a = AHEAD(S, S->nahead++);
    uint64_t i0 = x->instructions;
    memcpy(a->vec, from, S->ssize);
    (void)run_step(S, a->vec, st.tid, st.choice, &a->out); /* false only with a detector */
    mark_outcome(S, a->vec, &a->out);
    a->hash = store_hash(S->st, a->vec);
    a->recent = is_recent(S, a->hash);
    a->fetched = false;
    a->ctx = ctx;
    a->guess_new = false;
    a->conf = 256;
    if (!a->recent) {
        S->ahead_lookups++;
        a->guess_new = guess_new(S, ctx, prev_new, &a->conf);
        store_prefetch_index(S->st, a->hash);
        if (fetch) {
            store_prefetch(S->st, a->hash, a->guess_new);
            a->fetched = true;
        }
    }
    a->depth = depth;
    a->step = st;
    a->instructions = x->instructions - i0;
    return a;
}

/* The state of level L on the guessed path, as the path is extended while
 * the step (depth, st) to `ns` is looked up: the successor of the path's
 * last step into L, or if it has none, S->cur for the top level, ns above
 * it and the parent (rebuilt from the top level's undo record) below. */
static const uint8_t *state_at(search *S, size_t depth, const uint8_t *ns, size_t L)
{
    for (unsigned k = S->nahead; k-- > 0;)
        if (AHEAD(S, k)->depth + 1 == L) return AHEAD(S, k)->vec;
    if (L == depth) return S->cur;
    if (L == depth + 1) return ns;
    if (L + 1 != depth) return NULL;
    if (S->parent_of != depth) { /* rebuilt once per top level */
        memcpy(S->parent, S->cur, S->ssize);
        undo_apply(S, S->parent, S->frames[depth].undo);
        S->parent_of = depth;
    }
    return S->parent;
}

/* The step of the guessed path from level L - 1 into level L, and the
 * choices of its thread; false for level 0. */
static bool step_into(const search *S, size_t depth, explore_step st, size_t L,
                      explore_step *out, uint64_t *nchoices)
{
    for (unsigned k = S->nahead; k-- > 0;)
        if (AHEAD(S, k)->depth + 1 == L) {
            *out = AHEAD(S, k)->step;
            *nchoices = AHEAD(S, k)->nchoices;
            return true;
        }
    if (L == depth + 1) {
        *out = st;
        *nchoices = S->frames[depth].nchoices;
        return true;
    }
    if (L == 0 || L > depth) return false;
    const frame *f = &S->frames[L - 1]; /* the search's own levels */
    *out = (explore_step){f->tid, f->choice - 1};
    *nchoices = f->nchoices;
    return true;
}

/* Build the step after the path's tail tl and make it the tail: if the
 * tail's successor is guessed new (!tl->seen), its first step; else the
 * next step of the tail's level, or of the level below when that one has
 * none. False if there is none to guess (or the level below is below the
 * top's parent). */
static bool next_ahead(search *S, size_t depth, explore_step st, const uint8_t *ns,
                       path_tail *tl, bool fetch)
{
    const vm_program *p = S->p;
    const int32_t nthreads = (int32_t)p->nthreads;
    ahead_slot *a;
    if (!tl->seen) {
        uint64_t n;
        int32_t t = (int32_t)first_enabled(p, tl->vec, &n);
        if (t < nthreads) {
            unsigned ctx = t < tl->step.tid ? CTX_LOWER : 0;
            a = build_ahead(S, tl->vec, tl->depth + 1, (explore_step){t, 0}, fetch, ctx,
                            tl->prev_new);
            a->nchoices = n;
            tl->into_tid = tl->step.tid;
            tl->from = tl->vec;
            tl->depth++;
            tl->step = a->step;
            tl->nchoices = n;
            goto built;
        }
    }
    size_t L = tl->depth;
    explore_step s = tl->step;
    uint64_t nc = tl->nchoices;
    const uint8_t *from = tl->from;
    int32_t into = tl->into_tid;
    for (;;) { /* the next step of level L after step s (nc: choices of s.tid) */
        int32_t t = s.tid;
        uint64_t c = s.choice + 1;
        if (c >= nc) {
            for (t = s.tid + 1; t < nthreads; t++)
                if ((nc = vm_enabled(p, from, t)) != 0) break;
            c = 0;
        }
        if (t < nthreads) {
            unsigned ctx = CTX_LATER | (t < into ? CTX_LOWER : 0);
            a = build_ahead(S, from, L, (explore_step){t, c}, fetch, ctx, tl->prev_new);
            a->after = s;
            a->nchoices = nc;
            tl->depth = L;
            tl->step = a->step;
            tl->nchoices = nc;
            tl->from = from;
            tl->into_tid = into;
            goto built;
        }
        /* the level below: its step into L, its state, and the step into it */
        if (L + 1 == depth || L == 0 || !step_into(S, depth, st, L, &s, &nc)) return false;
        L--;
        if (!(from = state_at(S, depth, ns, L))) return false;
        explore_step below;
        uint64_t below_n;
        into = step_into(S, depth, st, L, &below, &below_n) ? below.tid : -1;
    }
built:
    tl->vec = a->vec;
    tl->seen = !a->guess_new || a->out.kind != VERDICT_OK ||
               (S->o->max_depth && tl->depth + 1 >= S->o->max_depth);
    if (!a->recent) tl->prev_new = a->guess_new;
    return true;
}

/* Extend the guessed path of the steps after (depth, st) to ns, the one
 * being looked up (`recent`: found in the recent cache; `ctx`: its
 * context, see guess_new(); `prev_new`: the store lookup before it found a
 * new state), while it holds fewer than AHEAD_LOOKUPS store lookups and is
 * likely enough. Each store lookup on the path is guessed new or seen by
 * the odds of its context (guess_new()); one in the recent cache, an error
 * or a state at the depth limit is surely not descended into. After a
 * successor guessed new comes its first step; after one guessed seen, the
 * next step of its level, or of the level below when its level has none.
 * The path's last step is kept (S->tail) so that the path grows from it;
 * the main loop takes the path while the search follows it. */
static void extend_ahead(search *S, size_t depth, explore_step st, const uint8_t *ns,
                         const step_outcome *out, bool recent, unsigned ctx, bool prev_new)
{
    if (S->nahead == AHEAD_MAX || S->ahead_lookups >= AHEAD_LOOKUPS) return; /* long enough */
    /* how likely the path is, of 256: the step being looked up, then each slot */
    uint32_t conf = 256;
    bool g = !recent && guess_new(S, ctx, prev_new, &conf);
    for (unsigned k = 0; k < S->nahead; k++) conf = conf * AHEAD(S, k)->conf / 256;
    path_tail *tl = &S->tail;
    if (S->nahead == 0) { /* the tail is the step being looked up */
        tl->depth = depth;
        tl->step = st;
        tl->nchoices = S->frames[depth].nchoices;
        tl->from = S->cur;
        tl->into_tid = depth ? S->frames[depth - 1].tid : -1;
        tl->vec = ns;
        tl->seen = !g || out->kind != VERDICT_OK ||
                   (S->o->max_depth && depth + 1 >= S->o->max_depth);
        tl->prev_new = recent ? prev_new : g;
    }
    while (S->nahead < AHEAD_MAX && S->ahead_lookups < AHEAD_LOOKUPS && conf >= AHEAD_MIN_CONF) {
        if (!next_ahead(S, depth, st, ns, tl, S->ahead_lookups == 0)) return;
        conf = conf * AHEAD(S, S->nahead - 1)->conf / 256;
    }
}

/* The path's first step was taken: the rest moves up, and the entries of
 * its first store lookup are prefetched if they are not yet. */
static inline void advance_ahead(search *S)
{
    S->ahead_lookups -= !AHEAD(S, 0)->recent;
    S->ahead_head = (S->ahead_head + 1) & (AHEAD_MAX - 1);
    S->nahead--;
    for (unsigned k = 0; k < S->nahead; k++) {
        ahead_slot *a = AHEAD(S, k);
        if (a->recent) continue;
        if (!a->fetched) {
            store_prefetch(S->st, a->hash, a->guess_new);
            a->fetched = true;
        }
        break;
    }
}

/* Depth-first from the initial state at level 0, whose first enabled thread
 * is `first` with `n` choices. A new level starts at the thread
 * insert_successor() found enabled first, so the threads before it are not
 * asked again. With the lookahead (extend_ahead()) the order, the counts
 * and the traces are the same: the search takes a built step only if it is
 * the step it takes next, at the same level, and it drops the whole path at
 * the first step that differs, so every built step was built from the state
 * the search has at that level. */
static void dfs(search *S, uint32_t first, uint64_t n)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    const int32_t nthreads = (int32_t)p->nthreads;
    size_t depth = 0; /* index of the top level */
    uint64_t max_depth = S->o->max_depth;
    frame *f = &S->frames[0];
    f->tid = (int32_t)first;
    f->undo = 0;
    f->choice = 0;
    f->nchoices = n;
    if (S->may_look_ahead && S->o->lookahead != LOOKAHEAD_AUTO) start_ahead(S);
    S->parent_of = SIZE_MAX;
    bool fresh = true;     /* the top level has taken no step yet */
    bool prev_new = false; /* the last store lookup found a new state */

    while (S->stop == STOP_COMPLETE) {
        f = &S->frames[depth];
        if (S->nahead) {
            /* The path's next step follows the step just taken at this
             * level: the threads between were found disabled in this same
             * state when it was built, so they need not be asked again. */
            const ahead_slot *a = AHEAD(S, 0);
            if ((a->ctx & CTX_LATER) && a->depth == depth && a->after.tid == f->tid &&
                a->after.choice + 1 == f->choice) {
                f->tid = a->step.tid;
                f->choice = a->step.choice;
                f->nchoices = a->nchoices;
            }
        }
        while (f->tid < nthreads) { /* next (tid, choice) */
            if (f->nchoices == 0) f->nchoices = vm_enabled(p, S->cur, f->tid);
            if (f->choice < f->nchoices) break;
            f->tid++;
            f->choice = 0;
            f->nchoices = 0;
        }
        if (f->tid >= nthreads) {
            if (depth == 0) break;
            if (S->nahead) {
                if (S->tail.from == S->cur) /* its level is gone */
                    drop_ahead(S);
                else if (S->tail.from == S->parent) /* its level becomes the top */
                    S->tail.from = S->cur;
            }
            undo_pop(S, f->undo);
            depth--;
            S->parent_of = SIZE_MAX;
            fresh = false;
            continue;
        }
        explore_step st = {f->tid, f->choice++};
        uint8_t *ns;
        step_outcome out_here, *out;
        uint64_t hash = 0;
        bool recent;
        if (S->nahead && AHEAD(S, 0)->depth == depth && AHEAD(S, 0)->step.tid == st.tid &&
            AHEAD(S, 0)->step.choice == st.choice) {
            ahead_slot *a = AHEAD(S, 0);
            recent = a->recent;
            ns = a->vec; /* built (and prefetched) before */
            a->vec = S->next;
            S->next = ns;
            out = &out_here;
            if (a->out.kind == VERDICT_OK) { /* the message is not read */
                out_here.kind = VERDICT_OK;
                out_here.elem = UINT32_MAX;
            } else {
                out_here = a->out;
            }
            hash = a->hash;
            advance_ahead(S);
        } else {
            drop_ahead(S);
            ns = S->next;
            out = &out_here;
            memcpy(ns, S->cur, S->ssize);
            if (!run_step(S, ns, st.tid, st.choice, out)) break;
            mark_outcome(S, ns, out);
            if (S->hashing) hash = store_hash(S->st, ns);
            recent = S->hashing && is_recent(S, hash);
        }
        x->transitions++;
        unsigned ctx = 0;
        bool known = false;
        if (S->ahead_on) {
            ctx = (fresh ? 0 : CTX_LATER) |
                  (depth && st.tid < S->frames[depth - 1].tid ? CTX_LOWER : 0);
            extend_ahead(S, depth, st, ns, out, recent, ctx, prev_new);
            /* the path's next step is the first step of ns: its first enabled thread */
            const ahead_slot *c = AHEAD(S, 0);
            if (S->nahead && c->depth == depth + 1 && !(c->ctx & CTX_LATER)) {
                known = true;
                first = (uint32_t)c->step.tid;
                n = c->nchoices;
            }
        }
        fresh = false;
        int rc = insert_prepared(S, ns, out, hash, S->hashing, recent, known, &first, &n);
        if (S->ahead_on && !recent) { /* the odds */
            odds_count_one(S, ctx, prev_new, rc == INS_NEW);
            prev_new = rc == INS_NEW;
        }
        if (rc == INS_STOP) break;
        if (rc == INS_ERROR && !dfs_error(S, depth, &st, out)) break;
        if (rc == INS_NEW) {
            if (!dfs_grow(S, depth + 2, true) || !undo_grow(S)) break;
            depth++;
            fresh = true;
            S->parent_of = SIZE_MAX;
            if (S->nahead) { /* the path's tail may stand on the old top or its parent */
                if (S->tail.from == S->parent) {
                    drop_ahead(S);
                } else if (S->tail.from == S->cur) { /* the old top is the new parent */
                    memcpy(S->parent, S->cur, S->ssize);
                    S->parent_of = depth;
                    S->tail.from = S->parent;
                }
            }
            frame *nf = &S->frames[depth];
            nf->undo = undo_push(S, S->cur, ns);
            S->next = S->cur;
            S->cur = ns;
            nf->tid = (int32_t)first;
            nf->choice = 0;
            nf->nchoices = n;
            if (max_depth && depth >= max_depth) {
                if (n) S->truncated = true;
                nf->tid = nthreads; /* a leaf: do not expand */
            }
            if (depth > x->max_depth) x->max_depth = depth;
        }
        if (!limits_ok(S)) break;
    }
    drop_ahead(S);
}

/* ---- breadth-first ------------------------------------------------------ */

/* The vector of BFS queue entry i (i >= S->qbase). */
static inline uint8_t *bfs_vec(const search *S, uint64_t i)
{
    return S->qstates + (size_t)(i - S->qbase) * S->vsize;
}

/* Appends a state to the BFS queue; false with S->stop set if it cannot. */
static bool bfs_push(search *S, const uint8_t *s, uint64_t parent,
                     const explore_step *via, bool enforce)
{
    if (S->qlen - S->qbase == S->vcap) {
        uint64_t nc = grown_capacity(S, S->vcap, S->vcap + 1, S->vsize, (size_t)4 << 20, 1024,
                                     enforce);
        if (!nc) return false;
        uint8_t *ns = realloc(S->qstates, (size_t)nc * S->vsize);
        if (!ns) goto nomem;
        S->qstates = ns;
        S->vcap = nc;
    }
    if (S->qlen == S->qcap) {
        uint64_t nc = grown_capacity(S, S->qcap, S->qlen + 1,
                                     sizeof(uint64_t) + sizeof(explore_step),
                                     (size_t)4 << 20, 1024, enforce);
        if (!nc) return false;
        /* the arrays may end up with different sizes; qcap is the smallest */
        uint64_t *np = realloc(S->qparent, (size_t)nc * sizeof *np);
        if (!np) goto nomem;
        S->qparent = np;
        explore_step *nv = realloc(S->qvia, (size_t)nc * sizeof *nv);
        if (!nv) goto nomem;
        S->qvia = nv;
        S->qcap = nc;
    }
    memcpy(bfs_vec(S, S->qlen), s, S->vsize);
    S->qparent[S->qlen] = parent;
    S->qvia[S->qlen] = *via;
    S->qlen++;
    return true;
nomem:
    S->stop = STOP_NOMEM;
    return false;
}

static bool bfs_error(search *S, uint64_t at, const explore_step *last,
                      const step_outcome *out)
{
    if (!keeps_trace(S)) return record_error(S, out, NULL, 0);
    uint32_t len = 0;
    for (uint64_t i = at; i != 0; i = S->qparent[i]) len++;
    explore_step *path = malloc((len + 1) * sizeof *path);
    if (!path) {
        S->stop = STOP_NOMEM;
        return false;
    }
    uint32_t k = len;
    for (uint64_t i = at; i != 0; i = S->qparent[i]) path[--k] = S->qvia[i];
    path[len] = *last;
    bool go_on = record_error(S, out, path, len + 1);
    free(path);
    return go_on;
}

/* BFS in batches: the successors of consecutive states of one level are
 * built, hashed and their store lookups prefetched, BFS_BATCH at a time,
 * then inserted in the order the plain loop inserts them, so that a batch's
 * lookups wait for memory together rather than one after another. Nothing
 * but time changes: the same states in the same queue order, the same
 * counts, errors and traces (a batch never spans two levels, so each
 * state's level is known before its batch is built; steps built but not
 * inserted because the search stopped are taken back from the count of
 * instructions). Without a detector and with a store that takes the hash,
 * like the DFS lookahead; --lookahead=off turns it off too. Search time,
 * --reduce=none, against the plain loop, runs taken in turn: philosophers
 * N=5 (4.4M states) 0.72-0.77x, prodcons_monitor ITEMS=2000 0.73x; at N=5
 * batches of 8 took 1.15x the time of batches of 32, and of 128 0.97x. */
#ifndef BFS_BATCH
#define BFS_BATCH 32
#endif

typedef struct bfs_slot {
    uint64_t parent;       /* queue index of the state it is a successor of */
    explore_step st;
    uint64_t hash;
    uint64_t instructions; /* counted for it */
    step_outcome out;
} bfs_slot;

/* Builds the successors of queue states i, i + 1, ... (up to level_end)
 * into the batch while they fit, whole states only; returns the first state
 * not built (i if even state i's successors do not fit). */
static uint64_t bfs_fill(search *S, bfs_slot *slots, uint8_t *vecs, uint64_t i,
                         uint64_t level_end, unsigned *nb)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    uint64_t nt[VM_MAX_THREADS];
    unsigned n = 0;
    for (; i < S->qlen && i < level_end; i++) {
        const uint8_t *from = bfs_vec(S, i);
        uint64_t total = 0;
        for (uint32_t t = 0; t < p->nthreads; t++) total += nt[t] = vm_enabled(p, from, (int)t);
        if (total > BFS_BATCH - n) break;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            for (uint64_t c = 0; c < nt[t]; c++) {
                bfs_slot *b = &slots[n];
                uint8_t *v = vecs + (size_t)n * S->wsize;
                uint64_t i0 = x->instructions;
                memcpy(v, from, S->ssize);
                (void)run_step(S, v, (int)t, c, &b->out); /* false only with a detector */
                mark_outcome(S, v, &b->out);
                b->hash = store_hash(S->st, v);
                store_prefetch_index(S->st, b->hash);
                b->parent = i;
                b->st = (explore_step){(int32_t)t, c};
                b->instructions = x->instructions - i0;
                n++;
            }
        }
    }
    for (unsigned k = 0; k < n; k++) store_prefetch(S->st, slots[k].hash, false);
    *nb = n;
    return i;
}

/* Inserts the batch in order; false if the search stops. */
static bool bfs_drain(search *S, bfs_slot *slots, uint8_t *vecs, unsigned nb)
{
    explore_stats *x = &S->r->stats;
    for (unsigned k = 0; k < nb; k++) {
        bfs_slot *b = &slots[k];
        uint8_t *v = vecs + (size_t)k * S->wsize;
        x->transitions++;
        uint32_t first;
        uint64_t nfirst;
        int rc = insert_prepared(S, v, &b->out, b->hash, true, is_recent(S, b->hash), false,
                                 &first, &nfirst);
        bool go_on = rc != INS_STOP &&
                     (rc != INS_ERROR || bfs_error(S, b->parent, &b->st, &b->out)) &&
                     (rc != INS_NEW || bfs_push(S, v, b->parent, &b->st, true)) && limits_ok(S);
        if (!go_on) {
            for (k++; k < nb; k++) x->instructions -= slots[k].instructions; /* not taken */
            return false;
        }
    }
    return true;
}

static void bfs(search *S)
{
    const vm_program *p = S->p;
    explore_stats *x = &S->r->stats;
    uint8_t *ns = S->cur; /* the initial state, then each successor being built */
    explore_step none = {-1, 0};
    if (!bfs_push(S, S->cur, 0, &none, false)) return;
    bfs_slot *slots = NULL;
    uint8_t *vecs = NULL;
    size_t batch_bytes = BFS_BATCH * (sizeof *slots + S->wsize);
    if (!S->det && S->hashing && S->o->lookahead != LOOKAHEAD_OFF &&
        (!S->o->memlimit || search_memory(S) + batch_bytes <= S->o->memlimit)) {
        slots = malloc(BFS_BATCH * sizeof *slots);
        vecs = malloc(BFS_BATCH * S->wsize);
        if (slots && vecs) {
            S->vec_bytes += batch_bytes;
        } else {
            free(slots);
            free(vecs);
            slots = NULL;
        }
    }
    uint64_t level_end = 1, level = 0;
    for (uint64_t i = 0; i < S->qlen && S->stop == STOP_COMPLETE;) {
        if (i == level_end) {
            /* the level before is done: its vectors go */
            memmove(S->qstates, bfs_vec(S, i), (size_t)(S->qlen - i) * S->vsize);
            S->qbase = i;
            level++;
            level_end = S->qlen;
            if (level > x->max_depth) x->max_depth = level;
        }
        if (S->o->max_depth && level >= S->o->max_depth) {
            if (any_enabled(p, bfs_vec(S, i))) S->truncated = true;
            i++;
            continue;
        }
        if (slots) {
            unsigned nb;
            uint64_t next = bfs_fill(S, slots, vecs, i, level_end, &nb);
            if (next > i) { /* else state i alone has more successors than a batch */
                if (!bfs_drain(S, slots, vecs, nb)) break;
                i = next;
                continue;
            }
        }
        for (int32_t t = 0; t < (int32_t)p->nthreads && S->stop == STOP_COMPLETE; t++) {
            uint64_t n = vm_enabled(p, bfs_vec(S, i), t);
            for (uint64_t c = 0; c < n; c++) {
                explore_step st = {t, c};
                memcpy(ns, bfs_vec(S, i), S->ssize); /* queue may move */
                step_outcome out;
                if (!run_step(S, ns, t, c, &out)) break;
                x->transitions++;
                uint32_t first;
                uint64_t nfirst;
                int rc = insert_successor(S, ns, &out, &first, &nfirst);
                if (rc == INS_STOP) break;
                if (rc == INS_ERROR && !bfs_error(S, i, &st, &out)) break;
                if (rc == INS_NEW && !bfs_push(S, ns, i, &st, true)) break;
                if (!limits_ok(S)) break;
            }
        }
        i++;
    }
    if (slots) S->vec_bytes -= batch_bytes;
    free(slots);
    free(vecs);
}

/* ---- driver -------------------------------------------------------------- */

int explore_run(const vm_program *p, const explore_options *o, explore_result *r)
{
    search S;
    memset(&S, 0, sizeof S);
    memset(r, 0, sizeof *r);
    S.p = p;
    S.o = o;
    S.r = r;
    clock_gettime(CLOCK_MONOTONIC, &S.t0);
    S.next_progress = 2.0;
    if (o->race != LS_OFF) {
        S.det = ls_new(o->race, p, p->layout.size);
        if (!S.det) {
            r->stop = STOP_NOMEM;
            r->verdict = VERDICT_INCOMPLETE;
            return -1;
        }
        ls_hooks(S.det, &S.hooks);
    }
    S.env = (step_env){.p = p, .hooks = &S.hooks, .det = S.det, .reduce = o->reduce,
                       .max_invisible = o->max_invisible};
    S.ssize = p->layout.size + ls_meta_bytes(S.det);
    S.vsize = S.ssize + 1;
    S.wsize = (S.vsize + 7) & ~(size_t)7;
    S.st = store_new(&o->store, S.vsize);
    bool dfs_search = o->search != SEARCH_BFS;
    S.cur = calloc(1, S.wsize);
    S.next = dfs_search ? calloc(1, S.wsize) : NULL;
    S.hashing = S.st && store_takes_hash(S.st);
    S.recent = S.hashing ? calloc(RECENT_SLOTS, sizeof *S.recent) : NULL;
    if (!S.recent) S.hashing = false; /* it is only a cache */
    S.may_look_ahead = dfs_search && !S.det && S.hashing && o->lookahead != LOOKAHEAD_OFF;
    S.vec_bytes = (dfs_search ? 2 : 1) * S.wsize;
    if (S.recent) S.vec_bytes += RECENT_SLOTS * sizeof *S.recent;
    if (!S.st || !S.cur || (dfs_search && (!S.next || !dfs_grow(&S, 1, false)))) {
        r->stop = STOP_NOMEM;
        r->verdict = VERDICT_INCOMPLETE;
        store_free(S.st);
        ls_free(S.det);
        free(S.frames);
        free_vectors(&S);
        return -1;
    }
    uint8_t *s0 = S.cur;
    memcpy(s0, p->init_state, p->layout.size);
    if (S.det) ls_init_meta(S.det, s0);
    s0[S.ssize] = 0;
    step_outcome out = {.kind = VERDICT_OK, .elem = UINT32_MAX};
    uint32_t first;
    uint64_t nfirst;
    int rc = insert_successor(&S, s0, &out, &first, &nfirst);
    if (rc == INS_ERROR)
        record_error(&S, &out, NULL, 0);
    else if (rc == INS_NEW && o->search == SEARCH_BFS)
        bfs(&S);
    else if (rc == INS_NEW)
        dfs(&S, first, nfirst);

    fill_stats(&S);
    if (S.stop == STOP_COMPLETE && S.truncated) S.stop = STOP_DEPTH;
    r->stop = S.stop;
    if (r->nerrors)
        r->verdict = r->errors[0].kind;
    else if (S.stop == STOP_COMPLETE)
        r->verdict = VERDICT_OK;
    else
        r->verdict = VERDICT_INCOMPLETE;
    if (o->progress && r->stats.seconds >= 2.0) progress_line(&S, r->stats.seconds);
    store_free(S.st);
    ls_free(S.det);
    free(S.frames);
    free(S.undo);
    free_vectors(&S);
    free(S.qstates);
    free(S.qparent);
    free(S.qvia);
    free(S.scratch);
    return 0;
}

void explore_result_free(explore_result *r)
{
    if (!r) return;
    for (uint32_t i = 0; i < r->nerrors; i++) free(r->errors[i].path);
    free(r->errors);
    r->errors = NULL;
    r->nerrors = 0;
}
