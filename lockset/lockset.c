/* lockset.c: LD', Eraser and Goldilocks over interned locksets (see lockset.h
 * for the rules, the metadata layout and how the three differ).
 *
 * A lockset is a bitset over the detector's sync objects (locks; for
 * Goldilocks also threads, volatile elements and channels). Each distinct set
 * is stored once in the interning table (ls_sets, shared by a detector and its
 * clones, ls_clone) and named by its index (id 0 is the empty set); an
 * open-addressing table finds the id of a set, and per-detector memo tables
 * cache intersection (LD, Eraser), "add one object" (Goldilocks) and the held
 * set. Nothing here reads or writes the state vector except the metadata area
 * and the lock owners (to compute the held set). */
#include "lockset.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define NONE UINT32_MAX
#define EMPTY_KEY UINT64_MAX

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

/* A detector: read-only tables made by ls_new_opts() (shared with its clones,
 * freed by the original), the shared interning table, and per-detector
 * scratch, memos, report and timing (every field written during a search). */
struct ls_detector {
    ls_kind kind;
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
     * FUT_BLOCKS blocks of vwords words (see compute_future) */
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

/* The detector's time is estimated by timing 1 call in LS_SAMPLE (two clock
 * reads per timed call: about a nanosecond per call on average). */
#define LS_SAMPLE 64

static inline bool sample_begin(ls_detector *d, struct timespec *t)
{
    if ((++d->calls & (LS_SAMPLE - 1)) != 0) return false;
    clock_gettime(CLOCK_MONOTONIC, t);
    return true;
}

static inline void sample_end(ls_detector *d, bool timed, const struct timespec *t0)
{
    if (!timed) return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t ns = (t.tv_sec - t0->tv_sec) * 1000000000ll + (t.tv_nsec - t0->tv_nsec);
    if (ns > d->clock_ns) d->sampled_ns += (uint64_t)(ns - d->clock_ns);
}

/* The shortest of a few back-to-back clock reads: subtracted from every
 * sample, so that short calls are not charged for the clock. */
static int64_t clock_overhead(void)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < 32; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        int64_t ns = (b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec);
        if (ns < best) best = ns;
    }
    return best;
}

double ls_seconds(const ls_detector *d)
{
    return d ? (double)d->sampled_ns * LS_SAMPLE * 1e-9 : 0.0;
}

/* ---- hashing and interning ------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_set(const uint64_t *w, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < n; i++) h = mix64(h ^ w[i]) + i;
    return h;
}

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

/* Under sh->mu: a table of cap slots (power of two) over sets 0 .. n-1. */
static bool tab_grow(ls_detector *d, uint32_t n, uint32_t cap)
{
    ls_sets *sh = d->sh;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return false;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t i = (uint32_t)hash_set(set_at(d, id), d->words) & (cap - 1);
        while (t[i]) i = (i + 1) & (cap - 1);
        t[i] = id + 1;
    }
    free(sh->tab);
    sh->tab = t;
    sh->tab_cap = cap;
    return true;
}

/* Under sh->mu: the id of set w (copied in if new), or NONE when memory
 * runs out. The new set's words are written before nsets publishes it. */
static uint32_t intern_locked(ls_detector *d, const uint64_t *w, uint64_t h)
{
    ls_sets *sh = d->sh;
    size_t bytes = (size_t)d->words * sizeof *w;
    uint32_t n = atomic_load_explicit(&sh->nsets, memory_order_relaxed);
    uint32_t i = (uint32_t)h & (sh->tab_cap - 1);
    for (; sh->tab[i]; i = (i + 1) & (sh->tab_cap - 1))
        if (!memcmp(set_words(d, sh->tab[i] - 1), w, bytes)) return sh->tab[i] - 1;
    if (n == NONE - 1) return NONE;
    unsigned b = 63u - (unsigned)__builtin_clzll((uint64_t)n + CHUNK0), c = b - CHUNK0_LOG;
    if (!sh->chunk[c]) { /* n is the first id of chunk c: n + CHUNK0 = CHUNK0 << c */
        sh->chunk[c] = malloc(((size_t)CHUNK0 << c) * bytes);
        if (!sh->chunk[c]) return NONE;
        sh->base[b] = (uintptr_t)sh->chunk[c] - (uintptr_t)n * bytes;
    }
    memcpy(set_at(d, n), w, bytes);
    if ((uint64_t)(n + 1) * 2 > sh->tab_cap) {
        /* a table over every set, the new one included (it is not published:
         * on failure the table stays as it was and the set is forgotten) */
        if (sh->tab_cap > UINT32_MAX / 2 || !tab_grow(d, n + 1, sh->tab_cap * 2))
            return NONE;
    } else {
        sh->tab[i] = n + 1;
    }
    atomic_store_explicit(&sh->nsets, n + 1, memory_order_release);
    return n;
}

/* The id of set w, or NONE when memory runs out (thread-safe: the lock is
 * taken only here, on a memo miss). */
static uint32_t intern(ls_detector *d, const uint64_t *w)
{
    uint64_t h = hash_set(w, d->words); /* outside the lock */
    pthread_mutex_lock(&d->sh->mu);
    uint32_t id = intern_locked(d, w, h);
    pthread_mutex_unlock(&d->sh->mu);
    return id;
}

static uint32_t memo_get(const memo *m, uint64_t key)
{
    if (!m->cap) return NONE;
    for (uint32_t i = (uint32_t)mix64(key) & (m->cap - 1); m->keys[i] != EMPTY_KEY;
         i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key) return m->vals[i];
    return NONE;
}

/* Remember key -> val; a failed allocation only loses the cache entry. */
static void memo_put(memo *m, uint64_t key, uint32_t val)
{
    if ((uint64_t)(m->n + 1) * 2 > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 256;
        uint64_t *k = malloc((size_t)cap * sizeof *k);
        uint32_t *v = malloc((size_t)cap * sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return;
        }
        memset(k, 0xff, (size_t)cap * sizeof *k);
        for (uint32_t j = 0; j < m->cap; j++) {
            if (m->keys[j] == EMPTY_KEY) continue;
            uint32_t i = (uint32_t)mix64(m->keys[j]) & (cap - 1);
            while (k[i] != EMPTY_KEY) i = (i + 1) & (cap - 1);
            k[i] = m->keys[j];
            v[i] = m->vals[j];
        }
        free(m->keys);
        free(m->vals);
        m->keys = k;
        m->vals = v;
        m->cap = cap;
    }
    uint32_t i = (uint32_t)mix64(key) & (m->cap - 1);
    while (m->keys[i] != EMPTY_KEY) i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
}

static void memo_free(memo *m)
{
    free(m->keys);
    free(m->vals);
}

/* a ∩ b, or NONE when memory runs out. */
static uint32_t meet(ls_detector *d, uint32_t a, uint32_t b)
{
    if (a == b) return a;
    if (a == 0 || b == 0) return 0;
    if (a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint64_t key = (uint64_t)a << 32 | b;
    uint32_t r = memo_get(&d->meet, key);
    if (r != NONE) return r;
    const uint64_t *x = set_words(d, a), *y = set_words(d, b);
    for (uint32_t i = 0; i < d->words; i++) d->tmp[i] = x[i] & y[i];
    r = intern(d, d->tmp);
    if (r != NONE) memo_put(&d->meet, key, r);
    return r;
}

uint32_t ls_meet(ls_detector *d, uint32_t a, uint32_t b) { return meet(d, a, b); }

/* add_obj() when obj is not in a: the memo, else interning. */
static __attribute__((noinline)) uint32_t add_new_obj(ls_detector *d, uint32_t a,
                                                      uint32_t obj)
{
    uint64_t key = (uint64_t)a << 32 | obj;
    uint32_t r = memo_get(&d->add, key);
    if (r != NONE) return r;
    memcpy(d->tmp, set_words(d, a), (size_t)d->words * sizeof *d->tmp);
    d->tmp[obj >> 6] |= 1ull << (obj & 63);
    r = intern(d, d->tmp);
    if (r != NONE) memo_put(&d->add, key, r);
    return r;
}

/* a ∪ {obj}, or NONE when memory runs out. (The test inline, the rest out
 * of line: propagate() calls this for every lockset holding its condition.) */
static inline uint32_t add_obj(ls_detector *d, uint32_t a, uint32_t obj)
{
    return set_has(d, a, obj) ? a : add_new_obj(d, a, obj);
}

static uint32_t singleton(ls_detector *d, uint32_t obj)
{
    return add_obj(d, 0, obj);
}

/* The locks thread tid holds in s. With at most 64 sync objects the set is
 * one word, and its id is memoized by value (the `held` memo), so the
 * common case costs a scan of the lock owners and one probe. */
static uint32_t held_set(ls_detector *d, const uint8_t *s, int tid)
{
    if (d->words == 1 && d->p->nlocks < 64) {
        uint64_t w = 0;
        for (uint32_t l = 0; l < d->p->nlocks; l++)
            if (vm_lock_owner(d->p, s, l) == tid) w |= 1ull << l;
        if (w == 0) return 0;
        uint32_t r = memo_get(&d->held, w);
        if (r != NONE) return r;
        d->tmp[0] = w;
        r = intern(d, d->tmp);
        if (r != NONE) memo_put(&d->held, w, r);
        return r;
    }
    memset(d->tmp, 0, (size_t)d->words * sizeof *d->tmp);
    for (uint32_t l = 0; l < d->p->nlocks; l++)
        if (vm_lock_owner(d->p, s, l) == tid) d->tmp[l >> 6] |= 1ull << (l & 63);
    return intern(d, d->tmp);
}

/* ---- construction ------------------------------------------------------ */

/* ---- what a thread may still access -------------------------------------- */

static void bit_set(uint64_t *w, uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }
static bool bit_get(const uint64_t *w, uint32_t i) { return (w[i >> 6] >> (i & 63)) & 1; }

/* OR src into dst (n words); true if dst changed. */
static bool or_into(uint64_t *dst, const uint64_t *src, uint32_t n)
{
    bool changed = false;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = dst[i] | src[i];
        changed |= v != dst[i];
        dst[i] = v;
    }
    return changed;
}

/* For every body and pc, the variables a thread standing at pc may still
 * access, in four blocks of bits over the variables:
 *   FUT_ANY, FUT_WR:           read or write / write, at any element (an
 *                              index other than `self`: the whole variable);
 *   FUT_SELF_ANY, FUT_SELF_WR: read or write / write, only at element
 *                              [self] (the thread's own slot of an array).
 * Counted: the thread's own loads and stores on every path from pc, and
 * everything a thread it may spawn can access (that thread's `self` is not
 * the spawner's, so its self-indexed accesses count as any element). A
 * backward may-analysis over the control flow (jmp, jz/jnz, fall-through;
 * `end` has no successor), iterated to a fixed point because spawn edges
 * link bodies. Along any execution the sets only shrink: a successor's set
 * is part of its predecessor's, and a spawned thread's entry set is part of
 * the spawner's. */
enum { FUT_ANY, FUT_WR, FUT_SELF_ANY, FUT_SELF_WR, FUT_BLOCKS };

static bool set_bit_changed(uint64_t *w, uint32_t i)
{
    if (bit_get(w, i)) return false;
    bit_set(w, i);
    return true;
}

static bool compute_future(ls_detector *d)
{
    const vm_program *p = d->p;
    uint32_t vw = d->vwords, stride = FUT_BLOCKS * vw;
    d->future = calloc(p->nbodies ? p->nbodies : 1, sizeof *d->future);
    if (!d->future) return false;
    for (uint32_t b = 0; b < p->nbodies; b++) {
        d->future[b] = calloc((size_t)(p->bodies[b].ncode ? p->bodies[b].ncode : 1) * stride,
                              sizeof(uint64_t));
        if (!d->future[b]) return false;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < p->nbodies; b++) {
            const vm_body *body = &p->bodies[b];
            for (uint32_t pc = body->ncode; pc-- > 0;) {
                const vm_insn *in = &body->code[pc];
                uint64_t *f = d->future[b] + (size_t)pc * stride;
                uint32_t next = pc + 1 < body->ncode ? pc + 1 : UINT32_MAX;
                uint32_t jump = UINT32_MAX;
                bool mem = in->op == VM_OP_load || in->op == VM_OP_store;
                bool self = mem && in->idx.kind == VM_ARG_SELF && p->vars[in->obj].is_array;
                uint32_t any = self ? FUT_SELF_ANY : FUT_ANY, wr = self ? FUT_SELF_WR : FUT_WR;
                switch (in->op) {
                case VM_OP_load:
                    changed |= set_bit_changed(f + any * vw, (uint32_t)in->obj);
                    break;
                case VM_OP_store:
                    changed |= set_bit_changed(f + any * vw, (uint32_t)in->obj);
                    changed |= set_bit_changed(f + wr * vw, (uint32_t)in->obj);
                    break;
                case VM_OP_jmp: next = UINT32_MAX; jump = (uint32_t)in->obj; break;
                case VM_OP_jz:
                case VM_OP_jnz: jump = (uint32_t)in->obj; break;
                case VM_OP_end: next = UINT32_MAX; break;
                case VM_OP_spawn: {
                    const uint64_t *c = d->future[in->obj]; /* the child at its pc 0 */
                    changed |= or_into(f + FUT_ANY * vw, c + FUT_ANY * vw, vw);
                    changed |= or_into(f + FUT_ANY * vw, c + FUT_SELF_ANY * vw, vw);
                    changed |= or_into(f + FUT_WR * vw, c + FUT_WR * vw, vw);
                    changed |= or_into(f + FUT_WR * vw, c + FUT_SELF_WR * vw, vw);
                    break;
                }
                default: break;
                }
                if (next != UINT32_MAX)
                    changed |= or_into(f, d->future[b] + (size_t)next * stride, stride);
                if (jump != UINT32_MAX && jump < body->ncode)
                    changed |= or_into(f, d->future[b] + (size_t)jump * stride, stride);
            }
        }
    }
    return true;
}

/* ---- construction ------------------------------------------------------ */

/* The per-detector scratch (ls_new_opts, ls_clone); false when memory runs
 * out (ls_free frees what was allocated). */
static bool alloc_scratch(ls_detector *d)
{
    const vm_program *p = d->p;
    uint32_t nv = p->nvars ? p->nvars : 1, nt = p->nthreads ? p->nthreads : 1;
    uint32_t maxsize = 1;
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].size > maxsize) maxsize = p->vars[v].size;
    d->tmp = calloc(d->words, sizeof *d->tmp);
    d->live = calloc(FUT_BLOCKS * (size_t)d->vwords, sizeof *d->live);
    d->emark = calloc(maxsize, 1);
    d->tself = calloc(nt, sizeof *d->tself);
    d->samask = calloc(nv, sizeof *d->samask);
    d->swmask = calloc(nv, sizeof *d->swmask);
    d->tstate = calloc(nt, sizeof *d->tstate);
    d->tfut = calloc(nt, sizeof *d->tfut);
    return d->tmp && d->live && d->emark && d->tself && d->samask && d->swmask &&
           d->tstate && d->tfut;
}

ls_detector *ls_new(ls_kind kind, const vm_program *p, uint32_t meta_off)
{
    return ls_new_opts(kind, p, meta_off, false);
}

ls_detector *ls_new_opts(ls_kind kind, const vm_program *p, uint32_t meta_off,
                         bool discharge)
{
    ls_detector *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    ls_elem_facts *facts = NULL;
    if (discharge && kind != LS_OFF && !(facts = ls_discharge_facts(p))) goto fail;
    d->kind = kind;
    d->p = p;
    d->clock_ns = clock_overhead();
    d->meta_off = meta_off;
    uint32_t ne = p->nelems ? p->nelems : 1, nv = p->nvars ? p->nvars : 1;
    d->elem_off = malloc(ne * sizeof *d->elem_off);
    d->vol_obj = malloc(ne * sizeof *d->vol_obj);
    d->obj_elem = malloc(ne * sizeof *d->obj_elem);
    d->var_off = malloc(nv * sizeof *d->var_off);
    if (!d->elem_off || !d->vol_obj || !d->obj_elem || !d->var_off) goto fail;

    switch (kind) {
    case LS_OFF: d->rec = 0; break;
    case LS_LD: d->rec = 5; break;
    case LS_ERASER: d->rec = 6; break;
    case LS_GOLDILOCKS: d->rec = 4 * (1 + p->nthreads); break;
    }
    uint32_t off = 0;
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *var = &p->vars[v];
        for (uint32_t e = var->first_elem; e < var->first_elem + var->size; e++) {
            d->elem_off[e] = NONE;
            d->vol_obj[e] = NONE;
            if (kind != LS_OFF && var->cls == VM_SHARED) {
                if (facts && ls_discharge_why(kind, p, facts, e) != LS_CHECKED) {
                    d->ndischarged++; /* never reported: no metadata */
                } else {
                    d->elem_off[e] = off;
                    off += d->rec;
                }
            }
            if (kind == LS_GOLDILOCKS && var->cls == VM_VOLATILE) {
                d->vol_obj[e] = p->nlocks + p->nthreads + d->nvol;
                d->obj_elem[d->nvol++] = e;
            }
        }
    }
    for (uint32_t v = 0; v < p->nvars; v++) {
        d->var_off[v] = NONE;
        if (p->vars[v].cls == VM_UNSHARED) d->var_off[v] = off++; /* every kind */
    }
    d->meta_bytes = off;
    d->chan_base = p->nlocks + p->nthreads + d->nvol;
    d->nobj = kind == LS_GOLDILOCKS ? d->chan_base + p->nchans : p->nlocks;
    d->words = d->nobj ? (d->nobj + 63) / 64 : 1;
    d->vwords = (nv + 63) / 64;
    d->sh = calloc(1, sizeof *d->sh);
    if (!d->sh) goto fail;
    if (pthread_mutex_init(&d->sh->mu, NULL) != 0) {
        free(d->sh);
        d->sh = NULL;
        goto fail;
    }
    d->sh->bytes = (uint64_t)d->words * sizeof(uint64_t);
    if (!tab_grow(d, 0, 64)) goto fail;
    d->meta_vars = malloc(nv * sizeof *d->meta_vars);
    d->meta_mask = calloc(d->vwords, sizeof *d->meta_mask);
    d->meta_index = calloc((size_t)d->vwords * 64, sizeof *d->meta_index);
    if (!d->meta_vars || !d->meta_mask || !d->meta_index || !alloc_scratch(d)) goto fail;
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *var = &p->vars[v];
        bool meta = var->cls == VM_UNSHARED;
        for (uint32_t e = var->first_elem; !meta && e < var->first_elem + var->size; e++)
            meta = var->cls == VM_SHARED && d->elem_off[e] != NONE;
        if (meta) {
            d->meta_index[v] = d->nmeta_vars;
            d->meta_vars[d->nmeta_vars++] = v;
            bit_set(d->meta_mask, v);
        }
    }
    if ((kind != LS_OFF || d->nmeta_vars) && !compute_future(d)) goto fail;
    if (intern(d, d->tmp) != 0) goto fail; /* the empty set is id 0 */
    free(facts);
    return d;
fail:
    free(facts);
    ls_free(d);
    return NULL;
}

uint32_t ls_discharged(const ls_detector *d) { return d ? d->ndischarged : 0; }

/* A clone: the read-only tables and the interning table are d's, the rest
 * is its own (empty memos, no report, no time). Only the fields before
 * `meet`, which nobody writes after ls_new_opts(), are read from d, so d may
 * be in use by another thread meanwhile. */
ls_detector *ls_clone(const ls_detector *d)
{
    ls_detector *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    memcpy(c, d, offsetof(ls_detector, meet));
    c->clone = true;
    if (!alloc_scratch(c)) {
        ls_free(c);
        return NULL;
    }
    return c;
}

void ls_free(ls_detector *d)
{
    if (!d) return;
    if (!d->clone) {
        free(d->elem_off);
        free(d->var_off);
        free(d->vol_obj);
        free(d->obj_elem);
        if (d->sh) {
            for (int c = 0; c < NCHUNKS; c++) free(d->sh->chunk[c]);
            free(d->sh->tab);
            pthread_mutex_destroy(&d->sh->mu);
            free(d->sh);
        }
        if (d->future)
            for (uint32_t b = 0; b < d->p->nbodies; b++) free(d->future[b]);
        free(d->future);
        free(d->meta_vars);
        free(d->meta_mask);
        free(d->meta_index);
    }
    free(d->tmp);
    free(d->live);
    free(d->samask);
    free(d->swmask);
    free(d->tstate);
    free(d->emark);
    free(d->tself);
    free(d->tfut);
    memo_free(&d->meet);
    memo_free(&d->add);
    memo_free(&d->held);
    free(d);
}

uint32_t ls_meta_bytes(const ls_detector *d) { return d ? d->meta_bytes : 0; }

bool ls_needed(ls_kind kind, const vm_program *p)
{
    if (kind != LS_OFF) return true;
    for (uint32_t v = 0; v < p->nvars; v++)
        if (p->vars[v].cls == VM_UNSHARED) return true;
    return false;
}

void ls_init_meta(const ls_detector *d, uint8_t *s)
{
    memset(s + d->meta_off, 0, d->meta_bytes);
}

/* Zero (or reset to an equivalent value) the metadata no later check can
 * read, so that states differing only there are one state. Which variables
 * any thread may still access, and which it may still write, comes from
 * compute_future() at each live thread's pc (a thread that may be spawned
 * later is covered by its spawner's set). Rules, per element of a variable:
 *   no thread may access it again: the record is zeroed (its checks are
 *     over; an unshared variable's owner is forgotten);
 *   no thread may write it again: LD' can only report a violation on an
 *     element that has been written, so an element not written since it
 *     became checked (modes 0 and 2; mode 1 of an `init` variable) behaves
 *     the same whatever its candidate set: it becomes mode 0 (mode 1 with
 *     `init T`, whose mode 0 still demands T's first access). Eraser
 *     likewise: virgin, exclusive and shared all become virgin (only
 *     shared-modified can report). Goldilocks: the read slots R[t] are
 *     only checked by writes and are cleared.
 *   Goldilocks, also while the variable is live: a lockset only grows until
 *     the access that replaces it, so once W holds every thread that may
 *     still access the element, every later check against it passes, as it
 *     does with no write at all: W becomes 0. Likewise R[u] once it holds
 *     every thread that may still write the element. (A spawn slot not
 *     started yet counts as a thread that may access it.)
 * Mode 3 (written, LD) and shared-modified (Eraser) are kept: a later read
 * with the wrong locks is a violation. */

/* May live thread t still access element i of var v (write it, if
 * `writes`)? */
static bool thread_may(const ls_detector *d, uint32_t t, uint32_t v, uint32_t i, bool writes)
{
    const uint64_t *f = d->tfut[t];
    uint32_t vw = d->vwords;
    if (bit_get(f + (writes ? FUT_WR : FUT_ANY) * vw, v)) return true;
    return bit_get(f + (writes ? FUT_SELF_WR : FUT_SELF_ANY) * vw, v) &&
           d->tself[t] == (int32_t)i;
}

/* Goldilocks: does set id hold every thread that may still access element
 * i of var v (may still write it, if `writes`)? A spawn slot not started
 * yet counts as one that may. */
static bool covers(const ls_detector *d, uint32_t id, uint32_t v, uint32_t i, bool writes)
{
    const vm_program *p = d->p;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        if (d->tstate[t] == 0) continue;
        if (d->tstate[t] == 1 && !thread_may(d, t, v, i, writes)) continue;
        if (!set_has(d, id, LS_OBJ_THREAD(p, t))) return false;
    }
    return true;
}

static void canonicalize(ls_detector *d, uint8_t *s)
{
    const vm_program *p = d->p;
    uint32_t vw = d->vwords, stride = FUT_BLOCKS * vw;
    if (d->nmeta_vars == 0) return; /* LS_OFF: only unshared owners */
    bool gold = d->kind == LS_GOLDILOCKS;
    uint64_t *u = d->live; /* the union of the live threads' blocks */
    memset(u, 0, (size_t)stride * sizeof *u);
    /* per variable of up to 64 elements, the elements live threads reach
     * through their self (a bit mask: access, write); larger variables use
     * emark below */
    uint64_t *samask = d->samask, *swmask = d->swmask;
    const uint64_t *mmask = d->meta_mask;
    const uint32_t *mindex = d->meta_index;
    uint8_t *tstate = d->tstate;
    const uint64_t **tfut = d->tfut;
    int32_t *tself = d->tself;
    uint64_t *const *future = (uint64_t *const *)d->future;
    const uint32_t nthreads = p->nthreads, nbodies = p->nbodies;
    if (!gold && vw == 1) {
        /* the usual case first: every element may still be written (by any
         * thread at any element, or each by the thread whose self it is),
         * and then there is nothing to reset */
        uint64_t wr = 0;
        memset(swmask, 0, d->nmeta_vars * sizeof *swmask);
        for (uint32_t t = 0; t < nthreads; t++) {
            enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
            if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
            uint32_t b = vm_tbody_index(p, s, (int)t), pc = vm_tpc(p, s, (int)t);
            if (b >= nbodies || pc >= p->bodies[b].ncode) continue;
            const uint64_t *f = future[b] + (size_t)pc * FUT_BLOCKS;
            wr |= f[FUT_WR];
            uint64_t sw = f[FUT_SELF_WR] & mmask[0] & ~wr;
            if (!sw) continue;
            int32_t self = vm_tself(p, s, (int)t);
            if (self < 0 || self >= 64) continue;
            for (; sw; sw &= sw - 1) swmask[mindex[__builtin_ctzll(sw)]] |= 1ull << self;
        }
        bool all = true;
        for (uint32_t k = 0; k < d->nmeta_vars && all; k++) {
            const vm_var *var = &p->vars[d->meta_vars[k]];
            uint64_t full = var->size >= 64 ? ~0ull : (1ull << var->size) - 1;
            all = ((wr >> d->meta_vars[k]) & 1) || (var->size <= 64 && swmask[k] == full);
        }
        if (all) return;
    }
    memset(samask, 0, d->nmeta_vars * sizeof *samask);
    memset(swmask, 0, d->nmeta_vars * sizeof *swmask);
    for (uint32_t t = 0; t < nthreads; t++) {
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
        tstate[t] = st == VM_T_UNUSED ? 2 : 0;
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        uint32_t b = vm_tbody_index(p, s, (int)t), pc = vm_tpc(p, s, (int)t);
        if (b >= nbodies || pc >= p->bodies[b].ncode) continue;
        const uint64_t *f = future[b] + (size_t)pc * stride;
        int32_t self = vm_tself(p, s, (int)t);
        tstate[t] = 1;
        tfut[t] = f;
        tself[t] = self;
        for (uint32_t i = 0; i < stride; i++) u[i] |= f[i];
        if (self < 0 || self >= 64) continue;
        for (uint32_t i = 0; i < vw; i++) { /* usually no bit or one */
            uint64_t sw = f[FUT_SELF_WR * vw + i];
            for (uint64_t w = f[FUT_SELF_ANY * vw + i] & mmask[i]; w; w &= w - 1) {
                uint32_t bit = (uint32_t)__builtin_ctzll(w), k = mindex[i * 64 + bit];
                samask[k] |= 1ull << self;
                swmask[k] |= ((sw >> bit) & 1) << self;
            }
        }
    }
    for (uint32_t k = 0; k < d->nmeta_vars; k++) {
        uint32_t v = d->meta_vars[k];
        const vm_var *var = &p->vars[v];
        bool any_o = bit_get(u + FUT_ANY * vw, v), wr_o = bit_get(u + FUT_WR * vw, v);
        bool any_s = bit_get(u + FUT_SELF_ANY * vw, v);
        bool small = var->size <= 64;
        uint64_t full = var->size >= 64 ? ~0ull : (1ull << var->size) - 1;
        if (!gold && (wr_o || (small && d->swmask[k] == full))) continue; /* all may be written */
        if (var->cls == VM_UNSHARED) {
            if (!any_o && !any_s) s[d->meta_off + d->var_off[v]] = 0;
            continue;
        }
        bool marked = any_s && !small; /* 1 access, 2 write */
        if (marked)
            for (uint32_t t = 0; t < p->nthreads; t++) {
                if (d->tstate[t] != 1 || d->tself[t] < 0 || (uint32_t)d->tself[t] >= var->size)
                    continue;
                uint8_t *mk = &d->emark[d->tself[t]];
                if (bit_get(d->tfut[t] + FUT_SELF_ANY * vw, v)) *mk |= 1;
                if (bit_get(d->tfut[t] + FUT_SELF_WR * vw, v)) *mk |= 2;
            }
        for (uint32_t i = 0; i < var->size; i++) {
            uint32_t e = var->first_elem + i;
            if (d->elem_off[e] == NONE) continue; /* discharged: no metadata */
            uint32_t o = d->meta_off + d->elem_off[e];
            uint8_t *m = s + o;
            bool may_access, may_write;
            if (small) {
                may_access = any_o || ((d->samask[k] >> i) & 1);
                may_write = wr_o || ((d->swmask[k] >> i) & 1);
            } else {
                may_access = any_o || (marked && (d->emark[i] & 1));
                may_write = wr_o || (marked && (d->emark[i] & 2));
            }
            if (!may_access) {
                memset(m, 0, d->rec);
                continue;
            }
            switch (d->kind) {
            case LS_OFF: break;
            case LS_LD:
                if (may_write || m[0] == 3 || (m[0] == 0 && var->init_body >= 0)) break;
                memset(m, 0, d->rec);
                if (var->init_body >= 0) m[0] = 1;
                break;
            case LS_ERASER:
                if (!may_write && m[0] != 3) memset(m, 0, d->rec);
                break;
            case LS_GOLDILOCKS: {
                uint32_t w = (uint32_t)vm_rd32(s, o);
                if (w && covers(d, w, v, i, false)) vm_wr32(s, o, 0);
                for (uint32_t r = 0; r < p->nthreads; r++) {
                    uint32_t id = (uint32_t)vm_rd32(s, o + 4 + 4 * r);
                    if (id && (!may_write || covers(d, id, v, i, true)))
                        vm_wr32(s, o + 4 + 4 * r, 0);
                }
                break;
            }
            }
        }
        if (marked)
            for (uint32_t t = 0; t < p->nthreads; t++)
                if (d->tstate[t] == 1 && d->tself[t] >= 0 && (uint32_t)d->tself[t] < var->size)
                    d->emark[d->tself[t]] = 0;
    }
}

void ls_canonicalize(ls_detector *d, uint8_t *s)
{
    if (d->nmeta_vars == 0) return; /* no metadata: nothing to reset, nothing to time */
    struct timespec t0;
    bool timed = sample_begin(d, &t0);
    canonicalize(d, s);
    sample_end(d, timed, &t0);
}

const ls_report *ls_last_report(const ls_detector *d) { return &d->rep; }

uint64_t ls_interned(const ls_detector *d)
{
    return atomic_load_explicit(&d->sh->nsets, memory_order_acquire);
}

uint32_t ls_obj_volatile(const ls_detector *d, uint32_t elem)
{
    return elem < d->p->nelems ? d->vol_obj[elem] : NONE;
}

uint32_t ls_obj_chan(const ls_detector *d, uint32_t chan)
{
    return d->kind == LS_GOLDILOCKS && chan < d->p->nchans ? d->chan_base + chan : NONE;
}

uint32_t ls_intern(ls_detector *d, const uint32_t *objs, size_t n)
{
    uint64_t *w = calloc(d->words, sizeof *w);
    if (!w) return NONE;
    for (size_t i = 0; i < n; i++) {
        if (objs[i] >= d->nobj) {
            free(w);
            return NONE;
        }
        w[objs[i] >> 6] |= 1ull << (objs[i] & 63);
    }
    uint32_t id = intern(d, w);
    free(w);
    return id;
}

uint32_t ls_elem_set(const ls_detector *d, const uint8_t *s, uint32_t elem)
{
    if (elem >= d->p->nelems || d->elem_off[elem] == NONE) return 0;
    uint32_t o = d->meta_off + d->elem_off[elem];
    switch (d->kind) {
    case LS_OFF: return 0;
    case LS_LD: return (uint32_t)vm_rd32(s, o + 1);
    case LS_ERASER: return (uint32_t)vm_rd32(s, o + 2);
    case LS_GOLDILOCKS: return (uint32_t)vm_rd32(s, o);
    }
    return 0;
}

bool ls_elem_checked(const ls_detector *d, const uint8_t *s, uint32_t elem)
{
    if (elem >= d->p->nelems || d->elem_off[elem] == NONE) return false;
    uint8_t mode = s[d->meta_off + d->elem_off[elem]];
    return (d->kind == LS_LD || d->kind == LS_ERASER) && mode >= 2;
}

uint32_t ls_held(ls_detector *d, const uint8_t *s, int tid) { return held_set(d, s, tid); }

static void thread_name(const ls_detector *d, const uint8_t *s, int tid, char *buf,
                        size_t n)
{
    if (s && vm_tstatus_of(d->p, s, tid) != VM_T_UNUSED)
        vm_thread_name(d->p, s, tid, buf, n);
    else
        snprintf(buf, n, "t%d", tid);
}

char *ls_format_set(const ls_detector *d, const uint8_t *s, uint32_t id, char *buf,
                    size_t n)
{
    const vm_program *p = d->p;
    size_t len = 0;
    if (n == 0) return buf;
    buf[0] = '\0';
    if (id >= atomic_load_explicit(&d->sh->nsets, memory_order_acquire)) {
        snprintf(buf, n, "{?%" PRIu32 "}", id);
        return buf;
    }
    len += (size_t)snprintf(buf, n, "{");
    bool first = true;
    for (uint32_t o = 0; o < d->nobj && len < n; o++) {
        if (!set_has(d, id, o)) continue;
        char name[96];
        if (o < p->nlocks)
            vm_lock_name(p, o, name, sizeof name);
        else if (o < p->nlocks + p->nthreads)
            thread_name(d, s, (int)(o - p->nlocks), name, sizeof name);
        else if (o < d->chan_base)
            vm_elem_name(p, d->obj_elem[o - p->nlocks - p->nthreads], name, sizeof name);
        else
            snprintf(name, sizeof name, "%s", p->chans[o - d->chan_base].name);
        len += (size_t)snprintf(buf + len, n - len, "%s%s", first ? "" : ", ", name);
        first = false;
    }
    if (len < n) snprintf(buf + len, n - len, "}");
    return buf;
}

/* ---- reports ------------------------------------------------------------ */

static bool report(ls_detector *d, int kind, uint32_t elem, int tid, bool write,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static bool report(ls_detector *d, int kind, uint32_t elem, int tid, bool write,
                   const char *fmt, ...)
{
    d->rep.kind = kind;
    d->rep.elem = elem;
    d->rep.tid = tid;
    d->rep.write = write;
    d->rep.other = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->rep.msg, sizeof d->rep.msg, fmt, ap);
    va_end(ap);
    return true;
}

static bool nomem(ls_detector *d, uint32_t elem, int tid, bool write)
{
    return report(d, LS_NOMEM, elem, tid, write, "out of memory interning locksets");
}

/* ---- the detectors ------------------------------------------------------ */

static bool access_unshared(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                            const vm_var *var, bool write)
{
    uint32_t o = d->meta_off + d->var_off[var - d->p->vars];
    if (s[o] == 0) {
        s[o] = (uint8_t)(tid + 1);
        return false;
    }
    if (s[o] == tid + 1) return false;
    /* the owner's element is not stored (it would split states no check
     * reads): the trace's explanation shows the owner's first access */
    char en[96], a[64], b[64];
    vm_elem_name(d->p, elem, en, sizeof en);
    thread_name(d, s, s[o] - 1, a, sizeof a);
    thread_name(d, s, tid, b, sizeof b);
    if (var->is_array)
        return report(d, LS_UNSHARED, elem, tid, write,
                      "unshared variable '%s' touched by %s, but '%s' belongs to %s (the "
                      "first thread to touch any of its elements)", en, b, var->name, a);
    return report(d, LS_UNSHARED, elem, tid, write,
                  "unshared variable '%s' touched by %s, but it belongs to %s (the first "
                  "thread to touch it)", en, b, a);
}

static bool access_ld(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                      const vm_var *var, bool write)
{
    const vm_program *p = d->p;
    uint32_t o = d->meta_off + d->elem_off[elem];
    uint8_t mode = s[o];
    char en[96], tn[64];
    if (mode == 0 && var->init_body >= 0) {
        if (vm_thread_body(p, s, tid) != &p->bodies[var->init_body]) {
            vm_elem_name(p, elem, en, sizeof en);
            thread_name(d, s, tid, tn, sizeof tn);
            return report(d, LS_LD, elem, tid, write,
                          "lock discipline violated on '%s': first %s by %s, not by "
                          "its init thread '%s'", en, write ? "written" : "read", tn,
                          p->bodies[var->init_body].name);
        }
        s[o] = 1; /* the one unchecked initializing access */
        return false;
    }
    uint32_t held = held_set(d, s, tid);
    if (held == NONE) return nomem(d, elem, tid, write);
    uint32_t before = mode >= 2 ? (uint32_t)vm_rd32(s, o + 1) : NONE;
    uint32_t cand = before == NONE ? held : meet(d, before, held);
    if (cand == NONE) return nomem(d, elem, tid, write);
    bool written = mode == 3 || write;
    if (!written || cand != 0) {
        s[o] = written ? 3 : 2;
        vm_wr32(s, o + 1, (int32_t)cand);
        return false;
    }
    /* a violation: the metadata stays as it was (a fault leaves the state
     * unchanged, so the error state is its predecessor) */
    char hs[96], bs[96];
    vm_elem_name(p, elem, en, sizeof en);
    thread_name(d, s, tid, tn, sizeof tn);
    ls_format_set(d, s, held, hs, sizeof hs);
    if (before == NONE)
        return report(d, LS_LD, elem, tid, write,
                      "lock discipline violated on '%s': written by %s holding {} "
                      "(first checked access)", en, tn);
    ls_format_set(d, s, before, bs, sizeof bs);
    return report(d, LS_LD, elem, tid, write,
                  "lock discipline violated on '%s': %s by %s holding %s; candidate "
                  "locks were %s%s", en, write ? "written" : "read", tn, hs, bs,
                  mode == 3 ? ", and it was written before" : "");
}

static bool access_eraser(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                          bool write)
{
    uint32_t o = d->meta_off + d->elem_off[elem];
    uint8_t mode = s[o];
    if (mode == 0) {
        s[o] = 1;
        s[o + 1] = (uint8_t)(tid + 1);
        return false;
    }
    if (mode == 1 && s[o + 1] == tid + 1) return false;
    uint32_t held = held_set(d, s, tid);
    if (held == NONE) return nomem(d, elem, tid, write);
    uint32_t before = mode == 1 ? NONE : (uint32_t)vm_rd32(s, o + 2);
    uint32_t cand = before == NONE ? held : meet(d, before, held);
    if (cand == NONE) return nomem(d, elem, tid, write);
    if (mode == 1) mode = write ? 3 : 2;
    else if (write) mode = 3;
    if (mode != 3 || cand != 0) {
        s[o] = mode;
        s[o + 1] = 0;
        vm_wr32(s, o + 2, (int32_t)cand);
        return false;
    }
    char en[96], tn[64], hs[96], bs[96];
    vm_elem_name(d->p, elem, en, sizeof en);
    thread_name(d, s, tid, tn, sizeof tn);
    ls_format_set(d, s, held, hs, sizeof hs);
    if (before == NONE) snprintf(bs, sizeof bs, "all locks (exclusive until now)");
    else ls_format_set(d, s, before, bs, sizeof bs);
    return report(d, LS_ERASER, elem, tid, write,
                  "lock discipline violated (Eraser) on '%s': %s by %s holding %s; "
                  "candidate locks were %s", en, write ? "written" : "read", tn, hs, bs);
}

/* Goldilocks rule for a sync event: every lockset of every element that
 * contains `cond` gets `obj`. */
static bool propagate(ls_detector *d, uint8_t *s, int tid, uint32_t cond, uint32_t obj)
{
    const vm_program *p = d->p;
    const ls_sets *sh = d->sh;
    for (uint32_t e = 0; e < p->nelems; e++) {
        if (d->elem_off[e] == NONE) continue;
        uint8_t *m = s + d->meta_off + d->elem_off[e], *end = m + d->rec;
        for (; m < end; m += 4) {
            uint32_t id = (uint32_t)vm_rd32(m, 0);
            if (id == 0 || !sets_has(sh, id, cond)) continue;
            uint32_t r = add_obj(d, id, obj);
            if (r == NONE) return nomem(d, e, tid, false);
            vm_wr32(m, 0, (int32_t)r);
        }
    }
    return false;
}

static bool access_goldilocks(ls_detector *d, uint8_t *s, int tid, uint32_t elem,
                              const vm_var *var, bool write)
{
    const vm_program *p = d->p;
    uint32_t me = LS_OBJ_THREAD(p, tid);
    if (var->cls == VM_VOLATILE) {
        uint32_t v = d->vol_obj[elem];
        return write ? propagate(d, s, tid, me, v) : propagate(d, s, tid, v, me);
    }
    uint32_t o = d->meta_off + d->elem_off[elem];
    uint32_t w = (uint32_t)vm_rd32(s, o);
    int reader = -1;
    uint32_t bad = 0;
    if (w != 0 && !set_has(d, w, me)) bad = w;
    for (uint32_t u = 0; write && !bad && u < p->nthreads; u++) {
        uint32_t r = (uint32_t)vm_rd32(s, o + 4 + 4 * u);
        if (r != 0 && !set_has(d, r, me)) {
            bad = r;
            reader = (int)u;
        }
    }
    if (bad) {
        char en[96], tn[64], rn[64], bs[128];
        vm_elem_name(p, elem, en, sizeof en);
        thread_name(d, s, tid, tn, sizeof tn);
        ls_format_set(d, s, bad, bs, sizeof bs);
        if (reader >= 0) {
            thread_name(d, s, reader, rn, sizeof rn);
            report(d, LS_GOLDILOCKS, elem, tid, write,
                   "data race on '%s': written by %s, not ordered after the "
                   "read by %s (its lockset is %s)", en, tn, rn, bs);
            d->rep.other = reader;
            return true;
        }
        return report(d, LS_GOLDILOCKS, elem, tid, write,
                      "data race on '%s': %s by %s, not ordered after the last write "
                      "(its lockset is %s)", en, write ? "written" : "read", tn, bs);
    }
    uint32_t mine = singleton(d, me);
    if (mine == NONE) return nomem(d, elem, tid, write);
    if (write) {
        vm_wr32(s, o, (int32_t)mine);
        memset(s + o + 4, 0, 4 * (size_t)p->nthreads);
    } else {
        vm_wr32(s, o + 4 + 4 * (uint32_t)tid, (int32_t)mine);
    }
    return false;
}

/* ---- hooks ---------------------------------------------------------------- */

static bool on_access_(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    ls_detector *d = ctx;
    const vm_var *var = vm_elem_var(d->p, elem);
    if (var->cls == VM_UNSHARED) return access_unshared(d, s, tid, elem, var, write);
    if (var->cls == VM_SHARED && d->elem_off[elem] == NONE) return false; /* discharged */
    switch (d->kind) {
    case LS_OFF: return false;
    case LS_LD:
        return var->cls == VM_SHARED && access_ld(d, s, tid, elem, var, write);
    case LS_ERASER:
        return var->cls == VM_SHARED && access_eraser(d, s, tid, elem, write);
    case LS_GOLDILOCKS: return access_goldilocks(d, s, tid, elem, var, write);
    }
    return false;
}

/* The remaining events only matter to Goldilocks (ls_hooks installs them
 * for it alone). */
static bool on_acquire_(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, lock, LS_OBJ_THREAD(d->p, tid));
}

static bool on_release_(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, LS_OBJ_THREAD(d->p, tid), lock);
}

static bool on_spawn_(void *ctx, uint8_t *s, int parent, int child)
{
    ls_detector *d = ctx;
    return propagate(d, s, parent, LS_OBJ_THREAD(d->p, parent), LS_OBJ_THREAD(d->p, child));
}

static bool on_join_(void *ctx, uint8_t *s, int joiner, int joinee)
{
    ls_detector *d = ctx;
    return propagate(d, s, joiner, LS_OBJ_THREAD(d->p, joinee), LS_OBJ_THREAD(d->p, joiner));
}

static bool on_send_(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, LS_OBJ_THREAD(d->p, tid), d->chan_base + chan);
}

static bool on_recv_(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, d->chan_base + chan, LS_OBJ_THREAD(d->p, tid));
}

/* The hooks the interpreter calls: the rules above, some of them timed. */
#define TIMED_HOOK(name, params, args)                                         \
    static bool name params                                                    \
    {                                                                          \
        struct timespec t0;                                                    \
        bool timed = sample_begin(ctx, &t0);                                   \
        bool r = name##_ args;                                                 \
        sample_end(ctx, timed, &t0);                                           \
        return r;                                                              \
    }
TIMED_HOOK(on_access, (void *ctx, uint8_t *s, int tid, uint32_t elem, bool write),
           (ctx, s, tid, elem, write))
TIMED_HOOK(on_acquire, (void *ctx, uint8_t *s, int tid, uint32_t lock), (ctx, s, tid, lock))
TIMED_HOOK(on_release, (void *ctx, uint8_t *s, int tid, uint32_t lock), (ctx, s, tid, lock))
TIMED_HOOK(on_spawn, (void *ctx, uint8_t *s, int parent, int child), (ctx, s, parent, child))
TIMED_HOOK(on_join, (void *ctx, uint8_t *s, int joiner, int joinee), (ctx, s, joiner, joinee))
TIMED_HOOK(on_send, (void *ctx, uint8_t *s, int tid, uint32_t chan), (ctx, s, tid, chan))
TIMED_HOOK(on_recv, (void *ctx, uint8_t *s, int tid, uint32_t chan), (ctx, s, tid, chan))
#undef TIMED_HOOK

void ls_hooks(ls_detector *d, vm_hooks *h)
{
    h->ctx = d;
    /* no element with metadata (nothing shared is left to check, no
     * unshared owner): no event can lead to a report, so no hook at all */
    h->access = d->nmeta_vars == 0 ? NULL : on_access;
    bool g = d->kind == LS_GOLDILOCKS && d->nmeta_vars != 0;
    h->acquire = g ? on_acquire : NULL;
    h->release = g ? on_release : NULL;
    h->spawn = g ? on_spawn : NULL;
    h->join = g ? on_join : NULL;
    h->send = g ? on_send : NULL;
    h->recv = g ? on_recv : NULL;
}

/* ---- sets between detectors of different processes (reduce/mpi.c) ------- */

uint32_t ls_set_words(const ls_detector *d) { return d->words; }

const uint64_t *ls_set_bits(const ls_detector *d, uint32_t id)
{
    if (id >= atomic_load_explicit(&d->sh->nsets, memory_order_acquire)) return NULL;
    return set_words(d, id);
}

uint32_t ls_intern_bits(ls_detector *d, const uint64_t *w) { return intern(d, w); }

uint32_t ls_id_offsets(const ls_detector *d, uint32_t *offs)
{
    uint32_t n = 0, first, count;
    switch (d->kind) {
    case LS_LD: first = 1, count = 1; break;
    case LS_ERASER: first = 2, count = 1; break;
    case LS_GOLDILOCKS: first = 0, count = 1 + d->p->nthreads; break;
    default: return 0; /* LS_OFF: owner bytes only */
    }
    for (uint32_t e = 0; e < d->p->nelems; e++) { /* elem_off ascends with e */
        if (d->elem_off[e] == NONE) continue;
        for (uint32_t k = 0; k < count; k++) {
            if (offs) offs[n] = d->meta_off + d->elem_off[e] + first + 4 * k;
            n++;
        }
    }
    return n;
}
