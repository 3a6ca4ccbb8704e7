/* sequitur.c: Sequitur (Nevill-Manning and Witten, "Identifying
 * hierarchical structure in sequences: a linear-time algorithm", JAIR 1997),
 * the compressor ZipTrack uses (notes-ratcop-ziptrack.md A4), online: events
 * are pushed one at a time and the grammar keeps digram uniqueness (no pair
 * of adjacent symbols occurs twice, non-overlapping) and rule utility (every
 * rule but S is used twice or more). It follows the reference C++
 * (sequitur_simple.cc), including its handling of runs "aaa" in join(), with
 * one addition: after a new rule is formed, its *last* symbol is also
 * expanded when its rule is left with one use (the reference checks only
 * the first); tests/unit/test_trace_sequitur.c checks both invariants.
 *
 * Representation: symbols are nodes of index-linked lists in one array (a
 * free list recycles them), each rule a circular list through its guard;
 * the digram index is an open-addressing table with backward-shift
 * deletion. check/match/substitute recurse into each other as in the
 * reference: the depth is the length of one cascade of replacements, not
 * the depth of the grammar. The output (tr_sequitur_finish) numbers S as
 * rule 0 and the others in order of first appearance. */
#include "slp_int.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define K_TERM 0ull
#define K_NT 1ull
#define K_GUARD 2ull
#define KIND(v) ((v) >> 32)

typedef struct sq_sym {
    uint32_t prev, next;
    uint64_t val; /* kind << 32 | terminal id or rule id */
} sq_sym;

typedef struct sq_slot { /* digram (a, b) -> symbol v - 1; v = 0: empty */
    uint64_t a, b;
    uint32_t v;
} sq_slot;

typedef struct sq_rule {
    uint32_t guard; /* NIL: deleted */
    uint32_t uses;
} sq_rule;

struct tr_sequitur {
    sq_sym *s;
    uint64_t ns, scap;
    uint32_t free_sym;
    sq_rule *r;
    uint64_t nr, rcap;
    /* deleted rules' ids, linked through .uses: dead during one push (a
     * match tests guard == NIL to see that its rule went), free after it */
    uint32_t dead_rule, free_rule;
    sq_slot *h; /* the digram index */
    uint64_t hcap, hn;
    tr_alpha alpha;
    bool oom;
};

/* ---- the digram index ---------------------------------------------------------- */

static inline uint64_t dhash(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    return h * 0x94D049BB133111EBull;
}

static bool idx_grow(tr_sequitur *q)
{
    uint64_t ncap = q->hcap ? q->hcap * 2 : 1024;
    sq_slot *t = calloc(ncap, sizeof *t);
    if (!t) return false;
    for (uint64_t i = 0; i < q->hcap; i++) {
        if (!q->h[i].v) continue;
        uint64_t h = dhash(q->h[i].a, q->h[i].b) & (ncap - 1);
        while (t[h].v) h = (h + 1) & (ncap - 1);
        t[h] = q->h[i];
    }
    free(q->h);
    q->h = t;
    q->hcap = ncap;
    return true;
}

static uint64_t idx_slot(const tr_sequitur *q, uint64_t a, uint64_t b)
{
    uint64_t h = dhash(a, b) & (q->hcap - 1);
    while (q->h[h].v && (q->h[h].a != a || q->h[h].b != b)) h = (h + 1) & (q->hcap - 1);
    return h;
}

static uint32_t idx_get(const tr_sequitur *q, uint64_t a, uint64_t b)
{
    if (!q->hcap) return NIL;
    uint64_t h = idx_slot(q, a, b);
    return q->h[h].v ? q->h[h].v - 1 : NIL;
}

static void idx_put(tr_sequitur *q, uint64_t a, uint64_t b, uint32_t sym)
{
    if ((q->hn + 1) * 2 > q->hcap && !idx_grow(q)) {
        q->oom = true;
        return;
    }
    uint64_t h = idx_slot(q, a, b);
    if (!q->h[h].v) q->hn++;
    q->h[h] = (sq_slot){a, b, sym + 1};
}

static void idx_del_if(tr_sequitur *q, uint64_t a, uint64_t b, uint32_t sym)
{
    if (!q->hcap) return;
    uint64_t h = idx_slot(q, a, b), m = q->hcap - 1;
    if (q->h[h].v != sym + 1) return;
    q->h[h].v = 0;
    q->hn--;
    /* backward shift */
    for (uint64_t j = (h + 1) & m; q->h[j].v; j = (j + 1) & m) {
        uint64_t home = dhash(q->h[j].a, q->h[j].b) & m;
        /* move j to h when home is not cyclically in (h, j] */
        bool between = h <= j ? (home > h && home <= j) : (home > h || home <= j);
        if (between) continue;
        q->h[h] = q->h[j];
        q->h[j].v = 0;
        h = j;
    }
}

/* ---- symbols ---------------------------------------------------------------------- */

#define S(i) (q->s[i])
#define VAL(i) (q->s[i].val)

static inline bool is_guard(const tr_sequitur *q, uint32_t i) { return KIND(q->s[i].val) == K_GUARD; }
static inline bool is_nt(const tr_sequitur *q, uint32_t i) { return KIND(q->s[i].val) == K_NT; }
static inline uint32_t rule_of(const tr_sequitur *q, uint32_t i) { return (uint32_t)q->s[i].val; }

static uint32_t sym_new(tr_sequitur *q, uint64_t val)
{
    uint32_t i;
    if (q->free_sym != NIL) {
        i = q->free_sym;
        q->free_sym = S(i).next;
    } else {
        if (q->ns >= NIL - 1 || !tr_grow((void **)&q->s, &q->scap, q->ns + 1, sizeof *q->s)) {
            q->oom = true;
            return NIL;
        }
        i = (uint32_t)q->ns++;
    }
    S(i) = (sq_sym){NIL, NIL, val};
    if (KIND(val) == K_NT) q->r[(uint32_t)val].uses++;
    return i;
}

static void delete_digram(tr_sequitur *q, uint32_t i)
{
    if (is_guard(q, i) || is_guard(q, S(i).next)) return;
    idx_del_if(q, VAL(i), VAL(S(i).next), i);
}

static void join(tr_sequitur *q, uint32_t left, uint32_t right)
{
    if (S(left).next != NIL) {
        delete_digram(q, left);
        /* runs: deleting one digram of "aaa" must leave the other indexed */
        uint32_t rp = S(right).prev, rn = S(right).next;
        if (rp != NIL && rn != NIL && VAL(right) == VAL(rp) && VAL(right) == VAL(rn))
            idx_put(q, VAL(right), VAL(rn), right);
        uint32_t lp = S(left).prev, ln = S(left).next;
        if (lp != NIL && ln != NIL && VAL(left) == VAL(ln) && VAL(left) == VAL(lp))
            idx_put(q, VAL(lp), VAL(left), lp);
    }
    S(left).next = right;
    S(right).prev = left;
}

static void insert_after(tr_sequitur *q, uint32_t i, uint32_t y)
{
    join(q, y, S(i).next);
    join(q, i, y);
}

/* Unlink and free symbol i (the reference's destructor). */
static void sym_delete(tr_sequitur *q, uint32_t i)
{
    join(q, S(i).prev, S(i).next);
    if (!is_guard(q, i)) {
        delete_digram(q, i);
        if (is_nt(q, i)) q->r[rule_of(q, i)].uses--;
    }
    S(i).next = q->free_sym;
    q->free_sym = i;
}

static uint32_t rule_new(tr_sequitur *q)
{
    uint32_t r;
    if (q->free_rule != NIL) { /* a long input creates and deletes rules all the time */
        r = q->free_rule;
        q->free_rule = q->r[r].uses;
    } else if (q->nr >= NIL - 1 || !tr_grow((void **)&q->r, &q->rcap, q->nr + 1, sizeof *q->r)) {
        q->oom = true;
        return NIL;
    } else {
        r = (uint32_t)q->nr++;
    }
    q->r[r] = (sq_rule){NIL, 0};
    uint32_t g = sym_new(q, K_GUARD << 32 | r);
    if (g == NIL) return NIL;
    S(g).prev = S(g).next = g;
    q->r[r].guard = g;
    return r;
}

static bool check(tr_sequitur *q, uint32_t i);

static void substitute(tr_sequitur *q, uint32_t i, uint32_t r)
{
    uint32_t p = S(i).prev;
    sym_delete(q, S(p).next);
    sym_delete(q, S(p).next);
    uint32_t n = sym_new(q, K_NT << 32 | r);
    if (n == NIL) return;
    insert_after(q, p, n);
    if (!check(q, p)) check(q, S(p).next);
}

/* Inline the body of the rule that nonterminal i names (used once) in its
 * place, and delete that rule. */
static void expand(tr_sequitur *q, uint32_t i)
{
    uint32_t left = S(i).prev, right = S(i).next;
    uint32_t r = rule_of(q, i), g = q->r[r].guard;
    uint32_t f = S(g).next, l = S(g).prev;
    sym_delete(q, g); /* joins l and f */
    q->r[r].guard = NIL;
    q->r[r].uses = q->dead_rule;
    q->dead_rule = r;
    idx_del_if(q, VAL(i), VAL(right), i);
    if (!is_guard(q, left)) idx_del_if(q, VAL(left), VAL(i), left);
    S(left).next = right; /* unlink i without the destructor's bookkeeping */
    S(right).prev = left;
    S(i).next = q->free_sym;
    q->free_sym = i;
    join(q, left, f);
    join(q, l, right);
    if (!is_guard(q, right)) idx_put(q, VAL(l), VAL(right), l);
    /* only when the last symbol of a rule is expanded (see the header): the
     * seam (left, f) may repeat a digram */
    if (!is_guard(q, left)) check(q, left);
}

static void match(tr_sequitur *q, uint32_t ss, uint32_t m)
{
    uint32_t r;
    if (is_guard(q, S(m).prev) && is_guard(q, S(S(m).next).next)) {
        r = rule_of(q, S(m).prev); /* m is a whole rule's body */
        substitute(q, ss, r);
    } else {
        r = rule_new(q);
        if (r == NIL) return;
        uint32_t a = sym_new(q, VAL(ss)), b = sym_new(q, VAL(S(ss).next));
        if (a == NIL || b == NIL) return;
        uint32_t g = q->r[r].guard;
        insert_after(q, S(g).prev, a);
        insert_after(q, S(g).prev, b);
        substitute(q, m, r);
        substitute(q, ss, r);
        if (q->oom || q->r[r].guard == NIL) return;
        g = q->r[r].guard;
        idx_put(q, VAL(S(g).next), VAL(S(S(g).next).next), S(g).next);
    }
    if (q->oom || q->r[r].guard == NIL) return;
    /* rule utility */
    uint32_t g = q->r[r].guard;
    uint32_t f = S(g).next;
    if (is_nt(q, f) && q->r[rule_of(q, f)].uses == 1) expand(q, f);
    if (q->oom || q->r[r].guard == NIL) return;
    g = q->r[r].guard;
    uint32_t l = S(g).prev;
    if (l != S(g).next && is_nt(q, l) && q->r[rule_of(q, l)].uses == 1) expand(q, l);
}

static bool check(tr_sequitur *q, uint32_t i)
{
    if (q->oom) return false;
    if (is_guard(q, i) || is_guard(q, S(i).next)) return false;
    uint32_t m = idx_get(q, VAL(i), VAL(S(i).next));
    if (m == NIL) {
        idx_put(q, VAL(i), VAL(S(i).next), i);
        return false;
    }
    if (m == i) return false;
    if (S(m).next == i || S(i).next == m) return true; /* overlapping, as the reference */
    match(q, i, m);
    return true;
}

/* ---- the interface ----------------------------------------------------------------- */

tr_sequitur *tr_sequitur_new(void)
{
    tr_sequitur *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->free_sym = NIL;
    q->dead_rule = q->free_rule = NIL;
    if (rule_new(q) != 0) {
        tr_alpha_free(&q->alpha);
        free(q->s);
        free(q->r);
        free(q);
        return NULL;
    }
    return q;
}

bool tr_sequitur_push(tr_sequitur *q, const tr_event *e)
{
    if (q->oom) return false;
    uint32_t a = tr_alpha_id(&q->alpha, e);
    if (a == NIL) {
        q->oom = true;
        return false;
    }
    uint32_t n = sym_new(q, K_TERM << 32 | a);
    if (n == NIL) return false;
    uint32_t g = q->r[0].guard;
    insert_after(q, S(g).prev, n);
    check(q, S(S(g).prev).prev);
    while (q->dead_rule != NIL) {
        uint32_t r = q->dead_rule;
        q->dead_rule = q->r[r].uses;
        q->r[r].uses = q->free_rule;
        q->free_rule = r;
    }
    return !q->oom;
}

static void sq_free(tr_sequitur *q)
{
    tr_alpha_free(&q->alpha);
    free(q->s);
    free(q->r);
    free(q->h);
    free(q);
}

bool tr_sequitur_finish(tr_sequitur *q, tr_names *names, tr_slp *out)
{
    memset(out, 0, sizeof *out);
    if (q->oom) {
        sq_free(q);
        return false;
    }
    /* renumber the live rules: S first, the others by first appearance
     * (a queue over rules) */
    uint32_t *num = malloc((q->nr + 1) * sizeof *num), *queue = malloc((q->nr + 1) * sizeof *queue);
    uint64_t nsym = 0;
    bool ok = false;
    if (!num || !queue) goto out;
    for (uint64_t r = 0; r < q->nr; r++) num[r] = NIL;
    uint32_t qn = 0;
    num[0] = 0;
    queue[qn++] = 0;
    for (uint32_t k = 0; k < qn; k++) {
        uint32_t g = q->r[queue[k]].guard;
        for (uint32_t i = S(g).next; i != g; i = S(i).next) {
            nsym++;
            if (is_nt(q, i) && num[rule_of(q, i)] == NIL) {
                num[rule_of(q, i)] = qn;
                queue[qn++] = rule_of(q, i);
            }
        }
    }
    out->nterms = q->alpha.n;
    out->nrules = qn;
    out->terms = malloc((q->alpha.n + 1) * sizeof *out->terms);
    out->body = malloc(((size_t)qn + 1) * sizeof *out->body);
    out->sym = malloc((nsym + 1) * sizeof *out->sym);
    if (!out->terms || !out->body || !out->sym) goto out;
    if (q->alpha.n) memcpy(out->terms, q->alpha.terms, q->alpha.n * sizeof *out->terms);
    uint64_t p = 0;
    for (uint32_t k = 0; k < qn; k++) {
        out->body[k] = p;
        uint32_t g = q->r[queue[k]].guard;
        for (uint32_t i = S(g).next; i != g; i = S(i).next)
            out->sym[p++] = is_nt(q, i) ? out->nterms + num[rule_of(q, i)] : (uint32_t)VAL(i);
    }
    out->body[qn] = p;
    out->names = *names;
    memset(names, 0, sizeof *names);
    ok = true;
out:
    free(num);
    free(queue);
    if (!ok) {
        free(out->terms);
        free(out->body);
        free(out->sym);
        memset(out, 0, sizeof *out);
    }
    sq_free(q);
    return ok;
}
