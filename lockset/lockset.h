/* lockset.h: the lock-discipline and race detectors (the interface of the
 * lockset/ module): Stoller's LD' (his section 7), Eraser (Savage et al.,
 * TOCS 1997) and Goldilocks (Elmas, Qadeer, Tasiran, PLDI 2007).
 *
 * A detector receives the interpreter's events through a vm_hooks table
 * (ls_hooks) and keeps its per-element metadata INSIDE the state vector, at
 * the offset it was given, so that the search stores and compares it with the
 * rest of the state. Locksets themselves are not in the vector: they are
 * interned (hash-consed) in a table the detector owns, and the vector holds a
 * 32-bit id. Ids are handed out densely in order of first interning, so they
 * are deterministic for a deterministic sequence of events (one thread); each
 * distinct set has exactly one id, so equal detector states are equal bytes.
 * The empty set is always id 0. Intersections, "add one object" and the held
 * set are memoized per detector.
 *
 * The module knows nothing of the search: it does not decide when to check,
 * store or backtrack. Threads: one detector object is used by one thread at a
 * time. A parallel search gives each worker a clone (ls_clone) of one
 * detector: all of them share its interning table (interning takes a mutex,
 * only on a memo miss; reading a set takes no lock), so a set has the same id
 * in every worker, and each has its own scratch, memos, report and timing.
 * With several workers the ids depend on the interleaving, the bytes of equal
 * states are still equal.
 *
 * Metadata layout (all multi-byte fields little-endian, unused bytes zero):
 *   LS_LD        per shared element:   [mode:u8][cand:u32]            5 bytes
 *                  mode 0 virgin, 1 initialized (the one unchecked first
 *                  access by the `init T` thread was made), 2 checked,
 *                  3 checked and written. cand is 0 unless checked.
 *   LS_ERASER    per shared element:   [mode:u8][first:u8][cand:u32]  6 bytes
 *                  mode 0 virgin, 1 exclusive(first - 1), 2 shared,
 *                  3 shared-modified. first is 0 unless exclusive, cand is
 *                  0 unless shared or shared-modified.
 *   LS_GOLDILOCKS per shared element:  [W:u32][R[t]:u32 per thread]
 *                  W is the Goldilockset of the last write (0 = no write
 *                  yet), R[t] that of thread t's last read since that write
 *                  (0 = none).
 *   every kind, LS_OFF included, per unshared VARIABLE: [owner:u8] (0 =
 *                  untouched, else tid + 1): the first thread to touch any
 *                  element owns the whole variable (as tests/ref/refcheck.py
 *                  does). An LS_OFF detector keeps nothing else.
 *                  ls_canonicalize() forgets an owner once no live thread
 *                  may touch the variable again.
 *   volatile elements carry no metadata, and neither do the shared elements
 *                  a detector made with discharge (mcheck --por) knows
 *                  statically it can never report (discharge.c).
 *
 * LD' versus Eraser. LD' (Stoller) has no exclusive phase: without `init T`
 * every access is checked from the first one on, and the candidate set is the
 * intersection of the locks held at every access; a violation is an empty
 * candidate set on an element that has been written (read-only elements never
 * violate: LD-RO). An `init T` clause makes exactly the first access to each
 * element unchecked; it must be made by an instance of T (otherwise a
 * violation), and the candidate set starts at the locks held at the second
 * access. This is what the reduction needs (Stoller, Theorem 9): under LD'
 * every access after initialization is protected, so invisible steps commute.
 * Eraser instead infers the initialization phase: an element is exclusive to
 * its first thread (no declaration needed, any number of unlocked accesses),
 * the candidate set starts at the locks held at the first access by a second
 * thread and is refined on every later access, but reads by other threads
 * while it is "shared" (never written since becoming shared) are not
 * reported; only an empty candidate set in shared-modified is. Eraser ignores
 * `init T`. Both are disciplines, not happens-before: they flag programs that
 * synchronize by channels, join or volatile handoff (Goldilocks does not).
 *
 * Goldilocks: the eager rules of the paper, applied to every element at every
 * synchronization event. Sync objects are locks, threads, volatile elements
 * and channels. Release of l by t / volatile write of v by t / send on c by t
 * add l / v / c to every lockset containing t; acquire of l / volatile read
 * of v / recv on c by t add t to every lockset containing l / v / c; spawn
 * adds the child to every lockset containing the parent, join adds the joiner
 * to every lockset containing the joinee. Reads are kept apart as in the
 * paper: a read by t is checked against W (the last write must happen before
 * it) and sets R[t] := {t}; a write by t is checked against W and every
 * nonempty R[u], then sets W := {t} and clears every R. So two unordered
 * reads are never a race, and a race is reported iff the current access and
 * an earlier conflicting access are unordered by happens-before.
 *
 * Unshared variables: a thread other than the owner touching any element is
 * reported (kind LS_UNSHARED), in every mode, LS_OFF included (LANGUAGE.md:
 * the check is part of the language, not of a detector). The search needs
 * an LS_OFF detector only when the program has unshared variables
 * (ls_needed).
 *
 * Not stored, deliberately (it would split states no later check reads): who
 * emptied a candidate set, the history of an element. Messages therefore name
 * the current access and the sets involved; the trace shows the rest.
 * Ideas not done yet: 16-bit ids when the table stays small; for LD, an
 * element that is written with a one-lock candidate set can only go to "empty"
 * (the mode could absorb the id); Goldilocks read slots only for threads
 * that can ever exist at the same time; lazy Goldilocks (the paper's queue). */
#ifndef MCHECK_LOCKSET_H
#define MCHECK_LOCKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm.h"

typedef enum ls_kind { LS_OFF, LS_LD, LS_ERASER, LS_GOLDILOCKS } ls_kind;

/* Report kinds beyond ls_kind. */
enum {
    LS_UNSHARED = 8, /* unshared variable touched by a second thread */
    LS_NOMEM = 9,    /* interning ran out of memory: the verdict is unknown */
};

typedef struct ls_detector ls_detector;

/* True if a search with detector kind `kind` needs a detector for p: any
 * kind but LS_OFF, and LS_OFF when p has an unshared variable (whose owner
 * is checked in every mode). */
bool ls_needed(ls_kind kind, const vm_program *p);

/* A detector for program p (which must outlive it) whose metadata starts at
 * byte meta_off of the state vector. Returns NULL when memory runs out.
 * The caller owns it: ls_free(). */
ls_detector *ls_new(ls_kind kind, const vm_program *p, uint32_t meta_off);

/* ls_new(), and with `discharge` (mcheck --por) the shared elements that
 * ls_discharge_why() discharges for `kind` get no metadata and no checks,
 * like volatile elements (a smaller metadata area: ls_meta_bytes()). */
ls_detector *ls_new_opts(ls_kind kind, const vm_program *p, uint32_t meta_off,
                         bool discharge);

/* A detector for another thread of the same search: it shares d's interned
 * locksets (interning is thread-safe) and its read-only tables, and has its
 * own scratch, memo caches, report (none yet) and timing (0 s). d, or the
 * detector d was cloned from, must outlive the clone; free it with ls_free().
 * It reads only what d never changes after ls_new_opts(), so it may be called
 * while another thread uses d. NULL when memory runs out. */
ls_detector *ls_clone(const ls_detector *d);

/* Shared elements the detector keeps no metadata for because the static
 * analysis discharged them (0 unless made with discharge). */
uint32_t ls_discharged(const ls_detector *d);
/* NULL is a no-op. An original frees the shared tables: free its clones
 * first. */
void ls_free(ls_detector *d);

/* Bytes of metadata the detector needs in the state vector (LS_OFF: one
 * per unshared variable; 0 for NULL). */
uint32_t ls_meta_bytes(const ls_detector *d);

/* Write the initial metadata (all zero: virgin, untouched) into s at the
 * detector's offset. */
void ls_init_meta(const ls_detector *d, uint8_t *s);

/* Reset the metadata in s that no later check can read (elements no live
 * thread may access again; for elements nobody may write again, what only
 * matters to a later write) to a canonical value, so that the search does
 * not split states on it. Verdicts are unchanged: every check a later step
 * makes gives the same answer on the canonical metadata. Call it on every
 * state before it is stored. */
void ls_canonicalize(ls_detector *d, uint8_t *s);

/* Fill h: ctx and the access/acquire/release/spawn/join/send/recv hooks (exec
 * is left alone). A hook returns true on a violation; ls_last_report() then
 * says what. For LS_OFF only `access` is set, and only when the program has
 * unshared variables. When no element has metadata (ls_meta_bytes() is 0:
 * e.g. every shared element discharged) nothing can be reported and every
 * hook is NULL. */
void ls_hooks(ls_detector *d, vm_hooks *h);

typedef struct ls_report {
    int kind;      /* LS_LD, LS_ERASER, LS_GOLDILOCKS, LS_UNSHARED, LS_NOMEM */
    uint32_t elem; /* global element */
    int tid;       /* the thread whose access was reported */
    bool write;
    int other;     /* Goldilocks: the earlier access races with thread
                      `other`'s read since the last write, or -1: with the
                      last write. -1 for the other kinds. */
    char msg[256]; /* "lock discipline violated on 'x': ..." */
} ls_report;

/* The last violation reported (valid after a hook returned true; kind is
 * LS_OFF before any). Owned by the detector. */
const ls_report *ls_last_report(const ls_detector *d);

/* Seconds spent in the detector's hooks and ls_canonicalize() so far, an
 * estimate: 1 call in 64 is timed (0 for NULL). Per detector: a clone's time
 * is not its original's. */
double ls_seconds(const ls_detector *d);

/* Distinct locksets interned so far (the empty set included), by d and
 * every detector sharing its table (ls_clone). */
uint64_t ls_interned(const ls_detector *d);

/* ---- inspection (tests, traces) ----------------------------------------- */

/* Sync-object numbering of a detector: locks 0 .. nlocks-1; for Goldilocks
 * also thread t as LS_OBJ_THREAD(p, t), volatile elements and channels after
 * those (ls_obj_volatile, ls_obj_chan). */
#define LS_OBJ_THREAD(p, t) ((p)->nlocks + (uint32_t)(t))
uint32_t ls_obj_volatile(const ls_detector *d, uint32_t elem); /* UINT32_MAX if none */
uint32_t ls_obj_chan(const ls_detector *d, uint32_t chan);     /* UINT32_MAX if none */

/* Intern the set of the n sync objects objs (any order, duplicates allowed).
 * Returns its id, or UINT32_MAX when memory runs out or an object is out of
 * range. */
uint32_t ls_intern(ls_detector *d, const uint32_t *objs, size_t n);

/* The lockset an element's metadata in s refers to: LD and Eraser the
 * candidate set, Goldilocks W (0, the empty set, when not applicable). */
uint32_t ls_elem_set(const ls_detector *d, const uint8_t *s, uint32_t elem);

/* True if the element has a candidate lockset in s (LD: checked, i.e. past
 * its virgin or initialized mode; Eraser: shared or shared-modified). */
bool ls_elem_checked(const ls_detector *d, const uint8_t *s, uint32_t elem);

/* The intersection of two interned sets (UINT32_MAX when memory runs out). */
uint32_t ls_meet(ls_detector *d, uint32_t a, uint32_t b);

/* The set of locks thread tid holds in s (interned; UINT32_MAX when memory
 * runs out). */
uint32_t ls_held(ls_detector *d, const uint8_t *s, int tid);

/* Print set id as "{m1, fork[2], t1, c}" (threads by name when s is given,
 * else "t3"). Returns buf. */
char *ls_format_set(const ls_detector *d, const uint8_t *s, uint32_t id,
                    char *buf, size_t n);

/* ---- static discharge (discharge.c) ------------------------------------- */

/* What the static analysis knows of one global element of a `shared`
 * variable, over every thread that may ever exist (each static instance
 * with its self and id, each proc body as `max` threads of unknown self). */
#define LS_NO_UNIT INT32_MIN
typedef struct ls_elem_facts {
    uint8_t threads; /* threads that may access it: 0, 1, or 2 for "2 or more" */
    bool init_ok;    /* no `init T`, or every thread that may access it runs T */
    uint32_t lock;   /* the lowest lock element held at every access (a
                        must-hold analysis), or UINT32_MAX for none */
    int32_t unit;    /* with threads == 1: that thread, a static id, or
                        -1 - body for a proc body; else LS_NO_UNIT */
    uint8_t hb;      /* LS_HB_* bits: 0 unless every two conflicting accesses
                        (one a write) that different threads may make are
                        ordered by happens-before (discharge_hb.c); then
                        LS_HB_ORDERED and the edges that order them. Only
                        Goldilocks uses it (reduce/ts/por.c does not) */
} ls_elem_facts;

/* ls_elem_facts.hb: the element is ordered, and by which edges. */
enum {
    LS_HB_ORDERED = 1u << 0,
    LS_HB_LOCK = 1u << 1,  /* a lock held at both accesses */
    LS_HB_SPAWN = 1u << 2, /* the access precedes the spawn of the other thread */
    LS_HB_JOIN = 1u << 3,  /* the other thread was joined before the access */
    LS_HB_CHAN = 1u << 4,  /* a send on a channel after one, a recv before the other */
};

/* Why a detector needs no metadata for an element (discharge.c's header
 * comment argues each case for LD', Eraser and Goldilocks). */
typedef enum ls_why {
    LS_CHECKED = 0, /* not discharged: the detector keeps its metadata */
    LS_UNACCESSED,  /* no thread may access it */
    LS_ONE_THREAD,  /* at most one thread may access it (Eraser, Goldilocks) */
    LS_COMMON_LOCK, /* one lock is held at every access (LD': and every
                       accessor is an instance of its `init T` body) */
    LS_READ_ONLY,   /* no `store` names its variable: every access is a
                       read of its initial value (LD': and no `init T`
                       whose first access another thread may make) */
    LS_ORDERED,     /* every two conflicting accesses by different threads
                       are ordered by happens-before: spawn, join, a
                       channel, a lock held at both (Goldilocks only;
                       discharge_hb.c) */
} ls_why;

/* The facts of every global element (p->nelems entries; those of
 * non-shared elements mean nothing), or NULL when memory runs out. The
 * caller frees it with free(). */
ls_elem_facts *ls_discharge_facts(const vm_program *p);

/* Whether detector `kind` may drop element elem's metadata, and why
 * (LS_CHECKED for LS_OFF, and for elements not of a shared variable). */
ls_why ls_discharge_why(ls_kind kind, const vm_program *p, const ls_elem_facts *f,
                        uint32_t elem);

/* mcheck --dump's section: per shared variable, which elements the static
 * analysis discharges for `kind` and why, and which it cannot. Prints
 * nothing when p has no shared variable. Returns 0, or -1 when memory runs
 * out. */
int ls_discharge_print(const vm_program *p, ls_kind kind, FILE *out);

/* ---- sets between detectors of different processes ------------------------
 * The distributed search (reduce/mpi/mpi.c): each rank has a detector of its
 * own, so a set's id in a vector means something only in the process that
 * made it. A vector sent to another rank carries the bits of the sets its
 * ids name, and the receiver puts its own ids in their place. */

/* uint64 words of a set's bit array (bit o: sync object o). */
uint32_t ls_set_words(const ls_detector *d);
/* The bit array of set id, or NULL if d (or a detector sharing its table)
 * never handed out id. Owned by the detector. */
const uint64_t *ls_set_bits(const ls_detector *d, uint32_t id);
/* The id of the set with bit array w (ls_set_words() words; bits past the
 * last sync object zero), interned if new; UINT32_MAX when memory runs out. */
uint32_t ls_intern_bits(ls_detector *d, const uint64_t *w);
/* The offsets from the start of the vector of every 32-bit set id the
 * metadata holds (LD' and Eraser: each element's candidate set; Goldilocks:
 * W and every R[t]), ascending; the same in every state. Writes them to
 * offs (NULL: only count) and returns how many. */
uint32_t ls_id_offsets(const ls_detector *d, uint32_t *offs);

#endif
