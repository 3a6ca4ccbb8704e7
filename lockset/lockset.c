/* lockset.c: LD', Eraser and Goldilocks over interned locksets (see lockset.h
 * for the rules, the metadata layout and how the three differ).
 *
 * A lockset is a bitset over the detector's sync objects (locks; for
 * Goldilocks also threads, volatile elements and channels). Each distinct set
 * is stored once in `sets` and named by its index (id 0 is the empty set);
 * an open-addressing table finds the id of a set, and two memo tables cache
 * intersection (LD, Eraser) and "add one object" (Goldilocks). Nothing here
 * reads or writes the state vector except the metadata area and the lock
 * owners (to compute the held set). */
#include "lockset.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define EMPTY_KEY UINT64_MAX

/* A memo map u64 -> u32 with open addressing (keys never EMPTY_KEY). */
typedef struct memo {
    uint64_t *keys;
    uint32_t *vals;
    uint32_t cap; /* power of two, or 0 */
    uint32_t n;
} memo;

struct ls_detector {
    ls_kind kind;
    const vm_program *p;
    uint32_t meta_off;
    uint32_t meta_bytes;
    uint32_t rec;        /* bytes of metadata per shared element */
    uint32_t *elem_off;  /* per element: offset from meta_off, NONE if none */
    uint32_t *var_off;   /* per var: unshared owner byte offset, NONE if none */
    uint32_t *vol_obj;   /* per element: Goldilocks object of a volatile, or NONE */
    uint32_t *obj_elem;  /* per volatile object index: its element */
    uint32_t nvol;
    uint32_t chan_base;  /* object of channel 0 (Goldilocks) */
    uint32_t nobj;       /* sync objects */
    uint32_t words;      /* uint64 words per set */
    uint64_t *sets;      /* nsets * words */
    uint32_t nsets, sets_cap;
    uint32_t *tab;       /* id + 1 per slot, 0 empty */
    uint32_t tab_cap;    /* power of two */
    memo meet, add;
    uint64_t *tmp;       /* scratch set */
    ls_report rep;
};

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

static const uint64_t *set_words(const ls_detector *d, uint32_t id)
{
    assert(id < d->nsets && "a set id the detector handed out");
    return d->sets + (size_t)id * d->words;
}

static bool set_has(const ls_detector *d, uint32_t id, uint32_t obj)
{
    return (set_words(d, id)[obj >> 6] >> (obj & 63)) & 1;
}

static bool tab_grow(ls_detector *d)
{
    uint32_t cap = d->tab_cap ? d->tab_cap * 2 : 64;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return false;
    for (uint32_t id = 0; id < d->nsets; id++) {
        uint32_t i = (uint32_t)hash_set(set_words(d, id), d->words) & (cap - 1);
        while (t[i]) i = (i + 1) & (cap - 1);
        t[i] = id + 1;
    }
    free(d->tab);
    d->tab = t;
    d->tab_cap = cap;
    return true;
}

/* The id of set w (copied in if new), or NONE when memory runs out. */
static uint32_t intern(ls_detector *d, const uint64_t *w)
{
    uint64_t h = hash_set(w, d->words);
    size_t bytes = (size_t)d->words * sizeof *w;
    uint32_t i = (uint32_t)h & (d->tab_cap - 1);
    for (; d->tab[i]; i = (i + 1) & (d->tab_cap - 1))
        if (!memcmp(set_words(d, d->tab[i] - 1), w, bytes)) return d->tab[i] - 1;
    if (d->nsets == NONE - 1) return NONE;
    if (d->nsets == d->sets_cap) {
        uint32_t cap = d->sets_cap ? d->sets_cap * 2 : 64;
        uint64_t *s = realloc(d->sets, (size_t)cap * bytes);
        if (!s) return NONE;
        d->sets = s;
        d->sets_cap = cap;
    }
    uint32_t id = d->nsets++;
    memcpy(d->sets + (size_t)id * d->words, w, bytes);
    if ((uint64_t)d->nsets * 2 > d->tab_cap) {
        if (!tab_grow(d)) { /* keep the table consistent: forget the new set */
            d->nsets--;
            return NONE;
        }
        return id;
    }
    d->tab[i] = id + 1;
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

/* a ∪ {obj}, or NONE when memory runs out. */
static uint32_t add_obj(ls_detector *d, uint32_t a, uint32_t obj)
{
    if (set_has(d, a, obj)) return a;
    uint64_t key = (uint64_t)a << 32 | obj;
    uint32_t r = memo_get(&d->add, key);
    if (r != NONE) return r;
    memcpy(d->tmp, set_words(d, a), (size_t)d->words * sizeof *d->tmp);
    d->tmp[obj >> 6] |= 1ull << (obj & 63);
    r = intern(d, d->tmp);
    if (r != NONE) memo_put(&d->add, key, r);
    return r;
}

static uint32_t singleton(ls_detector *d, uint32_t obj)
{
    return add_obj(d, 0, obj);
}

/* The locks thread tid holds in s. */
static uint32_t held_set(ls_detector *d, const uint8_t *s, int tid)
{
    memset(d->tmp, 0, (size_t)d->words * sizeof *d->tmp);
    for (uint32_t l = 0; l < d->p->nlocks; l++)
        if (vm_lock_owner(d->p, s, l) == tid) d->tmp[l >> 6] |= 1ull << (l & 63);
    return intern(d, d->tmp);
}

/* ---- construction ------------------------------------------------------ */

ls_detector *ls_new(ls_kind kind, const vm_program *p, uint32_t meta_off)
{
    ls_detector *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->kind = kind;
    d->p = p;
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
                d->elem_off[e] = off;
                off += d->rec;
            }
            if (kind == LS_GOLDILOCKS && var->cls == VM_VOLATILE) {
                d->vol_obj[e] = p->nlocks + p->nthreads + d->nvol;
                d->obj_elem[d->nvol++] = e;
            }
        }
    }
    for (uint32_t v = 0; v < p->nvars; v++) {
        d->var_off[v] = NONE;
        if (kind != LS_OFF && p->vars[v].cls == VM_UNSHARED) d->var_off[v] = off++;
    }
    d->meta_bytes = off;
    d->chan_base = p->nlocks + p->nthreads + d->nvol;
    d->nobj = kind == LS_GOLDILOCKS ? d->chan_base + p->nchans : p->nlocks;
    d->words = d->nobj ? (d->nobj + 63) / 64 : 1;
    d->tmp = calloc(d->words, sizeof *d->tmp);
    if (!d->tmp || !tab_grow(d)) goto fail;
    if (intern(d, d->tmp) != 0) goto fail; /* the empty set is id 0 */
    return d;
fail:
    ls_free(d);
    return NULL;
}

void ls_free(ls_detector *d)
{
    if (!d) return;
    free(d->elem_off);
    free(d->var_off);
    free(d->vol_obj);
    free(d->obj_elem);
    free(d->sets);
    free(d->tab);
    free(d->tmp);
    memo_free(&d->meet);
    memo_free(&d->add);
    free(d);
}

uint32_t ls_meta_bytes(const ls_detector *d) { return d ? d->meta_bytes : 0; }

void ls_init_meta(const ls_detector *d, uint8_t *s)
{
    memset(s + d->meta_off, 0, d->meta_bytes);
}

const ls_report *ls_last_report(const ls_detector *d) { return &d->rep; }

uint64_t ls_interned(const ls_detector *d) { return d->nsets; }

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
    if (id >= d->nsets) {
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
    char en[96], a[64], b[64];
    vm_elem_name(d->p, elem, en, sizeof en);
    thread_name(d, s, s[o] - 1, a, sizeof a);
    thread_name(d, s, tid, b, sizeof b);
    return report(d, LS_UNSHARED, elem, tid, write,
                  "unshared variable '%s' touched by %s and %s", en, a, b);
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
    s[o] = written ? 3 : 2;
    vm_wr32(s, o + 1, (int32_t)cand);
    if (!written || cand != 0) return false;
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
    s[o] = mode;
    s[o + 1] = 0;
    vm_wr32(s, o + 2, (int32_t)cand);
    if (mode != 3 || cand != 0) return false;
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
    for (uint32_t e = 0; e < p->nelems; e++) {
        if (d->elem_off[e] == NONE) continue;
        uint32_t o = d->meta_off + d->elem_off[e];
        for (uint32_t k = 0; k <= p->nthreads; k++, o += 4) {
            uint32_t id = (uint32_t)vm_rd32(s, o);
            if (id == 0 || !set_has(d, id, cond)) continue;
            uint32_t r = add_obj(d, id, obj);
            if (r == NONE) return nomem(d, e, tid, false);
            vm_wr32(s, o, (int32_t)r);
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
            return report(d, LS_GOLDILOCKS, elem, tid, write,
                          "data race on '%s': written by %s, not ordered after the "
                          "read by %s (its lockset is %s)", en, tn, rn, bs);
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

static bool on_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    ls_detector *d = ctx;
    const vm_var *var = vm_elem_var(d->p, elem);
    if (var->cls == VM_UNSHARED) return access_unshared(d, s, tid, elem, var, write);
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
static bool on_acquire(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, lock, LS_OBJ_THREAD(d->p, tid));
}

static bool on_release(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, LS_OBJ_THREAD(d->p, tid), lock);
}

static bool on_spawn(void *ctx, uint8_t *s, int parent, int child)
{
    ls_detector *d = ctx;
    return propagate(d, s, parent, LS_OBJ_THREAD(d->p, parent), LS_OBJ_THREAD(d->p, child));
}

static bool on_join(void *ctx, uint8_t *s, int joiner, int joinee)
{
    ls_detector *d = ctx;
    return propagate(d, s, joiner, LS_OBJ_THREAD(d->p, joinee), LS_OBJ_THREAD(d->p, joiner));
}

static bool on_send(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, LS_OBJ_THREAD(d->p, tid), d->chan_base + chan);
}

static bool on_recv(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    ls_detector *d = ctx;
    return propagate(d, s, tid, d->chan_base + chan, LS_OBJ_THREAD(d->p, tid));
}

void ls_hooks(ls_detector *d, vm_hooks *h)
{
    h->ctx = d;
    h->access = d->kind == LS_OFF ? NULL : on_access;
    bool g = d->kind == LS_GOLDILOCKS;
    h->acquire = g ? on_acquire : NULL;
    h->release = g ? on_release : NULL;
    h->spawn = g ? on_spawn : NULL;
    h->join = g ? on_join : NULL;
    h->send = g ? on_send : NULL;
    h->recv = g ? on_recv : NULL;
}
