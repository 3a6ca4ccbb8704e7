/* props.c: `prop NAME = EXPR` lines, the propositions mcheck --ltl's
 * formulas name (reduce/liveness/ltl.c), their evaluation on a state, and their
 * visibility. EXPR compares volatile elements (`flag[1]`), lock owners
 * (`owner(m[0])`, a thread id or -1), threads (`writer[0]`, its id), thread
 * locations (`reader[1]@cs`, 1 when the thread stands at label cs) and
 * constants with == != < <= > >=, combined by ! && || and parentheses. A
 * prop may read only what changes at a visible operation, so that it is
 * constant along the invisible tail of a composed step (Stoller's reduction
 * with LTL-X): volatile variables (loads and stores are visible); shared
 * variables (vm_mark_props() makes every store to one a prop reads
 * visible, so a step starts where its value changes); lock
 * owners (acquire is visible; vm_mark_props() makes the releases of the
 * locks props read visible); locations at labels (vm_mark_props() makes the
 * labelled instructions visible, as progress.c does for progress labels).
 * An unshared variable is refused. Not here: procs (spawned
 * threads), channels, registers. */
#include "assemble_int.h"

typedef struct pxparse {
    cursor k;
    asm_ctx *c;
    VEC(vm_pxinsn) code;
    bool bad;
} pxparse;

static bool emit(pxparse *x, uint8_t op, int32_t a, int32_t b)
{
    vm_pxinsn *i = VEC_PUSH(x->c, x->code);
    if (!i) return false;
    *i = (vm_pxinsn){op, a, b};
    return true;
}

static bool fail(pxparse *x, const char *what)
{
    if (!x->bad) asm_cur_fail(&x->k, what);
    x->bad = true;
    return false;
}

/* The error "PRE'NAME'POST" at col. */
static bool error_at(pxparse *x, int32_t col, const char *pre, const char *name, uint32_t len,
                     const char *post)
{
    if (!x->bad) asm_error_at(x->c, x->k.li, col, "%s'%.*s'%s", pre, NAMEARG(name, len), post);
    x->bad = true;
    return false;
}

/* An optional `[cexpr]` index within `count`; 0 if none (then the decl must
 * be a scalar). */
static bool index_of(pxparse *x, const decl *d, const tok *name, uint32_t *out)
{
    int32_t v = 0;
    if (cur_accept(&x->k, '[')) {
        int32_t col = cur_col(&x->k);
        if (!asm_cexpr_value(&x->k, &v)) {
            x->bad = true;
            return false;
        }
        if (!asm_cur_expect(&x->k, ']', "']'")) {
            x->bad = true;
            return false;
        }
        if (!d->is_array || v < 0 || (uint32_t)v >= d->count) {
            if (!x->bad)
                asm_error_at(x->c, x->k.li, col, "index %d out of range for '%.*s' (%u elements)",
                             (int)v, NAMEARG(name->p, name->len), d->is_array ? d->count : 1);
            x->bad = true;
            return false;
        }
    } else if (d->is_array) {
        return error_at(x, name->col, "", name->p, name->len,
                        " is an array: name an element, as in NAME[0]");
    }
    *out = (uint32_t)v;
    return true;
}

static bool or_expr(pxparse *x);

/* value := INT | const | volatile[i] | owner(lock[i]) | thread[i] |
 *          thread[i]@label | ( expr ) */
static bool value(pxparse *x)
{
    const tok *t = cur_peek(&x->k);
    if (!t) return fail(x, "a value");
    if (cur_accept(&x->k, '(')) {
        if (!or_expr(x)) return false;
        if (!asm_cur_expect(&x->k, ')', "')'")) return x->bad = true, false;
        return true;
    }
    if (t->kind == T_INT || tok_punct(t, '-')) {
        int32_t v;
        if (!asm_cexpr_value(&x->k, &v)) return x->bad = true, false;
        return emit(x, VM_PX_INT, v, 0);
    }
    if (t->kind != T_IDENT) return fail(x, "a value");
    if (tok_word(t, "owner")) {
        x->k.i++;
        if (!asm_cur_expect(&x->k, '(', "'('")) return x->bad = true, false;
        const tok *n = cur_peek(&x->k);
        int32_t di = n && n->kind == T_IDENT ? asm_lookup_global(x->c, n->p, n->len) : -1;
        if (di < 0 || x->c->decls.v[di].kind != S_LOCK) return fail(x, "a lock");
        x->k.i++;
        uint32_t e;
        const decl *d = &x->c->decls.v[di];
        if (!index_of(x, d, n, &e)) return false;
        if (!asm_cur_expect(&x->k, ')', "')'")) return x->bad = true, false;
        return emit(x, VM_PX_OWNER, (int32_t)(x->c->p->lockdecls[d->id].first + e), 0);
    }
    int32_t di = asm_lookup_global(x->c, t->p, t->len);
    if (di < 0) {
        if (!x->bad) {
            asm_error_at(x->c, x->k.li, t->col, "unknown name '%.*s'", NAMEARG(t->p, t->len));
            suggest s = asm_suggest_start(t->p, t->len);
            asm_suggest_decls(x->c, &s, 1u << S_CONST | 1u << S_VAR | 1u << S_THREAD);
            asm_suggest_note(x->c, &s, x->k.li, t->col);
        }
        x->bad = true;
        return false;
    }
    const decl *d = &x->c->decls.v[di];
    x->k.i++;
    if (d->kind == S_CONST) return emit(x, VM_PX_INT, d->value, 0);
    uint32_t e;
    if (d->kind == S_VAR) {
        if (d->cls == VM_UNSHARED)
            return error_at(x, t->col, "a prop may read only volatile and shared variables: ",
                            t->p, t->len, " is unshared (one thread's own)");
        if (!index_of(x, d, t, &e)) return false;
        return emit(x, VM_PX_ELEM, (int32_t)(x->c->p->vars[d->id].first_elem + e), 0);
    }
    if (d->kind == S_THREAD) {
        if (!index_of(x, d, t, &e)) return false;
        int32_t tid = (int32_t)(x->c->p->bodies[d->id].first_tid + e);
        if (!cur_accept(&x->k, '@')) return emit(x, VM_PX_INT, tid, 0);
        const tok *l = cur_peek(&x->k);
        if (!l || l->kind != T_IDENT) return fail(x, "a label");
        x->k.i++;
        for (uint32_t i = 0; i < d->nlabs; i++) {
            if (d->labs[i].len != l->len || memcmp(d->labs[i].name, l->p, l->len)) continue;
            if (d->labs[i].pc < d->ncode && d->code[d->labs[i].pc].in_block) {
                return error_at(x, l->col, "label ", l->p, l->len,
                                " is inside an atomic block, where no thread stands "
                                "(name the 'atomic' line instead)");
            }
            return emit(x, VM_PX_AT, tid, (int32_t)d->labs[i].pc);
        }
        if (!x->bad) {
            asm_error_at(x->c, x->k.li, l->col, "thread '%.*s' has no label '%.*s'",
                         NAMEARG(t->p, t->len), NAMEARG(l->p, l->len));
            suggest s = asm_suggest_start(l->p, l->len);
            for (uint32_t i = 0; i < d->nlabs; i++) asm_suggest_try(&s, d->labs[i].name, d->labs[i].len);
            asm_suggest_note(x->c, &s, x->k.li, l->col);
        }
        x->bad = true;
        return false;
    }
    return error_at(x, t->col, "", t->p, t->len,
                    " cannot be read by a prop: expected a volatile variable, a constant, "
                    "a thread, or owner(LOCK)");
}

/* Two adjacent punctuation tokens `a` `b` (as in `==`), or one `a` if b is 0. */
static bool accept_op(pxparse *x, char a, char b)
{
    const tok *t = cur_peek(&x->k);
    if (!tok_punct(t, a)) return false;
    if (b) {
        if (x->k.i + 1 >= x->k.n) return false;
        const tok *u = &x->k.t[x->k.i + 1];
        if (!tok_punct(u, b) || u->col != t->col + 1) return false;
        x->k.i += 2;
        return true;
    }
    const tok *u = x->k.i + 1 < x->k.n ? &x->k.t[x->k.i + 1] : NULL;
    if (u && u->col == t->col + 1 && tok_punct(u, '=')) return false; /* <= >= */
    x->k.i++;
    return true;
}

static bool cmp_expr(pxparse *x)
{
    if (!value(x)) return false;
    static const struct { char a, b; uint8_t op; } ops[] = {
        {'=', '=', VM_PX_EQ}, {'!', '=', VM_PX_NE}, {'<', '=', VM_PX_LE},
        {'>', '=', VM_PX_GE}, {'<', 0, VM_PX_LT},   {'>', 0, VM_PX_GT},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (accept_op(x, ops[i].a, ops[i].b)) return value(x) && emit(x, ops[i].op, 0, 0);
    return true;
}

static bool unary(pxparse *x)
{
    if (tok_punct(cur_peek(&x->k), '!') && !accept_op(x, '!', '=')) {
        x->k.i++;
        return unary(x) && emit(x, VM_PX_NOT, 0, 0);
    }
    return cmp_expr(x);
}

static bool and_expr(pxparse *x)
{
    if (!unary(x)) return false;
    while (accept_op(x, '&', '&'))
        if (!unary(x) || !emit(x, VM_PX_AND, 0, 0)) return false;
    return true;
}

static bool or_expr(pxparse *x)
{
    if (!and_expr(x)) return false;
    while (accept_op(x, '|', '|'))
        if (!and_expr(x) || !emit(x, VM_PX_OR, 0, 0)) return false;
    return true;
}

void asm_read_props(asm_ctx *c)
{
    uint32_t n = c->prop_lines.n;
    if (!n) return;
    vm_program *p = c->p;
    p->props = asm_arena_alloc(p, n * sizeof *p->props);
    if (!p->props) {
        asm_out_of_memory(c);
        return;
    }
    for (uint32_t i = 0; i < n && !c->oom; i++) {
        uint32_t li = c->prop_lines.v[i];
        pxparse x = {.k = asm_line_cursor(c, li, 1), .c = c};
        const tok *name = cur_peek(&x.k);
        x.k.i++;
        for (uint32_t j = 0; j < p->nprops; j++)
            if (strlen(p->props[j].name) == name->len && !memcmp(p->props[j].name, name->p, name->len)) {
                asm_error_at(c, li, name->col, "duplicate prop '%.*s'", NAMEARG(name->p, name->len));
                asm_note_at(c, (uint32_t)p->props[j].line - 1, p->props[j].col, "previous definition is here");
                x.bad = true;
            }
        if (!x.bad && !asm_cur_expect(&x.k, '=', "'=' after the prop's name")) x.bad = true;
        if (!x.bad && or_expr(&x) && !x.bad && !asm_cur_expect_end(&x.k)) x.bad = true;
        if (!x.bad && x.code.n > 60) {
            asm_error_at(c, li, name->col, "prop '%.*s' is too long (at most 60 operands and "
                         "operators)", NAMEARG(name->p, name->len));
            x.bad = true;
        }
        if (!x.bad && !c->oom) {
            vm_prop *pr = &p->props[p->nprops++];
            pr->name = asm_arena_strndup(c, name->p, name->len);
            pr->line = c->lines.v[li].no;
            pr->col = name->col;
            vm_pxinsn *code = asm_arena_alloc(p, x.code.n * sizeof *code);
            if (code) memcpy(code, x.code.v, x.code.n * sizeof *code);
            else asm_out_of_memory(c);
            pr->code = code;
            pr->ncode = x.code.n;
        }
        free(x.code.v);
    }
}

int vm_prop_value(const vm_program *p, uint32_t i, const uint8_t *s)
{
    int32_t st[64];
    int n = 0;
    const vm_prop *pr = &p->props[i];
    for (uint32_t j = 0; j < pr->ncode; j++) {
        const vm_pxinsn *x = &pr->code[j];
        int32_t a = n >= 2 ? st[n - 2] : 0, b = n >= 1 ? st[n - 1] : 0;
        switch ((enum vm_pxop)x->op) {
        case VM_PX_INT: st[n++] = x->a; continue;
        case VM_PX_ELEM: st[n++] = vm_global(p, s, (uint32_t)x->a); continue;
        case VM_PX_OWNER: st[n++] = vm_lock_owner(p, s, (uint32_t)x->a); continue;
        case VM_PX_AT: {
            enum vm_tstatus ts = vm_tstatus_of(p, s, x->a);
            st[n++] = ts != VM_T_ENDED && ts != VM_T_UNUSED && vm_tpc(p, s, x->a) == (uint32_t)x->b;
            continue;
        }
        case VM_PX_NOT: st[n - 1] = !b; continue;
        case VM_PX_AND: a = a && b; break;
        case VM_PX_OR: a = a || b; break;
        case VM_PX_EQ: a = a == b; break;
        case VM_PX_NE: a = a != b; break;
        case VM_PX_LT: a = a < b; break;
        case VM_PX_LE: a = a <= b; break;
        case VM_PX_GT: a = a > b; break;
        case VM_PX_GE: a = a >= b; break;
        }
        st[--n - 1] = a;
    }
    return n == 1 && st[0] != 0;
}

uint32_t vm_mark_props(vm_program *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nprops; i++)
        for (uint32_t j = 0; j < p->props[i].ncode; j++) {
            const vm_pxinsn *x = &p->props[i].code[j];
            if (x->op == VM_PX_AT) {
                /* the label's instruction, so that a step ends where the
                 * prop turns true, and the instructions after it, so that
                 * a step ends where it turns false again (a step that ran
                 * on through the label's successors, back to the label or
                 * on to another, would hide that state) */
                vm_body *b = &p->bodies[p->threads[x->a].body];
                vm_insn *in = &b->code[x->b];
                p->threads[x->a].loc_read = true;
                n += !in->visible;
                in->visible = 1;
                uint32_t succ[2], k = 0;
                unsigned nr;
                const uint32_t *rs = vm_ret_sites(b, x->b, &nr);
                if (in->op == VM_OP_ret) { /* every pc it may return to */
                    for (unsigned q = 0; q < nr; q++) {
                        n += !b->code[rs[q]].visible;
                        b->code[rs[q]].visible = 1;
                    }
                } else if (in->op == VM_OP_jmp || in->op == VM_OP_call) {
                    succ[k++] = (uint32_t)in->obj;
                } else if (in->op == VM_OP_jz || in->op == VM_OP_jnz) {
                    succ[k++] = (uint32_t)in->obj;
                    succ[k++] = (uint32_t)x->b + 1;
                } else if (in->op != VM_OP_end) {
                    succ[k++] = (uint32_t)x->b + 1;
                }
                for (uint32_t q = 0; q < k; q++) {
                    /* (inside a block nothing is a scheduling point) */
                    if (succ[q] >= b->ncode || b->code[succ[q]].in_block) continue;
                    n += !b->code[succ[q]].visible;
                    b->code[succ[q]].visible = 1;
                }
            }
            if (x->op == VM_PX_ELEM) { /* a shared variable: its stores visible */
                for (uint32_t b = 0; b < p->nbodies; b++)
                    for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++) {
                        vm_insn *in = &p->bodies[b].code[pc];
                        if (in->op != VM_OP_store || in->visible || in->in_block) continue;
                        const vm_var *v = &p->vars[in->obj];
                        if (v->cls != VM_SHARED || (uint32_t)x->a < v->first_elem ||
                            (uint32_t)x->a >= v->first_elem + v->size)
                            continue;
                        in->visible = 1;
                        n++;
                    }
                continue;
            }
            if (x->op != VM_PX_OWNER) continue;
            for (uint32_t b = 0; b < p->nbodies; b++)
                for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++) {
                    vm_insn *in = &p->bodies[b].code[pc];
                    if (in->op != VM_OP_release || in->visible || in->in_block) continue;
                    /* the lock element is in->obj's first + index; any
                     * element of the declaration that holds x->a */
                    const vm_lockdecl *ld = &p->lockdecls[in->obj];
                    if ((uint32_t)x->a < ld->first || (uint32_t)x->a >= ld->first + ld->size) continue;
                    in->visible = 1;
                    n++;
                }
        }
    return n;
}
