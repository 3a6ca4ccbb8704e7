/* ltl.c: mcheck --ltl: a formula over the model's props (SPIN's syntax: []
 * <> U V ! && || -> <-> true false, parentheses; also G F R W and the words
 * always eventually until stronguntil release weakuntil not and or implies
 * equivalent, and TLA+'s ~ /\ \/ => <=>; a prop keeps its name) parsed, negated, put in
 * negation normal form and translated to a Büchi automaton by the tableau
 * of Gerth, Peled, Vardi and Wolper ("Simple on-the-fly automatic
 * verification of linear temporal logic", PSTV 1995, section 3: nodes with
 * New/Old/Next, one acceptance set per U subformula), then degeneralized
 * with a counter. An own translator, not Debian's lbt or SPIN's -f: no
 * run-time dependency and no text to parse back (the tests compare the
 * verdicts with SPIN's). Not here: the next operator X (the reduction
 * preserves only stutter-invariant properties, LTL-X, so it is refused),
 * any simplification of the automaton, more than 64 subformulas or props. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"

enum fop { F_TRUE, F_FALSE, F_PROP, F_NPROP, F_AND, F_OR, F_U, F_R,
           /* only before the normal form: */
           F_NOT, F_IMPL, F_EQUIV, F_ALW, F_EVT,
           F_W /* only while parsing: W is built from R */ };

typedef struct fnode {
    uint8_t op;
    int l, r, prop;
} fnode;

enum { MAX_F = 256, MAX_SUB = 64 };

typedef struct lparse {
    const char *s;
    size_t i;
    const vm_program *p;
    fnode raw[MAX_F];
    int nraw;
    fnode sub[MAX_SUB]; /* the normal form's subformulas, each once */
    int nsub;
    char *err;
    size_t errlen;
    bool bad;
} lparse;

static int perr(lparse *x, const char *fmt, ...)
{
    if (!x->bad) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->err, x->errlen, fmt, ap);
        va_end(ap);
    }
    x->bad = true;
    return -1;
}

static int mk(lparse *x, uint8_t op, int l, int r, int prop)
{
    if (x->nraw >= MAX_F) return perr(x, "the formula is too long (at most %d operators)", MAX_F);
    x->raw[x->nraw] = (fnode){op, l, r, prop};
    return x->nraw++;
}

static void skip(lparse *x)
{
    while (x->s[x->i] == ' ' || x->s[x->i] == '\t' || x->s[x->i] == '\n') x->i++;
}

static bool eat(lparse *x, const char *t)
{
    skip(x);
    size_t n = strlen(t);
    if (strncmp(x->s + x->i, t, n)) return false;
    x->i += n;
    return true;
}

static bool is_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9'); }

/* An identifier at x->i (not consumed), its length in *n. */
static bool peek_word(lparse *x, size_t *n)
{
    skip(x);
    size_t j = x->i;
    if (!is_word(x->s[j]) || (x->s[j] >= '0' && x->s[j] <= '9')) return false;
    while (is_word(x->s[j])) j++;
    *n = j - x->i;
    return true;
}

static int equiv(lparse *x);

/* The prop named w (n bytes), or -1. */
static int prop_named(const lparse *x, const char *w, size_t n)
{
    for (uint32_t i = 0; i < x->p->nprops; i++)
        if (strlen(x->p->props[i].name) == n && !strncmp(x->p->props[i].name, w, n)) return (int)i;
    return -1;
}

/* The word t (and, or, ...) at x->i, not a prop's name: consumed. */
static bool eat_word(lparse *x, const char *t)
{
    size_t n;
    if (!peek_word(x, &n) || n != strlen(t) || strncmp(x->s + x->i, t, n)) return false;
    if (prop_named(x, t, n) >= 0) return false;
    x->i += n;
    return true;
}

/* Is the word at w (n bytes) one of the space-separated words of `list`,
 * and no prop's name (a prop keeps its name)? */
static bool keyword(const lparse *x, const char *w, size_t n, const char *list)
{
    for (const char *k = list; *k;) {
        size_t m = strcspn(k, " ");
        if (m == n && !strncmp(k, w, n)) return prop_named(x, w, n) < 0;
        k += m + (k[m] == ' ');
    }
    return false;
}

/* Unary temporal operators spelled as words: G/always, F/eventually (SPIN,
 * Spot), and not; F_NOT, F_ALW, F_EVT, or -1. */
static int unary_word(const lparse *x, const char *w, size_t n)
{
    if (keyword(x, w, n, "G always")) return F_ALW;
    if (keyword(x, w, n, "F eventually")) return F_EVT;
    if (keyword(x, w, n, "not")) return F_NOT;
    return -1;
}

/* Binary temporal operators spelled as words: U until stronguntil, V R
 * release, W weakuntil; F_U, F_R, F_W, or -1. */
static int binary_word(const lparse *x, const char *w, size_t n)
{
    if (keyword(x, w, n, "U until stronguntil")) return F_U;
    if (keyword(x, w, n, "V R release")) return F_R;
    if (keyword(x, w, n, "W weakuntil")) return F_W;
    return -1;
}

static int unary(lparse *x)
{
    size_t n;
    if (eat(x, "!") || eat(x, "~")) { int a = unary(x); return a < 0 ? a : mk(x, F_NOT, a, -1, -1); }
    if (eat(x, "[]")) { int a = unary(x); return a < 0 ? a : mk(x, F_ALW, a, -1, -1); }
    if (eat(x, "<>")) { int a = unary(x); return a < 0 ? a : mk(x, F_EVT, a, -1, -1); }
    if (eat(x, "(")) {
        int a = equiv(x);
        if (a < 0) return a;
        if (!eat(x, ")")) return perr(x, "expected ')' at column %zu", x->i + 1);
        return a;
    }
    if (!peek_word(x, &n)) {
        skip(x);
        if (!x->s[x->i]) return perr(x, "unexpected end of the formula");
        return perr(x, "unexpected '%c' at column %zu", x->s[x->i], x->i + 1);
    }
    const char *w = x->s + x->i;
    size_t col = x->i + 1;
    x->i += n;
    int op = unary_word(x, w, n);
    if (op >= 0) {
        int a = unary(x);
        return a < 0 ? a : mk(x, (uint8_t)op, a, -1, -1);
    }
    if (n == 1 && *w == 'X')
        return perr(x, "the next operator X (column %zu) is not supported: the reduction "
                    "preserves only stutter-invariant properties (LTL without X)", col);
    if (n == 4 && !strncmp(w, "true", 4)) return mk(x, F_TRUE, -1, -1, -1);
    if (n == 5 && !strncmp(w, "false", 5)) return mk(x, F_FALSE, -1, -1, -1);
    if (binary_word(x, w, n) >= 0)
        return perr(x, "'%.*s' at column %zu needs a left operand", (int)n, w, col);
    int i = prop_named(x, w, n);
    if (i >= 64) return perr(x, "at most 64 props can be used in a formula");
    if (i >= 0) return mk(x, F_PROP, -1, -1, i);
    return perr(x, "unknown prop '%.*s' at column %zu (declare it in the model: prop %.*s = ...)",
                (int)n, w, col, (int)n, w);
}

/* U, V (R) and W: right associative, tighter than &&. a W b is
 * b R (a || b): a holds until b, or for ever. */
static int until(lparse *x)
{
    int a = unary(x);
    if (a < 0) return a;
    size_t n;
    int op;
    if (peek_word(x, &n) && (op = binary_word(x, x->s + x->i, n)) >= 0) {
        x->i += n;
        int b = until(x);
        if (b < 0) return b;
        if (op != F_W) return mk(x, (uint8_t)op, a, b, -1);
        int ab = mk(x, F_OR, a, b, -1);
        return ab < 0 ? ab : mk(x, F_R, b, ab, -1);
    }
    return a;
}

static int conjunction(lparse *x)
{
    int a = until(x);
    while (a >= 0 && (eat(x, "&&") || eat(x, "/\\") || eat_word(x, "and"))) {
        int b = until(x);
        a = b < 0 ? b : mk(x, F_AND, a, b, -1);
    }
    return a;
}

static int disj(lparse *x)
{
    int a = conjunction(x);
    while (a >= 0 && (eat(x, "||") || eat(x, "\\/") || eat_word(x, "or"))) {
        int b = conjunction(x);
        a = b < 0 ? b : mk(x, F_OR, a, b, -1);
    }
    return a;
}

static int impl(lparse *x)
{
    int a = disj(x);
    if (a >= 0 && (eat(x, "->") || eat(x, "=>") || eat_word(x, "implies"))) {
        int b = impl(x);
        return b < 0 ? b : mk(x, F_IMPL, a, b, -1);
    }
    return a;
}

static int equiv(lparse *x)
{
    int a = impl(x);
    while (a >= 0 && (eat(x, "<->") || eat(x, "<=>") || eat_word(x, "equivalent"))) {
        int b = impl(x);
        a = b < 0 ? b : mk(x, F_EQUIV, a, b, -1);
    }
    return a;
}

/* The normal form's subformula (op, l, r, prop), entered once. */
static int sub(lparse *x, uint8_t op, int l, int r, int prop)
{
    if (l < 0 || (r < 0 && (op == F_AND || op == F_OR || op == F_U || op == F_R))) return -1;
    for (int i = 0; i < x->nsub; i++)
        if (x->sub[i].op == op && x->sub[i].l == l && x->sub[i].r == r && x->sub[i].prop == prop)
            return i;
    if (x->nsub >= MAX_SUB) return perr(x, "the formula is too large (more than %d subformulas)", MAX_SUB);
    x->sub[x->nsub] = (fnode){op, l, r, prop};
    return x->nsub++;
}

/* Negation normal form of raw[f], negated if neg. */
static int nnf(lparse *x, int f, bool neg)
{
    const fnode *n = &x->raw[f];
    if (x->bad) return -1;
    switch ((enum fop)n->op) {
    case F_TRUE: return sub(x, neg ? F_FALSE : F_TRUE, 0, 0, -1);
    case F_FALSE: return sub(x, neg ? F_TRUE : F_FALSE, 0, 0, -1);
    case F_PROP: return sub(x, neg ? F_NPROP : F_PROP, 0, 0, n->prop);
    case F_NPROP: return sub(x, neg ? F_PROP : F_NPROP, 0, 0, n->prop);
    case F_NOT: return nnf(x, n->l, !neg);
    case F_AND: return sub(x, neg ? F_OR : F_AND, nnf(x, n->l, neg), nnf(x, n->r, neg), -1);
    case F_OR: return sub(x, neg ? F_AND : F_OR, nnf(x, n->l, neg), nnf(x, n->r, neg), -1);
    case F_U: return sub(x, neg ? F_R : F_U, nnf(x, n->l, neg), nnf(x, n->r, neg), -1);
    case F_R: return sub(x, neg ? F_U : F_R, nnf(x, n->l, neg), nnf(x, n->r, neg), -1);
    case F_IMPL: /* a -> b == !a || b */
        return sub(x, neg ? F_AND : F_OR, nnf(x, n->l, !neg), nnf(x, n->r, neg), -1);
    case F_EQUIV: { /* (a && b) || (!a && !b); negated: (a && !b) || (!a && b) */
        int ab = sub(x, F_AND, nnf(x, n->l, false), nnf(x, n->r, neg), -1);
        int nab = sub(x, F_AND, nnf(x, n->l, true), nnf(x, n->r, !neg), -1);
        return sub(x, F_OR, ab, nab, -1);
    }
    case F_ALW: /* [] a == false R a */
        return sub(x, neg ? F_U : F_R, sub(x, neg ? F_TRUE : F_FALSE, 0, 0, -1),
                   nnf(x, n->l, neg), -1);
    case F_EVT: /* <> a == true U a */
        return sub(x, neg ? F_R : F_U, sub(x, neg ? F_FALSE : F_TRUE, 0, 0, -1),
                   nnf(x, n->l, neg), -1);
    case F_W: break; /* never built: until() writes W with R */
    }
    return -1;
}

/* ---- the tableau (GPVW section 3) -------------------------------------- */

typedef struct gnode {
    uint64_t old, next;
    uint32_t *in;     /* incoming: node ids, 0 the initial pseudo-node */
    uint32_t nin, cap;
} gnode;

typedef struct tableau {
    lparse *x;
    gnode *n;         /* n[0]: the initial pseudo-node */
    uint32_t len, cap;
    bool oom;
} tableau;

static bool add_in(tableau *T, gnode *g, const uint32_t *in, uint32_t nin)
{
    for (uint32_t i = 0; i < nin; i++) {
        bool have = false;
        for (uint32_t j = 0; j < g->nin; j++) have |= g->in[j] == in[i];
        if (have) continue;
        if (g->nin == g->cap) {
            uint32_t nc = g->cap ? 2 * g->cap : 4;
            uint32_t *v = realloc(g->in, nc * sizeof *v);
            if (!v) return !(T->oom = true);
            g->in = v;
            g->cap = nc;
        }
        g->in[g->nin++] = in[i];
    }
    return true;
}

static int lit_neg(const lparse *x, int f)
{
    uint8_t op = x->sub[f].op == F_PROP ? F_NPROP : F_PROP;
    for (int i = 0; i < x->nsub; i++)
        if (x->sub[i].op == op && x->sub[i].prop == x->sub[f].prop) return i;
    return -1;
}

#define BIT(i) ((uint64_t)1 << (i))

static void expand(tableau *T, const uint32_t *in, uint32_t nin, uint64_t nw, uint64_t old,
                   uint64_t next)
{
    if (T->oom) return;
    const lparse *x = T->x;
    if (!nw) {
        for (uint32_t i = 1; i < T->len; i++)
            if (T->n[i].old == old && T->n[i].next == next) {
                add_in(T, &T->n[i], in, nin);
                return;
            }
        if (T->len >= 4096) { /* far beyond any formula a person writes */
            T->oom = true;
            return;
        }
        if (T->len == T->cap) {
            uint32_t nc = T->cap ? 2 * T->cap : 16;
            gnode *v = realloc(T->n, nc * sizeof *v);
            if (!v) {
                T->oom = true;
                return;
            }
            T->n = v;
            T->cap = nc;
        }
        uint32_t id = T->len++;
        T->n[id] = (gnode){.old = old, .next = next};
        if (!add_in(T, &T->n[id], in, nin)) return;
        expand(T, &id, 1, next, 0, 0);
        return;
    }
    int f = __builtin_ctzll(nw);
    uint64_t b = BIT(f);
    nw &= ~b;
    const fnode *s = &x->sub[f];
    switch ((enum fop)s->op) {
    case F_FALSE: return;
    case F_TRUE: expand(T, in, nin, nw, old | b, next); return;
    case F_PROP:
    case F_NPROP: {
        int ng = lit_neg(x, f);
        if (ng >= 0 && (old & BIT(ng))) return;
        expand(T, in, nin, nw, old | b, next);
        return;
    }
    case F_AND:
        expand(T, in, nin, nw | ((BIT(s->l) | BIT(s->r)) & ~old), old | b, next);
        return;
    case F_OR:
        expand(T, in, nin, nw | (BIT(s->l) & ~old), old | b, next);
        expand(T, in, nin, nw | (BIT(s->r) & ~old), old | b, next);
        return;
    case F_U:
        expand(T, in, nin, nw | (BIT(s->l) & ~old), old | b, next | b);
        expand(T, in, nin, nw | (BIT(s->r) & ~old), old | b, next);
        return;
    case F_R:
        expand(T, in, nin, nw | (BIT(s->r) & ~old), old | b, next | b);
        expand(T, in, nin, nw | ((BIT(s->l) | BIT(s->r)) & ~old), old | b, next);
        return;
    default: return;
    }
}

void ltl_free(ltl_automaton *a)
{
    if (!a) return;
    free(a->pos);
    free(a->neg);
    free(a->accepting);
    free(a->succ_off);
    free(a->succ);
    free(a);
}

static ltl_automaton *build(lparse *x, tableau *T, char *err, size_t errlen)
{
    /* acceptance sets: one per U subformula */
    int us[MAX_SUB], k = 0;
    for (int i = 0; i < x->nsub; i++)
        if (x->sub[i].op == F_U) us[k++] = i;
    uint32_t kk = k ? (uint32_t)k : 1;
    uint32_t nn = T->len;
    /* degeneralized state (node, c) is 1 + (node-1)*kk + c; 0 the initial one */
    uint32_t ns = 1 + (nn - 1) * kk;
    ltl_automaton *a = calloc(1, sizeof *a);
    if (!a) goto oom;
    a->nstates = ns;
    a->pos = calloc(ns, sizeof *a->pos);
    a->neg = calloc(ns, sizeof *a->neg);
    a->accepting = calloc(ns, 1);
    a->succ_off = calloc(ns + 1, sizeof *a->succ_off);
    if (!a->pos || !a->neg || !a->accepting || !a->succ_off) goto oom;
    /* in F_j: U_j not in Old, or its right operand in Old */
#define IN_F(g, j) (!((g)->old & BIT(us[j])) || ((g)->old & BIT(x->sub[us[j]].r)))
    uint32_t nedges = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t src = 0; src < ns; src++) {
            uint32_t pn = src ? 1 + (src - 1) / kk : 0, c = src ? (src - 1) % kk : 0;
            uint32_t nc = c;
            if (src && k && IN_F(&T->n[pn], c)) nc = (c + 1) % kk;
            if (pass) a->succ_off[src] = nedges;
            for (uint32_t q = 1; q < nn; q++) {
                const gnode *g = &T->n[q];
                bool edge = false;
                for (uint32_t j = 0; j < g->nin && !edge; j++) edge = g->in[j] == pn;
                if (!edge) continue;
                if (pass) a->succ[nedges] = 1 + (q - 1) * kk + (src ? nc : 0);
                nedges++;
            }
        }
        if (!pass) {
            a->succ = malloc((nedges ? nedges : 1) * sizeof *a->succ);
            if (!a->succ) goto oom;
            a->nedges = nedges;
            nedges = 0;
        }
    }
    a->succ_off[ns] = nedges;
    for (uint32_t st = 1; st < ns; st++) {
        const gnode *g = &T->n[1 + (st - 1) / kk];
        uint32_t c = (st - 1) % kk;
        for (int f = 0; f < x->nsub; f++) {
            if (!(g->old & BIT(f))) continue;
            if (x->sub[f].op == F_PROP) a->pos[st] |= BIT(x->sub[f].prop);
            if (x->sub[f].op == F_NPROP) a->neg[st] |= BIT(x->sub[f].prop);
        }
        a->accepting[st] = k ? c == 0 && IN_F(g, 0) : 1;
    }
#undef IN_F
    a->nodes = nn - 1;
    a->acceptance_sets = (uint32_t)k;
    return a;
oom:
    ltl_free(a);
    snprintf(err, errlen, "out of memory translating the formula");
    return NULL;
}

ltl_automaton *ltl_translate(const char *formula, const vm_program *p, char *err, size_t errlen)
{
    lparse *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->s = formula;
    x->p = p;
    x->err = err;
    x->errlen = errlen;
    int f = equiv(x);
    skip(x);
    if (f >= 0 && x->s[x->i]) perr(x, "unexpected '%c' at column %zu", x->s[x->i], x->i + 1);
    int root = x->bad ? -1 : nnf(x, f, true); /* the negation: its runs are violations */
    ltl_automaton *a = NULL;
    if (root >= 0 && !x->bad) {
        tableau T = {.x = x};
        uint32_t init = 0;
        T.n = calloc(16, sizeof *T.n);
        T.cap = T.n ? 16 : 0;
        T.len = 1;
        if (!T.n) T.oom = true;
        else expand(&T, &init, 1, BIT(root), 0, 0);
        if (T.oom) snprintf(err, errlen, "the formula's automaton is too large");
        else a = build(x, &T, err, errlen);
        for (uint32_t i = 0; i < T.len && T.n; i++) free(T.n[i].in);
        free(T.n);
    }
    free(x);
    return a;
}

bool ltl_enters(const ltl_automaton *a, uint32_t q, uint64_t props)
{
    return (a->pos[q] & ~props) == 0 && (a->neg[q] & props) == 0;
}
