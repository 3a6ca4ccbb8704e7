/* fuzz_assemble.c: libFuzzer target for the assembler. Any byte string is a
 * model: vm_assemble() must answer with a program or with diagnostics, never
 * crash, leak or read out of bounds. An assembled program is also dumped
 * (mcheck --dump), which walks every table the assembler built.
 * Built only with -DMCHECK_FUZZ=ON (clang); tests/fuzz/run.sh runs it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull(void)
{
    static FILE *f; /* one handle for the whole run: libFuzzer calls us millions of times */
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *null = devnull();
    int nerr = 0;
    vm_program *p = vm_assemble("fuzz.bc", (const char *)data, size, NULL, 0, null, &nerr);
    if (p) {
        if (nerr != 0) __builtin_trap(); /* a program is returned only without errors */
        vm_dump(p, null);
        vm_program_free(p);
    } else if (nerr == 0) {
        __builtin_trap(); /* NULL without an error reported */
    }
    return 0;
}
