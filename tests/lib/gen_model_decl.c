/* gen_model_decl.c: the parts of gen_model under everything else: the output
 * buffer, the random generator (rnd(), chance(), ...; brk() for
 * --undisciplined) and the spelling generator (srnd(), ex()), emit(), the
 * declarations and the plan of a model (locks, variables, procs and their
 * spawners, monitors, channels: plan()), and print_model(), which prints the
 * declarations (comma lists, consts) and the bodies gen_body() wrote. */
#include "gen_model_int.h"

/* ---- output buffer ------------------------------------------------------- */

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

static uint64_t next_u64(gen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int rnd(gen *g, int n) /* 0 .. n-1 */
{
    return (int)(next_u64(g) % (uint64_t)n);
}

int between(gen *g, int lo, int hi)
{
    return lo + rnd(g, hi - lo + 1);
}

bool chance(gen *g, int pct)
{
    return rnd(g, 100) < pct;
}

/* The spelling generator (g->srng): which declarations share a line and
 * which constants are written as expressions. A separate stream, so the
 * values and the code of every seed's model are what plain numbers gave. */
int srnd(gen *g, int n)
{
    uint64_t z = (g->srng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (int)((z ^ (z >> 31)) % (uint64_t)n);
}

/* --handoff's generator (g->hrng): a third stream, so that the rest of a
 * seed's model draws what it draws without the option. */
int hrnd(gen *g, int n)
{
    uint64_t z = (g->hrng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (int)((z ^ (z >> 31)) % (uint64_t)n);
}

/* The value v written as a constant expression (or plainly): sums,
 * products, / and % on non-negative operands, unary minus, parentheses and
 * the consts D0 .. (defined in print_model, some from others, some after
 * the bodies that use them). The returned text lives until 16 more calls. */
const char *ex(gen *g, int v)
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
bool brk(gen *g, int pct)
{
    if (!g->undisc) return false;
    return rnd(g, 100) * 100 < pct * g->brk;
}

/* Emit code; every line counts `mult` (the iterations of the loops around
 * it) towards the size estimate of the body. */
void emit(gen *g, const char *fmt, ...)
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

int new_label(gen *g)
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
void pick_static_lock(gen *g, int *decl, int *elem)
{
    *decl = rnd(g, g->nlocks);
    *elem = g->locks[*decl].size ? rnd(g, g->locks[*decl].size) : 0;
}

int instances(const gen *g, int b)
{
    const body *bd = &g->bodies[b];
    if (bd->proc) return bd->per_spawn * instances(g, bd->spawner);
    return bd->count;
}

int total_instances(const gen *g)
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
int nspawned(const gen *g)
{
    int n = 0;
    for (int b = 0; b < g->nbodies; b++)
        if (g->bodies[b].proc) n += instances(g, b);
    return n;
}

int nstatic(const gen *g)
{
    int n = 0;
    for (int b = 0; b < g->nbodies; b++)
        if (!g->bodies[b].proc) n += g->bodies[b].count;
    return n;
}

/* Body b is main or a descendant of main's spawns (cfg, which main
 * initializes before it spawns, is theirs to read). */
bool from_main(const gen *g, int b)
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

/* --rendezvous: channel c becomes a rendezvous channel (capacity 0). Its
 * receiver is another body but now and then (then every instance blocks at
 * its send, which comes first: a deadlock), and more often than a buffered
 * channel's an endless server at an end label, which takes any number of
 * messages (one server per body; not when the receiver spawns the sender,
 * directly or not: it serves after its joins, so the sender would block
 * and the join wait forever). */
static void plan_rendezvous(gen *g, chan *c)
{
    c->cap = 0;
    if (c->receiver == c->sender && g->nbodies > 1 && chance(g, 90))
        c->receiver = (c->sender + 1) % g->nbodies;
    int b = c->sender; /* the static body that spawns the sender, or the receiver */
    while (g->bodies[b].proc && b != c->receiver) b = g->bodies[b].spawner;
    bool other = false; /* the receiver is already another channel's server */
    for (const chan *o = g->chans; o < g->chans + g->nchans; o++)
        other |= o != c && o->server && o->receiver == c->receiver;
    if (b == c->receiver)
        c->server = false;
    else if (!c->server && !other && !g->bodies[c->receiver].proc
             && chance(g, instances(g, c->sender) == instances(g, c->receiver) ? 30 : 70))
        c->server = true; /* more often when the numbers of messages differ */
}

void plan(gen *g)
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

    /* --waiters: one more thread, sig, whose only work is to notify the
     * first monitor (its future touches that lock and flag alone, so it is
     * often outside a persistent set that a waiter would be wanted in) */
    if (g->wt) {
        body *b = &g->bodies[g->nbodies++];
        snprintf(b->name, sizeof b->name, "sig");
        b->count = 1;
        g->sig = g->nbodies - 1;
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
     * spawns (`init main`), when no other static thread could touch it first
     * (not even --waiters' sig, the last body: drawn as before, so that
     * every other seed's model stays what it was) */
    bool others_static = false;
    for (int b = 1; b < g->nbodies; b++) others_static |= !g->bodies[b].proc;
    if (g->spawns && g->bodies[1].proc && chance(g, 45) && !others_static) {
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
    int nm = g->wt || g->cv ? (chance(g, 50) ? 2 : 1)
                            : chance(g, 45) ? (chance(g, 35) ? 2 : 1) : 0;
    for (int i = 0; i < nm; i++) {
        monitor *m = &g->mons[g->nmons++];
        m->after = -1;
        pick_static_lock(g, &m->lock, &m->elem);
        m->flag = add_var(g, "f", V_SHARED, 0);
        g->vars[m->flag].guard = m->lock;
        g->vars[m->flag].guard_elem = m->elem;
        g->vars[m->flag].is_flag = true;
        m->waiter = rnd(g, g->nbodies - (g->wt ? 1 : 0)); /* not sig */
        m->notifier = rnd(g, g->nbodies);
        if (g->wt && i == 0) { /* the first thread waits: composition's order runs it first */
            m->waiter = 0;
            m->notifier = g->sig;
        }
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
        m->cond = -1;
        if (g->cv && chance(g, 80)) { /* --conds: a pthread cond */
            m->cond = g->nconds++;
            m->recheck = chance(g, 80);
        }
    }
    /* channels */
    int nc = chance(g, 40) ? (chance(g, 20) ? 2 : 1) : 0;
    if (g->rv && !nc) nc = chance(g, 25) ? 2 : 1; /* --rendezvous: a channel always */
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
        if (g->rv && (i == 0 || chance(g, 50))) plan_rendezvous(g, c);
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

/* ---- printing ------------------------------------------------------------ */

/* --rendezvous: the ' --rendezvous' of the header line */
static const char *rv_opt(const gen *g)
{
    return g->rv ? " --rendezvous" : "";
}

void print_model(gen *g, uint64_t seed)
{
    if (g->undisc)
        printf("; generated by gen_model %llu --size %s --undisciplined%s%s%s%s (a random model that"
               " may violate LD'; size estimate %.0f)\n",
               (unsigned long long)seed, g->medium ? "medium" : "small", g->sp ? " --spawns" : "",
               g->wt ? " --waiters" : g->cv ? " --conds" : "", g->calls ? " --calls" : "", rv_opt(g),
               g->est);
    else if (g->ho)
        printf("; generated by gen_model %llu --size %s%s%s%s%s --handoff (a random model whose"
               " procs get data by spawn and return it by join, now and then racily; size"
               " estimate %.0f)\n",
               (unsigned long long)seed, g->medium ? "medium" : "small", g->sp ? " --spawns" : "",
               g->wt ? " --waiters" : g->cv ? " --conds" : "", g->calls ? " --calls" : "", rv_opt(g),
               g->est);
    else
        printf("; generated by gen_model %llu --size %s%s%s%s%s (a lock-disciplined random model;"
               " size estimate %.0f)\n",
               (unsigned long long)seed, g->medium ? "medium" : "small", g->sp ? " --spawns" : "",
               g->wt ? " --waiters" : g->cv ? " --conds" : "", g->calls ? " --calls" : "", rv_opt(g),
               g->est);
    for (int b = 0; g->ho && b < g->nbodies; b++) /* --handoff: in and out per proc */
        if (g->bodies[b].proc && g->bodies[b].spawner >= 0) {
            int n = handoff_slots(g, b);
            if (n)
                printf("shared hi%d[%d], ho%d[%d]   ; --handoff: %s's inputs and results, by self\n",
                       b, n, b, n, g->bodies[b].name);
            else
                printf("shared hi%d, ho%d   ; --handoff: %s's input and result\n", b, b,
                       g->bodies[b].name);
        }
    for (int i = 0; i < g->nconds; i++) /* --conds */
        printf("%s%s cv%d%s", i ? "" : "cond", i ? "," : "", i, i + 1 == g->nconds ? "\n" : "");
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
