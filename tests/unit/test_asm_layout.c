/* test_asm_layout.c: assembler tests (part of test_asm) for the state layout
 * and initial state, -D overrides, comma lists, constant expressions, spawn
 * slots, a whole model (philosophers), the dump (vm/dump.c) and
 * vm_make_volatile: layout offsets and initial values are compared
 * with values worked out by hand. */
#include "test_asm_int.h"

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

void test_layout(void)
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

/* A cond element is a wait set of wsbytes after the locks (only in a model
 * that declares one); cwait names its cond in cond + cidx and its lock in
 * obj + idx; a cwait saves no lock depth in the thread slot. */
void test_layout_conds(void)
{
    vm_program *p = ASSEMBLE("lock m[2]\ncond c, cv[3]\nchan ch\nthread t[9]\n"
                             "  acquire m[1]\n  cwait cv[self], m[1]\n  csignal c\n"
                             "  cbroadcast cv[2]\n");
    if (!p) return;
    CHECK_EQ_INT(p->layout.wsbytes, 2);        /* 9 threads */
    CHECK_EQ_INT(p->layout.locks_off, 0);
    CHECK_EQ_INT(p->layout.conds_off, 10);     /* 2 locks * (3 + 2) */
    CHECK_EQ_INT(p->nconddecls, 2);
    CHECK_EQ_INT(p->nconds, 4);
    CHECK_EQ_INT(p->conddecls[1].first, 1);
    CHECK_EQ_INT(vm_cond_off(p, 3), 16);
    CHECK_EQ_INT(p->chans[0].offset, 18);      /* 10 + 4 conds * 2 */
    CHECK_EQ_INT(p->threads[0].depth_off, 0);  /* cwait: no saved depth */
    const vm_insn *w = &p->bodies[0].code[1];
    CHECK_EQ_INT(w->op, VM_OP_cwait);
    CHECK_EQ_INT(w->obj, 0);                   /* lock m */
    CHECK_EQ_INT(w->idx.val, 1);
    CHECK_EQ_INT(w->cond, 1);                  /* cond cv */
    CHECK_EQ_INT(w->cidx.kind, VM_ARG_SELF);
    CHECK(w->visible);
    CHECK_EQ_INT(p->bodies[0].code[2].cond, 0);
    CHECK_EQ_INT(p->bodies[0].code[3].cidx.val, 2);
    char buf[32];
    vm_cond_name(p, 2, buf, sizeof buf);
    CHECK(strcmp(buf, "cv[1]") == 0);
    vm_program_free(p);
    /* no cond: no bytes for conds (the layout of every older model) */
    p = ASSEMBLE("lock m\nthread t\n  acquire m\n");
    if (!p) return;
    CHECK_EQ_INT(p->nconds, 0);
    CHECK_EQ_INT(p->layout.size, 4 + 1 + 3);
    vm_program_free(p);
}

void test_initial_state(void)
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

void test_define_override(void)
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
void test_comma_lists(void)
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
void test_constant_expressions(void)
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

void test_spawn_slots(void)
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

void test_philosophers(void)
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

void test_dump(void)
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

void test_make_volatile(void)
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
