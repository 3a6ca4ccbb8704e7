/* record.c: `mcheck --simulate --record FILE`: the events of the simulated
 * run, read off the interpreter's hooks (vm.h), compressed online with
 * Sequitur (trace.h) and written as a grammar file for `mcheck trace`.
 *
 * What is recorded (notes A8; docs/usage.md, "Traces", says the same):
 * - threads: every static thread and every spawned instance is its own
 *   trace thread, named as traces name it (main, w[1]); a spawn is
 *   fork(child) by the parent;
 * - locks: the ownership changes the hooks report, so a re-entrant acquire
 *   records nothing and a wait is one rel (its whole depth goes at once),
 *   its re-acquire one acq; atomic blocks are the hidden lock "(atomic)",
 *   as the detectors see them;
 * - shared and unshared variables by element (x, meals[2]); volatile ones
 *   are left out (racy by definition, not data);
 * - channels: A8's pseudo-lock per slot, "(chan:NAME:K)": the k-th send on
 *   a channel of capacity C is acq; rel of slot k mod C, and so is the k-th
 *   recv (FIFO: it gets the k-th message), which orders send k before recv
 *   k and recv k before send k + C. A rendezvous channel has one slot, and
 *   the hooks report send and recv for each side: both ways, exactly as
 *   --race=goldilocks orders a rendezvous in the search. On a buffered
 *   channel Goldilocks differs (send t -> c, recv c -> t: every send before
 *   every later recv, no recv before a send), which no matched acq/rel
 *   encoding gives; the trace must be well formed (trace.h: a lock released
 *   only by its holder), so the slots, and docs/usage.md says the difference;
 * - join(u) by the thread that spawned u (or by any one thread, for a
 *   static u): another joiner stops the recording with an error (trace.h's
 *   well-formedness; a second joiner makes the grammar analysis miss edges,
 *   notes A8).
 * Each event's location is MODEL:LINE of its instruction. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_int.h"
#include "trace.h"

#define NONE UINT32_MAX

struct recorder {
    const vm_program *p;
    tr_sequitur *q;
    tr_names names;
    uint32_t *thread_id; /* vm tid -> trace thread, NONE until seen */
    uint32_t *lock_id;   /* lock element -> trace lock */
    uint32_t *slot_first;/* channel -> index of its slot 0 in slot_id */
    uint32_t *slot_id;   /* channel slot -> its pseudo-lock, NONE until used */
    uint64_t *sends, *recvs; /* per channel: how many so far */
    uint32_t *elem_id;   /* global element -> trace variable */
    int32_t *joiner;     /* vm tid -> the thread that joined it, -1 none */
    int32_t *spawner;    /* vm tid -> the thread that spawned it, -1 static */
    uint32_t *line_loc;  /* source line -> loc, NONE until seen */
    uint32_t nlines;
    int cur_tid;         /* the thread stepping (the exec hook) */
    uint32_t cur_line;
    uint64_t events;
    double seconds;      /* in Sequitur */
    bool nomem;
    char bad[512];       /* why the run cannot be recorded; "" if it can */
    vm_hooks hooks;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t intern(recorder *r, tr_table *t, const char *name)
{
    uint32_t id = tr_intern(t, name, strlen(name));
    if (id == NONE) r->nomem = true;
    return id;
}

static uint32_t thread_of(recorder *r, const uint8_t *s, int tid)
{
    if (r->thread_id[tid] == NONE) {
        char name[64];
        vm_thread_name(r->p, s, tid, name, sizeof name);
        r->thread_id[tid] = intern(r, &r->names.threads, name);
    }
    return r->thread_id[tid];
}

static uint32_t lock_of(recorder *r, uint32_t l)
{
    if (r->lock_id[l] == NONE) {
        char name[96];
        vm_lock_name(r->p, l, name, sizeof name);
        r->lock_id[l] = intern(r, &r->names.locks, name);
    }
    return r->lock_id[l];
}

static uint32_t slots(const vm_chan *c) { return c->cap ? c->cap : 1; }

/* The pseudo-lock of the slot the k-th send (or recv) on channel c uses. */
static uint32_t slot_of(recorder *r, uint32_t c, uint64_t k)
{
    uint32_t slot = (uint32_t)(k % slots(&r->p->chans[c])), i = r->slot_first[c] + slot;
    if (r->slot_id[i] == NONE) {
        char name[96];
        snprintf(name, sizeof name, "(chan:%s:%u)", r->p->chans[c].name, slot);
        r->slot_id[i] = intern(r, &r->names.locks, name);
    }
    return r->slot_id[i];
}

static uint32_t elem_of(recorder *r, uint32_t e)
{
    if (r->elem_id[e] == NONE) {
        char name[96];
        vm_elem_name(r->p, e, name, sizeof name);
        r->elem_id[e] = intern(r, &r->names.vars, name);
    }
    return r->elem_id[e];
}

/* The source line of thread tid's event: the stepping thread's
 * instruction, or (the receiver of a rendezvous, whose pc has passed its
 * recv) the instruction before its pc. */
static uint32_t loc_of(recorder *r, const uint8_t *s, int tid)
{
    uint32_t line = r->cur_line;
    if (tid != r->cur_tid) {
        const vm_body *b = vm_thread_body(r->p, s, tid);
        uint32_t pc = vm_tpc(r->p, s, tid);
        line = b && pc > 0 && pc <= b->ncode ? (uint32_t)b->code[pc - 1].line : 0;
    }
    if (line >= r->nlines) {
        uint32_t n = r->nlines ? r->nlines : 64;
        while (n <= line) n *= 2;
        uint32_t *v = realloc(r->line_loc, (size_t)n * sizeof *v);
        if (!v) {
            r->nomem = true;
            return TR_NO_LOC;
        }
        for (uint32_t i = r->nlines; i < n; i++) v[i] = NONE;
        r->line_loc = v;
        r->nlines = n;
    }
    if (r->line_loc[line] == NONE) {
        char name[512];
        snprintf(name, sizeof name, "%s:%u", r->p->filename, line);
        r->line_loc[line] = intern(r, &r->names.locs, name);
    }
    return r->line_loc[line];
}

static void emit(recorder *r, const uint8_t *s, int tid, tr_op op, uint32_t obj)
{
    if (r->nomem || r->bad[0]) return;
    tr_event e = {.thread = thread_of(r, s, tid), .op = (uint8_t)op, .obj = obj,
                  .loc = loc_of(r, s, tid)};
    if (r->nomem || obj == NONE) {
        r->nomem = true;
        return;
    }
    double t0 = now();
    if (!tr_sequitur_push(r->q, &e)) r->nomem = true;
    r->seconds += now() - t0;
    r->events++;
}

static void on_exec(void *ctx, const uint8_t *s, int tid, uint32_t pc)
{
    recorder *r = ctx;
    r->cur_tid = tid;
    r->cur_line = (uint32_t)vm_thread_body(r->p, s, tid)->code[pc].line;
}

static bool on_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    recorder *r = ctx;
    if (vm_elem_var(r->p, elem)->cls == VM_VOLATILE) return false;
    emit(r, s, tid, write ? TR_WRITE : TR_READ, elem_of(r, elem));
    return false;
}

/* A lock's ownership changes (op: TR_ACQ or TR_REL). */
static bool lock_event(void *ctx, const uint8_t *s, int tid, uint32_t lock, tr_op op)
{
    recorder *r = ctx;
    emit(r, s, tid, op, lock_of(r, lock));
    return false;
}

static bool on_acquire(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    return lock_event(ctx, s, tid, lock, TR_ACQ);
}

static bool on_release(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    return lock_event(ctx, s, tid, lock, TR_REL);
}

static bool on_spawn(void *ctx, uint8_t *s, int parent, int child)
{
    recorder *r = ctx;
    r->spawner[child] = parent;
    emit(r, s, parent, TR_FORK, thread_of(r, s, child));
    return false;
}

/* Why joiner's join of joinee cannot be recorded, into r->bad (the run goes
 * on, record_finish() reports it; false, the hook's return): joinee was
 * joined before by `other`, or (spawned) was spawned by `other`. */
static bool refuse_join(recorder *r, const uint8_t *s, int joinee, int other, int joiner,
                        bool spawned)
{
    char a[64], b[64], c[64];
    vm_thread_name(r->p, s, joinee, a, sizeof a);
    vm_thread_name(r->p, s, other, b, sizeof b);
    vm_thread_name(r->p, s, joiner, c, sizeof c);
    if (spawned)
        snprintf(r->bad, sizeof r->bad, "%s, spawned by %s, is joined by %s: a recorded trace "
                 "has a spawned thread joined by its spawner only (the grammar analysis "
                 "assumes it, as ZipTrack does)", a, b, c);
    else
        snprintf(r->bad, sizeof r->bad, "%s is joined by %s and then by %s: a recorded trace "
                 "has one joiner per thread (a second one makes the grammar analysis miss "
                 "happens-before edges)", a, b, c);
    return false;
}

static bool on_join(void *ctx, uint8_t *s, int joiner, int joinee)
{
    recorder *r = ctx;
    if (r->bad[0]) return false;
    if (r->joiner[joinee] >= 0 && r->joiner[joinee] != joiner)
        return refuse_join(r, s, joinee, r->joiner[joinee], joiner, false);
    if (r->spawner[joinee] >= 0 && r->spawner[joinee] != joiner)
        return refuse_join(r, s, joinee, r->spawner[joinee], joiner, true);
    if (r->joiner[joinee] == joiner) return false; /* joined again: nothing new */
    r->joiner[joinee] = joiner;
    emit(r, s, joiner, TR_JOIN, thread_of(r, s, joinee));
    return false;
}

/* The k-th send (send) or recv on a channel: acq; rel of its slot's
 * pseudo-lock, well formed, and no access between. */
static bool touch_slot(void *ctx, const uint8_t *s, int tid, uint32_t chan, bool send)
{
    recorder *r = ctx;
    uint32_t l = slot_of(r, chan, (send ? r->sends : r->recvs)[chan]++);
    emit(r, s, tid, TR_ACQ, l);
    emit(r, s, tid, TR_REL, l);
    return false;
}

static bool on_send(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    return touch_slot(ctx, s, tid, chan, true);
}

static bool on_recv(void *ctx, uint8_t *s, int tid, uint32_t chan)
{
    return touch_slot(ctx, s, tid, chan, false);
}

static uint32_t *nones(uint32_t n)
{
    uint32_t *v = malloc(((size_t)n + 1) * sizeof *v);
    if (v)
        for (uint32_t i = 0; i <= n; i++) v[i] = NONE;
    return v;
}

void record_free(recorder *r)
{
    if (!r) return;
    if (r->q) {
        tr_slp g;
        memset(&g, 0, sizeof g);
        tr_sequitur_finish(r->q, &r->names, &g);
        tr_slp_free(&g);
    }
    tr_names_free(&r->names);
    free(r->thread_id);
    free(r->lock_id);
    free(r->slot_first);
    free(r->slot_id);
    free(r->sends);
    free(r->recvs);
    free(r->spawner);
    free(r->elem_id);
    free(r->joiner);
    free(r->line_loc);
    free(r);
}

recorder *record_new(const vm_program *p)
{
    recorder *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->p = p;
    r->q = tr_sequitur_new();
    r->thread_id = nones(p->nthreads);
    r->lock_id = nones(p->nlocks);
    uint32_t nslots = 0;
    r->slot_first = malloc(((size_t)p->nchans + 1) * sizeof *r->slot_first);
    for (uint32_t c = 0; r->slot_first && c < p->nchans; c++) {
        r->slot_first[c] = nslots;
        nslots += slots(&p->chans[c]); /* at most 255 channels of 255 slots */
    }
    r->slot_id = nones(nslots);
    r->sends = calloc((size_t)p->nchans + 1, sizeof *r->sends);
    r->recvs = calloc((size_t)p->nchans + 1, sizeof *r->recvs);
    r->elem_id = nones(p->nelems);
    r->joiner = malloc(((size_t)p->nthreads + 1) * sizeof *r->joiner);
    r->spawner = malloc(((size_t)p->nthreads + 1) * sizeof *r->spawner);
    if (!r->q || !r->thread_id || !r->lock_id || !r->slot_first || !r->slot_id || !r->sends ||
        !r->recvs || !r->elem_id || !r->joiner || !r->spawner) {
        record_free(r);
        return NULL;
    }
    for (uint32_t t = 0; t < p->nthreads; t++) r->joiner[t] = r->spawner[t] = -1;
    r->cur_tid = -1;
    r->hooks = (vm_hooks){.ctx = r, .exec = on_exec, .access = on_access,
                          .acquire = on_acquire, .release = on_release, .spawn = on_spawn,
                          .join = on_join, .send = on_send, .recv = on_recv};
    return r;
}

const vm_hooks *record_hooks(recorder *r) { return &r->hooks; }

int record_finish(recorder *r, const char *path, FILE *out)
{
    int rc = 0;
    if (r->bad[0]) {
        fprintf(stderr, "mcheck: error: --record: %s; '%s' not written\n", r->bad, path);
        record_free(r);
        return 2;
    }
    tr_slp g;
    memset(&g, 0, sizeof g);
    double t0 = now();
    bool ok = tr_sequitur_finish(r->q, &r->names, &g) && !r->nomem;
    r->q = NULL; /* freed by finish, which always runs */
    r->seconds += now() - t0;
    if (!ok) {
        fprintf(stderr, "mcheck: error: --record: out of memory after %llu events; '%s' not "
                        "written\n", (unsigned long long)r->events, path);
        tr_slp_free(&g);
        record_free(r);
        return 3;
    }
    FILE *f = fopen(path, "w");
    bool written = f && tr_slp_write(f, &g);
    if (f && fclose(f) != 0) written = false;
    if (!written) {
        fprintf(stderr, "mcheck: error: --record: cannot write '%s'\n", path);
        rc = 2;
    } else {
        uint64_t symbols = g.nrules ? g.body[g.nrules] : 0;
        fprintf(out, "recorded %llu events (%u threads, %u locks, %u variables) into %s: "
                     "grammar %u rules, %llu symbols (ratio %.2f), Sequitur %.6f s\n",
                (unsigned long long)r->events, g.names.threads.n, g.names.locks.n,
                g.names.vars.n, path, g.nrules, (unsigned long long)symbols,
                symbols ? (double)r->events / (double)symbols : 0.0, r->seconds);
    }
    tr_slp_free(&g);
    record_free(r);
    return rc;
}
