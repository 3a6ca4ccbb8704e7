/* asm_block.c: stage 3 of the assembler, atomic blocks (LANGUAGE.md,
 * "Constructs for real programs"; Promela's `atomic`, SV-COMP's
 * __VERIFIER_atomic_*).
 *
 * Pairs each `atomic` with its `end_atomic` in one body, marks the pcs
 * after the `atomic` up to and including the `end_atomic` in_block (never a
 * scheduling point: the block is one visible step, so no thread stands
 * there), names the hidden lock "(atomic)" in both (the lock declaration
 * asm_const.c adds after the model's own), and says what a block may not
 * hold. A block runs to its end with no other thread in between, so only
 * its first instruction may block or choose (the thread stands at the
 * `atomic` until that one is enabled); `assume` may stand anywhere (a
 * guard: the block's step is not taken when one is false). Control stays
 * inside: no jump leaves a block or enters one past its `atomic`, no
 * `call` or `ret` stands in one, and no instruction ends the thread or
 * waits there. */
#include "assemble_int.h"

bool asm_is_rendezvous(const asm_ctx *c, uint32_t id)
{
    for (uint32_t i = 0; i < c->decls.n; i++)
        if (c->decls.v[i].kind == S_CHAN && c->decls.v[i].id == id)
            return c->decls.v[i].count == 0;
    return false;
}

/* What instruction `in`, the k-th of its block (k = 0 first), may not be;
 * NULL if it may be there. */
static const char *not_in_block(const asm_ctx *c, const vm_insn *in, bool first)
{
    unsigned fl = vm_ops[in->op].flags;
    switch ((enum vm_opcode)in->op) {
    case VM_OP_send:
    case VM_OP_recv:
        /* a step of two threads: the partner's tail would run inside */
        if (asm_is_rendezvous(c, (uint32_t)in->obj))
            return "a rendezvous inside an atomic block (it is a step of two threads)";
        break;
    case VM_OP_atomic: return "atomic blocks do not nest";
    case VM_OP_wait: return "'wait' inside an atomic block (it gives its lock up and waits)";
    case VM_OP_cwait: return "'cwait' inside an atomic block (it gives its lock up and waits)";
    case VM_OP_end: return "'end' inside an atomic block (the thread would end holding it)";
    case VM_OP_call:
    case VM_OP_ret: return "a subroutine call or return inside an atomic block (control would leave it)";
    case VM_OP_assume: return NULL;
    default: break;
    }
    if (first) return NULL;
    if (fl & VM_F_BLOCK)
        return "an instruction that may block inside an atomic block must be its first";
    if (fl & VM_F_CHOICE)
        return "an instruction with several outcomes inside an atomic block must be its first";
    return NULL;
}

static bool is_jump(const vm_insn *in)
{
    return in->op == VM_OP_jmp || in->op == VM_OP_jz || in->op == VM_OP_jnz;
}

/* The block [a, e]: flags, the hidden lock, its checks. */
static void close_block(asm_ctx *c, vm_insn *code, const uint32_t *li, uint32_t a, uint32_t e)
{
    const vm_operand lock0 = {VM_ARG_IMM, 0};
    const int32_t hidden = (int32_t)c->nkind[S_LOCK];
    bool guarded = false;
    c->atomic_used = true;
    for (uint32_t pc = a + 1; pc <= e; pc++) {
        code[pc].in_block = 1;
        code[pc].visible = 0;
    }
    const vm_insn *first = &code[a + 1];
    bool first_gates = first->op != VM_OP_assume && (vm_ops[first->op].flags &
                                                     (VM_F_BLOCK | VM_F_CHOICE));
    for (uint32_t pc = a + 1; pc < e; pc++) {
        vm_insn *in = &code[pc];
        const char *why = not_in_block(c, in, pc == a + 1);
        if (why) {
            asm_error_at(c, li[pc], in->col, "%s", why);
            asm_note_at(c, li[a], code[a].col, "the block starts here");
        }
        guarded |= in->op == VM_OP_assume;
        if (!is_jump(in)) continue;
        uint32_t to = (uint32_t)in->obj;
        if (to <= a || to > e) {
            asm_error_at(c, li[pc], in->col, "a jump out of an atomic block");
            asm_note_at(c, li[a], code[a].col, "the block starts here");
        } else if (to == a + 1 && first_gates) {
            asm_error_at(c, li[pc], in->col,
                         "a jump back to the first instruction of an atomic block, which may "
                         "block or choose");
        }
    }
    code[a].obj = code[e].obj = hidden;
    code[a].idx = code[e].idx = lock0;
    code[a].a = (vm_operand){VM_ARG_IMM, (int32_t)e};
    code[a].b = (vm_operand){VM_ARG_IMM, guarded};
}

void asm_check_blocks(asm_ctx *c, vm_insn *code, uint32_t ninsn, const uint32_t *li)
{
    uint32_t open = UINT32_MAX;
    for (uint32_t pc = 0; pc < ninsn; pc++) {
        if (code[pc].op == VM_OP_atomic) {
            if (open != UINT32_MAX) continue; /* said by close_block() */
            open = pc;
        } else if (code[pc].op == VM_OP_end_atomic) {
            if (open == UINT32_MAX) {
                asm_error_at(c, li[pc], code[pc].col, "'end_atomic' without 'atomic'");
                continue;
            }
            close_block(c, code, li, open, pc);
            open = UINT32_MAX;
        }
    }
    if (open != UINT32_MAX) {
        asm_error_at(c, li[open], code[open].col, "'atomic' without 'end_atomic'");
        return;
    }
    /* no way in but through the `atomic` */
    for (uint32_t pc = 0; pc < ninsn; pc++)
        if (is_jump(&code[pc]) && !code[pc].in_block && code[code[pc].obj].in_block)
            asm_error_at(c, li[pc], code[pc].col,
                         "a jump into an atomic block (jump to its 'atomic' instead)");
    for (uint32_t i = 0; i < c->b.labels.n; i++) {
        const label *l = &c->b.labels.v[i];
        bool end = l->len >= 3 && memcmp(l->name, "end", 3) == 0;
        bool progress = l->len >= 8 && memcmp(l->name, "progress", 8) == 0;
        if ((end || progress) && l->pc < ninsn && code[l->pc].in_block)
            asm_error_at(c, l->li, l->col,
                         "an '%s' label inside an atomic block: no thread stands there "
                         "(label the 'atomic' line instead)",
                         end ? "end" : "progress");
    }
}
