/* asm_decl.c: names and pass 1 of the assembler: the top-level declarations.
 *
 * Every line is classified (declaration, instruction, `reg`, label) and every
 * declaration item of a comma list is entered into the one namespace, with
 * its array size, initializer and `init T` kept as written: constant
 * expressions are only checked for syntax here and evaluated in stage 2
 * (asm_const.c), so a name may be used before its declaration. Bodies are
 * line ranges decoded in stage 3 (asm_code.c). */
#include "assemble_int.h"

/* ---- names ------------------------------------------------------------ */

static const char *const reserved_words[] = {
    "const", "shared", "volatile", "unshared", "lock", "chan", "thread",
    "proc",  "reg",    "init",     "max",      "self", "tid",  "cond",
};

/* `r` followed by digits (r0 .. r15 are registers; the rest are errors). */
bool asm_reg_syntax(const char *p, uint32_t len, uint32_t *num)
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

bool asm_is_reserved(const tok *t)
{
    uint32_t num;
    if (t->kind != T_IDENT) return false;
    for (size_t i = 0; i < sizeof reserved_words / sizeof reserved_words[0]; i++)
        if (tok_word(t, reserved_words[i])) return true;
    return asm_reg_syntax(t->p, t->len, &num);
}

int32_t asm_lookup_global(const asm_ctx *c, const char *name, uint32_t len)
{
    int32_t di;
    return asm_strmap_get(&c->names, name, len, &di) ? di : -1;
}

const char *asm_kind_phrase(const decl *d)
{
    static const char *const cls[] = {"a shared variable", "a volatile variable",
                                      "an unshared variable"};
    switch ((enum symkind)d->kind) {
    case S_CONST: return "a constant";
    case S_VAR: return cls[d->cls];
    case S_LOCK: return "a lock";
    case S_CHAN: return "a channel";
    case S_COND: return "a condition variable";
    case S_THREAD: return "a thread";
    case S_PROC: return "a proc";
    case S_NKINDS: break;
    }
    return "a name";
}

const char *const asm_kind_noun[S_NKINDS] = {
    [S_CONST] = "constant", [S_VAR] = "variable", [S_LOCK] = "lock",
    [S_CHAN] = "channel",   [S_THREAD] = "thread", [S_PROC] = "proc",
    [S_COND] = "condition variable",
};

/* "'x' is a lock, expected WHAT" for a name of the wrong kind. */
void asm_error_kind(asm_ctx *c, uint32_t li, int32_t col, const char *name, uint32_t len,
                       const decl *d, const char *what)
{
    asm_error_at(c, li, col, "'%.*s' is %s, expected %s", NAMEARG(name, len), asm_kind_phrase(d),
                 what);
}

/* Reports a reserved name; true if t may name something. */
bool asm_check_not_reserved(asm_ctx *c, uint32_t li, const tok *t)
{
    if (!asm_is_reserved(t)) return true;
    asm_error_at(c, li, t->col, "'%.*s' is reserved and cannot be used as a name",
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
        {"cond", S_COND, 0},
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

int asm_find_opcode(const tok *t)
{
    for (int op = 0; op < VM_OP_COUNT; op++)
        if (tok_word(t, vm_ops[op].name)) return op;
    return -1;
}

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
    if (!asm_check_not_reserved(c, li, t)) {
        d->bad = true;
        return di;
    }
    int32_t prev = asm_lookup_global(c, t->p, t->len);
    if (prev >= 0) {
        const decl *pd = &c->decls.v[prev];
        asm_error_at(c, li, t->col, "duplicate name '%.*s'", NAMEARG(t->p, t->len));
        asm_note_at(c, pd->li, pd->col, "previous definition is here");
        return di;
    }
    asm_strmap_put(c, &c->names, t->p, t->len, di);
    return di;
}

/* `= v` or `= {v1, v2, ...}` (the '=' already read). */
static bool parse_initializer(cursor *k, uint32_t di)
{
    asm_ctx *c = k->c;
    if (!cur_accept(k, '{')) {
        c->decls.v[di].init_kind = INIT_ALL;
        return asm_parse_cexpr(k, &c->decls.v[di].init_all);
    }
    c->decls.v[di].init_kind = INIT_LIST;
    c->decls.v[di].list0 = c->inits.n;
    if (!cur_accept(k, '}')) {
        do {
            cexpr *e = VEC_PUSH(c, c->inits);
            if (!e || !asm_parse_cexpr(k, e)) return false;
            c->decls.v[di].nlist++;
        } while (cur_accept(k, ','));
        if (!asm_cur_expect(k, '}', "',' or '}'")) return false;
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
        return asm_cur_expect(k, '=', "'='") && asm_parse_cexpr(k, &d->arg);
    case S_VAR:
    case S_LOCK:
    case S_COND:
    case S_CHAN:
    case S_THREAD:
        if (cur_accept(k, '[')) {
            d->is_array = d->kind != S_CHAN;
            if (!asm_parse_cexpr(k, &d->arg) || !asm_cur_expect(k, ']', "']'")) return false;
        }
        if (d->kind != S_VAR) return true;
        if (cur_accept(k, '=') && !parse_initializer(k, di)) return false;
        d = &c->decls.v[di];
        if (tok_word(cur_peek(k), "init")) {
            if (d->cls != VM_SHARED) {
                asm_error_at(c, k->li, cur_col(k), "'init' applies only to shared variables");
                return false;
            }
            k->i++;
            const tok *t = cur_peek(k);
            if (!t || t->kind != T_IDENT) return asm_cur_fail(k, "a thread name after 'init'");
            d->init_t = (cexpr){.set = true, .name = t->p, .len = t->len, .li = k->li,
                                .col = t->col};
            k->i++;
        }
        return true;
    case S_PROC:
        if (tok_punct(cur_peek(k), '[')) {
            asm_error_at(c, k->li, cur_col(k), "a proc is bounded by 'max K', not by '[K]'");
            return false;
        }
        if (tok_word(cur_peek(k), "max")) {
            k->i++;
            return asm_parse_cexpr(k, &d->arg);
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
    cursor k = asm_line_cursor(c, li, c->lines.v[li].stmt + 1);
    int32_t di = -1;
    for (;;) {
        const tok *t = cur_peek(&k);
        if (!t || t->kind != T_IDENT) {
            asm_cur_fail(&k, "a name");
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
            if (asm_cur_expect_end(&k)) return;
            break;
        }
        if (is_body_kind(kind)) {
            asm_error_at(c, li, cur_col(&k),
                         "a %s declaration names one body (its code follows it)",
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
    if (!is_decl && i == 0 && tok_word(first, "prop") && ln->ntok > 1 &&
        t[1].kind == T_IDENT) { /* `prop NAME = EXPR`: read by props.c */
        ln->kind = L_DECL;
        close_body(c, li);
        c->swallow = false;
        uint32_t *pl = VEC_PUSH(c, c->prop_lines);
        if (pl) *pl = li;
        return;
    }
    if (!is_decl && i == 0 && tok_word(first, "region") && ln->ntok > 1 &&
        t[1].kind == T_IDENT) { /* `region NAME = x, y`: read by regions.c */
        ln->kind = L_DECL;
        close_body(c, li);
        c->swallow = false;
        uint32_t *rl = VEC_PUSH(c, c->region_lines);
        if (rl) *rl = li;
        return;
    }
    if (is_decl) {
        ln->kind = L_DECL;
        if (is_body_kind(kind)) {
            c->ended_at = -1;
        } else if (c->cur_body >= 0) { /* said below if body lines follow */
            c->ended_at = (int32_t)li;
            c->ended_body = c->cur_body;
        }
        close_body(c, li);
        c->swallow = false;
        if (i > 0) asm_error_at(c, li, t[0].col, "a declaration cannot have a label");
        parse_declaration(c, li, kind, cls);
        return;
    }
    if (c->cur_body >= 0) {
        ln->kind = !first                     ? L_LABEL
                   : tok_word(first, "reg")   ? L_REG
                   : tok_word(first, "stack") ? L_STACK
                                              : L_INSN;
        return;
    }
    ln->bad = true;
    if (c->swallow) return;
    if (c->ended_at >= 0) { /* one error, at the declaration that cut the body */
        const line *dl = &c->lines.v[c->ended_at];
        const tok *kw = &line_toks(c, dl)[dl->stmt];
        const decl *b = &c->decls.v[c->ended_body];
        asm_error_at(c, (uint32_t)c->ended_at, kw->col,
                     "'%.*s' inside the body of %s %.*s: a declaration ends a body, so its "
                     "lines after it are outside any body; declare it before the body",
                     NAMEARG(kw->p, kw->len), b->kind == S_THREAD ? "thread" : "proc",
                     NAMEARG(b->name, b->len));
        c->ended_at = -1;
        c->swallow = true;
        return;
    }
    if (!first)
        asm_error_at(c, li, t[0].col, "label outside any thread body");
    else if (tok_word(first, "reg"))
        asm_error_at(c, li, first->col, "'reg' outside any thread body");
    else if (asm_find_opcode(first) >= 0)
        asm_error_at(c, li, first->col, "instruction outside any thread body");
    else {
        cursor k = asm_line_cursor(c, li, i);
        asm_cur_fail(&k, "a declaration");
    }
}

void asm_read_toplevel(asm_ctx *c)
{
    c->cur_body = -1;
    c->ended_at = -1;
    for (uint32_t li = 0; li < c->lines.n && !c->oom; li++) read_statement(c, li);
    close_body(c, c->lines.n);
    if (c->nkind[S_THREAD] == 0) asm_error_at_top(c, "no thread in the model");
}

