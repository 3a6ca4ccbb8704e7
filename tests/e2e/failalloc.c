/* failalloc.c: allocation failure injection for a test-only build of mcheck
 * (mcheck_failalloc), linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
 * so that every allocation made by mcheck's own code and by the static
 * libJudy.a goes through here (the C library's internal allocations do not).
 *
 *   MCHECK_FAIL_ALLOC_AFTER=N   allocation N+1 and every later one fail
 *                               (N=0: all fail); unset: none fails
 *   MCHECK_FAIL_ALLOC_ONCE=1    only allocation N+1 fails, later ones succeed
 *                               (exercises the paths that recover)
 *   MCHECK_FAIL_ALLOC_REPORT=1  at exit, print "failalloc: N allocations" on
 *                               stderr (how many a run makes)
 * In the spirit of Lua's ltests and SQLite's test malloc. Global state is
 * fine here: this is a test harness, one per process. tests/e2e/failalloc.py
 * drives it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static bool configured, fail_once, report;
static unsigned long long after = ~0ull;
static _Atomic unsigned long long count; /* -j N: allocations from several threads */

static void print_count(void)
{
    fprintf(stderr, "failalloc: %llu allocations\n", (unsigned long long)count);
}

static void configure(void)
{
    configured = true;
    const char *a = getenv("MCHECK_FAIL_ALLOC_AFTER");
    if (a && *a) after = strtoull(a, NULL, 10);
    const char *o = getenv("MCHECK_FAIL_ALLOC_ONCE");
    fail_once = o && *o == '1';
    const char *r = getenv("MCHECK_FAIL_ALLOC_REPORT");
    report = r && *r == '1';
    if (report) atexit(print_count);
}

/* Counts this allocation; true if it must fail. */
static bool must_fail(void)
{
    if (!configured) configure();
    unsigned long long k = ++count;
    if (after == ~0ull) return false;
    return fail_once ? k == after + 1 : k > after;
}

void *__wrap_malloc(size_t n)
{
    return must_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return must_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return must_fail() ? NULL : __real_realloc(p, n);
}
