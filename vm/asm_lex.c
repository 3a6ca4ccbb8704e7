/* asm_lex.c: the assembler's diagnostics, lexer and token cursors.
 *
 * Diagnostics: every error is counted; the first MAX_SHOWN by position are
 * kept with their notes and printed clang-style (FILE:LINE:COL, the source
 * line, a caret); a misspelled name gets a "did you mean" note (the closest
 * candidate by Damerau-Levenshtein distance). The lexer splits the input into
 * lines and tokens (one error per line, at the first bad character); it knows
 * nothing of declarations or instructions. Cursors walk the tokens of one line and report what they
 * expected. LANGUAGE.md's lexical rules; docs/language.md has the details. */
#include "assemble_int.h"

/* ---- diagnostics ------------------------------------------------------ */

/* Records an error; keeps it if it is among the MAX_SHOWN first by
 * position (ties in the order reported). */
static void report(asm_ctx *c, uint8_t where, int32_t lineno, const char *lp,
                   size_t llen, int32_t col, const char *fmt, va_list ap) PRINTF_LIKE(7, 0);
static void report(asm_ctx *c, uint8_t where, int32_t lineno, const char *lp,
                   size_t llen, int32_t col, const char *fmt, va_list ap)
{
    c->nerrors++;
    c->last_seq = c->seq++;
    int pos = c->nshown;
    while (pos > 0 && (c->shown[pos - 1].line > lineno ||
                       (c->shown[pos - 1].line == lineno && c->shown[pos - 1].col > col)))
        pos--;
    if (pos >= MAX_SHOWN) return;
    memmove(&c->shown[pos + 1], &c->shown[pos], (size_t)(c->nshown - pos) * sizeof c->shown[0]);
    if (c->nshown < MAX_SHOWN) c->nshown++;
    dmsg *d = &c->shown[pos];
    memset(d, 0, sizeof *d);
    d->where = where;
    d->line = lineno;
    d->col = col;
    d->seq = c->last_seq;
    d->lp = lp;
    d->llen = llen;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
}

void asm_error_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...)
{
    const line *ln = &c->lines.v[li];
    va_list ap;
    va_start(ap, fmt);
    report(c, D_POS, ln->no, ln->p, ln->len, col, fmt, ap);
    va_end(ap);
}

/* An error about the file as a whole, shown at 1:1. */
void asm_error_at_top(asm_ctx *c, const char *fmt, ...)
{
    const char *nl = c->len ? memchr(c->src, '\n', c->len) : NULL;
    size_t llen = nl ? (size_t)(nl - c->src) : c->len;
    va_list ap;
    va_start(ap, fmt);
    report(c, D_POS, 1, c->src, llen, 1, fmt, ap);
    va_end(ap);
}

void asm_error_where(asm_ctx *c, uint8_t where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(c, where, 0, NULL, 0, 0, fmt, ap);
    va_end(ap);
}

/* Reports "out of memory" once; afterwards every stage stops early. */
void asm_out_of_memory(asm_ctx *c)
{
    if (c->oom) return;
    c->oom = true;
    asm_error_where(c, D_FILE, "out of memory");
}

/* Attaches a note to the error reported last (if that one is shown). */
void asm_note_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...)
{
    for (int i = 0; i < c->nshown; i++) {
        dmsg *d = &c->shown[i];
        if (d->seq != c->last_seq || d->nnotes == MAX_NOTES) continue;
        const line *ln = &c->lines.v[li];
        dnote *n = &d->notes[d->nnotes++];
        n->line = ln->no;
        n->col = col;
        n->lp = ln->p;
        n->llen = ln->len;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(n->msg, sizeof n->msg, fmt, ap);
        va_end(ap);
        return;
    }
}

/* ---- "did you mean" ----------------------------------------------------- */

/* The optimal-string-alignment (restricted Damerau-Levenshtein) distance
 * of a and b: insertions, deletions, substitutions and swaps of adjacent
 * characters each cost 1. Names longer than SUGGEST_MAXLEN get UINT32_MAX. */
static uint32_t osa_distance(const char *a, uint32_t na, const char *b, uint32_t nb)
{
    enum { SUGGEST_MAXLEN = 64 };
    uint32_t rows[3][SUGGEST_MAXLEN + 1];
    if (na > SUGGEST_MAXLEN || nb > SUGGEST_MAXLEN) return UINT32_MAX;
    uint32_t *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (uint32_t j = 0; j <= nb; j++) prev[j] = j;
    for (uint32_t i = 1; i <= na; i++) {
        cur[0] = i;
        for (uint32_t j = 1; j <= nb; j++) {
            uint32_t cost = a[i - 1] != b[j - 1];
            uint32_t d = prev[j] + 1;
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d) d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                pp[j - 2] + 1 < d)
                d = pp[j - 2] + 1;
            cur[j] = d;
        }
        uint32_t *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[nb];
}

suggest asm_suggest_start(const char *name, uint32_t len)
{
    return (suggest){name, len, NULL, 0, UINT32_MAX};
}

/* Keeps cand if it is closer than the best so far (ties: the first offered)
 * and close enough: distance 1 or 2, and at most a third of the name's
 * length. */
void asm_suggest_try(suggest *s, const char *cand, uint32_t len)
{
    uint32_t d = osa_distance(s->name, s->len, cand, len);
    if (d == 0 || d > 2 || d * 3 > s->len || d >= s->best_d) return;
    s->best = cand;
    s->best_len = len;
    s->best_d = d;
}

/* Offers the top-level names whose kind is in the mask (1u << S_*), in
 * declaration order. */
void asm_suggest_decls(const asm_ctx *c, suggest *s, unsigned kinds)
{
    for (uint32_t i = 0; i < c->decls.n; i++)
        if (kinds & (1u << c->decls.v[i].kind))
            asm_suggest_try(s, c->decls.v[i].name, c->decls.v[i].len);
}

/* "note: did you mean 'x'?" at (li, col) on the error reported last, if a
 * candidate was close enough. */
void asm_suggest_note(asm_ctx *c, const suggest *s, uint32_t li, int32_t col)
{
    if (s->best) asm_note_at(c, li, col, "did you mean '%.*s'?", NAMEARG(s->best, s->best_len));
}

/* The source line (a window of it if long) and a caret under `col`. */
static void print_source(FILE *f, const char *lp, size_t llen, int32_t col)
{
    if (llen && lp[llen - 1] == '\r') llen--;
    size_t at = col > 0 ? (size_t)col - 1 : 0, start = 0, end = llen;
    if (at > llen) at = llen;
    if (llen > SOURCE_WINDOW) {
        start = at > SOURCE_WINDOW / 2 ? at - SOURCE_WINDOW / 2 : 0;
        end = start + SOURCE_WINDOW < llen ? start + SOURCE_WINDOW : llen;
    }
    for (size_t i = start; i < end; i++) {
        unsigned char ch = (unsigned char)lp[i];
        fputc((ch < 0x20 && ch != '\t') || ch == 0x7f ? '?' : ch, f);
    }
    fputc('\n', f);
    for (size_t i = start; i < at; i++) fputc(lp[i] == '\t' ? '\t' : ' ', f);
    fputs("^\n", f);
}

static void print_one(const asm_ctx *c, uint8_t where, int32_t lineno, int32_t col,
                      const char *sev, const char *msg, const char *lp, size_t llen)
{
    if (where == D_CMDLINE) {
        fprintf(c->diag, "mcheck: %s: %s\n", sev, msg);
    } else if (where == D_FILE) {
        fprintf(c->diag, "%s: %s: %s\n", c->file, sev, msg);
    } else {
        fprintf(c->diag, "%s:%d:%d: %s: %s\n", c->file, (int)lineno, (int)col, sev, msg);
        if (lp) print_source(c->diag, lp, llen, col);
    }
}

void asm_print_diagnostics(const asm_ctx *c)
{
    if (!c->diag) return;
    if (c->oom) {
        /* what was found after memory ran out may be an artefact of it (a
         * name never entered is "undeclared"): say only what happened */
        fprintf(c->diag, "%s: error: out of memory\n", c->file);
        return;
    }
    for (int i = 0; i < c->nshown; i++) {
        const dmsg *d = &c->shown[i];
        print_one(c, d->where, d->line, d->col, "error", d->msg, d->lp, d->llen);
        for (int k = 0; k < d->nnotes; k++) {
            const dnote *n = &d->notes[k];
            print_one(c, D_POS, n->line, n->col, "note", n->msg, n->lp, n->llen);
        }
    }
    if (c->nerrors > MAX_SHOWN) fprintf(c->diag, "%s: too many errors, stopping\n", c->file);
}

/* ---- lexer ------------------------------------------------------------ */

static bool is_space(unsigned ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}
static bool is_punct(unsigned ch)
{
    switch (ch) {
    case ',': case '[': case ']': case '{': case '}': case '=': case ':': case '-':
    case '+': case '*': case '/': case '%': case '(': case ')':
        return true;
    default:
        return false;
    }
}

static int hex_digit(unsigned ch)
{
    if (is_digit(ch)) return (int)(ch - '0');
    ch |= 0x20;
    return ch >= 'a' && ch <= 'f' ? (int)(ch - 'a' + 10) : -1;
}

/* Decimal in int32 range, or hex of at most 32 bits; an optional '-'. */
static bool parse_int(const char *s, size_t n, int32_t *out)
{
    size_t i = s[0] == '-';
    bool neg = i == 1;
    uint64_t v = 0;
    if (n - i >= 2 && s[i] == '0' && (s[i + 1] | 0x20) == 'x') {
        i += 2;
        if (i == n) return false;
        for (; i < n; i++) {
            int d = hex_digit((unsigned char)s[i]);
            if (d < 0) return false;
            v = v * 16 + (unsigned)d;
            if (v > UINT32_MAX) return false;
        }
        *out = neg ? wrap_neg(from_bits((uint32_t)v)) : from_bits((uint32_t)v);
        return true;
    }
    if (i == n) return false;
    for (; i < n; i++) {
        if (!is_digit((unsigned char)s[i])) return false;
        v = v * 10 + (unsigned)(s[i] - '0');
        if (v > (uint64_t)INT32_MAX + 1) return false;
    }
    if (!neg && v > INT32_MAX) return false;
    *out = neg ? (int32_t)-(int64_t)v : (int32_t)v;
    return true;
}

static void describe_char(unsigned ch, char *buf, size_t n)
{
    if (ch > 0x20 && ch < 0x7f) snprintf(buf, n, "'%c'", (char)ch);
    else snprintf(buf, n, "0x%02x", ch);
}

static bool is_control(unsigned ch) { return (ch < 0x20 && ch != '\t') || ch == 0x7f; }

/* Scans the string starting at the quote s[i]; *end is just past it. */
static bool scan_string(asm_ctx *c, uint32_t li, const unsigned char *s, size_t n,
                        size_t i, size_t *end)
{
    char what[16];
    for (size_t j = i + 1; j < n; j++) {
        if (s[j] == '"') {
            *end = j + 1;
            return true;
        }
        if (s[j] == '\\') {
            if (j + 1 < n && (s[j + 1] == '"' || s[j + 1] == '\\')) {
                j++;
                continue;
            }
            asm_error_at(c, li, (int32_t)j + 1,
                         "invalid escape in string (only \\\" and \\\\ are allowed)");
            return false;
        }
        if (is_control(s[j])) {
            describe_char(s[j], what, sizeof what);
            asm_error_at(c, li, (int32_t)j + 1, "unexpected character %s in string", what);
            return false;
        }
    }
    asm_error_at(c, li, (int32_t)i + 1, "unterminated string");
    return false;
}

/* True if a '-' after token t is a binary minus (t ends an operand), so
 * that `N-1` is three tokens and `, -1` one. */
static bool ends_operand(const tok *t)
{
    return t->kind == T_IDENT || t->kind == T_INT ||
           (t->kind == T_PUNCT && (t->punct == ')' || t->punct == ']'));
}

/* Appends the tokens of line li; stops at the first bad character (one
 * error per line). */
static bool lex_tokens(asm_ctx *c, uint32_t li)
{
    const line *ln = &c->lines.v[li];
    const unsigned char *s = (const unsigned char *)ln->p;
    size_t n = ln->len, i = 0;
    uint32_t tok0 = c->toks.n;
    bool prop_line = false;
    while (i < n) {
        unsigned ch = s[i];
        size_t j = i + 1;
        tok t = {.col = (int32_t)i + 1, .p = ln->p + i};
        if (is_space(ch)) {
            i++;
            continue;
        }
        if (ch == ';' || ch == '#') break;
        if (is_alpha(ch)) {
            while (j < n && is_alnum(s[j])) j++;
            t.kind = T_IDENT;
        } else if (is_digit(ch) ||
                   (ch == '-' && j < n && is_digit(s[j]) &&
                    !(c->toks.n > tok0 && ends_operand(&c->toks.v[c->toks.n - 1])))) {
            while (j < n && is_alnum(s[j])) j++;
            t.kind = T_INT;
            if (!parse_int(ln->p + i, j - i, &t.val)) {
                asm_error_at(c, li, t.col, "invalid integer '%.*s'", NAMEARG(ln->p + i, j - i));
                return false;
            }
        } else if (ch == '"') {
            if (!scan_string(c, li, s, n, i, &j)) return false;
            t.kind = T_STR;
        } else if (is_punct(ch) || (prop_line && strchr("!<>&|@", (int)ch))) {
            t.kind = T_PUNCT;
            t.punct = (char)ch;
        } else {
            char what[16];
            describe_char(ch, what, sizeof what);
            asm_error_at(c, li, t.col, "unexpected character %s", what);
            return false;
        }
        t.len = (uint32_t)(j - i);
        /* a `prop` line (props.c) also has the operators ! < > & | @ */
        if (c->toks.n == tok0 && t.kind == T_IDENT && t.len == 4 && !memcmp(t.p, "prop", 4))
            prop_line = true;
        tok *nt = VEC_PUSH(c, c->toks);
        if (!nt) return false;
        *nt = t;
        i = j;
    }
    return true;
}

/* Splits the input into lines and lexes them; keeps lines with tokens or
 * errors. */
void asm_read_lines(asm_ctx *c)
{
    size_t pos = 0;
    int32_t no = 0;
    while (pos < c->len && !c->oom) {
        const char *nl = memchr(c->src + pos, '\n', c->len - pos);
        size_t end = nl ? (size_t)(nl - c->src) : c->len;
        line *ln = VEC_PUSH(c, c->lines);
        if (!ln) return;
        ln->p = c->src + pos;
        ln->len = end - pos;
        ln->no = ++no;
        ln->tok0 = c->toks.n;
        uint32_t li = c->lines.n - 1;
        bool ok = lex_tokens(c, li);
        ln = &c->lines.v[li];
        ln->ntok = c->toks.n - ln->tok0;
        ln->bad = !ok;
        if (ok && ln->ntok == 0) c->lines.n--;
        pos = end + 1;
    }
}

/* ---- token cursors ---------------------------------------------------- */

/* A cursor over tokens [from, n) of line li. */
cursor asm_line_cursor(asm_ctx *c, uint32_t li, uint32_t from)
{
    const line *ln = &c->lines.v[li];
    const tok *t = line_toks(c, ln);
    cursor k = {c, li, t, from, ln->ntok, 1, "end of line"};
    if (ln->ntok) k.endcol = tok_end_col(&t[ln->ntok - 1]);
    return k;
}

static void describe_tok(const cursor *k, char *buf, size_t n)
{
    const tok *t = cur_peek(k);
    if (!t) snprintf(buf, n, "%s", k->endname);
    else if (t->kind == T_PUNCT) snprintf(buf, n, "'%c'", t->punct);
    else snprintf(buf, n, "'%.*s'", NAMEARG(t->p, t->len));
}

/* "expected WHAT, got ..." at the cursor; returns false. */
bool asm_cur_fail(cursor *k, const char *what)
{
    char got[MAX_NAME_SHOWN + 16];
    describe_tok(k, got, sizeof got);
    asm_error_at(k->c, k->li, cur_col(k), "expected %s, got %s", what, got);
    return false;
}

bool asm_cur_expect(cursor *k, char ch, const char *what)
{
    return cur_accept(k, ch) || asm_cur_fail(k, what);
}

bool asm_cur_expect_end(cursor *k)
{
    return !cur_peek(k) || asm_cur_fail(k, k->endname);
}

