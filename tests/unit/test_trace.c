/* test_trace.c: the trace module (trace/, issue 32). This file: main(), the
 * fixture (traces and grammars by hand, sets by name) and ZipTrack's worked
 * examples with every intermediate value the notes list
 * (notes-ratcop-ziptrack.md A2: σ1 and σ2, After/Before, AF, BL, ALWr,
 * BFWr, ALRd, BFRd, the witness e10/e13; A3: OpenAcq/OpenRel and the
 * locksets of σ2, the violations of σ1), the public artifact's bug cases
 * (A7) and the well-formedness check (A8). Sequitur and the builders are in
 * test_trace_sequitur.c; the differential and exponential cases in
 * test_trace_diff.c. */
#include "test_trace_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- fixture ---------------------------------------------------------------------- */

void ev(tr_trace *t, const char *thread, tr_op op, const char *obj)
{
    tr_event e = {0, 0, TR_NO_LOC, (uint8_t)op};
    e.thread = tr_intern(&t->names.threads, thread, strlen(thread));
    tr_table *tb = op == TR_READ || op == TR_WRITE ? &t->names.vars
                   : op == TR_ACQ || op == TR_REL  ? &t->names.locks
                                                   : &t->names.threads;
    e.obj = tr_intern(tb, obj, strlen(obj));
    CHECK(tr_push(t, e));
}

uint32_t rule_no(const char *const *rules, int n, const char *name)
{
    size_t len = strlen(name);
    for (int r = 0; r < n; r++)
        if (strncmp(rules[r], name, len) == 0 && rules[r][len] == ' ') return (uint32_t)r;
    return UINT32_MAX;
}

bool slp_by_hand(const tr_trace *t, const char *const *rules, int n, tr_slp *g)
{
    memset(g, 0, sizeof *g);
    tr_alpha a;
    memset(&a, 0, sizeof a);
    uint32_t *sym = NULL;
    uint64_t ns = 0, cap = 0;
    g->body = calloc((size_t)n + 1, sizeof *g->body);
    g->nrules = (uint32_t)n;
    /* terminals first, so that symbol numbers are known: every event */
    for (uint64_t i = 0; i < t->n; i++) tr_alpha_id(&a, &t->ev[i]);
    for (int r = 0; r < n; r++) {
        g->body[r] = ns;
        const char *p = strstr(rules[r], "->");
        if (!p) goto bad;
        p += 2;
        for (;;) {
            while (*p == ' ') p++;
            if (!*p) break;
            size_t len = strcspn(p, " ");
            char tok[32];
            if (len >= sizeof tok) goto bad;
            memcpy(tok, p, len);
            tok[len] = '\0';
            p += len;
            uint32_t s;
            if (tok[0] == 'e' && tok[1] >= '0' && tok[1] <= '9') {
                unsigned long k = strtoul(tok + 1, NULL, 10);
                if (k < 1 || k > t->n) goto bad;
                s = tr_alpha_id(&a, &t->ev[k - 1]);
            } else {
                uint32_t rr = rule_no(rules, n, tok);
                if (rr == UINT32_MAX) goto bad;
                s = rr; /* fixed below, once nterms is known */
                s |= 0x80000000u;
            }
            if (!tr_grow((void **)&sym, &cap, ns + 1, sizeof *sym)) goto bad;
            sym[ns++] = s;
        }
    }
    g->body[n] = ns;
    g->nterms = a.n;
    for (uint64_t i = 0; i < ns; i++)
        if (sym[i] & 0x80000000u) sym[i] = g->nterms + (sym[i] & 0x7fffffffu);
    g->sym = sym;
    g->terms = malloc((a.n + 1) * sizeof *g->terms);
    if (a.n) memcpy(g->terms, a.terms, a.n * sizeof *g->terms);
    tr_alpha_free(&a);
    return tr_names_copy(&t->names, &g->names);
bad:
    tr_alpha_free(&a);
    free(sym);
    tr_slp_free(g);
    return false;
}

static bool push_ev(void *ctx, uint64_t pos, const tr_event *e)
{
    (void)pos;
    return tr_push(ctx, *e);
}

bool slp_expand(const tr_slp *g, tr_trace *out)
{
    memset(out, 0, sizeof *out);
    return tr_names_copy(&g->names, &out->names) && tr_slp_each(g, push_ev, out);
}

static bool set_is(uint32_t nw, const uint64_t *s, const uint64_t *want)
{
    for (uint32_t i = 0; i < nw; i++)
        if ((s ? s[i] : 0) != want[i]) return false;
    return true;
}

bool hb_set_is(const tr_hb_ctx *c, const tr_names *n, const uint64_t *s, const char *want)
{
    uint64_t w[8] = {0};
    char buf[128];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        uint32_t u = UINT32_MAX;
        for (uint32_t i = 0; i < n->threads.n; i++)
            if (!strcmp(n->threads.v[i], tok)) u = i;
        for (uint32_t i = 0; i < n->locks.n && u == UINT32_MAX; i++)
            if (!strcmp(n->locks.v[i], tok)) u = c->nthreads + i;
        if (u == UINT32_MAX) return false;
        w[u / 64] |= 1ull << (u % 64);
    }
    return set_is(c->nw, s, w);
}

bool ls_set_is(const tr_ls_ctx *c, const tr_names *n, const uint64_t *s, const char *want)
{
    uint64_t w[8] = {0};
    char buf[128];
    snprintf(buf, sizeof buf, "%s", want);
    if (!strcmp(want, "⊤")) return s == NULL;
    if (!s) return false;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        uint32_t u = UINT32_MAX;
        if (!strcmp(tok, "Λ")) u = tr_ls_lambda(c);
        else if (!strncmp(tok, "Λ", strlen("Λ"))) {
            for (uint32_t i = 0; i < n->threads.n; i++)
                if (!strcmp(n->threads.v[i], tok + strlen("Λ"))) u = tr_ls_lambda_t(c, i);
        } else {
            for (uint32_t i = 0; i < n->locks.n; i++)
                if (!strcmp(n->locks.v[i], tok)) u = i;
        }
        if (u == UINT32_MAX) return false;
        w[u / 64] |= 1ull << (u % 64);
    }
    return set_is(c->nw, s, w);
}

static uint32_t id_of(const tr_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i], name)) return i;
    return UINT32_MAX;
}

/* ---- σ1 (notes A2, Fig. 2) ----------------------------------------------------------- */

static const char *const sigma1_rules[] = {
    "S -> A B",         "A -> C D",         "C -> E F",         "B -> F G",
    "E -> e1 e2",       "F -> e3 e4 e5 e6", "D -> e7 e8 e9 e10", "G -> e15 e16",
};
#define NS1 ((int)(sizeof sigma1_rules / sizeof *sigma1_rules))

static void sigma1(tr_trace *t)
{
    memset(t, 0, sizeof *t);
    ev(t, "1", TR_WRITE, "x");  /* e1 */
    ev(t, "1", TR_FORK, "2");   /* e2 */
    ev(t, "2", TR_READ, "x");   /* e3 */
    ev(t, "2", TR_ACQ, "l");    /* e4 */
    ev(t, "2", TR_WRITE, "y");  /* e5 */
    ev(t, "2", TR_REL, "l");    /* e6 */
    ev(t, "1", TR_READ, "x");   /* e7 */
    ev(t, "1", TR_ACQ, "l");    /* e8 */
    ev(t, "1", TR_REL, "l");    /* e9 */
    ev(t, "1", TR_WRITE, "y");  /* e10 */
    ev(t, "2", TR_READ, "x");   /* e11 */
    ev(t, "2", TR_ACQ, "l");    /* e12 */
    ev(t, "2", TR_WRITE, "y");  /* e13 */
    ev(t, "2", TR_REL, "l");    /* e14 */
    ev(t, "1", TR_JOIN, "2");   /* e15 */
    ev(t, "1", TR_WRITE, "y");  /* e16 */
}

static void sigma1_hb(void)
{
    tr_trace t;
    tr_slp g;
    sigma1(&t);
    if (!slp_by_hand(&t, sigma1_rules, NS1, &g)) {
        CHECK(!"sigma1 grammar");
        tr_trace_free(&t);
        return;
    }
    tr_hb_ctx c;
    CHECK(tr_hb_ctx_init(&c, &g.names));
    tr_hb_sum *s = tr_hb_all(&g, &c);
    CHECK(s != NULL);
    if (!s) goto out;
#define R(name) (&s[rule_no(sigma1_rules, NS1, name)])
    const tr_names *n = &g.names;
    uint32_t x = id_of(&n->vars, "x"), y = id_of(&n->vars, "y");
    uint32_t t1 = id_of(&n->threads, "1"), t2 = id_of(&n->threads, "2");
    /* After_E(e1) = {1,2}: AF_E(1) and ALWr_E(x); After_C(e1) = {1,2,l} */
    CHECK(hb_set_is(&c, n, tr_hb_af(R("E"), t1), "1 2"));
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("E"), x)->al, "1 2"));
    CHECK(hb_set_is(&c, n, tr_hb_af(R("C"), t1), "1 2 l"));
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("C"), x)->al, "1 2 l"));
    /* Before_G(e16) = {1,2}: BL_G(1), BFWr_G(y); Before_B(e16) = {1,2,l} */
    CHECK(hb_set_is(&c, n, tr_hb_bl(R("G"), t1), "1 2"));
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("G"), y)->bf, "1 2"));
    CHECK(hb_set_is(&c, n, tr_hb_bl(R("B"), t1), "1 2 l"));
    /* BFRd_F(2,x) = {2}; AF_F(1) = ∅; AF_F(2) = {2,l} */
    CHECK(hb_set_is(&c, n, tr_hb_find_rd(R("F"), t2, x)->bf, "2"));
    CHECK(tr_hb_af(R("F"), t1) == NULL);
    CHECK(hb_set_is(&c, n, tr_hb_af(R("F"), t2), "2 l"));
    /* ALWr_F(y) = {2,l}, BFWr_D(y) = {1,l}: they share l */
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("F"), y)->al, "2 l"));
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("D"), y)->bf, "1 l"));
    /* ALRd_F(2,x) = {2,l}, BFRd_D(1,x) = {1}: disjoint, but two reads */
    CHECK(hb_set_is(&c, n, tr_hb_find_rd(R("F"), t2, x)->al, "2 l"));
    CHECK(hb_set_is(&c, n, tr_hb_find_rd(R("D"), t1, x)->bf, "1"));
    /* BFWr_B(y) = BFWr_F(y) = {2,l}; ALWr_A(y) = {1}: disjoint, Race?(S) */
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("B"), y)->bf, "2 l"));
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("F"), y)->bf, "2 l"));
    CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("A"), y)->al, "1"));
    const char *norace[] = {"A", "B", "C", "D", "E", "F", "G"};
    for (int i = 0; i < 7; i++) CHECK(!R(norace[i])->race);
    CHECK(R("S")->race);
    /* the witness: e10 (position 9) and e13 (position 12) */
    CHECK_EQ_INT(R("S")->race_a, 9);
    CHECK_EQ_INT(R("S")->race_b, 12);
#undef R
    tr_race r;
    CHECK(tr_slp_race(&g, &r));
    CHECK(r.found);
    CHECK_EQ_INT(r.first, 9);
    CHECK_EQ_INT(r.second, 12);
    /* the oracles agree */
    tr_race v, gl;
    CHECK(tr_race_vc(&t, &v) && v.found);
    CHECK(tr_race_goldilocks(&t, &gl) && gl.found);
    CHECK_EQ_INT(gl.first, 9);
    CHECK_EQ_INT(gl.second, 12);
    tr_hb_sums_free(s, g.nrules);
out:
    tr_hb_ctx_free(&c);
    tr_slp_free(&g);
    tr_trace_free(&t);
}

static void sigma1_lockset(void)
{
    tr_trace t;
    tr_slp g;
    sigma1(&t);
    if (!slp_by_hand(&t, sigma1_rules, NS1, &g)) {
        CHECK(!"sigma1 grammar");
        tr_trace_free(&t);
        return;
    }
    tr_ls_ctx c;
    CHECK(tr_ls_ctx_init(&c, &g.names));
    tr_ls_sum *s = tr_ls_all(&g, &c);
    CHECK(s != NULL);
    if (s) {
        const tr_names *n = &g.names;
        const tr_ls_sum *S = &s[0];
        uint32_t x = id_of(&n->vars, "x"), y = id_of(&n->vars, "y");
        uint32_t t1 = id_of(&n->threads, "1"), t2 = id_of(&n->threads, "2");
        /* (1,x) {Λ1} and (2,x) {Λ,Λ2}: violation on x (a false alarm: the
         * fork orders them); (1,y) {Λ1}, (2,y) {Λ2,l}: violation on y */
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t1, x)->set, "Λ1"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t2, x)->set, "Λ Λ2"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t1, y)->set, "Λ1"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t2, y)->set, "Λ2 l"));
        CHECK(S->viol);
        tr_ls_sums_free(s, g.nrules);
    }
    tr_violation v;
    CHECK(tr_slp_lockset(&g, &v));
    CHECK(v.found);
    bool viol[2] = {false, false};
    CHECK(tr_lockset_vars(&t, viol));
    CHECK(viol[0] && viol[1]); /* the oracle: x and y */
    /* the pair: e3 (position 2) is the first access after which x's
     * accesses share no lock, {Λ1} ∩ {Λ,Λ2}; e1 (position 0) alone shares
     * none with it */
    CHECK(v.var == id_of(&g.names.vars, "x"));
    CHECK_EQ_INT(v.first, 0);
    CHECK_EQ_INT(v.second, 2);
    tr_violation o;
    CHECK(tr_lockset(&t, &o) && o.found && o.var == v.var);
    CHECK_EQ_INT(o.first, 0);
    CHECK_EQ_INT(o.second, 2);
    tr_ls_ctx_free(&c);
    tr_slp_free(&g);
    tr_trace_free(&t);
}

/* Three accesses whose locksets meet pairwise but not all together,
 * {a,b}, {b,c}, {a,c}: the violation is at the third; with it, the
 * accesses share none from the second on. On every grammar. */
static void lockset_three_way(void)
{
    tr_trace t;
    memset(&t, 0, sizeof t);
    const char *held[3][2] = {{"a", "b"}, {"b", "c"}, {"a", "c"}};
    const char *th[3] = {"1", "2", "3"};
    for (int i = 0; i < 3; i++) {
        ev(&t, th[i], TR_ACQ, held[i][0]);
        ev(&t, th[i], TR_ACQ, held[i][1]);
        ev(&t, th[i], TR_WRITE, "x"); /* positions 2, 7, 12 */
        ev(&t, th[i], TR_REL, held[i][1]);
        ev(&t, th[i], TR_REL, held[i][0]);
    }
    tr_violation o;
    CHECK(tr_lockset(&t, &o) && o.found);
    CHECK_EQ_INT(o.first, 7);
    CHECK_EQ_INT(o.second, 12);
    tr_slp g[2];
    CHECK(tr_slp_comb(&t, &g[0]));
    CHECK(tr_slp_random(&t, 5, &g[1]));
    for (int k = 0; k < 2; k++) {
        tr_violation v;
        CHECK(tr_slp_lockset(&g[k], &v) && v.found);
        CHECK_EQ_INT(v.first, 7);
        CHECK_EQ_INT(v.second, 12);
        tr_slp_free(&g[k]);
    }
    tr_trace_free(&t);
}

/* ---- σ2 (notes A2, A3, Fig. 3) --------------------------------------------------------- */

static const char *const sigma2_rules[] = {
    "S -> U V", "U -> W X", "V -> Y Z", "W -> e1 e2", "X -> e3 e4 e5", "Y -> e6 e7",
    "Z -> e8 e9 e10",
};
#define NS2 ((int)(sizeof sigma2_rules / sizeof *sigma2_rules))

static void sigma2(tr_trace *t)
{
    memset(t, 0, sizeof *t);
    ev(t, "1", TR_READ, "x");  /* e1 */
    ev(t, "1", TR_ACQ, "l");   /* e2 */
    ev(t, "1", TR_WRITE, "y"); /* e3 */
    ev(t, "1", TR_REL, "l");   /* e4 */
    ev(t, "2", TR_ACQ, "l");   /* e5 */
    ev(t, "2", TR_READ, "x");  /* e6 */
    ev(t, "2", TR_WRITE, "y"); /* e7 */
    ev(t, "2", TR_REL, "l");   /* e8 */
    ev(t, "2", TR_READ, "x");  /* e9 */
    ev(t, "1", TR_WRITE, "z"); /* e10 */
}

static void sigma2_hb(void)
{
    tr_trace t;
    tr_slp g;
    sigma2(&t);
    if (!slp_by_hand(&t, sigma2_rules, NS2, &g)) {
        CHECK(!"sigma2 grammar");
        tr_trace_free(&t);
        return;
    }
    tr_hb_ctx c;
    CHECK(tr_hb_ctx_init(&c, &g.names));
    tr_hb_sum *s = tr_hb_all(&g, &c);
    CHECK(s != NULL);
    if (s) {
#define R(name) (&s[rule_no(sigma2_rules, NS2, name)])
        const tr_names *n = &g.names;
        uint32_t x = id_of(&n->vars, "x"), y = id_of(&n->vars, "y");
        uint32_t t1 = id_of(&n->threads, "1");
        /* After_W(e1) = {1}; After_U(e1) = {1,2,l}: ALRd(1,x) */
        CHECK(hb_set_is(&c, n, tr_hb_find_rd(R("W"), t1, x)->al, "1"));
        CHECK(hb_set_is(&c, n, tr_hb_af(R("W"), t1), "1"));
        CHECK(hb_set_is(&c, n, tr_hb_find_rd(R("U"), t1, x)->al, "1 2 l"));
        CHECK(hb_set_is(&c, n, tr_hb_af(R("U"), t1), "1 2 l"));
        /* Before_X(e3) = {1}; Before_U(e3) = {1,l}: BFWr(y) */
        CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("X"), y)->bf, "1"));
        CHECK(hb_set_is(&c, n, tr_hb_find_wr(R("U"), y)->bf, "1 l"));
        for (int r = 0; r < NS2; r++) CHECK(!s[r].race);
#undef R
        tr_hb_sums_free(s, g.nrules);
    }
    tr_race r;
    CHECK(tr_slp_race(&g, &r));
    CHECK(!r.found);
    CHECK(tr_race_vc(&t, &r) && !r.found);
    CHECK(tr_race_goldilocks(&t, &r) && !r.found);
    tr_hb_ctx_free(&c);
    tr_slp_free(&g);
    tr_trace_free(&t);
}

static void sigma2_lockset(void)
{
    tr_trace t;
    tr_slp g;
    sigma2(&t);
    if (!slp_by_hand(&t, sigma2_rules, NS2, &g)) {
        CHECK(!"sigma2 grammar");
        tr_trace_free(&t);
        return;
    }
    tr_ls_ctx c;
    CHECK(tr_ls_ctx_init(&c, &g.names));
    tr_ls_sum *s = tr_ls_all(&g, &c);
    CHECK(s != NULL);
    if (s) {
#define R(name) (&s[rule_no(sigma2_rules, NS2, name)])
        const tr_names *n = &g.names;
        uint32_t x = id_of(&n->vars, "x"), y = id_of(&n->vars, "y"), z = id_of(&n->vars, "z");
        uint32_t t1 = id_of(&n->threads, "1"), t2 = id_of(&n->threads, "2");
        uint32_t l = id_of(&n->locks, "l");
        /* OpenAcq_W(1,l) = 1, OpenRel_X(1,l) = 1, OpenAcq_X(2,l) = 1,
         * OpenRel_Z(2,l) = 1, OpenAcq_U(2,l) = 1, OpenRel_V(2,l) = 1; the
         * others 0: OpenAcq_U(1,l) = OpenRel_U(1,l) = 0 */
        const tr_ls_open *o;
        CHECK((o = tr_ls_find_open(R("W"), t1, l)) && o->oa == 1 && o->orel == 0);
        CHECK((o = tr_ls_find_open(R("X"), t1, l)) && o->oa == 0 && o->orel == 1);
        CHECK((o = tr_ls_find_open(R("X"), t2, l)) && o->oa == 1 && o->orel == 0);
        CHECK((o = tr_ls_find_open(R("Z"), t2, l)) && o->oa == 0 && o->orel == 1);
        CHECK((o = tr_ls_find_open(R("U"), t2, l)) && o->oa == 1 && o->orel == 0);
        CHECK((o = tr_ls_find_open(R("V"), t2, l)) && o->oa == 0 && o->orel == 1);
        CHECK(tr_ls_find_open(R("U"), t1, l) == NULL);
        CHECK(tr_ls_find_open(R("Y"), t2, l) == NULL);
        CHECK(tr_ls_find_open(R("V"), t1, l) == NULL);
        CHECK(tr_ls_find_open(R("S"), t1, l) == NULL);
        CHECK(tr_ls_find_open(R("S"), t2, l) == NULL);
        /* LockSet_W(1,x) = {Λ,Λ1}, LockSet_X(1,y) = {l,Λ1},
         * LockSet_Y(2,x) = {Λ,Λ2}, LockSet_Y(2,y) = {Λ2}, LockSet_V(2,y) = {Λ2,l} */
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(R("W"), t1, x)->set, "Λ Λ1"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(R("X"), t1, y)->set, "l Λ1"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(R("Y"), t2, x)->set, "Λ Λ2"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(R("Y"), t2, y)->set, "Λ2"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(R("V"), t2, y)->set, "Λ2 l"));
        /* the whole trace */
        const tr_ls_sum *S = R("S");
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t1, x)->set, "Λ Λ1"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t2, x)->set, "Λ Λ2"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t1, y)->set, "Λ1 l"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t2, y)->set, "Λ2 l"));
        CHECK(ls_set_is(&c, n, tr_ls_find_acc(S, t1, z)->set, "Λ1"));
        CHECK(tr_ls_find_acc(S, t2, z) == NULL); /* ⊤ */
        for (int r = 0; r < NS2; r++) CHECK(!s[r].viol);
#undef R
        tr_ls_sums_free(s, g.nrules);
    }
    tr_violation v;
    CHECK(tr_slp_lockset(&g, &v));
    CHECK(!v.found);
    CHECK(tr_lockset(&t, &v) && !v.found);
    tr_ls_ctx_free(&c);
    tr_slp_free(&g);
    tr_trace_free(&t);
}

/* ---- the artifact's bugs (notes A7) ----------------------------------------------------------- */

/* 1. T1: acq l; w x; rel l, then T2 the same: no violation (ZipLockSet
 * said "violation" with a two-rule and a one-rule grammar). */
static void artifact_locked_pair(void)
{
    tr_trace t;
    memset(&t, 0, sizeof t);
    const char *th[2] = {"T1", "T2"};
    for (int i = 0; i < 2; i++) {
        ev(&t, th[i], TR_ACQ, "l");
        ev(&t, th[i], TR_WRITE, "x");
        ev(&t, th[i], TR_REL, "l");
    }
    const char *const two[] = {"S -> A B", "A -> e1 e2 e3", "B -> e4 e5 e6"};
    const char *const one[] = {"S -> e1 e2 e3 e4 e5 e6"};
    tr_slp g[4];
    CHECK(slp_by_hand(&t, two, 3, &g[0]));
    CHECK(slp_by_hand(&t, one, 1, &g[1]));
    CHECK(tr_slp_comb(&t, &g[2]));
    CHECK(tr_slp_random(&t, 7, &g[3]));
    for (int k = 0; k < 4; k++) {
        tr_violation v;
        tr_race r;
        CHECK(tr_slp_lockset(&g[k], &v) && !v.found);
        CHECK(tr_slp_race(&g[k], &r) && !r.found);
        tr_slp_free(&g[k]);
    }
    tr_violation v;
    CHECK(tr_lockset(&t, &v) && !v.found);
    tr_trace_free(&t);
}

/* 2. 0 -> 1 &3, 1 -> &1 &2 with &1 = T1 w x, &2 = T1 r y, &3 = T2 w x: a
 * race (ZipHB said "race free" when a terminal and a nonterminal share a
 * rule). Also with &3 in a rule of its own, and as a comb. */
static void artifact_mixed_rule(void)
{
    tr_trace t;
    memset(&t, 0, sizeof t);
    ev(&t, "T1", TR_WRITE, "x");
    ev(&t, "T1", TR_READ, "y");
    ev(&t, "T2", TR_WRITE, "x");
    const char *const mixed[] = {"S -> R e3", "R -> e1 e2"};
    const char *const split[] = {"S -> R Q", "R -> e1 e2", "Q -> e3"};
    tr_slp g[3];
    CHECK(slp_by_hand(&t, mixed, 2, &g[0]));
    CHECK(slp_by_hand(&t, split, 3, &g[1]));
    CHECK(tr_slp_comb(&t, &g[2]));
    for (int k = 0; k < 3; k++) {
        tr_race r;
        CHECK(tr_slp_race(&g[k], &r) && r.found);
        CHECK_EQ_INT(r.first, 0);
        CHECK_EQ_INT(r.second, 2);
        tr_violation v;
        CHECK(tr_slp_lockset(&g[k], &v) && v.found);
        CHECK_EQ_INT(v.var, 0);
        tr_slp_free(&g[k]);
    }
    tr_trace_free(&t);
}

/* ---- well-formedness (notes A8) ------------------------------------------------------------ */

static tr_wf wf_of(tr_trace *t, char *why, size_t n)
{
    uint64_t pos;
    tr_wf w = tr_check_wellformed(t, &pos, why, n);
    tr_slp g;
    if (tr_slp_comb(t, &g)) {
        uint64_t pos2;
        char why2[200];
        CHECK_EQ_INT(tr_slp_check(&g, &pos2, why2, sizeof why2), w);
        if (w == TR_WF_BAD) {
            CHECK_EQ_INT(pos2, pos);
            CHECK(!strcmp(why, why2));
        }
        tr_slp_free(&g);
    }
    tr_trace_free(t);
    return w;
}

static void wellformedness(void)
{
    char why[200];
    tr_trace t;
    sigma1(&t);
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_OK);
    sigma2(&t);
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_OK);

    memset(&t, 0, sizeof t); /* two joiners */
    ev(&t, "1", TR_FORK, "2");
    ev(&t, "2", TR_WRITE, "x");
    ev(&t, "1", TR_JOIN, "2");
    ev(&t, "3", TR_JOIN, "2");
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "thread '2' is joined twice (by '1' and '3')");

    memset(&t, 0, sizeof t);
    ev(&t, "1", TR_FORK, "2");
    ev(&t, "3", TR_JOIN, "2");
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "thread '2' is forked by '1' but joined by '3'");

    memset(&t, 0, sizeof t);
    ev(&t, "1", TR_ACQ, "l");
    ev(&t, "1", TR_REL, "l");
    ev(&t, "1", TR_REL, "l");
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "thread '1' releases lock 'l' it does not hold");

    memset(&t, 0, sizeof t);
    ev(&t, "1", TR_ACQ, "l");
    ev(&t, "1", TR_ACQ, "l"); /* re-entrant: fine */
    ev(&t, "2", TR_ACQ, "l");
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "thread '2' acquires lock 'l' held by '1'");

    memset(&t, 0, sizeof t);
    ev(&t, "1", TR_FORK, "2");
    ev(&t, "1", TR_JOIN, "2");
    ev(&t, "2", TR_READ, "x");
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "thread '2' has an event after its join");

    memset(&t, 0, sizeof t);
    ev(&t, "2", TR_READ, "x");
    ev(&t, "1", TR_FORK, "2");
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "thread '2' is forked after its first event");

    memset(&t, 0, sizeof t);
    ev(&t, "1", TR_FORK, "1");
    CHECK_EQ_INT(wf_of(&t, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "thread '1' forks itself");

    /* structure: a cycle, a one-symbol rule, a symbol out of range */
    sigma1(&t);
    const char *const cyc[] = {"S -> A e1", "A -> B e2", "B -> A e3"};
    const char *const shrt[] = {"S -> A e1", "A -> e2"};
    tr_slp g;
    uint64_t pos;
    CHECK(slp_by_hand(&t, cyc, 3, &g));
    CHECK_EQ_INT(tr_slp_check(&g, &pos, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "cycle");
    tr_race r;
    CHECK(tr_slp_race(&g, &r) && !r.found); /* no verdict, no hang */
    tr_slp_free(&g);
    CHECK(slp_by_hand(&t, shrt, 2, &g));
    CHECK_EQ_INT(tr_slp_check(&g, &pos, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "rule 1 has fewer than two symbols");
    g.sym[0] = g.nterms + g.nrules;
    CHECK_EQ_INT(tr_slp_check(&g, &pos, why, sizeof why), TR_WF_BAD);
    CHECK_CONTAINS(why, "beyond the grammar");
    tr_slp_free(&g);
    tr_trace_free(&t);
}

/* ---- names and lengths ---------------------------------------------------------------------- */

static void names_and_lengths(void)
{
    tr_table tb;
    memset(&tb, 0, sizeof tb);
    char b[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(b, sizeof b, "n%d", i);
        CHECK_EQ_INT(tr_intern(&tb, b, strlen(b)), i);
    }
    CHECK_EQ_INT(tr_intern(&tb, "n517xyz", 4), 517);
    CHECK_EQ_INT(tb.n, 1000);
    tr_names nm = {tb, {0}, {0}, {0}};
    tr_names_free(&nm);

    tr_trace t;
    tr_slp g;
    sigma1(&t);
    CHECK(slp_by_hand(&t, sigma1_rules, NS1, &g));
    uint64_t len[NS1], first[NS1];
    uint32_t order[NS1], cnt;
    CHECK(tr_slp_lengths(&g, len));
    CHECK_EQ_INT(len[0], 16);
    CHECK_EQ_INT(len[rule_no(sigma1_rules, NS1, "F")], 4);
    CHECK_EQ_INT(tr_slp_topo(&g, order, &cnt), 0);
    CHECK_EQ_INT(cnt, NS1);
    tr_slp_first_pos(&g, len, order, cnt, first);
    CHECK_EQ_INT(first[rule_no(sigma1_rules, NS1, "F")], 2);
    CHECK_EQ_INT(first[rule_no(sigma1_rules, NS1, "D")], 6);
    CHECK_EQ_INT(first[rule_no(sigma1_rules, NS1, "B")], 10);
    CHECK_EQ_INT(first[rule_no(sigma1_rules, NS1, "G")], 14);
    tr_trace e;
    CHECK(slp_expand(&g, &e));
    CHECK_EQ_INT(e.n, t.n);
    CHECK(e.n == t.n && !memcmp(e.ev, t.ev, t.n * sizeof *t.ev));
    tr_trace_free(&e);
    tr_slp_free(&g);
    tr_trace_free(&t);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    TEST_RUN(names_and_lengths);
    TEST_RUN(sigma1_hb);
    TEST_RUN(sigma1_lockset);
    TEST_RUN(lockset_three_way);
    TEST_RUN(sigma2_hb);
    TEST_RUN(sigma2_lockset);
    TEST_RUN(artifact_locked_pair);
    TEST_RUN(artifact_mixed_rule);
    TEST_RUN(wellformedness);
    TEST_RUN(sequitur_known_outputs);
    TEST_RUN(sequitur_round_trips);
    TEST_RUN(builders_round_trip);
    TEST_RUN(exponential_grammars);
    TEST_RUN(exponential_racy);
    TEST_RUN(differential_random_traces);
    TEST_RUN(wellformed_differential);
    TEST_RUN(deep_comb);
    return test_finish();
}
