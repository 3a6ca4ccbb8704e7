/* slp_build.c: the grammars of a trace besides Sequitur's, for the
 * differential tests (issue 32; notes A2/A7: "an SLP analyzer must be
 * differentially tested ... on random bracketings"): the left comb
 * A[1,i] -> A[1,i-1] e_i (the trivial SLP of notes A1) and a random binary
 * bracketing (every rule two symbols, terminals and nonterminals mixed, the
 * shape that exposed the public artifact's bugs). Also the alphabet (the
 * distinct events of a trace, the terminals) shared with sequitur.c, and
 * copying name tables. Both builders are iterative (a comb is n deep). */
#include "slp_int.h"

#include <stdlib.h>
#include <string.h>

static uint64_t ev_hash(const tr_event *e)
{
    uint64_t h = ((uint64_t)e->thread << 32 | e->obj) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)e->loc << 8 | e->op) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return h * 0x94D049BB133111EBull;
}

static bool ev_eq(const tr_event *a, const tr_event *b)
{
    return a->thread == b->thread && a->obj == b->obj && a->loc == b->loc && a->op == b->op;
}

uint32_t tr_alpha_id(tr_alpha *a, const tr_event *e)
{
    if (a->icap) {
        uint64_t h = ev_hash(e) & (a->icap - 1);
        while (a->idx[h]) {
            if (ev_eq(&a->terms[a->idx[h] - 1], e)) return a->idx[h] - 1;
            h = (h + 1) & (a->icap - 1);
        }
    }
    if (a->n >= UINT32_MAX - 1) return UINT32_MAX;
    if (((uint64_t)a->n + 1) * 2 > a->icap) {
        uint64_t ncap = a->icap ? a->icap * 2 : 64;
        uint32_t *idx = calloc(ncap, sizeof *idx);
        if (!idx) return UINT32_MAX;
        for (uint32_t i = 0; i < a->n; i++) {
            uint64_t h = ev_hash(&a->terms[i]) & (ncap - 1);
            while (idx[h]) h = (h + 1) & (ncap - 1);
            idx[h] = i + 1;
        }
        free(a->idx);
        a->idx = idx;
        a->icap = ncap;
    }
    if (!tr_grow((void **)&a->terms, &a->cap, (uint64_t)a->n + 1, sizeof *a->terms)) return UINT32_MAX;
    uint32_t id = a->n++;
    a->terms[id] = *e;
    uint64_t h = ev_hash(e) & (a->icap - 1);
    while (a->idx[h]) h = (h + 1) & (a->icap - 1);
    a->idx[h] = id + 1;
    return id;
}

void tr_alpha_free(tr_alpha *a)
{
    free(a->terms);
    free(a->idx);
    memset(a, 0, sizeof *a);
}

static bool table_copy(const tr_table *t, tr_table *out)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (tr_intern(out, t->v[i], strlen(t->v[i])) != i) return false;
    return true;
}

bool tr_names_copy(const tr_names *n, tr_names *out)
{
    memset(out, 0, sizeof *out);
    if (table_copy(&n->threads, &out->threads) && table_copy(&n->locks, &out->locks) &&
        table_copy(&n->vars, &out->vars) && table_copy(&n->locs, &out->locs))
        return true;
    tr_names_free(out);
    return false;
}

/* The terminals of t into out->terms, and each event's terminal into
 * term[] (t->n entries). */
static bool alphabet(const tr_trace *t, tr_slp *out, uint32_t *term)
{
    tr_alpha a;
    memset(&a, 0, sizeof a);
    for (uint64_t i = 0; i < t->n; i++) {
        term[i] = tr_alpha_id(&a, &t->ev[i]);
        if (term[i] == UINT32_MAX) {
            tr_alpha_free(&a);
            return false;
        }
    }
    out->nterms = a.n;
    out->terms = malloc((a.n + 1) * sizeof *out->terms);
    if (out->terms && a.n) memcpy(out->terms, a.terms, a.n * sizeof *out->terms);
    tr_alpha_free(&a);
    return out->terms != NULL;
}

static bool start(const tr_trace *t, tr_slp *out, uint32_t **term, uint64_t nrules,
                  uint64_t nsym)
{
    memset(out, 0, sizeof *out);
    if (t->n >= UINT32_MAX / 2) return false; /* symbols are uint32 */
    *term = malloc((t->n + 1) * sizeof **term);
    out->body = malloc((nrules + 1) * sizeof *out->body);
    out->sym = malloc((nsym + 1) * sizeof *out->sym);
    out->nrules = (uint32_t)nrules;
    if (*term && out->body && out->sym && alphabet(t, out, *term) &&
        tr_names_copy(&t->names, &out->names))
        return true;
    free(*term);
    *term = NULL;
    tr_slp_free(out);
    return false;
}

bool tr_slp_comb(const tr_trace *t, tr_slp *out)
{
    /* rule 0 = A[1,n]; rule k = A[1,n-k] for k = 1 .. n-2; A[1,1] = e_1 */
    uint64_t n = t->n, nr = n >= 2 ? n - 1 : 1;
    uint32_t *term;
    if (!start(t, out, &term, nr, n >= 2 ? 2 * nr : n)) return false;
    if (n < 2) {
        out->body[0] = 0;
        out->body[1] = n;
        if (n == 1) out->sym[0] = term[0];
    } else {
        for (uint64_t k = 0; k < nr; k++) {
            uint64_t i = n - k; /* A[1,i] -> A[1,i-1] e_i (1-based i) */
            out->body[k] = 2 * k;
            out->sym[2 * k] = i - 1 == 1 ? term[0] : out->nterms + (uint32_t)(k + 1);
            out->sym[2 * k + 1] = term[i - 1];
        }
        out->body[nr] = 2 * nr;
    }
    free(term);
    return true;
}

bool tr_slp_random(const tr_trace *t, uint64_t seed, tr_slp *out)
{
    uint64_t n = t->n, nr = n >= 2 ? n - 1 : 1;
    uint32_t *term;
    if (!start(t, out, &term, nr, n >= 2 ? 2 * nr : n)) return false;
    if (n < 2) {
        out->body[0] = 0;
        out->body[1] = n;
        if (n == 1) out->sym[0] = term[0];
        free(term);
        return true;
    }
    typedef struct {
        uint64_t lo, hi;
        uint32_t rule;
    } range;
    range *st = malloc(nr * sizeof *st);
    if (!st) {
        free(term);
        tr_slp_free(out);
        return false;
    }
    uint64_t sp = 0, x = seed * 2 + 1;
    uint32_t next = 1;
    st[sp++] = (range){0, n, 0};
    while (sp) {
        range g = st[--sp];
        x ^= x << 13; /* xorshift64 */
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t mid = g.lo + 1 + x % (g.hi - g.lo - 1);
        uint64_t part[2][2] = {{g.lo, mid}, {mid, g.hi}};
        out->body[g.rule] = 2ull * g.rule;
        for (int k = 0; k < 2; k++) {
            uint64_t lo = part[k][0], hi = part[k][1];
            if (hi - lo == 1) {
                out->sym[2ull * g.rule + k] = term[lo];
            } else {
                uint32_t r = next++;
                out->sym[2ull * g.rule + k] = out->nterms + r;
                st[sp++] = (range){lo, hi, r};
            }
        }
    }
    out->body[nr] = 2 * nr;
    free(st);
    free(term);
    return true;
}
