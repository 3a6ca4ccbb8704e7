/* storebench.c: micro-benchmark of the visited-state stores. Inserts N
 * distinct pseudo-random 32-byte vectors into each store kind, then looks
 * every one up again, and prints ns per insert and per lookup, bytes per
 * state as store_bytes() counts them and as the process's resident set grew,
 * and the ratios against the baseline: a plain Judy1 set of the 64-bit XXH3
 * fingerprints. Each layout runs in its own child process so the RSS figures
 * do not share a heap; with --repeat R each layout runs R times
 * (interleaved) and the fastest run counts, to damp a busy machine.
 * Usage: storebench [--n N] [--repeat R] [--bitstate-bytes B].
 * Not a test: it checks only that every vector went in. docs/statestore.md
 * has the figures and how they were taken. */
#include "store.h"

#include <Judy.h>
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

/* Runs measure() in a child so every layout starts from a fresh heap. */
static result measure_in_child(layout l, uint64_t n, uint64_t bitstate_bytes)
{
    result r = {0};
    int fd[2];
    if (pipe(fd) != 0) return r;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        r = measure(l, n, bitstate_bytes);
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    if (pid < 0 || read(fd[0], &r, sizeof r) != (ssize_t)sizeof r) r.ok = 0;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return r;
}

/* Fastest times and smallest resident growth of two runs into *best. */
static void keep_best(result *best, const result *r)
{
    if (r->ns_insert < best->ns_insert) best->ns_insert = r->ns_insert;
    if (r->ns_lookup < best->ns_lookup) best->ns_lookup = r->ns_lookup;
    if (r->rss_bytes < best->rss_bytes) best->rss_bytes = r->rss_bytes;
}

static void usage(void)
{
    fprintf(stderr, "usage: storebench [--n N] [--repeat R] [--bitstate-bytes B]\n");
}

int main(int argc, char **argv)
{
    uint64_t n = 1000000, bitstate_bytes = 0, repeat = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            n = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--bitstate-bytes") && i + 1 < argc) {
            bitstate_bytes = strtoull(argv[++i], NULL, 10);
        } else {
            usage();
            return 2;
        }
    }
    if (n == 0 || repeat == 0) {
        usage();
        return 2;
    }
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
