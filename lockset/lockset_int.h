/* lockset_int.h: what the files of lockset/ share, private to the module
 * (lockset.h is the interface; it has the rules, the metadata layout and how
 * the detectors differ).
 *
 * The detector object (struct ls_detector), the interning table (ls_sets),
 * the memo maps, the sampled timing, the blocks of the may-access analysis,
 * and the detector table: each detector (LD' in ld.c, Eraser in eraser.c,
 * Goldilocks in goldilocks.c, and lockset.c's LS_OFF) is one ls_ops, looked
 * up once by ls_new_opts(), so shared code never switches on the kind. A
 * new detector is one file and one line of LS_DETECTORS below (and its
 * ls_kind in lockset.h). The hot inline parts (reading a set, "add one
 * object", the access hook's common part) are here, and canon_int.h has the
 * canonicalization walk, so that each detector's hooks keep them inline with
 * its own rule: the interpreter's indirect call to a hook, and the search's
 * to ls_canonicalize()'s ops.canonicalize, are the only ones. */
#ifndef MCHECK_LOCKSET_INT_H
#define MCHECK_LOCKSET_INT_H

#include "lockset.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define NONE UINT32_MAX
#define EMPTY_KEY UINT64_MAX

/* For the few functions that must be inlined whatever GCC's size heuristics
 * say (a detector's rule inside its instance of a shared walk). */
#if defined(__GNUC__)
#define LS_HOT_INLINE inline __attribute__((always_inline))
#else
#define LS_HOT_INLINE inline
#endif

/* A memo map u64 -> u32 with open addressing (keys never EMPTY_KEY). */
typedef struct memo {
    uint64_t *keys;
    uint32_t *vals;
    uint32_t cap; /* power of two, or 0 */
    uint32_t n;
} memo;

/* The interning table, shared by a detector and its clones (one search, any
 * number of threads). Set storage never moves: chunk c holds CHUNK0 << c sets
 * (ids CHUNK0 * (2^c - 1) .. CHUNK0 * (2^(c+1) - 1) - 1), allocated once, so a
 * reader may read a set's words without the lock while another thread interns.
 * Writers (intern) take `mu`; `tab`, the chunks and `base` are written only
 * under it. `nsets` is published with a release store after the new set's
 * words (and its chunk) are written, so an id below an acquire load of nsets
 * can be read. An id a detector holds came from intern() (under mu) or from a
 * state vector that reached this thread through the search's own
 * synchronization; either way its words, and its chunk's base, are visible
 * to it. */
#define CHUNK0_LOG 6
#define CHUNK0 (1u << CHUNK0_LOG)
#define NCHUNKS (33 - CHUNK0_LOG) /* CHUNK0 << (NCHUNKS - 1) = 2^32: every id below NONE */

typedef struct ls_sets {
    _Atomic uint32_t nsets;
    uint64_t bytes;                  /* bytes per set */
    /* sets_at()'s table: base[b] for the ids whose id + CHUNK0 has its top bit
     * at b (chunk b - CHUNK0_LOG): the address of set id is base[b] + id *
     * bytes, an address inside that chunk (base[b] itself may not be; it is
     * an integer, never a pointer). base[0 .. CHUNK0_LOG - 1] are unused. */
    uintptr_t base[33];
    pthread_mutex_t mu;
    uint64_t *chunk[NCHUNKS];        /* CHUNK0 << c sets each, or NULL */
    uint32_t *tab;                   /* id + 1 per slot, 0 empty (under mu) */
    uint32_t tab_cap;                /* power of two (under mu) */
} ls_sets;

/* For every body and pc, the variables a thread standing at pc may still
 * access, in four blocks of bits over the variables (may_access.c):
 *   FUT_ANY, FUT_WR:           read or write / write, at any element (an
 *                              index other than `self`: the whole variable);
 *   FUT_SELF_ANY, FUT_SELF_WR: read or write / write, only at element
 *                              [self] (the thread's own slot of an array). */
enum { FUT_ANY, FUT_WR, FUT_SELF_ANY, FUT_SELF_WR, FUT_BLOCKS };

typedef struct ls_ops ls_ops;

/* A detector: read-only tables made by ls_new_opts() (shared with its clones,
 * freed by the original), the shared interning table, and per-detector
 * scratch, memos, report and timing (every field written during a search). */
struct ls_detector {
    ls_kind kind;
    const ls_ops *ops;   /* the detector's rules (ls_detectors[kind]) */
    const vm_program *p;
    bool clone;          /* made by ls_clone(): owns only its scratch */
    uint32_t meta_off;
    uint32_t meta_bytes;
    uint32_t rec;        /* bytes of metadata per shared element */
    uint32_t *elem_off;  /* per element: offset from meta_off, NONE if none */
    uint32_t *var_off;   /* per var: unshared owner byte offset, NONE if none */
    uint32_t *vol_obj;   /* per element: Goldilocks object of a volatile, or NONE */
    uint32_t *obj_elem;  /* per volatile object index: its element */
    uint32_t nvol;
    uint32_t ndischarged; /* shared elements without metadata (discharge.c) */
    uint32_t chan_base;  /* object of channel 0 (Goldilocks) */
    uint32_t nobj;       /* sync objects */
    uint32_t words;      /* uint64 words per set */
    ls_sets *sh;         /* the interning table (the original's) */
    /* what a thread may still access (ls_canonicalize): per body, per pc,
     * FUT_BLOCKS blocks of vwords words (see ls_compute_future) */
    uint32_t vwords;
    uint64_t **future;   /* per body: ncode * FUT_BLOCKS * vwords */
    uint32_t *meta_vars; /* vars with metadata */
    uint32_t nmeta_vars;
    uint64_t *meta_mask; /* vwords: the vars with metadata */
    uint32_t *meta_index; /* per var: its index in meta_vars */
    int64_t clock_ns;    /* what reading the clock itself adds to a sample */
    /* ---- per detector (zeroed and allocated anew by ls_clone) ---- */
    memo meet, add, held;
    uint64_t *tmp;       /* scratch set */
    uint64_t *live;      /* scratch: FUT_BLOCKS * vwords, the union */
    uint8_t *emark;      /* scratch: per element of the largest variable */
    int32_t *tself;      /* scratch: per live thread, its self */
    uint64_t *samask, *swmask; /* scratch, per meta var (ls_canonicalize) */
    uint8_t *tstate;     /* per thread, scratch: 0 ended, 1 live, 2 not started */
    const uint64_t **tfut; /* per live thread, scratch: its future sets */
    ls_report rep;
    uint64_t calls;      /* hook and canonicalization calls */
    uint64_t sampled_ns; /* time in the calls timed (1 in LS_SAMPLE) */
};

/* ---- the detector table -------------------------------------------------- */

/* A detector's rules. Its metadata record per shared element with metadata
 * is rec_bytes(p) bytes: set_off bytes of its own (modes, an owner), then
 * 32-bit set ids up to the end (ls_elem_set() reads the first,
 * ls_id_offsets() lists them all). */
struct ls_ops {
    const char *name; /* --race=NAME */
    uint32_t (*rec_bytes)(const vm_program *p);
    uint32_t set_off;
    /* threads, volatile elements and channels are sync objects too (after
     * the locks: LS_OBJ_THREAD, ls_obj_volatile, ls_obj_chan) */
    bool hb_objects;
    /* the interpreter's hooks (vm_hooks; access made with ls_access_hook()),
     * NULL where the detector has no rule for the event */
    bool (*access)(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write);
    bool (*acquire)(void *ctx, uint8_t *s, int tid, uint32_t lock);
    bool (*release)(void *ctx, uint8_t *s, int tid, uint32_t lock);
    bool (*spawn)(void *ctx, uint8_t *s, int parent, int child);
    bool (*join)(void *ctx, uint8_t *s, int joiner, int joinee);
    bool (*send)(void *ctx, uint8_t *s, int tid, uint32_t chan);
    bool (*recv)(void *ctx, uint8_t *s, int tid, uint32_t chan);
    /* ls_canonicalize() when some variable has metadata: ls_canon_walk()
     * (canon_int.h) with the detector's rule for a record */
    void (*canonicalize)(ls_detector *d, uint8_t *s);
    /* ls_elem_checked() on the record m (NULL: never checked) */
    bool (*elem_checked)(const uint8_t *m);
    /* ls_discharge_why() for an element of shared variable v that some
     * thread may access (discharge.c's header argues each detector's case) */
    ls_why (*discharge)(const vm_var *v, const ls_elem_facts *x);
};

/* Every detector, in ls_kind order: X(kind, name) defines ls_ops_<name>
 * (in <name>.c; off in lockset.c). */
#define LS_DETECTORS(X)                                                        \
    X(LS_OFF, off)                                                             \
    X(LS_LD, ld)                                                               \
    X(LS_ERASER, eraser)                                                       \
    X(LS_GOLDILOCKS, goldilocks)
#define LS_DECLARE_OPS(kind, name) extern const ls_ops ls_ops_##name;
LS_DETECTORS(LS_DECLARE_OPS)
#undef LS_DECLARE_OPS

/* The rules of detector kind (ls_detectors[] in lockset.c). */
const ls_ops *ls_ops_of(ls_kind kind);

/* ---- timing (lockset.c) --------------------------------------------------- */

/* The detector's time is estimated by timing 1 call in LS_SAMPLE (two clock
 * reads per timed call: about a nanosecond per call on average). */
#define LS_SAMPLE 64

static inline bool ls_sample_begin(ls_detector *d, struct timespec *t)
{
    if ((++d->calls & (LS_SAMPLE - 1)) != 0) return false;
    clock_gettime(CLOCK_MONOTONIC, t);
    return true;
}

static inline void ls_sample_end(ls_detector *d, bool timed, const struct timespec *t0)
{
    if (!timed) return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t ns = (t.tv_sec - t0->tv_sec) * 1000000000ll + (t.tv_nsec - t0->tv_nsec);
    if (ns > d->clock_ns) d->sampled_ns += (uint64_t)(ns - d->clock_ns);
}

/* ---- sets (intern.c) ------------------------------------------------------ */

/* Where set id's words are: a bit scan, a load and a multiply-add (sets
 * are read on every Goldilocks event, for every element). */
static inline uint64_t *sets_at(const ls_sets *sh, uint32_t id)
{
    unsigned b = 63u ^ (unsigned)__builtin_clzll((uint64_t)id + CHUNK0); /* floor(log2) */
    return (uint64_t *)(sh->base[b] + (uintptr_t)id * sh->bytes);
}

/* Does published set id hold obj? (A relaxed load suffices for the
 * assertion: the id's publication happens before this thread got hold of
 * the id.) */
static inline bool sets_has(const ls_sets *sh, uint32_t id, uint32_t obj)
{
    assert(id < atomic_load_explicit(&sh->nsets, memory_order_relaxed) &&
           "a set id the detector handed out");
    return (sets_at(sh, id)[obj >> 6] >> (obj & 63)) & 1;
}

static inline uint64_t *set_at(const ls_detector *d, uint32_t id)
{
    return sets_at(d->sh, id);
}

/* The words of a published set. */
static inline const uint64_t *set_words(const ls_detector *d, uint32_t id)
{
    assert(id < atomic_load_explicit(&d->sh->nsets, memory_order_relaxed) &&
           "a set id the detector handed out");
    return set_at(d, id);
}

static inline bool set_has(const ls_detector *d, uint32_t id, uint32_t obj)
{
    return sets_has(d->sh, id, obj);
}

/* The id of set w (d->words words), interned if new, or NONE when memory
 * runs out (thread-safe: the lock is taken only here, on a memo miss). */
uint32_t ls_intern_words(ls_detector *d, const uint64_t *w);

/* d->sh, a new interning table (no set yet; d->words set), or false when
 * memory runs out (d->sh NULL or to be freed by ls_sets_free). */
bool ls_sets_new(ls_detector *d);
/* NULL is a no-op. */
void ls_sets_free(ls_sets *sh);

void ls_memo_free(memo *m);

/* ls_meet() when neither set is the other nor empty (the memo, else
 * interning). */
uint32_t ls_meet_slow(ls_detector *d, uint32_t a, uint32_t b);

/* a ∩ b, or NONE when memory runs out (the cheap cases inline). */
static inline uint32_t meet(ls_detector *d, uint32_t a, uint32_t b)
{
    if (a == b) return a;
    if (a == 0 || b == 0) return 0;
    return ls_meet_slow(d, a, b);
}

/* add_obj() when obj is not in a: the memo, else interning. */
uint32_t ls_add_new_obj(ls_detector *d, uint32_t a, uint32_t obj);

/* a ∪ {obj}, or NONE when memory runs out. (The test inline, the rest out
 * of line: propagate() calls this for every lockset holding its condition.) */
static inline uint32_t add_obj(ls_detector *d, uint32_t a, uint32_t obj)
{
    return set_has(d, a, obj) ? a : ls_add_new_obj(d, a, obj);
}

/* ---- what a thread may still access (may_access.c) ------------------------ */

static inline void bit_set(uint64_t *w, uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }
static inline bool bit_get(const uint64_t *w, uint32_t i) { return (w[i >> 6] >> (i & 63)) & 1; }

/* d->future for every body and pc; false when memory runs out (ls_free
 * frees what was allocated). */
bool ls_compute_future(ls_detector *d);

/* ---- canonicalization (canon.c) ------------------------------------------- */

/* Goldilocks canonicalization (canon.c, during ls_canonicalize()): does set
 * id hold every thread that may still access element i of var v (may still
 * write it, if `writes`)? */
bool ls_covers(const ls_detector *d, uint32_t id, uint32_t v, uint32_t i, bool writes);

/* ---- static discharge (discharge.c) ----------------------------------------- */

/* The discharge rule of Eraser and Goldilocks (their ops' discharge): a
 * read-only variable, a lone accessor or a common lock. */
ls_why ls_discharge_lone_or_lock(const vm_var *v, const ls_elem_facts *x);

/* Goldilocks's discharge rule: ls_discharge_lone_or_lock(), else
 * LS_ORDERED when the element's accesses are ordered (x->hb). */
ls_why ls_discharge_goldilocks(const vm_var *v, const ls_elem_facts *x);

/* The must-hold lock sets of one analysis unit (body b run with self and
 * tid, regs from vm_absregs()): held[pc * lock words] and seen[pc] (the pc
 * is reached), as ls_discharge_facts() computes them; held and seen have
 * the body's ncode entries. False when memory runs out. */
bool ls_unit_held(const vm_program *p, uint32_t b, const vm_absval *regs, vm_absval self,
                  vm_absval tid, uint64_t *held, bool *seen);

/* discharge_hb.c: set f[e].hb for every shared element e of p (f made by
 * ls_discharge_facts(), threads already counted). False when memory runs
 * out. */
bool ls_hb_facts(const vm_program *p, ls_elem_facts *f);

/* ---- reports (lockset.c) ---------------------------------------------------- */

/* Fill d->rep; returns true (a hook's "violation"). */
bool ls_report_fmt(ls_detector *d, int kind, uint32_t elem, int tid, bool write,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* LS_NOMEM: interning ran out of memory. Returns true. */
bool ls_nomem(ls_detector *d, uint32_t elem, int tid, bool write);

/* Thread tid's name in s ("t3" when s is NULL or the slot unused). */
void ls_thread_name(const ls_detector *d, const uint8_t *s, int tid, char *buf, size_t n);

/* The report of a second thread touching an unshared variable (owner is
 * the owner's tid). Returns true. */
bool ls_unshared_report(ls_detector *d, const uint8_t *s, int tid, uint32_t elem,
                        const vm_var *var, bool write, int owner);

/* ---- the access hook ------------------------------------------------------- */

/* A detector's rule for an access to an element of a shared or volatile
 * variable that has metadata or is volatile (not discharged). */
typedef bool ls_access_rule(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                            const vm_var *var, bool write);

/* What every detector's access hook does (the unshared owner, discharged
 * elements, the timing) around its rule. Each detector's hook calls it with
 * its own rule, a constant: the rule is inlined or called directly, so the
 * interpreter's one indirect call (vm_hooks.access) is the only one. */
static inline bool ls_access_hook(void *ctx, uint8_t *s, int tid, uint32_t elem,
                                  bool write, ls_access_rule *rule)
{
    ls_detector *d = ctx;
    struct timespec t0;
    bool timed = ls_sample_begin(d, &t0);
    bool r = false;
    const vm_var *var = vm_elem_var(d->p, elem);
    if (var->cls == VM_UNSHARED) {
        uint32_t o = d->meta_off + d->var_off[var - d->p->vars];
        if (s[o] == 0) s[o] = (uint8_t)(tid + 1);
        else if (s[o] != tid + 1) r = ls_unshared_report(d, s, tid, elem, var, write, s[o] - 1);
    } else if (var->cls == VM_SHARED && d->elem_off[elem] == NONE) {
        r = false; /* discharged */
    } else {
        r = rule(d, s, tid, elem, var, write);
    }
    ls_sample_end(d, timed, &t0);
    return r;
}

#endif
