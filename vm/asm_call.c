/* asm_call.c: the assembler's part of subroutines (`call L` / `ret`).
 *
 * `stack N` as the first line of a body sets its return-stack depth
 * (1 .. VM_MAX_STACK; VM_DEFAULT_STACK when a body with a `call` has no
 * such line; a body without `call` has no stack at all, so models that do
 * not use subroutines keep their layout). After a body is decoded,
 * asm_body_calls() computes where each `ret` may return, for every static
 * walker (vm_abssucc() and the analyses over it):
 *
 *   the subroutine at L is what control reaches from L while the frame that
 *   `call L` pushed is on top: a walk from L in which a nested `call M`
 *   steps over to pc + 1 (its frame is popped by the matching ret) and a
 *   `ret` stops (it pops the frame). A ret reached that way may return to
 *   pc + 1 of every `call L`.
 *
 * That is a superset of the runs (the walk follows both ways of every
 * branch and assumes every nested call returns). A `ret` that no
 * subroutine reaches can only run with an empty stack (or never): an
 * assembly error, which is the static case of "ret outside a called body". */
#include "assemble_int.h"

/* `stack N` on line li (the line's first token is `stack`); `first` is
 * true when it is the first line of the body. */
void asm_read_stack_line(asm_ctx *c, decl *d, uint32_t li, bool first)
{
    const line *ln = &c->lines.v[li];
    const tok *kw = &line_toks(c, ln)[ln->stmt];
    if (ln->stmt > 0) {
        asm_error_at(c, li, line_toks(c, ln)[0].col, "a 'stack' line cannot have a label");
        return;
    }
    if (!first) {
        asm_error_at(c, li, kw->col,
                     "'stack' must be the first line of the body of '%.*s' (before any "
                     "'reg', label or instruction)",
                     NAMEARG(d->name, d->len));
        return;
    }
    cursor k = asm_line_cursor(c, li, ln->stmt + 1);
    const tok *t = cur_peek(&k);
    int32_t v;
    if (!t) {
        asm_cur_fail(&k, "a stack depth");
        return;
    }
    if (!asm_cexpr_value(&k, &v) || !asm_cur_expect_end(&k)) return;
    if (v < 1 || v > VM_MAX_STACK) {
        asm_error_at(c, li, t->col, "stack depth %d out of range (1 .. %d)", (int)v,
                     VM_MAX_STACK);
        return;
    }
    d->stack = (uint32_t)v;
}

/* Marks in `owned` the rets the subroutine at `entry` reaches. */
static void walk_sub(const vm_insn *code, uint32_t n, uint32_t entry, uint32_t *work,
                     bool *seen, bool *owned)
{
    uint32_t nw = 0;
    memset(seen, 0, n * sizeof *seen);
    work[nw++] = entry;
    seen[entry] = true;
    while (nw) {
        uint32_t pc = work[--nw], s[2], ns = 0;
        const vm_insn *in = &code[pc];
        switch ((enum vm_opcode)in->op) {
        case VM_OP_end: break;
        case VM_OP_ret: owned[pc] = true; break;
        case VM_OP_jmp: s[ns++] = (uint32_t)in->obj; break;
        case VM_OP_jz:
        case VM_OP_jnz: s[ns++] = (uint32_t)in->obj; s[ns++] = pc + 1; break;
        default: s[ns++] = pc + 1; break; /* a nested call: over it */
        }
        for (uint32_t i = 0; i < ns; i++)
            if (s[i] < n && !seen[s[i]]) {
                seen[s[i]] = true;
                work[nw++] = s[i];
            }
    }
}

/* The line index of each pc's instruction (pcs of the body in order). */
static void pc_lines(const asm_ctx *c, const decl *d, uint32_t *li_of)
{
    uint32_t pc = 0;
    for (uint32_t li = d->first_line; li < d->end_line && pc + 1 < d->ncode; li++) {
        const line *ln = &c->lines.v[li];
        if (!ln->bad && ln->kind == L_INSN) li_of[pc++] = li;
    }
}

void asm_body_calls(asm_ctx *c, decl *d)
{
    const vm_insn *code = d->code;
    uint32_t n = d->ncode, ncall = 0, nret = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        ncall += code[pc].op == VM_OP_call;
        nret += code[pc].op == VM_OP_ret;
    }
    if (!ncall) d->stack = 0; /* `stack N` without a call reserves nothing */
    else if (!d->stack) d->stack = VM_DEFAULT_STACK;
    if (!nret && !ncall) return;
    uint32_t *work = malloc((size_t)n * sizeof *work);
    uint32_t *li_of = calloc(n, sizeof *li_of);
    uint32_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
    bool *seen = malloc((size_t)n * sizeof *seen);
    bool *owned = calloc(n, sizeof *owned);    /* by the current entry */
    bool *any = calloc(n, sizeof *any);        /* by some entry */
    bool *entry_done = calloc(n, sizeof *entry_done);
    uint32_t *off = asm_arena_alloc(c->p, ((size_t)n + 1) * sizeof *off);
    uint32_t *pcs = NULL;
    if (!work || !li_of || !cnt || !seen || !owned || !any || !entry_done || !off) {
        asm_out_of_memory(c);
        goto out;
    }
    /* two rounds: count the return sites of each ret, then fill them in */
    for (int round = 0; round < 2; round++) {
        memset(entry_done, 0, n * sizeof *entry_done);
        for (uint32_t cp = 0; cp < n; cp++) {
            if (code[cp].op != VM_OP_call) continue;
            uint32_t entry = (uint32_t)code[cp].obj;
            if (entry_done[entry]) continue;
            entry_done[entry] = true;
            memset(owned, 0, n * sizeof *owned);
            walk_sub(code, n, entry, work, seen, owned);
            for (uint32_t r = 0; r < n; r++) {
                if (!owned[r]) continue;
                any[r] = true;
                for (uint32_t k = 0; k < n; k++) { /* every call to entry */
                    if (code[k].op != VM_OP_call || (uint32_t)code[k].obj != entry) continue;
                    if (round == 0) cnt[r]++;
                    else pcs[off[r] + cnt[r]++] = k + 1;
                }
            }
        }
        if (round == 0) {
            uint32_t total = 0;
            for (uint32_t pc = 0; pc < n; pc++) {
                off[pc] = total;
                total += cnt[pc];
                cnt[pc] = 0;
            }
            off[n] = total;
            pcs = asm_arena_alloc(c->p, ((size_t)total + 1) * sizeof *pcs);
            if (!pcs) {
                asm_out_of_memory(c);
                goto out;
            }
        }
    }
    /* each ret's sites are in call order, one per call; distinct (one call
     * site k + 1 per k, and each entry is walked once) */
    pc_lines(c, d, li_of);
    for (uint32_t pc = 0; pc + 1 < n; pc++) {
        if (code[pc].op != VM_OP_ret || any[pc]) continue;
        if (!ncall)
            asm_error_at(c, li_of[pc], code[pc].col,
                         "'ret' in a body without a 'call': the return stack is always "
                         "empty here");
        else
            asm_error_at(c, li_of[pc], code[pc].col,
                         "'ret' that no 'call' reaches: it can only run with an empty "
                         "return stack");
    }
    d->ret_off = off;
    d->ret_pcs = pcs;
out:
    free(work);
    free(li_of);
    free(cnt);
    free(seen);
    free(owned);
    free(any);
    free(entry_done);
}
