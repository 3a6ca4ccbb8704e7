/* assemble.c: the mcheck assembler, model text -> vm_program (vm.h).
 *
 * Three stages, so names may be used before their declaration: (1) lex every
 * line and read the top-level declarations into one namespace (bodies are
 * line ranges); (2) resolve constants (after -D), sizes and initial values;
 * (3) decode each body, lay out the state vector, build the initial state.
 * Diagnostics are kept sorted by position; 20 are printed clang-style, all
 * are counted. No exit(), no global state; everything the program owns lives
 * in its arena. docs/language.md is the user's description of the syntax. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

enum {
    MAX_SHOWN = 20,                     /* diagnostics printed; all are counted */
    MAX_NOTES = 2,                      /* notes kept per diagnostic */
    MAX_STATE_BYTES = 16 * 1024 * 1024, /* a bigger state vector is a mistake */
    MAX_SLOTS = 256,                    /* register slots per body (rd is a byte) */
    MAX_NAME_SHOWN = 64,                /* longest name quoted in a message */
    SOURCE_WINDOW = 160,                /* bytes of a long line shown under a message */
};
#define MAX_SOURCE_BYTES ((size_t)INT32_MAX)

/* "%.*s" arguments for a name of `n` bytes, shortened for messages. */
#define NAMEARG(p, n) (int)((n) > MAX_NAME_SHOWN ? MAX_NAME_SHOWN : (n)), (p)

/* ---- arena: every allocation the program owns ------------------------ */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[];
} arena_block;

#define ARENA_CHUNK ((size_t)64 * 1024)

/* Zeroed memory owned by p (freed by vm_program_free), or NULL. The newest
 * chunk is the list head; oversized requests get a block of their own, linked
 * behind the head so the head keeps its free space. */
static void *arena_alloc(vm_program *p, size_t n)
{
    const size_t align = _Alignof(max_align_t);
    arena_block *head = p->arena;
    if (n > SIZE_MAX / 2) return NULL;
    n = n ? (n + align - 1) / align * align : align;
    if (!head || head->cap - head->used < n) {
        size_t cap = n > ARENA_CHUNK / 2 ? n : ARENA_CHUNK;
        arena_block *b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        if (head && cap != ARENA_CHUNK) {
            b->next = head->next;
            head->next = b;
        } else {
            b->next = head;
            p->arena = b;
        }
        head = b;
    }
    void *r = (char *)head->data + head->used;
    head->used += n;
    memset(r, 0, n);
    return r;
}

void vm_program_free(vm_program *p)
{
    if (!p) return;
    arena_block *b = p->arena;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(p);
}

/* ---- the assembler's own data ----------------------------------------- */

/* A growable array; VEC_PUSH returns a zeroed new element or NULL (out of
 * memory, already reported). */
#define VEC(T)                                                                 \
    struct {                                                                   \
        T *v;                                                                  \
        uint32_t n, cap;                                                       \
    }

enum tokkind { T_IDENT, T_INT, T_STR, T_PUNCT };

typedef struct tok {
    uint8_t kind;
    char punct;     /* T_PUNCT */
    int32_t col;    /* 1-based byte column */
    int32_t val;    /* T_INT */
    const char *p;  /* raw text in the source */
    uint32_t len;
} tok;

enum linekind { L_NONE, L_DECL, L_INSN, L_REG, L_LABEL };

/* A source line that holds tokens (or failed to lex). */
typedef struct line {
    const char *p;
    size_t len;      /* without the newline */
    int32_t no;
    uint32_t tok0, ntok;
    uint32_t stmt;   /* first token after the labels */
    uint8_t kind;    /* enum linekind */
    bool bad;        /* an error was reported for the line: skip it */
} line;

/* A constant expression as written: tokens [i0, i1) of line li (integers,
 * const names, + - * / % ( ) and unary minus), evaluated once the consts are
 * known; `val` then holds the value (initializers). `init T` uses name and
 * len instead. */
typedef struct cexpr {
    bool set;
    uint32_t li, i0, i1;
    int32_t col;
    int32_t val;
    const char *name;
    uint32_t len;
} cexpr;

enum symkind { S_CONST, S_VAR, S_LOCK, S_CHAN, S_THREAD, S_PROC, S_NKINDS };
enum initkind { INIT_ZERO, INIT_ALL, INIT_LIST };
enum cstate { C_NEW, C_ACTIVE, C_DONE };

/* One top-level declaration, from parsing to the final program. */
typedef struct decl {
    uint8_t kind;      /* enum symkind */
    uint8_t cls;       /* enum vm_varclass (S_VAR) */
    bool is_array;
    bool bad;          /* its line had an error: say nothing more about it */
    const char *name;
    uint32_t len;
    uint32_t li;       /* line index of the declaration */
    int32_t col;       /* column of the name */
    uint32_t id;       /* index among its kind (threads and procs: body id) */
    cexpr arg;         /* const value, array size, count, capacity or max */
    uint8_t init_kind; /* enum initkind (S_VAR) */
    cexpr init_all;
    uint32_t list0, nlist; /* INIT_LIST: c->inits.v[list0 ..] */
    cexpr init_t;      /* `init T` */
    /* resolved */
    uint8_t cstate;    /* enum cstate (S_CONST) */
    bool overridden;   /* by -D */
    int32_t value;     /* S_CONST */
    uint32_t count;    /* elements, instances, capacity or max */
    int32_t init_body;
    /* bodies */
    uint32_t first_line, end_line;
    vm_insn *code;
    uint32_t ncode, nregs;
    const char **regname;
} decl;

/* A map from names (pointers into the source) to int32. */
typedef struct strslot {
    const char *k;
    uint32_t len;
    int32_t v;
} strslot;

typedef struct strmap {
    strslot *s;
    uint32_t cap, n;
} strmap;

typedef struct label {
    const char *name;
    uint32_t len, li, pc;
    int32_t col;
} label;

typedef struct namedreg {
    const char *name;
    uint32_t len, li;
    int32_t col;
    int32_t slot; /* -1 until first referenced */
} namedreg;

typedef struct slotname {
    const char *p;
    uint32_t len;
} slotname;

/* Per-body tables, reset for each body. */
typedef struct body_ctx {
    strmap labelmap;
    VEC(label) labels;
    strmap regmap;
    VEC(namedreg) regs;
    int32_t rslot[VM_MAX_REGS];
    VEC(slotname) slots;
    bool slots_full;
} body_ctx;

enum dwhere { D_POS, D_FILE, D_CMDLINE };

typedef struct dnote {
    int32_t line, col;
    const char *lp;
    size_t llen;
    char msg[128];
} dnote;

typedef struct dmsg {
    uint8_t where; /* enum dwhere */
    int32_t line, col;
    uint64_t seq;
    const char *lp;
    size_t llen;
    char msg[256];
    int nnotes;
    dnote notes[MAX_NOTES];
} dmsg;

typedef struct asm_ctx {
    const char *file;
    const char *src;
    size_t len;
    FILE *diag;
    vm_program *p;
    bool oom;
    VEC(tok) toks;
    VEC(line) lines;
    VEC(decl) decls;
    VEC(cexpr) inits;
    VEC(uint32_t) path;
    strmap names;
    uint32_t nkind[S_NKINDS];
    uint32_t nstatic, nspawn;
    int32_t cur_body; /* decl being read by pass 1, or -1 */
    bool swallow;     /* after a broken thread/proc line: ignore its body */
    body_ctx b;
    /* diagnostics: the MAX_SHOWN first by position */
    int nerrors;
    uint64_t seq, last_seq;
    int nshown;
    dmsg shown[MAX_SHOWN + 1];
} asm_ctx;

static void out_of_memory(asm_ctx *c);

/* Makes room for one more element of `sz` bytes; returns the (maybe moved)
 * array. On failure the array is unchanged and *cap too. */
static void *vec_grow(asm_ctx *c, void *v, uint32_t *cap, size_t sz)
{
    if (c->oom) return v;
    if (*cap > UINT32_MAX / 2) {
        out_of_memory(c);
        return v;
    }
    uint32_t ncap = *cap ? *cap * 2 : 16;
    if ((size_t)ncap > SIZE_MAX / sz) {
        out_of_memory(c);
        return v;
    }
    void *nv = realloc(v, (size_t)ncap * sz);
    if (!nv) {
        out_of_memory(c);
        return v;
    }
    *cap = ncap;
    return nv;
}

/* A NUL-terminated copy of n bytes, owned by the program. */
static char *arena_strndup(asm_ctx *c, const char *s, size_t n)
{
    char *r = n < SIZE_MAX ? arena_alloc(c->p, n + 1) : NULL;
    if (!r) {
        out_of_memory(c);
        return NULL;
    }
    if (n) memcpy(r, s, n);
    return r;
}

static void *vec_zeroed(void *e, size_t sz)
{
    memset(e, 0, sz);
    return e;
}

#define VEC_PUSH(c, vec)                                                       \
    (((vec).n < (vec).cap ||                                                   \
      ((vec).v = vec_grow((c), (vec).v, &(vec).cap, sizeof *(vec).v),          \
       (vec).n < (vec).cap))                                                   \
         ? vec_zeroed((vec).v + (vec).n++, sizeof *(vec).v)                    \
         : NULL)

/* ---- name maps -------------------------------------------------------- */

static uint32_t name_hash(const char *k, uint32_t len)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < len; i++) h = (h ^ (uint8_t)k[i]) * 16777619u;
    return h;
}

/* The slot holding k, or the empty slot where it would go; NULL if empty map. */
static strslot *strmap_slot(const strmap *m, const char *k, uint32_t len)
{
    if (!m->cap) return NULL;
    uint32_t i = name_hash(k, len) & (m->cap - 1);
    while (m->s[i].k && !(m->s[i].len == len && memcmp(m->s[i].k, k, len) == 0))
        i = (i + 1) & (m->cap - 1);
    return &m->s[i];
}

static bool strmap_get(const strmap *m, const char *k, uint32_t len, int32_t *v)
{
    const strslot *s = strmap_slot(m, k, len);
    if (!s || !s->k) return false;
    *v = s->v;
    return true;
}

/* Inserts or replaces k -> v. */
static void strmap_put(asm_ctx *c, strmap *m, const char *k, uint32_t len, int32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t ncap = m->cap ? m->cap * 2 : 64;
        strslot *ns = m->cap > UINT32_MAX / 4 ? NULL : calloc(ncap, sizeof *ns);
        if (!ns) {
            out_of_memory(c);
            return;
        }
        strmap old = *m;
        m->s = ns;
        m->cap = ncap;
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.s[i].k) *strmap_slot(m, old.s[i].k, old.s[i].len) = old.s[i];
        free(old.s);
    }
    strslot *s = strmap_slot(m, k, len);
    if (!s->k) m->n++;
    *s = (strslot){k, len, v};
}

static void strmap_clear(strmap *m)
{
    if (m->s) memset(m->s, 0, (size_t)m->cap * sizeof *m->s);
    m->n = 0;
}

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

static void error_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void error_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...)
{
    const line *ln = &c->lines.v[li];
    va_list ap;
    va_start(ap, fmt);
    report(c, D_POS, ln->no, ln->p, ln->len, col, fmt, ap);
    va_end(ap);
}

/* An error about the file as a whole, shown at 1:1. */
static void error_at_top(asm_ctx *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void error_at_top(asm_ctx *c, const char *fmt, ...)
{
    const char *nl = c->len ? memchr(c->src, '\n', c->len) : NULL;
    size_t llen = nl ? (size_t)(nl - c->src) : c->len;
    va_list ap;
    va_start(ap, fmt);
    report(c, D_POS, 1, c->src, llen, 1, fmt, ap);
    va_end(ap);
}

static void error_where(asm_ctx *c, uint8_t where, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void error_where(asm_ctx *c, uint8_t where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(c, where, 0, NULL, 0, 0, fmt, ap);
    va_end(ap);
}

/* Reports "out of memory" once; afterwards every stage stops early. */
static void out_of_memory(asm_ctx *c)
{
    if (c->oom) return;
    c->oom = true;
    error_where(c, D_FILE, "out of memory");
}

/* Attaches a note to the error reported last (if that one is shown). */
static void note_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void note_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...)
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

static void print_diagnostics(const asm_ctx *c)
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

static bool is_alpha(unsigned ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
static bool is_digit(unsigned ch) { return ch >= '0' && ch <= '9'; }
static bool is_alnum(unsigned ch) { return is_alpha(ch) || is_digit(ch); }
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

/* The int32 with the bit pattern u (portable two's complement). */
static int32_t from_bits(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
}

static int32_t wrap_neg(int32_t v) { return from_bits(0u - (uint32_t)v); }

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
            error_at(c, li, (int32_t)j + 1,
                     "invalid escape in string (only \\\" and \\\\ are allowed)");
            return false;
        }
        if (is_control(s[j])) {
            describe_char(s[j], what, sizeof what);
            error_at(c, li, (int32_t)j + 1, "unexpected character %s in string", what);
            return false;
        }
    }
    error_at(c, li, (int32_t)i + 1, "unterminated string");
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
        } else if (is_digit(ch) || (ch == '-' && j < n && is_digit(s[j]) &&
                                    !(c->toks.n > tok0 && ends_operand(&c->toks.v[c->toks.n - 1])))) {
            while (j < n && is_alnum(s[j])) j++;
            t.kind = T_INT;
            if (!parse_int(ln->p + i, j - i, &t.val)) {
                error_at(c, li, t.col, "invalid integer '%.*s'", NAMEARG(ln->p + i, j - i));
                return false;
            }
        } else if (ch == '"') {
            if (!scan_string(c, li, s, n, i, &j)) return false;
            t.kind = T_STR;
        } else if (is_punct(ch)) {
            t.kind = T_PUNCT;
            t.punct = (char)ch;
        } else {
            char what[16];
            describe_char(ch, what, sizeof what);
            error_at(c, li, t.col, "unexpected character %s", what);
            return false;
        }
        t.len = (uint32_t)(j - i);
        tok *nt = VEC_PUSH(c, c->toks);
        if (!nt) return false;
        *nt = t;
        i = j;
    }
    return true;
}

/* Splits the input into lines and lexes them; keeps lines with tokens or
 * errors. */
static void read_lines(asm_ctx *c)
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

static const tok *line_toks(const asm_ctx *c, const line *ln)
{
    return ln->ntok ? &c->toks.v[ln->tok0] : NULL;
}

typedef struct cursor {
    asm_ctx *c;
    uint32_t li;
    const tok *t;
    uint32_t i, n;
    int32_t endcol;       /* where "end of operand" errors point */
    const char *endname;  /* what follows the tokens: "end of line", "','" */
} cursor;

static int32_t tok_end_col(const tok *t) { return t->col + (int32_t)t->len; }

/* A cursor over tokens [from, n) of line li. */
static cursor line_cursor(asm_ctx *c, uint32_t li, uint32_t from)
{
    const line *ln = &c->lines.v[li];
    const tok *t = line_toks(c, ln);
    cursor k = {c, li, t, from, ln->ntok, 1, "end of line"};
    if (ln->ntok) k.endcol = tok_end_col(&t[ln->ntok - 1]);
    return k;
}

static const tok *cur_peek(const cursor *k) { return k->i < k->n ? &k->t[k->i] : NULL; }

static bool tok_punct(const tok *t, char ch)
{
    return t && t->kind == T_PUNCT && t->punct == ch;
}

static bool tok_word(const tok *t, const char *w)
{
    size_t n = strlen(w);
    return t && t->kind == T_IDENT && t->len == n && memcmp(t->p, w, n) == 0;
}

static bool cur_accept(cursor *k, char ch)
{
    if (!tok_punct(cur_peek(k), ch)) return false;
    k->i++;
    return true;
}

static int32_t cur_col(const cursor *k)
{
    const tok *t = cur_peek(k);
    return t ? t->col : k->endcol;
}

static void describe_tok(const cursor *k, char *buf, size_t n)
{
    const tok *t = cur_peek(k);
    if (!t) snprintf(buf, n, "%s", k->endname);
    else if (t->kind == T_PUNCT) snprintf(buf, n, "'%c'", t->punct);
    else snprintf(buf, n, "'%.*s'", NAMEARG(t->p, t->len));
}

/* "expected WHAT, got ..." at the cursor; returns false. */
static bool cur_fail(cursor *k, const char *what)
{
    char got[MAX_NAME_SHOWN + 16];
    describe_tok(k, got, sizeof got);
    error_at(k->c, k->li, cur_col(k), "expected %s, got %s", what, got);
    return false;
}

static bool cur_expect(cursor *k, char ch, const char *what)
{
    return cur_accept(k, ch) || cur_fail(k, what);
}

static bool cur_expect_end(cursor *k)
{
    return !cur_peek(k) || cur_fail(k, k->endname);
}

/* ---- names ------------------------------------------------------------ */

static const char *const reserved_words[] = {
    "const", "shared", "volatile", "unshared", "lock", "chan", "thread",
    "proc",  "reg",    "init",     "max",      "self", "tid",
};

/* `r` followed by digits (r0 .. r15 are registers; the rest are errors). */
static bool reg_syntax(const char *p, uint32_t len, uint32_t *num)
{
    if (len < 2 || p[0] != 'r') return false;
    uint32_t v = 0;
    for (uint32_t i = 1; i < len; i++) {
        if (!is_digit((unsigned char)p[i])) return false;
        if (v < 1000) v = v * 10 + (uint32_t)(p[i] - '0');
    }
    *num = v;
    return true;
}

static bool is_reserved(const tok *t)
{
    uint32_t num;
    if (t->kind != T_IDENT) return false;
    for (size_t i = 0; i < sizeof reserved_words / sizeof reserved_words[0]; i++)
        if (tok_word(t, reserved_words[i])) return true;
    return reg_syntax(t->p, t->len, &num);
}

static int32_t lookup_global(const asm_ctx *c, const char *name, uint32_t len)
{
    int32_t di;
    return strmap_get(&c->names, name, len, &di) ? di : -1;
}

static const char *kind_phrase(const decl *d)
{
    static const char *const cls[] = {"a shared variable", "a volatile variable",
                                      "an unshared variable"};
    switch ((enum symkind)d->kind) {
    case S_CONST: return "a constant";
    case S_VAR: return cls[d->cls];
    case S_LOCK: return "a lock";
    case S_CHAN: return "a channel";
    case S_THREAD: return "a thread";
    case S_PROC: return "a proc";
    case S_NKINDS: break;
    }
    return "a name";
}

static const char *const kind_noun[S_NKINDS] = {
    [S_CONST] = "constant", [S_VAR] = "variable", [S_LOCK] = "lock",
    [S_CHAN] = "channel",   [S_THREAD] = "thread", [S_PROC] = "proc",
};

/* "'x' is a lock, expected WHAT" for a name of the wrong kind. */
static void error_kind(asm_ctx *c, uint32_t li, int32_t col, const char *name, uint32_t len,
                       const decl *d, const char *what)
{
    error_at(c, li, col, "'%.*s' is %s, expected %s", NAMEARG(name, len), kind_phrase(d), what);
}

/* Reports a reserved name; true if t may name something. */
static bool check_not_reserved(asm_ctx *c, uint32_t li, const tok *t)
{
    if (!is_reserved(t)) return true;
    error_at(c, li, t->col, "'%.*s' is reserved and cannot be used as a name",
             NAMEARG(t->p, t->len));
    return false;
}

/* ---- pass 1: top-level declarations ------------------------------------ */

static bool decl_keyword(const tok *t, uint8_t *kind, uint8_t *cls)
{
    static const struct {
        const char *word;
        uint8_t kind, cls;
    } kw[] = {
        {"const", S_CONST, 0},           {"shared", S_VAR, VM_SHARED},
        {"volatile", S_VAR, VM_VOLATILE}, {"unshared", S_VAR, VM_UNSHARED},
        {"lock", S_LOCK, 0},             {"chan", S_CHAN, 0},
        {"thread", S_THREAD, 0},         {"proc", S_PROC, 0},
    };
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
        if (tok_word(t, kw[i].word)) {
            *kind = kw[i].kind;
            *cls = kw[i].cls;
            return true;
        }
    }
    return false;
}

static int find_opcode(const tok *t)
{
    for (int op = 0; op < VM_OP_COUNT; op++)
        if (tok_word(t, vm_ops[op].name)) return op;
    return -1;
}

static bool is_body_kind(uint8_t kind) { return kind == S_THREAD || kind == S_PROC; }

/* Adds a declaration named by t and enters the name (unless reserved or
 * taken, which is reported); returns its index or -1 (out of memory). */
static int32_t add_decl(asm_ctx *c, uint8_t kind, uint8_t cls, uint32_t li, const tok *t)
{
    decl *d = VEC_PUSH(c, c->decls);
    if (!d) return -1;
    int32_t di = (int32_t)(c->decls.n - 1);
    d->kind = kind;
    d->cls = cls;
    d->name = t->p;
    d->len = t->len;
    d->li = li;
    d->col = t->col;
    d->id = is_body_kind(kind) ? c->nkind[S_THREAD] + c->nkind[S_PROC] : c->nkind[kind];
    c->nkind[kind]++;
    d->count = 1;
    d->init_body = -1;
    if (!check_not_reserved(c, li, t)) {
        d->bad = true;
        return di;
    }
    int32_t prev = lookup_global(c, t->p, t->len);
    if (prev >= 0) {
        const decl *pd = &c->decls.v[prev];
        error_at(c, li, t->col, "duplicate name '%.*s'", NAMEARG(t->p, t->len));
        note_at(c, pd->li, pd->col, "previous definition is here");
        return di;
    }
    strmap_put(c, &c->names, t->p, t->len, di);
    return di;
}

/* ---- constant expressions ------------------------------------------- */

enum { CX_MAX_DEPTH = 64 }; /* nested parentheses and unary minus */

/* A parse (and, with `eval`, an evaluation) of a constant expression at a
 * cursor: expr := term {(+|-) term}, term := unary {(*|/|%) unary},
 * unary := - unary | ( expr ) | integer | const. Arithmetic wraps at 32 bits
 * like the interpreter's (div and mod truncate, INT_MIN / -1 wraps). In
 * check mode (pass 1) names are not looked up; every const a name refers to
 * must be resolved before an evaluation. */
typedef struct cx {
    cursor *k;
    bool eval;
    int depth;
} cx;

static bool cx_expr(cx *x, int32_t *v);

static bool is_operator(const tok *t)
{
    return t && t->kind == T_PUNCT &&
           (t->punct == '+' || t->punct == '-' || t->punct == '*' || t->punct == '/' ||
            t->punct == '%');
}

static bool tok_is_reg_like(const asm_ctx *c, const tok *t)
{
    uint32_t num;
    int32_t ri;
    return t->kind == T_IDENT &&
           (reg_syntax(t->p, t->len, &num) || tok_word(t, "self") || tok_word(t, "tid") ||
            strmap_get(&c->b.regmap, t->p, t->len, &ri));
}

/* "'r1' is not a constant ..." for a register, self or tid in an expression. */
static bool cx_not_constant(cursor *k, const tok *t)
{
    error_at(k->c, k->li, t->col,
             "'%.*s' is not a constant (an expression takes integers and consts only)",
             NAMEARG(t->p, t->len));
    return false;
}

static bool cx_name(cx *x, const tok *t, int32_t *v)
{
    asm_ctx *c = x->k->c;
    *v = 0;
    if (!x->eval) return true;
    int32_t di = lookup_global(c, t->p, t->len);
    if (di < 0) {
        if (tok_is_reg_like(c, t)) return cx_not_constant(x->k, t);
        error_at(c, x->k->li, t->col, "unknown constant '%.*s'", NAMEARG(t->p, t->len));
        return false;
    }
    const decl *d = &c->decls.v[di];
    if (d->kind != S_CONST) {
        error_kind(c, x->k->li, t->col, t->p, t->len, d, "a constant");
        return false;
    }
    if (d->bad || d->cstate != C_DONE) return false; /* reported at the const */
    *v = d->value;
    return true;
}

static bool cx_unary(cx *x, int32_t *v)
{
    cursor *k = x->k;
    const tok *t = cur_peek(k);
    bool ok;
    if (x->depth == CX_MAX_DEPTH) {
        error_at(k->c, k->li, cur_col(k), "constant expression nested too deeply (limit %d)",
                 CX_MAX_DEPTH);
        return false;
    }
    x->depth++;
    if (tok_punct(t, '-')) {
        k->i++;
        ok = cx_unary(x, v);
        if (ok) *v = wrap_neg(*v);
    } else if (tok_punct(t, '(')) {
        k->i++;
        ok = cx_expr(x, v) && cur_expect(k, ')', "')'");
    } else if (t && t->kind == T_INT) {
        *v = t->val;
        k->i++;
        ok = true;
    } else if (t && t->kind == T_IDENT && tok_is_reg_like(k->c, t)) {
        ok = cx_not_constant(k, t);
    } else if (t && t->kind == T_IDENT && !is_reserved(t)) {
        ok = cx_name(x, t, v);
        k->i++;
    } else {
        ok = cur_fail(k, "an integer or a constant name");
    }
    x->depth--;
    return ok;
}

/* a op b with the interpreter's arithmetic; false (reported at `op`) for a
 * division by zero. */
static bool cx_apply(cx *x, const tok *op, int32_t *a, int32_t b)
{
    uint32_t ua = (uint32_t)*a, ub = (uint32_t)b;
    if (!x->eval) return true;
    switch (op->punct) {
    case '+': *a = from_bits(ua + ub); return true;
    case '-': *a = from_bits(ua - ub); return true;
    case '*': *a = from_bits(ua * ub); return true;
    default: break;
    }
    if (b == 0) {
        error_at(x->k->c, x->k->li, op->col, "%s by zero in a constant expression",
                 op->punct == '/' ? "division" : "modulo");
        return false;
    }
    if (*a == INT32_MIN && b == -1) *a = op->punct == '/' ? INT32_MIN : 0;
    else *a = op->punct == '/' ? *a / b : *a % b;
    return true;
}

static bool cx_term(cx *x, int32_t *v)
{
    if (!cx_unary(x, v)) return false;
    for (;;) {
        const tok *op = cur_peek(x->k);
        if (!is_operator(op) || op->punct == '+' || op->punct == '-') return true;
        int32_t r;
        x->k->i++;
        if (!cx_unary(x, &r) || !cx_apply(x, op, v, r)) return false;
    }
}

static bool cx_expr(cx *x, int32_t *v)
{
    if (!cx_term(x, v)) return false;
    for (;;) {
        const tok *op = cur_peek(x->k);
        if (!tok_punct(op, '+') && !tok_punct(op, '-')) return true;
        int32_t r;
        x->k->i++;
        if (!cx_term(x, &r) || !cx_apply(x, op, v, r)) return false;
    }
}

/* Pass 1: the syntax of a constant expression at the cursor; records its
 * tokens in e. */
static bool parse_cexpr(cursor *k, cexpr *e)
{
    int32_t v;
    cx x = {k, false, 0};
    *e = (cexpr){.li = k->li, .i0 = k->i, .col = cur_col(k)};
    if (!cx_expr(&x, &v)) return false;
    e->i1 = k->i;
    e->set = true;
    return true;
}

/* The value of an expression recorded by parse_cexpr(); false if it cannot
 * be had (reported). */
static bool eval_cexpr(asm_ctx *c, const cexpr *e, int32_t *out)
{
    cursor k = line_cursor(c, e->li, e->i0);
    cx x = {&k, true, 0};
    k.n = e->i1;
    return cx_expr(&x, out);
}

/* `= v` or `= {v1, v2, ...}` (the '=' already read). */
static bool parse_initializer(cursor *k, uint32_t di)
{
    asm_ctx *c = k->c;
    if (!cur_accept(k, '{')) {
        c->decls.v[di].init_kind = INIT_ALL;
        return parse_cexpr(k, &c->decls.v[di].init_all);
    }
    c->decls.v[di].init_kind = INIT_LIST;
    c->decls.v[di].list0 = c->inits.n;
    if (!cur_accept(k, '}')) {
        do {
            cexpr *e = VEC_PUSH(c, c->inits);
            if (!e || !parse_cexpr(k, e)) return false;
            c->decls.v[di].nlist++;
        } while (cur_accept(k, ','));
        if (!cur_expect(k, '}', "',' or '}'")) return false;
    }
    return true;
}

/* What follows the name of a declaration. */
static bool parse_decl_rest(cursor *k, uint32_t di)
{
    asm_ctx *c = k->c;
    decl *d = &c->decls.v[di];
    switch ((enum symkind)d->kind) {
    case S_CONST:
        return cur_expect(k, '=', "'='") && parse_cexpr(k, &d->arg);
    case S_VAR:
    case S_LOCK:
    case S_CHAN:
    case S_THREAD:
        if (cur_accept(k, '[')) {
            d->is_array = d->kind != S_CHAN;
            if (!parse_cexpr(k, &d->arg) || !cur_expect(k, ']', "']'")) return false;
        }
        if (d->kind != S_VAR) return true;
        if (cur_accept(k, '=') && !parse_initializer(k, di)) return false;
        d = &c->decls.v[di];
        if (tok_word(cur_peek(k), "init")) {
            if (d->cls != VM_SHARED) {
                error_at(c, k->li, cur_col(k), "'init' applies only to shared variables");
                return false;
            }
            k->i++;
            const tok *t = cur_peek(k);
            if (!t || t->kind != T_IDENT) return cur_fail(k, "a thread name after 'init'");
            d->init_t = (cexpr){.set = true, .name = t->p, .len = t->len, .li = k->li,
                                .col = t->col};
            k->i++;
        }
        return true;
    case S_PROC:
        if (tok_punct(cur_peek(k), '[')) {
            error_at(c, k->li, cur_col(k), "a proc is bounded by 'max K', not by '[K]'");
            return false;
        }
        if (tok_word(cur_peek(k), "max")) {
            k->i++;
            return parse_cexpr(k, &d->arg);
        }
        return true;
    case S_NKINDS:
        break;
    }
    return false;
}

static void close_body(asm_ctx *c, uint32_t li)
{
    if (c->cur_body >= 0) c->decls.v[c->cur_body].end_line = li;
    c->cur_body = -1;
}

/* A declaration line: `KEYWORD item, item, ...` (one item for thread and
 * proc, whose body follows the line). */
static void parse_declaration(asm_ctx *c, uint32_t li, uint8_t kind, uint8_t cls)
{
    cursor k = line_cursor(c, li, c->lines.v[li].stmt + 1);
    int32_t di = -1;
    for (;;) {
        const tok *t = cur_peek(&k);
        if (!t || t->kind != T_IDENT) {
            cur_fail(&k, "a name");
            c->lines.v[li].bad = true;
            if (di < 0) c->swallow = is_body_kind(kind);
            return;
        }
        k.i++;
        di = add_decl(c, kind, cls, li, t);
        if (di < 0) return;
        if (is_body_kind(kind)) {
            c->cur_body = di;
            c->decls.v[di].first_line = li + 1;
        }
        if (!parse_decl_rest(&k, (uint32_t)di)) break;
        if (!tok_punct(cur_peek(&k), ',')) {
            if (cur_expect_end(&k)) return;
            break;
        }
        if (is_body_kind(kind)) {
            error_at(c, li, cur_col(&k), "a %s declaration names one body (its code follows it)",
                     kind == S_THREAD ? "thread" : "proc");
            break;
        }
        k.i++;
    }
    c->decls.v[di].bad = true;
    c->lines.v[li].bad = true;
}

/* Classifies line li: a declaration (parsed now), or a body line. */
static void read_statement(asm_ctx *c, uint32_t li)
{
    line *ln = &c->lines.v[li];
    const tok *t = line_toks(c, ln);
    uint32_t i = 0;
    uint8_t kind = 0, cls = 0;
    while (i + 1 < ln->ntok && t[i].kind == T_IDENT && tok_punct(&t[i + 1], ':')) i += 2;
    ln->stmt = i;
    const tok *first = i < ln->ntok ? &t[i] : NULL;
    bool is_decl = first && decl_keyword(first, &kind, &cls);
    if (ln->bad) {
        if (is_decl) {
            close_body(c, li);
            c->swallow = true;
        }
        return;
    }
    if (is_decl) {
        ln->kind = L_DECL;
        close_body(c, li);
        c->swallow = false;
        if (i > 0) error_at(c, li, t[0].col, "a declaration cannot have a label");
        parse_declaration(c, li, kind, cls);
        return;
    }
    if (c->cur_body >= 0) {
        ln->kind = !first ? L_LABEL : tok_word(first, "reg") ? L_REG : L_INSN;
        return;
    }
    ln->bad = true;
    if (c->swallow) return;
    if (!first)
        error_at(c, li, t[0].col, "label outside any thread body");
    else if (tok_word(first, "reg"))
        error_at(c, li, first->col, "'reg' outside any thread body");
    else if (find_opcode(first) >= 0)
        error_at(c, li, first->col, "instruction outside any thread body");
    else {
        cursor k = line_cursor(c, li, i);
        cur_fail(&k, "a declaration");
    }
}

static void read_toplevel(asm_ctx *c)
{
    c->cur_body = -1;
    for (uint32_t li = 0; li < c->lines.n && !c->oom; li++) read_statement(c, li);
    close_body(c, c->lines.n);
    if (c->nkind[S_THREAD] == 0) error_at_top(c, "no thread in the model");
}

/* ---- stage 2: constants, sizes, counts -------------------------------- */

static void apply_defines(asm_ctx *c, const vm_define *defs, size_t ndefs)
{
    for (size_t i = 0; i < ndefs; i++) {
        const char *name = defs[i].name ? defs[i].name : "";
        size_t len = strlen(name);
        int32_t di = len <= UINT32_MAX ? lookup_global(c, name, (uint32_t)len) : -1;
        if (di < 0 || c->decls.v[di].kind != S_CONST) {
            error_where(c, D_CMDLINE, "-D %s: %s declares no const '%s'", name, c->file, name);
            continue;
        }
        c->decls.v[di].value = defs[i].value;
        c->decls.v[di].overridden = true;
    }
}

/* A const named in d's expression that is not resolved yet, or -1. */
static int32_t pending_dep(asm_ctx *c, const decl *d)
{
    const tok *t = line_toks(c, &c->lines.v[d->arg.li]);
    for (uint32_t i = d->arg.i0; i < d->arg.i1; i++) {
        if (t[i].kind != T_IDENT) continue;
        int32_t dep = lookup_global(c, t[i].p, t[i].len);
        if (dep >= 0 && c->decls.v[dep].kind == S_CONST && c->decls.v[dep].cstate != C_DONE)
            return dep;
    }
    return -1;
}

/* Resolves const di and the consts it depends on, depth first. Chains
 * (`const A = B + 1`, `const B = C`, ...) may be long, so the path is an
 * explicit stack, not recursion; a const met again on the path is a cycle,
 * reported once at the const where it starts. */
static void resolve_const(asm_ctx *c, uint32_t di)
{
    if (c->decls.v[di].cstate == C_DONE) return;
    c->path.n = 0;
    uint32_t *slot = VEC_PUSH(c, c->path);
    if (!slot) return;
    *slot = di;
    c->decls.v[di].cstate = C_ACTIVE;
    while (c->path.n && !c->oom) {
        uint32_t k = c->path.v[c->path.n - 1];
        decl *d = &c->decls.v[k];
        int32_t dep = d->overridden || d->bad ? -1 : pending_dep(c, d);
        if (dep >= 0 && c->decls.v[dep].cstate == C_ACTIVE) {
            const decl *start = &c->decls.v[dep];
            error_at(c, start->li, start->col, "const '%.*s' is defined in terms of itself",
                     NAMEARG(start->name, start->len));
            uint32_t j = c->path.n;
            while (j > 0 && c->path.v[j - 1] != (uint32_t)dep) j--;
            for (uint32_t i = j; i < c->path.n; i++) {
                const decl *via = &c->decls.v[c->path.v[i]];
                note_at(c, via->li, via->col, "through '%.*s'", NAMEARG(via->name, via->len));
            }
            for (j = c->path.n; j-- > 0;) {
                decl *m = &c->decls.v[c->path.v[j]];
                m->bad = true;
                m->cstate = C_DONE;
                if (c->path.v[j] == (uint32_t)dep) break;
            }
            c->path.n = j;
            continue;
        }
        if (dep >= 0) {
            c->decls.v[dep].cstate = C_ACTIVE;
            if (!(slot = VEC_PUSH(c, c->path))) return;
            *slot = (uint32_t)dep;
            continue;
        }
        if (!d->overridden && !d->bad && !eval_cexpr(c, &d->arg, &d->value)) d->bad = true;
        d->cstate = C_DONE;
        c->path.n--;
    }
}

/* A size, count, capacity or max in [1, hi]; 1 when absent or wrong. */
static uint32_t eval_count(asm_ctx *c, const cexpr *e, int32_t hi, const char *what)
{
    int32_t v;
    if (!e->set || !eval_cexpr(c, e, &v)) return 1;
    if (v >= 1 && v <= hi) return (uint32_t)v;
    if (hi == INT32_MAX)
        error_at(c, e->li, e->col, "%s must be positive, got %d", what, (int)v);
    else
        error_at(c, e->li, e->col, "%s must be 1 .. %d, got %d", what, (int)hi, (int)v);
    return 1;
}

static void resolve_var_init(asm_ctx *c, decl *d)
{
    int32_t v;
    if (d->init_kind == INIT_ALL && eval_cexpr(c, &d->init_all, &v)) d->init_all.val = v;
    for (uint32_t i = 0; i < d->nlist; i++) {
        cexpr *e = &c->inits.v[d->list0 + i];
        if (i == d->count) {
            error_at(c, e->li, e->col, "too many initializers for '%.*s' (%u elements)",
                     NAMEARG(d->name, d->len), (unsigned)d->count);
            break;
        }
        if (eval_cexpr(c, e, &v)) e->val = v;
    }
    if (d->init_t.set) {
        int32_t bi = lookup_global(c, d->init_t.name, d->init_t.len);
        if (bi < 0) {
            error_at(c, d->init_t.li, d->init_t.col, "unknown thread '%.*s'",
                     NAMEARG(d->init_t.name, d->init_t.len));
        } else if (!is_body_kind(c->decls.v[bi].kind)) {
            error_kind(c, d->init_t.li, d->init_t.col, d->init_t.name, d->init_t.len,
                       &c->decls.v[bi], "a thread or proc");
        } else {
            d->init_body = (int32_t)c->decls.v[bi].id;
        }
    }
}

static void resolve_decl(asm_ctx *c, decl *d)
{
    switch ((enum symkind)d->kind) {
    case S_VAR:
    case S_LOCK:
        if (d->is_array) d->count = eval_count(c, &d->arg, INT32_MAX, "array size");
        if (d->kind == S_VAR) resolve_var_init(c, d);
        break;
    case S_CHAN:
        d->count = eval_count(c, &d->arg, VM_MAX_CHAN_CAP, "channel capacity");
        break;
    case S_THREAD:
        d->count = eval_count(c, &d->arg, INT32_MAX, "instance count");
        break;
    case S_PROC:
        d->count = eval_count(c, &d->arg, VM_MAX_PROC_MAX, "'max'");
        break;
    case S_CONST:
    case S_NKINDS:
        break;
    }
}

/* Thread ids: static instances in declaration order, then the spawn pool. */
static void count_threads(asm_ctx *c)
{
    uint64_t total = 0;
    for (uint32_t di = 0; di < c->decls.n; di++) {
        decl *d = &c->decls.v[di];
        if (!is_body_kind(d->kind)) continue;
        if (total <= VM_MAX_THREADS && total + d->count > VM_MAX_THREADS)
            error_at(c, d->li, d->col,
                     "too many threads: '%.*s' brings the total to %llu (limit %d)",
                     NAMEARG(d->name, d->len), (unsigned long long)(total + d->count),
                     VM_MAX_THREADS);
        total += d->count;
        if (d->kind == S_THREAD) c->nstatic += d->count;
        else c->nspawn += d->count;
    }
}

static void resolve(asm_ctx *c, const vm_define *defs, size_t ndefs)
{
    apply_defines(c, defs, ndefs);
    for (uint32_t di = 0; di < c->decls.n && !c->oom; di++)
        if (c->decls.v[di].kind == S_CONST) resolve_const(c, di);
    for (uint32_t di = 0; di < c->decls.n; di++)
        if (!c->decls.v[di].bad) resolve_decl(c, &c->decls.v[di]);
    count_threads(c);
}

/* ---- stage 3: bodies -------------------------------------------------- */

static void body_reset(asm_ctx *c)
{
    body_ctx *b = &c->b;
    strmap_clear(&b->labelmap);
    strmap_clear(&b->regmap);
    b->labels.n = b->regs.n = b->slots.n = 0;
    b->slots_full = false;
    for (int r = 0; r < VM_MAX_REGS; r++) b->rslot[r] = -1;
}

static void add_label(asm_ctx *c, uint32_t li, const tok *t, uint32_t pc)
{
    int32_t prev;
    if (strmap_get(&c->b.labelmap, t->p, t->len, &prev)) {
        const label *pl = &c->b.labels.v[prev];
        error_at(c, li, t->col, "duplicate label '%.*s'", NAMEARG(t->p, t->len));
        note_at(c, pl->li, pl->col, "previous definition is here");
        return;
    }
    label *l = VEC_PUSH(c, c->b.labels);
    if (!l) return;
    *l = (label){t->p, t->len, li, pc, t->col};
    strmap_put(c, &c->b.labelmap, t->p, t->len, (int32_t)(c->b.labels.n - 1));
}

static bool declare_reg(asm_ctx *c, uint32_t li, const tok *t)
{
    int32_t prev;
    if (!check_not_reserved(c, li, t)) return false;
    if ((prev = lookup_global(c, t->p, t->len)) >= 0) {
        const decl *d = &c->decls.v[prev];
        error_at(c, li, t->col, "duplicate name '%.*s'", NAMEARG(t->p, t->len));
        note_at(c, d->li, d->col, "'%.*s' is declared here as %s", NAMEARG(d->name, d->len),
                kind_phrase(d));
        return false;
    }
    if (strmap_get(&c->b.regmap, t->p, t->len, &prev)) {
        const namedreg *r = &c->b.regs.v[prev];
        error_at(c, li, t->col, "duplicate register '%.*s'", NAMEARG(t->p, t->len));
        note_at(c, r->li, r->col, "previous definition is here");
        return false;
    }
    namedreg *r = VEC_PUSH(c, c->b.regs);
    if (!r) return false;
    *r = (namedreg){t->p, t->len, li, t->col, -1};
    strmap_put(c, &c->b.regmap, t->p, t->len, (int32_t)(c->b.regs.n - 1));
    return true;
}

/* `reg a, b, c` */
static void declare_regs(asm_ctx *c, uint32_t li)
{
    cursor k = line_cursor(c, li, c->lines.v[li].stmt + 1);
    do {
        const tok *t = cur_peek(&k);
        if (!t || t->kind != T_IDENT) {
            cur_fail(&k, "a register name");
            return;
        }
        if (!declare_reg(c, li, t)) return;
        k.i++;
    } while (cur_accept(&k, ','));
    cur_expect_end(&k);
}

/* Labels and named registers of the body; returns its instruction count
 * (without the implicit end), or VM_MAX_CODE if that is too many. */
static uint32_t scan_body(asm_ctx *c, const decl *d)
{
    uint32_t pc = 0;
    for (uint32_t li = d->first_line; li < d->end_line && !c->oom; li++) {
        const line *ln = &c->lines.v[li];
        if (ln->bad) continue;
        for (uint32_t i = 0; i < ln->stmt; i += 2) add_label(c, li, &line_toks(c, ln)[i], pc);
        if (ln->kind == L_REG) declare_regs(c, li);
        if (ln->kind != L_INSN) continue;
        if (pc == VM_MAX_CODE - 1) {
            error_at(c, li, line_toks(c, ln)[ln->stmt].col,
                     "'%.*s' has too many instructions (limit %d including the implicit end)",
                     NAMEARG(d->name, d->len), VM_MAX_CODE);
            return VM_MAX_CODE;
        }
        pc++;
    }
    return pc;
}

/* The slot of a register, assigned at its first reference; -1 if the body
 * has no slot left (reported). */
static int32_t reg_slot(cursor *k, int32_t *slotp, const tok *t)
{
    body_ctx *b = &k->c->b;
    if (*slotp >= 0) return *slotp;
    if (b->slots.n == MAX_SLOTS) {
        if (!b->slots_full)
            error_at(k->c, k->li, t->col, "too many registers in one body (limit %d)", MAX_SLOTS);
        b->slots_full = true;
        return -1;
    }
    slotname *s = VEC_PUSH(k->c, b->slots);
    if (!s) return -1;
    *s = (slotname){t->p, t->len};
    *slotp = (int32_t)(b->slots.n - 1);
    return *slotp;
}

/* If t is a register, consumes it: 1 with *slot, -1 on error; 0 if not. */
static int take_reg(cursor *k, const tok *t, int32_t *slot)
{
    uint32_t num;
    int32_t ri;
    int32_t *slotp;
    if (t->kind != T_IDENT) return 0;
    if (reg_syntax(t->p, t->len, &num)) {
        if (num >= VM_MAX_REGS) {
            error_at(k->c, k->li, t->col,
                     "register out of range: '%.*s' (r0 .. r15, or declare a name with 'reg')",
                     NAMEARG(t->p, t->len));
            return -1;
        }
        if (t->len > 2 && t->p[1] == '0') {
            error_at(k->c, k->li, t->col, "invalid register name '%.*s'", NAMEARG(t->p, t->len));
            return -1;
        }
        slotp = &k->c->b.rslot[num];
    } else if (strmap_get(&k->c->b.regmap, t->p, t->len, &ri)) {
        slotp = &k->c->b.regs.v[ri].slot;
    } else {
        return 0;
    }
    if ((*slot = reg_slot(k, slotp, t)) < 0) return -1;
    k->i++;
    return 1;
}

/* A global name of kind `want` at the cursor; its decl index or -1. */
static int32_t take_global(cursor *k, uint8_t want, uint8_t op)
{
    const tok *t = cur_peek(k);
    char what[32];
    snprintf(what, sizeof what, "a %s", kind_noun[want]);
    if (!t || t->kind != T_IDENT || is_reserved(t)) {
        cur_fail(k, what);
        return -1;
    }
    int32_t di = lookup_global(k->c, t->p, t->len);
    if (di < 0) {
        error_at(k->c, k->li, t->col, "unknown %s '%.*s'", kind_noun[want], NAMEARG(t->p, t->len));
        return -1;
    }
    const decl *d = &k->c->decls.v[di];
    if (d->kind == want) {
        k->i++;
        return di;
    }
    if (d->kind == S_CONST && op == VM_OP_store)
        error_at(k->c, k->li, t->col, "cannot store to constant '%.*s'", NAMEARG(t->p, t->len));
    else
        error_kind(k->c, k->li, t->col, t->p, t->len, d, what);
    return -1;
}

/* rd */
static bool parse_rd(cursor *k, uint8_t *rd)
{
    const tok *t = cur_peek(k);
    int32_t slot;
    int r = t ? take_reg(k, t, &slot) : 0;
    if (r > 0) *rd = (uint8_t)slot;
    if (r) return r > 0;
    bool is_name = t && t->kind == T_IDENT && !is_reserved(t);
    int32_t di = is_name ? lookup_global(k->c, t->p, t->len) : -1;
    if (di >= 0) {
        error_kind(k->c, k->li, t->col, t->p, t->len, &k->c->decls.v[di], "a register");
        return false;
    }
    if (is_name) {
        error_at(k->c, k->li, t->col, "unknown register '%.*s'", NAMEARG(t->p, t->len));
        return false;
    }
    return cur_fail(k, "a register");
}

/* a, b: register, self, tid, or a constant expression (an integer, a const,
 * `N-1`, `-(2*N)`, ...) */
static bool parse_value(cursor *k, vm_operand *o)
{
    const tok *t = cur_peek(k);
    const tok *next = k->i + 1 < k->n ? &k->t[k->i + 1] : NULL;
    int32_t slot;
    if (!t || (t->kind != T_IDENT && t->kind != T_INT && !tok_punct(t, '-') &&
               !tok_punct(t, '(')))
        return cur_fail(k, "a value");
    if (t->kind != T_IDENT || is_operator(next)) {
        cx x = {k, true, 0};
        int32_t v;
        if (!cx_expr(&x, &v)) return false;
        *o = (vm_operand){VM_ARG_IMM, v};
        return true;
    }
    int r = take_reg(k, t, &slot);
    if (r) {
        if (r > 0) *o = (vm_operand){VM_ARG_REG, slot};
        return r > 0;
    }
    if (tok_word(t, "self") || tok_word(t, "tid")) {
        *o = (vm_operand){tok_word(t, "self") ? VM_ARG_SELF : VM_ARG_TID, 0};
        k->i++;
        return true;
    }
    if (is_reserved(t)) return cur_fail(k, "a value");
    int32_t di = lookup_global(k->c, t->p, t->len);
    if (di < 0) {
        error_at(k->c, k->li, t->col, "unknown name '%.*s'", NAMEARG(t->p, t->len));
        return false;
    }
    const decl *d = &k->c->decls.v[di];
    if (d->kind != S_CONST) {
        error_kind(k->c, k->li, t->col, t->p, t->len, d,
                   d->kind == S_VAR ? "a value (load it into a register)" : "a value");
        return false;
    }
    if (d->bad) return false;
    *o = (vm_operand){VM_ARG_IMM, d->value};
    k->i++;
    return true;
}

/* mem or lk: NAME or NAME[a] */
static bool parse_indexed(cursor *k, uint8_t want, vm_insn *in)
{
    const tok *t = cur_peek(k);
    int32_t di = take_global(k, want, in->op);
    if (di < 0) return false;
    const decl *d = &k->c->decls.v[di];
    in->obj = (int32_t)d->id;
    in->idx = (vm_operand){VM_ARG_IMM, 0};
    if (want == S_VAR && d->cls == VM_VOLATILE) in->visible = 1;
    if (tok_punct(cur_peek(k), '[')) {
        if (!d->is_array) {
            error_at(k->c, k->li, cur_col(k), "'%.*s' is not an array", NAMEARG(t->p, t->len));
            return false;
        }
        k->i++;
        return parse_value(k, &in->idx) && cur_expect(k, ']', "']'");
    }
    if (d->is_array) {
        error_at(k->c, k->li, t->col, "'%.*s' is an array and needs an index",
                 NAMEARG(t->p, t->len));
        return false;
    }
    return true;
}

static bool parse_label_ref(cursor *k, int32_t *pc)
{
    const tok *t = cur_peek(k);
    int32_t li;
    if (!t || t->kind != T_IDENT) return cur_fail(k, "a label");
    if (!strmap_get(&k->c->b.labelmap, t->p, t->len, &li)) {
        error_at(k->c, k->li, t->col, "undefined label '%.*s'", NAMEARG(t->p, t->len));
        return false;
    }
    *pc = (int32_t)k->c->b.labels.v[li].pc;
    k->i++;
    return true;
}

static bool parse_string(cursor *k, const char **msg)
{
    const tok *t = cur_peek(k);
    if (!t || t->kind != T_STR) return cur_fail(k, "a string");
    char *s = arena_alloc(k->c->p, t->len);
    if (!s) {
        out_of_memory(k->c);
        return false;
    }
    size_t n = 0;
    for (uint32_t i = 1; i + 1 < t->len; i++) {
        if (t->p[i] == '\\') i++;
        s[n++] = t->p[i];
    }
    *msg = s;
    k->i++;
    return true;
}

/* The tokens as written, separated by one space where the source had
 * whitespace between them. */
static const char *join_tokens(asm_ctx *c, const tok *t, uint32_t n)
{
    size_t size = 1;
    for (uint32_t i = 0; i < n; i++) size += t[i].len + 1;
    char *s = arena_alloc(c->p, size), *w = s;
    if (!s) {
        out_of_memory(c);
        return "";
    }
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && t[i].p != t[i - 1].p + t[i - 1].len) *w++ = ' ';
        memcpy(w, t[i].p, t[i].len);
        w += t[i].len;
    }
    *w = '\0';
    return s;
}

/* Operand shapes per format, one letter per operand: r rd, a/b value,
 * m mem, k lock, c channel, p proc, l label, s string (optional, last). */
static const char *const shapes[] = {
    [VM_FMT_NONE] = "", [VM_FMT_RA] = "ra",  [VM_FMT_RAB] = "rab", [VM_FMT_RM] = "rm",
    [VM_FMT_MA] = "ma", [VM_FMT_L] = "l",    [VM_FMT_AL] = "al",   [VM_FMT_AS] = "as",
    [VM_FMT_K] = "k",   [VM_FMT_CA] = "ca",  [VM_FMT_RC] = "rc",   [VM_FMT_RPA] = "rpa",
    [VM_FMT_A] = "a",
};

static const char *operand_name(char letter)
{
    switch (letter) {
    case 'r': return "rd";
    case 'a': return "a";
    case 'b': return "b";
    case 'm': return "mem";
    case 'k': return "lk";
    case 'c': return "ch";
    case 'p': return "P";
    case 'l': return "label";
    default: return "\"msg\"";
    }
}

static void report_operand_count(asm_ctx *c, uint32_t li, const tok *m, const char *shape,
                                 uint32_t got)
{
    size_t n = strlen(shape);
    bool optional = n && shape[n - 1] == 's';
    char list[64] = "";
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", operand_name(shape[i]));
    }
    if (n == 0)
        error_at(c, li, m->col, "'%.*s' expects no operands, got %u", NAMEARG(m->p, m->len),
                 (unsigned)got);
    else if (optional)
        error_at(c, li, m->col, "'%.*s' expects %zu or %zu operands (%s), got %u",
                 NAMEARG(m->p, m->len), n - 1, n, list, (unsigned)got);
    else
        error_at(c, li, m->col, "'%.*s' expects %zu operand%s (%s), got %u", NAMEARG(m->p, m->len),
                 n, n == 1 ? "" : "s", list, (unsigned)got);
}

static bool parse_operand(cursor *k, char letter, vm_insn *in)
{
    int32_t di;
    bool ok;
    switch (letter) {
    case 'r': ok = parse_rd(k, &in->rd); break;
    case 'a': ok = parse_value(k, &in->a); break;
    case 'b': ok = parse_value(k, &in->b); break;
    case 'm': ok = parse_indexed(k, S_VAR, in); break;
    case 'k': ok = parse_indexed(k, S_LOCK, in); break;
    case 'l': ok = parse_label_ref(k, &in->obj); break;
    case 's': ok = parse_string(k, &in->msg); break;
    default: /* 'c', 'p': a plain name */
        di = take_global(k, letter == 'c' ? S_CHAN : S_PROC, in->op);
        ok = di >= 0;
        if (ok) in->obj = (int32_t)k->c->decls.v[di].id;
        if (ok && letter == 'c' && tok_punct(cur_peek(k), '[')) {
            error_at(k->c, k->li, cur_col(k), "a channel cannot be indexed ([N] is its capacity)");
            return false;
        }
        break;
    }
    return ok && cur_expect_end(k);
}

/* Decodes the instruction on line li into *in. */
static void decode_insn(asm_ctx *c, uint32_t li, vm_insn *in)
{
    const line *ln = &c->lines.v[li];
    const tok *t = line_toks(c, ln), *m = &t[ln->stmt];
    in->line = ln->no;
    in->col = m->col;
    in->text = join_tokens(c, m, ln->ntok - ln->stmt);
    cursor k = line_cursor(c, li, ln->stmt);
    if (m->kind != T_IDENT) {
        cur_fail(&k, "an instruction");
        return;
    }
    int op = find_opcode(m);
    if (op < 0) {
        error_at(c, li, m->col, "unknown instruction '%.*s'", NAMEARG(m->p, m->len));
        return;
    }
    in->op = (uint8_t)op;
    const char *shape = shapes[vm_ops[op].format];
    size_t nshape = strlen(shape);
    /* operands: the tokens between commas outside brackets */
    cursor groups[3];
    uint32_t ng = 0, start = ln->stmt + 1, depth = 0;
    bool any = ln->ntok > start;
    for (uint32_t i = start; any && i <= ln->ntok; i++) {
        bool comma = i < ln->ntok && depth == 0 && tok_punct(&t[i], ',');
        if (i < ln->ntok && !comma) {
            depth += tok_punct(&t[i], '[');
            depth -= depth > 0 && tok_punct(&t[i], ']');
            continue;
        }
        if (ng < 3) {
            groups[ng] = (cursor){c, li, t + start, 0, i - start, k.endcol, "end of line"};
            if (comma) {
                groups[ng].endcol = t[i].col;
                groups[ng].endname = "','";
            }
        }
        ng++;
        start = i + 1;
    }
    bool optional = nshape && shape[nshape - 1] == 's';
    if (ng > nshape || ng + optional < nshape) {
        report_operand_count(c, li, m, shape, ng);
        return;
    }
    for (uint32_t g = 0; g < ng; g++)
        if (!parse_operand(&groups[g], shape[g], in)) return;
    if (optional && ng < nshape) in->msg = join_tokens(c, groups[0].t, groups[0].n);
    if (vm_ops[op].flags & VM_F_VIS) in->visible = 1;
}

static void name_slots(asm_ctx *c, decl *d)
{
    d->nregs = c->b.slots.n;
    d->regname = arena_alloc(c->p, (size_t)d->nregs * sizeof *d->regname);
    if (!d->regname) {
        out_of_memory(c);
        return;
    }
    for (uint32_t s = 0; s < d->nregs; s++)
        d->regname[s] = arena_strndup(c, c->b.slots.v[s].p, c->b.slots.v[s].len);
}

static void assemble_body(asm_ctx *c, uint32_t di)
{
    body_reset(c);
    uint32_t ninsn = scan_body(c, &c->decls.v[di]);
    if (ninsn >= VM_MAX_CODE || c->oom) return;
    decl *d = &c->decls.v[di];
    d->code = arena_alloc(c->p, (size_t)(ninsn + 1) * sizeof *d->code);
    if (!d->code) {
        out_of_memory(c);
        return;
    }
    d->ncode = ninsn + 1;
    uint32_t pc = 0;
    int32_t last_line = c->lines.v[d->li].no;
    for (uint32_t li = d->first_line; li < d->end_line && !c->oom; li++) {
        const line *ln = &c->lines.v[li];
        last_line = ln->no;
        if (!ln->bad && ln->kind == L_INSN) decode_insn(c, li, &d->code[pc++]);
    }
    vm_insn *end = &d->code[ninsn];
    end->op = VM_OP_end;
    end->line = last_line;
    end->col = 1;
    end->text = "end (implicit)";
    d->code[0].visible = 1;
    for (uint32_t i = 0; i < c->b.labels.n; i++) {
        const label *l = &c->b.labels.v[i];
        if (l->len >= 3 && memcmp(l->name, "end", 3) == 0) d->code[l->pc].end_label = 1;
    }
    name_slots(c, d);
}

static void assemble_bodies(asm_ctx *c)
{
    for (uint32_t di = 0; di < c->decls.n && !c->oom; di++)
        if (is_body_kind(c->decls.v[di].kind)) assemble_body(c, di);
}

/* ---- layout and the final program ------------------------------------- */

/* Advances the layout offset by `bytes` for declaration d; false (reported
 * once) if the state vector would exceed MAX_STATE_BYTES. */
static bool place(asm_ctx *c, uint64_t *off, uint64_t bytes, const decl *d)
{
    *off += bytes;
    if (*off <= MAX_STATE_BYTES) return true;
    error_at(c, d->li, d->col, "the state vector would exceed %d bytes at '%.*s'",
             MAX_STATE_BYTES, NAMEARG(d->name, d->len));
    return false;
}

static char *arena_name(asm_ctx *c, const decl *d) { return arena_strndup(c, d->name, d->len); }

static int32_t decl_line(const asm_ctx *c, const decl *d) { return c->lines.v[d->li].no; }

/* Constants, and globals at the start of the vector (after resolve(), an
 * initializer's cexpr.val holds its value). */
static bool build_globals(asm_ctx *c, uint64_t *off)
{
    vm_program *p = c->p;
    for (uint32_t di = 0; di < c->decls.n; di++) {
        const decl *d = &c->decls.v[di];
        if (d->kind == S_CONST)
            p->consts[d->id] = (vm_const){.name = arena_name(c, d), .value = d->value,
                                          .line = decl_line(c, d), .col = d->col};
        if (d->kind != S_VAR) continue;
        vm_var *v = &p->vars[d->id];
        uint32_t offset = (uint32_t)*off;
        if (!place(c, off, 4 * (uint64_t)d->count, d)) return false;
        int32_t *init = arena_alloc(p, (size_t)d->count * sizeof *init);
        if (!init) {
            out_of_memory(c);
            return false;
        }
        for (uint32_t e = 0; e < d->count; e++)
            init[e] = d->init_kind == INIT_ALL ? d->init_all.val
                      : e < d->nlist && d->init_kind == INIT_LIST ? c->inits.v[d->list0 + e].val
                                                                  : 0;
        *v = (vm_var){.name = arena_name(c, d), .line = decl_line(c, d), .col = d->col,
                      .cls = (enum vm_varclass)d->cls, .is_array = d->is_array,
                      .size = d->count, .init_body = d->init_body, .init = init,
                      .offset = offset, .first_elem = p->nelems};
        p->nelems += d->count;
    }
    return true;
}

static bool build_locks_chans(asm_ctx *c, uint64_t *off)
{
    vm_program *p = c->p;
    p->layout.wsbytes = (p->nthreads + 7) / 8;
    p->layout.lock_bytes = 3 + p->layout.wsbytes;
    p->layout.locks_off = (uint32_t)*off;
    for (uint32_t di = 0; di < c->decls.n; di++) {
        const decl *d = &c->decls.v[di];
        if (d->kind != S_LOCK) continue;
        if (!place(c, off, (uint64_t)d->count * p->layout.lock_bytes, d)) return false;
        p->lockdecls[d->id] = (vm_lockdecl){.name = arena_name(c, d), .line = decl_line(c, d),
                                            .col = d->col, .is_array = d->is_array,
                                            .size = d->count, .first = p->nlocks};
        p->nlocks += d->count;
    }
    for (uint32_t di = 0; di < c->decls.n; di++) {
        const decl *d = &c->decls.v[di];
        if (d->kind != S_CHAN) continue;
        p->chans[d->id] = (vm_chan){.name = arena_name(c, d), .line = decl_line(c, d),
                                    .col = d->col, .cap = d->count, .offset = (uint32_t)*off};
        if (!place(c, off, 1 + 4 * (uint64_t)d->count, d)) return false;
    }
    return true;
}

/* Bodies, spawn counters and thread slots (static first, then the pool). */
static bool build_threads(asm_ctx *c, uint64_t *off)
{
    vm_program *p = c->p;
    uint32_t tid = 0, nspawn = 0;
    p->layout.spawns_off = (uint32_t)*off;
    *off += p->nbodies;
    p->layout.threads_off = (uint32_t)*off;
    for (uint32_t di = 0; di < c->decls.n; di++) {
        const decl *d = &c->decls.v[di];
        if (!is_body_kind(d->kind)) continue;
        vm_body *b = &p->bodies[d->id];
        *b = (vm_body){.name = arena_name(c, d), .line = decl_line(c, d), .col = d->col,
                       .is_proc = d->kind == S_PROC, .is_array = d->is_array,
                       .count = d->count, .code = d->code, .ncode = d->ncode,
                       .nregs = d->nregs, .regname = d->regname};
        if (b->is_proc) {
            if (d->nregs > p->max_regs_proc) p->max_regs_proc = d->nregs;
            continue;
        }
        b->first_tid = tid;
        bool waits = false; /* only a thread that waits saves a lock depth */
        for (uint32_t pc = 0; pc < d->ncode; pc++) waits |= d->code[pc].op == VM_OP_wait;
        uint32_t regs_off = VM_TS_HEADER_STATIC + (waits ? 2 : 0);
        for (uint32_t i = 0; i < d->count; i++, tid++) {
            p->threads[tid] = (vm_thread_slot){
                .offset = (uint32_t)*off, .body = (int32_t)d->id, .nregs = d->nregs,
                .bytes = regs_off + 4 * d->nregs,
                .depth_off = waits ? VM_TS_HEADER_STATIC : 0, .self_off = 0,
                .regs_off = regs_off, .self = (int32_t)i};
            if (!place(c, off, regs_off + 4 * (uint64_t)d->nregs, d)) return false;
        }
    }
    for (uint32_t di = 0; di < c->decls.n; di++) {
        const decl *d = &c->decls.v[di];
        if (d->kind != S_PROC) continue;
        for (uint32_t i = 0; i < d->count; i++, nspawn++) {
            p->threads[tid + nspawn] = (vm_thread_slot){
                .offset = (uint32_t)*off, .body = -1, .nregs = p->max_regs_proc,
                .bytes = VM_TS_SPAWN_REGS + 4 * p->max_regs_proc,
                .depth_off = VM_TS_SPAWN_DEPTH, .self_off = VM_TS_SPAWN_SELF,
                .regs_off = VM_TS_SPAWN_REGS, .self = 0};
            if (!place(c, off, VM_TS_SPAWN_REGS + 4 * (uint64_t)p->max_regs_proc, d))
                return false;
        }
    }
    return true;
}

static void build_init_state(vm_program *p)
{
    uint8_t *s = p->init_state;
    for (uint32_t v = 0; v < p->nvars; v++)
        for (uint32_t e = 0; e < p->vars[v].size; e++)
            vm_wr32(s, p->vars[v].offset + 4 * e, p->vars[v].init[e]);
    for (uint32_t t = 0; t < p->nstatic; t++) /* body and self are in the slot */
        s[p->threads[t].offset + VM_TS_STATUS] = VM_T_RUNNING;
}

static void build_program(asm_ctx *c)
{
    vm_program *p = c->p;
    uint64_t off = 0;
    p->nconsts = c->nkind[S_CONST];
    p->nvars = c->nkind[S_VAR];
    p->nlockdecls = c->nkind[S_LOCK];
    p->nchans = c->nkind[S_CHAN];
    p->nbodies = c->nkind[S_THREAD] + c->nkind[S_PROC];
    p->nstatic = c->nstatic;
    p->nthreads = c->nstatic + c->nspawn;
    p->consts = arena_alloc(p, (size_t)p->nconsts * sizeof *p->consts);
    p->vars = arena_alloc(p, (size_t)p->nvars * sizeof *p->vars);
    p->lockdecls = arena_alloc(p, (size_t)p->nlockdecls * sizeof *p->lockdecls);
    p->chans = arena_alloc(p, (size_t)p->nchans * sizeof *p->chans);
    p->bodies = arena_alloc(p, (size_t)p->nbodies * sizeof *p->bodies);
    p->threads = arena_alloc(p, (size_t)p->nthreads * sizeof *p->threads);
    if (!p->consts || !p->vars || !p->lockdecls || !p->chans || !p->bodies || !p->threads) {
        out_of_memory(c);
        return;
    }
    if (!build_globals(c, &off) || !build_locks_chans(c, &off) || !build_threads(c, &off))
        return;
    p->layout.size = (uint32_t)off;
    p->init_state = arena_alloc(p, off);
    if (!p->init_state) {
        out_of_memory(c);
        return;
    }
    if (!c->nerrors) build_init_state(p);
}

/* ---- entry points ----------------------------------------------------- */

static void free_ctx(asm_ctx *c)
{
    free(c->toks.v);
    free(c->lines.v);
    free(c->decls.v);
    free(c->inits.v);
    free(c->path.v);
    free(c->names.s);
    free(c->b.labelmap.s);
    free(c->b.labels.v);
    free(c->b.regmap.s);
    free(c->b.regs.v);
    free(c->b.slots.v);
    free(c);
}

vm_program *vm_assemble(const char *filename, const char *src, size_t len,
                        const vm_define *defs, size_t ndefs, FILE *diag,
                        int *nerrors)
{
    const char *file = filename ? filename : "<input>";
    asm_ctx *c = calloc(1, sizeof *c);
    vm_program *p = calloc(1, sizeof *p);
    if (!c || !p) {
        if (diag) fprintf(diag, "%s: error: out of memory\n", file);
        if (nerrors) *nerrors = -1;
        free(c);
        free(p);
        return NULL;
    }
    c->p = p;
    c->file = file;
    c->src = src ? src : "";
    c->len = src ? len : 0;
    c->diag = diag;
    p->filename = arena_strndup(c, file, strlen(file));
    if (c->oom) {
        /* reported below */
    } else if (c->len > MAX_SOURCE_BYTES) {
        error_where(c, D_FILE, "input too large (limit %d bytes)", INT32_MAX);
    } else {
        read_lines(c);
        if (!c->oom) read_toplevel(c);
        if (!c->oom) resolve(c, defs, ndefs);
        if (!c->oom) assemble_bodies(c);
        if (!c->nerrors && !c->oom) build_program(c);
    }
    print_diagnostics(c);
    int ne = c->oom ? -1 : c->nerrors;
    free_ctx(c);
    if (nerrors) *nerrors = ne;
    if (ne) {
        vm_program_free(p);
        return NULL;
    }
    return p;
}
