/* gen_model.c: random, small, lock-disciplined models for the differential
 * test of the lock-based reduction (tests/differential/differential.py), and with
 * --undisciplined models that may break the discipline (tests/differential/theorem9.py).
 *
 *   gen_model SEED [--size small|medium] [--undisciplined] [--volatile] [--spawns]
 *
 * prints one model in the language of LANGUAGE.md, a pure function of the
 * seed (own splitmix64 generator, no rand()). Every `shared` element is only
 * ever touched while its one designated lock element is held (or is read-only,
 * or belongs to an `init` phase that ends before any other thread can touch
 * it), so
 * LD' holds and Stoller's Theorems 4 and 5 promise that the reduced search
 * finds the same visible states, deadlocks and errors as the full one. The
 * models mix 2-4 bodies (thread arrays of 2 or 3, `main` spawning and
 * joining one or two procs, a proc spawning and joining a helper), scalar
 * and array locks with computed indexes, nested and recursive acquires (lock
 * orders may be opposite, so deadlocks happen), volatile variables, `init
 * main` variables, `init T` variables published by T through a volatile flag,
 * `choose`, Java-monitor wait/notify in a re-checking loop
 * (at depth 2 now and then, chained: woken, then notifying another monitor),
 * channels of capacity 1-4, every arithmetic and comparison operation, asserts
 * that may fail, rare runtime errors, end labels, bounded loops, and now and
 * then a body that ends in a loop that never ends (emit_forever: a cycle of
 * the state graph, for --por's cycle provisos). Every loop is counted,
 * blocks/spins on a visible operation or runs forever through one, and every
 * value is reduced modulo a small number, so the state space is finite and
 * small.
 *
 * The spelling varies too (LANGUAGE.md, "Declarations"): consecutive
 * declarations of one keyword share a line as a comma list, and constants
 * (array sizes, initializers, proc maxima, instruction operands) are now and
 * then written as constant expressions (+ - * / % ( ), unary minus) over
 * consts D0 .. that are defined from each other, in shuffled order, some
 * after the bodies that use them. These choices come from a second
 * generator (srnd(), ex()), so every value and every line of code, and so
 * the meaning of each seed's model, are what plain numbers gave.
 *
 * With --volatile (tests/differential/test_races.py) the models are volatile-heavy: `v`
 * and `va` always exist, volatile traffic replaces some other pieces, and
 * guarded variables without an `init` clause are declared volatile (still
 * accessed under their locks). Without it no extra random number is drawn.
 *
 * With --spawns (tests/differential/differential.py, theorem9.py, test_stateless.py,
 * test_races.py on a share of their seeds) the models are spawn-heavy: two
 * static threads (main, t1; with --size medium now and then t2 too) each
 * spawn and join a proc of their own (worker, helper, aux; now and then two
 * instances, or a chain: a proc spawning a proc `sub`), maybe after a piece
 * of work; the size limit is a third of the usual (more threads). Thread
 * ids come from one counter (LANGUAGE.md), so the order in which different
 * threads spawn different procs decides which child gets which id: the
 * spawners now and then assert on an id a spawn returned, branch on it or
 * store it (under its lock), and the children use `tid` in lock and array
 * indexes, in stored values and in assertions. What a reduction that takes
 * spawns of different procs for independent gets wrong (tests/mutate.py's
 * por-spawn-per-proc). Without the option no extra random number is drawn,
 * so every seed's model is what it was.
 *
 * With --undisciplined (tests/differential/theorem9.py, Stoller's Theorem 9) the model
 * breaks LD' now and then, at a rate drawn per model: accesses without the
 * guard or under another lock (maybe only on one branch of a choose or of a
 * volatile test), a lock taken on one branch only, an access after the
 * release, a write to a read-only variable or after an `init` phase, an
 * `init T` variable that another thread may reach first, an unshared
 * variable touched by a second body. These models have no rare runtime
 * errors: the only runtime_error is the unshared violation, and assertions
 * are the only errors other than violations that end a path. Without the
 * option no extra random number is drawn, so the disciplined model of every
 * seed is unchanged.
 *
 * It never generates assembly errors: a model that does not assemble is a
 * generator bug.
 *
 * Adding a language feature (keep the random models covering the language;
 * tests/README.md has the whole checklist):
 *  1. write it in a piece (emit_* below, called from piece(), cs_contents()
 *     or a body role in gen_body()) or a declaration (plan(), print_model());
 *     keep the model disciplined (shared accesses under their guard), finite
 *     (values reduced modulo something, loops counted) and free of runtime
 *     errors unless it is a hazard (emit_hazard, never with --undisciplined);
 *  2. draw every choice through rnd()/chance() (deterministic per seed;
 *     srnd() for a choice of spelling only, never of meaning); in
 *     --undisciplined-only code draw through brk() or under g->undisc, so the
 *     disciplined model of each seed does not depend on the option;
 *  3. add the construct to checks.py (constructs(), COVERAGE): the
 *     differential test prints it per 1000 seeds and fails if it never shows;
 *  4. run differential.py and theorem9.py (they run tests/ref/refcheck.py on
 *     the small models: if refcheck lacks the feature, add it there first). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output buffer ------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) abort();
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 1024;
        while (nc < b->n + (size_t)k + 1) nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            fprintf(stderr, "gen_model: out of memory\n");
            exit(1);
        }
        b->s = ns;
        b->cap = nc;
    }
}

/* ---- model ------------------------------------------------------------- */

enum { MAX_LOCKS = 4, MAX_VARS = 24, MAX_BODIES = 8, MAX_MON = 2, MAX_CHANS = 2, MAX_HELD = 3 };

/* V_PUB: the volatile flag by which the `init T` thread publishes its
 * variables (no other piece touches it) */
enum vclass { V_SHARED, V_VOLATILE, V_UNSHARED, V_READONLY, V_INITMAIN, V_INIT, V_PUB };

typedef struct lockdecl {
    char name[8];
    int size; /* 0: scalar */
} lockdecl;

typedef struct var {
    char name[8];
    int size;          /* 0: scalar */
    enum vclass cls;
    int guard;         /* shared: lock declaration */
    int guard_elem;    /* element of an array lock, or -1: element i of the
                          variable is guarded by element i of the lock */
    int mod;           /* values stay within (-mod, mod) */
    int twin;          /* a variable kept equal to this one, or -1 */
    int owner;         /* unshared: the only body that touches it */
    int intruder;      /* unshared, --undisciplined: a body that touches it too, or -1 */
    int init_body;     /* V_INIT (--undisciplined): the `init T` body */
    bool is_flag;      /* condition flag of a monitor */
    bool init_main;    /* V_SHARED: `init main`, main stores it unlocked before spawning */
    int init_by;       /* V_SHARED: `init T` for a static thread T that stores it
                          unlocked, then raises the V_PUB flag every other
                          thread waits for first; or -1 */
} var;

typedef struct monitor {
    int lock, elem;    /* monitor lock element (elem 0 for a scalar lock) */
    int flag;          /* var: the condition */
    int waiter, notifier; /* bodies */
    bool consume;      /* the waiter resets the flag */
    bool counting;     /* notifier increments; waiter waits for >= 1 */
    int after;         /* a chain: the notifier notifies after its wait on monitor
                          `after` returns (its body waits there first), or -1 */
} monitor;

typedef struct chan {
    char name[8];
    int cap;
    int sender, receiver; /* bodies */
    int nmsg;             /* messages per role execution */
    bool server;          /* receiver is an endless server at an end label */
} chan;

typedef struct body {
    char name[12];
    int count;   /* instances (thread) or max (proc) */
    bool proc;
    bool is_array;
    int spawner;   /* proc: the body whose every instance spawns it */
    int per_spawn; /* proc: instances each spawner instance spawns (and joins) */
    sbuf code;
    double weight; /* code lines, each times the iterations around it */
} body;

typedef struct held {
    int decl;
    char idx[16]; /* index operand as written ("" for a scalar lock) */
    int elem;     /* static element, or -1 when computed at run time */
    bool skipped; /* --undisciplined: taken on one branch only */
} held;

typedef struct gen {
    uint64_t rng;
    bool medium;
    lockdecl locks[MAX_LOCKS];
    int nlocks;
    var vars[MAX_VARS];
    int nvars;
    monitor mons[MAX_MON];
    int nmons;
    chan chans[MAX_CHANS];
    int nchans;
    body bodies[MAX_BODIES];
    int nbodies;
    bool spawns;   /* body 0 (`main`) spawns procs (which may spawn procs) */
    int pub;       /* the V_PUB variable, or -1 */
    bool hazard;   /* one piece that may raise a runtime error */
    bool has_k;    /* `const K` declared (the arithmetic loop uses it) */
    int kval;
    int joiner, join_tid; /* body that joins static thread join_tid, or -1 */
    int leaker;           /* body that ends holding a lock, or -1 */
    bool undisc;          /* --undisciplined: break LD' now and then */
    bool vol;             /* --volatile: volatile-heavy (tests/differential/test_races.py) */
    bool sp;              /* --spawns: several static threads spawn procs of their own */
    /* spelling only (comma lists, constant expressions): a second generator,
     * so these choices never change what a seed's model means */
    uint64_t srng;
    int exrate;           /* percent of the constants written as expressions */
    int nconst;           /* consts D0 .. of the expressions */
    int cval[4];
    int brk;              /* how often (percent of the nominal rates) */
    /* code generation */
    int cur;       /* body being written */
    sbuf *out;
    int label;
    held h[MAX_HELD];
    int nh;
    int loopdepth;
    double est;    /* size estimate of the model */
    double mult;   /* iterations of the loops around the code being emitted */
} gen;

static uint64_t next_u64(gen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rnd(gen *g, int n) /* 0 .. n-1 */
{
    return (int)(next_u64(g) % (uint64_t)n);
}

static int between(gen *g, int lo, int hi)
{
    return lo + rnd(g, hi - lo + 1);
}

static bool chance(gen *g, int pct)
{
    return rnd(g, 100) < pct;
}

/* The spelling generator (g->srng): which declarations share a line and
 * which constants are written as expressions. A separate stream, so the
 * values and the code of every seed's model are what plain numbers gave. */
static int srnd(gen *g, int n)
{
    uint64_t z = (g->srng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (int)((z ^ (z >> 31)) % (uint64_t)n);
}

/* The value v written as a constant expression (or plainly): sums,
 * products, / and % on non-negative operands, unary minus, parentheses and
 * the consts D0 .. (defined in print_model, some from others, some after
 * the bodies that use them). The returned text lives until 16 more calls. */
static const char *ex(gen *g, int v)
{
    static char ring[16][64];
    static int k;
    char *b = ring[k++ % 16];
    if (srnd(g, 100) >= g->exrate) {
        snprintf(b, 64, "%d", v);
        return b;
    }
    if (v < 0) {
        int a = -v;
        const char *in = ex(g, a);
        snprintf(ring[k % 16], 64, "-(%s)", in);
        return ring[k++ % 16];
    }
    int f = srnd(g, 6);
    if (f <= 1) { /* a const, maybe new: Dc, Dc+d, Dc-d, 2*Dc-d */
        int c = g->nconst < 4 && (g->nconst == 0 || srnd(g, 3) == 0) ? g->nconst++ : srnd(g, g->nconst);
        if (!g->cval[c]) g->cval[c] = 1 + srnd(g, 4);
        int cv = g->cval[c];
        if (f == 1) {
            int d = 2 * cv - v;
            if (d > 0) snprintf(b, 64, "2*D%d-%d", c, d);
            else if (d < 0) snprintf(b, 64, "D%d*2+%d", c, -d);
            else snprintf(b, 64, "(D%d+D%d)", c, c);
        } else if (v > cv) {
            snprintf(b, 64, "D%d+%d", c, v - cv);
        } else if (v < cv) {
            snprintf(b, 64, "(D%d-%d)", c, cv - v);
        } else {
            snprintf(b, 64, "D%d", c);
        }
    } else if (f == 2) {
        int a = srnd(g, v + 1);
        snprintf(b, 64, "%d+%d", a, v - a);
    } else if (f == 3) {
        int m = 2 + srnd(g, 2), a = v / m + 1;
        snprintf(b, 64, "%d*%d-%d", a, m, a * m - v);
    } else if (f == 4) {
        snprintf(b, 64, "(%d*3+%d)/3", v, srnd(g, 3));
    } else {
        int m = v + 1 + srnd(g, 3);
        snprintf(b, 64, "(%d+%d)%%%d", v, m * (1 + srnd(g, 2)), m);
    }
    return b;
}

/* --undisciplined only: a chance to break LD' here (pct scaled by the
 * model's intensity). Without the option it draws nothing, so the
 * disciplined models stay what they were for every seed. */
static bool brk(gen *g, int pct)
{
    if (!g->undisc) return false;
    return rnd(g, 100) * 100 < pct * g->brk;
}

/* Emit code; every line counts `mult` (the iterations of the loops around
 * it) towards the size estimate of the body. */
static void emit(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define EMIT(...) emit(g, __VA_ARGS__)

static void emit(gen *g, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sb_printf(g->out, "%s", buf);
    for (const char *c = buf; *c; c++)
        if (*c == '\n') g->bodies[g->cur].weight += g->mult;
}

static int new_label(gen *g)
{
    return ++g->label;
}

/* ---- declarations -------------------------------------------------------- */

static int add_lock(gen *g, int size)
{
    lockdecl *l = &g->locks[g->nlocks];
    if (size)
        snprintf(l->name, sizeof l->name, "la%d", g->nlocks);
    else
        snprintf(l->name, sizeof l->name, "m%d", g->nlocks);
    l->size = size;
    return g->nlocks++;
}

static int add_var(gen *g, const char *prefix, enum vclass cls, int size)
{
    var *v = &g->vars[g->nvars];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s%d", prefix, g->nvars);
    v->cls = cls;
    v->size = size;
    v->guard = -1;
    v->guard_elem = 0;
    v->twin = -1;
    v->owner = -1;
    v->intruder = -1;
    v->init_body = -1;
    v->init_by = -1;
    v->mod = between(g, 2, 4);
    return g->nvars++;
}

/* A random lock element for a scalar guard: (decl, elem). */
static void pick_static_lock(gen *g, int *decl, int *elem)
{
    *decl = rnd(g, g->nlocks);
    *elem = g->locks[*decl].size ? rnd(g, g->locks[*decl].size) : 0;
}

static int instances(const gen *g, int b)
{
    const body *bd = &g->bodies[b];
    if (bd->proc) return bd->per_spawn * instances(g, bd->spawner);
    return bd->count;
}

static int total_instances(const gen *g)
{
    int n = 0;
    for (int b = 0; b < g->nbodies; b++) n += instances(g, b);
    return n;
}

/* A proc spawned by every instance of `spawner`, `per` instances each; its
 * max is what a run needs, now and then one more. */
static int add_proc(gen *g, const char *name, int spawner, int per)
{
    body *b = &g->bodies[g->nbodies];
    snprintf(b->name, sizeof b->name, "%s", name);
    b->proc = true;
    b->spawner = spawner;
    b->per_spawn = per;
    b->count = instances(g, g->nbodies) + (chance(g, 30) ? 1 : 0);
    return g->nbodies++;
}

/* --spawns: two or three static threads (main, t1, maybe t2), each
 * spawning (and joining) instances of a proc of its own (worker, helper,
 * aux), maybe a chain (a proc spawning `sub`). Draws only with the option. */
static void plan_spawners(gen *g)
{
    static const char *tn[] = {"main", "t1", "t2"}, *pn[] = {"worker", "helper", "aux"};
    int nst = g->medium && chance(g, 25) ? 3 : 2; /* six threads: medium only */
    for (int i = 0; i < nst; i++) {
        body *b = &g->bodies[g->nbodies++];
        snprintf(b->name, sizeof b->name, "%s", tn[i]);
        b->count = 1;
    }
    g->spawns = true; /* main (body 0) spawns */
    /* at most five threads in all: one spawner may spawn two, or a child one */
    int two = nst == 2 && chance(g, 35) ? rnd(g, 3) : -1;
    for (int i = 0; i < nst; i++) add_proc(g, pn[i], i, i == two ? 2 : 1);
    if (two == 2) add_proc(g, "sub", nst + rnd(g, nst), 1);
}

/* The threads the model's spawns create (the spawn slots a run uses), and
 * the static threads: spawned ids are nstatic .. nstatic + nspawned - 1. */
static int nspawned(const gen *g)
{
    int n = 0;
    for (int b = 0; b < g->nbodies; b++)
        if (g->bodies[b].proc) n += instances(g, b);
    return n;
}

static int nstatic(const gen *g)
{
    int n = 0;
    for (int b = 0; b < g->nbodies; b++)
        if (!g->bodies[b].proc) n += g->bodies[b].count;
    return n;
}

/* Body b is main or a descendant of main's spawns (cfg, which main
 * initializes before it spawns, is theirs to read). */
static bool from_main(const gen *g, int b)
{
    while (g->bodies[b].proc) b = g->bodies[b].spawner;
    return b == 0;
}

/* --undisciplined: the model's intensity, and globals made to be misused:
 * an `init T` variable whose first access may be made by another thread, a
 * read-only variable that may be written, an unshared variable that a
 * second body may touch. */
static void plan_undisc(gen *g)
{
    static const int level[] = {50, 120, 250};
    g->brk = level[rnd(g, 3)];
    if (brk(g, 40)) {
        int v = add_var(g, "ci", V_INIT, chance(g, 25) ? 2 : 0);
        g->vars[v].init_body = rnd(g, g->nbodies);
    }
    if (brk(g, 25)) add_var(g, "ro", V_READONLY, 0);
    if (brk(g, 40)) {
        int v = add_var(g, "u", V_UNSHARED, chance(g, 30) ? 2 : 0);
        g->vars[v].owner = rnd(g, g->nbodies); /* an array body: two owners */
    }
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].cls == V_UNSHARED && brk(g, 70)) g->vars[i].intruder = rnd(g, g->nbodies);
    /* No division by zero and the like: the unshared violation stays the
     * only runtime_error (a test can tell it by its kind), and assertions
     * the only errors besides violations that end a path (a test can take
     * them out; see tests/differential/theorem9.py). */
    g->hazard = false;
}

static void plan(gen *g)
{
    /* threads */
    int shape = g->sp ? -1 : rnd(g, 10);
    if (shape < 0) { /* --spawns */
        plan_spawners(g);
    } else if (shape < 3) { /* 2-3 plain threads */
        int n = chance(g, 65) ? 2 : 3;
        for (int i = 0; i < n; i++) {
            body *b = &g->bodies[g->nbodies++];
            snprintf(b->name, sizeof b->name, "t%d", i);
            b->count = 1;
        }
    } else if (shape < 6) { /* thread w[2] or w[3] (+ one more) */
        body *b = &g->bodies[g->nbodies++];
        snprintf(b->name, sizeof b->name, "w");
        b->count = chance(g, 30) ? 3 : 2;
        b->is_array = true;
        if (b->count == 2 && chance(g, 50)) {
            b = &g->bodies[g->nbodies++];
            snprintf(b->name, sizeof b->name, "t1");
            b->count = 1;
        }
    } else { /* main spawns and joins procs (+ maybe one static thread) */
        body *b = &g->bodies[g->nbodies++];
        snprintf(b->name, sizeof b->name, "main");
        b->count = 1;
        g->spawns = true;
        int kind = rnd(g, 3);
        if (chance(g, kind ? 25 : 40)) {
            b = &g->bodies[g->nbodies++];
            snprintf(b->name, sizeof b->name, "t1");
            b->count = 1;
        }
        bool alone = g->nbodies == 1;
        if (kind == 0) { /* worker x1-2 */
            add_proc(g, "worker", 0, (alone && chance(g, 50)) ? 2 : 1);
        } else if (kind == 1) { /* two procs, both spawned by main */
            add_proc(g, "worker", 0, 1);
            add_proc(g, "helper", 0, 1);
        } else { /* a chain: main spawns worker(s), each spawns and joins a helper */
            int w = add_proc(g, "worker", 0, (alone && chance(g, 30)) ? 2 : 1);
            add_proc(g, "helper", w, 1);
        }
    }

    /* locks: 1-3 declarations, maybe one array */
    int nl = between(g, 1, 3);
    bool arr = chance(g, 45);
    for (int i = 0; i < nl; i++) add_lock(g, (arr && i == nl - 1) ? between(g, 2, 3) : 0);

    /* shared scalars, each with one designated lock element */
    int ns = between(g, 1, g->medium ? 3 : 2);
    for (int i = 0; i < ns; i++) {
        int v = add_var(g, "x", V_SHARED, 0);
        pick_static_lock(g, &g->vars[v].guard, &g->vars[v].guard_elem);
    }
    /* an invariant pair: two scalars under one lock, updated together */
    if (chance(g, 35)) {
        int a = add_var(g, "p", V_SHARED, 0), b = add_var(g, "q", V_SHARED, 0);
        pick_static_lock(g, &g->vars[a].guard, &g->vars[a].guard_elem);
        g->vars[b].guard = g->vars[a].guard;
        g->vars[b].guard_elem = g->vars[a].guard_elem;
        g->vars[b].mod = g->vars[a].mod;
        g->vars[a].twin = b;
        g->vars[b].twin = a;
    }
    /* shared arrays: guarded as a whole, or element-wise by an array lock */
    if (chance(g, 55)) {
        int la = -1;
        for (int i = 0; i < g->nlocks; i++)
            if (g->locks[i].size) la = i;
        if (la >= 0 && chance(g, 65)) {
            int v = add_var(g, "a", V_SHARED, g->locks[la].size);
            g->vars[v].guard = la;
            g->vars[v].guard_elem = -1;
        } else {
            int v = add_var(g, "a", V_SHARED, between(g, 2, 3));
            pick_static_lock(g, &g->vars[v].guard, &g->vars[v].guard_elem);
        }
    }
    /* volatile */
    if (chance(g, 55) || g->vol) add_var(g, "v", V_VOLATILE, 0);
    if (chance(g, 20) || g->vol) add_var(g, "va", V_VOLATILE, 2);
    /* read-only shared */
    if (chance(g, 20)) add_var(g, "ro", V_READONLY, 0);
    /* written by main before any reader exists (init main) */
    if (g->spawns && chance(g, 35)) add_var(g, "cfg", V_INITMAIN, 0);
    /* a guarded variable that main initializes without its lock before it
     * spawns (`init main`), when no other static thread could touch it first */
    if (g->spawns && g->bodies[1].proc && chance(g, 45)) {
        int cand[MAX_VARS], n = 0;
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_SHARED && g->vars[i].twin < 0) cand[n++] = i;
        if (n) g->vars[cand[rnd(g, n)]].init_main = true;
    }
    /* unshared, owned by a single-instance body */
    if (chance(g, 20)) {
        int b = rnd(g, g->nbodies);
        if (instances(g, b) == 1) {
            int v = add_var(g, "u", V_UNSHARED, 0);
            g->vars[v].owner = b;
        }
    }

    /* monitors: a condition flag under a lock, one waiting body, one notifying */
    int nm = chance(g, 45) ? (chance(g, 35) ? 2 : 1) : 0;
    for (int i = 0; i < nm; i++) {
        monitor *m = &g->mons[g->nmons++];
        m->after = -1;
        pick_static_lock(g, &m->lock, &m->elem);
        m->flag = add_var(g, "f", V_SHARED, 0);
        g->vars[m->flag].guard = m->lock;
        g->vars[m->flag].guard_elem = m->elem;
        g->vars[m->flag].is_flag = true;
        m->waiter = rnd(g, g->nbodies);
        m->notifier = rnd(g, g->nbodies);
        if (m->notifier == m->waiter && instances(g, m->waiter) == 1 && chance(g, 85))
            m->notifier = (m->waiter + 1) % g->nbodies;
        m->consume = chance(g, 35);
        m->counting = chance(g, 30);
        /* a wait/notify chain: the waiter of the first monitor, once woken,
         * notifies the waiter of this one */
        if (i == 1 && chance(g, 60)) {
            m->notifier = g->mons[0].waiter;
            m->after = 0;
            if (m->waiter == m->notifier) m->waiter = (m->notifier + 1) % g->nbodies;
        }
    }
    /* channels */
    int nc = chance(g, 40) ? (chance(g, 20) ? 2 : 1) : 0;
    for (int i = 0; i < nc; i++) {
        chan *c = &g->chans[g->nchans];
        snprintf(c->name, sizeof c->name, "c%d", g->nchans);
        g->nchans++;
        c->cap = chance(g, 30) ? between(g, 3, 4) : between(g, 1, 2);
        c->sender = rnd(g, g->nbodies);
        c->receiver = rnd(g, g->nbodies);
        if (c->receiver == c->sender && chance(g, 85)) c->receiver = (c->sender + 1) % g->nbodies;
        c->nmsg = c->cap > 2 && chance(g, 50) ? 3 : between(g, 1, 2);
        if (c->receiver == c->sender && c->cap < c->nmsg) c->cap = c->nmsg; /* sends come first */
        c->server = c->receiver != c->sender && !g->bodies[c->receiver].proc && chance(g, 25);
    }
    g->hazard = chance(g, 6);
    /* a static thread joining another static thread by id */
    /* without spawns: a guarded variable that a single-instance thread T
     * initializes unlocked (`init T`) and publishes through a volatile flag
     * that every other thread spins on before anything else */
    g->pub = -1;
    if (!g->spawns && chance(g, 30)) {
        int cand[MAX_VARS], n = 0;
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_SHARED && g->vars[i].twin < 0 && !g->vars[i].is_flag)
                cand[n++] = i;
        int tb = rnd(g, g->nbodies);
        if (n && instances(g, tb) == 1) {
            g->vars[cand[rnd(g, n)]].init_by = tb;
            g->pub = add_var(g, "pub", V_PUB, 0);
        }
    }
    g->joiner = g->leaker = -1;
    if (chance(g, 15)) {
        int nstatic = 0;
        for (int b = 0; b < g->nbodies; b++)
            if (!g->bodies[b].proc) nstatic += g->bodies[b].count;
        int jb = rnd(g, g->nbodies), tid0 = 0;
        if (!g->bodies[jb].proc) {
            for (int b = 0; b < jb; b++) tid0 += g->bodies[b].count;
            int target = rnd(g, nstatic);
            if (target < tid0 || target >= tid0 + g->bodies[jb].count) {
                g->joiner = jb;
                g->join_tid = target;
            }
        }
    }
    if (chance(g, 6)) g->leaker = rnd(g, g->nbodies);
    g->has_k = chance(g, 30);
    g->kval = between(g, 1, 3);
    if (g->undisc) plan_undisc(g);
}

/* ---- operands ------------------------------------------------------------ */

/* Index register of lock nesting depth d. */
static const char *idx_reg(int d)
{
    static const char *r[MAX_HELD] = {"r4", "r5", "r8"};
    return r[d];
}

/* A non-negative run-time value in [0, n): writes code computing it into
 * `reg` (returns reg), or returns an immediate. */
static const char *index_operand(gen *g, const char *reg, int n, char *buf, size_t bn)
{
    if (g->sp && g->bodies[g->cur].proc && chance(g, 35)) {
        /* --spawns: a child indexes by its id, which the spawn order decides */
        EMIT("    mod %s, tid, %d\n", reg, n);
        snprintf(buf, bn, "%s", reg);
        return buf;
    }
    switch (rnd(g, 6)) {
    case 0:
    case 1:
        snprintf(buf, bn, "%d", rnd(g, n));
        return buf;
    case 2:
        if (!g->bodies[g->cur].proc && g->bodies[g->cur].count <= n) {
            /* self < n already: index by `self` itself (the per-thread
             * element the detectors' liveness analysis tracks) */
            snprintf(buf, bn, "self");
            return buf;
        }
        EMIT("    mod %s, self, %d\n", reg, n);
        break;
    case 3:
        EMIT("    add %s, tid, %d\n", reg, rnd(g, 3));
        EMIT("    mod %s, %s, %d\n", reg, reg, n);
        break;
    case 4:
        if (g->loopdepth > 0) {
            EMIT("    mod %s, r6, %d\n", reg, n);
            break;
        }
        /* fall through */
    default:
        EMIT("    choose %s, 0, %d\n", reg, n - 1);
        break;
    }
    snprintf(buf, bn, "%s", reg);
    return buf;
}

static bool holds_static(const gen *g, int decl, int elem)
{
    for (int i = 0; i < g->nh; i++)
        if (g->h[i].decl == decl && (g->locks[decl].size == 0 || g->h[i].elem == elem)) return true;
    return false;
}

/* Shared variables accessible with the locks now held; for element-wise
 * guarded arrays `idx` receives the index operand to use. */
static int accessible(gen *g, int *list, const char **idx)
{
    int n = 0;
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        if (v->cls != V_SHARED) continue;
        if (v->guard_elem < 0) {
            int k;
            for (k = 0; k < g->nh; k++)
                if (g->h[k].decl == v->guard) {
                    idx[n] = g->h[k].idx;
                    list[n++] = i;
                    break;
                }
            if (k == g->nh && g->nh && brk(g, 6)) { /* under another lock */
                idx[n] = NULL;
                list[n++] = i;
            }
        } else if (holds_static(g, v->guard, v->guard_elem)) {
            idx[n] = NULL;
            list[n++] = i;
        } else if (g->nh && brk(g, 6)) { /* inconsistent locks */
            idx[n] = NULL;
            list[n++] = i;
        }
    }
    return n;
}

/* mem operand text for variable v; for a wholly guarded array, computes an
 * index (into r2) first. */
static void mem_text(gen *g, int v, const char *eidx, char *buf, size_t n)
{
    const var *x = &g->vars[v];
    if (!x->size) {
        snprintf(buf, n, "%s", x->name);
    } else if (eidx) {
        snprintf(buf, n, "%s[%s]", x->name, eidx);
    } else {
        char ib[16];
        const char *i = index_operand(g, "r2", x->size, ib, sizeof ib);
        snprintf(buf, n, "%s[%s]", x->name, i);
    }
}

/* ---- pieces -------------------------------------------------------------- */

static void piece(gen *g, int depth);
static void emit_arith_loop(gen *g);
static void emit_misc_global(gen *g);

/* Read-modify-write of v under its lock; values stay in (-mod, mod). */
static void emit_rmw(gen *g, int v, const char *eidx)
{
    char m[32];
    const var *x = &g->vars[v];
    mem_text(g, v, eidx, m, sizeof m);
    switch (rnd(g, 6)) {
    case 0:
        EMIT("    store %s, %s\n", m, ex(g, rnd(g, x->mod)));
        return;
    case 4: /* halve and step: div by a non-zero constant or a register */
        EMIT("    load r0, %s\n", m);
        if (chance(g, 50)) {
            EMIT("    div r0, r0, %s\n", ex(g, between(g, 2, 3)));
        } else {
            EMIT("    or r3, r0, 1\n    div r0, %d, r3\n", between(g, 3, 7)); /* r3 odd: not 0 */
        }
        EMIT("    add r0, r0, 1\n    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    case 1:
        EMIT("    load r0, %s\n", m);
        EMIT("    sub r0, r0, 1\n");
        EMIT("    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    case 2:
        EMIT("    load r0, %s\n", m);
        EMIT("    mul r0, r0, 3\n");
        EMIT("    add r0, r0, %s\n", ex(g, between(g, 1, 2)));
        EMIT("    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    default:
        EMIT("    load r0, %s\n", m);
        EMIT("    add r0, r0, %s\n", ex(g, between(g, 1, x->mod - 1)));
        EMIT("    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    }
    EMIT("    store %s, r0\n", m);
}

/* The invariant pair: update both (keeps p == q), check, or (rarely) break it. */
static void emit_pair(gen *g, int a)
{
    const var *x = &g->vars[a], *y = &g->vars[x->twin];
    int k = rnd(g, 10);
    if (k < 5) {
        int inc = between(g, 1, x->mod - 1);
        EMIT("    load r0, %s\n    add r0, r0, %d\n    mod r0, r0, %d\n    store %s, r0\n",
             x->name, inc, x->mod, x->name);
        if (chance(g, 50)) EMIT("    nop\n");
        EMIT("    load r1, %s\n    add r1, r1, %d\n    mod r1, r1, %d\n    store %s, r1\n",
             y->name, inc, y->mod, y->name);
    } else if (k < 9) {
        EMIT("    load r0, %s\n    load r1, %s\n    eq r2, r0, r1\n", x->name, y->name);
        EMIT("    assert r2, \"%s == %s\"\n", x->name, y->name);
    } else {
        EMIT("    load r0, %s\n    add r0, r0, 1\n    mod r0, r0, %d\n    store %s, r0\n",
             x->name, x->mod, x->name);
    }
}

/* rd := (rs < bound) for a value rs in (-bound-1, bound], in one of several
 * spellings (lt, le, ge+not, gt+neg, ne at the top). */
static void emit_less(gen *g, const char *rd, const char *rs, int bound)
{
    switch (rnd(g, 5)) {
    case 0:
        EMIT("    lt %s, %s, %s\n", rd, rs, ex(g, bound));
        break;
    case 1:
        EMIT("    le %s, %s, %s\n", rd, rs, ex(g, bound - 1));
        break;
    case 2:
        EMIT("    ge %s, %s, %d\n    not %s, %s\n", rd, rs, bound, rd, rd);
        break;
    case 3: /* -rs > -bound */
        EMIT("    neg %s, %s\n    gt %s, %s, %s\n", rd, rs, rd, rd, ex(g, -bound));
        break;
    default: /* values above bound do not occur: rs < bound iff rs != bound */
        EMIT("    ne %s, %s, %d\n", rd, rs, bound);
        break;
    }
}

static void emit_read_assert(gen *g, int v, const char *eidx)
{
    char m[32];
    const var *x = &g->vars[v];
    mem_text(g, v, eidx, m, sizeof m);
    EMIT("    load r1, %s\n", m);
    int bound = chance(g, 70) ? x->mod : x->mod - 1; /* the second may fail */
    emit_less(g, "r3", "r1", bound);
    EMIT("    assert r3, \"%s < %d\"\n", x->name, bound);
}

/* The body of a critical section: operations on the variables the held locks
 * guard, nested sections, choose, volatile traffic. */
static void cs_contents(gen *g, int depth)
{
    int n = between(g, 1, g->medium ? 3 : 2);
    for (int i = 0; i < n; i++) {
        int list[MAX_VARS];
        const char *idx[MAX_VARS];
        int na = accessible(g, list, idx);
        int k = rnd(g, 12);
        int j = na ? rnd(g, na) : 0;
        int v = na ? list[j] : -1;
        const char *e = na ? idx[j] : NULL;
        if (k < 6 && na) {
            if (g->vars[v].twin >= 0)
                emit_pair(g, v);
            else if (chance(g, 20))
                emit_read_assert(g, v, e);
            else
                emit_rmw(g, v, e);
        } else if (k < 8 && g->nh < MAX_HELD && depth < 3) {
            piece(g, depth + 1); /* usually a nested section */
        } else if (k < 9) {
            /* a choose between two updates */
            if (!na) continue;
            int l1 = new_label(g), l2 = new_label(g);
            EMIT("    choose r0, 0, 1\n    jz r0, L%d\n", l1);
            emit_rmw(g, v, e);
            EMIT("    jmp L%d\nL%d:\n", l2, l1);
            if (chance(g, 50)) emit_rmw(g, v, e);
            EMIT("L%d: nop\n", l2);
        } else if (k < 10) {
            /* notifyall or notify of a held lock (nobody may wait: a no-op) */
            const held *hh = &g->h[rnd(g, g->nh)];
            if (hh->skipped) continue; /* maybe not held: no runtime error */
            const lockdecl *l = &g->locks[hh->decl];
            if (l->size)
                EMIT("    %s %s[%s]\n", chance(g, 50) ? "notify" : "notifyall", l->name, hh->idx);
            else
                EMIT("    %s %s\n", chance(g, 50) ? "notify" : "notifyall", l->name);
        } else {
            for (int w = 0; w < g->nvars; w++)
                if (g->vars[w].cls == V_VOLATILE && !g->vars[w].size) {
                    EMIT("    store %s, %d\n", g->vars[w].name, rnd(g, 3));
                    break;
                }
        }
    }
}

static void lock_text(gen *g, const held *hh, char *buf, size_t n)
{
    const lockdecl *l = &g->locks[hh->decl];
    if (l->size)
        snprintf(buf, n, "%s[%s]", l->name, hh->idx);
    else
        snprintf(buf, n, "%s", l->name);
}

/* acquire [re-acquire] contents release [release]; lock orders are random,
 * so two threads may nest two locks in opposite orders. */
static void emit_cs(gen *g, int depth)
{
    if (g->nh >= MAX_HELD) return;
    held *hh = &g->h[g->nh];
    hh->decl = rnd(g, g->nlocks);
    const lockdecl *l = &g->locks[hh->decl];
    if (l->size) {
        const char *i = index_operand(g, idx_reg(g->nh), l->size, hh->idx, sizeof hh->idx);
        if (i[0] >= '0' && i[0] <= '9')
            hh->elem = atoi(i);
        else
            hh->elem = -1;
    } else {
        hh->idx[0] = '\0';
        hh->elem = 0;
    }
    char lt[32];
    lock_text(g, hh, lt, sizeof lt);
    g->nh++;
    bool rec = chance(g, 20);
    /* --undisciplined: on one branch of a choose the lock is not taken */
    static const char *skipreg[MAX_HELD] = {"r9", "r10", "r11"};
    const char *sr = skipreg[g->nh - 1];
    bool skip = !rec && brk(g, 8);
    hh->skipped = skip;
    int ls = 0;
    if (skip) {
        ls = new_label(g);
        EMIT("    choose %s, 0, 1   ; the lock only sometimes\n    jz %s, L%d\n", sr, sr, ls);
    }
    EMIT("    acquire %s\n", lt);
    if (skip) EMIT("L%d:\n", ls);
    if (rec) EMIT("    acquire %s   ; recursive\n", lt);
    cs_contents(g, depth);
    if (rec) {
        EMIT("    release %s\n", lt);
        if (chance(g, 40)) cs_contents(g, depth);
    }
    g->nh--;
    if (skip) {
        ls = new_label(g);
        EMIT("    jz %s, L%d\n", sr, ls);
    }
    EMIT("    release %s\n", lt);
    if (skip) EMIT("L%d: nop\n", ls);
    if (brk(g, 10)) { /* --undisciplined: one more access after the release */
        int vs[MAX_VARS], n = 0;
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_SHARED && g->vars[i].guard == hh->decl) vs[n++] = i;
        if (n) {
            int v = vs[rnd(g, n)];
            const char *e = g->vars[v].guard_elem < 0 ? hh->idx : NULL;
            EMIT("    ; after the release\n");
            if (chance(g, 40))
                emit_read_assert(g, v, e);
            else
                emit_rmw(g, v, e);
        }
    }
}

/* --undisciplined: an access to a global without its lock (or under some
 * other lock), maybe only on one branch of a choose or of a volatile test. */
static void emit_racy(gen *g)
{
    int vs[MAX_VARS], n = 0;
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].cls != V_VOLATILE && g->vars[i].cls != V_PUB) vs[n++] = i;
    if (!n) {
        emit_arith_loop(g);
        return;
    }
    int v = vs[rnd(g, n)];
    int skip = 0;
    if (g->sp && g->bodies[g->cur].proc && chance(g, 50)) {
        /* --spawns: only a child that got certain ids: a violation that
         * needs one order of the spawns */
        skip = new_label(g);
        EMIT("    lt r0, tid, %d\n    jz r0, L%d\n", nstatic(g) + between(g, 1, nspawned(g)), skip);
    } else switch (rnd(g, 4)) {
    case 0:
        skip = new_label(g);
        EMIT("    choose r0, 0, %d\n    jz r0, L%d\n", between(g, 1, 2), skip);
        break;
    case 1:
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_VOLATILE && !g->vars[i].size) {
                skip = new_label(g);
                EMIT("    load r1, %s\n    jz r1, L%d\n", g->vars[i].name, skip);
                break;
            }
        break;
    default:
        break;
    }
    held other = {0};
    char lt[32] = "";
    if (chance(g, 35)) { /* under some lock, likely not the right one */
        pick_static_lock(g, &other.decl, &other.elem);
        if (g->locks[other.decl].size) snprintf(other.idx, sizeof other.idx, "%d", other.elem);
        lock_text(g, &other, lt, sizeof lt);
        EMIT("    acquire %s   ; not (necessarily) the guard\n", lt);
    } else {
        EMIT("    ; no lock\n");
    }
    char m[32];
    switch (rnd(g, 4)) {
    case 0:
        mem_text(g, v, NULL, m, sizeof m);
        EMIT("    load r1, %s\n", m);
        break;
    case 1:
        emit_read_assert(g, v, NULL);
        break;
    case 2:
        mem_text(g, v, NULL, m, sizeof m);
        EMIT("    store %s, %d\n", m, rnd(g, g->vars[v].mod));
        break;
    default:
        emit_rmw(g, v, NULL);
        break;
    }
    if (lt[0]) EMIT("    release %s\n", lt);
    if (skip) EMIT("L%d: nop\n", skip);
}

/* --undisciplined: misuse of the special globals; true when it emitted. */
static bool emit_misc_undisc(gen *g)
{
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        char m[32];
        if (v->cls == V_READONLY && brk(g, 30)) { /* a write after a read-only phase */
            EMIT("    store %s, %d   ; written after all\n", v->name, rnd(g, v->mod));
            return true;
        }
        if (v->cls == V_UNSHARED && v->intruder == g->cur && chance(g, 60)) {
            mem_text(g, i, NULL, m, sizeof m);
            EMIT("    load r1, %s   ; touched by a second body\n", m);
            if (chance(g, 50)) EMIT("    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n", m);
            return true;
        }
        if (v->cls == V_UNSHARED && v->owner == g->cur && v->size) { /* (not scalar) */
            mem_text(g, i, NULL, m, sizeof m);
            EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n", m, m);
            return true;
        }
        if (v->cls == V_INIT && chance(g, 50)) {
            /* another body reads it (first, if it wins the race: a
             * violation), or someone writes it again */
            mem_text(g, i, NULL, m, sizeof m);
            if (v->init_body != g->cur && !chance(g, 25))
                EMIT("    load r1, %s   ; after its init phase?\n", m);
            else
                EMIT("    store %s, %d   ; a write after the init phase\n", m, rnd(g, v->mod));
            return true;
        }
        if (v->cls == V_INITMAIN && brk(g, 30)) {
            EMIT("    store %s, %d   ; a write after the init phase\n", v->name, rnd(g, v->mod));
            return true;
        }
    }
    return false;
}

static void emit_volatile(gen *g)
{
    int vs[MAX_VARS], n = 0;
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].cls == V_VOLATILE) vs[n++] = i;
    if (!n) return;
    const var *v = &g->vars[vs[rnd(g, n)]];
    char m[32];
    if (v->size) {
        char ib[16];
        snprintf(m, sizeof m, "%s[%s]", v->name, index_operand(g, "r2", v->size, ib, sizeof ib));
    } else {
        snprintf(m, sizeof m, "%s", v->name);
    }
    int k = rnd(g, 6);
    if (k < 2) {
        EMIT("    store %s, %d\n", m, rnd(g, 3));
    } else if (k < 4) { /* read, branch on it */
        int l = new_label(g);
        EMIT("    load r1, %s\n    jz r1, L%d\n", m, l);
        EMIT("    add r3, r3, 1\n    mod r3, r3, 2\n");
        EMIT("L%d: nop\n", l);
    } else if (k < 5) { /* two reads may differ: an assertion that can fail */
        EMIT("    load r0, %s\n    load r1, %s\n    eq r3, r0, r1\n", m, m);
        EMIT("    assert r3, \"%s read twice\"\n", v->name);
    } else { /* increment modulo 3 (a racy but visible update) */
        EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 3\n    store %s, r1\n", m, m);
    }
}

/* if (choose) A else B */
static void emit_choose_branch(gen *g, int depth)
{
    int l1 = new_label(g), l2 = new_label(g);
    EMIT("    choose r0, 0, %d\n    jz r0, L%d\n", between(g, 1, 2), l1);
    piece(g, depth + 1);
    EMIT("    jmp L%d\nL%d:\n", l2, l1);
    if (chance(g, 60)) piece(g, depth + 1);
    EMIT("L%d: nop\n", l2);
}

/* invisible counted loop on registers */
static void emit_arith_loop(gen *g)
{
    int l = new_label(g);
    int n = between(g, 2, 3);
    EMIT("    mov r7, 0\nL%d:\n", l);
    g->mult *= n;
    if (g->has_k)
        EMIT("    add r1, r1, r7\n    mul r1, r1, K\n    and r1, r1, 7\n");
    else
        EMIT("    add r1, r1, r7\n    mul r1, r1, %s\n    and r1, r1, 7\n", ex(g, between(g, 2, 5)));
    switch (rnd(g, 6)) {
    case 0:
        EMIT("    xor r1, r1, 0x3\n    shr r1, r1, 1\n");
        break;
    case 1:
        EMIT("    shl r1, r1, %d\n    or r1, r1, r7\n    and r1, r1, 7\n", between(g, 1, 2));
        break;
    case 2:
        EMIT("    neg r1, r1\n    and r1, r1, 7\n");
        break;
    case 3:
        EMIT("    not r2, r1\n    add r1, r1, r2\n    div r1, r1, %d\n", between(g, 2, 3));
        break;
    case 4:
        EMIT("    mod r2, r1, %d\n    sub r1, r1, r2\n", between(g, 2, 3));
        break;
    default:
        break;
    }
    if (chance(g, 50))
        EMIT("    add r7, r7, 1\n    lt r2, r7, %s\n    jnz r2, L%d\n", ex(g, n), l);
    else
        EMIT("    add r7, r7, 1\n    ge r2, r7, %d\n    jz r2, L%d\n", n, l);
    g->mult /= n;
    EMIT("    mov r7, 0\n");
}

static void monitor_lock_text(gen *g, const monitor *m, char *buf, size_t n)
{
    const lockdecl *l = &g->locks[m->lock];
    if (l->size)
        snprintf(buf, n, "%s[%d]", l->name, m->elem);
    else
        snprintf(buf, n, "%s", l->name);
}

/* Java-monitor waiting: re-check the condition in a loop under the lock. */
static void emit_waiter(gen *g, const monitor *m)
{
    char lk[32];
    monitor_lock_text(g, m, lk, sizeof lk);
    const char *f = g->vars[m->flag].name;
    int lw = new_label(g), ld = new_label(g);
    bool rec = chance(g, 20);
    EMIT("    acquire %s\n", lk);
    if (rec) EMIT("    acquire %s   ; wait with depth 2\n", lk);
    EMIT("L%d:\n    load r3, %s\n", lw, f);
    if (m->counting) EMIT("    gt r3, r3, 0\n");
    EMIT("    jnz r3, L%d\n", ld);
    if (chance(g, 15))
        EMIT("end_w%d: wait %s\n", lw, lk);
    else
        EMIT("    wait %s\n", lk);
    EMIT("    jmp L%d\nL%d:\n", lw, ld);
    if (m->consume) {
        if (m->counting)
            EMIT("    load r3, %s\n    sub r3, r3, 1\n    store %s, r3\n", f, f);
        else
            EMIT("    store %s, 0\n", f);
    }
    if (rec) EMIT("    release %s\n", lk);
    EMIT("    release %s\n", lk);
}

static void emit_notifier(gen *g, const monitor *m)
{
    char lk[32];
    monitor_lock_text(g, m, lk, sizeof lk);
    const char *f = g->vars[m->flag].name;
    EMIT("    acquire %s\n", lk);
    if (m->counting)
        EMIT("    load r3, %s\n    add r3, r3, 1\n    mod r3, r3, %s\n    store %s, r3\n", f, ex(g, 4), f);
    else
        EMIT("    store %s, 1\n", f);
    EMIT("    %s %s\n", chance(g, 50) ? "notify" : "notifyall", lk);
    EMIT("    release %s\n", lk);
}

static void emit_send(gen *g, const chan *c)
{
    for (int i = 0; i < c->nmsg; i++) {
        if (chance(g, 50))
            EMIT("    send %s, %s\n", c->name, ex(g, rnd(g, 3)));
        else
            EMIT("    mod r1, r1, 3\n    send %s, r1\n", c->name);
    }
}

static void emit_recv(gen *g, const chan *c)
{
    for (int i = 0; i < c->nmsg; i++) {
        EMIT("    recv r1, %s\n", c->name);
        if (chance(g, 25)) {
            int bound = between(g, 2, 3);
            EMIT("    lt r3, r1, %s\n    assert r3, \"message < %d\"\n", ex(g, bound), bound);
        }
    }
}

/* A rare runtime error: division by zero or an index out of range. */
static void emit_hazard(gen *g)
{
    switch (rnd(g, 3)) {
    case 0:
        EMIT("    choose r1, 0, 2\n    div r2, 6, r1\n");
        break;
    case 1: {
        int va = -1;
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_VOLATILE && g->vars[i].size) va = i;
        if (va >= 0) {
            EMIT("    choose r1, 0, %d\n    store %s[r1], 1\n", g->vars[va].size,
                 g->vars[va].name);
            break;
        }
        EMIT("    choose r1, 0, 1\n    mod r2, 5, r1\n");
        break;
    }
    default: /* release of a lock this thread does not hold, on one branch */
        if (g->locks[0].size)
            EMIT("    choose r1, 0, 3\n    jnz r1, L%d\n    release %s[0]\nL%d: nop\n",
                 g->label + 1, g->locks[0].name, g->label + 1);
        else
            EMIT("    choose r1, 0, 3\n    jnz r1, L%d\n    release %s\nL%d: nop\n",
                 g->label + 1, g->locks[0].name, g->label + 1);
        g->label++;
        break;
    }
}

/* Spin on a volatile until it is non-zero (visible in every iteration). */
static void emit_spin(gen *g)
{
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].cls == V_VOLATILE && !g->vars[i].size) {
            int l = new_label(g);
            EMIT("L%d:\n    load r1, %s\n    jz r1, L%d\n", l, g->vars[i].name, l);
            return;
        }
}

static void emit_misc_global(gen *g)
{
    if (g->undisc && emit_misc_undisc(g)) return;
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        if (v->cls == V_READONLY && chance(g, 60)) {
            EMIT("    load r1, %s\n    lt r3, r1, %d\n    assert r3, \"read-only\"\n", v->name,
                 v->mod);
            return;
        }
        if (v->cls == V_UNSHARED && v->owner == g->cur && chance(g, 70)) {
            EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n",
                 v->name, v->name);
            return;
        }
        if (v->cls == V_INITMAIN && g->bodies[g->cur].proc && (!g->sp || from_main(g, g->cur))
            && chance(g, 70)) {
            EMIT("    load r1, %s\n    add r3, r1, 0\n", v->name);
            return;
        }
    }
    emit_arith_loop(g);
}

/* --spawns: a child uses its id (which the spawn order decides): asserts
 * a bound on it, stores it (modulo) into a guarded variable under its lock,
 * or indexes a lock array (and the array it guards element-wise) by it. */
static void emit_tid_piece(gen *g)
{
    int k = rnd(g, 3);
    if (k == 0) {
        int bound = nstatic(g) + between(g, 1, nspawned(g));
        EMIT("    lt r3, tid, %s\n    assert r3, \"tid < %d\"\n", ex(g, bound), bound);
        return;
    }
    int cand[MAX_VARS], n = 0;
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        if (v->cls == V_SHARED && v->twin < 0 && !v->is_flag && (k == 1) == (v->guard_elem >= 0))
            cand[n++] = i;
    }
    if (!n || (k == 2 && g->nh >= MAX_HELD)) {
        emit_misc_global(g);
        return;
    }
    const var *v = &g->vars[cand[rnd(g, n)]];
    const lockdecl *l = &g->locks[v->guard];
    if (k == 1) { /* a scalar or an array guarded by one lock element */
        char lt[32], m[32];
        if (l->size)
            snprintf(lt, sizeof lt, "%s[%d]", l->name, v->guard_elem);
        else
            snprintf(lt, sizeof lt, "%s", l->name);
        if (v->size) {
            EMIT("    mod r2, tid, %d\n", v->size);
            snprintf(m, sizeof m, "%s[r2]", v->name);
        } else {
            snprintf(m, sizeof m, "%s", v->name);
        }
        EMIT("    acquire %s\n", lt);
        if (chance(g, 50))
            EMIT("    mod r0, tid, %d\n", v->mod);
        else
            EMIT("    load r0, %s\n    add r0, r0, tid\n    mod r0, r0, %d\n", m, v->mod);
        EMIT("    store %s, r0\n    release %s\n", m, lt);
        return;
    }
    /* element tid % size of an array guarded element-wise by a lock array */
    const char *r = idx_reg(g->nh);
    EMIT("    mod %s, tid, %d\n    acquire %s[%s]\n", r, v->size, l->name, r);
    EMIT("    load r0, %s[%s]\n    add r0, r0, %d\n    mod r0, r0, %d\n    store %s[%s], r0\n",
         v->name, r, between(g, 1, v->mod - 1), v->mod, v->name, r);
    EMIT("    release %s[%s]\n", l->name, r);
}

/* One general-purpose piece at nesting depth `depth`. */
static void piece(gen *g, int depth)
{
    if (brk(g, 14)) {
        emit_racy(g);
        return;
    }
    if (g->sp && g->bodies[g->cur].proc && chance(g, 30)) {
        emit_tid_piece(g);
        return;
    }
    int k = rnd(g, 20);
    if (depth >= 3) k = 19;
    if (g->vol && k >= 16 && k < 19 && chance(g, 60)) k = 9; /* --volatile: more traffic */
    if (k < 9)
        emit_cs(g, depth);
    else if (k < 12)
        emit_volatile(g);
    else if (k < 14 && depth < 2)
        emit_choose_branch(g, depth);
    else if (k < 16)
        emit_misc_global(g);
    else if (k < 17)
        emit_spin(g);
    else if (k < 19)
        emit_cs(g, depth);
    else
        emit_arith_loop(g);
}

/* A loop that never ends, at the end of a body (a cycle of the state graph
 * on which one thread moves forever: what a persistent-set search without
 * its cycle proviso gets wrong, postponing the other threads' steps for
 * ever; Godefroid's "ignoring problem"). Each round takes one visible step
 * that touches nothing (choose), a lock, a volatile, or a guarded variable
 * under its lock; values stay bounded, so the model stays finite-state and
 * disciplined. */
static void emit_forever(gen *g)
{
    int k = rnd(g, 4), v = -1;
    if (k == 2) {
        for (int i = 0; i < g->nvars && v < 0; i++)
            if (g->vars[i].cls == V_VOLATILE && !g->vars[i].size) v = i;
        if (v < 0) k = 0;
    } else if (k == 3) {
        for (int i = 0; i < g->nvars && v < 0; i++) {
            const var *x = &g->vars[i];
            if (x->cls == V_SHARED && !x->size && x->guard >= 0 && x->guard_elem >= 0 &&
                x->twin < 0 && !x->is_flag)
                v = i;
        }
        if (v < 0) k = 1;
    }
    char lt[32];
    int decl = 0, elem = 0;
    if (k == 1) pick_static_lock(g, &decl, &elem);
    if (k == 3) {
        decl = g->vars[v].guard;
        elem = g->vars[v].guard_elem;
    }
    if (g->locks[decl].size)
        snprintf(lt, sizeof lt, "%s[%d]", g->locks[decl].name, elem);
    else
        snprintf(lt, sizeof lt, "%s", g->locks[decl].name);
    EMIT("Lforever:   ; never ends\n");
    switch (k) {
    case 0: EMIT("    choose r1, 0, 1\n"); break;
    case 1: EMIT("    acquire %s\n    release %s\n", lt, lt); break;
    case 2:
        EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 3\n    store %s, r1\n",
             g->vars[v].name, g->vars[v].name);
        break;
    default:
        EMIT("    acquire %s\n    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, %d\n"
             "    store %s, r1\n    release %s\n",
             lt, g->vars[v].name, g->vars[v].mod, g->vars[v].name, lt);
        break;
    }
    EMIT("    jmp Lforever\n");
}

/* ---- bodies -------------------------------------------------------------- */

typedef enum role { R_PIECE, R_WAIT, R_NOTIFY, R_SEND, R_RECV, R_HAZARD } role;

typedef struct task {
    role r;
    int obj;
} task;

static void shuffle(gen *g, task *t, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(g, i + 1);
        task x = t[i];
        t[i] = t[j];
        t[j] = x;
    }
}

static void emit_task(gen *g, const task *t)
{
    /* now and then a protocol role runs inside a critical section: a wait
     * that holds another lock (or the monitor twice), a send under a lock */
    if (t->r != R_PIECE && t->r != R_HAZARD && g->nh == 0 && chance(g, 12)) {
        held *hh = &g->h[g->nh];
        pick_static_lock(g, &hh->decl, &hh->elem);
        hh->skipped = false;
        if (g->locks[hh->decl].size)
            snprintf(hh->idx, sizeof hh->idx, "%d", hh->elem);
        else
            hh->idx[0] = '\0';
        char lt[32];
        lock_text(g, hh, lt, sizeof lt);
        EMIT("    acquire %s   ; role under a lock\n", lt);
        g->nh++;
        task inner = *t;
        emit_task(g, &inner);
        g->nh--;
        EMIT("    release %s\n", lt);
        return;
    }
    switch (t->r) {
    case R_PIECE: piece(g, 0); break;
    case R_WAIT: emit_waiter(g, &g->mons[t->obj]); break;
    case R_NOTIFY: emit_notifier(g, &g->mons[t->obj]); break;
    case R_SEND: emit_send(g, &g->chans[t->obj]); break;
    case R_RECV: emit_recv(g, &g->chans[t->obj]); break;
    case R_HAZARD: emit_hazard(g); break;
    }
}

/* The spawns of body b (at its start): every proc it spawns, per_spawn
 * instances each, with self = the spawn's number (main) or the spawner's own
 * self (a proc spawning one helper per instance). Returns the number of
 * children, joined at the end of the body (registers kid0, kid1, ...). */
static int emit_spawns(gen *g, int b)
{
    int n = 0;
    for (int p = 0; p < g->nbodies; p++)
        if (g->bodies[p].proc && g->bodies[p].spawner == b) n += g->bodies[p].per_spawn;
    if (!n) return 0;
    EMIT("    reg");
    for (int i = 0; i < n; i++) EMIT("%s kid%d", i ? "," : "", i);
    EMIT("\n");
    int k = 0;
    for (int p = 0; p < g->nbodies; p++) {
        const body *pb = &g->bodies[p];
        if (!pb->proc || pb->spawner != b) continue;
        for (int i = 0; i < pb->per_spawn; i++, k++) {
            if (g->bodies[b].proc)
                EMIT("    spawn kid%d, %s, self\n", k, pb->name);
            else
                EMIT("    spawn kid%d, %s, %d\n", k, pb->name, i);
        }
    }
    return k;
}

/* --spawns: after its spawns, a spawner now and then asserts on the id a
 * spawn returned (kidK), branches on it, or stores it (modulo) into a
 * guarded scalar under its lock: the spawn order decides these ids. */
static void emit_kid_checks(gen *g, int nkids)
{
    int lo = nstatic(g), ns = nspawned(g);
    for (int k = 0; k < nkids; k++) {
        int c = rnd(g, 8);
        int id = lo + rnd(g, ns);
        if (c < 2) {
            EMIT("    eq r0, kid%d, %s\n    assert r0, \"kid%d is thread %d\"\n", k, ex(g, id), k, id);
        } else if (c < 3) {
            int bound = lo + between(g, 1, ns);
            EMIT("    lt r0, kid%d, %d\n    assert r0, \"kid%d < %d\"\n", k, bound, k, bound);
        } else if (c < 5) {
            int l = new_label(g);
            EMIT("    eq r0, kid%d, %d\n    jz r0, L%d\n", k, id, l);
            if (chance(g, 50))
                piece(g, 1);
            else
                EMIT("    add r3, r3, 1\n");
            EMIT("L%d: nop\n", l);
        } else if (c < 6) {
            int cand[MAX_VARS], n = 0;
            for (int i = 0; i < g->nvars; i++) {
                const var *v = &g->vars[i];
                if (v->cls == V_SHARED && !v->size && v->guard_elem >= 0 && v->twin < 0 &&
                    !v->is_flag && !v->init_main)
                    cand[n++] = i;
            }
            if (!n) continue;
            const var *v = &g->vars[cand[rnd(g, n)]];
            char lt[32];
            if (g->locks[v->guard].size)
                snprintf(lt, sizeof lt, "%s[%d]", g->locks[v->guard].name, v->guard_elem);
            else
                snprintf(lt, sizeof lt, "%s", g->locks[v->guard].name);
            EMIT("    acquire %s\n    mod r0, kid%d, %d\n    store %s, r0\n    release %s\n", lt, k,
                 v->mod, v->name, lt);
        }
    }
}

static void gen_body(gen *g, int b, bool hazard_here)
{
    body *bd = &g->bodies[b];
    task t[16];
    int n = 0;
    int server = -1;
    g->cur = b;
    g->out = &bd->code;
    g->label = 0;
    g->nh = 0;
    g->loopdepth = 0;
    g->mult = 1;

    for (int i = 0; i < g->nmons; i++) {
        if (g->mons[i].waiter == b) t[n++] = (task){R_WAIT, i};
        if (g->mons[i].notifier == b) t[n++] = (task){R_NOTIFY, i};
    }
    for (int i = 0; i < g->nchans; i++) {
        if (g->chans[i].sender == b) t[n++] = (task){R_SEND, i};
        if (g->chans[i].receiver == b) {
            if (g->chans[i].server)
                server = i;
            else
                t[n++] = (task){R_RECV, i};
        }
    }
    int npieces = g->medium ? between(g, 1, 3) : between(g, 1, 2);
    if ((n >= 2 || total_instances(g) > 2) && npieces > 1) npieces--;
    if (g->sp && !bd->proc && chance(g, 50)) npieces--; /* --spawns: its spawns are its work */
    for (int i = 0; i < npieces; i++) t[n++] = (task){R_PIECE, 0};
    if (hazard_here) t[n++] = (task){R_HAZARD, 0};
    shuffle(g, t, n);
    /* a body that both sends and receives on one channel sends first; a
     * chained notify follows the wait it is chained to */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if ((t[i].r == R_RECV && t[j].r == R_SEND && t[i].obj == t[j].obj)
                || (t[i].r == R_NOTIFY && t[j].r == R_WAIT && g->mons[t[i].obj].after == t[j].obj)) {
                task x = t[i];
                t[i] = t[j];
                t[j] = x;
            }

    for (int i = 0; i < g->nvars; i++) { /* --undisciplined: `init T` by T */
        const var *v = &g->vars[i];
        if (v->cls != V_INIT || v->init_body != b) continue;
        if (v->size)
            for (int e = 0; e < v->size; e++)
                EMIT("    store %s[%d], %d   ; init phase\n", v->name, e, rnd(g, v->mod));
        else
            EMIT("    store %s, %d   ; init phase\n", v->name, rnd(g, v->mod));
    }
    if (g->pub >= 0) { /* `init T`: T initializes and publishes, the others wait */
        bool is_t = false;
        for (int i = 0; i < g->nvars; i++) {
            const var *v = &g->vars[i];
            if (v->init_by != b) continue;
            is_t = true;
            for (int e = 0; e < (v->size ? v->size : 1); e++) {
                if (v->size)
                    EMIT("    store %s[%d], %d   ; init phase\n", v->name, e, rnd(g, v->mod));
                else
                    EMIT("    store %s, %d   ; init phase\n", v->name, rnd(g, v->mod));
            }
        }
        if (is_t)
            EMIT("    store %s, 1   ; published\n", g->vars[g->pub].name);
        else
            EMIT("Lpub:\n    load r1, %s\n    jz r1, Lpub\n", g->vars[g->pub].name);
    }
    if (b == 0 && g->spawns) {
        /* main: initialize cfg and the `init main` variables, spawn, work, join */
        for (int i = 0; i < g->nvars; i++) {
            const var *v = &g->vars[i];
            if (v->cls == V_INITMAIN) EMIT("    store %s, %d   ; init phase\n",
                                           v->name, between(g, 1, 3));
            for (int e = 0; v->init_main && e < (v->size ? v->size : 1); e++) {
                if (v->size)
                    EMIT("    store %s[%d], %d   ; init phase\n", v->name, e, rnd(g, v->mod));
                else
                    EMIT("    store %s, %d   ; init phase\n", v->name, rnd(g, v->mod));
            }
        }
    }
    if (g->sp && !bd->proc && chance(g, 25)) piece(g, 0); /* --spawns: work, then spawn */
    int nkids = emit_spawns(g, b);
    if (g->sp) emit_kid_checks(g, nkids);

    /* a counted loop around part of the body (a visible operation may or may
     * not be inside: the count bounds it either way) */
    int loop_from = n, loop_to = n, iters = 0;
    if (chance(g, g->medium ? 45 : 30) && n > 0) {
        loop_from = rnd(g, n);
        loop_to = between(g, loop_from + 1, n);
        iters = between(g, 2, g->medium ? 3 : 2);
    }
    for (int i = 0; i < n; i++) {
        if (i == loop_from && iters) {
            EMIT("    mov r6, 0\nLtop:\n");
            g->loopdepth++;
            g->mult *= iters;
        }
        emit_task(g, &t[i]);
        if (i + 1 == loop_to && iters) {
            EMIT("    add r6, r6, 1\n    lt r0, r6, %s\n    jnz r0, Ltop\n", ex(g, iters));
            g->mult /= iters;
            EMIT("    mov r6, 0\n");
            g->loopdepth--;
        }
    }

    if (nkids) {
        for (int i = 0; i < nkids; i++) EMIT("    join kid%d\n", i);
        /* after the joins: the children's updates are visible */
        if (chance(g, 50)) piece(g, 0);
    }
    for (int i = 0; g->undisc && i < g->nvars; i++) { /* --undisciplined: unshared ones */
        const var *v = &g->vars[i];
        if (v->cls != V_UNSHARED || (v->intruder != b && v->owner != b) || !chance(g, 60)) continue;
        char m[32];
        mem_text(g, i, NULL, m, sizeof m);
        EMIT("    load r1, %s%s\n", m, v->intruder == b ? "   ; touched by a second body" : "");
        if (chance(g, 50)) EMIT("    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n", m);
    }
    if (g->joiner == b) {
        /* join a static thread by its id (joins may be mutual: a deadlock) */
        EMIT("    join %d\n", g->join_tid);
    }
    if (g->leaker == b) {
        /* end while holding a lock: it stays held (LANGUAGE.md) */
        EMIT("    acquire %s   ; never released\n", g->locks[0].size ? "la0[0]" : "m0");
    }
    if (server >= 0) {
        const chan *c = &g->chans[server];
        EMIT("end_srv:\n    recv r1, %s\n", c->name);
        if (chance(g, 50)) EMIT("    mod r1, r1, 2\n");
        EMIT("    jmp end_srv\n");
    } else if (chance(g, 10)) {
        emit_forever(g);
    } else if (chance(g, 20)) {
        EMIT("    end\n");
    }
}

/* ---- printing ------------------------------------------------------------ */

static void print_model(gen *g, uint64_t seed)
{
    if (g->undisc)
        printf("; generated by gen_model %llu --size %s --undisciplined%s (a random model that"
               " may violate LD'; size estimate %.0f)\n",
               (unsigned long long)seed, g->medium ? "medium" : "small", g->sp ? " --spawns" : "",
               g->est);
    else
        printf("; generated by gen_model %llu --size %s%s (a lock-disciplined random model;"
               " size estimate %.0f)\n",
               (unsigned long long)seed, g->medium ? "medium" : "small", g->sp ? " --spawns" : "",
               g->est);
    /* the declarations as items (keyword, text, comment), printed below in
     * comma lists of 1-3 consecutive items of one keyword */
    char items[MAX_LOCKS + MAX_VARS + MAX_CHANS][160], notes[MAX_LOCKS + MAX_VARS + MAX_CHANS][64];
    const char *kw[MAX_LOCKS + MAX_VARS + MAX_CHANS];
    bool alone[MAX_LOCKS + MAX_VARS + MAX_CHANS];
    int ni = 0;
    for (int i = 0; i < g->nlocks; i++, ni++) {
        kw[ni] = "lock";
        alone[ni] = false;
        notes[ni][0] = '\0';
        if (g->locks[i].size)
            snprintf(items[ni], sizeof items[ni], "%s[%s]", g->locks[i].name, ex(g, g->locks[i].size));
        else
            snprintf(items[ni], sizeof items[ni], "%s", g->locks[i].name);
    }
    for (int i = 0; i < g->nvars; i++, ni++) {
        var *v = &g->vars[i];
        /* --volatile: a guarded variable without `init` becomes volatile
         * too (still accessed under its lock: every access visible) */
        bool vol = g->vol && v->cls == V_SHARED && !v->init_main && v->init_by < 0;
        const char *cls = (v->cls == V_VOLATILE || v->cls == V_PUB || vol) ? "volatile"
                          : v->cls == V_UNSHARED                     ? "unshared"
                                                                     : "shared";
        sbuf it = {0};
        kw[ni] = cls;
        sb_printf(&it, "%s", v->name);
        if (v->size) sb_printf(&it, "[%s]", ex(g, v->size));
        if (v->cls == V_READONLY) {
            sb_printf(&it, " = %s", ex(g, rnd(g, v->mod)));
        } else if (v->size && chance(g, 40)) {
            sb_printf(&it, " = {");
            int k = between(g, 1, v->size);
            for (int e = 0; e < k; e++) sb_printf(&it, "%s%s", e ? ", " : "", ex(g, rnd(g, v->mod)));
            sb_printf(&it, "}");
        } else if (v->cls != V_VOLATILE && v->cls != V_PUB && v->twin < 0 && !v->is_flag
                   && chance(g, 30)) {
            sb_printf(&it, " = %s", chance(g, 50) ? "0x1" : ex(g, 1));
        }
        /* `init T` is last on its line: such an item stands alone */
        alone[ni] = v->cls == V_INITMAIN || v->init_main || v->init_by >= 0 || v->cls == V_INIT;
        if (v->cls == V_INITMAIN || v->init_main) sb_printf(&it, " init main");
        if (v->init_by >= 0) sb_printf(&it, " init %s", g->bodies[v->init_by].name);
        if (v->cls == V_INIT) sb_printf(&it, " init %s", g->bodies[v->init_body].name);
        snprintf(items[ni], sizeof items[ni], "%s", it.s);
        free(it.s);
        notes[ni][0] = '\0';
        if (v->cls == V_SHARED) {
            const lockdecl *l = &g->locks[v->guard];
            if (v->guard_elem < 0)
                snprintf(notes[ni], sizeof notes[ni], "%s[i] guarded by %s[i]", v->name, l->name);
            else if (l->size)
                snprintf(notes[ni], sizeof notes[ni], "%s guarded by %s[%d]", v->name, l->name,
                         v->guard_elem);
            else
                snprintf(notes[ni], sizeof notes[ni], "%s guarded by %s", v->name, l->name);
        }
    }
    for (int i = 0; i < g->nchans; i++, ni++) {
        kw[ni] = "chan";
        alone[ni] = false;
        notes[ni][0] = '\0';
        if (g->chans[i].cap == 1 && chance(g, 50))
            snprintf(items[ni], sizeof items[ni], "%s", g->chans[i].name);
        else
            snprintf(items[ni], sizeof items[ni], "%s[%d]", g->chans[i].name, g->chans[i].cap);
    }
    /* proc maxima (written with the bodies) may use consts too */
    char maxes[MAX_BODIES][64];
    for (int b = 0; b < g->nbodies; b++)
        snprintf(maxes[b], sizeof maxes[b], "%s", ex(g, g->bodies[b].count));

    /* the consts: K (the arithmetic loop's) and D0 .. (the expressions'),
     * each D defined plainly or from an earlier D, K maybe from a D; some
     * printed after the bodies (a const may be used before its declaration) */
    char cdef[5][64];
    bool late[5];
    int nc = 0;
    if (g->has_k) {
        if (g->nconst && srnd(g, 2)) {
            int c = srnd(g, g->nconst), d = g->kval - g->cval[c];
            snprintf(cdef[nc], sizeof cdef[nc], "K = D%d%s%d", c, d < 0 ? "-" : "+", d < 0 ? -d : d);
        } else {
            snprintf(cdef[nc], sizeof cdef[nc], "K = %d", g->kval);
        }
        late[nc++] = false;
    }
    for (int i = 0; i < g->nconst; i++) {
        int cv = g->cval[i];
        if (i && srnd(g, 3)) {
            int j = srnd(g, i), d = cv - g->cval[j];
            switch (srnd(g, 3)) {
            case 0:
                snprintf(cdef[nc], sizeof cdef[nc], "D%d = D%d%s%d", i, j, d < 0 ? "-" : "+", d < 0 ? -d : d);
                break;
            case 1: /* cv = 2*Dj - e */
                snprintf(cdef[nc], sizeof cdef[nc], "D%d = 2*D%d-(%d)", i, j, 2 * g->cval[j] - cv);
                break;
            default: /* cv = (Dj*3 + cv*3 - Dj*3) / 3, spelt with % and - */
                snprintf(cdef[nc], sizeof cdef[nc], "D%d = (D%d*%d+%d)/%d %% %d + -(%d) + %d", i,
                         j, cv, 0, g->cval[j], cv + 1, 0, 0);
                break;
            }
        } else {
            snprintf(cdef[nc], sizeof cdef[nc], "D%d = %s", i, srnd(g, 2) ? "0x0+" : "");
            size_t l = strlen(cdef[nc]);
            snprintf(cdef[nc] + l, sizeof cdef[nc] - l, "%d", cv);
        }
        late[nc++] = srnd(g, 4) == 0;
    }
    /* shuffle the consts' order (definitions may refer forward) */
    for (int i = nc - 1; i > 0; i--) {
        int j = srnd(g, i + 1);
        char t[64];
        memcpy(t, cdef[i], 64), memcpy(cdef[i], cdef[j], 64), memcpy(cdef[j], t, 64);
        bool lt = late[i];
        late[i] = late[j], late[j] = lt;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            /* the declarations, in comma lists */
            for (int i = 0; i < ni;) {
                int n = 1;
                int want = g->exrate || srnd(g, 2) ? 1 + srnd(g, 3) : 1;
                while (i + n < ni && n < want && !alone[i] && !alone[i + n] && kw[i + n] == kw[i]) n++;
                printf("%s ", kw[i]);
                for (int k = 0; k < n; k++) printf("%s%s", k ? ", " : "", items[i + k]);
                bool any = false;
                for (int k = 0; k < n; k++)
                    if (notes[i + k][0]) {
                        printf("%s%s", any ? ", " : "   ; ", notes[i + k]);
                        any = true;
                    }
                printf("\n");
                i += n;
            }
            break;
        }
        for (int i = 0; i < nc;) { /* the early consts */
            if (late[i]) {
                i++;
                continue;
            }
            printf("const %s", cdef[i]);
            int n = 1 + srnd(g, 3);
            for (i++; i < nc && n > 1; i++, n--)
                if (!late[i]) printf(", %s", cdef[i]);
            printf("\n");
        }
    }
    for (int b = 0; b < g->nbodies; b++) {
        body *bd = &g->bodies[b];
        printf("\n");
        if (bd->proc)
            printf("proc %s max %s\n", bd->name, maxes[b]);
        else if (bd->is_array)
            printf("thread %s[%d]\n", bd->name, bd->count);
        else
            printf("thread %s\n", bd->name);
        fwrite(bd->code.s ? bd->code.s : "", 1, bd->code.n, stdout);
    }
    bool first = true;
    for (int i = 0; i < nc; i++)
        if (late[i]) {
            printf("%s%s", first ? "\nconst " : ", ", cdef[i]);
            first = false;
        }
    if (!first) printf("   ; declared after its use\n");
}

static int usage(void)
{
    fprintf(stderr, "usage: gen_model SEED [--size small|medium] [--undisciplined] [--volatile]"
                    " [--spawns]\n");
    return 2;
}

int main(int argc, char **argv)
{
    gen g;
    memset(&g, 0, sizeof g);
    const char *seed_s = NULL;
    bool undisc = false, vol = false, sp = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--undisciplined")) {
            undisc = true;
        } else if (!strcmp(argv[i], "--volatile")) {
            vol = true;
        } else if (!strcmp(argv[i], "--spawns")) {
            sp = true;
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            const char *s = argv[++i];
            if (!strcmp(s, "medium"))
                g.medium = true;
            else if (strcmp(s, "small"))
                return usage();
        } else if (!strncmp(argv[i], "--size=", 7)) {
            if (!strcmp(argv[i] + 7, "medium"))
                g.medium = true;
            else if (strcmp(argv[i] + 7, "small"))
                return usage();
        } else if (!seed_s && argv[i][0] != '-') {
            seed_s = argv[i];
        } else {
            return usage();
        }
    }
    if (!seed_s) return usage();
    char *end;
    unsigned long long seed = strtoull(seed_s, &end, 0);
    if (*end) return usage();
    /* Models whose estimated full state space is too large are redrawn (a
     * pure function of the seed still): the estimate is the product over
     * thread instances of their code lines weighted by loop iterations. */
    bool medium = g.medium;
    double limit = (medium ? 80000 : 20000) / (sp ? 3 : 1); /* --spawns: more threads */
    int best = 0;
    double best_est = 0;
    for (int attempt = 0;; attempt++) {
        /* --spawns: after 100 draws over the limit, the smallest of them
         * (without the option, the last: what every seed's model was) */
        int a = attempt < 100 ? attempt : best;
        memset(&g, 0, sizeof g);
        g.medium = medium;
        g.undisc = undisc;
        g.vol = vol;
        g.sp = sp;
        g.rng = (seed + (uint64_t)a * 0x632be59bd9b4e019ull) * 0x2545f4914f6cdd1dull + 0x1234567ull;
        g.srng = seed * 0x9e3779b97f4a7c15ull + 0x5eed;
        g.exrate = srnd(&g, 10) < 4 ? 0 : 10 + 5 * srnd(&g, 7);
        plan(&g);
        int hz = g.hazard ? rnd(&g, g.nbodies) : -1;
        for (int b = 0; b < g.nbodies; b++) gen_body(&g, b, b == hz);
        double est = 1;
        for (int b = 0; b < g.nbodies; b++)
            for (int k = 0; k < instances(&g, b); k++) est *= g.bodies[b].weight + 1;
        g.est = est;
        if (est <= limit || attempt == 100 || (attempt == 99 && !sp)) break;
        if (attempt == 0 || est < best_est) best = attempt, best_est = est;
        for (int b = 0; b < g.nbodies; b++) free(g.bodies[b].code.s);
    }
    print_model(&g, seed);
    for (int b = 0; b < g.nbodies; b++) free(g.bodies[b].code.s);
    return 0;
}
