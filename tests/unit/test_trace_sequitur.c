/* test_trace_sequitur.c: Sequitur (trace/sequitur.c, notes A4) and the
 * grammar builders (trace/slp_build.c): the four known outputs of the notes
 * exactly, as grammars up to rule numbering (each printed with its rules
 * renamed in breadth-first order of first use); expand(compress(s)) == s on
 * random strings of up to 10^5 events over small alphabets, with digram
 * uniqueness and rule utility checked on every result; the comb and random
 * bracketings expand to their trace. */
#include "test_trace_int.h"

#include <stdlib.h>
#include <string.h>

/* A trace whose events stand for the characters of s (thread = the char). */
static void chars(tr_trace *t, const char *s, size_t n)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < n; i++) {
        char c[2] = {s[i], 0};
        ev(t, c, TR_READ, "v");
    }
}

static bool compress(const tr_trace *t, tr_slp *g)
{
    tr_sequitur *q = tr_sequitur_new();
    if (!q) return false;
    for (uint64_t i = 0; i < t->n; i++)
        if (!tr_sequitur_push(q, &t->ev[i])) {
            tr_names dummy;
            memset(&dummy, 0, sizeof dummy);
            tr_sequitur_finish(q, &dummy, g);
            return false;
        }
    tr_names nm;
    if (!tr_names_copy(&t->names, &nm)) return false;
    bool ok = tr_sequitur_finish(q, &nm, g);
    tr_names_free(&nm);
    return ok;
}

/* "S -> R1 a; R1 -> b c" with rules renamed R1, R2, ... in BFS order. */
static void canonical(const tr_slp *g, char *out, size_t n)
{
    uint32_t *num = malloc(g->nrules * sizeof *num), *queue = malloc(g->nrules * sizeof *queue);
    for (uint32_t r = 0; r < g->nrules; r++) num[r] = UINT32_MAX;
    uint32_t qn = 0;
    num[0] = 0;
    queue[qn++] = 0;
    size_t p = 0;
    out[0] = '\0';
    for (uint32_t k = 0; k < qn; k++) {
        uint32_t r = queue[k];
        if (k) p += (size_t)snprintf(out + p, n - p, "; R%u ->", k);
        else p += (size_t)snprintf(out + p, n - p, "S ->");
        for (uint64_t i = g->body[r]; i < g->body[r + 1] && p < n; i++) {
            uint32_t s = g->sym[i];
            if (s < g->nterms) {
                p += (size_t)snprintf(out + p, n - p, " %s", g->names.threads.v[g->terms[s].thread]);
            } else {
                uint32_t c = s - g->nterms;
                if (num[c] == UINT32_MAX) {
                    num[c] = qn;
                    queue[qn++] = c;
                }
                p += (size_t)snprintf(out + p, n - p, " R%u", num[c]);
            }
        }
    }
    free(num);
    free(queue);
}

typedef struct dg {
    uint32_t a, b, rule;
    uint64_t pos;
} dg;

static int dg_cmp(const void *x, const void *y)
{
    const dg *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->rule != q->rule) return p->rule < q->rule ? -1 : 1;
    return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* Sequitur's invariants: no digram twice without overlap; every rule but
 * S used at least twice. */
static bool invariants(const tr_slp *g)
{
    uint64_t ns = g->body[g->nrules];
    dg *d = malloc((ns + 1) * sizeof *d);
    uint32_t *uses = calloc(g->nrules, sizeof *uses);
    uint64_t nd = 0;
    bool ok = true;
    for (uint32_t r = 0; r < g->nrules; r++)
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++) {
            if (g->sym[i] >= g->nterms) uses[g->sym[i] - g->nterms]++;
            if (i + 1 < g->body[r + 1]) d[nd++] = (dg){g->sym[i], g->sym[i + 1], r, i};
        }
    for (uint32_t r = 1; r < g->nrules; r++)
        if (uses[r] < 2) {
            fprintf(stderr, "rule %u used %u times\n", r, uses[r]);
            ok = false;
        }
    qsort(d, nd, sizeof *d, dg_cmp);
    for (uint64_t i = 0; i < nd;) {
        uint64_t j = i;
        while (j < nd && d[j].a == d[i].a && d[j].b == d[i].b) j++;
        bool overlap = j - i == 2 && d[i].rule == d[i + 1].rule && d[i + 1].pos == d[i].pos + 1;
        if (j - i > 1 && !overlap) {
            fprintf(stderr, "digram (%u %u) occurs %llu times\n", d[i].a, d[i].b,
                    (unsigned long long)(j - i));
            ok = false;
        }
        i = j;
    }
    free(d);
    free(uses);
    return ok;
}

void sequitur_known_outputs(void)
{
    static const char *const cases[][2] = {
        {"abcdbc", "S -> a R1 d R1; R1 -> b c"},
        {"abcdbcabcd", "S -> R1 R2 R1; R1 -> a R2 d; R2 -> b c"},
        {"abracadabraabracadabra", "S -> R1 R1; R1 -> R2 c a d R2; R2 -> a b r a"},
        {"11111211111", "S -> R1 R2 2 R2 R1; R1 -> 1 1; R2 -> R1 1"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        tr_trace t;
        tr_slp g;
        chars(&t, cases[k][0], strlen(cases[k][0]));
        CHECK(compress(&t, &g));
        char buf[512];
        canonical(&g, buf, sizeof buf);
        if (strcmp(buf, cases[k][1])) {
            fprintf(stderr, "%s: got '%s', expected '%s'\n", cases[k][0], buf, cases[k][1]);
            CHECK(!"sequitur output");
        }
        CHECK(invariants(&g));
        tr_slp_free(&g);
        tr_trace_free(&t);
    }
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static bool same_trace(const tr_slp *g, const tr_trace *t)
{
    tr_trace e;
    bool ok = slp_expand(g, &e) && e.n == t->n;
    for (uint64_t i = 0; ok && i < t->n; i++)
        ok = e.ev[i].thread == t->ev[i].thread && e.ev[i].obj == t->ev[i].obj &&
             e.ev[i].op == t->ev[i].op && e.ev[i].loc == t->ev[i].loc;
    tr_trace_free(&e);
    return ok;
}

void sequitur_round_trips(void)
{
    uint64_t x = 88172645463325252ull;
    static const size_t sizes[] = {0, 1, 2, 3, 5, 17, 100, 1000, 10000, 100000};
    char *s = malloc(100001);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int alpha = 1; alpha <= 4; alpha *= 2)
            for (int shape = 0; shape < 2; shape++) {
                size_t n = sizes[k];
                /* shape 1: a random block repeated with mutations */
                size_t blk = 1 + rnd(&x) % 40;
                for (size_t i = 0; i < n; i++)
                    s[i] = shape && i >= blk && rnd(&x) % 50 ? s[i - blk]
                                                            : (char)('a' + rnd(&x) % (uint64_t)alpha);
                tr_trace t;
                tr_slp g;
                chars(&t, s, n);
                if (!compress(&t, &g)) {
                    CHECK(!"compress");
                    tr_trace_free(&t);
                    continue;
                }
                CHECK(same_trace(&g, &t));
                CHECK(invariants(&g));
                if (n == 100000 && alpha == 2 && shape == 1)
                    printf("sequitur: 10^5 events over 2 letters, repeated blocks: %llu symbols\n",
                           (unsigned long long)g.body[g.nrules]);
                tr_slp_free(&g);
                tr_trace_free(&t);
            }
    free(s);
}

void builders_round_trip(void)
{
    uint64_t x = 12345;
    for (int k = 0; k < 50; k++) {
        size_t n = (size_t)(rnd(&x) % 200);
        char s[200];
        for (size_t i = 0; i < n; i++) s[i] = (char)('a' + rnd(&x) % 5);
        tr_trace t;
        tr_slp g;
        chars(&t, s, n);
        CHECK(tr_slp_comb(&t, &g));
        CHECK(same_trace(&g, &t));
        for (uint32_t r = 1; r < g.nrules; r++) CHECK_EQ_INT(g.body[r + 1] - g.body[r], 2);
        tr_slp_free(&g);
        CHECK(tr_slp_random(&t, (uint64_t)k, &g));
        CHECK(same_trace(&g, &t));
        for (uint32_t r = 0; n >= 2 && r < g.nrules; r++) CHECK_EQ_INT(g.body[r + 1] - g.body[r], 2);
        tr_slp_free(&g);
        tr_trace_free(&t);
    }
}
