/* storebench.c: micro-benchmark of the visited-state stores. Inserts N
 * distinct pseudo-random 32-byte vectors into each store kind, then looks
 * every one up again, and prints ns per insert and per lookup, bytes per
 * state as store_bytes() counts them and as the process's resident set grew,
 * and the ratios against the baseline: a plain Judy1 set of the 64-bit XXH3
 * fingerprints. Each layout runs in its own child process so the RSS figures
 * do not share a heap; with --repeat R each layout runs R times
 * (interleaved) and the fastest run counts, to damp a busy machine.
 * Usage: storebench [--n N] [--repeat R] [--bitstate-bytes B].
 * storebench --shared [--threads T] [--n N] [--repeat R]: the 64-bit
 * compact store as the search calls it (store_hash, store_insert_prepared)
 * against the shared store (sstore_hash, sstore_insert) with 0, 6 and 10
 * shard bits, the latter from T threads (each inserting, then looking up,
 * its own slice): ns per insert in CPU time, inserts per second of wall
 * time, bytes per state. --ahead D: each vector is hashed D vectors before
 * its insert and its lookup started then (store_prefetch_index, and
 * store_prefetch or sstore_prefetch_entries D/2 before, unless
 * --ahead-index-only), as a search's look-ahead would.
 * Not a test: it checks only that every vector went in. docs/statestore.md
 * has the figures and how they were taken. */
#include "store.h"

#include <Judy.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VEC_BYTES 32

typedef enum layout { HASH_ONLY, JUDY1, COMPACT64, COMPACT128, EXACT, BITSTATE, NLAYOUTS } layout;

static const char *const layout_names[NLAYOUTS] = {
    "hash only", "judy1", "compact64", "compact128", "exact", "bitstate",
};

typedef struct result {
    int ok;
    uint64_t states;
    double ns_insert, ns_lookup;
    double bytes;     /* the structure's own count */
    double rss_bytes; /* growth of the resident set */
    double omission;
} result;

/* CPU time of this process: on a shared machine, time spent descheduled
 * would swamp what is measured. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Vector number i: distinct for distinct i (the first word is a bijection
 * of i), the rest pseudo-random. */
static void make_vector(uint64_t i, uint8_t *v)
{
    uint64_t s = i, w[VEC_BYTES / 8];
    for (size_t j = 0; j < VEC_BYTES / 8; j++) w[j] = splitmix64(&s);
    w[0] = i * 0x9e3779b97f4a7c15u ^ 0x5555;
    memcpy(v, w, sizeof w);
}

/* One pass over the n vectors for layout l; returns how many the
 * structure reported new (insert) or present (lookup). */
static uint64_t run_pass(layout l, bool lookup, uint64_t n, store *st, Pvoid_t *j1,
                         uint64_t *sink)
{
    uint8_t v[VEC_BYTES];
    uint64_t hits = 0;
    JError_t je;
    for (uint64_t i = 0; i < n; i++) {
        make_vector(i, v);
        switch (l) {
        case HASH_ONLY: *sink += store_hash64(v, VEC_BYTES); hits++; break;
        case JUDY1: {
            uint64_t h = store_hash64(v, VEC_BYTES);
            int r = lookup ? Judy1Test(*j1, (Word_t)h, &je) : Judy1Set(j1, (Word_t)h, &je);
            if (r == JERR) return hits;
            hits += (uint64_t)r;
            break;
        }
        default:
            if (lookup) hits += store_contains(st, v);
            else hits += store_insert(st, v) == STORE_ADDED;
            break;
        }
    }
    return hits;
}

static store *layout_store(layout l, uint64_t bitstate_bytes)
{
    store_config cfg = {.kind = STORE_COMPACT, .fingerprint_bits = 64};
    switch (l) {
    case HASH_ONLY: case JUDY1: case NLAYOUTS: return NULL;
    case COMPACT64: break;
    case COMPACT128: cfg.fingerprint_bits = 128; break;
    case EXACT: cfg.kind = STORE_EXACT; break;
    case BITSTATE: cfg.kind = STORE_BITSTATE; cfg.bitstate_bytes = bitstate_bytes; break;
    }
    return store_new(&cfg, VEC_BYTES);
}

static result measure(layout l, uint64_t n, uint64_t bitstate_bytes)
{
    result r = {0};
    uint64_t sink = 0;
    Pvoid_t j1 = NULL;
    double rss0 = rss_bytes();
    store *st = layout_store(l, bitstate_bytes);
    if (l != HASH_ONLY && l != JUDY1 && !st) return r;
    double t0 = now_ns();
    r.states = run_pass(l, false, n, st, &j1, &sink);
    double t1 = now_ns();
    uint64_t found = run_pass(l, true, n, st, &j1, &sink);
    double t2 = now_ns();
    r.ns_insert = (t1 - t0) / (double)n;
    r.ns_lookup = (t2 - t1) / (double)n;
    r.rss_bytes = rss_bytes() - rss0;
    r.bytes = l == JUDY1 ? (double)Judy1MemUsed(j1) : st ? (double)store_bytes(st) : 0;
    r.omission = st ? store_omission_probability(st) : 0;
    r.ok = (l == BITSTATE || (r.states == n && found == n)) && sink != 1;
    JError_t je;
    Judy1FreeArray(&j1, &je);
    store_free(st);
    return r;
}

/* Runs fn(arg, out) in a child process, so that every measurement starts
 * from a fresh heap, and copies its `size`-byte result back into out;
 * false (out untouched past what the child wrote) if that fails. */
static bool in_child(void (*fn)(const void *arg, void *out), const void *arg, void *out,
                     size_t size)
{
    int fd[2];
    if (pipe(fd) != 0) return false;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        fn(arg, out);
        ssize_t w = write(fd[1], out, size);
        _exit(w == (ssize_t)size ? 0 : 1);
    }
    close(fd[1]);
    bool ok = pid >= 0 && read(fd[0], out, size) == (ssize_t)size;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return ok;
}

typedef struct measure_args {
    layout l;
    uint64_t n, bitstate_bytes;
} measure_args;

static void measure_fn(const void *arg, void *out)
{
    const measure_args *a = arg;
    *(result *)out = measure(a->l, a->n, a->bitstate_bytes);
}

static result measure_in_child(layout l, uint64_t n, uint64_t bitstate_bytes)
{
    result r = {0};
    measure_args a = {l, n, bitstate_bytes};
    if (!in_child(measure_fn, &a, &r, sizeof r)) r.ok = 0;
    return r;
}

/* Fastest times and smallest resident growth of two runs into *best. */
static void keep_best(result *best, const result *r)
{
    if (r->ns_insert < best->ns_insert) best->ns_insert = r->ns_insert;
    if (r->ns_lookup < best->ns_lookup) best->ns_lookup = r->ns_lookup;
    if (r->rss_bytes < best->rss_bytes) best->rss_bytes = r->rss_bytes;
}

/* ---- --shared ------------------------------------------------------------ */

static double wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct shared_job {
    sstore *s;
    store *st; /* shard_bits < 0: the single store, one thread */
    uint64_t from, to;
    bool lookup;
    unsigned ahead; /* prefetch this many vectors ahead (0: none) */
    uint64_t hits;
} shared_job;

#define AHEAD_MAX 64
static unsigned shared_ahead;  /* --ahead */
static bool shared_entries = true; /* --ahead-index-only: false */

static void *shared_worker(void *arg)
{
    shared_job *j = arg;
    uint8_t v[VEC_BYTES];
    uint64_t hits = 0;
    store_result want = j->lookup ? STORE_PRESENT : STORE_ADDED;
    uint64_t ring[AHEAD_MAX + 1];
    unsigned d = j->ahead;
    for (uint64_t i = j->from; i < j->to; i++) {
        uint64_t h;
        if (d) { /* hash i + d now and start its lookup; i's hash is in the ring */
            for (uint64_t a = i == j->from ? i : i + d; a <= i + d && a < j->to; a++) {
                make_vector(a, v);
                uint64_t ha = j->st ? store_hash(j->st, v) : sstore_hash(j->s, v);
                ring[a % (d + 1)] = ha;
                if (j->st) store_prefetch_index(j->st, ha);
                else sstore_prefetch(j->s, ha);
            }
            h = ring[i % (d + 1)];
            if (i + d / 2 < j->to && shared_entries) {
                uint64_t hm = ring[(i + d / 2) % (d + 1)];
                if (j->st) store_prefetch(j->st, hm, !j->lookup);
                else sstore_prefetch_entries(j->s, hm, !j->lookup);
            }
        }
        make_vector(i, v);
        if (!d) h = j->st ? store_hash(j->st, v) : sstore_hash(j->s, v);
        if (j->st) hits += store_insert_prepared(j->st, v, h) == want;
        else hits += sstore_insert(j->s, v, h) == want;
    }
    j->hits = hits;
    return NULL;
}

/* One pass of `threads` workers over [0, n); wall ns into *wall. */
static uint64_t shared_pass(sstore *s, store *st, uint64_t n, unsigned threads, bool lookup,
                            double *wall)
{
    pthread_t th[64];
    shared_job jobs[64];
    double t0 = wall_ns();
    for (unsigned t = 0; t < threads; t++) {
        jobs[t] = (shared_job){s, st, n * t / threads, n * (t + 1) / threads, lookup,
                               shared_ahead, 0};
        if (threads == 1 || pthread_create(&th[t], NULL, shared_worker, &jobs[t]) != 0) {
            shared_worker(&jobs[t]);
            th[t] = 0;
        }
    }
    uint64_t hits = 0;
    for (unsigned t = 0; t < threads; t++) {
        if (th[t]) pthread_join(th[t], NULL);
        hits += jobs[t].hits;
    }
    *wall = wall_ns() - t0;
    return hits;
}

typedef struct shared_result {
    int ok;
    double ns_insert, ns_lookup;   /* CPU time a call, all threads */
    double ips_insert, ips_lookup; /* calls a second of wall time */
    double bytes, rss_bytes;
} shared_result;

/* shard_bits -1: the single store. */
static shared_result shared_measure(int shard_bits, uint64_t n, unsigned threads)
{
    shared_result r = {0};
    store_config cfg = {.kind = STORE_COMPACT, .fingerprint_bits = 64};
    double rss0 = rss_bytes(), w1, w2;
    store *st = shard_bits < 0 ? store_new(&cfg, VEC_BYTES) : NULL;
    sstore *s = shard_bits >= 0 ? sstore_new(&cfg, VEC_BYTES, (unsigned)shard_bits) : NULL;
    if (!st && !s) return r;
    if (st) threads = 1;
    double t0 = now_ns();
    uint64_t added = shared_pass(s, st, n, threads, false, &w1);
    double t1 = now_ns();
    uint64_t found = shared_pass(s, st, n, threads, true, &w2);
    double t2 = now_ns();
    r.ns_insert = (t1 - t0) / (double)n;
    r.ns_lookup = (t2 - t1) / (double)n;
    r.ips_insert = (double)n / w1 * 1e9;
    r.ips_lookup = (double)n / w2 * 1e9;
    r.rss_bytes = rss_bytes() - rss0;
    r.bytes = (double)(st ? store_bytes(st) : sstore_bytes(s));
    r.ok = added == n && found == n && (st ? store_count(st) : sstore_count(s)) == n;
    store_free(st);
    sstore_free(s);
    return r;
}

typedef struct shared_args {
    int shard_bits;
    uint64_t n;
    unsigned threads;
} shared_args;

static void shared_fn(const void *arg, void *out)
{
    const shared_args *a = arg;
    *(shared_result *)out = shared_measure(a->shard_bits, a->n, a->threads);
}

static shared_result shared_in_child(int shard_bits, uint64_t n, unsigned threads)
{
    shared_result r = {0};
    shared_args a = {shard_bits, n, threads};
    if (!in_child(shared_fn, &a, &r, sizeof r)) r.ok = 0;
    return r;
}

static int run_shared(uint64_t n, uint64_t repeat, unsigned threads)
{
    enum { NROWS = 4 };
    const int bits[NROWS] = {-1, 0, 6, 10};
    shared_result best[NROWS] = {{0}};
    printf("storebench --shared: %llu distinct random %d-byte vectors, compact64; sstore from "
           "%u thread(s); prefetch %u ahead; best of %llu\n",
           (unsigned long long)n, VEC_BYTES, threads, shared_ahead, (unsigned long long)repeat);
    printf("%-14s %8s %8s %12s %12s %9s %9s\n", "layout", "ns/ins", "ns/look", "ins/s",
           "look/s", "bytes/st", "rss/st");
    for (uint64_t rep = 0; rep < repeat; rep++) {
        for (int k = 0; k < NROWS; k++) {
            shared_result r = shared_in_child(bits[k], n, threads);
            if (rep == 0 || !r.ok) {
                best[k] = r;
            } else if (best[k].ok) {
                shared_result *b = &best[k];
                if (r.ns_insert < b->ns_insert) b->ns_insert = r.ns_insert;
                if (r.ns_lookup < b->ns_lookup) b->ns_lookup = r.ns_lookup;
                if (r.ips_insert > b->ips_insert) b->ips_insert = r.ips_insert;
                if (r.ips_lookup > b->ips_lookup) b->ips_lookup = r.ips_lookup;
                if (r.rss_bytes < b->rss_bytes) b->rss_bytes = r.rss_bytes;
            }
        }
    }
    int status = 0;
    for (int k = 0; k < NROWS; k++) {
        const shared_result *r = &best[k];
        char name[32];
        if (bits[k] < 0) snprintf(name, sizeof name, "store");
        else snprintf(name, sizeof name, "sstore k=%d", bits[k]);
        if (!r->ok) status = 1;
        printf("%-14s %8.1f %8.1f %12.0f %12.0f %9.2f %9.2f%s\n", name, r->ns_insert,
               r->ns_lookup, r->ips_insert, r->ips_lookup, r->bytes / (double)n,
               r->rss_bytes / (double)n, r->ok ? "" : "  FAILED");
    }
    return status;
}

static void usage(void)
{
    fprintf(stderr, "usage: storebench [--n N] [--repeat R] [--bitstate-bytes B]\n"
                    "       storebench --shared [--threads T] [--ahead D] [--n N] [--repeat R]\n");
}

int main(int argc, char **argv)
{
    uint64_t n = 1000000, bitstate_bytes = 0, repeat = 1, threads = 1;
    bool shared = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            n = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--shared")) {
            shared = true;
        } else if (!strcmp(argv[i], "--ahead") && i + 1 < argc) {
            uint64_t a = strtoull(argv[++i], NULL, 10);
            shared_ahead = a > AHEAD_MAX ? AHEAD_MAX : (unsigned)a;
        } else if (!strcmp(argv[i], "--ahead-index-only")) {
            shared_entries = false;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--bitstate-bytes") && i + 1 < argc) {
            bitstate_bytes = strtoull(argv[++i], NULL, 10);
        } else {
            usage();
            return 2;
        }
    }
    if (n == 0 || repeat == 0 || threads == 0 || threads > 64) {
        usage();
        return 2;
    }
    if (shared) return run_shared(n, repeat, (unsigned)threads);
    if (!bitstate_bytes) bitstate_bytes = 2 * n; /* 16 bits a state */
    printf("storebench: %llu distinct random %d-byte vectors; bitstate %llu bytes, k=3; "
           "best of %llu\n",
           (unsigned long long)n, VEC_BYTES, (unsigned long long)bitstate_bytes,
           (unsigned long long)repeat);
    printf("%-11s %10s %9s %9s %11s %9s %9s %9s %10s\n", "layout", "states", "ns/ins",
           "ns/look", "bytes/st", "rss/st", "bytes/j1", "ns/j1", "omission");
    result best[NLAYOUTS] = {{0}};
    for (uint64_t rep = 0; rep < repeat; rep++) {
        for (layout l = HASH_ONLY; l < NLAYOUTS; l++) {
            result r = measure_in_child(l, n, bitstate_bytes);
            if (rep == 0 || !r.ok) best[l] = r;
            else if (best[l].ok) keep_best(&best[l], &r);
        }
    }
    const result base = best[JUDY1];
    int status = 0;
    for (layout l = HASH_ONLY; l < NLAYOUTS; l++) {
        const result r = best[l];
        if (!r.ok) status = 1;
        double s = r.states ? (double)r.states : 1;
        printf("%-11s %10llu %9.1f %9.1f %11.2f %9.2f", layout_names[l],
               (unsigned long long)r.states, r.ns_insert, r.ns_lookup, r.bytes / s,
               r.rss_bytes / s);
        if (base.ok && l >= JUDY1 && base.bytes > 0)
            printf(" %9.2f %9.2f", (r.bytes / s) / (base.bytes / (double)base.states),
                   r.ns_insert / base.ns_insert);
        else
            printf(" %9s %9s", "-", "-");
        printf(" %10.3g%s\n", r.omission, r.ok ? "" : "  FAILED");
    }
    return status;
}
