/* test_asm.c: the assembler (vm/assemble.c) and the dump (vm/dump.c).
 *
 * Every declaration form and every instruction is assembled and its decoded
 * fields checked; register slots, the state layout and the initial state are
 * compared with values worked out by hand; every assembly error is provoked
 * and its position and message checked; binary garbage must give errors, not
 * crashes. Diagnostics are captured with open_memstream.
 *
 * The cases are split over three files, one executable: this one holds
 * main() and the declaration and instruction cases; test_asm_layout.c the
 * layout, initial state, -D, constant expressions, dump and make_volatile;
 * test_asm_errors.c the diagnostics. Shared helpers: test_asm_int.h. */
#include "test_asm_int.h"

/* ---- declarations ----------------------------------------------------- */

void test_declarations(void)
{
    vm_program *p = ASSEMBLE("const N = M\n"
                             "const M = 3\n"
                             "const NEG = -N\n"
                             "const H = 0xffffffff\n"
                             "const L = -2147483648\n"
                             "shared x\n"
                             "shared y = 7 init main\n"
                             "shared meals[N] = 2\n"
                             "shared a[4] = {1, -2, NEG}\n"
                             "volatile flag[2]\n"
                             "unshared seen[M] = {}\n"
                             "lock m\n"
                             "lock fork[N]\n"
                             "chan c\n"
                             "chan q[3]\n"
                             "thread main\n"
                             "thread phil[N]\n"
                             "proc worker max 4\n"
                             "proc helper\n");
    if (!p) return;
    CHECK_EQ_INT(p->nconsts, 5);
    CHECK(strcmp(p->consts[0].name, "N") == 0);
    CHECK_EQ_INT(p->consts[0].value, 3);
    CHECK_EQ_INT(p->consts[2].value, -3);
    CHECK_EQ_INT(p->consts[3].value, -1);
    CHECK_EQ_INT(p->consts[4].value, INT32_MIN);
    CHECK_EQ_INT(p->consts[1].line, 2);
    CHECK_EQ_INT(p->consts[1].col, 7);

    CHECK_EQ_INT(p->nvars, 6);
    const vm_var *v = p->vars;
    CHECK(strcmp(v[0].name, "x") == 0 && v[0].cls == VM_SHARED && !v[0].is_array);
    CHECK_EQ_INT(v[0].size, 1);
    CHECK_EQ_INT(v[0].init[0], 0);
    CHECK_EQ_INT(v[0].init_body, -1);
    CHECK_EQ_INT(v[1].init[0], 7);
    CHECK_EQ_INT(v[1].init_body, 0);
    CHECK(v[2].is_array);
    CHECK_EQ_INT(v[2].size, 3);
    for (int e = 0; e < 3; e++) CHECK_EQ_INT(v[2].init[e], 2);
    CHECK_EQ_INT(v[3].size, 4);
    CHECK_EQ_INT(v[3].init[0], 1);
    CHECK_EQ_INT(v[3].init[1], -2);
    CHECK_EQ_INT(v[3].init[2], -3);
    CHECK_EQ_INT(v[3].init[3], 0); /* padded */
    CHECK(v[4].cls == VM_VOLATILE && v[4].size == 2);
    CHECK(v[5].cls == VM_UNSHARED && v[5].size == 3 && v[5].init[2] == 0);
    CHECK_EQ_INT(p->nelems, 1 + 1 + 3 + 4 + 2 + 3);
    CHECK_EQ_INT(v[3].first_elem, 5);

    CHECK_EQ_INT(p->nlockdecls, 2);
    CHECK(!p->lockdecls[0].is_array && p->lockdecls[0].size == 1);
    CHECK(p->lockdecls[1].is_array && p->lockdecls[1].size == 3);
    CHECK_EQ_INT(p->lockdecls[1].first, 1);
    CHECK_EQ_INT(p->nlocks, 4);

    CHECK_EQ_INT(p->nchans, 2);
    CHECK_EQ_INT(p->chans[0].cap, 1);
    CHECK_EQ_INT(p->chans[1].cap, 3);

    CHECK_EQ_INT(p->nbodies, 4);
    const vm_body *b = p->bodies;
    CHECK(!b[0].is_proc && !b[0].is_array && b[0].count == 1 && b[0].first_tid == 0);
    CHECK(!b[1].is_proc && b[1].is_array && b[1].count == 3 && b[1].first_tid == 1);
    CHECK(b[2].is_proc && b[2].count == 4);
    CHECK(b[3].is_proc && b[3].count == 1);
    CHECK_EQ_INT(b[1].line, 17);
    CHECK_EQ_INT(b[1].col, 8);
    CHECK_EQ_INT(p->nstatic, 4);
    CHECK_EQ_INT(p->nthreads, 4 + 4 + 1);
    vm_program_free(p);
}

void test_integers(void)
{
    vm_program *p = ASSEMBLE("thread main\n"
                             "    mov r0, -2147483648\n"
                             "    mov r0, 2147483647\n"
                             "    mov r0, 0x80000000\n"
                             "    mov r0, 0XfF\n"
                             "    mov r0, -0x10\n"
                             "    mov r0, 007\n");
    if (!p) return;
    CHECK_EQ_INT(insn(p, 0, 0)->a.val, INT32_MIN);
    CHECK_EQ_INT(insn(p, 0, 1)->a.val, INT32_MAX);
    CHECK_EQ_INT(insn(p, 0, 2)->a.val, INT32_MIN);
    CHECK_EQ_INT(insn(p, 0, 3)->a.val, 255);
    CHECK_EQ_INT(insn(p, 0, 4)->a.val, -16);
    CHECK_EQ_INT(insn(p, 0, 5)->a.val, 7);
    vm_program_free(p);
}

/* The choices docs/language.md lists beyond LANGUAGE.md. */
void test_documented_choices(void)
{
    static const char src[] = "const N = 1\r\n"
                              "shared x = {9} init w\r\n"
                              "shared y = - N ; comment with a NUL \0 and \xff\n"
                              "thread main\v\f\n"
                              "  \t loop: mov r0, - 5\n"
                              "  jmp loop\n"
                              "proc w\n";
    vm_define defs[] = {{"N", 2}, {"N", 3}};
    result r = run_len(src, sizeof src - 1, defs, 2);
    CHECK(r.p != NULL);
    if (r.p) {
        CHECK_EQ_INT(r.p->consts[0].value, 3);
        CHECK_EQ_INT(r.p->vars[0].init[0], 9);
        CHECK_EQ_INT(r.p->vars[0].init_body, 1);
        CHECK_EQ_INT(r.p->vars[1].init[0], -3);
        CHECK(operand_is(insn(r.p, 0, 0)->a, VM_ARG_IMM, -5));
        CHECK_EQ_INT(insn(r.p, 0, 0)->col, 11);
        CHECK_EQ_INT(insn(r.p, 0, 1)->obj, 0);
    }
    done(&r);
}

/* ---- instructions ----------------------------------------------------- */

static const char every_insn[] =
    "const K = 4\n"          /* 1 */
    "shared s\n"             /* 2 */
    "shared arr[3]\n"        /* 3 */
    "volatile v\n"           /* 4 */
    "volatile va[2]\n"       /* 5 */
    "lock m\n"               /* 6 */
    "lock la[2]\n"           /* 7 */
    "chan c[2]\n"            /* 8 */
    "chan d\n"               /* 9 */
    "proc w max 2\n"         /* 10 */
    "thread main\n"          /* 11 */
    "    nop\n"              /* 12  pc 0 */
    "top: mov r0, 5\n"       /* 13  pc 1 */
    "    add r1, r0, K\n"    /* 14 */
    "    sub r1, r1, -1\n"   /* 15 */
    "    mul r1, self, tid\n" /* 16 */
    "    div r1, r1, 2\n"    /* 17 */
    "    mod r1, r1, 2\n"    /* 18 */
    "    and r1, r1, 2\n"    /* 19 */
    "    or r1, r1, 2\n"     /* 20 */
    "    xor r1, r1, 2\n"    /* 21 */
    "    shl r1, r1, 2\n"    /* 22 */
    "    shr r1, r1, 2\n"    /* 23 */
    "    eq r1, r1, 2\n"     /* 24 */
    "    ne r1, r1, 2\n"     /* 25 */
    "    lt r1, r1, 2\n"     /* 26 */
    "    le r1, r1, 2\n"     /* 27 */
    "    gt r1, r1, 2\n"     /* 28 */
    "    ge r1, r1, 2\n"     /* 29 */
    "    not r2, r1\n"       /* 30  pc 18 */
    "    neg r2, -K\n"       /* 31 */
    "    load r3, s\n"       /* 32  pc 20 */
    "    load r3, arr[r0]\n" /* 33 */
    "    store  arr[2] ,\t r3 ; comment\n" /* 34 */
    "    load r3, v\n"       /* 35  pc 23: visible */
    "    store va[self], 1\n" /* 36 visible */
    "    jmp top\n"          /* 37  pc 25 */
    "    jz r3, top\n"       /* 38 */
    "    jnz r3, end_x\n"    /* 39 */
    "    assert r3, \"no; \\\"q\\\" \\\\ #\"\n" /* 40 pc 28 */
    "    assert r3\n"        /* 41 */
    "    choose r4, 0, K\n"  /* 42  pc 30 */
    "    acquire la[1]\n"    /* 43 */
    "    release m\n"        /* 44 */
    "    wait m\n"           /* 45 */
    "    notify m\n"         /* 46 */
    "    notifyall m\n"      /* 47 */
    "    send c, r4\n"       /* 48  pc 36 */
    "    recv r5, d\n"       /* 49 */
    "    spawn r6, w, 7\n"   /* 50 */
    "    join r6\n"          /* 51 */
    "end_x: end\n";          /* 52  pc 40; implicit end pc 41 */

void test_every_instruction(void)
{
    static const struct {
        uint8_t op, visible;
        const char *text;
    } want[] = {
        {VM_OP_nop, 1, "nop"},            {VM_OP_mov, 0, "mov r0, 5"},
        {VM_OP_add, 0, "add r1, r0, K"},  {VM_OP_sub, 0, "sub r1, r1, -1"},
        {VM_OP_mul, 0, "mul r1, self, tid"}, {VM_OP_div, 0, "div r1, r1, 2"},
        {VM_OP_mod, 0, "mod r1, r1, 2"},  {VM_OP_and, 0, "and r1, r1, 2"},
        {VM_OP_or, 0, "or r1, r1, 2"},    {VM_OP_xor, 0, "xor r1, r1, 2"},
        {VM_OP_shl, 0, "shl r1, r1, 2"},  {VM_OP_shr, 0, "shr r1, r1, 2"},
        {VM_OP_eq, 0, "eq r1, r1, 2"},    {VM_OP_ne, 0, "ne r1, r1, 2"},
        {VM_OP_lt, 0, "lt r1, r1, 2"},    {VM_OP_le, 0, "le r1, r1, 2"},
        {VM_OP_gt, 0, "gt r1, r1, 2"},    {VM_OP_ge, 0, "ge r1, r1, 2"},
        {VM_OP_not, 0, "not r2, r1"},     {VM_OP_neg, 0, "neg r2, -K"},
        {VM_OP_load, 0, "load r3, s"},    {VM_OP_load, 0, "load r3, arr[r0]"},
        {VM_OP_store, 0, "store arr[2] , r3"}, {VM_OP_load, 1, "load r3, v"},
        {VM_OP_store, 1, "store va[self], 1"}, {VM_OP_jmp, 0, "jmp top"},
        {VM_OP_jz, 0, "jz r3, top"},      {VM_OP_jnz, 0, "jnz r3, end_x"},
        {VM_OP_assert, 0, "assert r3, \"no; \\\"q\\\" \\\\ #\""},
        {VM_OP_assert, 0, "assert r3"},   {VM_OP_choose, 1, "choose r4, 0, K"},
        {VM_OP_acquire, 1, "acquire la[1]"}, {VM_OP_release, 0, "release m"},
        {VM_OP_wait, 1, "wait m"},        {VM_OP_notify, 1, "notify m"},
        {VM_OP_notifyall, 0, "notifyall m"}, {VM_OP_send, 1, "send c, r4"},
        {VM_OP_recv, 1, "recv r5, d"},    {VM_OP_spawn, 1, "spawn r6, w, 7"},
        {VM_OP_join, 1, "join r6"},       {VM_OP_end, 0, "end"},
        {VM_OP_end, 0, "end (implicit)"},
    };
    const uint32_t n = sizeof want / sizeof want[0];
    vm_program *p = ASSEMBLE(every_insn);
    if (!p) return;
    const vm_body *b = &p->bodies[1];
    CHECK(strcmp(b->name, "main") == 0);
    CHECK_EQ_INT(b->ncode, n);
    for (uint32_t pc = 0; pc < n && pc < b->ncode; pc++) {
        const vm_insn *in = &b->code[pc];
        if (in->op != want[pc].op || in->visible != want[pc].visible ||
            strcmp(in->text, want[pc].text) != 0) {
            char msg[256];
            snprintf(msg, sizeof msg, "pc %u: op %d vis %d text '%s'", pc, in->op, in->visible,
                     in->text);
            test_fail(__FILE__, __LINE__, msg);
        }
        CHECK_EQ_INT(in->line, pc < n - 1 ? 12 + (int)pc : 52);
        CHECK_EQ_INT(in->col, pc == 1 ? 6 : pc == n - 2 ? 8 : pc == n - 1 ? 1 : 5);
        CHECK_EQ_INT(in->end_label, pc == n - 2);
    }
    /* operands: registers get slots in order of first reference */
    CHECK_EQ_INT(insn(p, 1, 1)->rd, 0);
    CHECK(operand_is(insn(p, 1, 1)->a, VM_ARG_IMM, 5));
    CHECK_EQ_INT(insn(p, 1, 2)->rd, 1);
    CHECK(operand_is(insn(p, 1, 2)->a, VM_ARG_REG, 0));
    CHECK(operand_is(insn(p, 1, 2)->b, VM_ARG_IMM, 4));
    CHECK(operand_is(insn(p, 1, 3)->b, VM_ARG_IMM, -1));
    CHECK(operand_is(insn(p, 1, 4)->a, VM_ARG_SELF, 0));
    CHECK(operand_is(insn(p, 1, 4)->b, VM_ARG_TID, 0));
    CHECK_EQ_INT(insn(p, 1, 18)->rd, 2);
    CHECK(operand_is(insn(p, 1, 19)->a, VM_ARG_IMM, -4));
    /* memory: obj is the var id, idx IMM 0 for scalars */
    CHECK_EQ_INT(insn(p, 1, 20)->rd, 3);
    CHECK_EQ_INT(insn(p, 1, 20)->obj, 0);
    CHECK(operand_is(insn(p, 1, 20)->idx, VM_ARG_IMM, 0));
    CHECK_EQ_INT(insn(p, 1, 21)->obj, 1);
    CHECK(operand_is(insn(p, 1, 21)->idx, VM_ARG_REG, 0));
    CHECK_EQ_INT(insn(p, 1, 22)->obj, 1);
    CHECK(operand_is(insn(p, 1, 22)->idx, VM_ARG_IMM, 2));
    CHECK(operand_is(insn(p, 1, 22)->a, VM_ARG_REG, 3));
    CHECK_EQ_INT(insn(p, 1, 24)->obj, 3);
    CHECK(operand_is(insn(p, 1, 24)->idx, VM_ARG_SELF, 0));
    /* jumps: obj is the target pc */
    CHECK_EQ_INT(insn(p, 1, 25)->obj, 1);
    CHECK(operand_is(insn(p, 1, 26)->a, VM_ARG_REG, 3));
    CHECK_EQ_INT(insn(p, 1, 26)->obj, 1);
    CHECK_EQ_INT(insn(p, 1, 27)->obj, 40);
    /* assert messages: the string unescaped, or the operand as written */
    CHECK(strcmp(insn(p, 1, 28)->msg, "no; \"q\" \\ #") == 0);
    CHECK(strcmp(insn(p, 1, 29)->msg, "r3") == 0);
    CHECK_EQ_INT(insn(p, 1, 30)->rd, 4);
    CHECK(operand_is(insn(p, 1, 30)->b, VM_ARG_IMM, 4));
    /* locks: obj is the lock declaration */
    CHECK_EQ_INT(insn(p, 1, 31)->obj, 1);
    CHECK(operand_is(insn(p, 1, 31)->idx, VM_ARG_IMM, 1));
    CHECK_EQ_INT(insn(p, 1, 32)->obj, 0);
    CHECK(operand_is(insn(p, 1, 32)->idx, VM_ARG_IMM, 0));
    /* channels, spawn, join */
    CHECK_EQ_INT(insn(p, 1, 36)->obj, 0);
    CHECK(operand_is(insn(p, 1, 36)->a, VM_ARG_REG, 4));
    CHECK_EQ_INT(insn(p, 1, 37)->obj, 1);
    CHECK_EQ_INT(insn(p, 1, 37)->rd, 5);
    CHECK_EQ_INT(insn(p, 1, 38)->rd, 6);
    CHECK_EQ_INT(insn(p, 1, 38)->obj, 0); /* body id of proc w */
    CHECK(operand_is(insn(p, 1, 38)->a, VM_ARG_IMM, 7));
    CHECK(operand_is(insn(p, 1, 39)->a, VM_ARG_REG, 6));
    CHECK_EQ_INT(b->nregs, 7);
    /* the empty proc: just the implicit end, visible (InitVis) */
    CHECK_EQ_INT(p->bodies[0].ncode, 1);
    CHECK(insn(p, 0, 0)->op == VM_OP_end && insn(p, 0, 0)->visible);
    CHECK_EQ_INT(insn(p, 0, 0)->line, 10);
    vm_program_free(p);
}

void test_register_slots(void)
{
    vm_program *p = ASSEMBLE("thread main\n"
                             "    reg unused, left, right\n"
                             "    mov r7, right\n"
                             "    add left, r7, r2\n"
                             "    reg late\n"
                             "    mov late, r7\n"
                             "    mov r2, left\n");
    if (!p) return;
    const vm_body *b = &p->bodies[0];
    static const char *const names[] = {"r7", "right", "left", "r2", "late"};
    CHECK_EQ_INT(b->nregs, 5);
    for (uint32_t s = 0; s < 5 && s < b->nregs; s++) CHECK(strcmp(b->regname[s], names[s]) == 0);
    CHECK_EQ_INT(insn(p, 0, 0)->rd, 0);
    CHECK(operand_is(insn(p, 0, 0)->a, VM_ARG_REG, 1));
    CHECK_EQ_INT(insn(p, 0, 1)->rd, 2);
    CHECK(operand_is(insn(p, 0, 1)->b, VM_ARG_REG, 3));
    CHECK_EQ_INT(insn(p, 0, 2)->rd, 4);
    CHECK_EQ_INT(insn(p, 0, 3)->rd, 3);
    CHECK_EQ_INT(p->threads[0].nregs, 5);
    vm_program_free(p);
}

void test_labels(void)
{
    vm_program *p = ASSEMBLE("thread main\n"
                             "a: b: nop\n"
                             "c:\n"
                             "   ; a comment line\n"
                             "end_wait: d: jmp a\n"
                             "    jz 0, d\n"
                             "    jnz 1, end_here\n"
                             "end_here:\n");
    if (!p) return;
    const vm_body *b = &p->bodies[0];
    CHECK_EQ_INT(b->ncode, 5);
    CHECK_EQ_INT(insn(p, 0, 1)->obj, 0); /* jmp a */
    CHECK_EQ_INT(insn(p, 0, 2)->obj, 1); /* jz 0, d */
    CHECK_EQ_INT(insn(p, 0, 3)->obj, 4); /* end_here: the implicit end */
    CHECK_EQ_INT(insn(p, 0, 0)->end_label, 0);
    CHECK_EQ_INT(insn(p, 0, 1)->end_label, 1);
    CHECK_EQ_INT(insn(p, 0, 2)->end_label, 0);
    CHECK_EQ_INT(insn(p, 0, 4)->end_label, 1);
    CHECK_EQ_INT(insn(p, 0, 4)->line, 8);
    CHECK_EQ_INT(insn(p, 0, 4)->col, 1);
    CHECK(strcmp(insn(p, 0, 4)->text, "end (implicit)") == 0);
    CHECK_EQ_INT(insn(p, 0, 1)->col, 14);
    vm_program_free(p);
}

/* Labels are per body; a body runs until the next declaration. */
void test_bodies(void)
{
    vm_program *p = ASSEMBLE("thread a\n"
                             "l: nop\n"
                             "shared x\n"
                             "thread b\n"
                             "l: jmp l\n"
                             "   # trailing comment\n"
                             "\n");
    if (!p) return;
    CHECK_EQ_INT(p->bodies[0].ncode, 2);
    CHECK_EQ_INT(p->bodies[1].ncode, 2);
    CHECK_EQ_INT(insn(p, 1, 1)->line, 5);
    CHECK_EQ_INT(p->bodies[0].code[1].line, 2);
    vm_program_free(p);
}

int main(void)
{
    TEST_RUN(test_declarations);
    TEST_RUN(test_integers);
    TEST_RUN(test_documented_choices);
    TEST_RUN(test_every_instruction);
    TEST_RUN(test_register_slots);
    TEST_RUN(test_labels);
    TEST_RUN(test_bodies);
    TEST_RUN(test_layout);
    TEST_RUN(test_layout_conds);
    TEST_RUN(test_initial_state);
    TEST_RUN(test_define_override);
    TEST_RUN(test_comma_lists);
    TEST_RUN(test_constant_expressions);
    TEST_RUN(test_spawn_slots);
    TEST_RUN(test_philosophers);
    TEST_RUN(test_dump);
    TEST_RUN(test_make_volatile);
    TEST_RUN(test_error_format);
    TEST_RUN(test_errors_instructions);
    TEST_RUN(test_atomic_blocks);
    TEST_RUN(test_errors_calls);
    TEST_RUN(test_errors_labels_and_names);
    TEST_RUN(test_errors_declarations);
    TEST_RUN(test_errors_lexical);
    TEST_RUN(test_errors_limits);
    TEST_RUN(test_no_cascades);
    TEST_RUN(test_program_owns_memory);
    TEST_RUN(test_binary_garbage);
    TEST_RUN(test_unterminated_buffer);
    TEST_RUN(test_several_errors);
    TEST_RUN(test_error_cap);
    TEST_RUN(test_did_you_mean);
    TEST_RUN(test_define_blamed);
    return test_finish();
}
