/* query.c: what the reports ask of a state (vm.h): is a thread at a
 * scheduling point, is a state a valid end, names of threads, locks, conds
 * and global elements, and what a blocked thread waits for
 * (vm_describe_block). Read-only; split out of interp.c, which executes. */
#include <inttypes.h>
#include <string.h>

#include "vm.h"

static inline uint32_t tslot(const vm_program *p, int tid) { return p->threads[tid].offset; }

static inline const vm_body *body_of(const vm_program *p, const uint8_t *s, int tid)
{
    return &p->bodies[vm_tbody_index(p, s, tid)];
}

/* The element NAME[idx] of a declaration of `size` elements from `first`;
 * -1 when the index is out of range (its value in *iv). */
static int64_t decl_elem(const vm_program *p, const uint8_t *s, int tid, const vm_lockdecl *d,
                         const vm_operand *idx, int32_t *iv)
{
    int32_t i = vm_operand_value(p, s, tid, idx);
    *iv = i;
    if (i < 0 || (uint32_t)i >= d->size) return -1;
    return (int64_t)d->first + i;
}

static void lock_name_of(const vm_program *p, const vm_insn *in, int32_t iv,
                         char *buf, size_t n)
{
    const vm_lockdecl *d = &p->lockdecls[in->obj];
    if (d->is_array)
        snprintf(buf, n, "%s[%" PRId32 "]", d->name, iv);
    else
        snprintf(buf, n, "%s", d->name);
}

bool vm_at_visible(const vm_program *p, const uint8_t *s, int tid)
{
    uint32_t ts = tslot(p, tid);
    if (s[ts + VM_TS_STATUS] != VM_T_RUNNING) return true;
    return body_of(p, s, tid)->code[vm_rd16(s, ts + VM_TS_PC)].visible;
}

bool vm_valid_end(const vm_program *p, const uint8_t *s)
{
    for (uint32_t t = 0; t < p->nthreads; t++) {
        uint32_t ts = tslot(p, (int)t);
        uint8_t st = s[ts + VM_TS_STATUS];
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        if (!body_of(p, s, (int)t)->code[vm_rd16(s, ts + VM_TS_PC)].end_label) return false;
    }
    return true;
}

void vm_thread_name(const vm_program *p, const uint8_t *s, int tid, char *buf,
                    size_t n)
{
    const vm_thread_slot *sl = &p->threads[tid];
    if (sl->body >= 0) {
        const vm_body *b = &p->bodies[sl->body];
        if (b->is_array)
            snprintf(buf, n, "%s[%u]", b->name, (unsigned)tid - b->first_tid);
        else
            snprintf(buf, n, "%s", b->name);
        return;
    }
    if (s[sl->offset + VM_TS_STATUS] == VM_T_UNUSED) {
        snprintf(buf, n, "(thread %d, not started)", tid);
        return;
    }
    uint8_t body = s[sl->offset + VM_TS_BODY];
    unsigned k = 0;
    for (uint32_t t = p->nstatic; t < (uint32_t)tid; t++)
        if (s[p->threads[t].offset + VM_TS_STATUS] != VM_T_UNUSED &&
            s[p->threads[t].offset + VM_TS_BODY] == body)
            k++;
    snprintf(buf, n, "%s[%u]", p->bodies[body].name, k);
}

void vm_cond_name(const vm_program *p, uint32_t q, char *buf, size_t n)
{
    for (uint32_t i = 0; i < p->nconddecls; i++) {
        const vm_lockdecl *d = &p->conddecls[i];
        if (q >= d->first && q < d->first + d->size) {
            if (d->is_array)
                snprintf(buf, n, "%s[%u]", d->name, q - d->first);
            else
                snprintf(buf, n, "%s", d->name);
            return;
        }
    }
    snprintf(buf, n, "(cond %u)", q);
}

void vm_lock_name(const vm_program *p, uint32_t l, char *buf, size_t n)
{
    for (uint32_t i = 0; i < p->nlockdecls; i++) {
        const vm_lockdecl *d = &p->lockdecls[i];
        if (l >= d->first && l < d->first + d->size) {
            if (d->is_array)
                snprintf(buf, n, "%s[%u]", d->name, l - d->first);
            else
                snprintf(buf, n, "%s", d->name);
            return;
        }
    }
    snprintf(buf, n, "(lock %u)", l);
}

const vm_var *vm_elem_var(const vm_program *p, uint32_t e)
{
    for (uint32_t i = 0; i < p->nvars; i++)
        if (e >= p->vars[i].first_elem && e < p->vars[i].first_elem + p->vars[i].size)
            return &p->vars[i];
    return NULL;
}

void vm_elem_name(const vm_program *p, uint32_t e, char *buf, size_t n)
{
    const vm_var *v = vm_elem_var(p, e);
    if (!v)
        snprintf(buf, n, "(global %u)", e);
    else if (v->is_array)
        snprintf(buf, n, "%s[%u]", v->name, e - v->first_elem);
    else
        snprintf(buf, n, "%s", v->name);
}

/* A thread at a cwait: in c's wait set, or woken and re-acquiring lk. */
static void describe_cwait(const vm_program *p, const uint8_t *s, int tid,
                           const vm_insn *in, bool waiting, char *buf, size_t n)
{
    int32_t iv, cv;
    int64_t l = decl_elem(p, s, tid, &p->lockdecls[in->obj], &in->idx, &iv);
    int64_t q = decl_elem(p, s, tid, &p->conddecls[in->cond], &in->cidx, &cv);
    if (l < 0 || q < 0) {
        snprintf(buf, n, "(cwait index %d out of range)", (int)(l < 0 ? iv : cv));
        return;
    }
    char ln[64], cn[64], on[64];
    vm_lock_name(p, (uint32_t)l, ln, sizeof ln);
    vm_cond_name(p, (uint32_t)q, cn, sizeof cn);
    int owner = vm_lock_owner(p, s, (uint32_t)l);
    if (owner >= 0) vm_thread_name(p, s, owner, on, sizeof on);
    if (waiting && p->spurious_wakeups && owner >= 0)
        snprintf(buf, n, "cwait on '%s' (in wait set; '%s' held by %s)", cn, ln, on);
    else if (waiting)
        snprintf(buf, n, "cwait on '%s' (in wait set)", cn);
    else if (owner >= 0 && owner != tid)
        snprintf(buf, n, "re-acquire '%s' after cwait on '%s', held by %s", ln, cn, on);
    else
        snprintf(buf, n, "not blocked (lock '%s' is available)", ln);
}

void vm_describe_block(const vm_program *p, const uint8_t *s, int tid,
                       char *buf, size_t n)
{
    uint32_t ts = tslot(p, tid);
    uint8_t st = s[ts + VM_TS_STATUS];
    char ln[64], on[64];
    int32_t iv;
    int64_t l;
    if (st == VM_T_UNUSED || st == VM_T_ENDED) {
        snprintf(buf, n, "%s", st == VM_T_ENDED ? "ended" : "not started");
        return;
    }
    const uint32_t pc = vm_rd16(s, ts + VM_TS_PC);
    const vm_insn *in = &body_of(p, s, tid)->code[pc];
    if (st == VM_T_RUNNING && in->op == VM_OP_atomic) {
        if (vm_enabled_at(p, s, tid, pc + 1)) {
            /* enabled by its first instruction, not by its guard */
            const vm_insn *g = in + 1;
            if (!in->b.val) {
                snprintf(buf, n, "not blocked");
                return;
            }
            while (g->op != VM_OP_assume && g->op != VM_OP_end_atomic) g++;
            snprintf(buf, n, "the guard of its atomic block is false (assume at line %d)",
                     (int)g->line);
            return;
        }
        in++; /* blocked by the block's first instruction */
    }
    if (st == VM_T_RUNNING && in->op == VM_OP_assume) {
        snprintf(buf, n, "assume at line %d is false", (int)in->line);
        return;
    }
    if ((st == VM_T_WAITING || st == VM_T_NOTIFIED) && in->op == VM_OP_cwait) {
        describe_cwait(p, s, tid, in, st == VM_T_WAITING, buf, n);
        return;
    }
    if (st == VM_T_WAITING || st == VM_T_NOTIFIED || in->op == VM_OP_acquire) {
        l = decl_elem(p, s, tid, &p->lockdecls[in->obj], &in->idx, &iv);
        if (l < 0) {
            snprintf(buf, n, "(lock index %d out of range)", (int)iv);
            return;
        }
        lock_name_of(p, in, iv, ln, sizeof ln);
        int owner = vm_lock_owner(p, s, (uint32_t)l);
        if (owner >= 0) vm_thread_name(p, s, owner, on, sizeof on);
        if (st == VM_T_WAITING && p->spurious_wakeups && owner >= 0)
            snprintf(buf, n, "waits in the wait set of '%s', held by %s", ln, on);
        else if (st == VM_T_WAITING)
            snprintf(buf, n, "waits in the wait set of '%s' for a notify", ln);
        else if (owner >= 0 && owner != tid)
            snprintf(buf, n, "%s '%s', held by %s",
                     st == VM_T_NOTIFIED ? "re-acquire (after notify) of" : "acquire of", ln, on);
        else
            snprintf(buf, n, "not blocked (lock '%s' is available)", ln);
        return;
    }
    switch ((enum vm_opcode)in->op) {
    case VM_OP_send:
        if (p->chans[in->obj].cap == 0)
            snprintf(buf, n, "send on rendezvous '%s', where no thread waits to receive",
                     p->chans[in->obj].name);
        else
            snprintf(buf, n, "send on '%s', which is full (%u of %u)", p->chans[in->obj].name,
                     s[p->chans[in->obj].offset], p->chans[in->obj].cap);
        return;
    case VM_OP_recv:
        if (p->chans[in->obj].cap == 0)
            snprintf(buf, n, "recv on rendezvous '%s', where no thread is sending",
                     p->chans[in->obj].name);
        else
            snprintf(buf, n, "recv on '%s', which is empty", p->chans[in->obj].name);
        return;
    case VM_OP_join: {
        int32_t t = vm_operand_value(p, s, tid, &in->a);
        if (t >= 0 && (uint32_t)t < p->nthreads) {
            vm_thread_name(p, s, t, on, sizeof on);
            snprintf(buf, n, "join of %s, which has not ended", on);
            return;
        }
        break;
    }
    default:
        break;
    }
    snprintf(buf, n, "not blocked");
}
