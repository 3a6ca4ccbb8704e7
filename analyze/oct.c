/* oct.c: octagons as difference-bound matrices (Mine, "The octagon abstract
 * domain", HOSC 2006; the integer tight closure of Bagnara, Hill and
 * Zaffanella, "Weakly-relational shapes for numeric abstractions", 2009):
 * constraints +-x +-y <= c over n variables as a 2n x 2n matrix, strong
 * closure by Floyd-Warshall then tightening and strengthening, join as the
 * entrywise max, widening to +inf of every bound that grew, meet, forget,
 * exact shift and negation. RATCOP's relational analyses use Apron's
 * octagons (paper section 8.1); Apron is not packaged for Debian, and PPL,
 * which has octagons, is GPL-3, which does not fit a project whose other
 * dependencies are LGPL/BSD: hence these ~200 lines.
 *
 * Wrap-around, lazily (Simon and King, "Taming the wrapping of integer
 * arithmetic", SAS 2007): the variables are mathematical integers, and the
 * concrete int32 value of a variable is its value modulo 2^32. Addition,
 * subtraction, negation and multiplication commute with that reduction, so
 * they are exact here even where the int32 result wraps; only an operation
 * that needs the int32 value (a comparison, a branch, a division, an index,
 * a bit operation) first brings its operands into the int32 range
 * (transfer.c, an_wrap). A bound near 2^31 therefore never becomes unsound:
 * x <= 2^31 - 1 then x := x + 1 gives x <= 2^31, which reads "x + 1 in Z,
 * INT32_MIN as an int32". Bounds beyond 2^40 become +inf. */
#include <string.h>

#include "analyze_int.h"

static inline int64_t clampv(int64_t v)
{
    if (v == AN_INF || v > AN_BIG) return AN_INF;
    return v < -AN_BIG ? -AN_BIG : v;
}

static inline int64_t floor_div2(int64_t v)
{
    return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

void oct_top(int64_t *m, uint32_t n)
{
    uint32_t d = 2 * n;
    for (size_t i = 0; i < (size_t)d * d; i++) m[i] = AN_INF;
    for (uint32_t i = 0; i < d; i++) m[(size_t)i * d + i] = 0;
}

bool oct_close(int64_t *m, uint32_t n)
{
    uint32_t d = 2 * n;
    /* shortest paths */
    for (uint32_t k = 0; k < d; k++) {
        const int64_t *mk = m + (size_t)k * d;
        for (uint32_t i = 0; i < d; i++) {
            int64_t *mi = m + (size_t)i * d;
            int64_t ik = mi[k];
            if (ik == AN_INF) continue;
            for (uint32_t j = 0; j < d; j++) {
                if (mk[j] == AN_INF) continue;
                int64_t v = ik + mk[j];
                if (v < -AN_BIG) v = -AN_BIG; /* weaker: sums stay far from overflow */
                if (v < mi[j]) mi[j] = v;
            }
        }
    }
    for (uint32_t i = 0; i < d; i++)
        if (m[(size_t)i * d + i] < 0) return false;
    /* tightening: 2x <= c means x <= floor(c / 2) over the integers */
    for (uint32_t i = 0; i < d; i++) {
        int64_t *v = &m[(size_t)i * d + oct_bar(i)];
        if (*v != AN_INF) *v = 2 * floor_div2(*v);
    }
    for (uint32_t i = 0; i < d; i++) {
        int64_t a = m[(size_t)i * d + oct_bar(i)], b = m[(size_t)oct_bar(i) * d + i];
        if (a != AN_INF && b != AN_INF && a + b < 0) return false;
    }
    /* strengthening: V_j - V_i <= (V_bar(i) - V_i) / 2 + (V_j - V_bar(j)) / 2 */
    for (uint32_t i = 0; i < d; i++) {
        int64_t a = m[(size_t)i * d + oct_bar(i)];
        if (a == AN_INF) continue;
        int64_t *mi = m + (size_t)i * d;
        for (uint32_t j = 0; j < d; j++) {
            int64_t b = m[(size_t)oct_bar(j) * d + j];
            if (b == AN_INF) continue;
            int64_t v = floor_div2(a + b);
            if (v < mi[j]) mi[j] = v;
        }
    }
    for (uint32_t i = 0; i < d; i++)
        if (m[(size_t)i * d + i] < 0) return false;
    for (size_t i = 0; i < (size_t)d * d; i++) m[i] = clampv(m[i]);
    for (uint32_t i = 0; i < d; i++) m[(size_t)i * d + i] = 0;
    return true;
}

void oct_add(int64_t *m, uint32_t n, uint32_t i, uint32_t j, int64_t c)
{
    uint32_t d = 2 * n;
    c = clampv(c);
    if (c < m[(size_t)i * d + j]) m[(size_t)i * d + j] = c;
    if (c < m[(size_t)oct_bar(j) * d + oct_bar(i)]) m[(size_t)oct_bar(j) * d + oct_bar(i)] = c;
}

void oct_forget(int64_t *m, uint32_t n, uint32_t v)
{
    uint32_t d = 2 * n;
    for (uint32_t k = 2 * v; k < 2 * v + 2; k++) {
        for (uint32_t j = 0; j < d; j++) {
            m[(size_t)k * d + j] = AN_INF;
            m[(size_t)j * d + k] = AN_INF;
        }
        m[(size_t)k * d + k] = 0;
    }
}

void oct_bounds(const int64_t *m, uint32_t n, uint32_t v, int64_t *lo, int64_t *hi)
{
    uint32_t d = 2 * n;
    int64_t up = m[(size_t)(2 * v + 1) * d + 2 * v];   /* 2v <= up */
    int64_t down = m[(size_t)(2 * v) * d + 2 * v + 1]; /* -2v <= down */
    *hi = up == AN_INF ? INT64_MAX : floor_div2(up);
    *lo = down == AN_INF ? INT64_MIN : -floor_div2(down);
}

void oct_shift(int64_t *m, uint32_t n, uint32_t v, int64_t c)
{
    /* V'_i = V_i + o(i): o(2v) = c, o(2v+1) = -c; m'[i][j] = m[i][j] + o(j) - o(i) */
    uint32_t d = 2 * n;
    for (uint32_t i = 0; i < d; i++)
        for (uint32_t j = 0; j < d; j++) {
            int64_t oi = i == 2 * v ? c : i == 2 * v + 1 ? -c : 0;
            int64_t oj = j == 2 * v ? c : j == 2 * v + 1 ? -c : 0;
            int64_t *e = &m[(size_t)i * d + j];
            if (*e != AN_INF && oj != oi) *e = clampv(*e + oj - oi);
        }
}

void oct_negate(int64_t *m, uint32_t n, uint32_t v)
{
    uint32_t d = 2 * n, a = 2 * v, b = 2 * v + 1;
    for (uint32_t j = 0; j < d; j++) { /* swap rows a and b */
        int64_t t = m[(size_t)a * d + j];
        m[(size_t)a * d + j] = m[(size_t)b * d + j];
        m[(size_t)b * d + j] = t;
    }
    for (uint32_t i = 0; i < d; i++) { /* then columns */
        int64_t t = m[(size_t)i * d + a];
        m[(size_t)i * d + a] = m[(size_t)i * d + b];
        m[(size_t)i * d + b] = t;
    }
}

void oct_join(int64_t *a, const int64_t *b, uint32_t n)
{
    size_t dd = (size_t)4 * n * n;
    for (size_t i = 0; i < dd; i++)
        if (b[i] > a[i]) a[i] = b[i];
}

void oct_widen(int64_t *a, const int64_t *b, uint32_t n)
{
    size_t dd = (size_t)4 * n * n;
    for (size_t i = 0; i < dd; i++)
        if (b[i] > a[i]) a[i] = AN_INF;
}

/* The least of th[0 .. nth) (ascending) at or above v, or AN_INF. */
static int64_t threshold_above(int64_t v, const int64_t *th, size_t nth)
{
    size_t lo = 0, hi = nth;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (th[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < nth ? th[lo] : AN_INF;
}

void oct_widen_th(int64_t *a, const int64_t *b, uint32_t n, const int64_t *th, size_t nth)
{
    size_t dd = (size_t)4 * n * n;
    for (size_t i = 0; i < dd; i++)
        if (b[i] > a[i]) a[i] = b[i] == AN_INF ? AN_INF : threshold_above(b[i], th, nth);
}

int64_t oct_threshold_above(int64_t v, const int64_t *th, size_t nth)
{
    return threshold_above(v, th, nth);
}

void oct_meet(int64_t *a, const int64_t *b, uint32_t n)
{
    size_t dd = (size_t)4 * n * n;
    for (size_t i = 0; i < dd; i++)
        if (b[i] < a[i]) a[i] = b[i];
}

void oct_box(int64_t *m, uint32_t n)
{
    uint32_t d = 2 * n;
    for (uint32_t i = 0; i < d; i++)
        for (uint32_t j = 0; j < d; j++)
            if ((i >> 1) != (j >> 1)) m[(size_t)i * d + j] = AN_INF;
}

bool oct_leq(const int64_t *a, const int64_t *b, uint32_t n)
{
    size_t dd = (size_t)4 * n * n;
    for (size_t i = 0; i < dd; i++)
        if (a[i] > b[i]) return false;
    return true;
}
