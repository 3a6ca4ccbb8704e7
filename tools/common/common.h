/* common.h: helpers of tools/ that are neither the command line's
 * (tools/cli/) nor the reports' (tools/report/): a JSON string literal as
 * every JSON file mcheck writes spells it (the reports, mcheck --replay's
 * report), and a whole file read into memory (the model, --replay's trace).
 * Nothing here knows of models, searches or options; it includes no header
 * of the project. */
#ifndef MCHECK_TOOLS_COMMON_H
#define MCHECK_TOOLS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A JSON string literal with escapes: '"' and '\\' escaped, every byte
 * outside printable ASCII as \u00XX (replay_cli.c's same_text() reads it
 * back). */
void json_string(FILE *out, const char *s);

/* The whole file at `path` (at most 1 GiB), or NULL with *nomem telling
 * out of memory (exit 3) from an error reading it (errno; exit 2). The
 * caller frees it. */
char *tool_read_file(const char *path, size_t *len, bool *nomem);

#endif
