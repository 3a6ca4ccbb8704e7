/* intern.c: the interned locksets of lockset/ (lockset.h says how the
 * detectors use them; lockset_int.h has the table's layout and locking).
 *
 * A lockset is a bitset over the detector's sync objects (locks; for
 * Goldilocks also threads, volatile elements and channels). Each distinct set
 * is stored once in the interning table (ls_sets, shared by a detector and its
 * clones, ls_clone) and named by its index (id 0 is the empty set); an
 * open-addressing table finds the id of a set, and per-detector memo tables
 * cache intersection (LD, Eraser), "add one object" (Goldilocks) and the held
 * set. Nothing here reads the state vector except the lock owners (to compute
 * the held set). */
#include "lockset_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

uint32_t ls_intern_words(ls_detector *d, const uint64_t *w)
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

void ls_memo_free(memo *m)
{
    free(m->keys);
    free(m->vals);
}


bool ls_sets_new(ls_detector *d)
{
    d->sh = calloc(1, sizeof *d->sh);
    if (!d->sh) return false;
    if (pthread_mutex_init(&d->sh->mu, NULL) != 0) {
        free(d->sh);
        d->sh = NULL;
        return false;
    }
    d->sh->bytes = (uint64_t)d->words * sizeof(uint64_t);
    return tab_grow(d, 0, 64);
}

void ls_sets_free(ls_sets *sh)
{
    if (!sh) return;
    for (int c = 0; c < NCHUNKS; c++) free(sh->chunk[c]);
    free(sh->tab);
    pthread_mutex_destroy(&sh->mu);
    free(sh);
}

uint64_t ls_interned(const ls_detector *d)
{
    return atomic_load_explicit(&d->sh->nsets, memory_order_acquire);
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
    uint32_t id = ls_intern_words(d, w);
    free(w);
    return id;
}

/* ---- set operations, memoized ------------------------------------------- */

uint32_t ls_meet_slow(ls_detector *d, uint32_t a, uint32_t b)
{
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
    r = ls_intern_words(d, d->tmp);
    if (r != NONE) memo_put(&d->meet, key, r);
    return r;
}

uint32_t ls_meet(ls_detector *d, uint32_t a, uint32_t b) { return meet(d, a, b); }

__attribute__((noinline)) uint32_t ls_add_new_obj(ls_detector *d, uint32_t a, uint32_t obj)
{
    uint64_t key = (uint64_t)a << 32 | obj;
    uint32_t r = memo_get(&d->add, key);
    if (r != NONE) return r;
    memcpy(d->tmp, set_words(d, a), (size_t)d->words * sizeof *d->tmp);
    d->tmp[obj >> 6] |= 1ull << (obj & 63);
    r = ls_intern_words(d, d->tmp);
    if (r != NONE) memo_put(&d->add, key, r);
    return r;
}

/* The locks thread tid holds in s. With at most 64 sync objects the set is
 * one word, and its id is memoized by value (the `held` memo), so the
 * common case costs a scan of the lock owners and one probe. */
uint32_t ls_held(ls_detector *d, const uint8_t *s, int tid)
{
    if (d->words == 1 && d->p->nlocks < 64) {
        uint64_t w = 0;
        for (uint32_t l = 0; l < d->p->nlocks; l++)
            if (vm_lock_owner(d->p, s, l) == tid) w |= 1ull << l;
        if (w == 0) return 0;
        uint32_t r = memo_get(&d->held, w);
        if (r != NONE) return r;
        d->tmp[0] = w;
        r = ls_intern_words(d, d->tmp);
        if (r != NONE) memo_put(&d->held, w, r);
        return r;
    }
    memset(d->tmp, 0, (size_t)d->words * sizeof *d->tmp);
    for (uint32_t l = 0; l < d->p->nlocks; l++)
        if (vm_lock_owner(d->p, s, l) == tid) d->tmp[l >> 6] |= 1ull << (l & 63);
    return ls_intern_words(d, d->tmp);
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
            ls_thread_name(d, s, (int)(o - p->nlocks), name, sizeof name);
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
