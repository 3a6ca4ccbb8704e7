/* dump.c: vm_dump(), the program as the assembler left it (mcheck --dump).
 *
 * Prints the constants, the state layout (offset and size of every global,
 * lock, cond, channel, spawn counter and thread slot, and the total), then each
 * body's code: pc, V when the pc is visible (a scheduling point of the
 * reduced search) or | inside an atomic block (part of the step of its
 * `atomic`), E when an end label names it, source line, instruction; a
 * `ret` also lists the pcs it may return to (the static walkers' view).
 * Output is deterministic; it reads the program only, never a state. */
#include <inttypes.h>

#include "vm.h"

static const char *const class_word[] = {"shared", "volatile", "unshared"};

/* One layout row: offset, size, then what lives there. */
static void row(FILE *out, uint32_t off, uint64_t size)
{
    fprintf(out, "  %8" PRIu32 " %8" PRIu64 "  ", off, size);
}

static void dump_globals(const vm_program *p, FILE *out)
{
    for (uint32_t i = 0; i < p->nvars; i++) {
        const vm_var *v = &p->vars[i];
        row(out, v->offset, 4 * (uint64_t)v->size);
        fprintf(out, "%s %s", class_word[v->cls], v->name);
        if (v->is_array) fprintf(out, "[%" PRIu32 "]", v->size);
        fprintf(out, "  (elements %" PRIu32 " .. %" PRIu32 ")", v->first_elem,
                v->first_elem + v->size - 1);
        if (v->init_body >= 0) fprintf(out, " init %s", p->bodies[v->init_body].name);
        fputc('\n', out);
    }
}

static void dump_locks_chans(const vm_program *p, FILE *out)
{
    const vm_layout *l = &p->layout;
    for (uint32_t i = 0; i < p->nlockdecls; i++) {
        const vm_lockdecl *d = &p->lockdecls[i];
        row(out, l->locks_off + d->first * l->lock_bytes, (uint64_t)d->size * l->lock_bytes);
        fprintf(out, "lock %s", d->name);
        if (d->is_array) fprintf(out, "[%" PRIu32 "]", d->size);
        fprintf(out, "  (locks %" PRIu32 " .. %" PRIu32 ", %" PRIu32
                     " bytes each: owner, depth, wait set)\n",
                d->first, d->first + d->size - 1, l->lock_bytes);
    }
    for (uint32_t i = 0; i < p->nconddecls; i++) {
        const vm_lockdecl *d = &p->conddecls[i];
        row(out, vm_cond_off(p, d->first), (uint64_t)d->size * l->wsbytes);
        fprintf(out, "cond %s", d->name);
        if (d->is_array) fprintf(out, "[%" PRIu32 "]", d->size);
        fprintf(out, "  (conds %" PRIu32 " .. %" PRIu32 ", %" PRIu32 " bytes each: wait set)\n",
                d->first, d->first + d->size - 1, l->wsbytes);
    }
    for (uint32_t i = 0; i < p->nchans; i++) {
        const vm_chan *ch = &p->chans[i];
        row(out, ch->offset, 1 + 4 * (uint64_t)ch->cap);
        if (ch->cap == 0)
            fprintf(out, "chan %s  (rendezvous: the length byte stays 0)\n", ch->name);
        else
            fprintf(out, "chan %s  (capacity %" PRIu32 ")\n", ch->name, ch->cap);
    }
}

static void dump_threads(const vm_program *p, FILE *out)
{
    for (uint32_t b = 0; b < p->nbodies; b++) {
        row(out, p->layout.spawns_off + b, 1);
        fprintf(out, "spawn counter of %s\n", p->bodies[b].name);
    }
    for (uint32_t t = 0; t < p->nthreads; t++) {
        const vm_thread_slot *ts = &p->threads[t];
        row(out, ts->offset, ts->bytes);
        if (ts->body < 0) {
            fprintf(out, "thread %" PRIu32 ": spawn slot", t);
        } else {
            const vm_body *bd = &p->bodies[ts->body];
            fprintf(out, "thread %" PRIu32 ": %s", t, bd->name);
            if (bd->is_array) fprintf(out, "[%" PRIu32 "]", t - bd->first_tid);
        }
        fprintf(out, "  (%" PRIu32 " register%s", ts->nregs, ts->nregs == 1 ? "" : "s");
        if (ts->stack_off)
            fprintf(out, ", return stack of %" PRIu32 " at +%" PRIu32 ": sp, pcs", ts->stack_cap,
                    ts->stack_off);
        fprintf(out, ")\n");
    }
}

static void dump_body(const vm_body *b, FILE *out)
{
    fprintf(out, "\n%s %s", b->is_proc ? "proc" : "thread", b->name);
    if (b->is_proc)
        fprintf(out, " max %" PRIu32, b->count);
    else if (b->is_array)
        fprintf(out, "[%" PRIu32 "]  (ids %" PRIu32 " .. %" PRIu32 ")", b->count, b->first_tid,
                b->first_tid + b->count - 1);
    else
        fprintf(out, "  (id %" PRIu32 ")", b->first_tid);
    fprintf(out, ", %" PRIu32 " register%s%s", b->nregs, b->nregs == 1 ? "" : "s",
            b->nregs ? ":" : "");
    for (uint32_t r = 0; r < b->nregs; r++) fprintf(out, " %s", b->regname[r]);
    if (b->stack) fprintf(out, "; stack %" PRIu32, b->stack);
    fprintf(out, "\n     pc V E   line  instruction\n");
    for (uint32_t pc = 0; pc < b->ncode; pc++) {
        const vm_insn *in = &b->code[pc];
        fprintf(out, "  %5" PRIu32 " %c %c %6d  %s", pc,
                in->visible ? 'V' : in->in_block ? '|' : ' ',
                in->end_label ? 'E' : ' ', (int)in->line, in->text);
        unsigned nr;
        const uint32_t *rs = vm_ret_sites(b, pc, &nr);
        for (unsigned i = 0; i < nr; i++)
            fprintf(out, "%s%" PRIu32, i ? ", " : "    ; returns to ", rs[i]);
        fputc('\n', out);
    }
}

void vm_dump(const vm_program *p, FILE *out)
{
    fprintf(out, "program %s: %" PRIu32 " threads (%" PRIu32 " static), state vector %" PRIu32
                 " bytes\n",
            p->filename, p->nthreads, p->nstatic, p->layout.size);
    for (uint32_t i = 0; i < p->nconsts; i++)
        fprintf(out, "const %s = %d\n", p->consts[i].name, (int)p->consts[i].value);
    fprintf(out, "\nlayout:\n    offset     size  item\n");
    dump_globals(p, out);
    dump_locks_chans(p, out);
    dump_threads(p, out);
    fprintf(out, "  total %" PRIu32 " bytes\n", p->layout.size);
    for (uint32_t b = 0; b < p->nbodies; b++) dump_body(&p->bodies[b], out);
}
