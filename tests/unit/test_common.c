/* test_common.c: tools/common/'s helpers: the memory cgroup's limit read
 * from a fake root laid out as /proc and /sys/fs/cgroup are (cgroup v1 and
 * v2, no limit, the lower of two, missing files), and the process's memory
 * limit (tool_memory_limit(): at most the physical memory). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "testutil.h"

static char root[64];

/* Write `text` to root/rel, making the folders on the way. */
static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void fresh_root(void)
{
    char cmd[128];
    if (root[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        CHECK(system(cmd) == 0);
    }
    strcpy(root, "/tmp/mcheck-test-common-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
}

static void cgroup_v2(void)
{
    fresh_root();
    put("proc/self/cgroup", "0::/jobs/one\n");
    put("sys/fs/cgroup/jobs/one/memory.max", "1073741824\n");
    CHECK(tool_cgroup_limit(root) == 1073741824u);
    put("sys/fs/cgroup/jobs/one/memory.max", "max\n"); /* no limit */
    CHECK(tool_cgroup_limit(root) == 0);
    put("proc/self/cgroup", "0::/\n"); /* the root cgroup: its own file */
    put("sys/fs/cgroup/memory.max", "2097152\n");
    CHECK(tool_cgroup_limit(root) == 2097152u);
}

static void cgroup_v1(void)
{
    fresh_root();
    put("proc/self/cgroup", "9:name=systemd:/\n5:devices:/\n4:memory:/api/x\n0::/\n");
    put("sys/fs/cgroup/memory/api/x/memory.limit_in_bytes", "536870912\n");
    CHECK(tool_cgroup_limit(root) == 536870912u);
    put("sys/fs/cgroup/memory/api/x/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(tool_cgroup_limit(root) == 0); /* v1 without a limit */
    put("proc/self/cgroup", "3:cpu,memory:/api/x\n"); /* controllers listed together */
    put("sys/fs/cgroup/memory/api/x/memory.limit_in_bytes", "4096\n");
    CHECK(tool_cgroup_limit(root) == 4096u);
}

static void the_lower_of_two(void)
{
    fresh_root();
    put("proc/self/cgroup", "4:memory:/a\n0::/b\n");
    put("sys/fs/cgroup/memory/a/memory.limit_in_bytes", "8192\n");
    put("sys/fs/cgroup/b/memory.max", "4096\n");
    CHECK(tool_cgroup_limit(root) == 4096u);
    put("sys/fs/cgroup/b/memory.max", "max\n");
    CHECK(tool_cgroup_limit(root) == 8192u);
}

static void missing_files(void)
{
    fresh_root();
    CHECK(tool_cgroup_limit(root) == 0); /* no /proc/self/cgroup */
    put("proc/self/cgroup", "0::/nowhere\ngarbage\n");
    CHECK(tool_cgroup_limit(root) == 0);
}

static void process_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    uint64_t mem = (uint64_t)pages * (uint64_t)page, got = tool_memory_limit();
    CHECK(got > 0 && got <= mem);
}

int main(void)
{
    TEST_RUN(cgroup_v2);
    TEST_RUN(cgroup_v1);
    TEST_RUN(the_lower_of_two);
    TEST_RUN(missing_files);
    TEST_RUN(process_limit);
    if (root[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        if (system(cmd) != 0) return 1;
    }
    return test_finish();
}
