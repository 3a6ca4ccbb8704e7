/* model_load.c: a model made ready for a run, one way for the search
 * (mcheck.c) and for --replay (replay_read.c): the file read, assembled
 * with the -D overrides, spurious wakeups set, and what the options make
 * visible marked: progress labels for --liveness (vm/progress.c), the
 * props' points for --ltl (vm/props.c), whose formula is translated
 * (reduce/liveness/ltl.c). Also whether the model loops, for the note
 * before a search that stores no state. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"

int model_load(const model_request *rq, vm_program **pp, ltl_automaton **ltl, char *err, size_t n,
               int *exit_code)
{
    size_t len;
    bool nomem;
    *pp = NULL;
    *ltl = NULL;
    char *src = tool_read_file(rq->path, &len, &nomem);
    if (!src) {
        if (nomem)
            fprintf(stderr, "mcheck: error: out of memory\n");
        else
            fprintf(stderr, "mcheck: error: cannot read '%s': %s\n", rq->path, strerror(errno));
        *exit_code = nomem ? 3 : 2;
        return MODEL_UNREAD;
    }
    int nerr = 0;
    vm_program *p = vm_assemble_for(rq->path, src, len, rq->defs, rq->ndefs, stderr, &nerr,
                                    rq->max_threads);
    free(src);
    if (!p) {
        *exit_code = nerr < 0 ? 3 : 2; /* out of memory is a resource limit */
        return MODEL_REJECTED;
    }
    p->spurious_wakeups = rq->spurious; /* the search, replay and simulation read it */
    if (rq->liveness) vm_mark_progress(p); /* progress points visible */
    if (rq->ltl_text) {                    /* the props' points visible, the automaton */
        vm_mark_props(p);
        if (!(*ltl = ltl_translate(rq->ltl_text, p, err, n))) {
            vm_program_free(p);
            *exit_code = 2;
            return MODEL_BAD_LTL;
        }
    }
    *pp = p;
    *exit_code = 0;
    return MODEL_OK;
}

bool model_loops(const vm_program *p)
{
    for (uint32_t b = 0; b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++) {
            const vm_insn *in = &p->bodies[b].code[pc];
            enum vm_format f = vm_ops[in->op].format;
            if ((f == VM_FMT_L || f == VM_FMT_AL) && (uint32_t)in->obj <= pc) return true;
            unsigned nr; /* a ret back to a call before it (a subroutine called in a loop) */
            const uint32_t *rs = vm_ret_sites(&p->bodies[b], pc, &nr);
            for (unsigned i = 0; i < nr; i++)
                if (rs[i] <= pc) return true;
        }
    return false;
}
