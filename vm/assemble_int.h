/* assemble_int.h: what the stages of the assembler share (private to vm/).
 *
 * The assembler (vm_assemble in vm.h) runs in stages over one asm_ctx:
 * assemble.c     the pipeline, the arena the program owns, vectors, name maps
 * asm_lex.c      diagnostics, the lexer (lines -> tokens), token cursors
 * asm_decl.c     names and pass 1: the top-level declarations
 * asm_const.c    constant expressions, stage 2 (consts after -D, sizes,
 *                initial values) and the layout of the final program
 * asm_code.c     stage 3: labels, registers and the decoding of each body
 * asm_block.c    stage 3: atomic blocks (pairing, in_block, their errors)
 * asm_call.c     `stack N`, and where each `ret` may return (subroutines)
 * Nothing here is visible outside vm/; functions one stage calls in another
 * are named asm_*. Split out of assemble.c as SQLite splits vdbeaux.c from
 * vdbe.c: the stages read on their own, the header shows what they share. */
#ifndef MCHECK_ASSEMBLE_INT_H
#define MCHECK_ASSEMBLE_INT_H

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

enum linekind { L_NONE, L_DECL, L_INSN, L_REG, L_LABEL, L_STACK };

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

enum symkind { S_CONST, S_VAR, S_LOCK, S_CHAN, S_COND, S_THREAD, S_PROC, S_NKINDS };
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
    struct label *labs; /* the body's labels (props.c), owned by the program */
    uint32_t nlabs;
    uint32_t stack;            /* return-stack depth (asm_call.c); 0: no call */
    const uint32_t *ret_off;   /* vm_body's ret sites (asm_call.c) */
    const uint32_t *ret_pcs;
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

struct label;
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
    bool atomic_used;   /* a body has an atomic block: the program gets the
                           hidden lock "(atomic)" after the model's locks */
    uint32_t nstatic, nspawn;
    uint32_t max_threads; /* VM_MAX_THREADS, or vm_assemble_for()'s */
    int32_t cur_body; /* decl being read by pass 1, or -1 */
    VEC(uint32_t) prop_lines; /* `prop` lines, read by props.c after the bodies */
    VEC(uint32_t) region_lines; /* `region` lines, read by regions.c likewise */
    bool swallow;     /* after a broken thread/proc line: ignore its body */
    int32_t ended_at; /* a declaration (not a body's) that ended a body, line
                         index; -1 once a body starts (pass 1) */
    int32_t ended_body; /* the body it ended */
    body_ctx b;
    /* diagnostics: the MAX_SHOWN first by position */
    int nerrors;
    uint64_t seq, last_seq;
    int nshown;
    dmsg shown[MAX_SHOWN + 1];
} asm_ctx;

/* A cursor over some tokens of one line (a declaration, an operand). */
typedef struct cursor {
    asm_ctx *c;
    uint32_t li;
    const tok *t;
    uint32_t i, n;
    int32_t endcol;       /* where "end of operand" errors point */
    const char *endname;  /* what follows the tokens: "end of line", "','" */
} cursor;

/* ---- assemble.c: memory and name maps --------------------------------- */

/* Zeroed memory owned by p (freed by vm_program_free), or NULL. */
void *asm_arena_alloc(vm_program *p, size_t n);
/* A NUL-terminated copy of n bytes, owned by the program (NULL: out of
 * memory, reported). */
char *asm_arena_strndup(asm_ctx *c, const char *s, size_t n);
/* Makes room for one more element of `sz` bytes; returns the (maybe moved)
 * array. On failure the array is unchanged and *cap too. */
void *asm_vec_grow(asm_ctx *c, void *v, uint32_t *cap, size_t sz);

static inline void *vec_zeroed(void *e, size_t sz)
{
    memset(e, 0, sz);
    return e;
}

#define VEC_PUSH(c, vec)                                                       \
    (((vec).n < (vec).cap ||                                                   \
      ((vec).v = asm_vec_grow((c), (vec).v, &(vec).cap, sizeof *(vec).v),      \
       (vec).n < (vec).cap))                                                   \
         ? vec_zeroed((vec).v + (vec).n++, sizeof *(vec).v)                    \
         : NULL)

bool asm_strmap_get(const strmap *m, const char *k, uint32_t len, int32_t *v);
void asm_strmap_put(asm_ctx *c, strmap *m, const char *k, uint32_t len, int32_t v);
void asm_strmap_clear(strmap *m);

/* ---- asm_lex.c: diagnostics, lexer, cursors ------------------------------ */

/* An error at column col of line index li (1-based column). */
void asm_error_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...) PRINTF_LIKE(4, 5);
/* An error about the file as a whole, shown at 1:1. */
void asm_error_at_top(asm_ctx *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* An error without a position (D_FILE, D_CMDLINE). */
void asm_error_where(asm_ctx *c, uint8_t where, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Attaches a note to the error reported last (if that one is shown). */
void asm_note_at(asm_ctx *c, uint32_t li, int32_t col, const char *fmt, ...) PRINTF_LIKE(4, 5);
/* "Did you mean": offer candidates in declaration order, then attach the
 * closest (Damerau-Levenshtein distance <= 2 and <= a third of the name's
 * length; ties: the first offered) as a note to the error reported last. */
typedef struct suggest {
    const char *name;
    uint32_t len;
    const char *best;
    uint32_t best_len, best_d;
} suggest;
suggest asm_suggest_start(const char *name, uint32_t len);
void asm_suggest_try(suggest *s, const char *cand, uint32_t len);
/* Offers the top-level names whose kind is in `kinds` (bits 1u << S_*). */
void asm_suggest_decls(const asm_ctx *c, suggest *s, unsigned kinds);
void asm_suggest_note(asm_ctx *c, const suggest *s, uint32_t li, int32_t col);
/* Reports "out of memory" once; afterwards every stage stops early. */
void asm_out_of_memory(asm_ctx *c);
void asm_print_diagnostics(const asm_ctx *c);
/* Splits the input into lines and lexes them. */
void asm_read_lines(asm_ctx *c);
/* A cursor over tokens [from, n) of line li. */
cursor asm_line_cursor(asm_ctx *c, uint32_t li, uint32_t from);
/* "expected WHAT, got ..." at the cursor; returns false. */
bool asm_cur_fail(cursor *k, const char *what);
bool asm_cur_expect(cursor *k, char ch, const char *what);
bool asm_cur_expect_end(cursor *k);

static inline bool is_alpha(unsigned ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static inline bool is_digit(unsigned ch) { return ch >= '0' && ch <= '9'; }

static inline bool is_alnum(unsigned ch) { return is_alpha(ch) || is_digit(ch); }

/* The int32 with the bit pattern u (portable two's complement). */
static inline int32_t from_bits(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
}

static inline int32_t wrap_neg(int32_t v) { return from_bits(0u - (uint32_t)v); }

static inline const tok *line_toks(const asm_ctx *c, const line *ln)
{
    return ln->ntok ? &c->toks.v[ln->tok0] : NULL;
}

static inline int32_t tok_end_col(const tok *t) { return t->col + (int32_t)t->len; }

static inline const tok *cur_peek(const cursor *k) { return k->i < k->n ? &k->t[k->i] : NULL; }

static inline bool tok_punct(const tok *t, char ch)
{
    return t && t->kind == T_PUNCT && t->punct == ch;
}

static inline bool tok_word(const tok *t, const char *w)
{
    size_t n = strlen(w);
    return t && t->kind == T_IDENT && t->len == n && memcmp(t->p, w, n) == 0;
}

static inline bool cur_accept(cursor *k, char ch)
{
    if (!tok_punct(cur_peek(k), ch)) return false;
    k->i++;
    return true;
}

static inline int32_t cur_col(const cursor *k)
{
    const tok *t = cur_peek(k);
    return t ? t->col : k->endcol;
}

static inline bool is_body_kind(uint8_t kind) { return kind == S_THREAD || kind == S_PROC; }

static inline bool is_operator(const tok *t)
{
    return t && t->kind == T_PUNCT &&
           (t->punct == '+' || t->punct == '-' || t->punct == '*' || t->punct == '/' ||
            t->punct == '%');
}

/* ---- asm_decl.c: names and pass 1 ------------------------------------ */

extern const char *const asm_kind_noun[S_NKINDS];
/* `r` followed by digits (r0 .. r15 are registers; the rest are errors). */
bool asm_reg_syntax(const char *p, uint32_t len, uint32_t *num);
bool asm_is_reserved(const tok *t);
/* The declaration index of a top-level name, or -1. */
int32_t asm_lookup_global(const asm_ctx *c, const char *name, uint32_t len);
const char *asm_kind_phrase(const decl *d);
/* "'x' is a lock, expected WHAT" for a name of the wrong kind. */
void asm_error_kind(asm_ctx *c, uint32_t li, int32_t col, const char *name, uint32_t len,
                    const decl *d, const char *what);
/* Reports a reserved name; true if t may name something. */
bool asm_check_not_reserved(asm_ctx *c, uint32_t li, const tok *t);
int asm_find_opcode(const tok *t);
/* Pass 1: every line classified, every declaration read. */
void asm_read_toplevel(asm_ctx *c);

/* ---- asm_const.c: constant expressions, stage 2, layout ---------------- */

/* Pass 1: the syntax of a constant expression at the cursor; records its
 * tokens in e. */
bool asm_parse_cexpr(cursor *k, cexpr *e);
/* Stage 3: the value of the constant expression at the cursor. */
bool asm_cexpr_value(cursor *k, int32_t *v);
/* Stage 2: -D, consts, sizes, counts, initial values, thread ids. */
void asm_resolve(asm_ctx *c, const vm_define *defs, size_t ndefs);
/* The final program: constants, globals, locks, channels, bodies, thread
 * slots, the layout and the initial state. */
void asm_build_program(asm_ctx *c);

/* ---- asm_code.c: stage 3 ----------------------------------------------- */

/* Decodes every thread and proc body. */
void asm_assemble_bodies(asm_ctx *c);
/* asm_block.c: pair atomic/end_atomic in a body's decoded code of ninsn
 * instructions (li[pc]: the line index of pc), flag and check the blocks. */
void asm_check_blocks(asm_ctx *c, vm_insn *code, uint32_t ninsn, const uint32_t *li);
/* Is channel `id` a rendezvous (`chan c[0]`)? (Its declaration resolved.) */
bool asm_is_rendezvous(const asm_ctx *c, uint32_t id);

/* ---- asm_call.c: subroutines ------------------------------------------- */

/* `stack N` on line li of body d (`first`: it is the body's first line). */
void asm_read_stack_line(asm_ctx *c, decl *d, uint32_t li, bool first);
/* After d is decoded: its stack depth, the return sites of each `ret`
 * (d->ret_off, d->ret_pcs) and the error for a `ret` no `call` reaches. */
void asm_body_calls(asm_ctx *c, decl *d);

/* ---- props.c: `prop NAME = EXPR` lines (mcheck --ltl) --------------------- */

/* Parses the `prop` lines into p->props, once the program is built. */
void asm_read_props(asm_ctx *c);
/* Parses the `region` lines into p->regions likewise (regions.c). */
void asm_read_regions(asm_ctx *c);

#endif
