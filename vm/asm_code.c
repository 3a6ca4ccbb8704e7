/* asm_code.c: stage 3 of the assembler: the code of each thread and proc.
 *
 * Per body: labels and named registers (register slots are assigned at
 * first reference, so a body's slots are the registers it uses), then each
 * instruction decoded against its operand shape from opcodes.def, every
 * operand checked (register, value or constant expression, global, lock,
 * channel, proc, label, string), so that the interpreter only asserts. The
 * implicit `end` and the visible flags (InitVis, Stoller 3.5) are set here. */
#include "assemble_int.h"

/* ---- stage 3: bodies -------------------------------------------------- */

static void body_reset(asm_ctx *c)
{
    body_ctx *b = &c->b;
    asm_strmap_clear(&b->labelmap);
    asm_strmap_clear(&b->regmap);
    b->labels.n = b->regs.n = b->slots.n = 0;
    b->slots_full = false;
    for (int r = 0; r < VM_MAX_REGS; r++) b->rslot[r] = -1;
}

static void add_label(asm_ctx *c, uint32_t li, const tok *t, uint32_t pc)
{
    int32_t prev;
    if (asm_strmap_get(&c->b.labelmap, t->p, t->len, &prev)) {
        const label *pl = &c->b.labels.v[prev];
        asm_error_at(c, li, t->col, "duplicate label '%.*s'", NAMEARG(t->p, t->len));
        asm_note_at(c, pl->li, pl->col, "previous definition is here");
        return;
    }
    label *l = VEC_PUSH(c, c->b.labels);
    if (!l) return;
    *l = (label){t->p, t->len, li, pc, t->col};
    asm_strmap_put(c, &c->b.labelmap, t->p, t->len, (int32_t)(c->b.labels.n - 1));
}

static void declare_reg(asm_ctx *c, uint32_t li, const tok *t)
{
    int32_t prev;
    if (!asm_check_not_reserved(c, li, t)) return;
    if ((prev = asm_lookup_global(c, t->p, t->len)) >= 0) {
        const decl *d = &c->decls.v[prev];
        asm_error_at(c, li, t->col, "duplicate name '%.*s'", NAMEARG(t->p, t->len));
        asm_note_at(c, d->li, d->col, "'%.*s' is declared here as %s", NAMEARG(d->name, d->len),
                    asm_kind_phrase(d));
        return;
    }
    if (asm_strmap_get(&c->b.regmap, t->p, t->len, &prev)) {
        const namedreg *r = &c->b.regs.v[prev];
        asm_error_at(c, li, t->col, "duplicate register '%.*s'", NAMEARG(t->p, t->len));
        asm_note_at(c, r->li, r->col, "previous definition is here");
        return;
    }
    namedreg *r = VEC_PUSH(c, c->b.regs);
    if (!r) return;
    *r = (namedreg){t->p, t->len, li, t->col, -1};
    asm_strmap_put(c, &c->b.regmap, t->p, t->len, (int32_t)(c->b.regs.n - 1));
}

/* `reg a, b, c` */
static void declare_regs(asm_ctx *c, uint32_t li)
{
    cursor k = asm_line_cursor(c, li, c->lines.v[li].stmt + 1);
    do {
        const tok *t = cur_peek(&k);
        if (!t || t->kind != T_IDENT) {
            asm_cur_fail(&k, "a register name");
            return;
        }
        declare_reg(c, li, t); /* a bad name is said, and the rest are still declared */
        if (c->oom) return;
        k.i++;
    } while (cur_accept(&k, ','));
    asm_cur_expect_end(&k);
}

/* Labels and named registers of the body; returns its instruction count
 * (without the implicit end), or VM_MAX_CODE if that is too many. */
static uint32_t scan_body(asm_ctx *c, decl *d)
{
    uint32_t pc = 0;
    for (uint32_t li = d->first_line; li < d->end_line && !c->oom; li++) {
        const line *ln = &c->lines.v[li];
        if (ln->bad) continue;
        for (uint32_t i = 0; i < ln->stmt; i += 2) add_label(c, li, &line_toks(c, ln)[i], pc);
        if (ln->kind == L_REG) declare_regs(c, li);
        if (ln->kind == L_STACK) asm_read_stack_line(c, d, li, li == d->first_line);
        if (ln->kind != L_INSN) continue;
        if (pc == VM_MAX_CODE - 1) {
            asm_error_at(c, li, line_toks(c, ln)[ln->stmt].col,
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
            asm_error_at(k->c, k->li, t->col, "too many registers in one body (limit %d)",
                         MAX_SLOTS);
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
    if (asm_reg_syntax(t->p, t->len, &num)) {
        if (num >= VM_MAX_REGS) {
            asm_error_at(k->c, k->li, t->col,
                         "register out of range: '%.*s' (r0 .. r15, or declare a name with 'reg')",
                         NAMEARG(t->p, t->len));
            return -1;
        }
        if (t->len > 2 && t->p[1] == '0') {
            asm_error_at(k->c, k->li, t->col, "invalid register name '%.*s'",
                         NAMEARG(t->p, t->len));
            return -1;
        }
        slotp = &k->c->b.rslot[num];
    } else if (asm_strmap_get(&k->c->b.regmap, t->p, t->len, &ri)) {
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
    snprintf(what, sizeof what, "a %s", asm_kind_noun[want]);
    if (!t || t->kind != T_IDENT || asm_is_reserved(t)) {
        asm_cur_fail(k, what);
        return -1;
    }
    int32_t di = asm_lookup_global(k->c, t->p, t->len);
    if (di < 0) {
        asm_error_at(k->c, k->li, t->col, "unknown %s '%.*s'", asm_kind_noun[want],
                     NAMEARG(t->p, t->len));
        suggest s = asm_suggest_start(t->p, t->len);
        asm_suggest_decls(k->c, &s, 1u << want);
        asm_suggest_note(k->c, &s, k->li, t->col);
        return -1;
    }
    const decl *d = &k->c->decls.v[di];
    if (d->kind == want) {
        k->i++;
        return di;
    }
    if (d->kind == S_CONST && op == VM_OP_store)
        asm_error_at(k->c, k->li, t->col, "cannot store to constant '%.*s'",
                     NAMEARG(t->p, t->len));
    else
        asm_error_kind(k->c, k->li, t->col, t->p, t->len, d, what);
    return -1;
}

/* "did you mean" for an unknown register (and const, when a value may be
 * one): the body's named registers, then the consts. */
static void suggest_reg_or_const(cursor *k, const tok *t, bool consts)
{
    suggest s = asm_suggest_start(t->p, t->len);
    for (uint32_t i = 0; i < k->c->b.regs.n; i++)
        asm_suggest_try(&s, k->c->b.regs.v[i].name, k->c->b.regs.v[i].len);
    if (consts) asm_suggest_decls(k->c, &s, 1u << S_CONST);
    asm_suggest_note(k->c, &s, k->li, t->col);
}

/* rd */
static bool parse_rd(cursor *k, uint8_t *rd)
{
    const tok *t = cur_peek(k);
    int32_t slot;
    int r = t ? take_reg(k, t, &slot) : 0;
    if (r > 0) *rd = (uint8_t)slot;
    if (r) return r > 0;
    bool is_name = t && t->kind == T_IDENT && !asm_is_reserved(t);
    int32_t di = is_name ? asm_lookup_global(k->c, t->p, t->len) : -1;
    if (di >= 0) {
        asm_error_kind(k->c, k->li, t->col, t->p, t->len, &k->c->decls.v[di], "a register");
        return false;
    }
    if (is_name) {
        asm_error_at(k->c, k->li, t->col, "unknown register '%.*s'", NAMEARG(t->p, t->len));
        suggest_reg_or_const(k, t, false);
        return false;
    }
    return asm_cur_fail(k, "a register");
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
        return asm_cur_fail(k, "a value");
    if (t->kind != T_IDENT || is_operator(next)) {
        int32_t v;
        if (!asm_cexpr_value(k, &v)) return false;
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
    if (asm_is_reserved(t)) return asm_cur_fail(k, "a value");
    int32_t di = asm_lookup_global(k->c, t->p, t->len);
    if (di < 0) {
        asm_error_at(k->c, k->li, t->col, "unknown name '%.*s'", NAMEARG(t->p, t->len));
        suggest_reg_or_const(k, t, true);
        return false;
    }
    const decl *d = &k->c->decls.v[di];
    if (d->kind != S_CONST) {
        asm_error_kind(k->c, k->li, t->col, t->p, t->len, d,
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
            asm_error_at(k->c, k->li, cur_col(k), "'%.*s' is not an array", NAMEARG(t->p, t->len));
            return false;
        }
        k->i++;
        return parse_value(k, &in->idx) && asm_cur_expect(k, ']', "']'");
    }
    if (d->is_array) {
        asm_error_at(k->c, k->li, t->col, "'%.*s' is an array and needs an index",
                     NAMEARG(t->p, t->len));
        return false;
    }
    return true;
}

static bool parse_label_ref(cursor *k, int32_t *pc)
{
    const tok *t = cur_peek(k);
    int32_t li;
    if (!t || t->kind != T_IDENT) return asm_cur_fail(k, "a label");
    if (!asm_strmap_get(&k->c->b.labelmap, t->p, t->len, &li)) {
        asm_error_at(k->c, k->li, t->col, "undefined label '%.*s'", NAMEARG(t->p, t->len));
        suggest s = asm_suggest_start(t->p, t->len);
        for (uint32_t i = 0; i < k->c->b.labels.n; i++)
            asm_suggest_try(&s, k->c->b.labels.v[i].name, k->c->b.labels.v[i].len);
        asm_suggest_note(k->c, &s, k->li, t->col);
        return false;
    }
    *pc = (int32_t)k->c->b.labels.v[li].pc;
    k->i++;
    return true;
}

static bool parse_string(cursor *k, const char **msg)
{
    const tok *t = cur_peek(k);
    if (!t || t->kind != T_STR) return asm_cur_fail(k, "a string");
    char *s = asm_arena_alloc(k->c->p, t->len);
    if (!s) {
        asm_out_of_memory(k->c);
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
    char *s = asm_arena_alloc(c->p, size), *w = s;
    if (!s) {
        asm_out_of_memory(c);
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
 * m mem, k lock, q cond, c channel, p proc, l label, s string (optional,
 * last). */
static const char *const shapes[] = {
    [VM_FMT_NONE] = "", [VM_FMT_RA] = "ra",  [VM_FMT_RAB] = "rab", [VM_FMT_RM] = "rm",
    [VM_FMT_MA] = "ma", [VM_FMT_L] = "l",    [VM_FMT_AL] = "al",   [VM_FMT_AS] = "as",
    [VM_FMT_K] = "k",   [VM_FMT_CA] = "ca",  [VM_FMT_RC] = "rc",   [VM_FMT_RPA] = "rpa",
    [VM_FMT_A] = "a",   [VM_FMT_Q] = "q",    [VM_FMT_QK] = "qk",
};

static const char *operand_name(char letter)
{
    switch (letter) {
    case 'r': return "rd";
    case 'a': return "a";
    case 'b': return "b";
    case 'm': return "mem";
    case 'k': return "lk";
    case 'q': return "c";
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
        asm_error_at(c, li, m->col, "'%.*s' expects no operands, got %u", NAMEARG(m->p, m->len),
                     (unsigned)got);
    else if (optional)
        asm_error_at(c, li, m->col, "'%.*s' expects %zu or %zu operands (%s), got %u",
                     NAMEARG(m->p, m->len), n - 1, n, list, (unsigned)got);
    else
        asm_error_at(c, li, m->col, "'%.*s' expects %zu operand%s (%s), got %u",
                     NAMEARG(m->p, m->len), n, n == 1 ? "" : "s", list, (unsigned)got);
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
    case 'q': { /* a cond goes to cond + cidx (obj + idx stay for a lock) */
        int32_t obj = in->obj;
        vm_operand idx = in->idx;
        ok = parse_indexed(k, S_COND, in);
        in->cond = in->obj;
        in->cidx = in->idx;
        in->obj = obj;
        in->idx = idx;
        break;
    }
    case 'l': ok = parse_label_ref(k, &in->obj); break;
    case 's': ok = parse_string(k, &in->msg); break;
    default: /* 'c', 'p': a plain name */
        di = take_global(k, letter == 'c' ? S_CHAN : S_PROC, in->op);
        ok = di >= 0;
        if (ok) in->obj = (int32_t)k->c->decls.v[di].id;
        if (ok && letter == 'c' && tok_punct(cur_peek(k), '[')) {
            asm_error_at(k->c, k->li, cur_col(k),
                         "a channel cannot be indexed ([N] is its capacity)");
            return false;
        }
        break;
    }
    return ok && asm_cur_expect_end(k);
}

/* Decodes the instruction on line li into *in. */
static void decode_insn(asm_ctx *c, uint32_t li, vm_insn *in)
{
    const line *ln = &c->lines.v[li];
    const tok *t = line_toks(c, ln), *m = &t[ln->stmt];
    in->line = ln->no;
    in->col = m->col;
    in->text = join_tokens(c, m, ln->ntok - ln->stmt);
    cursor k = asm_line_cursor(c, li, ln->stmt);
    if (m->kind != T_IDENT) {
        asm_cur_fail(&k, "an instruction");
        return;
    }
    int op = asm_find_opcode(m);
    if (op < 0) {
        asm_error_at(c, li, m->col, "unknown instruction '%.*s'", NAMEARG(m->p, m->len));
        suggest s = asm_suggest_start(m->p, m->len);
        for (int i = 0; i < VM_OP_COUNT; i++)
            asm_suggest_try(&s, vm_ops[i].name, (uint32_t)strlen(vm_ops[i].name));
        asm_suggest_note(c, &s, li, m->col);
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
    d->regname = asm_arena_alloc(c->p, (size_t)d->nregs * sizeof *d->regname);
    if (!d->regname) {
        asm_out_of_memory(c);
        return;
    }
    for (uint32_t s = 0; s < d->nregs; s++)
        d->regname[s] = asm_arena_strndup(c, c->b.slots.v[s].p, c->b.slots.v[s].len);
}

static void assemble_body(asm_ctx *c, uint32_t di)
{
    body_reset(c);
    uint32_t ninsn = scan_body(c, &c->decls.v[di]);
    if (ninsn >= VM_MAX_CODE || c->oom) return;
    decl *d = &c->decls.v[di];
    d->code = asm_arena_alloc(c->p, (size_t)(ninsn + 1) * sizeof *d->code);
    if (!d->code) {
        asm_out_of_memory(c);
        return;
    }
    d->ncode = ninsn + 1;
    uint32_t pc = 0;
    int32_t last_line = c->lines.v[d->li].no;
    uint32_t *li_of = malloc((size_t)(ninsn + 1) * sizeof *li_of); /* for asm_check_blocks() */
    if (!li_of) {
        asm_out_of_memory(c);
        return;
    }
    for (uint32_t li = d->first_line; li < d->end_line && !c->oom; li++) {
        const line *ln = &c->lines.v[li];
        last_line = ln->no;
        if (!ln->bad && ln->kind == L_INSN) {
            li_of[pc] = li;
            decode_insn(c, li, &d->code[pc++]);
        }
    }
    vm_insn *end = &d->code[ninsn];
    end->op = VM_OP_end;
    end->line = last_line;
    end->col = 1;
    end->text = "end (implicit)";
    /* bad lines were skipped: blocks are checked on good code only */
    if (pc == ninsn && !c->oom) asm_check_blocks(c, d->code, ninsn, li_of);
    free(li_of);
    d->code[0].visible = 1;
    for (uint32_t i = 0; i < c->b.labels.n; i++) {
        const label *l = &c->b.labels.v[i];
        if (l->len >= 3 && memcmp(l->name, "end", 3) == 0) d->code[l->pc].end_label = 1;
        if (l->len >= 8 && memcmp(l->name, "progress", 8) == 0) {
            d->code[l->pc].progress_label = 1;
            /* the step that runs a rendezvous recv is its sender's */
            const vm_insn *in = &d->code[l->pc];
            if (in->op == VM_OP_recv && asm_is_rendezvous(c, (uint32_t)in->obj))
                asm_error_at(c, l->li, l->col,
                             "a progress label at a rendezvous 'recv' (the sender's step runs "
                             "it): put the label on the instruction after it");
        }
    }
    /* kept for `prop` lines (props.c), which name thread locations at labels */
    d->labs = c->b.labels.n ? asm_arena_alloc(c->p, c->b.labels.n * sizeof(label)) : NULL;
    if (d->labs) memcpy(d->labs, c->b.labels.v, c->b.labels.n * sizeof(label));
    d->nlabs = d->labs ? c->b.labels.n : 0;
    name_slots(c, d);
    if (!c->oom) asm_body_calls(c, d);
}

void asm_assemble_bodies(asm_ctx *c)
{
    for (uint32_t di = 0; di < c->decls.n && !c->oom; di++)
        if (is_body_kind(c->decls.v[di].kind)) assemble_body(c, di);
}

