/* progress.c: vm_mark_progress(), the visibility of progress labels for
 * mcheck --liveness=npc (reduce/liveness/liveness.c). A non-progress cycle is defined
 * by the steps that execute a `progress*`-labelled instruction; a composed
 * step (Stoller's C(M) transition) runs only through invisible instructions
 * after its first, so marking these visible makes "the step executes a
 * progress instruction" the same as "its first instruction is one", under
 * the reduction as without it. More visible control points keep Stoller's
 * reduction sound (only more scheduling points). Not done by the assembler:
 * LANGUAGE.md fixes the default search's counts, so only --liveness calls it. */
#include "vm.h"

uint32_t vm_mark_progress(vm_program *p)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < p->nbodies; b++) {
        vm_body *body = &p->bodies[b];
        for (uint32_t pc = 0; pc < body->ncode; pc++)
            if (body->code[pc].progress_label) { /* (never in a block: asm_block.c) */
                body->code[pc].visible = 1;
                n++;
            }
    }
    return n;
}
