/* fuzz_search.c: libFuzzer target for the search. The input is a model;
 * if it assembles, a small bounded search runs on it (options picked from a
 * hash of the input: reduction, DFS or BFS, each store kind, --all-errors),
 * and every error it reports is replayed through the interpreter. Besides
 * crashes and leaks it traps on wrong answers it can see: a verdict that
 * does not match the stop reason and errors, a replay that does not follow
 * the path the search found (the paths are real executions, whatever the
 * store), a replay that does not end in the error reported, and a trace line
 * that the report could not print (a thread with no body, a pc past the
 * code). The bounds: --max-depth 50, --max-invisible 1000, --memlimit 1 MB,
 * and a 0.5 s time limit as a backstop (`choose r, 0, 2000000000` followed by
 * `mov r, 0` gives two billion transitions to one state, which no
 * memory or depth bound stops).
 * Built only with -DMCHECK_FUZZ=ON (clang); tests/fuzz/run.sh runs it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "reduce.h"
#include "vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "fuzz_search: check failed: %s (line %d)\n", #cond, __LINE__); \
            __builtin_trap();                                                  \
        }                                                                      \
    } while (0)

static FILE *devnull(void)
{
    static FILE *f; /* one handle for the whole run */
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

static uint64_t fnv1a(const uint8_t *d, size_t n)
{
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211u;
    return h;
}

/* What tools/cli/mcheck.c does with a replayed trace, minus the printing. */
static void check_trace(const vm_program *p, const explore_error *er, const trace *t)
{
    char buf[256];
    CHECK(!t->diverged);
    CHECK(t->final_state != NULL);
    CHECK(t->n >= er->len);
    for (uint32_t i = 0; i < t->n; i++) {
        const trace_entry *e = &t->entries[i];
        CHECK(e->tid >= 0 && (uint32_t)e->tid < p->nthreads);
        const vm_body *b = vm_thread_body(p, t->final_state, e->tid);
        CHECK(b != NULL && e->pc < b->ncode);
        vm_thread_name(p, t->final_state, e->tid, buf, sizeof buf);
    }
    if (er->tid >= 0) {
        const vm_body *b = vm_thread_body(p, t->final_state, er->tid);
        CHECK(b != NULL && er->pc < b->ncode);
        CHECK(er->len > 0 && er->path[er->len - 1].tid == er->tid);
        CHECK(t->why[0] != '\0'); /* the replay ended in the fault */
    }
    if (er->kind == VERDICT_DEADLOCK) {
        for (uint32_t tid = 0; tid < p->nthreads; tid++) {
            CHECK(vm_enabled(p, t->final_state, (int)tid) == 0);
            enum vm_tstatus st = vm_tstatus_of(p, t->final_state, (int)tid);
            if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
            const vm_body *b = vm_thread_body(p, t->final_state, (int)tid);
            CHECK(b != NULL && vm_tpc(p, t->final_state, (int)tid) < b->ncode);
            vm_describe_block(p, t->final_state, (int)tid, buf, sizeof buf);
        }
        CHECK(!vm_valid_end(p, t->final_state));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int nerr = 0;
    vm_program *p = vm_assemble("fuzz.bc", (const char *)data, size, NULL, 0, devnull(), &nerr);
    if (!p) return 0;

    uint64_t h = fnv1a(data, size);
    explore_options o;
    explore_options_default(&o);
    o.reduce = h & 1 ? REDUCE_NONE : REDUCE_COMPOSE;
    o.search = h & 2 ? SEARCH_BFS : SEARCH_DFS;
    switch (h >> 2 & 3) {
    case 0: o.store.kind = STORE_COMPACT; break;
    case 1: o.store.kind = STORE_COMPACT; o.store.fingerprint_bits = 128; break;
    case 2: o.store.kind = STORE_EXACT; break;
    case 3: o.store.kind = STORE_BITSTATE; o.store.bitstate_bytes = 1 << 16; break;
    }
    o.all_errors = h >> 4 & 1;
    o.max_traces = 3;
    o.max_depth = 50;
    o.max_invisible = 1000;
    o.memlimit = 1u << 20;
    o.timelimit = 0.5;

    explore_result r;
    int rc = explore_run(p, &o, &r);
    CHECK(rc == 0); /* memory is not short here */
    CHECK(r.stop != STOP_NOMEM && r.stop != STOP_INTERRUPTED);
    uint64_t counted = 0;
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++) counted += r.error_count[k];
    CHECK(r.nerrors <= counted && r.nerrors <= 3);
    if (r.nerrors) {
        CHECK(r.verdict == r.errors[0].kind);
    } else {
        CHECK(counted == 0);
        CHECK(r.verdict == (r.stop == STOP_COMPLETE ? VERDICT_OK : VERDICT_INCOMPLETE));
    }
    if (!o.all_errors) CHECK((r.stop == STOP_ERROR) == (r.nerrors > 0));
    CHECK(r.stats.states_stored > 0);
    /* --memlimit holds, but for the initial state and the last transition */
    CHECK(r.stats.store_bytes + r.stats.search_bytes <=
          o.memlimit + 4 * r.stats.vector_bytes + (1u << 20));
    CHECK(r.stats.max_depth <= o.max_depth);

    for (uint32_t i = 0; i < r.nerrors; i++) {
        const explore_error *er = &r.errors[i];
        CHECK(er->kind > VERDICT_OK && er->kind < VERDICT_INCOMPLETE);
        trace t;
        CHECK(trace_replay(p, &o, er->path, er->len, &t) == 0);
        check_trace(p, er, &t);
        trace_free(&t);
    }
    explore_result_free(&r);
    vm_program_free(p);
    return 0;
}
