/* may_access.c: what a thread may still access, the static may-analysis
 * behind ls_canonicalize() (canon.c): for every body and pc, the variables a
 * thread standing there may still read or write, from its own code and from
 * the threads it may spawn. It is an over-approximation over the control
 * flow only (no values, no path sensitivity); architecture.md, "Metadata that
 * does not split states", says what canonicalization does with it. */
#include "lockset_int.h"

#include <stdlib.h>

/* OR src into dst (n words); true if dst changed. */
static bool or_into(uint64_t *dst, const uint64_t *src, uint32_t n)
{
    bool changed = false;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = dst[i] | src[i];
        changed |= v != dst[i];
        dst[i] = v;
    }
    return changed;
}

static bool set_bit_changed(uint64_t *w, uint32_t i)
{
    if (bit_get(w, i)) return false;
    bit_set(w, i);
    return true;
}

/* For every body and pc, the variables a thread standing at pc may still
 * access, in four blocks of bits over the variables (lockset_int.h's FUT_*):
 *   FUT_ANY, FUT_WR:           read or write / write, at any element (an
 *                              index other than `self`: the whole variable);
 *   FUT_SELF_ANY, FUT_SELF_WR: read or write / write, only at element
 *                              [self] (the thread's own slot of an array).
 * Counted: the thread's own loads and stores on every path from pc, and
 * everything a thread it may spawn can access (that thread's `self` is not
 * the spawner's, so its self-indexed accesses count as any element). A
 * backward may-analysis over the control flow (jmp, jz/jnz, fall-through;
 * `call L` goes to L, `ret` to every pc it may return to (vm_ret_sites());
 * `end` has no successor), iterated to a fixed point because spawn edges
 * link bodies. Along any execution the sets only shrink: a successor's set
 * is part of its predecessor's, and a spawned thread's entry set is part of
 * the spawner's. */
bool ls_compute_future(ls_detector *d)
{
    const vm_program *p = d->p;
    uint32_t vw = d->vwords, stride = FUT_BLOCKS * vw;
    d->future = calloc(p->nbodies ? p->nbodies : 1, sizeof *d->future);
    if (!d->future) return false;
    for (uint32_t b = 0; b < p->nbodies; b++) {
        d->future[b] = calloc((size_t)(p->bodies[b].ncode ? p->bodies[b].ncode : 1) * stride,
                              sizeof(uint64_t));
        if (!d->future[b]) return false;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < p->nbodies; b++) {
            const vm_body *body = &p->bodies[b];
            for (uint32_t pc = body->ncode; pc-- > 0;) {
                const vm_insn *in = &body->code[pc];
                uint64_t *f = d->future[b] + (size_t)pc * stride;
                uint32_t next = pc + 1 < body->ncode ? pc + 1 : UINT32_MAX;
                uint32_t jump = UINT32_MAX;
                bool mem = in->op == VM_OP_load || in->op == VM_OP_store;
                bool self = mem && in->idx.kind == VM_ARG_SELF && p->vars[in->obj].is_array;
                uint32_t any = self ? FUT_SELF_ANY : FUT_ANY, wr = self ? FUT_SELF_WR : FUT_WR;
                switch (in->op) {
                case VM_OP_load:
                    changed |= set_bit_changed(f + any * vw, (uint32_t)in->obj);
                    break;
                case VM_OP_store:
                    changed |= set_bit_changed(f + any * vw, (uint32_t)in->obj);
                    changed |= set_bit_changed(f + wr * vw, (uint32_t)in->obj);
                    break;
                case VM_OP_call: /* pc + 1 is reached through the ret */
                case VM_OP_jmp: next = UINT32_MAX; jump = (uint32_t)in->obj; break;
                case VM_OP_ret: { /* every pc it may return to */
                    unsigned nr;
                    const uint32_t *rs = vm_ret_sites(body, pc, &nr);
                    next = UINT32_MAX;
                    for (unsigned i = 0; i < nr; i++)
                        changed |= or_into(f, d->future[b] + (size_t)rs[i] * stride, stride);
                    break;
                }
                case VM_OP_jz:
                case VM_OP_jnz: jump = (uint32_t)in->obj; break;
                case VM_OP_end: next = UINT32_MAX; break;
                case VM_OP_spawn: {
                    const uint64_t *c = d->future[in->obj]; /* the child at its pc 0 */
                    changed |= or_into(f + FUT_ANY * vw, c + FUT_ANY * vw, vw);
                    changed |= or_into(f + FUT_ANY * vw, c + FUT_SELF_ANY * vw, vw);
                    changed |= or_into(f + FUT_WR * vw, c + FUT_WR * vw, vw);
                    changed |= or_into(f + FUT_WR * vw, c + FUT_SELF_WR * vw, vw);
                    break;
                }
                default: break;
                }
                if (next != UINT32_MAX)
                    changed |= or_into(f, d->future[b] + (size_t)next * stride, stride);
                if (jump != UINT32_MAX && jump < body->ncode)
                    changed |= or_into(f, d->future[b] + (size_t)jump * stride, stride);
            }
        }
    }
    return true;
}
