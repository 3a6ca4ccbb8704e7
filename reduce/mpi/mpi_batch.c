/* mpi_batch.c: the compact records of mcheck-mpi's batches (mpi_batch.h):
 * LEB128 varints for the tag, the choice and the parent index's zigzag
 * difference, and a vector as its runs of bytes changed since the batch's
 * previous vector. Two runs closer than 3 equal bytes are one (a run's
 * header costs 2 bytes or more). Not here: compression beyond that (a
 * general-purpose compressor would cost more time than the network it
 * saves on the links measured, docs/benchmarks.md section 11). */
#include "mpi_batch.h"

#include <string.h>

enum { GAP = 3 };

static size_t put_var(uint8_t *d, uint64_t x)
{
    size_t n = 0;
    while (x >= 0x80) {
        d[n++] = (uint8_t)(x | 0x80);
        x >>= 7;
    }
    d[n++] = (uint8_t)x;
    return n;
}

/* 0 if cut short or longer than 10 bytes. */
static size_t get_var(const uint8_t *s, size_t n, uint64_t *x)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        v |= (uint64_t)(s[i] & 0x7f) << (7 * i);
        if (!(s[i] & 0x80)) {
            *x = v;
            return i + 1;
        }
    }
    return 0;
}

size_t mb_max(size_t vsize)
{
    /* tag, choice, index (10 each), the run count, and per run of at least
     * one byte a header of two varints (at most 3 bytes each while vsize is
     * below 2^21); runs are at least GAP apart */
    size_t runs = vsize / (GAP + 1) + 1;
    return 40 + vsize + 6 * runs;
}

void mb_reset(mb_ctx *c)
{
    memset(c->prev, 0, c->vsize);
    c->pidx = 0;
}

size_t mb_put(mb_ctx *c, uint8_t *dst, const mb_rec *r, const uint8_t *v)
{
    size_t n = put_var(dst, (uint64_t)r->tid << 3 | r->type);
    if (r->type == MB_SET || r->type == MB_DEPTH) return n + put_var(dst + n, r->pidx);
    n += put_var(dst + n, r->choice);
    uint64_t d = r->pidx - c->pidx; /* zigzag: small either way */
    n += put_var(dst + n, (d << 1) ^ (uint64_t)-(int64_t)(d >> 63));
    c->pidx = r->pidx;
    /* the runs, after a placeholder for their count (one byte while there
     * are fewer than 128; moved up otherwise) */
    size_t count_at = n++, runs = 0, last = 0, i = 0, vs = c->vsize;
    const uint8_t *p = c->prev;
    while (i < vs) {
        while (i + 8 <= vs && !memcmp(p + i, v + i, 8)) i += 8;
        while (i < vs && p[i] == v[i]) i++;
        if (i == vs) break;
        size_t start = i, end = i + 1, eq = 0;
        for (i = end; i < vs && eq < GAP; i++) {
            if (p[i] == v[i]) {
                eq++;
            } else {
                eq = 0;
                end = i + 1;
            }
        }
        i = end;
        n += put_var(dst + n, start - last);
        n += put_var(dst + n, end - start);
        memcpy(dst + n, v + start, end - start);
        n += end - start;
        last = end;
        runs++;
    }
    uint8_t cnt[10];
    size_t cn = put_var(cnt, runs);
    if (cn > 1) memmove(dst + count_at + cn, dst + count_at + 1, n - count_at - 1);
    memcpy(dst + count_at, cnt, cn);
    n += cn - 1;
    memcpy(c->prev, v, vs);
    return n;
}

size_t mb_get(mb_ctx *c, const uint8_t *src, size_t n, mb_rec *r)
{
    uint64_t tag, x;
    size_t k = get_var(src, n, &tag), pos = k;
    if (!k || (tag & 7) == 0 || (tag & 7) > MB_DEPTH || tag >> 3 > INT32_MAX) return 0;
    r->type = (uint32_t)(tag & 7);
    r->tid = (uint32_t)(tag >> 3);
    r->choice = 0;
    if (r->type == MB_SET || r->type == MB_DEPTH) {
        if (!(k = get_var(src + pos, n - pos, &r->pidx))) return 0;
        return pos + k;
    }
    if (!(k = get_var(src + pos, n - pos, &r->choice))) return 0;
    pos += k;
    if (!(k = get_var(src + pos, n - pos, &x))) return 0;
    pos += k;
    c->pidx += (x >> 1) ^ (uint64_t)-(int64_t)(x & 1);
    r->pidx = c->pidx;
    uint64_t runs, at = 0;
    if (!(k = get_var(src + pos, n - pos, &runs))) return 0;
    pos += k;
    for (uint64_t j = 0; j < runs; j++) {
        uint64_t skip, len;
        if (!(k = get_var(src + pos, n - pos, &skip))) return 0;
        pos += k;
        if (!(k = get_var(src + pos, n - pos, &len))) return 0;
        pos += k;
        if (skip > c->vsize - at || len > c->vsize - at - skip || len > n - pos) return 0;
        at += skip;
        memcpy(c->prev + at, src + pos, len);
        at += len;
        pos += len;
    }
    return pos;
}
