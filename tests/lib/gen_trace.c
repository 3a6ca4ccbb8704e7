/* gen_trace.c: program-like traces in RAPID's text format, of any length,
 * for the ZipTrack benchmark (bench/ziptrack.py --generated, issue 32).
 *
 * The shape of a logged run of a lock-based program: a main thread forks
 * the workers and joins them at the end; each worker loops over a fixed
 * cycle of calls (its "main loop"), each call a function chosen from a
 * table made from the seed: local work on the worker's own variables, then
 * a critical section (one lock, sometimes two taken in a fixed order) that
 * reads and writes the variables that lock guards, then more local work.
 * A call has a data-dependent branch (one of two variants of its critical
 * section). The scheduler runs a worker for a random burst of calls, then
 * another (--schedule random, the default), or each worker in turn for
 * one pass of its cycle (--schedule rr: a steadier program, which
 * compresses far better): whole calls, so no two critical sections of one lock overlap
 * and the trace is well-formed and race-free, unless --race puts one write
 * without its lock after 90% of the events. Events carry `f<function>:<line>`
 * locations.
 *
 * The trace has about N events (the last call is finished).
 *
 * usage: gen_trace --events N [--workers W] [--locks K] [--functions F]
 *                  [--schedule random|rr] [--seed S] [--race] > trace.txt */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXF 64
#define MAXOPS 24

static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

typedef struct op {
    char kind;     /* 'r' or 'w' on a guarded variable, 'l' / 'L' local read / write */
    unsigned var;  /* a variable of the lock's group, or a local slot */
} op;

typedef struct fn {
    unsigned lock, lock2;   /* lock2 == lock: one lock */
    unsigned nlocal1, nlocal2;
    unsigned nops[2];       /* the two variants of the critical section */
    op ops[2][MAXOPS];
} fn;

static fn fns[MAXF];
static unsigned nfns, nlocks, vars_per_lock = 4;
static uint64_t emitted, limit, race_at = UINT64_MAX;

static void ev(unsigned thread, const char *what, const char *arg, unsigned f, unsigned line)
{
    if (thread == 0)
        printf("main|%s(%s)|main:%u\n", what, arg, line);
    else
        printf("T%u|%s(%s)|f%u:%u\n", thread, what, arg, f, line);
    emitted++;
}

static void call(unsigned t, unsigned f)
{
    const fn *d = &fns[f];
    char buf[48];
    unsigned line = 1;
    for (unsigned i = 0; i < d->nlocal1; i++) {
        snprintf(buf, sizeof buf, "T%u.v%u", t, i % 3);
        ev(t, i % 2 ? "w" : "r", buf, f, line++);
    }
    unsigned v = below(4) == 0; /* the branch */
    bool racy = emitted >= race_at;
    if (!racy) {
        snprintf(buf, sizeof buf, "m%u", d->lock);
        ev(t, "acq", buf, f, line++);
        if (d->lock2 != d->lock) {
            snprintf(buf, sizeof buf, "m%u", d->lock2);
            ev(t, "acq", buf, f, line++);
        }
    }
    for (unsigned i = 0; i < d->nops[v]; i++) {
        const op *o = &d->ops[v][i];
        unsigned lk = o->var >= vars_per_lock ? d->lock2 : d->lock;
        snprintf(buf, sizeof buf, "g%u.%u", lk, o->var % vars_per_lock);
        ev(t, o->kind == 'w' ? "w" : "r", buf, f, line++);
        if (racy && o->kind == 'w') { /* one write without the lock, then as before */
            race_at = UINT64_MAX;
            return;
        }
    }
    if (!racy) {
        if (d->lock2 != d->lock) {
            snprintf(buf, sizeof buf, "m%u", d->lock2);
            ev(t, "rel", buf, f, line++);
        }
        snprintf(buf, sizeof buf, "m%u", d->lock);
        ev(t, "rel", buf, f, line++);
    }
    for (unsigned i = 0; i < d->nlocal2; i++) {
        snprintf(buf, sizeof buf, "T%u.v%u", t, (i + 1) % 3);
        ev(t, i % 2 ? "r" : "w", buf, f, line++);
    }
}

int main(int argc, char **argv)
{
    unsigned workers = 8;
    bool race = false, rr = false;
    nlocks = 6;
    nfns = 12;
    rng = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--race")) {
            race = true;
            continue;
        }
        if (!v) goto usage;
        if (!strcmp(a, "--events"))
            limit = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--workers"))
            workers = (unsigned)atoi(v);
        else if (!strcmp(a, "--locks"))
            nlocks = (unsigned)atoi(v);
        else if (!strcmp(a, "--functions"))
            nfns = (unsigned)atoi(v);
        else if (!strcmp(a, "--schedule") && (!strcmp(v, "rr") || !strcmp(v, "random")))
            rr = !strcmp(v, "rr");
        else if (!strcmp(a, "--seed"))
            rng = strtoull(v, NULL, 10) * 0x9E3779B97F4A7C15ull | 1;
        else
            goto usage;
        i++;
    }
    if (!limit || !workers || !nlocks || !nfns || nfns > MAXF) goto usage;
    for (unsigned f = 0; f < nfns; f++) {
        fn *d = &fns[f];
        d->lock = below(nlocks);
        d->lock2 = below(3) == 0 ? below(nlocks) : d->lock;
        if (d->lock2 < d->lock) { /* a fixed order: no deadlock in the program */
            unsigned x = d->lock;
            d->lock = d->lock2;
            d->lock2 = x;
        }
        d->nlocal1 = below(4);
        d->nlocal2 = below(3);
        for (unsigned v = 0; v < 2; v++) {
            d->nops[v] = 1 + below(MAXOPS / 3);
            for (unsigned i = 0; i < d->nops[v]; i++) {
                d->ops[v][i].kind = below(3) ? 'r' : 'w';
                d->ops[v][i].var = below(d->lock2 != d->lock ? 2 * vars_per_lock : vars_per_lock);
            }
        }
    }
    /* each worker's main loop: a cycle of 3 to 8 calls */
    unsigned (*cycle)[8] = calloc(workers + 1, sizeof *cycle);
    unsigned *clen = calloc(workers + 1, sizeof *clen), *at = calloc(workers + 1, sizeof *at);
    if (!cycle || !clen || !at) return 3;
    for (unsigned t = 1; t <= workers; t++) {
        clen[t] = 3 + below(6);
        for (unsigned k = 0; k < clen[t]; k++) cycle[t][k] = below(nfns);
    }
    char buf[32];
    /* the fork and join events are 2 per worker */
    uint64_t body = limit > 2ull * workers ? limit - 2ull * workers : 0;
    if (race) race_at = body / 10 * 9;
    limit = body;
    for (unsigned t = 1; t <= workers; t++) {
        snprintf(buf, sizeof buf, "T%u", t);
        ev(0, "fork", buf, 0, 1);
    }
    limit += emitted;
    for (unsigned turn = 0; emitted < limit; turn++) {
        unsigned t = rr ? 1 + turn % workers : 1 + below(workers);
        unsigned burst = rr ? clen[t] : 1 + below(6);
        for (unsigned b = 0; b < burst && emitted < limit; b++) {
            call(t, cycle[t][at[t]]);
            at[t] = (at[t] + 1) % clen[t];
        }
    }
    for (unsigned t = 1; t <= workers; t++) {
        snprintf(buf, sizeof buf, "T%u", t);
        ev(0, "join", buf, 0, 2);
    }
    free(cycle);
    free(clen);
    free(at);
    return fflush(stdout) == 0 ? 0 : 1;
usage:
    fprintf(stderr, "usage: gen_trace --events N [--workers W] [--locks K] [--functions F] "
                    "[--schedule random|rr] [--seed S] [--race]\n");
    return 2;
}
