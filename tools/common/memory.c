/* memory.c: how much memory this process may use, for mcheck's default
 * --memlimit (tools/cli/options.c): the physical memory, or the memory
 * cgroup's limit when that is lower (a container, a batch job). The cgroup
 * is this process's, from /proc/self/cgroup: cgroup v2's memory.max, or
 * v1's memory.limit_in_bytes ("max" and v1's near-2^63 value: no limit). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* The number in file `path`, or 0 (none, "max", unreadable). */
static uint64_t read_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    if (fscanf(f, "%llu", &v) != 1) v = 0;
    fclose(f);
    return v >= (1ull << 62) ? 0 : (uint64_t)v; /* v1 without a limit: about 2^63 */
}

static uint64_t lower(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

uint64_t tool_cgroup_limit(const char *root)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/proc/self/cgroup", root);
    FILE *f = fopen(path, "r");
    uint64_t limit = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        /* "ID:CONTROLLERS:PATH": v2 is "0::PATH", v1's memory line names it */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = 0;
        const char *cg = c2 + 1;
        bool v2 = c1[1] == 0, v1 = false; /* v2: no controller named */
        for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
            if (!strcmp(tok, "memory")) v1 = true;
        if (!v1 && !v2) continue;
        if (!strcmp(cg, "/")) cg = "";
        snprintf(path, sizeof path, v2 ? "%s/sys/fs/cgroup%s/memory.max"
                                       : "%s/sys/fs/cgroup/memory%s/memory.limit_in_bytes",
                 root, cg);
        limit = lower(limit, read_limit(path));
    }
    fclose(f);
    return limit;
}

uint64_t tool_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    return lower(mem, tool_cgroup_limit(""));
}
