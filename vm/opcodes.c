/* opcodes.c: the opcode table, generated from opcodes.def. */
#include "vm.h"

const vm_opinfo vm_ops[VM_OP_COUNT] = {
#define OP(name, fmt, flags, doc) [VM_OP_##name] = {#name, fmt, flags, doc},
#include "opcodes.def"
#undef OP
};
