/* replay.c: trace replay. Re-executes an error's path of scheduling
 * decisions from the initial state through the same composed step as the
 * search (step_run(), Stoller's C(M) transition, section 5.1), with a
 * fresh detector, and records every instruction executed, with what the
 * detector saw at each access, so a composed step expands into the
 * instructions it ran (with --por, the static threads' invisible starts
 * as step 0, and a spawned thread's in its spawn step). A replay that
 * cannot follow the path says so
 * (hash compaction can make a reconstructed path wrong). Each entry also
 * records what its instruction did with values (trace_effect: resolved
 * operands, values read and written, whom a notify woke), read from the
 * state before it (step_env.before) and the state after it (the next
 * `before`, or the end of the step), as SPIN's and TLC's counterexamples
 * show the state; the search runs without any of this. With
 * trace_replay_states() (--trace-states) it also keeps a copy of the whole
 * state (vm part) after each step. It does not print: tools/ does. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search_int.h" /* deadlock_outcome(), any_enabled() */
#include "step_int.h"

/* The replay's context: the trace being recorded, its capacity, and the
 * detector's own hooks (the replay's hooks wrap them). An entry is
 * `cur` while its instruction runs (the detector's access hook fills it
 * in, a cut drops it); once the state after it is seen it is committed:
 * passed to the sink, then kept in the step's head (the first `keep`
 * entries, in t->entries) or its tail (a ring of the last `keep`), an
 * entry pushed out of the ring counting as left out (`gap`). At the step's
 * end the ring is appended to t->entries. */
typedef struct replay_ctx {
    vm_hooks det_hooks;
    ls_detector *det;
    const vm_program *p;
    const explore_options *o;
    trace *t;
    uint32_t cap;
    uint32_t step;      /* the number of the step being replayed, from 1 */
    uint32_t woken_cap;
    bool keep_states;   /* trace_replay_states(): a copy after each step */
    uint32_t states_cap;
    trace_entry cur;
    bool has_cur;
    uint32_t keep;
    uint64_t in_step;   /* entries of the step committed */
    trace_entry *ring;  /* keep slots; the oldest at ring_start */
    uint32_t ring_n, ring_start;
    uint64_t gap;       /* entries of the step left out */
    uint32_t period;    /* the gap's known period (0: none) */
    size_t state_bytes;
    struct timespec t0;
    uint64_t count;     /* instructions announced, for the clock checks */
    stop_reason stop;   /* a limit stopped the replay */
    trace_sink sink;
    void *sink_ctx;
} replay_ctx;

/* Bytes the replay holds, counted against --memlimit. */
static uint64_t replay_bytes(const replay_ctx *rc)
{
    return (uint64_t)rc->cap * sizeof(trace_entry) + (uint64_t)rc->keep * sizeof(trace_entry) +
           (uint64_t)rc->woken_cap * sizeof(int32_t) + rc->state_bytes;
}

static bool trace_push(replay_ctx *rc, const trace_entry *e)
{
    trace *t = rc->t;
    if (t->n == rc->cap) {
        if (rc->cap >= UINT32_MAX / 2) return false;
        uint32_t nc = rc->cap ? rc->cap * 2 : 64;
        if (rc->o->memlimit &&
            replay_bytes(rc) + (uint64_t)(nc - rc->cap) * sizeof(trace_entry) > rc->o->memlimit) {
            rc->stop = STOP_MEMLIMIT;
            return false;
        }
        trace_entry *ne = realloc(t->entries, nc * sizeof *ne);
        if (!ne) return false;
        t->entries = ne;
        rc->cap = nc;
    }
    t->entries[t->n++] = *e;
    return true;
}

/* With keep_states: a copy of the vm part of `s`, the state after the
 * step being replayed. False: out of memory. */
static bool states_push(replay_ctx *rc, const uint8_t *s)
{
    trace *t = rc->t;
    uint32_t size = rc->p->layout.size;
    if (!rc->keep_states) return true;
    if (t->nstates == rc->states_cap) {
        uint32_t nc = rc->states_cap ? rc->states_cap * 2 : 16;
        uint8_t *ns = realloc(t->states, (size_t)nc * size);
        if (!ns) return false;
        t->states = ns;
        rc->states_cap = nc;
    }
    memcpy(t->states + (size_t)t->nstates++ * size, s, size);
    t->states_bytes = (uint64_t)rc->states_cap * size;
    return true;
}

static bool same_insn(const trace_entry *a, const trace_entry *b)
{
    return a->tid == b->tid && a->pc == b->pc && a->reacquire == b->reacquire;
}

/* The ring's i-th oldest entry. */
static trace_entry *ring_at(const replay_ctx *rc, uint32_t i)
{
    return &rc->ring[(rc->ring_start + i) % rc->keep];
}

/* When the gap opens (the ring is full): the smallest period p <= keep / 2
 * of the last p entries of the head and the whole ring, or 0. */
static uint32_t gap_period(const replay_ctx *rc)
{
    const trace_entry *head = rc->t->entries + rc->t->n; /* head[-i]: i-th last */
    for (uint32_t p = 1; p <= rc->keep / 2; p++) {
        bool ok = true;
        for (uint32_t x = 0; ok && x < p; x++) /* head's last p against the ring's first */
            ok = same_insn(&head[(int64_t)x - p], ring_at(rc, x));
        for (uint32_t x = 0; ok && x + p < rc->keep; x++)
            ok = same_insn(ring_at(rc, x), ring_at(rc, x + p));
        if (ok) return p;
    }
    return 0;
}

/* A complete entry: to the sink, then kept or left out. */
static bool commit(replay_ctx *rc, const trace_entry *e)
{
    trace *t = rc->t;
    t->instructions++;
    if (rc->sink && !rc->sink(rc->sink_ctx, t, e)) return false;
    if (rc->in_step++ < rc->keep) return trace_push(rc, e);
    if (rc->ring_n < rc->keep) {
        *ring_at(rc, rc->ring_n++) = *e;
        return true;
    }
    /* the ring is full: its oldest entry is left out */
    if (rc->gap == 0)
        rc->period = gap_period(rc);
    else if (rc->period && !same_insn(ring_at(rc, 0), ring_at(rc, rc->period)))
        rc->period = 0;
    rc->gap++;
    t->omitted++;
    rc->ring[rc->ring_start] = *e;
    rc->ring_start = (rc->ring_start + 1) % rc->keep;
    return true;
}

/* The step ended: its tail joins the trace. */
static bool flush_step(replay_ctx *rc)
{
    for (uint32_t i = 0; i < rc->ring_n; i++) {
        trace_entry e = *ring_at(rc, i);
        if (i == 0) {
            e.omitted = rc->gap;
            e.omitted_period = rc->gap ? rc->period : 0;
        }
        if (!trace_push(rc, &e)) return false;
    }
    rc->in_step = rc->gap = 0;
    rc->ring_n = rc->ring_start = rc->period = 0;
    return true;
}

/* A limit that stops the replay: the time (from the run's start), an
 * interrupt. */
static bool replay_limit(replay_ctx *rc)
{
    const explore_options *o = rc->o;
    if (o->interrupt && *o->interrupt) rc->stop = STOP_INTERRUPTED;
    if (o->timelimit > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - rc->t0.tv_sec) + (double)(now.tv_nsec - rc->t0.tv_nsec) * 1e-9;
        if (el >= o->timelimit) rc->stop = STOP_TIMELIMIT;
    }
    return rc->stop != STOP_COMPLETE;
}

/* ---- what an instruction did with values (trace_effect) ---------------- */

static bool woken_push(replay_ctx *rc, int32_t tid)
{
    trace *t = rc->t;
    if (t->nwoken == rc->woken_cap) {
        uint32_t nc = rc->woken_cap ? rc->woken_cap * 2 : 16;
        int32_t *nw = realloc(t->woken, nc * sizeof *nw);
        if (!nw) return false;
        t->woken = nw;
        rc->woken_cap = nc;
    }
    t->woken[t->nwoken++] = tid;
    return true;
}

/* NAME[idx] of the instruction's lock (`lock`) or variable: the element,
 * or -1 when the index is out of range; the index in fx->idx. */
static void fx_resolve(const vm_program *p, const uint8_t *s, int tid, const vm_insn *in,
                       bool lock, trace_effect *fx)
{
    int32_t i = vm_operand_value(p, s, tid, &in->idx);
    uint32_t size = lock ? p->lockdecls[in->obj].size : p->vars[in->obj].size;
    uint32_t first = lock ? p->lockdecls[in->obj].first : p->vars[in->obj].first_elem;
    fx->idx = i;
    fx->obj = i >= 0 && (uint32_t)i < size ? (int32_t)(first + (uint32_t)i) : -1;
}

static uint32_t lock_depth(const vm_program *p, const uint8_t *s, uint32_t l)
{
    return vm_rd16(s, p->layout.locks_off + l * p->layout.lock_bytes + 1);
}

/* The entry's effect as far as the state before it tells: resolved
 * objects, old values, the threads a notify wakes. False: out of memory. */
static bool fx_before(replay_ctx *rc, const uint8_t *s, trace_entry *e)
{
    const vm_program *p = rc->p;
    trace_effect *fx = &e->fx;
    *fx = (trace_effect){.recorded = true, .obj = -1};
    const vm_body *b = vm_thread_body(p, s, e->tid);
    if (!b || e->pc >= b->ncode) return true;
    const vm_insn *in = &b->code[e->pc];
    const vm_thread_slot *sl = &p->threads[e->tid];
    if (e->reacquire) { /* the re-acquire of a wait */
        fx_resolve(p, s, e->tid, in, true, fx);
        return true;
    }
    switch ((enum vm_opcode)in->op) {
    case VM_OP_load:
        fx_resolve(p, s, e->tid, in, false, fx);
        fx->old = vm_rd32(s, vm_treg_off(sl, in->rd));
        break;
    case VM_OP_store:
        fx_resolve(p, s, e->tid, in, false, fx);
        if (fx->obj >= 0) fx->old = vm_global(p, s, (uint32_t)fx->obj);
        break;
    case VM_OP_recv:
        fx->obj = in->obj;
        /* fall through */
    case VM_OP_mov: case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_div:
    case VM_OP_mod: case VM_OP_and: case VM_OP_or: case VM_OP_xor: case VM_OP_shl:
    case VM_OP_shr: case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le:
    case VM_OP_gt: case VM_OP_ge: case VM_OP_not: case VM_OP_neg: case VM_OP_choose:
    case VM_OP_spawn:
        fx->old = vm_rd32(s, vm_treg_off(sl, in->rd));
        break;
    case VM_OP_jz: case VM_OP_jnz: case VM_OP_assert: case VM_OP_assume:
        fx->old = vm_operand_value(p, s, e->tid, &in->a);
        break;
    case VM_OP_send:
        fx->obj = in->obj;
        fx->old = vm_operand_value(p, s, e->tid, &in->a);
        break;
    case VM_OP_join:
        fx->obj = vm_operand_value(p, s, e->tid, &in->a);
        break;
    case VM_OP_acquire: case VM_OP_release: case VM_OP_wait: case VM_OP_cwait:
        fx_resolve(p, s, e->tid, in, true, fx);
        break;
    case VM_OP_csignal: case VM_OP_cbroadcast: { /* obj stays -1: no lock */
        int32_t i = vm_operand_value(p, s, e->tid, &in->cidx);
        const vm_lockdecl *d = &p->conddecls[in->cond];
        fx->idx = i;
        if (i < 0 || (uint32_t)i >= d->size) break; /* faults */
        const uint8_t *ws = s + vm_cond_off(p, d->first + (uint32_t)i);
        uint64_t k = 0; /* csignal wakes the choice-th waiter in id order */
        fx->woke = rc->t->nwoken;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            if (!(ws[t >> 3] & (1u << (t & 7)))) continue;
            if (in->op == VM_OP_cbroadcast || k++ == e->choice) {
                if (!woken_push(rc, (int32_t)t)) return false;
                fx->nwoke++;
            }
        }
        break;
    }
    case VM_OP_notify: case VM_OP_notifyall: {
        fx_resolve(p, s, e->tid, in, true, fx);
        if (fx->obj < 0 || vm_lock_owner(p, s, (uint32_t)fx->obj) != e->tid) break; /* faults */
        const uint8_t *ws = s + p->layout.locks_off + (uint32_t)fx->obj * p->layout.lock_bytes + 3;
        uint64_t k = 0; /* notify wakes the choice-th waiter in id order */
        fx->woke = rc->t->nwoken;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            if (!(ws[t >> 3] & (1u << (t & 7)))) continue;
            if (in->op == VM_OP_notifyall || k++ == e->choice) {
                if (!woken_push(rc, (int32_t)t)) return false;
                fx->nwoke++;
            }
        }
        break;
    }
    case VM_OP_call: case VM_OP_ret: /* the return-stack depth before it */
        fx->old = sl->stack_off ? s[sl->offset + sl->stack_off] : 0;
        break;
    case VM_OP_nop: case VM_OP_jmp: case VM_OP_end: case VM_OP_atomic: case VM_OP_end_atomic:
    case VM_OP_COUNT:
        break;
    }
    return true;
}

/* The rest of the entry's effect, from the state `s` just after it. */
static void fx_after(const vm_program *p, const uint8_t *s, trace_entry *e)
{
    trace_effect *fx = &e->fx;
    const vm_body *b = vm_thread_body(p, s, e->tid);
    if (!fx->recorded || !b || e->pc >= b->ncode) return;
    const vm_insn *in = &b->code[e->pc];
    fx->done = true;
    if (e->reacquire) {
        if (fx->obj >= 0) fx->val = (int32_t)lock_depth(p, s, (uint32_t)fx->obj);
        return;
    }
    switch ((enum vm_opcode)in->op) {
    case VM_OP_store:
        if (fx->obj >= 0) fx->val = vm_global(p, s, (uint32_t)fx->obj);
        break;
    case VM_OP_mov: case VM_OP_add: case VM_OP_sub: case VM_OP_mul: case VM_OP_div:
    case VM_OP_mod: case VM_OP_and: case VM_OP_or: case VM_OP_xor: case VM_OP_shl:
    case VM_OP_shr: case VM_OP_eq: case VM_OP_ne: case VM_OP_lt: case VM_OP_le:
    case VM_OP_gt: case VM_OP_ge: case VM_OP_not: case VM_OP_neg: case VM_OP_choose:
    case VM_OP_spawn: case VM_OP_load: case VM_OP_recv:
        fx->val = vm_rd32(s, vm_treg_off(&p->threads[e->tid], in->rd));
        break;
    case VM_OP_acquire: case VM_OP_release: case VM_OP_wait: case VM_OP_cwait:
        if (fx->obj >= 0) fx->val = (int32_t)lock_depth(p, s, (uint32_t)fx->obj);
        break;
    case VM_OP_call: /* the pc it returns to */
        fx->val = (int32_t)e->pc + 1;
        break;
    case VM_OP_ret: /* the pc it returned to (the thread's pc now) */
        fx->val = (int32_t)vm_tpc(p, s, e->tid);
        break;
    case VM_OP_nop: case VM_OP_jmp: case VM_OP_jz: case VM_OP_jnz: case VM_OP_assert:
    case VM_OP_send: case VM_OP_join: case VM_OP_notify: case VM_OP_notifyall:
    case VM_OP_csignal: case VM_OP_cbroadcast:
    case VM_OP_end: case VM_OP_assume: case VM_OP_atomic: case VM_OP_end_atomic:
    case VM_OP_COUNT:
        break;
    }
}

/* The current entry ran to completion and `s` is the state after it:
 * commit it. False: out of memory, or a limit (rc->stop). */
static bool fx_settle(replay_ctx *rc, const uint8_t *s)
{
    if (!rc->has_cur) return true;
    rc->has_cur = false;
    fx_after(rc->p, s, &rc->cur);
    return commit(rc, &rc->cur);
}

/* step_env.before: an entry for the instruction about to run (and `s`
 * is the state after the one before it). */
static bool replay_before(void *ctx, const uint8_t *s, int tid, uint64_t choice, bool first)
{
    replay_ctx *rc = ctx;
    if (!fx_settle(rc, s)) return false;
    if ((++rc->count & 0xFFFF) == 0 && replay_limit(rc)) return false;
    rc->cur = trace_entry_at(rc->p, s, rc->step, tid, choice, first);
    rc->has_cur = true;
    return fx_before(rc, s, &rc->cur);
}

trace_entry trace_entry_at(const vm_program *p, const uint8_t *s, uint32_t step, int tid,
                           uint64_t choice, bool first)
{
    enum vm_tstatus st = vm_tstatus_of(p, s, tid);
    return (trace_entry){.step = step,
                         .tid = tid,
                         .pc = vm_tpc(p, s, tid),
                         .choice = choice,
                         .first = first,
                         .reacquire = st != VM_T_RUNNING, /* a waiting thread's too */
                         .spurious = st == VM_T_WAITING,
                         .elem = -1};
}

/* step_env.cut: the step ended before the instruction announced last. */
static void replay_cut(void *ctx)
{
    replay_ctx *rc = ctx;
    /* Only the instruction announced last: step_fold_start() tries a
     * thread's start unobserved before it records it, never cutting an
     * entry already committed. */
    if (!rc->has_cur) return;
    if (rc->cur.fx.nwoke) rc->t->nwoken = rc->cur.fx.woke; /* its notify never ran */
    rc->has_cur = false;
}

/* The replay's access hook: the detector's, and a note of what it saw in
 * the trace entry being executed (the last one). */
static bool replay_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    replay_ctx *rc = ctx;
    trace_entry *e = &rc->cur;
    e->elem = (int32_t)elem;
    e->write = write;
    e->held = ls_held(rc->det, s, tid);
    bool stop = rc->det_hooks.access &&
                rc->det_hooks.access(rc->det_hooks.ctx, s, tid, elem, write);
    e->set = stop ? UINT32_MAX : ls_elem_set(rc->det, s, elem);
    e->checked = !stop && ls_elem_checked(rc->det, s, elem);
    return stop;
}

/* The other hooks pass through to the detector. */
#define REPLAY_HOOK(name, T)                                                   \
    static bool replay_##name(void *ctx, uint8_t *s, int a, T b)                \
    {                                                                          \
        replay_ctx *rc = ctx;                                                  \
        return rc->det_hooks.name(rc->det_hooks.ctx, s, a, b);                 \
    }
REPLAY_HOOK(acquire, uint32_t)
REPLAY_HOOK(release, uint32_t)
REPLAY_HOOK(spawn, int)
REPLAY_HOOK(join, int)
REPLAY_HOOK(send, uint32_t)
REPLAY_HOOK(recv, uint32_t)
#undef REPLAY_HOOK


int trace_replay(const vm_program *p, const explore_options *o, const explore_step *path,
                 uint32_t len, trace *t)
{
    return trace_replay_with(p, o, path, len, NULL, t);
}

int trace_replay_states(const vm_program *p, const explore_options *o, const explore_step *path,
                        uint32_t len, trace *t)
{
    trace_replay_opts ro = {.keep_states = true};
    return trace_replay_with(p, o, path, len, &ro, t);
}

int trace_replay_with(const vm_program *p, const explore_options *o, const explore_step *path,
                      uint32_t len, const trace_replay_opts *ro, trace *t)
{
    ls_kind race = o->race;
    memset(t, 0, sizeof *t);
    int rc = -1;
    vm_hooks h = {0};
    ls_detector *det = NULL;
    replay_ctx rctx = {.t = t, .p = p, .o = o, .keep = ro && ro->keep ? ro->keep : TRACE_KEEP,
                       .sink = ro ? ro->sink : NULL, .sink_ctx = ro ? ro->sink_ctx : NULL,
                       .keep_states = ro && ro->keep_states};
    if (ro && ro->t0)
        rctx.t0 = *ro->t0;
    else
        clock_gettime(CLOCK_MONOTONIC, &rctx.t0);
    if (ls_needed(race, p)) { /* LS_OFF too, to check unshared variables */
        if (!(det = ls_new_opts(race, p, p->layout.size, o->por))) return -1;
        ls_hooks(det, &rctx.det_hooks);
        h = rctx.det_hooks;
        rctx.det = det;
        h.ctx = &rctx;
        h.access = replay_access;
        if (h.acquire) h.acquire = replay_acquire;
        if (h.release) h.release = replay_release;
        if (h.spawn) h.spawn = replay_spawn;
        if (h.join) h.join = replay_join;
        if (h.send) h.send = replay_send;
        if (h.recv) h.recv = replay_recv;
    }
    t->det = det; /* the sink may name the detector's sets */
    size_t state_bytes = p->layout.size + ls_meta_bytes(det);
    rctx.state_bytes = state_bytes;
    uint8_t **ran = step_ran_new(p); /* written by the steps, not read */
    step_env env = step_env_new(p, o, &h, det, state_bytes, ran);
    env.timelimit = 0; /* trace replay has its own checks (stopped NULL) */
    env.interrupt = NULL;
    env.before = replay_before;
    env.cut = replay_cut;
    env.ctx = &rctx;
    bool fold = env.fold_start;
    explore_stats counts = {0}; /* not reported */
    uint8_t *s = malloc(state_bytes);
    rctx.ring = malloc(rctx.keep * sizeof *rctx.ring);
    if (!s || !ran || !rctx.ring || (fold && !env.fold_undo)) {
        free(s);
        goto out;
    }
    memcpy(s, p->init_state, p->layout.size);
    if (det) ls_init_meta(det, s);
    t->final_state = s;
    /* --por: the static threads' invisible starts, as the search's initial
     * state has them: the entries of step 0 */
    rctx.step = 0;
    if (fold && !step_fold_starts(&env, s, &counts, true)) goto stopped; /* no memory */
    if (!fx_settle(&rctx, s) || !flush_step(&rctx)) goto stopped;
    t->states_from = t->n ? 0 : 1; /* step 0: the folded starts */
    if (t->n && !states_push(&rctx, s)) goto stopped;
    for (uint32_t i = 0; i < len; i++) {
        int tid = path[i].tid;
        if (tid < 0 || (uint32_t)tid >= p->nthreads || vm_enabled(p, s, tid) <= path[i].choice) {
            t->diverged = true;
            t->stuck = i + 1;
            t->end.len = i;
            snprintf(t->why, sizeof t->why,
                     "step %" PRIu32 " is not executable on replay", i + 1);
            rc = 0;
            goto out;
        }
        rctx.step = i + 1;
        step_outcome so;
        if (!step_run_observed(&env, s, tid, path[i].choice, &so, &counts)) goto stopped;
        /* the step's last instruction completed, unless it is the erring one */
        if (so.kind == VERDICT_OK || so.cause == CAUSE_BOUNDED_INVIS)
            if (!fx_settle(&rctx, s)) goto stopped;
        if (!states_push(&rctx, s)) goto stopped;
        if (so.kind != VERDICT_OK) { /* the path ends here */
            snprintf(t->why, sizeof t->why, "%s", so.msg);
            step_error(&t->end, &so, i + 1);
            if (i + 1 != len && so.cause != CAUSE_BOUNDED_INVIS) t->diverged = true;
            rc = 0;
            goto out;
        }
        if (!flush_step(&rctx)) goto stopped;
    }
    t->end.len = len;
    if (!any_enabled(p, s) && !vm_valid_end(p, s)) { /* as the search's is_deadlock() */
        step_outcome so;
        deadlock_outcome(&so);
        step_error(&t->end, &so, len);
    }
    rc = 0;
    goto out;
stopped: /* out of memory, a limit, or the sink said stop */
    rc = rctx.stop != STOP_COMPLETE ? 0 : -1;
    t->stopped = rctx.stop;
    rctx.has_cur = false; /* its instruction may not have run */
out:
    /* the erring instruction (it did not complete), and the last tail */
    if (rc == 0 && rctx.has_cur && !commit(&rctx, &rctx.cur) && rctx.stop == STOP_COMPLETE) rc = -1;
    if (rc == 0 && !flush_step(&rctx) && rctx.stop == STOP_COMPLETE) rc = -1;
    if (rc == 0 && rctx.stop != STOP_COMPLETE) t->stopped = rctx.stop;
    free(rctx.ring);
    free(env.fold_undo);
    free(ran);
    if (rc != 0) {
        ls_free(det);
        t->det = NULL;
    }
    return rc;
}

void trace_free(trace *t)
{
    if (!t) return;
    ls_free(t->det);
    free(t->states);
    free(t->entries);
    free(t->woken);
    free(t->final_state);
    memset(t, 0, sizeof *t);
}
