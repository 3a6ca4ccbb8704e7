/* common.h: helpers of tools/ that are neither the command line's
 * (tools/cli/) nor the reports' (tools/report/): a JSON string literal as
 * every JSON file mcheck writes spells it (the reports, mcheck --replay's
 * report), a whole file read into memory (the model, --replay's trace),
 * and the memory the process may use (the default --memlimit).
 * Nothing here knows of models, searches or options; it includes no header
 * of the project. */
#ifndef MCHECK_TOOLS_COMMON_H
#define MCHECK_TOOLS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A JSON string literal with escapes: '"' and '\\' escaped, every byte
 * outside printable ASCII as \u00XX (replay_cli.c's same_text() reads it
 * back). */
void json_string(FILE *out, const char *s);

/* The whole file at `path` (at most 1 GiB), or NULL with *nomem telling
 * out of memory (exit 3) from an error reading it (errno; exit 2). The
 * caller frees it. */
char *tool_read_file(const char *path, size_t *len, bool *nomem);

/* The memory this process may use: the physical memory, or its memory
 * cgroup's limit when lower (memory.c); 0 if neither is known. */
uint64_t tool_memory_limit(void);
/* The cgroup part, read under `root` ("" for the machine's own files; a
 * directory laid out the same way for the tests): the lowest memory limit
 * of the cgroups /proc/self/cgroup names, or 0 for none. */
uint64_t tool_cgroup_limit(const char *root);

#endif
