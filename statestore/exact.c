/* exact.c: the exact store: every vector kept whole, so no state is ever
 * omitted. Records live in fixed-size chunks (no copying as the arena
 * grows, at most one chunk of slack); a JudyL maps the 64-bit XXH3 hash of a
 * vector to its first record, and a second, sparse JudyL chains the records
 * of distinct vectors that share a hash (record -> next record), so a state
 * pays nothing for a chain it almost surely never needs. Judy is called
 * through its functions with a JError_t, never its exit()ing macros; any
 * Judy error or failed allocation is STORE_FULL with the set unchanged.
 * (Judy 1.0.5 itself leaks the few nodes of a JudyLIns that runs out of
 * memory; tests/e2e/failalloc.py ignores exactly those leaks.)
 * Not here: deletion, variable-length vectors, concurrency. */
#include "store_int.h"

#define EXACT_CHUNK_TARGET_BYTES ((size_t)64 << 10)
#define EXACT_JUDY_INSERT_BYTES 256 /* headroom a JudyLIns may take, for the limit */

static inline uint8_t *exact_record(const store *st, Word_t i)
{
    const exact_set *ex = &st->u.exact;
    size_t in_chunk = (size_t)(i & (((Word_t)1 << ex->chunk_shift) - 1));
    return ex->chunks[i >> ex->chunk_shift] + in_chunk * st->vec_bytes;
}

static size_t exact_chunk_bytes(const store *st)
{
    size_t b = ((size_t)1 << st->u.exact.chunk_shift) * st->vec_bytes;
    return b ? b : 1;
}

/* A Judy lookup: the value slot for key, NULL if absent, PPJERR on error. */
static inline Word_t *judyl_get(Pcvoid_t a, Word_t key, bool *err)
{
    JError_t je;
    PPvoid_t v = JudyLGet(a, key, &je);
    if (v == PPJERR) {
        *err = true;
        return NULL;
    }
    return (Word_t *)v;
}

/* Finds vec among the records whose hash is h. Returns true if present;
 * else *last is the chain's last record (or ~0 if h has none). *err on a
 * Judy error. */
static bool exact_find(const store *st, const void *vec, Word_t h, Word_t *last, bool *err)
{
    const exact_set *ex = &st->u.exact;
    *last = ~(Word_t)0;
    Word_t *slot = judyl_get(ex->index, h, err);
    while (slot) {
        Word_t i = *slot - 1;
        if (memcmp(exact_record(st, i), vec, st->vec_bytes) == 0) return true;
        *last = i;
        slot = judyl_get(ex->chain, i, err);
    }
    return false;
}

/* Makes room for record number st->count. */
static bool exact_reserve(store *st)
{
    exact_set *ex = &st->u.exact;
    size_t chunk = (size_t)(st->count >> ex->chunk_shift);
    if (chunk < ex->nchunks) return true;
    if (ex->nchunks == ex->chunks_cap) {
        size_t cap = ex->chunks_cap ? 2 * ex->chunks_cap : 16;
        uint8_t **c = ex->chunks
                          ? store_mem_realloc(&st->mem, ex->chunks,
                                              ex->chunks_cap * sizeof *c, cap * sizeof *c)
                          : store_mem_alloc(&st->mem, cap * sizeof *c, false);
        if (!c) return false;
        ex->chunks = c;
        ex->chunks_cap = cap;
    }
    uint8_t *block = store_mem_alloc(&st->mem, exact_chunk_bytes(st), false);
    if (!block) return false;
    ex->chunks[ex->nchunks++] = block;
    return true;
}

/* Sets key -> value in *a. False on a Judy error (out of memory). */
static bool judyl_put(Pvoid_t *a, Word_t key, Word_t value)
{
    JError_t je;
    PPvoid_t v = JudyLIns(a, key, &je);
    if (v == PPJERR) return false;
    *(Word_t *)v = value;
    return true;
}

bool exact_init(store *st, size_t chunk_target_bytes)
{
    exact_set *ex = &st->u.exact;
    if (!chunk_target_bytes) chunk_target_bytes = EXACT_CHUNK_TARGET_BYTES;
    size_t per = chunk_target_bytes / (st->vec_bytes ? st->vec_bytes : 1);
    ex->chunk_shift = 0;
    while (per >> (ex->chunk_shift + 1)) ex->chunk_shift++;
    return true;
}

store_result exact_insert(store *st, const void *vec)
{
    return exact_insert_hashed(st, vec, store_vec_hash64(st, vec));
}

/* exact_insert() given the vector's hash (store_vec_hash64). */
store_result exact_insert_hashed(store *st, const void *vec, uint64_t hash)
{
    exact_set *ex = &st->u.exact;
    Word_t h = hash, last;
    bool err = false;
    if (exact_find(st, vec, h, &last, &err)) return STORE_PRESENT;
    if (err || !exact_reserve(st)) return STORE_FULL;
    if (store_mem_would_pass(&st->mem, exact_judy_bytes(st) + EXACT_JUDY_INSERT_BYTES))
        return STORE_FULL;
    Word_t rec = st->count;
    if (!(last == ~(Word_t)0 ? judyl_put(&ex->index, h, rec + 1)
                             : judyl_put(&ex->chain, last, rec + 1)))
        return STORE_FULL;
    memcpy(exact_record(st, rec), vec, st->vec_bytes);
    st->count++;
    return STORE_ADDED;
}

bool exact_contains(const store *st, const void *vec)
{
    Word_t last;
    bool err = false;
    return exact_find(st, vec, store_vec_hash64(st, vec), &last, &err);
}

void exact_free(store *st)
{
    exact_set *ex = &st->u.exact;
    JError_t je;
    JudyLFreeArray(&ex->index, &je);
    JudyLFreeArray(&ex->chain, &je);
    for (size_t c = 0; c < ex->nchunks; c++)
        store_mem_free(&st->mem, ex->chunks[c], exact_chunk_bytes(st));
    store_mem_free(&st->mem, ex->chunks, ex->chunks_cap * sizeof *ex->chunks);
    ex->chunks = NULL;
    ex->nchunks = ex->chunks_cap = 0;
}

size_t exact_judy_bytes(const store *st)
{
    return (size_t)(JudyLMemUsed(st->u.exact.index) + JudyLMemUsed(st->u.exact.chain));
}

/* Every record is reachable from its hash's chain, exactly once. */
bool exact_check(const store *st)
{
    const exact_set *ex = &st->u.exact;
    JError_t je;
    Word_t hashes = JudyLCount(ex->index, 0, ~(Word_t)0, &je);
    Word_t links = JudyLCount(ex->chain, 0, ~(Word_t)0, &je);
    if (hashes + links != st->count) return false;
    for (Word_t i = 0; i < st->count; i++) {
        Word_t last;
        bool err = false;
        const uint8_t *r = exact_record(st, i);
        if (!exact_find(st, r, store_vec_hash64(st, r), &last, &err) || err) return false;
    }
    return true;
}
