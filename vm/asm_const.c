/* asm_const.c: constant expressions, stage 2 (values) and the layout of the
 * final program.
 *
 * Constant expressions (+ - * / % ( ), unary minus over integers and consts)
 * are parsed by one recursive descent, in check mode in pass 1 and
 * evaluated with the interpreter's 32-bit arithmetic afterwards. Consts are
 * resolved depth first over an explicit stack (chains may be long), -D
 * first, cycles reported with their path. Then sizes, counts and initial
 * values, and at the end the state layout and the initial state (vm.h's
 * layout comment is the reference). Nothing here reads bodies. */
#include "assemble_int.h"

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
    uint32_t i0; /* where the expression starts on k's line */
} cx;

static bool cx_expr(cx *x, int32_t *v);

/* Notes on the error reported last which consts in tokens t[i0 .. i1),
 * directly or through other consts, have their value from -D (at most
 * MAX_NOTES, each once): the value that made the error did not come from
 * the file. The walk through consts is bounded (depth and tokens looked at),
 * so a long or wide chain of consts may go unnamed. */
typedef struct dnotes {
    int32_t noted[MAX_NOTES];
    int n;
    int budget; /* tokens still to look at */
} dnotes;

static void note_defines_in(asm_ctx *c, const tok *t, uint32_t i0, uint32_t i1, dnotes *w,
                            int depth)
{
    for (uint32_t i = i0; i < i1 && w->n < MAX_NOTES && w->budget > 0; i++) {
        w->budget--;
        if (t[i].kind != T_IDENT) continue;
        int32_t di = asm_lookup_global(c, t[i].p, t[i].len);
        if (di < 0 || c->decls.v[di].kind != S_CONST) continue;
        const decl *d = &c->decls.v[di];
        if (!d->overridden) {
            if (d->arg.set && !d->bad && depth < 16)
                note_defines_in(c, line_toks(c, &c->lines.v[d->arg.li]), d->arg.i0, d->arg.i1,
                                w, depth + 1);
            continue;
        }
        bool seen = false;
        for (int j = 0; j < w->n; j++) seen |= w->noted[j] == di;
        if (seen) continue;
        w->noted[w->n++] = di;
        asm_note_at(c, d->li, d->col, "'%.*s' is %d from the command line (-D %.*s=%d)",
                    NAMEARG(d->name, d->len), (int)d->value, NAMEARG(d->name, d->len),
                    (int)d->value);
    }
}

static void note_defines(asm_ctx *c, const tok *t, uint32_t i0, uint32_t i1)
{
    dnotes w = {.n = 0, .budget = 1024};
    note_defines_in(c, t, i0, i1, &w, 0);
}

/* The same for a recorded constant expression. */
static void note_defines_cexpr(asm_ctx *c, const cexpr *e)
{
    if (e->set) note_defines(c, line_toks(c, &c->lines.v[e->li]), e->i0, e->i1);
}

static bool tok_is_reg_like(const asm_ctx *c, const tok *t)
{
    uint32_t num;
    int32_t ri;
    return t->kind == T_IDENT &&
           (asm_reg_syntax(t->p, t->len, &num) || tok_word(t, "self") || tok_word(t, "tid") ||
            asm_strmap_get(&c->b.regmap, t->p, t->len, &ri));
}

/* "'r1' is not a constant ..." for a register, self or tid in an expression. */
static bool cx_not_constant(cursor *k, const tok *t)
{
    asm_error_at(k->c, k->li, t->col,
                 "'%.*s' is not a constant (an expression takes integers and consts only)",
                 NAMEARG(t->p, t->len));
    return false;
}

static bool cx_name(cx *x, const tok *t, int32_t *v)
{
    asm_ctx *c = x->k->c;
    *v = 0;
    if (!x->eval) return true;
    int32_t di = asm_lookup_global(c, t->p, t->len);
    if (di < 0) {
        if (tok_is_reg_like(c, t)) return cx_not_constant(x->k, t);
        asm_error_at(c, x->k->li, t->col, "unknown constant '%.*s'", NAMEARG(t->p, t->len));
        suggest s = asm_suggest_start(t->p, t->len);
        asm_suggest_decls(c, &s, 1u << S_CONST);
        asm_suggest_note(c, &s, x->k->li, t->col);
        return false;
    }
    const decl *d = &c->decls.v[di];
    if (d->kind != S_CONST) {
        asm_error_kind(c, x->k->li, t->col, t->p, t->len, d, "a constant");
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
        asm_error_at(k->c, k->li, cur_col(k), "constant expression nested too deeply (limit %d)",
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
        ok = cx_expr(x, v) && asm_cur_expect(k, ')', "')'");
    } else if (t && t->kind == T_INT) {
        *v = t->val;
        k->i++;
        ok = true;
    } else if (t && t->kind == T_IDENT && tok_is_reg_like(k->c, t)) {
        ok = cx_not_constant(k, t);
    } else if (t && t->kind == T_IDENT && !asm_is_reserved(t)) {
        ok = cx_name(x, t, v);
        k->i++;
    } else {
        ok = asm_cur_fail(k, "an integer or a constant name");
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
        asm_error_at(x->k->c, x->k->li, op->col, "%s by zero in a constant expression",
                     op->punct == '/' ? "division" : "modulo");
        note_defines(x->k->c, x->k->t, x->i0, x->k->n);
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
bool asm_parse_cexpr(cursor *k, cexpr *e)
{
    int32_t v;
    cx x = {k, false, 0, k->i};
    *e = (cexpr){.li = k->li, .i0 = k->i, .col = cur_col(k)};
    if (!cx_expr(&x, &v)) return false;
    e->i1 = k->i;
    e->set = true;
    return true;
}

/* The value of an expression recorded by asm_parse_cexpr(); false if it cannot
 * be had (reported). */
static bool eval_cexpr(asm_ctx *c, const cexpr *e, int32_t *out)
{
    cursor k = asm_line_cursor(c, e->li, e->i0);
    cx x = {&k, true, 0, k.i};
    k.n = e->i1;
    return cx_expr(&x, out);
}

/* Stage 3: the value of the constant expression at the cursor (an operand;
 * every const is resolved by then). */
bool asm_cexpr_value(cursor *k, int32_t *v)
{
    cx x = {k, true, 0, k->i};
    return cx_expr(&x, v);
}

/* ---- stage 2: constants, sizes, counts -------------------------------- */

static void apply_defines(asm_ctx *c, const vm_define *defs, size_t ndefs)
{
    for (size_t i = 0; i < ndefs; i++) {
        const char *name = defs[i].name ? defs[i].name : "";
        size_t len = strlen(name);
        int32_t di = len <= UINT32_MAX ? asm_lookup_global(c, name, (uint32_t)len) : -1;
        if (di < 0 || c->decls.v[di].kind != S_CONST) {
            asm_error_where(c, D_CMDLINE, "-D %s: %s declares no const '%s'", name, c->file, name);
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
        int32_t dep = asm_lookup_global(c, t[i].p, t[i].len);
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
            asm_error_at(c, start->li, start->col, "const '%.*s' is defined in terms of itself",
                         NAMEARG(start->name, start->len));
            uint32_t j = c->path.n;
            while (j > 0 && c->path.v[j - 1] != (uint32_t)dep) j--;
            for (uint32_t i = j; i < c->path.n; i++) {
                const decl *via = &c->decls.v[c->path.v[i]];
                asm_note_at(c, via->li, via->col, "through '%.*s'", NAMEARG(via->name, via->len));
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
static uint32_t eval_count(asm_ctx *c, const cexpr *e, int32_t lo, int32_t hi,
                           const char *what)
{
    int32_t v;
    if (!e->set || !eval_cexpr(c, e, &v)) return 1;
    if (v >= lo && v <= hi) return (uint32_t)v;
    if (hi == INT32_MAX)
        asm_error_at(c, e->li, e->col, "%s must be positive, got %d", what, (int)v);
    else
        asm_error_at(c, e->li, e->col, "%s must be %d .. %d, got %d", what, (int)lo, (int)hi,
                     (int)v);
    note_defines_cexpr(c, e);
    return 1;
}

static void resolve_var_init(asm_ctx *c, decl *d)
{
    int32_t v;
    if (d->init_kind == INIT_ALL && eval_cexpr(c, &d->init_all, &v)) d->init_all.val = v;
    for (uint32_t i = 0; i < d->nlist; i++) {
        cexpr *e = &c->inits.v[d->list0 + i];
        if (i == d->count) {
            asm_error_at(c, e->li, e->col, "too many initializers for '%.*s' (%u elements)",
                         NAMEARG(d->name, d->len), (unsigned)d->count);
            note_defines_cexpr(c, &d->arg);
            break;
        }
        if (eval_cexpr(c, e, &v)) e->val = v;
    }
    if (d->init_t.set) {
        int32_t bi = asm_lookup_global(c, d->init_t.name, d->init_t.len);
        if (bi < 0) {
            asm_error_at(c, d->init_t.li, d->init_t.col, "unknown thread '%.*s'",
                         NAMEARG(d->init_t.name, d->init_t.len));
            suggest s = asm_suggest_start(d->init_t.name, d->init_t.len);
            asm_suggest_decls(c, &s, 1u << S_THREAD | 1u << S_PROC);
            asm_suggest_note(c, &s, d->init_t.li, d->init_t.col);
        } else if (!is_body_kind(c->decls.v[bi].kind)) {
            asm_error_kind(c, d->init_t.li, d->init_t.col, d->init_t.name, d->init_t.len,
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
    case S_COND:
        if (d->is_array) d->count = eval_count(c, &d->arg, 1, INT32_MAX, "array size");
        if (d->kind == S_VAR) resolve_var_init(c, d);
        break;
    case S_CHAN:
        /* 0: a rendezvous channel */
        d->count = eval_count(c, &d->arg, 0, VM_MAX_CHAN_CAP, "channel capacity");
        break;
    case S_THREAD:
        d->count = eval_count(c, &d->arg, 1, INT32_MAX, "instance count");
        break;
    case S_PROC:
        d->count = eval_count(c, &d->arg, 1, VM_MAX_PROC_MAX, "'max'");
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
        if (total <= c->max_threads && total + d->count > c->max_threads) {
            asm_error_at(c, d->li, d->col,
                         "too many threads: '%.*s' brings the total to %llu (limit %u%s)",
                         NAMEARG(d->name, d->len), (unsigned long long)(total + d->count),
                         c->max_threads, c->max_threads > VM_MAX_THREADS
                         ? ", for --analyze alone" : "");
            note_defines_cexpr(c, &d->arg);
        }
        total += d->count;
        if (d->kind == S_THREAD) c->nstatic += d->count;
        else c->nspawn += d->count;
    }
}

void asm_resolve(asm_ctx *c, const vm_define *defs, size_t ndefs)
{
    apply_defines(c, defs, ndefs);
    for (uint32_t di = 0; di < c->decls.n && !c->oom; di++)
        if (c->decls.v[di].kind == S_CONST) resolve_const(c, di);
    for (uint32_t di = 0; di < c->decls.n; di++)
        if (!c->decls.v[di].bad) resolve_decl(c, &c->decls.v[di]);
    count_threads(c);
}

/* ---- layout and the final program ------------------------------------- */

/* Advances the layout offset by `bytes` for declaration d; false (reported
 * once) if the state vector would exceed MAX_STATE_BYTES. */
static bool place(asm_ctx *c, uint64_t *off, uint64_t bytes, const decl *d)
{
    *off += bytes;
    if (*off <= MAX_STATE_BYTES) return true;
    asm_error_at(c, d->li, d->col, "the state vector would exceed %d bytes at '%.*s'",
                 MAX_STATE_BYTES, NAMEARG(d->name, d->len));
    note_defines_cexpr(c, &d->arg);
    return false;
}

static char *arena_name(asm_ctx *c, const decl *d)
{
    return asm_arena_strndup(c, d->name, d->len);
}

static int32_t decl_line(const asm_ctx *c, const decl *d) { return c->lines.v[d->li].no; }

/* Constants, and globals at the start of the vector (after asm_resolve(), an
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
        int32_t *init = asm_arena_alloc(p, (size_t)d->count * sizeof *init);
        if (!init) {
            asm_out_of_memory(c);
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
    if (c->atomic_used) { /* the hidden lock of atomic blocks (asm_block.c) */
        *off += p->layout.lock_bytes;
        p->lockdecls[c->nkind[S_LOCK]] = (vm_lockdecl){.name = "(atomic)", .size = 1,
                                                       .first = p->nlocks};
        p->nlocks++;
    }
    p->layout.conds_off = 0;
    for (uint32_t di = 0; di < c->decls.n; di++) {
        const decl *d = &c->decls.v[di];
        if (d->kind != S_COND) continue;
        if (!p->nconds) p->layout.conds_off = (uint32_t)*off;
        if (!place(c, off, (uint64_t)d->count * p->layout.wsbytes, d)) return false;
        p->conddecls[d->id] = (vm_lockdecl){.name = arena_name(c, d), .line = decl_line(c, d),
                                            .col = d->col, .is_array = d->is_array,
                                            .size = d->count, .first = p->nconds};
        p->nconds += d->count;
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
    uint32_t tid = 0, nspawn = 0, max_stack_proc = 0;
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
                       .nregs = d->nregs, .regname = d->regname, .stack = d->stack,
                       .ret_off = d->ret_off, .ret_pcs = d->ret_pcs};
        if (b->is_proc) {
            if (d->nregs > p->max_regs_proc) p->max_regs_proc = d->nregs;
            if (d->stack > max_stack_proc) max_stack_proc = d->stack;
            continue;
        }
        b->first_tid = tid;
        bool waits = false; /* only a thread that waits saves a lock depth */
        for (uint32_t pc = 0; pc < d->ncode; pc++) waits |= d->code[pc].op == VM_OP_wait;
        /* only a body with a call has a return stack: [sp:u8][pc:u16 * stack] */
        uint32_t stack_off = d->stack ? VM_TS_HEADER_STATIC + (waits ? 2 : 0) : 0;
        uint32_t regs_off =
            VM_TS_HEADER_STATIC + (waits ? 2 : 0) + (d->stack ? 1 + 2 * d->stack : 0);
        for (uint32_t i = 0; i < d->count; i++, tid++) {
            p->threads[tid] = (vm_thread_slot){
                .offset = (uint32_t)*off, .body = (int32_t)d->id, .nregs = d->nregs,
                .bytes = regs_off + 4 * d->nregs,
                .depth_off = waits ? VM_TS_HEADER_STATIC : 0, .self_off = 0,
                .stack_off = stack_off, .stack_cap = d->stack,
                .regs_off = regs_off, .self = (int32_t)i};
            if (!place(c, off, regs_off + 4 * (uint64_t)d->nregs, d)) return false;
        }
    }
    for (uint32_t di = 0; di < c->decls.n; di++) {
        const decl *d = &c->decls.v[di];
        if (d->kind != S_PROC) continue;
        /* the return stack of the deepest proc, if any proc has a call */
        uint32_t stack_off = max_stack_proc ? VM_TS_SPAWN_REGS : 0;
        uint32_t regs_off = VM_TS_SPAWN_REGS + (max_stack_proc ? 1 + 2 * max_stack_proc : 0);
        for (uint32_t i = 0; i < d->count; i++, nspawn++) {
            p->threads[tid + nspawn] = (vm_thread_slot){
                .offset = (uint32_t)*off, .body = -1, .nregs = p->max_regs_proc,
                .bytes = regs_off + 4 * p->max_regs_proc,
                .depth_off = VM_TS_SPAWN_DEPTH, .self_off = VM_TS_SPAWN_SELF,
                .stack_off = stack_off, .stack_cap = max_stack_proc,
                .regs_off = regs_off, .self = 0};
            if (!place(c, off, regs_off + 4 * (uint64_t)p->max_regs_proc, d))
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

void asm_build_program(asm_ctx *c)
{
    vm_program *p = c->p;
    uint64_t off = 0;
    p->nconsts = c->nkind[S_CONST];
    p->nvars = c->nkind[S_VAR];
    p->nlockdecls = c->nkind[S_LOCK] + c->atomic_used;
    p->nchans = c->nkind[S_CHAN];
    p->nconddecls = c->nkind[S_COND];
    p->nbodies = c->nkind[S_THREAD] + c->nkind[S_PROC];
    p->nstatic = c->nstatic;
    p->nthreads = c->nstatic + c->nspawn;
    p->consts = asm_arena_alloc(p, (size_t)p->nconsts * sizeof *p->consts);
    p->vars = asm_arena_alloc(p, (size_t)p->nvars * sizeof *p->vars);
    p->lockdecls = asm_arena_alloc(p, (size_t)p->nlockdecls * sizeof *p->lockdecls);
    p->chans = asm_arena_alloc(p, (size_t)p->nchans * sizeof *p->chans);
    p->conddecls = asm_arena_alloc(p, (size_t)p->nconddecls * sizeof *p->conddecls);
    p->bodies = asm_arena_alloc(p, (size_t)p->nbodies * sizeof *p->bodies);
    p->threads = asm_arena_alloc(p, (size_t)p->nthreads * sizeof *p->threads);
    if (!p->consts || !p->vars || !p->lockdecls || !p->chans || !p->conddecls || !p->bodies || !p->threads) {
        asm_out_of_memory(c);
        return;
    }
    if (!build_globals(c, &off) || !build_locks_chans(c, &off) || !build_threads(c, &off))
        return;
    p->layout.size = (uint32_t)off;
    p->init_state = asm_arena_alloc(p, off);
    if (!p->init_state) {
        asm_out_of_memory(c);
        return;
    }
    if (!c->nerrors) build_init_state(p);
}

