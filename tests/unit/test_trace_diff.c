/* test_trace_diff.c: the grammar analyses against the stream oracles
 * (notes A7: "an SLP analyzer must be differentially tested against an
 * uncompressed detector on random bracketings"), and exponential grammars
 * (A(i+1) -> A(i) A(i), i up to 60).
 *
 * Differential: random well-formed traces from a generator here (threads
 * forking children and joining them from the same parent, re-entrant locks
 * used properly, reads and writes, most variables guarded by a lock of
 * their own some of the time, some traces with no unguarded access at
 * all), each under Sequitur's grammar, the left comb and a random
 * bracketing. Vector clocks and Goldilocks agree on whether there is a
 * race; the grammar's verdict is theirs; every witness (the oracles' and
 * the grammar's) is a racing pair by the vector-clock relation; the
 * grammar's lockset verdict is the Eraser oracle's and names a violating
 * variable. MCHECK_TRACE_DIFF=N runs N traces (default 3000),
 * MCHECK_TRACE_DIFF_LEN=L makes them up to L events long (default 124). */
#include "test_trace_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

#define MAXT 6
#define MAXL 3
#define MAXV 4

/* One random well-formed trace. guard_pct: how often an access to a
 * variable is made only with its lock held (100: a lock-protected trace). */
static void gen(uint64_t *x, tr_trace *t, int len, int guard_pct)
{
    memset(t, 0, sizeof *t);
    static const char *const tn[MAXT] = {"t0", "t1", "t2", "t3", "t4", "t5"};
    static const char *const ln[MAXL] = {"l0", "l1", "l2"};
    static const char *const vn[MAXV] = {"x0", "x1", "x2", "x3"};
    int nthreads = 1, parent[MAXT] = {-1, -1, -1, -1, -1, -1};
    int state[MAXT] = {1}; /* 0 not started, 1 running, 2 finished, 3 joined */
    int owner[MAXL] = {-1, -1, -1}, depth[MAXL] = {0};
    int nl = 1 + (int)(rnd(x) % MAXL), nv = 1 + (int)(rnd(x) % MAXV);
    /* a second root thread now and then (joined by no one or by t0) */
    if (rnd(x) % 3 == 0) {
        nthreads = 2;
        state[1] = 1;
    }
    for (int step = 0; step < len * 4 && (int)t->n < len; step++) {
        int th = (int)(rnd(x) % (uint64_t)nthreads);
        if (state[th] != 1) continue;
        int a = (int)(rnd(x) % 100);
        if (a < 6 && nthreads < MAXT) { /* fork */
            int c = nthreads++;
            parent[c] = th;
            state[c] = 1;
            ev(t, tn[th], TR_FORK, tn[c]);
        } else if (a < 12) { /* join a finished child */
            for (int c = 0; c < nthreads; c++)
                if (state[c] == 2 && (parent[c] == th || (parent[c] < 0 && th == 0 && c != 0))) {
                    state[c] = 3;
                    ev(t, tn[th], TR_JOIN, tn[c]);
                    break;
                }
        } else if (a < 16 && th != 0) { /* finish (no lock held) */
            bool holds = false;
            for (int l = 0; l < nl; l++) holds |= owner[l] == th;
            if (!holds) state[th] = 2;
        } else if (a < 36) { /* acquire, re-entrantly now and then */
            int l = (int)(rnd(x) % (uint64_t)nl);
            if (owner[l] == -1 || (owner[l] == th && depth[l] < 3)) {
                owner[l] = th;
                depth[l]++;
                ev(t, tn[th], TR_ACQ, ln[l]);
            }
        } else if (a < 56) { /* release */
            for (int l = 0; l < nl; l++)
                if (owner[l] == th) {
                    if (--depth[l] == 0) owner[l] = -1;
                    ev(t, tn[th], TR_REL, ln[l]);
                    break;
                }
        } else { /* access: variable v is guarded by lock v % nl */
            int v = (int)(rnd(x) % (uint64_t)nv);
            bool guarded = owner[v % nl] == th;
            if (!guarded && (int)(rnd(x) % 100) < guard_pct) continue;
            ev(t, tn[th], rnd(x) % 3 ? TR_READ : TR_WRITE, vn[v]);
        }
    }
}

static bool compress(const tr_trace *t, tr_slp *g)
{
    tr_sequitur *q = tr_sequitur_new();
    if (!q) return false;
    bool ok = true;
    for (uint64_t i = 0; i < t->n && ok; i++) ok = tr_sequitur_push(q, &t->ev[i]);
    tr_names nm;
    memset(&nm, 0, sizeof nm);
    if (ok) ok = tr_names_copy(&t->names, &nm);
    ok = tr_sequitur_finish(q, &nm, g) && ok;
    tr_names_free(&nm);
    return ok;
}

/* The longest random trace (MCHECK_TRACE_DIFF_LEN, default 124 events). */
static int len_from_env(void)
{
    const char *s = getenv("MCHECK_TRACE_DIFF_LEN");
    int n = s ? atoi(s) : 0;
    return n > 4 ? n : 124;
}

static int count_from_env(void)
{
    const char *s = getenv("MCHECK_TRACE_DIFF");
    int n = s ? atoi(s) : 0;
    return n > 0 ? n : 3000;
}

void differential_random_traces(void)
{
    int count = count_from_env();
    uint64_t x = 0x2545F4914F6CDD1Dull;
    int races = 0, viols = 0, wf_bad = 0, hb_only_lockset = 0;
    uint64_t events = 0, syms = 0;
    for (int k = 0; k < count && !test_case_failed; k++) {
        tr_trace t;
        int len = 4 + (int)(rnd(&x) % (uint64_t)(len_from_env() - 4));
        int guard = k % 4 == 0 ? 100 : k % 4 == 1 ? 95 : k % 4 == 2 ? 70 : 0;
        gen(&x, &t, len, guard);
        events += t.n;
        uint64_t pos;
        char why[200];
        if (tr_check_wellformed(&t, &pos, why, sizeof why) != TR_WF_OK) {
            fprintf(stderr, "trace %d not well-formed: %s\n", k, why);
            wf_bad++;
            CHECK(!"generator made a bad trace");
        }
        tr_race vc, gl;
        tr_violation er;
        bool *vv = calloc(t.names.vars.n + 1, sizeof *vv);
        uint32_t *st = tr_vc_stamps(&t);
        CHECK(st != NULL);
        CHECK(tr_race_vc(&t, &vc));
        CHECK(tr_race_goldilocks(&t, &gl));
        CHECK(tr_lockset(&t, &er));
        CHECK(tr_lockset_vars(&t, vv));
        if (er.found) { /* the pair: accesses of the variable, in order */
            const tr_event *a = &t.ev[er.first], *b = &t.ev[er.second];
            CHECK(er.first < er.second && vv[er.var]);
            CHECK(a->obj == er.var && b->obj == er.var);
            CHECK((a->op == TR_READ || a->op == TR_WRITE) && (b->op == TR_READ || b->op == TR_WRITE));
        }
        CHECK_EQ_INT(vc.found, gl.found);
        if (vc.found) {
            CHECK(vc.first < vc.second && tr_vc_races(&t, st, vc.first, vc.second));
            CHECK(gl.first < gl.second && tr_vc_races(&t, st, gl.first, gl.second));
        }
        races += vc.found;
        viols += er.found;
        hb_only_lockset += er.found && !vc.found;
        tr_slp g[3];
        bool built[3];
        built[0] = compress(&t, &g[0]);
        built[1] = tr_slp_comb(&t, &g[1]);
        built[2] = tr_slp_random(&t, (uint64_t)k * 7919 + 1, &g[2]);
        for (int j = 0; j < 3; j++) {
            CHECK(built[j]);
            if (!built[j]) continue;
            if (j == 0) syms += g[0].body[g[0].nrules];
            if (j == 2) { /* the stream analyses walking a grammar: the same answers */
                tr_race a, b;
                tr_violation c;
                CHECK(tr_race_vc_slp(&g[j], &a) && tr_race_goldilocks_slp(&g[j], &b) &&
                      tr_lockset_slp(&g[j], &c));
                CHECK(a.found == vc.found && a.first == vc.first && a.second == vc.second);
                CHECK(b.found == gl.found && b.first == gl.first && b.second == gl.second);
                CHECK(c.found == er.found && c.var == er.var && c.first == er.first &&
                      c.second == er.second);
            }
            tr_race r;
            tr_violation v;
            CHECK(tr_slp_race(&g[j], &r));
            CHECK(tr_slp_lockset(&g[j], &v));
            if (r.found != vc.found || v.found != er.found) {
                fprintf(stderr, "trace %d, grammar %d: race %d (oracle %d), lockset %d (oracle %d)\n",
                        k, j, r.found, vc.found, v.found, er.found);
                CHECK(!"verdicts differ");
            }
            if (r.found && !(r.first < r.second && tr_vc_races(&t, st, r.first, r.second))) {
                fprintf(stderr, "trace %d, grammar %d: witness %llu %llu is no race\n", k, j,
                        (unsigned long long)r.first, (unsigned long long)r.second);
                CHECK(!"witness");
            }
            if (v.found) {
                /* the grammar names Eraser's pair, exactly */
                CHECK(v.var < t.names.vars.n && vv[v.var]);
                CHECK(v.var == er.var && v.first == er.first && v.second == er.second);
            }
            tr_slp_free(&g[j]);
        }
        free(st);
        free(vv);
        tr_trace_free(&t);
    }
    printf("differential: %d traces, %llu events (Sequitur: %llu symbols), %d racy, %d lockset "
           "violations (%d of them race-free)\n",
           count, (unsigned long long)events, (unsigned long long)syms, races, viols, hb_only_lockset);
    CHECK(races > count / 10 && races < count - count / 10);
    CHECK(hb_only_lockset > 0);
    CHECK_EQ_INT(wf_bad, 0);
}

/* ---- exponential grammars ------------------------------------------------------------------ */

/* A0 (the events of t in order) and A(i+1) -> A(i) A(i) up to A60; rule 0
 * is S -> A60 [tail...]; rule k is A(60-k+1) for k = 1..60, the last, A0,
 * is S's own terminals when tail_rule is false. Returns rule numbers via
 * a hand layout: S, A60, ..., A1, A0, [T]. */
static void exp_grammar(const tr_trace *t, uint64_t n0, bool tail, tr_slp *g)
{
    /* rules: 0 = S, 1..60 = A60..A1, 61 = A0, 62 = T (events n0..t->n) */
    const int nr = tail ? 63 : 62;
    char **rules = malloc((size_t)nr * sizeof *rules);
    for (int r = 0; r < nr; r++) rules[r] = malloc(1024);
    snprintf(rules[0], 1024, tail ? "S -> A60 T" : "S -> A60 A60");
    for (int i = 60; i >= 1; i--) snprintf(rules[61 - i], 1024, "A%d -> A%d A%d", i, i - 1, i - 1);
    int p = snprintf(rules[61], 1024, "A0 ->");
    for (uint64_t i = 0; i < n0; i++) p += snprintf(rules[61] + p, (size_t)(1024 - p), " e%llu", (unsigned long long)i + 1);
    if (tail) {
        p = snprintf(rules[62], 1024, "T ->");
        for (uint64_t i = n0; i < t->n; i++)
            p += snprintf(rules[62] + p, (size_t)(1024 - p), " e%llu", (unsigned long long)i + 1);
    }
    CHECK(slp_by_hand(t, (const char *const *)rules, nr, g));
    for (int r = 0; r < nr; r++) free(rules[r]);
    free(rules);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A0 = a critical section of t1 then one of t2 (read and write x under l):
 * 2^61 * 8 = 2^64 would overflow, so S -> A60 A60 is 2^64 events: the
 * lengths saturate; S -> A60 T has 2^63 + |T|. */
void exponential_grammars(void)
{
    tr_trace t;
    memset(&t, 0, sizeof t);
    const char *th[2] = {"t1", "t2"};
    for (int i = 0; i < 2; i++) {
        ev(&t, th[i], TR_ACQ, "l");
        ev(&t, th[i], TR_READ, "x");
        ev(&t, th[i], TR_WRITE, "x");
        ev(&t, th[i], TR_REL, "l");
    }
    tr_slp g;
    exp_grammar(&t, 8, false, &g);
    uint64_t len[62];
    CHECK(tr_slp_lengths(&g, len));
    CHECK(len[1] == 8ull << 60);       /* A60 */
    CHECK(len[0] == UINT64_MAX);        /* 2^64 saturates */
    double t0 = now();
    tr_race r;
    tr_violation v;
    CHECK(tr_slp_race(&g, &r) && !r.found);
    CHECK(tr_slp_lockset(&g, &v) && !v.found);
    double dt = now() - t0;
    printf("exponential: 2^64 events (62 rules), race-free and no violation in %.0f us\n", dt * 1e6);
    CHECK(dt < 5.0); /* a loose sanity bound, not a timing assertion */
    uint64_t pos;
    char why[200];
    t0 = now();
    CHECK_EQ_INT(tr_slp_check(&g, &pos, why, sizeof why), TR_WF_OK);
    printf("exponential: well-formed (from the summaries) in %.0f us\n", (now() - t0) * 1e6);
    tr_slp_free(&g);

    /* S -> A60 T, T = t3 writes x with no lock: the race is the last write
     * of A60 (offset 2^63 - 2) against T's first event (2^63) */
    ev(&t, "t3", TR_WRITE, "x");
    ev(&t, "t3", TR_READ, "x");
    exp_grammar(&t, 8, true, &g);
    CHECK(tr_slp_race(&g, &r) && r.found);
    CHECK(r.first == (1ull << 63) - 2);
    CHECK(r.second == 1ull << 63);
    /* Eraser's report point is T's write (no lock, where x had l); the
     * first read of x, at position 1, already shares nothing with it */
    t0 = now();
    CHECK(tr_slp_lockset(&g, &v) && v.found && v.var == 0);
    CHECK(v.first == 1 && v.second == 1ull << 63);
    printf("exponential lockset: witness (1, 2^63) in %.0f us\n", (now() - t0) * 1e6);
    CHECK_EQ_INT(tr_slp_check(&g, &pos, why, sizeof why), TR_WF_OK);
    tr_slp_free(&g);
    tr_trace_free(&t);

    /* A0 = t1 acquires l (and keeps it) and writes x: A60 leaves t1 at depth
     * 2^60; T = t2 acquires l at 2^61: bad, found from the summaries, too
     * far for the walk that names the event */
    memset(&t, 0, sizeof t);
    ev(&t, "t1", TR_ACQ, "l");
    ev(&t, "t1", TR_WRITE, "x");
    ev(&t, "t2", TR_ACQ, "l");
    ev(&t, "t2", TR_WRITE, "x");
    exp_grammar(&t, 2, true, &g);
    CHECK_EQ_INT(tr_wf_summary_ok(&g), 0);
    uint64_t saved = tr_wf_locate_max;
    tr_wf_locate_max = 100000; /* the default, 10^8, takes seconds under ASan */
    CHECK_EQ_INT(tr_slp_check(&g, &pos, why, sizeof why), TR_WF_BAD);
    tr_wf_locate_max = saved;
    CHECK(pos == UINT64_MAX);
    CHECK_CONTAINS(why, "its first offending event lies beyond event 100000");
    tr_slp_free(&g);
    tr_trace_free(&t);
}

/* A0 with one unprotected write: t1 writes y outside its critical section,
 * t2 reads y inside its own; within A0 the lock orders them (t1's release
 * comes after the write), but A1 = A0 A0 puts t2's read (offset 7) before
 * t1's next write (offset 8) with nothing between: the race is (7, 8). */
void exponential_racy(void)
{
    tr_trace t;
    memset(&t, 0, sizeof t);
    ev(&t, "t1", TR_WRITE, "y"); /* 0: unprotected */
    ev(&t, "t1", TR_ACQ, "l");   /* 1 */
    ev(&t, "t1", TR_WRITE, "x"); /* 2 */
    ev(&t, "t1", TR_REL, "l");   /* 3 */
    ev(&t, "t2", TR_ACQ, "l");   /* 4 */
    ev(&t, "t2", TR_WRITE, "x"); /* 5 */
    ev(&t, "t2", TR_REL, "l");   /* 6 */
    ev(&t, "t2", TR_READ, "y");  /* 7 */
    tr_slp g;
    exp_grammar(&t, 8, false, &g);
    tr_race r;
    tr_violation v;
    double t0 = now();
    CHECK(tr_slp_race(&g, &r) && r.found);
    CHECK_EQ_INT(r.first, 7);
    CHECK_EQ_INT(r.second, 8);
    CHECK(tr_slp_lockset(&g, &v) && v.found);
    CHECK_EQ_INT(v.var, 0); /* y was interned first */
    printf("exponential racy: witness (%llu, %llu) in %.0f us\n", (unsigned long long)r.first,
           (unsigned long long)r.second, (now() - t0) * 1e6);
    /* the oracles on A1 = A0 A0 say the same */
    tr_trace a1;
    memset(&a1, 0, sizeof a1);
    CHECK(tr_names_copy(&t.names, &a1.names));
    for (int k = 0; k < 2; k++)
        for (uint64_t i = 0; i < t.n; i++) CHECK(tr_push(&a1, t.ev[i]));
    tr_race o;
    CHECK(tr_race_vc(&a1, &o) && o.found && o.first == 7 && o.second == 8);
    CHECK(tr_race_goldilocks(&a1, &o) && o.found && o.first == 7 && o.second == 8);
    tr_trace_free(&a1);
    tr_slp_free(&g);
    tr_trace_free(&t);
}

/* The well-formedness verdict from per-rule summaries (tr_slp_check)
 * against the stream check, on random traces and on copies broken at
 * random (an event moved to another thread, duplicated, dropped, or its
 * object changed), each under the three grammars. */
void wellformed_differential(void)
{
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int count = count_from_env() / 3, bad = 0;
    for (int k = 0; k < count && !test_case_failed; k++) {
        tr_trace t, u;
        gen(&x, &t, 4 + (int)(rnd(&x) % 60), k % 2 ? 90 : 0);
        memset(&u, 0, sizeof u);
        CHECK(tr_names_copy(&t.names, &u.names));
        int edits = (int)(rnd(&x) % 3);
        for (uint64_t i = 0; i < t.n; i++) {
            tr_event e = t.ev[i];
            if (edits && rnd(&x) % t.n == 0) {
                edits--;
                switch (rnd(&x) % 4) {
                case 0:
                    e.thread = (uint32_t)(rnd(&x) % t.names.threads.n);
                    break;
                case 1:
                    CHECK(tr_push(&u, e));
                    break;
                case 2:
                    continue;
                default:
                    if (e.op == TR_FORK || e.op == TR_JOIN)
                        e.obj = (uint32_t)(rnd(&x) % t.names.threads.n);
                    else if (e.op == TR_ACQ || e.op == TR_REL)
                        e.op = e.op == TR_ACQ ? TR_REL : TR_ACQ;
                    break;
                }
            }
            CHECK(tr_push(&u, e));
        }
        uint64_t pos, pos2;
        char why[200], why2[200];
        tr_wf want = tr_check_wellformed(&u, &pos, why, sizeof why);
        bad += want == TR_WF_BAD;
        tr_slp g[3];
        bool built[3] = {compress(&u, &g[0]), tr_slp_comb(&u, &g[1]),
                         tr_slp_random(&u, (uint64_t)k, &g[2])};
        for (int j = 0; j < 3; j++) {
            CHECK(built[j]);
            if (!built[j]) continue;
            int s = tr_wf_summary_ok(&g[j]);
            if (s != (want == TR_WF_OK)) {
                fprintf(stderr, "trace %d grammar %d: summary %d, stream %d (%s)\n", k, j, s, want,
                        want == TR_WF_BAD ? why : "");
                CHECK(!"well-formedness verdicts differ");
            }
            if (u.n) {
                CHECK_EQ_INT(tr_slp_check(&g[j], &pos2, why2, sizeof why2), want);
                if (want == TR_WF_BAD) CHECK(pos2 == pos && !strcmp(why, why2));
            }
            tr_slp_free(&g[j]);
        }
        tr_trace_free(&u);
        tr_trace_free(&t);
    }
    printf("well-formedness: %d traces, %d of them bad\n", count, bad);
    CHECK(bad > count / 10 && bad < count - count / 10);
}

/* A left comb of 120,000 events is 120,000 rules deep: every traversal
 * (lengths, first positions, the walk, both analyses, the well-formedness
 * summaries) is iterative, so none overflows the stack. */
void deep_comb(void)
{
    tr_trace t;
    memset(&t, 0, sizeof t);
    const char *th[2] = {"t1", "t2"};
    for (int i = 0; i < 20000; i++) {
        ev(&t, th[i % 2], TR_ACQ, "l");
        ev(&t, th[i % 2], TR_READ, "x");
        ev(&t, th[i % 2], TR_WRITE, "x");
        ev(&t, th[i % 2], TR_REL, "l");
        ev(&t, th[i % 2], TR_WRITE, i % 2 ? "y" : "z");
        ev(&t, th[i % 2], TR_READ, "w");
    }
    tr_slp g;
    CHECK(tr_slp_comb(&t, &g));
    CHECK_EQ_INT(g.nrules, t.n - 1);
    tr_race r;
    tr_violation v;
    uint64_t pos;
    char why[200];
    CHECK(tr_slp_race(&g, &r) && !r.found);
    CHECK(tr_slp_lockset(&g, &v) && !v.found);
    CHECK_EQ_INT(tr_slp_check(&g, &pos, why, sizeof why), TR_WF_OK);
    tr_trace e;
    CHECK(slp_expand(&g, &e) && e.n == t.n);
    tr_trace_free(&e);
    tr_slp_free(&g);
    /* a race at the very end: t2 writes z unprotected */
    ev(&t, "t2", TR_WRITE, "z");
    CHECK(tr_slp_comb(&t, &g));
    CHECK(tr_slp_race(&g, &r) && r.found);
    CHECK_EQ_INT(r.second, t.n - 1);
    CHECK_EQ_INT(r.first, t.n - 1 - 8); /* t1's last write of z, in its last block */
    tr_slp_free(&g);
    tr_trace_free(&t);
}
