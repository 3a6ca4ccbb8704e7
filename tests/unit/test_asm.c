/* test_asm.c: the assembler (vm/assemble.c) and the dump (vm/dump.c).
 *
 * Every declaration form and every instruction is assembled and its decoded
 * fields checked; register slots, the state layout and the initial state are
 * compared with values worked out by hand; every assembly error is provoked
 * and its position and message checked; binary garbage must give errors, not
 * crashes. Diagnostics are captured with open_memstream. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "vm.h"

typedef struct result {
    vm_program *p;
    char *diag;
    int nerr;
} result;

static result run_len(const char *src, size_t len, const vm_define *defs, size_t ndefs)
{
    result r = {0};
    size_t n = 0;
    FILE *d = open_memstream(&r.diag, &n);
    r.p = vm_assemble("t.bc", src, len, defs, ndefs, d, &r.nerr);
    fclose(d);
    return r;
}

static result run(const char *src) { return run_len(src, strlen(src), NULL, 0); }

static void done(result *r)
{
    vm_program_free(r->p);
    free(r->diag);
}

/* The program, or NULL after reporting the diagnostics as a failure. */
static vm_program *assemble_ok(int line, const char *src)
{
    result r = run(src);
    if (!r.p) {
        fprintf(stderr, "%s", r.diag);
        test_fail(__FILE__, line, "model assembles");
    } else if (r.nerr != 0 || r.diag[0]) {
        test_fail(__FILE__, line, "no diagnostics for a good model");
    }
    free(r.diag);
    return r.p;
}
#define ASSEMBLE(src) assemble_ok(__LINE__, src)

/* Assembly fails and the diagnostics contain `needle` (e.g. "t.bc:3:5: error: ..."). */
static void expect_error(int line, const char *src, const char *needle)
{
    result r = run(src);
    if (r.p || r.nerr < 1) test_fail(__FILE__, line, "assembly fails");
    if (!strstr(r.diag, needle)) {
        char b[2048];
        snprintf(b, sizeof b, "expected \"%s\" in:\n%s", needle, r.diag);
        test_fail(__FILE__, line, b);
    }
    done(&r);
}
#define EXPECT_ERROR(src, needle) expect_error(__LINE__, src, needle)

static const vm_insn *insn(const vm_program *p, uint32_t body, uint32_t pc)
{
    return &p->bodies[body].code[pc];
}

static bool operand_is(vm_operand o, int kind, int32_t val)
{
    return o.kind == kind && o.val == val;
}

/* ---- declarations ----------------------------------------------------- */

static void test_declarations(void)
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

static void test_integers(void)
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
static void test_documented_choices(void)
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

static void test_every_instruction(void)
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

static void test_register_slots(void)
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

static void test_labels(void)
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
static void test_bodies(void)
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

/* ---- layout and initial state ---------------------------------------- */

static const char layout_model[] = "const N = 2\n"
                                   "shared x = 5\n"
                                   "volatile f[N] = {7}\n"
                                   "lock m\n"
                                   "lock l[N]\n"
                                   "chan c[2]\n"
                                   "chan d\n"
                                   "thread main\n"
                                   "    mov r3, 1\n"
                                   "    mov r1, 2\n"
                                   "thread w[2]\n"
                                   "    nop\n"
                                   "proc p max 2\n"
                                   "    reg q\n"
                                   "    mov q, self\n"
                                   "proc p2\n"
                                   "    mov r0, 1\n"
                                   "    mov r1, 1\n";

static void test_layout(void)
{
    vm_program *p = ASSEMBLE(layout_model);
    if (!p) return;
    /* 6 threads: main, w[0], w[1], three spawn slots (2 + 1) */
    CHECK_EQ_INT(p->nthreads, 6);
    CHECK_EQ_INT(p->nstatic, 3);
    CHECK_EQ_INT(p->layout.globals_off, 0);
    CHECK_EQ_INT(p->vars[0].offset, 0);
    CHECK_EQ_INT(p->vars[1].offset, 4);
    CHECK_EQ_INT(p->vars[1].first_elem, 1);
    CHECK_EQ_INT(p->layout.wsbytes, 1);
    CHECK_EQ_INT(p->layout.lock_bytes, 4);
    CHECK_EQ_INT(p->layout.locks_off, 12);
    CHECK_EQ_INT(p->lockdecls[1].first, 1);
    CHECK_EQ_INT(p->chans[0].offset, 24); /* 12 + 3 locks * 4 */
    CHECK_EQ_INT(p->chans[1].offset, 33); /* 24 + 1 + 2 * 4 */
    CHECK_EQ_INT(p->layout.spawns_off, 38);
    CHECK_EQ_INT(p->layout.threads_off, 42); /* 38 + 4 bodies */
    CHECK_EQ_INT(p->max_regs_proc, 2);
    static const struct {
        uint32_t off;
        int32_t body;
        uint32_t nregs;
    } slot[] = {{42, 0, 2}, {53, 1, 0}, {56, 1, 0}, {59, -1, 2}, {77, -1, 2}, {95, -1, 2}};
    /* static slots: status, pc, registers (no wait: no saved depth); spawn
     * slots: status, pc, body, saved depth, self, registers */
    for (int t = 0; t < 6; t++) {
        CHECK_EQ_INT(p->threads[t].offset, slot[t].off);
        CHECK_EQ_INT(p->threads[t].body, slot[t].body);
        CHECK_EQ_INT(p->threads[t].nregs, slot[t].nregs);
    }
    CHECK_EQ_INT(p->layout.size, 113);
    CHECK_EQ_INT(p->bodies[1].first_tid, 1);
    CHECK_EQ_INT(p->threads[0].regs_off, 3);
    CHECK_EQ_INT(p->threads[0].depth_off, 0);
    CHECK_EQ_INT(p->threads[2].self, 1);
    CHECK_EQ_INT(p->threads[3].self_off, 6);
    CHECK_EQ_INT(p->threads[3].regs_off, 10);
    vm_program_free(p);
}

static void test_initial_state(void)
{
    vm_program *p = ASSEMBLE(layout_model);
    if (!p) return;
    uint8_t want[113] = {0};
    want[0] = 5;                         /* x */
    want[4] = 7;                         /* f[0]; f[1] is 0 */
    want[42] = VM_T_RUNNING;             /* main (body and self are in the slot) */
    want[53] = VM_T_RUNNING;             /* w[0] */
    want[56] = VM_T_RUNNING;             /* w[1] */
    CHECK(memcmp(p->init_state, want, sizeof want) == 0);
    for (uint32_t i = 0; i < sizeof want; i++)
        if (p->init_state[i] != want[i]) fprintf(stderr, "  byte %u: %u, expected %u\n", i,
                                                 p->init_state[i], want[i]);
    vm_program_free(p);
}

static void test_define_override(void)
{
    static const char src[] = "const N = 3\n"
                              "const M = N\n"
                              "shared a[M]\n"
                              "thread t[N]\n";
    vm_define defs[] = {{"N", 5}};
    result r = run_len(src, strlen(src), defs, 1);
    CHECK(r.p != NULL);
    if (r.p) {
        CHECK_EQ_INT(r.p->consts[0].value, 5);
        CHECK_EQ_INT(r.p->consts[1].value, 5);
        CHECK_EQ_INT(r.p->vars[0].size, 5);
        CHECK_EQ_INT(r.p->nthreads, 5);
        CHECK_EQ_INT(r.p->layout.size, 5 * 4 + 1 + 5 * VM_TS_HEADER_STATIC);
    }
    done(&r);

    vm_define bad[] = {{"Q", 1}, {"N", 2}, {"a", 1}};
    r = run_len(src, strlen(src), bad, 3);
    CHECK(r.p == NULL);
    CHECK_EQ_INT(r.nerr, 2);
    CHECK_CONTAINS(r.diag, "mcheck: error: -D Q: t.bc declares no const 'Q'\n");
    CHECK_CONTAINS(r.diag, "mcheck: error: -D a: t.bc declares no const 'a'\n");
    done(&r);
}

/* Every declaration takes a comma list (LANGUAGE.md), with array sizes,
 * initializers and `init T` per item. */
static void test_comma_lists(void)
{
    vm_program *p = ASSEMBLE("const A = 1, B = A + 1\n"
                             "lock a, b[2], c\n"
                             "shared x, y[3] = {1, 2, 3}, z = 4 init main, w[2] = 5\n"
                             "volatile f, g[2]\n"
                             "unshared u, v[3]\n"
                             "chan c1[2], c2\n"
                             "thread main\n"
                             "  nop\n");
    if (!p) return;
    CHECK_EQ_INT(p->nconsts, 2);
    CHECK_EQ_INT(p->consts[1].value, 2);
    CHECK_EQ_INT(p->nlockdecls, 3);
    CHECK_EQ_INT(p->nlocks, 4);
    CHECK(p->lockdecls[1].is_array && p->lockdecls[1].first == 1);
    CHECK(strcmp(p->lockdecls[2].name, "c") == 0 && p->lockdecls[2].first == 3);
    CHECK_EQ_INT(p->nvars, 8);
    CHECK(p->vars[0].cls == VM_SHARED && p->vars[0].size == 1);
    CHECK(p->vars[1].size == 3 && p->vars[1].init[2] == 3);
    CHECK(p->vars[2].init[0] == 4 && p->vars[2].init_body == 0);
    CHECK(p->vars[3].size == 2 && p->vars[3].init[1] == 5 && p->vars[3].init_body == -1);
    CHECK(p->vars[4].cls == VM_VOLATILE && p->vars[5].cls == VM_VOLATILE && p->vars[5].size == 2);
    CHECK(p->vars[6].cls == VM_UNSHARED && p->vars[7].cls == VM_UNSHARED && p->vars[7].size == 3);
    CHECK_EQ_INT(p->nchans, 2);
    CHECK_EQ_INT(p->chans[0].cap, 2);
    CHECK_EQ_INT(p->chans[1].cap, 1);
    vm_program_free(p);

    EXPECT_ERROR("lock a, \nthread main\n", "t.bc:1:8: error: expected a name, got end of line");
    EXPECT_ERROR("lock a b\nthread main\n", "t.bc:1:8: error: expected end of line, got 'b'");
    EXPECT_ERROR("lock a, a\nthread main\n", "t.bc:1:9: error: duplicate name 'a'");
    EXPECT_ERROR("thread a, b\n  nop\n",
                 "t.bc:1:9: error: a thread declaration names one body (its code follows it)");
    EXPECT_ERROR("proc p max 1, q\nthread main\n",
                 "t.bc:1:13: error: a proc declaration names one body");
    EXPECT_ERROR("shared x init main, y init\nthread main\n",
                 "t.bc:1:27: error: expected a thread name after 'init', got end of line");
    /* an error in one item spares the others */
    result r = run("lock a, b[0], c\nthread main\n  acquire a\n  acquire c\n");
    CHECK_EQ_INT(r.nerr, 1);
    CHECK_CONTAINS(r.diag, "t.bc:1:11: error: array size must be positive, got 0");
    done(&r);
}

/* Constant expressions wherever a constant integer is taken, with the
 * interpreter's 32-bit arithmetic, consts declared later, -D overrides. */
static void test_constant_expressions(void)
{
    vm_program *p = ASSEMBLE("const M = 2*N+1\n"
                             "const N = 3\n"
                             "const Q = -(M - 1) / 4 % 2, R = 0x10 * -N\n"
                             "const W = 0x7fffffff + 1, X = -2147483648 / -1, Y = -2147483648 % -1\n"
                             "const T = 7 / -2, U = -7 % 2, P = (((N)))\n"
                             "shared a[N+1] = {N, M - 1, -N}, b[2] = 2*N\n"
                             "lock l[N-1]\n"
                             "chan c[N*2]\n"
                             "thread t[N - 2]\n"
                             "  add r0, r0, N-1\n"
                             "  mov r1, -(M)\n"
                             "  choose r2, 0, N - 1\n"
                             "  acquire l[(N-2)]\n"
                             "  release l[N-2]\n"
                             "  load r3, a[N]\n"
                             "  mov r4, 10-1\n"
                             "  mov r5, 10 -1\n"
                             "  mov r6, -1\n"
                             "  spawn r7, w, N*2\n"
                             "proc w max M-5\n");
    if (!p) return;
    int32_t want[] = {7, 3, -1, -48, INT32_MIN, INT32_MIN, 0, -3, -1, 3};
    for (uint32_t i = 0; i < 10; i++) CHECK_EQ_INT(p->consts[i].value, want[i]);
    CHECK_EQ_INT(p->vars[0].size, 4);
    CHECK(p->vars[0].init[0] == 3 && p->vars[0].init[1] == 6 && p->vars[0].init[2] == -3 &&
          p->vars[0].init[3] == 0);
    CHECK(p->vars[1].init[0] == 6 && p->vars[1].init[1] == 6);
    CHECK_EQ_INT(p->lockdecls[0].size, 2);
    CHECK_EQ_INT(p->chans[0].cap, 6);
    CHECK_EQ_INT(p->bodies[0].count, 1);
    CHECK_EQ_INT(p->bodies[1].count, 2);
    CHECK(operand_is(insn(p, 0, 0)->b, VM_ARG_IMM, 2));
    CHECK(operand_is(insn(p, 0, 1)->a, VM_ARG_IMM, -7));
    CHECK(operand_is(insn(p, 0, 2)->b, VM_ARG_IMM, 2));
    CHECK(operand_is(insn(p, 0, 3)->idx, VM_ARG_IMM, 1));
    CHECK(operand_is(insn(p, 0, 4)->idx, VM_ARG_IMM, 1));
    CHECK(operand_is(insn(p, 0, 5)->idx, VM_ARG_IMM, 3));
    CHECK(operand_is(insn(p, 0, 6)->a, VM_ARG_IMM, 9));
    CHECK(operand_is(insn(p, 0, 7)->a, VM_ARG_IMM, 9));
    CHECK(operand_is(insn(p, 0, 8)->a, VM_ARG_IMM, -1));
    CHECK(operand_is(insn(p, 0, 9)->a, VM_ARG_IMM, 6));
    vm_program_free(p);

    /* -D changes every const computed from the overridden one */
    static const char src[] = "const M = 2*N+1\nconst N = 3\nshared a[M]\nthread main\n";
    vm_define defs[] = {{"N", 5}};
    result r = run_len(src, strlen(src), defs, 1);
    CHECK(r.p != NULL);
    if (r.p) {
        CHECK_EQ_INT(r.p->consts[0].value, 11);
        CHECK_EQ_INT(r.p->vars[0].size, 11);
    }
    done(&r);
    /* an overridden const's own expression is not evaluated */
    static const char src2[] = "const N = 1/0\nthread main\n";
    r = run_len(src2, strlen(src2), defs, 1);
    CHECK(r.p != NULL);
    done(&r);

    EXPECT_ERROR("const A = 1/0\nthread main\n",
                 "t.bc:1:12: error: division by zero in a constant expression");
    EXPECT_ERROR("const A = 0\nconst B = 5 % A\nthread main\n",
                 "t.bc:2:13: error: modulo by zero in a constant expression");
    EXPECT_ERROR("thread main\n  mov r0, 1/(2-2)\n",
                 "t.bc:2:12: error: division by zero in a constant expression");
    EXPECT_ERROR("const N = 1\nshared a[N-1]\nthread main\n",
                 "t.bc:2:10: error: array size must be positive, got 0");
    EXPECT_ERROR("const N = 1\nlock l[-N]\nthread main\n",
                 "t.bc:2:8: error: array size must be positive, got -1");
    EXPECT_ERROR("const A = B + 1\nconst B = C * 2\nconst C = A\nthread main\n",
                 "t.bc:1:7: error: const 'A' is defined in terms of itself\n"
                 "const A = B + 1\n"
                 "      ^\n"
                 "t.bc:2:7: note: through 'B'\n"
                 "const B = C * 2\n"
                 "      ^\n"
                 "t.bc:3:7: note: through 'C'\n");
    EXPECT_ERROR("const A = A + 1\nthread main\n",
                 "t.bc:1:7: error: const 'A' is defined in terms of itself");
    EXPECT_ERROR("const A = (1\nthread main\n", "t.bc:1:13: error: expected ')', got end of line");
    EXPECT_ERROR("const A = 1 +\nthread main\n",
                 "t.bc:1:14: error: expected an integer or a constant name, got end of line");
    EXPECT_ERROR("const A = 1 2\nthread main\n", "t.bc:1:13: error: expected end of line, got '2'");
    EXPECT_ERROR("thread main\n  mov r0, r1 + 1\n",
                 "t.bc:2:11: error: 'r1' is not a constant (an expression takes integers and "
                 "consts only)");
    EXPECT_ERROR("thread main\n  mov r0, self*2\n", "t.bc:2:11: error: 'self' is not a constant");
    EXPECT_ERROR("thread main\n  reg q\n  mov r0, 1+q\n", "t.bc:3:13: error: 'q' is not a constant");
    EXPECT_ERROR("shared x\nthread main\n  mov r0, x+1\n",
                 "t.bc:3:11: error: 'x' is a shared variable, expected a constant");
    EXPECT_ERROR("thread main\n  mov r0, N+1\n", "t.bc:2:11: error: unknown constant 'N'");
    /* nesting is bounded: no deep recursion on hostile input */
    char deep[400] = "const A = ";
    for (int i = 0; i < 100; i++) strcat(deep, "(");
    strcat(deep, "1");
    for (int i = 0; i < 100; i++) strcat(deep, ")");
    strcat(deep, "\nthread main\n");
    EXPECT_ERROR(deep, "error: constant expression nested too deeply (limit 64)");
    char neg[400] = "const A = ";
    for (int i = 0; i < 100; i++) strcat(neg, "- ");
    strcat(neg, "1\nthread main\n");
    EXPECT_ERROR(neg, "error: constant expression nested too deeply (limit 64)");
    /* a long chain of consts needs no deep recursion either */
    size_t cap = 100000 * 32;
    char *chain = malloc(cap), *w = chain;
    for (int i = 0; i < 100000; i++) w += sprintf(w, "const C%d = C%d + 1\n", i, i + 1);
    sprintf(w, "const C100000 = 0\nthread main\n");
    r = run(chain);
    CHECK(r.p != NULL);
    if (r.p) CHECK_EQ_INT(r.p->consts[0].value, 100000);
    done(&r);
    free(chain);
}

static void test_spawn_slots(void)
{
    vm_program *p = ASSEMBLE("thread main\n"
                             "    spawn r0, big, 1\n"
                             "proc small max 3\n"
                             "    mov r0, 1\n"
                             "proc big max 2\n"
                             "    mov r0, r1\n"
                             "    mov r2, r3\n");
    if (!p) return;
    CHECK_EQ_INT(p->max_regs_proc, 4);
    CHECK_EQ_INT(p->nthreads, 6);
    CHECK_EQ_INT(insn(p, 0, 0)->obj, 2);
    for (int t = 1; t < 6; t++) {
        CHECK_EQ_INT(p->threads[t].body, -1);
        CHECK_EQ_INT(p->threads[t].nregs, 4);
    }
    vm_program_free(p);
}

static void test_philosophers(void)
{
    vm_program *p = ASSEMBLE("; dining philosophers: deadlocks when every philosopher holds its left fork\n"
                             "const N = 3\n"
                             "lock  fork[N]\n"
                             "shared meals[N]\n"
                             "\n"
                             "thread phil[N]\n"
                             "    reg left, right, m\n"
                             "    mov  left, self\n"
                             "    add  right, self, 1\n"
                             "    mod  right, right, N\n"
                             "loop:\n"
                             "    acquire fork[left]\n"
                             "    acquire fork[right]\n"
                             "    load  m, meals[self]\n"
                             "    add   m, m, 1\n"
                             "    mod   m, m, 3\n"
                             "    store meals[self], m\n"
                             "    release fork[right]\n"
                             "    release fork[left]\n"
                             "    jmp loop\n");
    if (!p) return;
    static const uint8_t vis[] = {1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(p->nthreads, 3);
    CHECK_EQ_INT(p->nlocks, 3);
    CHECK_EQ_INT(p->bodies[0].ncode, sizeof vis);
    for (uint32_t pc = 0; pc < sizeof vis && pc < p->bodies[0].ncode; pc++)
        CHECK_EQ_INT(insn(p, 0, pc)->visible, vis[pc]);
    CHECK(strcmp(insn(p, 0, 3)->text, "acquire fork[left]") == 0);
    CHECK_EQ_INT(insn(p, 0, 11)->obj, 3);
    CHECK_EQ_INT(p->bodies[0].nregs, 3);
    for (int t = 0; t < 3; t++)
        CHECK_EQ_INT(vm_tself(p, p->init_state, t), t);
    vm_program_free(p);
}

static void test_dump(void)
{
    vm_program *p = ASSEMBLE(layout_model);
    if (!p) return;
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    vm_dump(p, f);
    fclose(f);
    CHECK_CONTAINS(out, "state vector 113 bytes");
    CHECK_CONTAINS(out, "       4        8  volatile f[2]");
    CHECK_CONTAINS(out, "      12        4  lock m");
    CHECK_CONTAINS(out, "      33        5  chan d");
    CHECK_CONTAINS(out, "      38        1  spawn counter of main");
    CHECK_CONTAINS(out, "      59       18  thread 3: spawn slot");
    CHECK_CONTAINS(out, "      56        3  thread 2: w[1]");
    CHECK_CONTAINS(out, "total 113 bytes");
    CHECK_CONTAINS(out, "      0 V        9  mov r3, 1\n");
    CHECK_CONTAINS(out, "      2         10  end (implicit)\n");
    free(out);
    vm_program_free(p);
    vm_program_free(NULL);
}

/* vm_make_volatile (mcheck --adapt): a shared or unshared variable made
 * volatile gives exactly the program that declares it volatile (same dump:
 * classes, layout, visible flags), and only its loads and stores change. */
static char *dump_of(const vm_program *p)
{
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    vm_dump(p, f);
    fclose(f);
    return out;
}

static void test_make_volatile(void)
{
#define MV_MODEL(X, U)                                                         \
    X " x = 3" U " u[2] = {1, 2}\n"                                          \
    "shared y\n"                                                              \
    "volatile v\n"                                                            \
    "lock m\n"                                                                \
    "thread main\n"                                                           \
    "    store x, 1\n" /* pc 0: visible anyway (InitVis) */                   \
    "    load r0, x\n"                                                        \
    "    store u[1], r0\n"                                                    \
    "    acquire m\n"                                                         \
    "    load r1, y\n"                                                        \
    "    store y, r1\n"                                                       \
    "    release m\n"                                                         \
    "    load r2, v\n"                                                        \
    "thread t\n"                                                              \
    "    mov r0, 0\n"                                                         \
    "    load r1, u[r0]\n"                                                    \
    "    add r1, r1, 1\n"                                                     \
    "    store x, r1\n"
    /* `init main` is for shared variables only: the volatile x has none */
    const char *src_sh = MV_MODEL("shared", " init main\nunshared");
    const char *src_vol = MV_MODEL("volatile", "\nvolatile");
#undef MV_MODEL
    vm_program *p = ASSEMBLE(src_sh), *q = ASSEMBLE(src_vol);
    if (!p || !q) {
        vm_program_free(p);
        vm_program_free(q);
        return;
    }
    char *before = dump_of(p);
    CHECK_EQ_INT(p->vars[0].init_body, 0);
    CHECK_EQ_INT(vm_make_volatile(p, 0), 2); /* x: pc 1 of main, pc 3 of t (pc 0 was) */
    CHECK_EQ_INT(vm_make_volatile(p, 1), 2); /* u: pc 2 of main, pc 1 of t */
    CHECK(p->vars[0].cls == VM_VOLATILE && p->vars[1].cls == VM_VOLATILE);
    CHECK(p->vars[2].cls == VM_SHARED);
    CHECK_EQ_INT(p->vars[0].init_body, -1);
    char *after = dump_of(p), *want = dump_of(q);
    CHECK(strcmp(before, after) != 0);
    if (strcmp(after, want) != 0) {
        fprintf(stderr, "adapted:\n%s\ndeclared volatile:\n%s", after, want);
        test_fail(__FILE__, __LINE__, "adapted program dumps as the declared-volatile one");
    }
    CHECK(p->layout.size == q->layout.size &&
          memcmp(p->init_state, q->init_state, p->layout.size) == 0);
    CHECK_EQ_INT(vm_make_volatile(p, 0), 0); /* already volatile */
    CHECK_EQ_INT(vm_make_volatile(p, 3), 0); /* declared volatile */
    CHECK_EQ_INT(vm_make_volatile(p, 4), -1);
    CHECK_EQ_INT(vm_make_volatile(NULL, 0), -1);
    free(before);
    free(after);
    free(want);
    vm_program_free(p);
    vm_program_free(q);
}

/* ---- errors ------------------------------------------------------------ */

static void test_error_format(void)
{
    result r = run("lock l1\nthread main\n    acquire l3\n");
    CHECK(r.p == NULL);
    CHECK_EQ_INT(r.nerr, 1);
    CHECK(strcmp(r.diag, "t.bc:3:13: error: unknown lock 'l3'\n"
                         "    acquire l3\n"
                         "            ^\n") == 0);
    done(&r);
}

static void test_errors_instructions(void)
{
    EXPECT_ERROR("thread main\n  xyz r0\n", "t.bc:2:3: error: unknown instruction 'xyz'");
    EXPECT_ERROR("thread main\n  mov r0, foo\n", "t.bc:2:11: error: unknown name 'foo'");
    EXPECT_ERROR("thread main\n  load r0, foo\n", "t.bc:2:12: error: unknown variable 'foo'");
    EXPECT_ERROR("thread main\n  recv r0, foo\n", "t.bc:2:12: error: unknown channel 'foo'");
    EXPECT_ERROR("thread main\n  spawn r0, foo, 1\n", "t.bc:2:13: error: unknown proc 'foo'");
    EXPECT_ERROR("thread main\n  add r0, r1\n",
                 "t.bc:2:3: error: 'add' expects 3 operands (rd, a, b), got 2");
    EXPECT_ERROR("thread main\n  jmp\n", "t.bc:2:3: error: 'jmp' expects 1 operand (label), got 0");
    EXPECT_ERROR("thread main\n  nop r0\n", "t.bc:2:3: error: 'nop' expects no operands, got 1");
    EXPECT_ERROR("thread main\n  assert r0, \"a\", 1\n",
                 "t.bc:2:3: error: 'assert' expects 1 or 2 operands (a, \"msg\"), got 3");
    EXPECT_ERROR("thread main\n  add r0, r1, r2,\n", "'add' expects 3 operands (rd, a, b), got 4");
    EXPECT_ERROR("thread main\n  mov r0,\n", "t.bc:2:10: error: expected a value, got end of line");
    EXPECT_ERROR("shared x\nthread main\n  acquire x\n",
                 "t.bc:3:11: error: 'x' is a shared variable, expected a lock");
    EXPECT_ERROR("lock m\nthread main\n  load r0, m\n",
                 "t.bc:3:12: error: 'm' is a lock, expected a variable");
    EXPECT_ERROR("thread main\n  mov self, 1\n", "t.bc:2:7: error: expected a register, got 'self'");
    EXPECT_ERROR("thread main\n  recv tid, c\nchan c\n",
                 "t.bc:2:8: error: expected a register, got 'tid'");
    EXPECT_ERROR("thread main\n  mov 3, 1\n", "t.bc:2:7: error: expected a register, got '3'");
    EXPECT_ERROR("const N = 1\nthread main\n  mov N, 1\n",
                 "t.bc:3:7: error: 'N' is a constant, expected a register");
    EXPECT_ERROR("shared x\nthread main\n  add r0, x, 1\n",
                 "t.bc:3:11: error: 'x' is a shared variable, expected a value");
    EXPECT_ERROR("thread main\n  spawn r0, main, 1\n",
                 "t.bc:2:13: error: 'main' is a thread, expected a proc");
    EXPECT_ERROR("const N = 1\nthread main\n  store N, 1\n",
                 "t.bc:3:9: error: cannot store to constant 'N'");
    EXPECT_ERROR("thread main\n  jmp nowhere\n", "t.bc:2:7: error: undefined label 'nowhere'");
    EXPECT_ERROR("thread main\n  mov r16, 1\n", "t.bc:2:7: error: register out of range: 'r16'");
    EXPECT_ERROR("thread main\n  add r0, r1, r99\n", "t.bc:2:15: error: register out of range: 'r99'");
    EXPECT_ERROR("shared a[2]\nthread main\n  load r0, a\n",
                 "t.bc:3:12: error: 'a' is an array and needs an index");
    EXPECT_ERROR("shared x\nthread main\n  load r0, x[0]\n", "t.bc:3:13: error: 'x' is not an array");
    EXPECT_ERROR("lock m\nthread main\n  acquire m[1]\n", "t.bc:3:12: error: 'm' is not an array");
    EXPECT_ERROR("lock m[2]\nthread main\n  release m\n",
                 "t.bc:3:11: error: 'm' is an array and needs an index");
    EXPECT_ERROR("shared a[2]\nthread main\n  load r0, a[1\n", "t.bc:3:15: error: expected ']', got end of line");
    EXPECT_ERROR("thread main\n  assert r0, 5\n", "t.bc:2:14: error: expected a string, got '5'");
    EXPECT_ERROR("thread main\n  mov foo, 1\n", "t.bc:2:7: error: unknown register 'foo'");
    EXPECT_ERROR("thread main\n  mov r01, 1\n", "t.bc:2:7: error: invalid register name 'r01'");
    EXPECT_ERROR("chan c[2]\nthread main\n  send c[1], 1\n",
                 "t.bc:3:9: error: a channel cannot be indexed");
    EXPECT_ERROR("thread main\n  jmp 5\n", "t.bc:2:7: error: expected a label, got '5'");
    EXPECT_ERROR("thread main\n  5 r0\n", "t.bc:2:3: error: expected an instruction, got '5'");
    EXPECT_ERROR("thread main\n  mov r0, -r1\n",
                 "t.bc:2:12: error: 'r1' is not a constant (an expression takes integers and "
                 "consts only)");
}

/* Limits: 256 register slots per body, 65535 instructions with the end. */
static void test_errors_limits(void)
{
    size_t cap = 65536 * 8;
    char *src = malloc(cap);
    strcpy(src, "thread main\n  reg ");
    for (int i = 0; i < 300; i++) sprintf(src + strlen(src), "%sq%d", i ? ", " : "", i);
    strcat(src, "\n");
    for (int i = 0; i < 300; i++) sprintf(src + strlen(src), "  mov q%d, 1\n", i);
    EXPECT_ERROR(src, "t.bc:259:7: error: too many registers in one body (limit 256)");

    strcpy(src, "thread main\n");
    char *w = src + strlen(src);
    for (int i = 0; i < 65534; i++, w += 6) memcpy(w, "  nop\n", 6);
    *w = '\0';
    result r = run(src);
    CHECK(r.p != NULL);
    if (r.p) CHECK_EQ_INT(r.p->bodies[0].ncode, VM_MAX_CODE);
    done(&r);
    strcpy(w, "  nop\n");
    EXPECT_ERROR(src, "t.bc:65536:3: error: 'main' has too many instructions (limit 65535");
    free(src);
}

/* One mistake, one message: no cascades from a broken declaration. */
static void test_no_cascades(void)
{
    result r = run("thread main\n"
                   "thread 5\n"      /* its body is skipped */
                   "  mov r0, nowhere\n"
                   "l: jmp l\n"
                   "shared a[0]\n"   /* a still exists, with size 1 */
                   "thread t\n"
                   "  load r0, a[0]\n"
                   "  jmp l\n");     /* labels are per body */
    CHECK_EQ_INT(r.nerr, 3);
    CHECK_CONTAINS(r.diag, "t.bc:2:8: error: expected a name, got '5'");
    CHECK_CONTAINS(r.diag, "t.bc:5:10: error: array size must be positive, got 0");
    CHECK_CONTAINS(r.diag, "t.bc:8:7: error: undefined label 'l'");
    done(&r);
    EXPECT_ERROR("thread main\n  reg x\nshared y\n  reg z\n",
                 "t.bc:4:3: error: 'reg' outside any thread body");
    EXPECT_ERROR("thread main\nl: const N = 1\n", "t.bc:2:1: error: a declaration cannot have a label");
}

/* Every string and array of the program is its own: the source may go. */
static void test_program_owns_memory(void)
{
    static const char text[] = "shared x = 1 init main\n"
                               "thread main\n"
                               "  reg named\n"
                               "  mov named, 1\n"
                               "  assert named, \"it \\\"holds\\\"\"\n"
                               "  assert r3\n";
    char *buf = malloc(sizeof text);
    memcpy(buf, text, sizeof text);
    result r = run_len(buf, sizeof text - 1, NULL, 0);
    memset(buf, 'X', sizeof text);
    free(buf);
    CHECK(r.p != NULL);
    if (r.p) {
        CHECK(strcmp(r.p->filename, "t.bc") == 0);
        CHECK(strcmp(r.p->vars[0].name, "x") == 0);
        CHECK(strcmp(r.p->bodies[0].name, "main") == 0);
        CHECK(strcmp(r.p->bodies[0].regname[0], "named") == 0);
        CHECK(strcmp(r.p->bodies[0].regname[1], "r3") == 0);
        CHECK(strcmp(insn(r.p, 0, 1)->text, "assert named, \"it \\\"holds\\\"\"") == 0);
        CHECK(strcmp(insn(r.p, 0, 1)->msg, "it \"holds\"") == 0);
        CHECK(strcmp(insn(r.p, 0, 2)->msg, "r3") == 0);
    }
    done(&r);
}

static void test_errors_labels_and_names(void)
{
    EXPECT_ERROR("thread main\nl: nop\n  nop\nl: nop\n", "t.bc:4:1: error: duplicate label 'l'\n"
                                                       "l: nop\n"
                                                       "^\n"
                                                       "t.bc:2:1: note: previous definition is here\n");
    EXPECT_ERROR("shared x\nlock x\nthread main\n", "t.bc:2:6: error: duplicate name 'x'\n"
                                                    "lock x\n"
                                                    "     ^\n"
                                                    "t.bc:1:8: note: previous definition is here\n"
                                                    "shared x\n"
                                                    "       ^\n");
    EXPECT_ERROR("thread main\nproc main\n", "t.bc:2:6: error: duplicate name 'main'");
    EXPECT_ERROR("shared x\nthread main\n  reg x\n", "t.bc:3:7: error: duplicate name 'x'");
    EXPECT_ERROR("thread main\n  reg a, b, a\n", "t.bc:2:13: error: duplicate register 'a'");
    EXPECT_ERROR("thread main\n  reg r3\n", "t.bc:2:7: error: 'r3' is reserved");
    EXPECT_ERROR("shared self\nthread main\n", "t.bc:1:8: error: 'self' is reserved");
    EXPECT_ERROR("lock max\nthread main\n", "t.bc:1:6: error: 'max' is reserved");
    EXPECT_ERROR("mov r0, 1\nthread main\n", "t.bc:1:1: error: instruction outside any thread body");
    EXPECT_ERROR("shared x\n  l: \nthread main\n", "t.bc:2:3: error: label outside any thread body");
    EXPECT_ERROR("shared x\nfoo bar\nthread main\n", "t.bc:2:1: error: expected a declaration, got 'foo'");
    EXPECT_ERROR("shared x\n", "t.bc:1:1: error: no thread in the model");
    EXPECT_ERROR("", "t.bc:1:1: error: no thread in the model");
    EXPECT_ERROR("proc p\n", "t.bc:1:1: error: no thread in the model");
    EXPECT_ERROR("const A = B\nconst B = A\nthread main\n",
                 "t.bc:1:7: error: const 'A' is defined in terms of itself");
    EXPECT_ERROR("const A = Z\nthread main\n", "t.bc:1:11: error: unknown constant 'Z'");
    EXPECT_ERROR("lock m\nshared a[m]\nthread main\n",
                 "t.bc:2:10: error: 'm' is a lock, expected a constant");
    EXPECT_ERROR("shared x init nobody\nthread main\n", "t.bc:1:15: error: unknown thread 'nobody'");
    EXPECT_ERROR("lock m\nshared x init m\nthread main\n",
                 "t.bc:2:15: error: 'm' is a lock, expected a thread or proc");
    EXPECT_ERROR("volatile x init main\nthread main\n",
                 "t.bc:1:12: error: 'init' applies only to shared variables");
}

static void test_errors_declarations(void)
{
    EXPECT_ERROR("shared a[0]\nthread main\n", "t.bc:1:10: error: array size must be positive, got 0");
    EXPECT_ERROR("const N = -2\nlock l[N]\nthread main\n",
                 "t.bc:2:8: error: array size must be positive, got -2");
    EXPECT_ERROR("thread t[0]\n", "t.bc:1:10: error: instance count must be positive, got 0");
    EXPECT_ERROR("chan c[0]\nthread main\n", "t.bc:1:8: error: channel capacity must be 1 .. 255, got 0");
    EXPECT_ERROR("chan c[256]\nthread main\n", "channel capacity must be 1 .. 255, got 256");
    EXPECT_ERROR("proc p max 0\nthread main\n", "t.bc:1:12: error: 'max' must be 1 .. 255, got 0");
    EXPECT_ERROR("shared a[2] = {1, 2, 3}\nthread main\n",
                 "t.bc:1:22: error: too many initializers for 'a' (2 elements)");
    EXPECT_ERROR("shared x = {1, 2}\nthread main\n", "t.bc:1:16: error: too many initializers for 'x'");
    EXPECT_ERROR("shared a[2] = {1 2}\nthread main\n", "t.bc:1:18: error: expected ',' or '}', got '2'");
    EXPECT_ERROR("const N 3\nthread main\n", "t.bc:1:9: error: expected '=', got '3'");
    EXPECT_ERROR("shared\nthread main\n", "t.bc:1:7: error: expected a name, got end of line");
    EXPECT_ERROR("lock m extra\nthread main\n", "t.bc:1:8: error: expected end of line, got 'extra'");
    EXPECT_ERROR("proc p[2]\nthread main\n", "t.bc:1:7: error: a proc is bounded by 'max K'");
    EXPECT_ERROR("thread a[200]\nthread b[50]\nproc c max 6\n",
                 "t.bc:3:6: error: too many threads: 'c' brings the total to 256 (limit 255)");
    EXPECT_ERROR("shared a[5000000]\nthread main\n",
                 "t.bc:1:8: error: the state vector would exceed 16777216 bytes at 'a'");
}

static void test_errors_lexical(void)
{
    EXPECT_ERROR("thread main\n  mov r0, 12ab\n", "t.bc:2:11: error: invalid integer '12ab'");
    EXPECT_ERROR("thread main\n  mov r0, 0x\n", "t.bc:2:11: error: invalid integer '0x'");
    EXPECT_ERROR("thread main\n  mov r0, 0x100000000\n", "t.bc:2:11: error: invalid integer '0x100000000'");
    EXPECT_ERROR("thread main\n  mov r0, 2147483648\n", "t.bc:2:11: error: invalid integer '2147483648'");
    EXPECT_ERROR("thread main\n  mov r0, -2147483649\n", "t.bc:2:11: error: invalid integer '-2147483649'");
    EXPECT_ERROR("const N = 0x1g\nthread main\n", "t.bc:1:11: error: invalid integer '0x1g'");
    EXPECT_ERROR("thread main\n  assert r0, \"abc\n", "t.bc:2:14: error: unterminated string");
    EXPECT_ERROR("thread main\n  assert r0, \"a\\n\"\n", "t.bc:2:16: error: invalid escape in string");
    EXPECT_ERROR("thread main\n  mov r0, 1 & 2\n", "t.bc:2:13: error: unexpected character '&'");
}

static void test_binary_garbage(void)
{
    static const char src[] = "thread main\n"
                              "  mov r0,\0 1\0\0\n"
                              "\x01\x02\x03\n"
                              "  nop ; \xff\xfe comment bytes are fine\n"
                              "  mov r1, \xc3\xa9\n"
                              "\0\0\0\0";
    result r = run_len(src, sizeof src - 1, NULL, 0);
    CHECK(r.p == NULL);
    CHECK_EQ_INT(r.nerr, 4);
    CHECK_CONTAINS(r.diag, "t.bc:2:10: error: unexpected character 0x00\n");
    CHECK_CONTAINS(r.diag, "  mov r0,? 1??\n");
    CHECK_CONTAINS(r.diag, "t.bc:3:1: error: unexpected character 0x01\n");
    CHECK_CONTAINS(r.diag, "t.bc:5:11: error: unexpected character 0xc3\n");
    CHECK_CONTAINS(r.diag, "t.bc:6:1: error: unexpected character 0x00\n");
    done(&r);

    /* every byte value, in every position of a short line */
    char buf[64];
    for (int ch = 0; ch < 256; ch++) {
        int len = snprintf(buf, sizeof buf, "thread main\n  mov r0, 1");
        for (int at = 12; at < len; at++) {
            char save = buf[at];
            buf[at] = (char)ch;
            r = run_len(buf, (size_t)len, NULL, 0);
            done(&r);
            buf[at] = save;
        }
    }
}

/* The input is not NUL-terminated: the last byte is the last read. */
static void test_unterminated_buffer(void)
{
    static const char text[] = "thread main\n  jmp l\nl: nop";
    char *buf = malloc(sizeof text - 1);
    memcpy(buf, text, sizeof text - 1);
    result r = run_len(buf, sizeof text - 1, NULL, 0);
    CHECK(r.p != NULL);
    if (r.p) CHECK_EQ_INT(r.p->bodies[0].ncode, 3);
    done(&r);
    r = run_len(buf, sizeof text - 3, NULL, 0); /* "l: n" */
    CHECK_CONTAINS(r.diag, "t.bc:3:4: error: unknown instruction 'n'");
    done(&r);
    free(buf);
    r = run_len(NULL, 0, NULL, 0);
    CHECK_CONTAINS(r.diag, "no thread in the model");
    done(&r);
}

static void test_several_errors(void)
{
    result r = run("shared x\n"
                   "thread main\n"
                   "  mov r0, nope\n"
                   "  frob\n"
                   "  acquire x\n"
                   "  jmp l\n"
                   "shared y[0]\n");
    CHECK(r.p == NULL);
    CHECK_EQ_INT(r.nerr, 5);
    const char *a = strstr(r.diag, "t.bc:3:11: error: unknown name 'nope'");
    const char *b = strstr(r.diag, "t.bc:4:3: error: unknown instruction 'frob'");
    const char *c = strstr(r.diag, "t.bc:5:11: error: 'x' is a shared variable, expected a lock");
    const char *d = strstr(r.diag, "t.bc:6:7: error: undefined label 'l'");
    const char *e = strstr(r.diag, "t.bc:7:10: error: array size must be positive, got 0");
    CHECK(a && b && c && d && e);
    CHECK(a < b && b < c && c < d && d < e); /* in source order */
    done(&r);
}

static void test_error_cap(void)
{
    char src[1024] = "thread main\n";
    for (int i = 0; i < 25; i++) strcat(src, "  bogus\n");
    result r = run(src);
    CHECK(r.p == NULL);
    CHECK_EQ_INT(r.nerr, 25);
    int shown = 0;
    for (const char *s = r.diag; (s = strstr(s, ": error: ")) != NULL; s++) shown++;
    CHECK_EQ_INT(shown, 20);
    CHECK_CONTAINS(r.diag, "t.bc:21:3: error: unknown instruction 'bogus'");
    CHECK(strstr(r.diag, "t.bc:22:3:") == NULL);
    const char *last = "t.bc: too many errors, stopping\n";
    size_t n = strlen(r.diag), m = strlen(last);
    CHECK(n >= m && strcmp(r.diag + n - m, last) == 0);
    done(&r);
}

/* "did you mean": a note at the misspelled name when a candidate in scope is
 * within Damerau-Levenshtein distance 2 and a third of the name's length. */
static void expect_no_suggestion(int line, const char *src)
{
    result r = run(src);
    if (r.p || r.nerr < 1) test_fail(__FILE__, line, "assembly fails");
    if (strstr(r.diag, "did you mean")) test_fail(__FILE__, line, "no suggestion");
    done(&r);
}

static void test_did_you_mean(void)
{
    EXPECT_ERROR("lock fork[2]\nthread main\n  aquire fork[0]\n",
                 "t.bc:3:3: error: unknown instruction 'aquire'\n"
                 "  aquire fork[0]\n"
                 "  ^\n"
                 "t.bc:3:3: note: did you mean 'acquire'?\n"
                 "  aquire fork[0]\n"
                 "  ^\n");
    EXPECT_ERROR("thread main\nagain:\n  jmp agian\n",
                 "t.bc:3:7: error: undefined label 'agian'\n"
                 "  jmp agian\n"
                 "      ^\n"
                 "t.bc:3:7: note: did you mean 'again'?\n");
    EXPECT_ERROR("lock fork[2]\nthread main\n  acquire frok[0]\n",
                 "t.bc:3:11: error: unknown lock 'frok'\n"
                 "  acquire frok[0]\n"
                 "          ^\n"
                 "t.bc:3:11: note: did you mean 'fork'?\n");
    EXPECT_ERROR("shared count\nthread main\n  load r0, cuont\n",
                 "t.bc:3:12: error: unknown variable 'cuont'\n"
                 "  load r0, cuont\n"
                 "           ^\n"
                 "t.bc:3:12: note: did you mean 'count'?\n");
    EXPECT_ERROR("proc worker max 1\nthread main\n  spawn r0, wroker, 1\nproc worker\n",
                 "note: did you mean 'worker'?\n");
    EXPECT_ERROR("thread main\n  reg left\n  mov lfet, 1\n",
                 "t.bc:3:7: error: unknown register 'lfet'\n"
                 "  mov lfet, 1\n"
                 "      ^\n"
                 "t.bc:3:7: note: did you mean 'left'?\n");
    EXPECT_ERROR("const LIMIT = 3\nthread main\n  mov r0, LIMTI\n",
                 "t.bc:3:11: error: unknown name 'LIMTI'\n"
                 "  mov r0, LIMTI\n"
                 "          ^\n"
                 "t.bc:3:11: note: did you mean 'LIMIT'?\n");
    EXPECT_ERROR("const LIMIT = 3\nconst M = LIMT + 1\nthread main\n",
                 "t.bc:2:11: error: unknown constant 'LIMT'\n"
                 "const M = LIMT + 1\n"
                 "          ^\n"
                 "t.bc:2:11: note: did you mean 'LIMIT'?\n");
    EXPECT_ERROR("shared x init mian\nthread main\n",
                 "t.bc:1:15: error: unknown thread 'mian'\n"
                 "shared x init mian\n"
                 "              ^\n"
                 "t.bc:1:15: note: did you mean 'main'?\n");
    /* ties: the first declared */
    EXPECT_ERROR("lock abcd\nlock abce\nthread main\n  acquire abcf\n",
                 "note: did you mean 'abcd'?\n");
    /* the closest wins over the first */
    EXPECT_ERROR("lock abcxyz\nlock abcdez\nthread main\n  acquire abcdef\n",
                 "note: did you mean 'abcdez'?\n");
    /* too far: more than 2 edits, or more than a third of the name's length */
    expect_no_suggestion(__LINE__, "thread main\n  xyz r0\n");
    expect_no_suggestion(__LINE__, "lock ab\nthread main\n  acquire ba\n");
    expect_no_suggestion(__LINE__, "lock fork\nthread main\n  acquire spoon\n");
    expect_no_suggestion(__LINE__, "lock forks\nthread main\n  acquire kfors\n");
    /* only names of the kind wanted: a lock does not answer for a variable */
    expect_no_suggestion(__LINE__, "lock count\nthread main\n  load r0, cuont\n");
}

/* An error caused by a -D value says so in a note at the const. */
static void test_define_blamed(void)
{
    static const char src[] = "const N = 5\n"
                              "lock fork[N]\n"
                              "thread main\n";
    vm_define zero[] = {{"N", 0}};
    result r = run_len(src, strlen(src), zero, 1);
    CHECK(r.p == NULL);
    CHECK_CONTAINS(r.diag, "t.bc:2:11: error: array size must be positive, got 0\n"
                           "lock fork[N]\n"
                           "          ^\n"
                           "t.bc:1:7: note: 'N' is 0 from the command line (-D N=0)\n"
                           "const N = 5\n"
                           "      ^\n");
    done(&r);

    /* through another const, and in a division by zero */
    static const char src2[] = "const N = 5\n"
                               "const M = N - 1\n"
                               "const Q = 10 / M\n"
                               "chan c[M]\n"
                               "thread main\n";
    vm_define one[] = {{"N", 1}};
    r = run_len(src2, strlen(src2), one, 1);
    CHECK(r.p == NULL);
    CHECK_CONTAINS(r.diag, "t.bc:3:14: error: division by zero in a constant expression\n"
                           "const Q = 10 / M\n"
                           "             ^\n"
                           "t.bc:1:7: note: 'N' is 1 from the command line (-D N=1)\n");
    CHECK_CONTAINS(r.diag, "t.bc:4:8: error: channel capacity must be 1 .. 255, got 0\n"
                           "chan c[M]\n"
                           "       ^\n"
                           "t.bc:1:7: note: 'N' is 1 from the command line (-D N=1)\n");
    done(&r);

    /* in an operand */
    static const char src5[] = "const N = 1\nshared a[2]\nthread main\n  load r0, a[1/N]\n";
    r = run_len(src5, strlen(src5), zero, 1);
    CHECK(r.p == NULL);
    CHECK_CONTAINS(r.diag, "t.bc:4:15: error: division by zero in a constant expression\n"
                           "  load r0, a[1/N]\n"
                           "              ^\n"
                           "t.bc:1:7: note: 'N' is 0 from the command line (-D N=0)\n");
    done(&r);

    /* limits: too many threads, a state vector too large */
    vm_define big[] = {{"N", 100000000}};
    static const char src3[] = "const N = 2\nthread t[N]\n";
    r = run_len(src3, strlen(src3), big, 1);
    CHECK(r.p == NULL);
    CHECK_CONTAINS(r.diag, "t.bc:2:8: error: too many threads: 't' brings the total to "
                           "100000000 (limit 255)\n"
                           "thread t[N]\n"
                           "       ^\n"
                           "t.bc:1:7: note: 'N' is 100000000 from the command line "
                           "(-D N=100000000)\n");
    done(&r);
    static const char src4[] = "const N = 2\nshared a[N]\nthread t\n";
    r = run_len(src4, strlen(src4), big, 1);
    CHECK(r.p == NULL);
    CHECK_CONTAINS(r.diag, "t.bc:2:8: error: the state vector would exceed 16777216 bytes at "
                           "'a'\n"
                           "shared a[N]\n"
                           "       ^\n"
                           "t.bc:1:7: note: 'N' is 100000000 from the command line "
                           "(-D N=100000000)\n");
    done(&r);

    /* the same error from the file itself gets no note */
    r = run_len("const N = 0\nlock fork[N]\nthread main\n", 36, NULL, 0);
    CHECK(r.p == NULL);
    CHECK(strstr(r.diag, "command line") == NULL);
    done(&r);
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
