/* slp_file.c: the grammar file, an SLP (trace.h) as text (docs/usage.md,
 * "Traces", has the format for users). Line-oriented, so that it is easy
 * to write by hand (the tests write the paper's sigma1 and sigma2 in it) and
 * to diff:
 *
 *   mcheck-slp 1            the first line: format and version
 *   thread NAME             the name tables, ids from 0 in order of their
 *   lock NAME               lines (NAME: the rest of the line, blanks
 *                           around it dropped)
 *   var NAME
 *   loc NAME
 *   event T OP OBJ [LOC]    the terminals e0, e1, ...: thread T, op as in
 *                           RAPID, OBJ and LOC ids into the tables
 *   rule SYM ...            the rules r0 (the trace), r1, ...; SYM is eK
 *                           (event K) or rK (rule K)
 *
 * Blank lines and lines starting with '#' are skipped; event and rule lines
 * may end with a '#' comment. Reading checks everything an analysis trusts
 * (the interface's promise on tr_slp): ids in range, names unique and not
 * empty, sections in order, rule bodies of two or more symbols but r0's,
 * no cycle, every rule reachable from r0. It does not check that the trace
 * is well formed (locks released by their owners...): the analyses take
 * any trace. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "trace.h"

#define MAX_ERRORS 20
#define MAGIC "mcheck-slp"
#define VERSION 1

typedef struct parser {
    const char *file;
    FILE *diag;
    uint64_t line;
    unsigned nerrors;
    bool nomem;
    int section; /* 0 tables, 1 events, 2 rules */
    tr_slp *g;
    uint64_t termcap, symcap, bodycap;
    uint64_t *rule_line; /* the line of each rule, for later errors */
    uint64_t rlcap;
    uint64_t *term_line;
    uint64_t tlcap;
} parser;

__attribute__((format(printf, 3, 4))) static void error_at(parser *p, uint64_t line,
                                                          const char *fmt, ...)
{
    if (p->nerrors++ >= MAX_ERRORS) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(p->diag, "%s:%llu: error: ", p->file, (unsigned long long)line);
    vfprintf(p->diag, fmt, ap);
    fputc('\n', p->diag);
    va_end(ap);
}

#define ERROR(p, ...) error_at(p, (p)->line, __VA_ARGS__)

static bool grow(void **v, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint64_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    if (c > SIZE_MAX / elem) return false;
    void *q = realloc(*v, (size_t)(c * elem));
    if (!q) return false;
    *v = q;
    *cap = c;
    return true;
}

/* The next token of *s (space or tab separated), its length in *n; NULL at
 * the end of the line or at a '#' comment. */
static const char *token(const char **s, size_t *n)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') {
        *s = p;
        return NULL;
    }
    const char *b = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    *n = (size_t)(p - b);
    *s = p;
    return b;
}

/* A decimal id below `limit` (the token's n bytes); false if not one. */
static bool parse_id(const char *t, size_t n, uint64_t limit, uint32_t *v)
{
    if (n == 0 || n > 10) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9') return false;
        x = x * 10 + (uint64_t)(t[i] - '0');
    }
    if (n > 1 && t[0] == '0') return false;
    if (x >= limit) return false;
    *v = (uint32_t)x;
    return true;
}

static const char *const table_kw[4] = {"thread", "lock", "var", "loc"};

static tr_table *table_of(tr_names *n, int k)
{
    switch (k) {
    case 0: return &n->threads;
    case 1: return &n->locks;
    case 2: return &n->vars;
    default: return &n->locs;
    }
}

static void name_line(parser *p, int k, const char *rest)
{
    if (p->section > 0) {
        ERROR(p, "'%s' after the first event: the name tables come first", table_kw[k]);
        return;
    }
    size_t len = strlen(rest);
    while (len && (rest[len - 1] == ' ' || rest[len - 1] == '\t')) len--;
    if (!len) {
        ERROR(p, "empty %s name", table_kw[k]);
        return;
    }
    tr_table *t = table_of(&p->g->names, k);
    uint32_t before = t->n, id = tr_intern(t, rest, len);
    if (id == UINT32_MAX) {
        p->nomem = true;
        return;
    }
    if (id != before)
        ERROR(p, "duplicate %s name '%.*s' (%s %u)", table_kw[k], (int)len, rest, table_kw[k], id);
}

static void event_line(parser *p, const char *rest)
{
    if (p->section > 1) {
        ERROR(p, "an event after the first rule: the events come before the rules");
        return;
    }
    p->section = 1;
    tr_slp *g = p->g;
    const char *tk[5];
    size_t n[5];
    int k = 0;
    while (k < 5 && (tk[k] = token(&rest, &n[k]))) k++;
    if (k < 3 || k > 4) {
        ERROR(p, "expected 'event THREAD OP OBJ [LOC]' (ids), got %d field%s", k, k == 1 ? "" : "s");
        return;
    }
    tr_event e = {.loc = TR_NO_LOC};
    unsigned op = tr_op_parse(tk[1], n[1]);
    if (op == TR_NOPS) {
        ERROR(p, "unknown op '%.*s' (expected r, w, acq, rel, fork or join)", (int)n[1], tk[1]);
        return;
    }
    e.op = (uint8_t)op;
    const tr_table *ot = tr_obj_table(&g->names, op);
    const char *what = op <= TR_WRITE ? "variable" : op <= TR_REL ? "lock" : "thread";
    if (!parse_id(tk[0], n[0], g->names.threads.n, &e.thread)) {
        ERROR(p, "'%.*s' is not a thread id (%u declared)", (int)n[0], tk[0], g->names.threads.n);
        return;
    }
    if (!parse_id(tk[2], n[2], ot->n, &e.obj)) {
        ERROR(p, "'%.*s' is not a %s id (%u %s%s declared)", (int)n[2], tk[2], what, ot->n, what,
              ot->n == 1 ? "" : "s");
        return;
    }
    if ((op == TR_FORK || op == TR_JOIN) && e.obj == e.thread) {
        ERROR(p, "thread %u cannot %s itself", e.thread, tr_op_name(op));
        return;
    }
    if (k == 4 && !parse_id(tk[3], n[3], g->names.locs.n, &e.loc)) {
        ERROR(p, "'%.*s' is not a loc id (%u declared)", (int)n[3], tk[3], g->names.locs.n);
        return;
    }
    if (g->nterms == UINT32_MAX - 1) {
        ERROR(p, "too many events");
        return;
    }
    if (!grow((void **)&g->terms, &p->termcap, (uint64_t)g->nterms + 1, sizeof *g->terms) ||
        !grow((void **)&p->term_line, &p->tlcap, (uint64_t)g->nterms + 1, sizeof *p->term_line)) {
        p->nomem = true;
        return;
    }
    p->term_line[g->nterms] = p->line;
    g->terms[g->nterms++] = e;
}

static void rule_line(parser *p, const char *rest)
{
    tr_slp *g = p->g;
    p->section = 2;
    if ((uint64_t)g->nterms + g->nrules >= UINT32_MAX - 1) {
        ERROR(p, "too many symbols");
        return;
    }
    if (!grow((void **)&g->body, &p->bodycap, (uint64_t)g->nrules + 2, sizeof *g->body) ||
        !grow((void **)&p->rule_line, &p->rlcap, (uint64_t)g->nrules + 1, sizeof *p->rule_line)) {
        p->nomem = true;
        return;
    }
    if (g->nrules == 0) g->body[0] = 0;
    uint64_t at = g->body[g->nrules];
    const char *t;
    size_t n;
    while ((t = token(&rest, &n))) {
        uint32_t v;
        bool term = t[0] == 'e';
        if ((t[0] != 'e' && t[0] != 'r') ||
            !parse_id(t + 1, n - 1, term ? g->nterms : UINT32_MAX - 1 - g->nterms, &v)) {
            if (term && parse_id(t + 1, n - 1, UINT32_MAX, &v))
                ERROR(p, "no event e%u (%u declared)", v, g->nterms);
            else
                ERROR(p, "expected eK (event K) or rK (rule K), got '%.*s'", (int)n, t);
            return;
        }
        if (!grow((void **)&g->sym, &p->symcap, at + 1, sizeof *g->sym)) {
            p->nomem = true;
            return;
        }
        g->sym[at++] = term ? v : g->nterms + v; /* rules checked once all are read */
    }
    p->rule_line[g->nrules] = p->line;
    g->body[++g->nrules] = at;
}

/* One line, NUL-terminated, without its newline. */
static void parse_line(parser *p, char *s)
{
    const char *rest = s;
    size_t n;
    const char *kw = token(&rest, &n);
    if (!kw) return; /* blank or a comment */
    while (*rest == ' ' || *rest == '\t') rest++; /* blanks around a name are dropped */
    for (int k = 0; k < 4; k++)
        if (strlen(table_kw[k]) == n && !memcmp(kw, table_kw[k], n)) {
            name_line(p, k, rest);
            return;
        }
    if (n == 5 && !memcmp(kw, "event", 5)) {
        event_line(p, rest);
        return;
    }
    if (n == 4 && !memcmp(kw, "rule", 4)) {
        rule_line(p, rest);
        return;
    }
    ERROR(p, "unknown line '%.*s' (expected thread, lock, var, loc, event or rule)", (int)n, kw);
}

/* The checks once every rule is read: references in range, bodies, no
 * cycle, every rule reachable from r0 (one iterative depth-first walk). */
static void check_rules(parser *p)
{
    tr_slp *g = p->g;
    if (g->nrules == 0) {
        error_at(p, p->line, "no rule: a grammar has at least r0, the trace ('rule' alone: "
                             "the empty trace)");
        return;
    }
    for (uint32_t r = 0; r < g->nrules; r++) {
        uint64_t len = g->body[r + 1] - g->body[r];
        if (r > 0 && len < 2)
            error_at(p, p->rule_line[r], "rule r%u has %llu symbol%s (every rule but r0 has two "
                     "or more)", r, (unsigned long long)len, len == 1 ? "" : "s");
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++)
            if (g->sym[i] >= g->nterms && g->sym[i] - g->nterms >= g->nrules)
                error_at(p, p->rule_line[r], "no rule r%u (%u rules)", g->sym[i] - g->nterms,
                         g->nrules);
    }
    if (p->nerrors) return;
    uint8_t *mark = calloc(g->nrules, 1); /* 0 new, 1 on the walk's stack, 2 done */
    uint32_t *rule = malloc((size_t)g->nrules * sizeof *rule);
    uint64_t *next = malloc((size_t)g->nrules * sizeof *next);
    if (!mark || !rule || !next) {
        p->nomem = true;
        goto out;
    }
    uint32_t sp = 0;
    rule[sp] = 0;
    next[sp++] = g->body[0];
    mark[0] = 1;
    while (sp) {
        uint32_t r = rule[sp - 1];
        if (next[sp - 1] == g->body[r + 1]) {
            mark[r] = 2;
            sp--;
            continue;
        }
        uint32_t s = g->sym[next[sp - 1]++];
        if (s < g->nterms || mark[s - g->nterms] == 2) continue;
        uint32_t c = s - g->nterms;
        if (mark[c] == 1) {
            error_at(p, p->rule_line[r], "rule r%u names r%u, which generates r%u: a cycle "
                     "(a grammar generates one finite trace)", r, c, r);
            goto out;
        }
        mark[c] = 1;
        rule[sp] = c; /* at most nrules entries: each rule is on the stack once */
        next[sp++] = g->body[c];
    }
    for (uint32_t r = 1; r < g->nrules; r++)
        if (!mark[r])
            error_at(p, p->rule_line[r], "rule r%u is not reachable from r0 (every rule is part "
                     "of the trace)", r);
out:
    free(mark);
    free(rule);
    free(next);
}

bool tr_slp_is_file(FILE *in)
{
    char buf[sizeof MAGIC + 1];
    size_t n = fread(buf, 1, sizeof MAGIC, in);
    rewind(in);
    return n == sizeof MAGIC && !memcmp(buf, MAGIC, sizeof MAGIC - 1) &&
           (buf[sizeof MAGIC - 1] == ' ' || buf[sizeof MAGIC - 1] == '\n');
}

bool tr_slp_read(FILE *in, const char *file, FILE *diag, tr_slp *out, bool *nomem)
{
    memset(out, 0, sizeof *out);
    parser p = {.file = file, .diag = diag, .g = out};
    char *buf = NULL;
    size_t cap = 0;
    ssize_t got;
    while (!p.nomem && (got = getline(&buf, &cap, in)) >= 0) {
        size_t n = (size_t)got;
        p.line++;
        if (n && buf[n - 1] == '\n') n--;
        if (n && buf[n - 1] == '\r') n--;
        if (memchr(buf, '\0', n)) {
            ERROR(&p, "a NUL byte in the line");
            continue;
        }
        buf[n] = '\0';
        if (p.line == 1) {
            const char *rest = buf;
            size_t kn, vn;
            const char *kw = token(&rest, &kn), *ver = token(&rest, &vn);
            uint32_t v;
            if (!kw || kn != sizeof MAGIC - 1 || memcmp(kw, MAGIC, kn) || !ver) {
                ERROR(&p, "not a grammar file (its first line is '%s %d')", MAGIC, VERSION);
                break;
            }
            if (!parse_id(ver, vn, UINT32_MAX, &v) || v != VERSION || token(&rest, &kn)) {
                ERROR(&p, "grammar file version '%.*s' (this mcheck reads '%s %d')", (int)vn, ver,
                      MAGIC, VERSION);
                break;
            }
            continue;
        }
        parse_line(&p, buf);
        if (p.nerrors > MAX_ERRORS) break;
    }
    if (!p.nomem && ferror(in)) ERROR(&p, "cannot read the file");
    if (p.line == 0) error_at(&p, 1, "empty file (a grammar file starts with '%s %d')", MAGIC, VERSION);
    if (!p.nomem && !p.nerrors) check_rules(&p);
    if (p.nerrors > MAX_ERRORS) fprintf(diag, "%s: error: too many errors, stopped\n", file);
    if (p.nomem) fprintf(diag, "%s: error: out of memory\n", file);
    free(buf);
    free(p.rule_line);
    free(p.term_line);
    *nomem = p.nomem;
    if (p.nomem || p.nerrors) {
        tr_slp_free(out);
        return false;
    }
    if (!out->body) { /* unreachable: check_rules() wants a rule */
        tr_slp_free(out);
        return false;
    }
    return true;
}

static bool write_table(FILE *out, const char *kw, const tr_table *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        if (strchr(t->v[i], '\n')) return false; /* cannot be written as one line */
        fprintf(out, "%s %s\n", kw, t->v[i]);
    }
    return true;
}

bool tr_slp_write(FILE *out, const tr_slp *g)
{
    fprintf(out, "%s %d\n", MAGIC, VERSION);
    for (int k = 0; k < 4; k++)
        if (!write_table(out, table_kw[k], table_of((tr_names *)&g->names, k))) return false;
    for (uint32_t i = 0; i < g->nterms; i++) {
        const tr_event *e = &g->terms[i];
        fprintf(out, "event %u %s %u", e->thread, tr_op_name(e->op), e->obj);
        if (e->loc != TR_NO_LOC) fprintf(out, " %u", e->loc);
        fputc('\n', out);
    }
    for (uint32_t r = 0; r < g->nrules; r++) {
        fputs("rule", out);
        for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++) {
            uint32_t s = g->sym[i];
            if (s < g->nterms)
                fprintf(out, " e%u", s);
            else
                fprintf(out, " r%u", s - g->nterms);
        }
        fputc('\n', out);
    }
    return !ferror(out);
}
