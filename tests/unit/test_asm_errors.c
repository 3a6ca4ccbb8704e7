/* test_asm_errors.c: assembler tests (part of test_asm) for diagnostics:
 * every assembly error is provoked and its position and message checked;
 * limits, no cascades, the error cap, "did you mean" notes and errors blamed
 * on -D values; binary garbage and unterminated input must give errors, not
 * crashes; a program owns its memory once the source is gone. */
#include "test_asm_int.h"

/* ---- errors ------------------------------------------------------------ */

void test_error_format(void)
{
    result r = run("lock l1\nthread main\n    acquire l3\n");
    CHECK(r.p == NULL);
    CHECK_EQ_INT(r.nerr, 1);
    CHECK(strcmp(r.diag, "t.bc:3:13: error: unknown lock 'l3'\n"
                         "    acquire l3\n"
                         "            ^\n") == 0);
    done(&r);
}

void test_errors_instructions(void)
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
    /* pthread condition variables (issue 30) */
    EXPECT_ERROR("lock m\ncond c\nthread main\n  cwait m, c\n",
                 "t.bc:4:9: error: 'm' is a lock, expected a condition variable");
    EXPECT_ERROR("lock m\ncond c\nthread main\n  cwait c, c\n",
                 "t.bc:4:12: error: 'c' is a condition variable, expected a lock");
    EXPECT_ERROR("lock m\ncond c\nthread main\n  cwait c\n",
                 "t.bc:4:3: error: 'cwait' expects 2 operands (c, lk), got 1");
    EXPECT_ERROR("cond c\nthread main\n  csignal d\n",
                 "t.bc:3:11: error: unknown condition variable 'd'");
    EXPECT_ERROR("lock m\ncond c\nthread main\n  cbroadcast c, m\n",
                 "t.bc:4:3: error: 'cbroadcast' expects 1 operand (c), got 2");
    EXPECT_ERROR("lock m\nthread main\n  csignal m\n",
                 "t.bc:3:11: error: 'm' is a lock, expected a condition variable");
    EXPECT_ERROR("cond c\nthread main\n  acquire c\n",
                 "t.bc:3:11: error: 'c' is a condition variable, expected a lock");
    EXPECT_ERROR("cond cv[2]\nthread main\n  csignal cv\n",
                 "t.bc:3:11: error: 'cv' is an array and needs an index");
    EXPECT_ERROR("cond c\nthread main\n  reg cond\n",
                 "'cond' is reserved and cannot be used as a name");
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
void test_errors_limits(void)
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
void test_no_cascades(void)
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
    /* a declaration inside a body ends it: said once, at the declaration */
    r = run("thread main\n  reg x\nshared y\n  reg z\n  mov z, 1\n");
    CHECK_EQ_INT(r.nerr, 1);
    CHECK_CONTAINS(r.diag, "t.bc:3:1: error: 'shared' inside the body of thread main: a "
                           "declaration ends a body, so its lines after it are outside any body; "
                           "declare it before the body");
    done(&r);
    r = run("volatile x\nthread t\n    reg a\n    const K = 3\n    load a, x\n");
    CHECK_EQ_INT(r.nerr, 1);
    CHECK_CONTAINS(r.diag, "t.bc:4:5: error: 'const' inside the body of thread t");
    done(&r);
    /* between bodies a declaration is fine; a stray line after one is not */
    r = run("thread main\n  nop\nshared y\nthread u\n  nop\n");
    CHECK(r.p != NULL && r.nerr == 0);
    done(&r);
    EXPECT_ERROR("shared y\n  reg z\nthread u\n", "t.bc:2:3: error: 'reg' outside any thread body");
    /* a bad name in a reg list: that name only, the others declared */
    r = run("volatile x\nthread t\n    reg r, r1, c\n    load r1, x\n    add c, r1, 1\n"
            "    store x, c\n");
    CHECK_EQ_INT(r.nerr, 1);
    CHECK_CONTAINS(r.diag, "t.bc:3:12: error: 'r1' is reserved and cannot be used as a name");
    done(&r);
    EXPECT_ERROR("thread main\nl: const N = 1\n", "t.bc:2:1: error: a declaration cannot have a label");
}

/* Every string and array of the program is its own: the source may go. */
void test_program_owns_memory(void)
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

void test_errors_labels_and_names(void)
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

void test_errors_declarations(void)
{
    EXPECT_ERROR("shared a[0]\nthread main\n", "t.bc:1:10: error: array size must be positive, got 0");
    EXPECT_ERROR("const N = -2\nlock l[N]\nthread main\n",
                 "t.bc:2:8: error: array size must be positive, got -2");
    EXPECT_ERROR("thread t[0]\n", "t.bc:1:10: error: instance count must be positive, got 0");
    EXPECT_ERROR("chan c[-1]\nthread main\n", "t.bc:1:8: error: channel capacity must be 0 .. 255, got -1");
    EXPECT_ERROR("chan c[256]\nthread main\n", "channel capacity must be 0 .. 255, got 256");
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

void test_errors_lexical(void)
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

void test_binary_garbage(void)
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
void test_unterminated_buffer(void)
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

void test_several_errors(void)
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

void test_error_cap(void)
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

void test_did_you_mean(void)
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
void test_define_blamed(void)
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
                               "chan c[M - 1]\n"
                               "thread main\n";
    vm_define one[] = {{"N", 1}};
    r = run_len(src2, strlen(src2), one, 1);
    CHECK(r.p == NULL);
    CHECK_CONTAINS(r.diag, "t.bc:3:14: error: division by zero in a constant expression\n"
                           "const Q = 10 / M\n"
                           "             ^\n"
                           "t.bc:1:7: note: 'N' is 1 from the command line (-D N=1)\n");
    CHECK_CONTAINS(r.diag, "t.bc:4:8: error: channel capacity must be 0 .. 255, got -1\n"
                           "chan c[M - 1]\n"
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

/* ---- atomic blocks (asm_block.c) ---------------------------------------- */

void test_atomic_blocks(void)
{
    /* a block: in_block after the `atomic` up to its end, never visible;
     * the hidden lock (atomic) after the model's own; a = the end's pc,
     * b = 1 for a guarded block */
    const char *src = "lock m\nvolatile v\nthread t\n  atomic\n  load r0, v\n  assume r0\n"
                      "  acquire m\n  release m\n  end_atomic\n  nop\n";
    result r = run("lock m\nvolatile v\nthread t\n  atomic\n  acquire m\n  load r0, v\n  assume r0\n"
                   "  release m\n  end_atomic\n  nop\n");
    CHECK(r.p != NULL);
    if (r.p) {
        const vm_program *p = r.p;
        CHECK_EQ_INT(p->nlockdecls, 2);
        CHECK_EQ_INT(p->nlocks, 2);
        CHECK(strcmp(p->lockdecls[1].name, "(atomic)") == 0);
        const vm_insn *a = insn(p, 0, 0);
        CHECK(a->op == VM_OP_atomic && a->visible && !a->in_block && a->obj == 1);
        CHECK(operand_is(a->a, VM_ARG_IMM, 5) && operand_is(a->b, VM_ARG_IMM, 1));
        for (uint32_t pc = 1; pc <= 5; pc++) CHECK(insn(p, 0, pc)->in_block && !insn(p, 0, pc)->visible);
        CHECK(insn(p, 0, 5)->op == VM_OP_end_atomic && insn(p, 0, 5)->obj == 1);
        CHECK(!insn(p, 0, 6)->in_block);
    }
    done(&r);
    /* without a block, no hidden lock: the layout stays the model's */
    r = run("lock m\nthread t\n  assume 1\n");
    CHECK(r.p && r.p->nlocks == 1 && r.p->nlockdecls == 1);
    done(&r);
    /* blocking past the first instruction */
    EXPECT_ERROR(src, "t.bc:7:3: error: an instruction that may block inside an atomic block must be its first");
    EXPECT_ERROR(src, "t.bc:4:3: note: the block starts here");
    EXPECT_ERROR("thread t\n  atomic\n  nop\n  choose r0, 0, 1\n  end_atomic\n",
                 "t.bc:4:3: error: an instruction with several outcomes inside an atomic block must be its first");
    EXPECT_ERROR("lock m\nthread t\n  acquire m\n  atomic\n  wait m\n  end_atomic\n",
                 "t.bc:5:3: error: 'wait' inside an atomic block (it gives its lock up and waits)");
    EXPECT_ERROR("lock m\ncond c\nthread t\n  acquire m\n  atomic\n  cwait c, m\n  end_atomic\n",
                 "t.bc:6:3: error: 'cwait' inside an atomic block (it gives its lock up and waits)");
    EXPECT_ERROR("thread t\n  atomic\n  end\n  end_atomic\n",
                 "t.bc:3:3: error: 'end' inside an atomic block (the thread would end holding it)");
    EXPECT_ERROR("thread t\n  atomic\n  atomic\n  end_atomic\n", "t.bc:3:3: error: atomic blocks do not nest");
    /* a rendezvous is a step of two threads: not in a block, even first;
     * a buffered channel's send may be a block's first instruction */
    EXPECT_ERROR("chan c[0]\nthread t\n  atomic\n  send c, 1\n  end_atomic\n",
                 "t.bc:4:3: error: a rendezvous inside an atomic block (it is a step of two threads)");
    EXPECT_ERROR("chan c[0]\nthread t\n  reg v\n  atomic\n  nop\n  recv v, c\n  end_atomic\n",
                 "t.bc:6:3: error: a rendezvous inside an atomic block (it is a step of two threads)");
    r = run("chan c[1]\nthread t\n  atomic\n  send c, 1\n  end_atomic\n");
    CHECK(r.p != NULL);
    done(&r);
    /* the step that runs a rendezvous recv is its sender's */
    EXPECT_ERROR("chan c[0]\nthread t\n  reg v\nprogress_got:\n  recv v, c\n",
                 "t.bc:4:1: error: a progress label at a rendezvous 'recv' (the sender's step runs it): put the label on the instruction after it");
    r = run("chan c[0]\nthread t\n  reg v\nend_idle:\n  recv v, c\nprogress_got:\n  nop\n");
    CHECK(r.p != NULL && r.p->chans[0].cap == 0);
    done(&r);
    EXPECT_ERROR("thread t\n  atomic\n  call f\n  end_atomic\n  end\nf:\n  ret\n",
                 "t.bc:3:3: error: a subroutine call or return inside an atomic block (control would leave it)");
    EXPECT_ERROR("thread t\n  atomic\n  nop\n", "t.bc:2:3: error: 'atomic' without 'end_atomic'");
    EXPECT_ERROR("thread t\n  nop\n  end_atomic\n", "t.bc:3:3: error: 'end_atomic' without 'atomic'");
    EXPECT_ERROR("thread t\n  atomic\n  jmp out\n  end_atomic\nout:\n  nop\n",
                 "t.bc:3:3: error: a jump out of an atomic block");
    EXPECT_ERROR("thread t\n  jz r0, in\n  atomic\nin:\n  nop\n  end_atomic\n",
                 "t.bc:2:3: error: a jump into an atomic block (jump to its 'atomic' instead)");
    EXPECT_ERROR("chan c\nthread t\n  atomic\nfirst:\n  recv r0, c\n  jmp first\n  end_atomic\n",
                 "t.bc:6:3: error: a jump back to the first instruction of an atomic block, which may block or choose");
    EXPECT_ERROR("thread t\n  atomic\nend_here:\n  nop\n  end_atomic\n",
                 "t.bc:3:1: error: an 'end' label inside an atomic block: no thread stands there");
    /* jumps inside a block, to its end included, are fine; so is a loop back
     * to a first instruction that neither blocks nor chooses */
    r = run("volatile v\nthread t\n  atomic\nagain:\n  load r0, v\n  jz r0, out\n  sub r0, r0, 1\n"
            "  store v, r0\n  jmp again\nout:\n  end_atomic\n");
    CHECK(r.p != NULL);
    done(&r);
}

/* Subroutines: `call` to an undefined label, `stack N` not first or out of
 * range, a `ret` no `call` reaches (statically: it always finds the stack
 * empty). */
void test_errors_calls(void)
{
    EXPECT_ERROR("thread main\n  call nowhere\n", "t.bc:2:8: error: undefined label 'nowhere'");
    EXPECT_ERROR("thread main\n  nop\n  stack 2\n",
                 "t.bc:3:3: error: 'stack' must be the first line of the body of 'main'");
    EXPECT_ERROR("thread main\n  reg a\n  stack 2\n",
                 "t.bc:3:3: error: 'stack' must be the first line of the body of 'main'");
    EXPECT_ERROR("thread main\n  stack 0\n  call s\ns: ret\n",
                 "t.bc:2:9: error: stack depth 0 out of range (1 .. 255)");
    EXPECT_ERROR("thread main\n  stack 256\n", "t.bc:2:9: error: stack depth 256 out of range");
    EXPECT_ERROR("thread main\n  stack\n", "t.bc:2:8: error: expected a stack depth, got end of line");
    EXPECT_ERROR("thread main\n  stack 2, 3\n", "t.bc:2:10: error: expected end of line, got ','");
    EXPECT_ERROR("thread main\nl: stack 2\n", "t.bc:2:1: error: a 'stack' line cannot have a label");
    EXPECT_ERROR("thread main\n  nop\n  ret\n",
                 "t.bc:3:3: error: 'ret' in a body without a 'call'");
    EXPECT_ERROR("thread main\n  call s\n  end\n  ret\ns:\n  ret\n",
                 "t.bc:4:3: error: 'ret' that no 'call' reaches");
    EXPECT_ERROR("stack 2\nthread main\n", "t.bc:1:1: error: expected a declaration");
    /* a subroutine of another body is not visible: labels are per body */
    EXPECT_ERROR("thread a\ns:\n  ret\nthread b\n  call s\n",
                 "t.bc:3:3: error: 'ret' in a body without a 'call'");
    /* a const depth; `stack N` in a body without a call reserves nothing */
    result r = run("const D = 3\nthread main\n  stack D\n  call s\ns:\n  ret\n"
                   "thread other\n  stack 4\n  nop\n");
    CHECK(r.p != NULL);
    if (r.p) {
        CHECK_EQ_INT(r.p->bodies[0].stack, 3);
        CHECK_EQ_INT(r.p->bodies[1].stack, 0);
        CHECK_EQ_INT(r.p->threads[1].stack_off, 0);
    }
    done(&r);
}
