/* replay.c: trace replay. Re-executes an error's path of scheduling
 * decisions from the initial state through the same composed step as the
 * search (step_run(), Stoller's C(M) transition, section 5.1), with a
 * fresh detector, and records every instruction executed, with what the
 * detector saw at each access, so a composed step expands into the
 * instructions it ran (with --por, the static threads' invisible starts
 * as step 0, and a spawned thread's in its spawn step). A replay that
 * cannot follow the path says so
 * (hash compaction can make a reconstructed path wrong). It does not print:
 * tools/ does. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "step_int.h"

/* The replay's context: the trace being recorded, its capacity, and the
 * detector's own hooks (the replay's hooks wrap them). */
typedef struct replay_ctx {
    vm_hooks det_hooks;
    ls_detector *det;
    const vm_program *p;
    trace *t;
    uint32_t cap;
    uint32_t step;      /* the number of the step being replayed, from 1 */
} replay_ctx;

static bool trace_push(trace *t, uint32_t *cap, const trace_entry *e)
{
    if (t->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 64;
        trace_entry *ne = realloc(t->entries, nc * sizeof *ne);
        if (!ne) return false;
        t->entries = ne;
        *cap = nc;
    }
    t->entries[t->n++] = *e;
    return true;
}

/* step_env.before: an entry for the instruction about to run. */
static bool replay_before(void *ctx, const uint8_t *s, int tid, uint64_t choice, bool first)
{
    replay_ctx *rc = ctx;
    trace_entry e = trace_entry_at(rc->p, s, rc->step, tid, choice, first);
    return trace_push(rc->t, &rc->cap, &e);
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
    rc->t->n--;
}

/* The replay's access hook: the detector's, and a note of what it saw in
 * the trace entry being executed (the last one). */
static bool replay_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    replay_ctx *rc = ctx;
    trace_entry *e = &rc->t->entries[rc->t->n - 1];
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
    ls_kind race = o->race;
    memset(t, 0, sizeof *t);
    int rc = -1;
    vm_hooks h = {0};
    ls_detector *det = NULL;
    replay_ctx rctx = {.t = t, .p = p};
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
    size_t state_bytes = p->layout.size + ls_meta_bytes(det);
    bool fold = o->por && o->reduce == REDUCE_COMPOSE;
    step_env env = {.p = p, .hooks = &h, .det = det, .reduce = o->reduce,
                    .max_invisible = o->max_invisible, .fold_start = fold,
                    .fold_undo = fold ? malloc(state_bytes) : NULL, .state_bytes = state_bytes,
                    .before = replay_before, .cut = replay_cut, .ctx = &rctx};
    uint8_t **ran = step_ran_new(p); /* written by the steps, not read */
    env.ran = ran;
    explore_stats counts = {0}; /* not reported */
    uint8_t *s = malloc(state_bytes);
    if (!s || !ran || (fold && !env.fold_undo)) {
        free(s);
        goto out;
    }
    memcpy(s, p->init_state, p->layout.size);
    if (det) ls_init_meta(det, s);
    t->final_state = s;
    /* --por: the static threads' invisible starts, as the search's initial
     * state has them: the entries of step 0 */
    rctx.step = 0;
    if (fold && !step_fold_starts(&env, s, &counts, true)) goto out; /* no memory */
    for (uint32_t i = 0; i < len; i++) {
        int tid = path[i].tid;
        if (tid < 0 || (uint32_t)tid >= p->nthreads || vm_enabled(p, s, tid) <= path[i].choice) {
            t->diverged = true;
            snprintf(t->why, sizeof t->why,
                     "step %" PRIu32 " is not executable on replay", i + 1);
            rc = 0;
            goto out;
        }
        rctx.step = i + 1;
        step_outcome so;
        if (!step_run_observed(&env, s, tid, path[i].choice, &so, &counts)) goto out; /* no memory */
        if (so.kind != VERDICT_OK) { /* the path ends here */
            snprintf(t->why, sizeof t->why, "%s", so.msg);
            if (i + 1 != len && so.cause != CAUSE_BOUNDED_INVIS) t->diverged = true;
            rc = 0;
            goto out;
        }
    }
    rc = 0;
out:
    free(env.fold_undo);
    free(ran);
    if (rc == 0)
        t->det = det;
    else
        ls_free(det);
    return rc;
}

void trace_free(trace *t)
{
    if (!t) return;
    ls_free(t->det);
    free(t->entries);
    free(t->final_state);
    memset(t, 0, sizeof *t);
}
