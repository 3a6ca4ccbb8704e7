/* test_asm_int.h: what the test_asm executable's files share (test_asm.c,
 * test_asm_layout.c, test_asm_errors.c): the assembly helpers that capture
 * diagnostics with open_memstream, and the test cases main() runs. */
#ifndef MCHECK_TEST_ASM_INT_H
#define MCHECK_TEST_ASM_INT_H

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

static inline result run_len(const char *src, size_t len, const vm_define *defs, size_t ndefs)
{
    result r = {0};
    size_t n = 0;
    FILE *d = open_memstream(&r.diag, &n);
    r.p = vm_assemble("t.bc", src, len, defs, ndefs, d, &r.nerr);
    fclose(d);
    return r;
}

static inline result run(const char *src) { return run_len(src, strlen(src), NULL, 0); }

static inline void done(result *r)
{
    vm_program_free(r->p);
    free(r->diag);
}

/* The program, or NULL after reporting the diagnostics as a failure. */
static inline vm_program *assemble_ok(const char *file, int line, const char *src)
{
    result r = run(src);
    if (!r.p) {
        fprintf(stderr, "%s", r.diag);
        test_fail(file, line, "model assembles");
    } else if (r.nerr != 0 || r.diag[0]) {
        test_fail(file, line, "no diagnostics for a good model");
    }
    free(r.diag);
    return r.p;
}
#define ASSEMBLE(src) assemble_ok(__FILE__, __LINE__, src)

/* Assembly fails and the diagnostics contain `needle` (e.g. "t.bc:3:5: error: ..."). */
static inline void expect_error(const char *file, int line, const char *src,
                                const char *needle)
{
    result r = run(src);
    if (r.p || r.nerr < 1) test_fail(file, line, "assembly fails");
    if (!strstr(r.diag, needle)) {
        char b[2048];
        snprintf(b, sizeof b, "expected \"%s\" in:\n%s", needle, r.diag);
        test_fail(file, line, b);
    }
    done(&r);
}
#define EXPECT_ERROR(src, needle) expect_error(__FILE__, __LINE__, src, needle)

static inline const vm_insn *insn(const vm_program *p, uint32_t body, uint32_t pc)
{
    return &p->bodies[body].code[pc];
}

static inline bool operand_is(vm_operand o, int kind, int32_t val)
{
    return o.kind == kind && o.val == val;
}

/* test_asm.c: declarations and instructions */
void test_declarations(void);
void test_integers(void);
void test_documented_choices(void);
void test_every_instruction(void);
void test_register_slots(void);
void test_labels(void);
void test_bodies(void);

/* test_asm_layout.c: layout, initial state, -D, constant expressions, dump, make_volatile */
void test_layout(void);
void test_layout_conds(void);
void test_initial_state(void);
void test_define_override(void);
void test_comma_lists(void);
void test_constant_expressions(void);
void test_spawn_slots(void);
void test_philosophers(void);
void test_dump(void);
void test_make_volatile(void);

/* test_asm_errors.c: diagnostics, robustness, did-you-mean, -D blame */
void test_error_format(void);
void test_errors_instructions(void);
void test_atomic_blocks(void);
void test_errors_calls(void);
void test_errors_labels_and_names(void);
void test_errors_declarations(void);
void test_errors_lexical(void);
void test_errors_limits(void);
void test_no_cascades(void);
void test_program_owns_memory(void);
void test_binary_garbage(void);
void test_unterminated_buffer(void);
void test_several_errors(void);
void test_error_cap(void);
void test_did_you_mean(void);
void test_define_blamed(void);

#endif
