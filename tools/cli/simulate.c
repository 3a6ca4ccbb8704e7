/* simulate.c: `mcheck --simulate`: execute one random interleaving, one
 * instruction per step, and say how it ended. The same seed gives the same
 * run (splitmix64, no global state). With --record FILE the run's events go
 * through the recorder's hooks (record.c) into a grammar file, and the
 * per-step lines are left out (a recorded run is a long one). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A uniform value in [0, n). */
static uint64_t below(uint64_t *rng, uint64_t n)
{
    return n ? splitmix64(rng) % n : 0;
}

int simulate_run(const vm_program *p, unsigned long long seed,
                 unsigned long long max_steps, const char *record, FILE *out)
{
    uint8_t *s = malloc(p->layout.size);
    int32_t *enabled = malloc(p->nthreads * sizeof *enabled);
    recorder *rec = record ? record_new(p) : NULL;
    if (!s || !enabled || (record && !rec)) {
        free(s);
        free(enabled);
        record_free(rec);
        fprintf(stderr, "mcheck: error: out of memory\n");
        return 3;
    }
    const vm_hooks *h = rec ? record_hooks(rec) : NULL;
    bool lines = !rec;
    memcpy(s, p->init_state, p->layout.size);
    uint64_t rng = seed;
    int status = 3;
    fprintf(out, "simulation of %s, seed %llu\n", p->filename, seed);
    for (uint64_t step = 1;; step++) {
        uint32_t n = 0;
        for (uint32_t t = 0; t < p->nthreads; t++)
            if (vm_enabled(p, s, (int)t)) enabled[n++] = (int32_t)t;
        if (n == 0) {
            if (vm_valid_end(p, s)) {
                fprintf(out, "end: all threads ended (valid end state) after %" PRIu64 " steps\n",
                        step - 1);
                status = 0;
            } else {
                fprintf(out, "end: deadlock after %" PRIu64 " steps; blocked threads:\n", step - 1);
                report_blocked_threads(out, p, s);
                status = 1;
            }
            break;
        }
        if (step > max_steps) {
            fprintf(out, "end: step limit %llu reached\n", max_steps);
            break;
        }
        int tid = enabled[below(&rng, n)];
        uint64_t choice = below(&rng, vm_enabled(p, s, tid));
        const vm_insn *code = vm_thread_body(p, s, tid)->code;
        bool block = code[vm_tpc(p, s, tid)].op == VM_OP_atomic;
        /* an atomic block: its instructions in this step, the first with
         * the block's choice */
        uint64_t next = block ? vm_block_choice(p, s, tid, choice) : 0;
        trace tr = {.final_state = s};
        trace_entry e;
        if (lines) {
            e = trace_entry_at(p, s, (uint32_t)step, tid, choice, true);
            report_trace_line(out, p, &tr, &e, 0);
            /* a rendezvous: the receiver's `recv` is in this step too */
            int partner = vm_rendezvous_receiver(p, s, tid, choice);
            if (partner >= 0) {
                e = trace_entry_at(p, s, (uint32_t)step, partner, 0, false);
                report_trace_line(out, p, &tr, &e, 0);
            }
        }
        vm_fault f;
        vm_status rc = vm_step(p, s, tid, block ? 0 : choice, h, &f);
        for (uint64_t k = 0; rc == VM_OK && block && code[vm_tpc(p, s, tid)].in_block; k++) {
            if (k >= max_steps) {
                fprintf(out, "end: step limit %llu reached inside an atomic block\n", max_steps);
                goto done;
            }
            if (lines) {
                e = trace_entry_at(p, s, (uint32_t)step, tid, next, false);
                report_trace_line(out, p, &tr, &e, 0);
            }
            rc = vm_step(p, s, tid, next, h, &f);
            next = 0;
        }
        if (rc == VM_FAULT) {
            char name[64];
            const vm_insn *in = &vm_thread_body(p, s, tid)->code[f.pc];
            vm_thread_name(p, s, tid, name, sizeof name);
            fprintf(out, "end: error in %s at %s:%d: %s\n", name, p->filename, in->line, f.msg);
            status = 1;
            break;
        }
    }
done:
    if (rec) {
        int rr = record_finish(rec, record, out);
        if (rr) status = rr;
    }
    free(s);
    free(enabled);
    return status;
}
