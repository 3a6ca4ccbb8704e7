/* rapid.c: RAPID's text trace format (Mathur's RAPID tool, its "std"
 * format, which ZipTrack's tool chain takes too): one event per line,
 * `THREAD|OP(ARG)|LOC`, OP one of r w acq rel fork join, ARG a variable, a
 * lock or a thread by name, LOC a source location (any text; RAPID wants a
 * number). Read and written here; what it means is trace.h's.
 *
 * Beyond RAPID (docs/usage.md, "Traces"): LOC and the second '|' may be
 * left out, blank lines and lines starting with '#' are skipped. Not taken:
 * RAPID's transaction events begin and end (no analysis here uses them).
 * Errors are `FILE:LINE: error: ...`, at most MAX_ERRORS of them. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "trace.h"

#define MAX_ERRORS 20

static const char *const op_names[TR_NOPS] = {
    [TR_READ] = "r", [TR_WRITE] = "w", [TR_ACQ] = "acq",
    [TR_REL] = "rel", [TR_FORK] = "fork", [TR_JOIN] = "join",
};

const char *tr_op_name(unsigned op) { return op < TR_NOPS ? op_names[op] : "?"; }

unsigned tr_op_parse(const char *s, size_t len)
{
    for (unsigned op = 0; op < TR_NOPS; op++)
        if (strlen(op_names[op]) == len && !memcmp(op_names[op], s, len)) return op;
    return TR_NOPS;
}

const tr_table *tr_obj_table(const tr_names *n, unsigned op)
{
    switch (op) {
    case TR_READ: case TR_WRITE: return &n->vars;
    case TR_ACQ: case TR_REL: return &n->locks;
    default: return &n->threads;
    }
}

static tr_table *obj_table(tr_names *n, unsigned op)
{
    return (tr_table *)tr_obj_table(n, op);
}

typedef struct reader {
    const char *file;
    FILE *diag;
    uint64_t line;
    unsigned nerrors;
} reader;

__attribute__((format(printf, 2, 3))) static void error(reader *r, const char *fmt, ...)
{
    if (r->nerrors++ >= MAX_ERRORS) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(r->diag, "%s:%llu: error: ", r->file, (unsigned long long)r->line);
    vfprintf(r->diag, fmt, ap);
    fputc('\n', r->diag);
    va_end(ap);
}

/* The length of a span for "%.*s". */
static int span(const char *a, const char *b) { return (int)(b - a); }

static bool has_space(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f') return true;
    return false;
}

/* One line (no newline), n bytes: an event pushed, nothing (blank or
 * comment), or an error said. false only when out of memory. */
static bool read_line(reader *r, char *s, size_t n, tr_names *names,
                      bool (*fn)(void *ctx, const tr_event *e), void *ctx)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i == n || s[i] == '#') return true;
    const char *bar1 = memchr(s, '|', n);
    if (!bar1) {
        error(r, "expected THREAD|OP(ARG)|LOC, got '%.*s'", (int)n, s);
        return true;
    }
    const char *op = bar1 + 1, *end = s + n;
    const char *bar2 = memchr(op, '|', (size_t)(end - op));
    const char *opend = bar2 ? bar2 : end;
    const char *loc = bar2 ? bar2 + 1 : end;
    if (bar2 && memchr(loc, '|', (size_t)(end - loc))) {
        error(r, "too many fields in '%.*s' (expected THREAD|OP(ARG)|LOC)", (int)n, s);
        return true;
    }
    size_t tlen = (size_t)(bar1 - s), olen = (size_t)(opend - op);
    if (tlen == 0) {
        error(r, "empty thread name in '%.*s'", (int)n, s);
        return true;
    }
    const char *paren = memchr(op, '(', olen);
    if (!paren) {
        error(r, "expected OP(ARG) after the thread, got '%.*s'", (int)olen, op);
        return true;
    }
    unsigned o = tr_op_parse(op, (size_t)(paren - op));
    if (o == TR_NOPS) {
        error(r, "unknown op '%.*s' (expected r, w, acq, rel, fork or join)", span(op, paren),
              op);
        return true;
    }
    if (opend[-1] != ')') {
        error(r, "missing ')' at the end of '%.*s'", (int)olen, op);
        return true;
    }
    const char *arg = paren + 1;
    size_t alen = (size_t)(opend - 1 - arg);
    if (alen == 0) {
        error(r, "missing argument of '%.*s'", span(op, paren), op);
        return true;
    }
    if (has_space(arg, alen) || has_space(s, tlen)) {
        error(r, "white space in '%.*s' (names have none)", span(s, opend), s);
        return true;
    }
    if ((o == TR_FORK || o == TR_JOIN) && alen == tlen && !memcmp(arg, s, tlen)) {
        error(r, "thread '%.*s' cannot %s itself", (int)tlen, s, op_names[o]);
        return true;
    }
    tr_event e = {.op = (uint8_t)o, .loc = TR_NO_LOC};
    e.thread = tr_intern(&names->threads, s, tlen);
    e.obj = tr_intern(obj_table(names, o), arg, alen);
    if (e.thread == UINT32_MAX || e.obj == UINT32_MAX) return false;
    if (loc < end) {
        e.loc = tr_intern(&names->locs, loc, (size_t)(end - loc));
        if (e.loc == UINT32_MAX) return false;
    }
    /* after an error the events go nowhere: the input is refused anyway */
    return r->nerrors || fn(ctx, &e);
}

static bool push(void *ctx, const tr_event *e) { return tr_push(ctx, *e); }

bool tr_read_rapid(FILE *in, const char *file, FILE *diag, tr_trace *out, bool *nomem)
{
    return tr_read_rapid_each(in, file, diag, &out->names, push, out, nomem);
}

bool tr_read_rapid_each(FILE *in, const char *file, FILE *diag, tr_names *names,
                        bool (*fn)(void *ctx, const tr_event *e), void *ctx, bool *nomem)
{
    reader r = {.file = file, .diag = diag};
    char *buf = NULL;
    size_t cap = 0;
    ssize_t got;
    *nomem = false;
    while ((got = getline(&buf, &cap, in)) >= 0) {
        size_t n = (size_t)got;
        r.line++;
        if (n && buf[n - 1] == '\n') n--;
        if (n && buf[n - 1] == '\r') n--;
        if (memchr(buf, '\0', n)) {
            error(&r, "a NUL byte in the line");
            continue;
        }
        if (!read_line(&r, buf, n, names, fn, ctx)) {
            *nomem = true;
            break;
        }
        if (r.nerrors > MAX_ERRORS) {
            fprintf(diag, "%s: error: too many errors, stopped\n", file);
            break;
        }
    }
    if (!*nomem && ferror(in)) {
        fprintf(diag, "%s: error: cannot read the file\n", file);
        r.nerrors++;
    }
    free(buf);
    if (*nomem) fprintf(diag, "%s: error: out of memory\n", file);
    return !*nomem && r.nerrors == 0;
}

void tr_write_rapid(FILE *out, const tr_names *n, const tr_event *e)
{
    const tr_table *t = tr_obj_table(n, e->op);
    fprintf(out, "%s|%s(%s)", n->threads.v[e->thread], tr_op_name(e->op), t->v[e->obj]);
    if (e->loc != TR_NO_LOC) fprintf(out, "|%s", n->locs.v[e->loc]);
    fputc('\n', out);
}
