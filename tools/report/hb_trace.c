/* hb_trace.c: the happens-before check a lock-discipline report runs over its
 * own trace (issue 31): do the accesses to the reported element in this
 * trace also race, or are they all ordered, so that the program may be
 * race-free and only the discipline (LD', Stoller section 7, or Eraser) is
 * broken? LD' is stricter than race freedom: a hand-over through a channel,
 * a join or a volatile flag orders the accesses without a common lock.
 *
 * The rules are Goldilocks' (Elmas, Qadeer, Tasiran, PLDI 2007, section 3;
 * lockset/goldilocks.c), applied to the trace's entries for one element: an
 * access by thread t starts a lockset {t}; a synchronization event moves
 * the knowledge of one object to another (every lockset holding `from` gets
 * `to`): a lock's final release (or a `wait`) t -> L, its acquire (or a
 * wait's re-acquire) L -> t, a spawn parent -> child, a join child ->
 * joiner, a send t -> c, a receive c -> t (on a rendezvous, then also
 * the receiver -> c -> the sender), a volatile store t -> v and a
 * volatile load v -> t. A later access by u is ordered after an earlier one
 * iff u is in that one's lockset; two accesses race iff they are by
 * different threads, one writes, and they are not ordered. The answer is
 * only about this trace (the search checks the rest: --race=goldilocks),
 * and none is given when the replay left entries out (a bounded trace) or
 * did not record their effects. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

typedef struct hb_acc {
    uint32_t entry;
    int32_t tid;
    bool write;
    uint64_t *set; /* objects: threads, locks, channels, volatile elements */
} hb_acc;

typedef struct hb_ctx {
    const vm_program *p;
    uint32_t words, lock0, chan0, vol0;
    hb_acc *acc;
    uint32_t n;
} hb_ctx;

static bool has(const uint64_t *w, uint32_t i) { return (w[i >> 6] >> (i & 63)) & 1; }
static void put(uint64_t *w, uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }

/* Every lockset that holds `from` gets `to`. */
static void move(hb_ctx *c, uint32_t from, uint32_t to)
{
    for (uint32_t k = 0; k < c->n; k++)
        if (has(c->acc[k].set, from)) put(c->acc[k].set, to);
}

/* The synchronization event of entry e, if any, as (from, to); false if
 * none. */
static bool sync_of(const hb_ctx *c, const trace *t, const trace_entry *e, uint32_t *from,
                    uint32_t *to)
{
    const vm_program *p = c->p;
    const trace_effect *fx = &e->fx;
    uint32_t me = (uint32_t)e->tid;
    if (e->reacquire) {
        if (!fx->done || fx->obj < 0) return false;
        *from = c->lock0 + (uint32_t)fx->obj, *to = me;
        return true;
    }
    const vm_insn *in = report_entry_insn(p, t, e);
    switch ((enum vm_opcode)in->op) {
    case VM_OP_acquire:
        if (!fx->done || fx->obj < 0) return false;
        *from = c->lock0 + (uint32_t)fx->obj, *to = me;
        return true;
    case VM_OP_release: /* only the release that frees the lock */
        if (!fx->done || fx->obj < 0 || fx->val != 0) return false;
        *from = me, *to = c->lock0 + (uint32_t)fx->obj;
        return true;
    case VM_OP_wait:
    case VM_OP_cwait: /* the release into the wait set */
        if (!fx->done || fx->obj < 0) return false;
        *from = me, *to = c->lock0 + (uint32_t)fx->obj;
        return true;
    case VM_OP_atomic: /* the block holds the hidden lock "(atomic)" */
        if (!fx->done) return false;
        *from = c->lock0 + p->lockdecls[in->obj].first, *to = me;
        return true;
    case VM_OP_end_atomic:
        if (!fx->done) return false;
        *from = me, *to = c->lock0 + p->lockdecls[in->obj].first;
        return true;
    case VM_OP_send:
        *from = me, *to = c->chan0 + (uint32_t)in->obj;
        return true;
    case VM_OP_recv:
        if (!fx->done) return false;
        *from = c->chan0 + (uint32_t)in->obj, *to = me;
        return true;
    case VM_OP_spawn:
        if (!fx->done || fx->val < 0 || (uint32_t)fx->val >= p->nthreads) return false;
        *from = me, *to = (uint32_t)fx->val;
        return true;
    case VM_OP_join:
        if (!fx->done || fx->obj < 0 || (uint32_t)fx->obj >= p->nthreads) return false;
        *from = (uint32_t)fx->obj, *to = me;
        return true;
    case VM_OP_load:
    case VM_OP_store:
        if (!fx->done || fx->obj < 0 || vm_elem_var(p, (uint32_t)fx->obj)->cls != VM_VOLATILE)
            return false;
        if (in->op == VM_OP_store)
            *from = me, *to = c->vol0 + (uint32_t)fx->obj;
        else
            *from = c->vol0 + (uint32_t)fx->obj, *to = me;
        return true;
    default:
        return false;
    }
}

bool report_hb_check(const vm_program *p, const trace *t, uint32_t at, report_hb *out)
{
    memset(out, 0, sizeof *out);
    if (!t || at >= t->n || t->entries[at].elem < 0) return false;
    int32_t elem = t->entries[at].elem;
    hb_ctx c = {.p = p, .lock0 = p->nthreads};
    c.chan0 = c.lock0 + p->nlocks;
    c.vol0 = c.chan0 + p->nchans;
    c.words = (c.vol0 + p->nelems + 63) / 64;
    uint32_t cap = 0;
    for (uint32_t i = 0; i <= at; i++) {
        if (t->entries[i].omitted || !t->entries[i].fx.recorded) return false;
        cap += t->entries[i].elem == elem;
    }
    c.acc = calloc(cap ? cap : 1, sizeof *c.acc);
    uint64_t *sets = calloc((size_t)(cap ? cap : 1) * c.words, sizeof *sets);
    bool ok = c.acc && sets;
    for (uint32_t i = 0; ok && i <= at && !out->race; i++) {
        const trace_entry *e = &t->entries[i];
        uint32_t from, to;
        if (e->elem != elem) {
            if (sync_of(&c, t, e, &from, &to)) move(&c, from, to);
            /* a rendezvous orders both ways: the receiver's recv follows
             * its sender's send in the step; then receiver -> c -> sender */
            const vm_insn *in = report_entry_insn(p, t, e);
            if (!e->reacquire && in->op == VM_OP_recv && p->chans[in->obj].cap == 0 && i > 0) {
                move(&c, (uint32_t)e->tid, c.chan0 + (uint32_t)in->obj);
                move(&c, c.chan0 + (uint32_t)in->obj, (uint32_t)t->entries[i - 1].tid);
            }
            continue;
        }
        for (uint32_t k = 0; k < c.n; k++) {
            const hb_acc *a = &c.acc[k];
            if (a->tid == e->tid || !(a->write || e->write) || has(a->set, (uint32_t)e->tid))
                continue;
            out->race = true;
            out->first = a->entry;
            out->second = i;
            break;
        }
        hb_acc *a = &c.acc[c.n];
        *a = (hb_acc){.entry = i, .tid = e->tid, .write = e->write,
                      .set = sets + (size_t)c.n * c.words};
        put(a->set, (uint32_t)e->tid);
        c.n++;
    }
    out->accesses = c.n;
    out->one_thread = true;
    for (uint32_t k = 1; k < c.n; k++) out->one_thread &= c.acc[k].tid == c.acc[0].tid;
    free(c.acc);
    free(sets);
    return ok;
}
