/* testutil.h: a minimal unit-test harness. Each test executable calls
 * TEST_RUN(fn) for its cases and returns test_finish(), which prints the
 * closing line "N passed, N failed" and the exit status ctest reads. A case
 * passes when none of its CHECKs failed. */
#ifndef MCHECK_TESTUTIL_H
#define MCHECK_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern int test_case_failed;

void test_fail(const char *file, int line, const char *what);
void test_run(const char *name, void (*fn)(void));
int test_finish(void);

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) test_fail(__FILE__, __LINE__, #cond);                     \
    } while (0)
#define CHECK_EQ_INT(got, want)                                                \
    do {                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);               \
        if (g_ != w_) {                                                        \
            char b_[256];                                                      \
            snprintf(b_, sizeof b_, "%s == %lld, expected %lld", #got, g_, w_); \
            test_fail(__FILE__, __LINE__, b_);                                 \
        }                                                                      \
    } while (0)
#define CHECK_CONTAINS(hay, needle)                                            \
    do {                                                                       \
        const char *h_ = (hay);                                                \
        if (!h_ || !strstr(h_, (needle))) {                                    \
            char b_[1024];                                                     \
            snprintf(b_, sizeof b_, "expected \"%s\" in:\n%s", (needle),       \
                     h_ ? h_ : "(null)");                                      \
            test_fail(__FILE__, __LINE__, b_);                                 \
        }                                                                      \
    } while (0)
#define TEST_RUN(fn) test_run(#fn, fn)

#endif
