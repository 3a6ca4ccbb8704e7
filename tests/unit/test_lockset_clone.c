/* test_lockset_clone.c: lock-set detector tests (part of test_lockset) for
 * clones of one detector (ls_clone) used in several pthreads at once, as a
 * parallel search's workers do: concurrent interning, hooks on random walks
 * and races reported by one clone only. */
#include <pthread.h>

#include "test_lockset_int.h"

/* ---- clones in several threads (ls_clone) --------------------------------- */

enum { CL_THREADS = 4, CL_OBJS = 70, CL_PAIRS = CL_OBJS * (CL_OBJS + 1) / 2 };

typedef struct cl_intern {
    ls_detector *d;     /* the original: thread 0 uses it, the others clone it */
    int t;
    uint32_t id[CL_PAIRS]; /* the id of pair k, {i, j} with i <= j */
    int bad;            /* failures seen in the thread (CHECK is not thread-safe) */
} cl_intern;

static uint32_t pair_index(uint32_t i, uint32_t j) /* i <= j < CL_OBJS */
{
    return i * CL_OBJS - i * (i - 1) / 2 + (j - i);
}

/* Intern every pair {i, j} in an order of its own (thread t starts at a
 * different pair and walks with a different stride), twice, and look each
 * set up again while others intern. */
static void *cl_intern_main(void *arg)
{
    cl_intern *c = arg;
    ls_detector *d = c->t == 0 ? c->d : ls_clone(c->d);
    if (!d) {
        c->bad++;
        return NULL;
    }
    static const uint32_t stride[CL_THREADS] = {1, 3, 11, 2477}; /* coprime to CL_PAIRS = 5 * 7 * 71 */
    for (int round = 0; round < 2; round++)
        for (uint32_t n = 0; n < CL_PAIRS; n++) {
            uint32_t k = (uint32_t)(((uint64_t)n * stride[c->t] + 611u * (uint32_t)c->t) % CL_PAIRS);
            uint32_t i = 0;
            while (pair_index(i + 1, i + 1) <= k) i++;
            uint32_t j = i + (k - pair_index(i, i));
            uint32_t objs[] = {j, i, j};
            uint32_t id = ls_intern(d, objs, 3);
            if (id == UINT32_MAX || (round == 1 && id != c->id[k])) c->bad++;
            c->id[k] = id;
            char b[64], want[64];
            ls_format_set(d, NULL, id, b, sizeof b);
            if (i == j) snprintf(want, sizeof want, "{k[%u]}", i);
            else snprintf(want, sizeof want, "{k[%u], k[%u]}", i, j);
            if (strcmp(b, want)) c->bad++;
        }
    if (ls_interned(d) < 2 || ls_seconds(d) != 0.0 || ls_last_report(d)->kind != LS_OFF)
        c->bad++;
    if (d != c->d) ls_free(d);
    return NULL;
}

/* Threads intern overlapping sequences of sets at once: the same set gets
 * the same id in every thread, the ids are 0 .. n-1 with n distinct sets. */
void clone_interning(void)
{
    vm_program *p = assemble("shared x\nlock k[70]\nchan c\nvolatile v\nthread t[2]\n  nop\n");
    if (!p) return;
    ls_detector *d = ls_new(LS_GOLDILOCKS, p, p->layout.size);
    CHECK(d != NULL);
    if (!d) return;
    static cl_intern c[CL_THREADS];
    pthread_t th[CL_THREADS];
    for (int t = 0; t < CL_THREADS; t++) {
        c[t].d = d;
        c[t].t = t;
        c[t].bad = 0;
        CHECK_EQ_INT(pthread_create(&th[t], NULL, cl_intern_main, &c[t]), 0);
    }
    for (int t = 0; t < CL_THREADS; t++) pthread_join(th[t], NULL);
    uint64_t n = ls_interned(d);
    CHECK_EQ_INT(n, 1 + CL_PAIRS); /* the empty set and every pair */
    char *seen = calloc(n, 1);
    int differ = 0, outside = 0, shared = 0;
    for (int t = 0; t < CL_THREADS; t++) {
        CHECK_EQ_INT(c[t].bad, 0);
        for (uint32_t k = 0; k < CL_PAIRS; k++) {
            differ += c[t].id[k] != c[0].id[k];
            outside += c[t].id[k] < 1 || c[t].id[k] >= n;
        }
    }
    for (uint32_t k = 0; k < CL_PAIRS && seen; k++) {
        if (c[0].id[k] < n) {
            shared += seen[c[0].id[k]]; /* distinct sets, distinct ids: dense */
            seen[c[0].id[k]] = 1;
        }
    }
    CHECK_EQ_INT(differ, 0);
    CHECK_EQ_INT(outside, 0);
    CHECK_EQ_INT(shared, 0);
    free(seen);
    /* a clone sees what was interned before it, and a clone of a clone too */
    ls_detector *c1 = ls_clone(d), *c2 = c1 ? ls_clone(c1) : NULL;
    CHECK(c1 && c2);
    if (c1 && c2) {
        uint32_t objs[] = {5, 69};
        CHECK_EQ_INT(ls_intern(c2, objs, 2), c[0].id[pair_index(5, 69)]);
        uint32_t fresh[] = {1, 2, 3};
        uint32_t id = ls_intern(c2, fresh, 3);
        CHECK_EQ_INT(id, n);
        CHECK_EQ_INT(ls_intern(d, fresh, 3), id);
        CHECK_EQ_INT(ls_interned(c1), n + 1);
        CHECK_EQ_INT(ls_meta_bytes(c2), ls_meta_bytes(d));
    }
    ls_free(c2);
    ls_free(c1);
    ls_free(d);
    vm_program_free(p);
}

/* Random walks of the philosophers (deadlock ends a walk) with the hooks of
 * a clone installed, several threads at once; walk w is seeded by w. */
enum { CL_WALKS = 48, CL_STEPS = 200 };

typedef struct cl_walk {
    const vm_program *p;
    ls_detector *d;     /* the original */
    int t;
    uint8_t *end[CL_WALKS]; /* the last state of each walk this thread made */
    int bad;
} cl_walk;

static uint8_t *walk(const vm_program *p, ls_detector *d, uint32_t seed)
{
    uint32_t size = p->layout.size + ls_meta_bytes(d);
    uint8_t *s = calloc(1, size);
    if (!s) return NULL;
    memcpy(s, p->init_state, p->layout.size);
    ls_init_meta(d, s);
    vm_hooks h;
    memset(&h, 0, sizeof h);
    ls_hooks(d, &h);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int n = 0; n < CL_STEPS; n++) {
        int en[8], k = 0;
        for (int t = 0; t < (int)p->nthreads && k < 8; t++)
            if (vm_enabled(p, s, t)) en[k++] = t;
        if (k == 0) break;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        vm_fault flt;
        if (vm_step(p, s, en[x % (uint64_t)k], 0, &h, &flt) != VM_OK) break;
        ls_canonicalize(d, s);
    }
    return s;
}

static void *cl_walk_main(void *arg)
{
    cl_walk *c = arg;
    ls_detector *d = c->t == 0 ? c->d : ls_clone(c->d);
    if (!d) {
        c->bad++;
        return NULL;
    }
    for (int w = 0; w < CL_WALKS; w++) /* each thread its own order */
        c->end[(w + 5 * c->t) % CL_WALKS] = walk(c->p, d, (uint32_t)((w + 5 * c->t) % CL_WALKS));
    if (d != c->d) ls_free(d);
    return NULL;
}

/* The same walks in every thread, at once: each ends in the same bytes, and
 * the original run alone afterwards (every set already interned) too. */
void clone_hooks(void)
{
    const char *src = "const N = 4\nlock fork[N]\nshared meals[N]\nvolatile v\n"
                      "thread phil[N]\n  reg left, right, m\n  mov left, self\n"
                      "  add right, self, 1\n  mod right, right, N\nloop:\n"
                      "  acquire fork[left]\n  acquire fork[right]\n  load m, meals[left]\n"
                      "  add m, m, 1\n  mod m, m, 3\n  store meals[left], m\n"
                      "  load m, meals[right]\n  store meals[right], m\n"
                      "  store v, m\n  release fork[right]\n  release fork[left]\n"
                      "  load m, v\n  jmp loop\n";
    vm_program *p = assemble(src);
    if (!p) return;
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++) {
        ls_detector *d = ls_new((ls_kind)k, p, p->layout.size);
        CHECK(d != NULL);
        if (!d) break;
        static cl_walk c[CL_THREADS];
        pthread_t th[CL_THREADS];
        for (int t = 0; t < CL_THREADS; t++) {
            memset(&c[t], 0, sizeof c[t]);
            c[t].p = p;
            c[t].d = d;
            c[t].t = t;
            CHECK_EQ_INT(pthread_create(&th[t], NULL, cl_walk_main, &c[t]), 0);
        }
        for (int t = 0; t < CL_THREADS; t++) pthread_join(th[t], NULL);
        uint64_t n = ls_interned(d);
        CHECK(n >= (k == LS_GOLDILOCKS ? 40u : 9u)); /* the walks did meet sets */
        uint32_t size = p->layout.size + ls_meta_bytes(d);
        for (int w = 0; w < CL_WALKS; w++) {
            uint8_t *ref = walk(p, d, (uint32_t)w);
            CHECK(ref != NULL);
            for (int t = 0; t < CL_THREADS; t++) {
                CHECK_EQ_INT(c[t].bad, 0);
                CHECK(ref && c[t].end[w] && !memcmp(ref, c[t].end[w], size));
                free(c[t].end[w]);
            }
            free(ref);
        }
        CHECK_EQ_INT(ls_interned(d), n); /* nothing new */
        /* every id names a distinct set */
        char (*str)[128] = calloc(n, sizeof *str);
        for (uint32_t i = 0; str && i < n; i++) {
            ls_format_set(d, NULL, i, str[i], sizeof str[i]);
            for (uint32_t j = 0; j < i; j++)
                if (!strcmp(str[i], str[j])) CHECK(!"two ids, one set");
        }
        free(str);
        ls_free(d);
    }
    vm_program_free(p);
}

/* A race found by one clone is its report: another clone and the original
 * keep theirs. */
typedef struct cl_report {
    ls_detector *d;
    const vm_program *p;
    const char *script; /* thread ids to step, in order, until one stops */
    vm_status rc;
    ls_report rep;
} cl_report;

static void *cl_report_main(void *arg)
{
    cl_report *c = arg;
    uint8_t *s = calloc(1, c->p->layout.size + ls_meta_bytes(c->d));
    c->rc = VM_FAULT;
    if (!s) return NULL;
    memcpy(s, c->p->init_state, c->p->layout.size);
    ls_init_meta(c->d, s);
    vm_hooks h;
    memset(&h, 0, sizeof h);
    ls_hooks(c->d, &h);
    c->rc = VM_OK;
    for (int rep = 0; rep < 200 && c->rc == VM_OK; rep++) {
        for (const char *q = c->script; *q && c->rc == VM_OK; q++) {
            int tid = *q - '0';
            if (!vm_enabled(c->p, s, tid)) continue;
            vm_fault flt;
            c->rc = vm_step(c->p, s, tid, 0, &h, &flt);
        }
    }
    c->rep = *ls_last_report(c->d);
    free(s);
    return NULL;
}

void clone_reports(void)
{
    const char *src = "shared x\nlock m\n"
                      "thread a\nloop:\n  acquire m\n  load r0, x\n  add r0, r0, 1\n"
                      "  store x, r0\n  release m\n  jmp loop\n"
                      "thread b\nloop2:\n  acquire m\n  load r0, x\n  release m\n"
                      "  load r1, x\n  jmp loop2\n";
    vm_program *p = assemble(src);
    if (!p) return;
    ls_detector *d = ls_new(LS_GOLDILOCKS, p, p->layout.size);
    CHECK(d != NULL);
    if (!d) return;
    cl_report c[3] = {
        {ls_clone(d), p, "0000000", VM_OK, {0}}, /* a alone: clean */
        {ls_clone(d), p, "0000001111111", VM_OK, {0}}, /* b reads x unlocked after a wrote */
        {ls_clone(d), p, "1111100000", VM_OK, {0}},
    };
    pthread_t th[3];
    for (int t = 0; t < 3; t++) {
        CHECK(c[t].d != NULL);
        if (!c[t].d) return;
        CHECK_EQ_INT(pthread_create(&th[t], NULL, cl_report_main, &c[t]), 0);
    }
    for (int t = 0; t < 3; t++) pthread_join(th[t], NULL);
    CHECK_EQ_INT(c[0].rc, VM_OK);
    CHECK_EQ_INT(c[0].rep.kind, LS_OFF);
    CHECK_EQ_INT(ls_last_report(c[0].d)->kind, LS_OFF);
    for (int t = 1; t < 3; t++) {
        CHECK_EQ_INT(c[t].rc, VM_STOPPED);
        CHECK_EQ_INT(c[t].rep.kind, LS_GOLDILOCKS);
        CHECK_CONTAINS(c[t].rep.msg, "data race on 'x'");
        CHECK_EQ_INT(ls_last_report(c[t].d)->kind, LS_GOLDILOCKS);
    }
    CHECK_EQ_INT(ls_last_report(d)->kind, LS_OFF);
    CHECK_EQ_INT(ls_seconds(d), 0.0); /* the clones' time is their own */
    for (int t = 0; t < 3; t++) ls_free(c[t].d);
    ls_free(d);
    vm_program_free(p);
}
