/* adapt.c: vm_make_volatile(), reclassifying a global after assembly
 * (mcheck --adapt).
 *
 * The result must be the program the assembler would have built had the
 * variable been declared `volatile`: the class changes, the `init T` clause
 * goes (the assembler accepts it only on shared variables), and every load
 * and store naming the variable becomes visible, as parse_indexed() in
 * assemble.c marks them. Nothing else depends on the class: the layout and
 * the initial state are the same for every class, and the interpreter and
 * the detectors read the class and the visible flags when they run. */
#include "vm.h"

int vm_make_volatile(vm_program *p, uint32_t var)
{
    if (!p || var >= p->nvars) return -1;
    vm_var *v = &p->vars[var];
    if (v->cls == VM_VOLATILE) return 0;
    v->cls = VM_VOLATILE;
    v->init_body = -1;
    int changed = 0;
    for (uint32_t b = 0; b < p->nbodies; b++) {
        vm_body *body = &p->bodies[b];
        for (uint32_t pc = 0; pc < body->ncode; pc++) {
            vm_insn *in = &body->code[pc];
            if (!(vm_ops[in->op].flags & VM_F_MEM) || in->obj != (int32_t)var) continue;
            if (in->in_block) continue; /* the block is one step already */
            if (!in->visible) changed++;
            in->visible = 1;
        }
    }
    return changed;
}
