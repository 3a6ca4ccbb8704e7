/* report_html_walk.c: the walk of --trace-html's page (report_html.c) over
 * a replayed trace, row by row: which thread holds which lock (the bars'
 * lanes), who waits, who was spawned and who ended, and the instruction a
 * thread stands at. It prints nothing. */
#include <stdlib.h>
#include <string.h>

#include "html_int.h"

void html_walk_free(walk *w)
{
    free(w->st);
    free(w->wlock);
    free(w->wcv);
    free(w->wcvi);
    free(w->born);
    free(w->next);
    free(w->pending);
    free(w->holder);
    free(w->lanes);
    free(w->nlanes);
    free(w->col);
    free(w->seen_lock);
}

/* Back to the state before the first step; the lane counts, columns and
 * seen locks of an earlier walk stay (the rows print them). */
void html_walk_reset(walk *w)
{
    const vm_program *p = w->p;
    const trace *t = w->t;
    for (uint32_t k = 0; k < p->nthreads; k++) {
        w->st[k] = k < p->nstatic ? TH_LIVE : TH_UNBORN;
        w->wlock[k] = -1;
        w->wcv[k] = NULL;
        w->born[k] = 0;
        w->pending[k] = t->n;
    }
    for (uint32_t i = t->n; i-- > 0;) {
        int32_t tid = t->entries[i].tid;
        if (tid < 0 || (uint32_t)tid >= p->nthreads) {
            w->next[i] = t->n;
            continue;
        }
        w->next[i] = w->pending[tid];
        w->pending[tid] = i;
    }
    for (uint32_t l = 0; l < p->nlocks; l++) w->holder[l] = -1;
    for (size_t k = 0; k < (size_t)p->nthreads * HTML_LANES; k++) w->lanes[k].lock = -1;
}

/* A walk before the first step. False: out of memory. */
bool html_walk_init(walk *w, const vm_program *p, const trace *t, uint32_t steps)
{
    size_t nt = p->nthreads, nl = p->nlocks ? p->nlocks : 1, ne = t->n ? t->n : 1;
    memset(w, 0, sizeof *w);
    w->p = p;
    w->t = t;
    w->start_row = t->n && t->entries[0].step == 0;
    w->nrows = steps + (w->start_row ? 1 : 0);
    w->st = calloc(nt, 1);
    w->wlock = calloc(nt, sizeof *w->wlock);
    w->wcv = calloc(nt, sizeof *w->wcv);
    w->wcvi = calloc(nt, sizeof *w->wcvi);
    w->born = calloc(nt, sizeof *w->born);
    w->next = calloc(ne, sizeof *w->next);
    w->pending = calloc(nt, sizeof *w->pending);
    w->holder = calloc(nl, sizeof *w->holder);
    w->lanes = calloc(nt * HTML_LANES, sizeof *w->lanes);
    w->nlanes = calloc(nt, sizeof *w->nlanes);
    w->col = calloc(nt, sizeof *w->col);
    w->seen_lock = calloc(nl, sizeof *w->seen_lock);
    if (!w->st || !w->wlock || !w->wcv || !w->wcvi || !w->born || !w->next || !w->pending || !w->holder || !w->lanes ||
        !w->nlanes || !w->col || !w->seen_lock) {
        html_walk_free(w);
        return false;
    }
    for (uint32_t k = 0; k < nt; k++)
        w->col[k] = vm_tstatus_of(p, t->final_state, (int)k) != VM_T_UNUSED;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->entries[i].tid >= 0 && (uint32_t)t->entries[i].tid < nt) w->col[t->entries[i].tid] = 1;
    html_walk_reset(w);
    return true;
}

lane *html_lanes_of(const walk *w, int tid) { return &w->lanes[(size_t)tid * HTML_LANES]; }

/* Thread `tid` took lock `l` in row r: a bar in its first lane free
 * before this row. */
static void take_lane(walk *w, int tid, int32_t l, uint32_t r)
{
    lane *ln = html_lanes_of(w, tid);
    for (int k = 0; k < HTML_LANES; k++) {
        if (ln[k].lock >= 0 && ln[k].to >= r) continue;
        ln[k] = (lane){.lock = l, .from = r, .to = UINT32_MAX};
        if (k + 1 > w->nlanes[tid]) w->nlanes[tid] = k + 1;
        return;
    }
}

static void drop_lane(walk *w, int tid, int32_t l, uint32_t r)
{
    lane *ln = html_lanes_of(w, tid);
    for (int k = 0; k < HTML_LANES; k++)
        if (ln[k].lock == l && ln[k].to == UINT32_MAX) ln[k].to = r;
}

/* Entry i of row r ran: who holds what, who waits, who ended. */
void html_walk_entry(walk *w, uint32_t i, uint32_t r)
{
    const vm_program *p = w->p;
    const trace_entry *e = &w->t->entries[i];
    const trace_effect *fx = &e->fx;
    int tid = e->tid;
    if (tid < 0 || (uint32_t)tid >= p->nthreads) return;
    w->pending[tid] = w->next[i];
    if (w->st[tid] == TH_UNBORN) w->st[tid] = TH_LIVE;
    const vm_insn *in = report_entry_insn(p, w->t, e);
    if (!fx->recorded || !fx->done) return; /* the erring instruction: nothing happened */
    bool lock_ok = fx->obj >= 0 && (uint32_t)fx->obj < p->nlocks;
    if (e->reacquire || in->op == VM_OP_acquire) {
        w->st[tid] = TH_LIVE;
        if (!lock_ok) return;
        if (w->holder[fx->obj] != tid) take_lane(w, tid, fx->obj, r);
        w->holder[fx->obj] = tid;
        w->seen_lock[fx->obj] = true;
    } else if (in->op == VM_OP_release || in->op == VM_OP_wait || in->op == VM_OP_cwait) {
        if (in->op != VM_OP_release) {
            w->st[tid] = TH_WAIT;
            w->wlock[tid] = fx->obj;
            w->wcv[tid] = in->op == VM_OP_cwait ? in : NULL;
            w->wcvi[tid] = in->cidx.kind == VM_ARG_IMM ? in->cidx.val : -1;
        }
        if (lock_ok && fx->val == 0 && w->holder[fx->obj] == tid) {
            w->holder[fx->obj] = -1;
            drop_lane(w, tid, fx->obj, r);
        }
    } else if (in->op == VM_OP_notify || in->op == VM_OP_notifyall ||
               in->op == VM_OP_csignal || in->op == VM_OP_cbroadcast) {
        for (uint32_t k = 0; k < fx->nwoke && fx->woke + k < w->t->nwoken; k++) {
            int32_t u = w->t->woken[fx->woke + k];
            if (u >= 0 && (uint32_t)u < p->nthreads && w->st[u] == TH_WAIT) w->st[u] = TH_NOTIFIED;
        }
    } else if (in->op == VM_OP_spawn) {
        if (fx->val >= 0 && (uint32_t)fx->val < p->nthreads) {
            w->st[fx->val] = TH_LIVE;
            w->born[fx->val] = r;
        }
    } else if (in->op == VM_OP_end) {
        w->st[tid] = TH_ENDED;
    }
}

/* The instruction thread `tid` stands at after the rows walked so far, and
 * the object its operand names there (lock element or thread id; -1). */
const vm_insn *html_stands_at(const walk *w, int tid, int32_t *obj)
{
    const vm_program *p = w->p;
    *obj = -1;
    if (w->pending[tid] < w->t->n) {
        const trace_entry *e = &w->t->entries[w->pending[tid]];
        if (!e->fx.recorded) return NULL;
        *obj = e->fx.obj;
        return report_entry_insn(p, w->t, e);
    }
    if (vm_tstatus_of(p, w->t->final_state, tid) != VM_T_RUNNING) return NULL;
    const vm_insn *in = report_insn_at(p, w->t->final_state, tid,
                                       vm_tpc(p, w->t->final_state, tid));
    if (!in) return NULL;
    if (in->op == VM_OP_acquire) {
        const vm_lockdecl *d = &p->lockdecls[in->obj];
        int32_t i = vm_operand_value(p, w->t->final_state, tid, &in->idx);
        if (i >= 0 && (uint32_t)i < d->size) *obj = (int32_t)(d->first + (uint32_t)i);
    } else if (in->op == VM_OP_join) {
        *obj = vm_operand_value(p, w->t->final_state, tid, &in->a);
    }
    return in;
}
