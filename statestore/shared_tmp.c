/* TEMPORARY stand-in for the pstore branch's shared store (replaced at merge). */
#include <pthread.h>
#include <stdlib.h>
#include "store_int.h"
struct sstore { store **sh; pthread_mutex_t *mu; unsigned bits; size_t vb; };
sstore *sstore_new(const store_config *cfg, size_t vec_bytes, unsigned shard_bits)
{
    sstore *s = calloc(1, sizeof *s);
    unsigned n = 1u << shard_bits;
    s->sh = calloc(n, sizeof *s->sh); s->mu = calloc(n, sizeof *s->mu);
    s->bits = shard_bits; s->vb = vec_bytes;
    for (unsigned i = 0; i < n; i++) { s->sh[i] = store_new(cfg, vec_bytes); pthread_mutex_init(&s->mu[i], NULL); }
    return s;
}
void sstore_free(sstore *s) { if (!s) return; for (unsigned i = 0; i < (1u << s->bits); i++) store_free(s->sh[i]); free(s->sh); free(s->mu); free(s); }
uint64_t sstore_hash(const sstore *s, const void *vec) { return store_hash64(vec, s->vb); }
unsigned sstore_shard_of(const sstore *s, uint64_t h) { return s->bits ? (unsigned)(h >> (64 - s->bits)) : 0; }
store_result sstore_insert(sstore *s, const void *vec, uint64_t hash)
{
    unsigned i = sstore_shard_of(s, hash);
    pthread_mutex_lock(&s->mu[i]);
    store_result r = store_takes_hash(s->sh[i]) ? store_insert_prepared(s->sh[i], vec, hash) : store_insert(s->sh[i], vec);
    pthread_mutex_unlock(&s->mu[i]);
    return r;
}
uint64_t sstore_count(const sstore *s) { uint64_t c = 0; for (unsigned i = 0; i < (1u << s->bits); i++) c += store_count(s->sh[i]); return c; }
size_t sstore_bytes(const sstore *s) { size_t c = 0; for (unsigned i = 0; i < (1u << s->bits); i++) { pthread_mutex_lock(&s->mu[i]); c += store_bytes(s->sh[i]); pthread_mutex_unlock(&s->mu[i]); } return c; }
double sstore_omission_probability(const sstore *s) { double c = 0; for (unsigned i = 0; i < (1u << s->bits); i++) c += store_omission_probability(s->sh[i]); return c; }
void sstore_prefetch(const sstore *s, uint64_t h) { const store *t = s->sh[sstore_shard_of(s, h)]; store_prefetch_index(t, h); store_prefetch(t, h, false); }
