/* testutil.c: see testutil.h. */
#include "testutil.h"

int test_case_failed;
static int passed, failed;

void test_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    test_case_failed = 1;
}

void test_run(const char *name, void (*fn)(void))
{
    test_case_failed = 0;
    fn();
    if (test_case_failed) {
        failed++;
        fprintf(stderr, "FAIL %s\n", name);
    } else {
        passed++;
    }
}

int test_finish(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
