/* search.c: what every search strategy shares: the options' defaults and
 * the name of each option value, verdict and stop reason (one table per
 * enumeration, for parsing and printing), the sequential search's limit
 * check (over the runtime, runtime.c) with its progress line, statistics, error recording, and the parts
 * of insertion into the store that are not on the hot path (search_int.h
 * has those). It does not order the search: dfs.c and bfs.c do.
 * --memlimit counts everything the search allocates, as reserved bytes
 * (the capacity allocated, whether or not the OS has given it pages yet):
 * the store, the stack or queue, the fixed buffers (work vectors, caches)
 * and the errors it keeps. Checked after every transition, and before the
 * stack or queue grows, so that a big state vector cannot take it past the
 * limit in one step; a growth is clamped to the room left, so the reserved
 * total ends near the limit while far less of it may be resident. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search_int.h"

void explore_options_default(explore_options *o)
{
    memset(o, 0, sizeof *o);
    o->reduce = REDUCE_COMPOSE;
    o->search = SEARCH_DFS;
    o->store.kind = STORE_COMPACT;
    o->store.fingerprint_bits = 64;
    o->store.bitstate_k = 3;
    o->store.bitstate_bytes = 64u << 20;
    o->max_invisible = 100000;
    o->race = LS_LD; /* the reduction is sound only while LD' holds */
    o->preemption_bound = -1;
    o->delay_bound = -1;
    o->starved = -1;
    o->mpi_round_bytes = 0; /* mpi.c: 4 MB a round, mpi_async.c: 64 KB a batch */
    o->mpi_progress = RT_PROGRESS_EVERY;
}

/* ---- names ----------------------------------------------------------------- */

/* One table per enumeration, indexed by value: name_of() prints, name_find()
 * parses. */
static const char *const reduce_names[] = {[REDUCE_NONE] = "none", [REDUCE_COMPOSE] = "compose"};
static const char *const search_names[] = {[SEARCH_DFS] = "dfs", [SEARCH_BFS] = "bfs",
                                           [SEARCH_STATELESS] = "stateless"};
static const char *const race_names[] = {
    [LS_OFF] = "off", [LS_LD] = "ld", [LS_ERASER] = "eraser", [LS_GOLDILOCKS] = "goldilocks"};
static const char *const lookahead_names[] = {
    [LOOKAHEAD_AUTO] = "auto", [LOOKAHEAD_ON] = "on",   [LOOKAHEAD_CHILD] = "child",
    [LOOKAHEAD_SIBLING] = "sibling", [LOOKAHEAD_OFF] = "off"};
static const char *const verdict_names[] = {
    [VERDICT_OK] = "ok",
    [VERDICT_DEADLOCK] = "deadlock",
    [VERDICT_ASSERTION] = "assertion",
    [VERDICT_RUNTIME_ERROR] = "runtime_error",
    [VERDICT_LOCK_DISCIPLINE] = "lock_discipline",
    [VERDICT_RACE] = "race",
    [VERDICT_NON_PROGRESS] = "non_progress_cycle",
    [VERDICT_LTL] = "ltl_violated",
    [VERDICT_STARVATION] = "starvation",
    [VERDICT_INCOMPLETE] = "incomplete",
};
static const char *const stop_names[] = {
    [STOP_COMPLETE] = "complete",       [STOP_ERROR] = "error",
    [STOP_DEPTH] = "depth_limit",       [STOP_MEMLIMIT] = "memory_limit",
    [STOP_TIMELIMIT] = "time_limit",    [STOP_INTERRUPTED] = "interrupted",
    [STOP_NOMEM] = "out_of_memory",     [STOP_STATELIMIT] = "state_limit",
    [STOP_PREEMPTION] = "preemption_bound", [STOP_DELAY] = "delay_bound",
};

#define NAMES(t) (t), sizeof(t) / sizeof *(t)

static const char *name_of(const char *const *t, size_t n, int v)
{
    return v >= 0 && (size_t)v < n && t[v] ? t[v] : "?";
}

static bool name_find(const char *const *t, size_t n, const char *s, int *v)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] && strcmp(t[i], s) == 0) {
            *v = (int)i;
            return true;
        }
    return false;
}

const char *reduce_mode_name(reduce_mode m) { return name_of(NAMES(reduce_names), (int)m); }
const char *search_order_name(search_order s) { return name_of(NAMES(search_names), (int)s); }
const char *race_mode_name(ls_kind k) { return name_of(NAMES(race_names), (int)k); }
const char *lookahead_mode_name(lookahead_mode m)
{
    return name_of(NAMES(lookahead_names), (int)m);
}
static const char *const fairness_names[] = {
    [FAIR_NONE] = "none", [FAIR_WEAK] = "weak", [FAIR_STRONG] = "strong"};
const char *fairness_name(fairness_mode f) { return name_of(NAMES(fairness_names), (int)f); }
const char *verdict_name(verdict v) { return name_of(NAMES(verdict_names), (int)v); }
const char *stop_reason_name(stop_reason s) { return name_of(NAMES(stop_names), (int)s); }
static const char *const mem_part_names[] = {
    [MEM_NONE] = "none",       [MEM_STORE] = "store",     [MEM_STACK] = "stack",
    [MEM_QUEUE] = "queue",     [MEM_BUFFERS] = "buffers", [MEM_ERRORS] = "errors",
};
const char *mem_part_name(mem_part m) { return name_of(NAMES(mem_part_names), (int)m); }

/* The parsers: true and *out set if s names a value. */
#define PARSER(fn, type, table)                                                \
    bool fn(const char *s, type *out)                                          \
    {                                                                          \
        int v;                                                                 \
        if (!name_find(NAMES(table), s, &v)) return false;                     \
        *out = (type)v;                                                        \
        return true;                                                           \
    }
PARSER(reduce_mode_parse, reduce_mode, reduce_names)
PARSER(search_order_parse, search_order, search_names)
PARSER(race_mode_parse, ls_kind, race_names)
PARSER(lookahead_mode_parse, lookahead_mode, lookahead_names)
#undef PARSER

/* ---- memory, statistics, progress (the runtime: runtime.c) ---------------- */

/* Bytes reserved for the DFS stack or the BFS queue: the capacity of their
 * arrays (the DFS's frames and undo log, and the engine's own), not
 * counting the fixed buffers (S->vec_bytes). */
static uint64_t stack_queue_reserved(const search *S)
{
    uint64_t b = (uint64_t)S->dfs.cap * sizeof(frame) + S->dfs.undo_cap;
    if (S->eng && S->eng->reserved && S->ctx) b += S->eng->reserved(S);
    return b;
}

/* Of those, the most bytes that held entries at once: the longest undo log
 * and what the engine says it held (the deepest stack's frames, its
 * fullest maps, or every queued state's link and the most level vectors
 * held at once); the plain DFS's frames by default. */
static uint64_t stack_queue_used(const search *S)
{
    uint64_t levels = S->r->stats.max_depth + 1;
    uint64_t b = S->dfs.undo_peak;
    if (S->eng && S->eng->used && S->ctx)
        b += S->eng->used(S, levels);
    else if (S->dfs.cap)
        b += levels * sizeof(frame);
    return b;
}

uint64_t search_memory(const search *S)
{
    return (uint64_t)(S->st ? store_bytes(S->st) : 0) + stack_queue_reserved(S) + S->vec_bytes +
           S->lim.error_bytes;
}

uint64_t explore_counted_bytes(const explore_stats *x)
{
    return x->store_bytes + x->search_reserved + x->buffer_bytes + x->error_bytes;
}

void fill_stats(search *S)
{
    explore_stats *x = &S->r->stats;
    x->vector_bytes = S->ssize;
    if (S->st) {
        x->store_bytes = store_bytes(S->st);
        x->omission = store_omission_probability(S->st);
    }
    x->locksets = S->det ? ls_interned(S->det) : 0;
    x->detector_seconds = ls_seconds(S->det);
    x->search_reserved = stack_queue_reserved(S);
    x->search_used = stack_queue_used(S);
    x->buffer_bytes = S->vec_bytes;
    x->error_bytes = S->lim.error_bytes;
    x->refused_bytes = S->lim.refused;
    x->search_bytes = x->search_reserved + x->buffer_bytes;
    x->peak_rss = explore_peak_rss();
    x->seconds = now_since(&S->lim.t0);
}

void progress_line(search *S, double t)
{
    explore_stats *x = &S->r->stats;
    if (!S->st) { /* the stateless search */
        fprintf(S->o->progress,
                "mcheck: %" PRIu64 " executions, %" PRIu64 " transitions, depth bound %" PRIu64,
                x->executions, x->transitions, x->depth_bound);
        if (x->preemption_bound >= 0)
            fprintf(S->o->progress, ", preemption bound %" PRId64, x->preemption_bound);
        if (x->delay_bound >= 0)
            fprintf(S->o->progress, ", delay bound %" PRId64, x->delay_bound);
        fprintf(S->o->progress, ", %.0f s\n", t);
        fflush(S->o->progress);
        return;
    }
    rt_progress_line(S->o->progress, t, x->states_stored, x->transitions,
                     "depth %" PRIu64 ", store %.1f MB", x->max_depth,
                     (double)store_bytes(S->st) / 1048576.0);
}

/* Memory after every transition; time, interrupt and progress every
 * RT_CHECK_WORK units of work (and whether the look-ahead starts). Returns
 * false when the search must stop (S->lim.stop says why). */
bool limits_check(search *S)
{
    if (S->ahead.may && !S->ahead.on &&
        (S->o->lookahead != LOOKAHEAD_AUTO || store_bytes(S->st) > AHEAD_STORE_BYTES))
        ahead_start(S);
    if (S->o->memlimit && rt_memory_over(S->o, search_memory(S))) {
        S->lim.stop = STOP_MEMLIMIT;
        return false;
    }
    if (!rt_clock_due(&S->lim, search_work(S))) return true;
    double t = 0;
    stop_reason why = rt_check_time(&S->lim, S->o, &t);
    if (why != STOP_COMPLETE) {
        S->lim.stop = why;
        return false;
    }
    if (rt_progress_due(&S->lim, S->o, t)) progress_line(S, t);
    return true;
}

/* New capacity for an array of `cap` entries of `entry` bytes that must
 * hold `need`: double it (starting with about `first_bytes` worth, at
 * least 2 entries, at most `first_max`), but never past --memlimit, so a
 * search with big vectors stops at the limit instead of allocating far
 * beyond it. 0 (S->lim.stop set) if `need` does not fit. `enforce` is false
 * only for the initial state, which the search cannot do without: it gets
 * `need` entries then, even past the limit (the next check stops). */
uint64_t grown_capacity(search *S, uint64_t cap, uint64_t need, size_t entry,
                        size_t first_bytes, uint64_t first_max, bool enforce)
{
    uint64_t nc = cap ? cap * 2 : first_bytes / entry;
    if (!cap && nc > first_max) nc = first_max;
    if (nc < 2) nc = 2;
    if (nc < need) nc = need;
    if (nc > SIZE_MAX / entry / 2) { /* no allocation could be that big */
        S->lim.stop = STOP_NOMEM;
        return 0;
    }
    if (S->o->memlimit) {
        uint64_t used = search_memory(S);
        uint64_t room = used < S->o->memlimit ? (S->o->memlimit - used) / entry : 0;
        if (nc - cap > room) nc = cap + room;
        if (nc < need && enforce) {
            S->lim.stop = STOP_MEMLIMIT;
            S->lim.refused = (need - cap) * entry;
            return 0;
        }
        if (nc < need) nc = need;
    }
    return nc;
}

/* ---- states and errors ------------------------------------------------------ */

/* Is every thread at a control point the reduced search can store: a
 * visible pc, or an instruction that errs in this state (the composed step
 * ends before it)? For --dump-states of the full search only (it steps a
 * scratch copy). */
static bool all_visible(search *S, const uint8_t *s)
{
    const vm_program *p = S->p;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        if (vm_at_visible(p, s, (int)t)) continue;
        if (!S->scratch && !(S->scratch = malloc(S->vsize))) return false;
        memcpy(S->scratch, s, S->ssize);
        vm_fault f;
        vm_status rc = vm_step(p, S->scratch, (int)t, 0, &S->hooks, &f);
        if (rc == VM_OK) return false;
    }
    return true;
}

/* --dump-states: the hex of a stored non-error state (of the full search:
 * only when every thread can be at a visible control point), then
 * " deadlock" if it is one. */
void dump_state(search *S, const uint8_t *s, bool deadlock)
{
    static const char hex[] = "0123456789abcdef";
    if (!S->o->dump_states) return;
    if (S->o->reduce == REDUCE_NONE && !all_visible(S, s)) return;
    if (S->dump_lock) pthread_mutex_lock(S->dump_lock);
    for (size_t i = 0; i < S->p->layout.size; i++) {
        fputc(hex[s[i] >> 4], S->o->dump_states);
        fputc(hex[s[i] & 15], S->o->dump_states);
    }
    if (deadlock) fputs(" deadlock", S->o->dump_states);
    fputc('\n', S->o->dump_states);
    if (S->dump_lock) pthread_mutex_unlock(S->dump_lock);
}

/* Record an error with its path (the first max_traces errors keep it; later
 * ones are counted, so --all-errors on a model with thousands of deep
 * errors stays within memory). Returns false if the search must stop. */
bool record_error(search *S, const step_outcome *e, const explore_step *path, uint32_t len)
{
    explore_result *r = S->r;
    r->error_count[e->kind]++;
    /* explore_shorten(): another error is searched past (it has no successors) */
    if (S->o->target && !explore_error_matches(S->o->target, e->cause, e->fault, e->body, e->pc,
                                               e->elem))
        return true;
    if (keeps_trace(S)) {
        explore_error *ne = realloc(r->errors, (r->nerrors + 1) * sizeof *ne);
        if (!ne) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        r->errors = ne;
        S->lim.error_bytes += sizeof *ne;
        explore_error *er = &ne[r->nerrors];
        step_error(er, e, len);
        er->path = malloc((len ? len : 1) * sizeof *path);
        if (!er->path) {
            S->lim.stop = STOP_NOMEM;
            return false;
        }
        if (len) memcpy(er->path, path, len * sizeof *path);
        S->lim.error_bytes += (len ? len : 1) * sizeof *path;
        r->nerrors++;
    }
    if (!S->o->all_errors) {
        S->lim.stop = STOP_ERROR;
        return false;
    }
    return true;
}

void deadlock_outcome(step_outcome *e)
{
    e->kind = VERDICT_DEADLOCK;
    e->cause = CAUSE_DEADLOCK;
    e->fault = VM_FAULT_ASSERTION; /* not read; set, so that errors compare alike */
    e->tid = -1;
    e->pc = 0;
    e->body = UINT32_MAX;
    e->elem = UINT32_MAX;
    snprintf(e->msg, sizeof e->msg, "deadlock: no thread can move");
}

bool search_initial(search *S, uint8_t *v, explore_stats *dry)
{
    memset(v, 0, S->wsize);
    memcpy(v, S->p->init_state, S->p->layout.size);
    if (S->det) ls_init_meta(S->det, v);
    if (S->env.fold_start && !step_fold_starts(&S->env, v, dry, false)) {
        rt_stop(&S->lim, STOP_NOMEM);
        return false;
    }
    return true;
}

bool lasso_step(search *S, uint8_t *v, explore_step st, explore_stats *dry)
{
    step_outcome out;
    if (!step_run(&S->env, v, st.tid, st.choice, &out, dry)) {
        rt_stop(&S->lim, STOP_NOMEM);
        return false;
    }
    if (out.kind != VERDICT_OK) return false;
    mark_outcome(S, v, &out);
    return true;
}

void search_layout(search *S, size_t product_bytes)
{
    S->ssize = S->p->layout.size + ls_meta_bytes(S->det);
    S->vsize = S->ssize + 1;
    S->wsize = (S->vsize + product_bytes + 7) & ~(size_t)7;
}

void search_env(search *S, const struct timespec *t0)
{
    S->env = step_env_new(S->p, S->o, &S->hooks, S->det, S->ssize, S->ran);
    S->env.stopped = &S->lim.stop;
    S->env.t0 = t0;
}
