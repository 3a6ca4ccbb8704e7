/* common.c: the helpers of common.h, which both the command line and the
 * reports may call: JSON string literals, reading a whole file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

char *tool_read_file(const char *path, size_t *len, bool *nomem)
{
    *nomem = false;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) *nomem = true;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap > ((size_t)1 << 30)) {
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            *nomem = true;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = errno;
    if (buf && ferror(f)) {
        err = errno;
        free(buf);
        buf = NULL;
    }
    fclose(f);
    errno = err;
    *len = n;
    return buf;
}
