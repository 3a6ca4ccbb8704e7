/* test_search.c: unit tests of the search module (reduce/) from inside:
 * the DFS undo log and stack, the BFS queue, the composed step (its
 * BoundedInvis outcome, a fault in the invisible tail ending the step
 * before it, fault kinds deciding verdicts) and the name tables, through
 * the private headers; and, through explore_run(), that the look-ahead and
 * the BFS batches change nothing but time (the same states, transitions,
 * instructions and error paths as --lookahead=off). Models are assembled
 * from text here; the CLI tests (test_cli.py) cover the bundled models. */
#include <stdlib.h>
#include <string.h>

#include "bfs_int.h"
#include "testutil.h"

static vm_program *assemble(const char *src, const vm_define *defs, size_t ndefs)
{
    int nerr = 0;
    vm_program *p = vm_assemble("t.bc", src, strlen(src), defs, ndefs, stderr, &nerr);
    if (!p) test_fail(__FILE__, __LINE__, "model assembles");
    return p;
}

static const char *philosophers =
    "const N = 3\n"
    "lock  fork[N]\n"
    "shared meals[N]\n"
    "thread phil[N]\n"
    "    reg left, right, m\n"
    "    mov  left, self\n"
    "    add  right, self, 1\n"
    "    mod  right, right, N\n"
    "loop:\n"
    "    acquire fork[left]\n"
    "    acquire fork[right]\n"
    "    load  m, meals[self]\n"
    "    add   m, m, 1\n"
    "    mod   m, m, 3\n"
    "    store meals[self], m\n"
    "    release fork[right]\n"
    "    release fork[left]\n"
    "    jmp loop\n";

/* Two workers count under a lock; main checks the total: no error with
 * W = 2, an assertion failure at the end with the check made wrong. */
static const char *counters =
    "const W = 2\n"
    "const WANT = 2\n"
    "lock m\n"
    "shared count\n"
    "shared done\n"
    "thread main\n"
    "    reg d, c\n"
    "    acquire m\n"
    "check_done:\n"
    "    load d, done\n"
    "    eq d, d, W\n"
    "    jnz d, check\n"
    "    wait m\n"
    "    jmp check_done\n"
    "check:\n"
    "    load c, count\n"
    "    release m\n"
    "    eq c, c, WANT\n"
    "    assert c, \"count == WANT\"\n"
    "thread worker[W]\n"
    "    reg c\n"
    "    acquire m\n"
    "    load c, count\n"
    "    release m\n"
    "    add c, c, 1\n"
    "    acquire m\n"
    "    store count, c\n"
    "    load c, done\n"
    "    add c, c, 1\n"
    "    store done, c\n"
    "    notifyall m\n"
    "    release m\n";

/* ---- the DFS undo log and stack -------------------------------------------- */

/* A search context with no store or program: enough for the stack, the
 * undo log and the queue (no --memlimit). */
static void bare_search(search *S, explore_options *o, explore_result *r, size_t vsize)
{
    memset(S, 0, sizeof *S);
    memset(r, 0, sizeof *r);
    explore_options_default(o);
    S->o = o;
    S->r = r;
    S->ssize = vsize - 1;
    S->vsize = vsize;
    S->wsize = (vsize + 7) & ~(size_t)7;
}

static void test_undo_round_trip(void)
{
    search S;
    explore_options o;
    explore_result r;
    bare_search(&S, &o, &r, 61); /* 64-byte work vectors */
    uint8_t *levels[4];
    for (int l = 0; l < 4; l++) levels[l] = calloc(1, S.wsize);
    for (size_t i = 0; i < S.vsize; i++) levels[0][i] = (uint8_t)(i * 7);
    for (int l = 1; l < 4; l++) { /* each level changes a few bytes of the one below */
        memcpy(levels[l], levels[l - 1], S.wsize);
        levels[l][l * 9] ^= 0x5a;
        levels[l][60] = (uint8_t)l;
        if (l == 3) memset(levels[l], 0xff, 16); /* two whole words */
    }
    S.cur = calloc(1, S.wsize);
    memcpy(S.cur, levels[0], S.wsize);
    uint32_t rec[4] = {0};
    for (int l = 1; l < 4; l++) {
        CHECK(undo_grow(&S));
        rec[l] = undo_push(&S, S.cur, levels[l]);
        CHECK_EQ_INT(rec[l] % UNDO_REC, 0);
        memcpy(S.cur, levels[l], S.wsize);
    }
    CHECK_EQ_INT(rec[1], 2 * UNDO_REC); /* byte 9 and byte 60: two words */
    CHECK_EQ_INT(rec[2], 2 * UNDO_REC); /* bytes 18, 60 */
    CHECK_EQ_INT(rec[3], 4 * UNDO_REC); /* words 0, 1 (bytes 0-15 and 27), 60 */
    /* undo_apply() rebuilds the parent of the top without popping */
    uint8_t *parent = calloc(1, S.wsize);
    memcpy(parent, S.cur, S.wsize);
    undo_apply(&S, parent, rec[3]);
    CHECK(memcmp(parent, levels[2], S.wsize) == 0);
    for (int l = 3; l >= 1; l--) {
        undo_pop(&S, rec[l]);
        CHECK(memcmp(S.cur, levels[l - 1], S.wsize) == 0);
    }
    CHECK_EQ_INT(S.dfs.undo_len, 0);
    /* a step that changes nothing has an empty record */
    CHECK_EQ_INT(undo_push(&S, S.cur, S.cur), 0);
    for (int l = 0; l < 4; l++) free(levels[l]);
    free(parent);
    free(S.cur);
    free(S.dfs.undo);
}

static void test_dfs_stack_growth(void)
{
    search S;
    explore_options o;
    explore_result r;
    bare_search(&S, &o, &r, 17);
    CHECK(dfs_grow(&S, 1, false));
    size_t first = S.dfs.cap;
    CHECK(first >= 2);
    CHECK(dfs_grow(&S, first, true)); /* fits: no change */
    CHECK_EQ_INT(S.dfs.cap, first);
    CHECK(dfs_grow(&S, first + 1, true)); /* doubles */
    CHECK_EQ_INT(S.dfs.cap, 2 * first);
    for (size_t i = 0; i < S.dfs.cap; i++) S.dfs.frames[i].tid = (int32_t)i; /* writable */
    CHECK(dfs_grow(&S, 5 * first, true)); /* more than double: exactly enough */
    CHECK_EQ_INT(S.dfs.cap, 5 * first);
    CHECK_EQ_INT(S.dfs.frames[first].tid, (int32_t)first); /* kept */
    CHECK(S.lim.stop == STOP_COMPLETE);
    free(S.dfs.frames);
}

/* ---- the BFS queue --------------------------------------------------------- */

static void test_bfs_queue(void)
{
    search S;
    explore_options o;
    explore_result r;
    bare_search(&S, &o, &r, 9);
    bfs_queue q;
    memset(&q, 0, sizeof q);
    S.ctx = &q;
    uint8_t v[9];
    for (uint32_t i = 0; i < 3000; i++) { /* past the first capacity (1024) */
        memset(v, (int)(i & 0xff), sizeof v);
        explore_step via = {(int32_t)(i % 5), i};
        CHECK(bfs_push(&S, v, i / 2, &via, true));
    }
    CHECK_EQ_INT(q.len, 3000);
    CHECK(q.cap >= 3000);
    CHECK(q.vcap >= 3000);
    CHECK_EQ_INT(q.parent[2999], 1499);
    CHECK_EQ_INT(q.via[1234].tid, 1234 % 5);
    CHECK_EQ_INT(q.via[1234].choice, 1234);
    CHECK_EQ_INT(bfs_vec(&S, 1000)[8], 1000 & 0xff);
    /* a level done: the vectors from base on move down, the links stay */
    uint64_t base = 2000;
    memmove(q.states, bfs_vec(&S, base), (size_t)(q.len - base) * S.vsize);
    q.base = base;
    CHECK_EQ_INT(bfs_vec(&S, 2500)[0], 2500 & 0xff);
    memset(v, 0x77, sizeof v);
    explore_step via = {1, 0};
    CHECK(bfs_push(&S, v, 2999, &via, true));
    CHECK_EQ_INT(bfs_vec(&S, 3000)[3], 0x77);
    CHECK_EQ_INT(q.parent[3000], 2999);
    free(q.states);
    free(q.parent);
    free(q.via);
}

/* ---- the composed step ------------------------------------------------------ */

static int cuts, befores;
static bool count_before(void *ctx, const uint8_t *s, int tid, uint64_t choice, bool first)
{
    (void)ctx, (void)s, (void)tid, (void)choice, (void)first;
    befores++;
    return true;
}

static void count_cut(void *ctx)
{
    (void)ctx;
    cuts++;
}

/* An error in the invisible tail ends the step before the erring
 * instruction; the next step starts at it and reaches the error. */
static void test_step_ends_before_fault(void)
{
    vm_program *p = assemble("lock m\n"
                             "shared x\n"
                             "thread t\n"
                             "    reg r\n"
                             "    acquire m\n"
                             "    load r, x\n"
                             "    add r, r, 1\n"
                             "    div r, r, 0\n"
                             "    release m\n",
                             NULL, 0);
    if (!p) return;
    uint8_t *s = malloc(p->layout.size);
    memcpy(s, p->init_state, p->layout.size);
    vm_hooks none = {0};
    uint8_t **ran = step_ran_new(p);
    step_env e = {.p = p, .hooks = &none, .reduce = REDUCE_COMPOSE, .max_invisible = 100,
                  .before = count_before, .cut = count_cut, .ran = ran};
    explore_stats x = {0};
    step_outcome out;
    cuts = befores = 0;
    CHECK(step_run_observed(&e, s, 0, 0, &out, &x)); /* acquire, load, add; div errs */
    CHECK(out.kind == VERDICT_OK);
    CHECK_EQ_INT(cuts, 1);
    CHECK_EQ_INT(befores, 4); /* the div was announced, then cut */
    CHECK_EQ_INT(vm_tpc(p, s, 0), 3);
    CHECK_EQ_INT(x.instructions, 3);
    CHECK_EQ_INT(x.invisible, 2);
    CHECK(step_run(&e, s, 0, 0, &out, &x)); /* the div itself */
    CHECK(out.kind == VERDICT_RUNTIME_ERROR);
    CHECK(out.cause == CAUSE_FAULT);
    CHECK(out.fault == VM_FAULT_DIV_ZERO);
    CHECK_EQ_INT(out.pc, 3);
    CHECK_EQ_INT(out.tid, 0);
    CHECK_CONTAINS(out.msg, "division by zero");
    /* every instruction run or tried is marked ran, the release is not */
    CHECK(ran[0][0] && ran[0][1] && ran[0][2] && ran[0][3]);
    CHECK(!ran[0][4]);
    free(ran);
    free(s);
    vm_program_free(p);
}

static void test_step_bounded_invis(void)
{
    vm_program *p = assemble("shared ready\n"
                             "thread spin\n"
                             "    reg r\n"
                             "    mov r, 0\n"
                             "wait:\n"
                             "    load r, ready\n"
                             "    jz r, wait\n",
                             NULL, 0);
    if (!p) return;
    uint8_t *s = malloc(p->layout.size);
    memcpy(s, p->init_state, p->layout.size);
    vm_hooks none = {0};
    uint8_t **ran = step_ran_new(p);
    step_env e = {.p = p, .hooks = &none, .reduce = REDUCE_COMPOSE, .max_invisible = 5, .ran = ran};
    explore_stats x = {0};
    step_outcome out;
    CHECK(step_run(&e, s, 0, 0, &out, &x));
    CHECK(out.cause == CAUSE_BOUNDED_INVIS);
    CHECK(out.kind == VERDICT_RUNTIME_ERROR);
    CHECK_EQ_INT(out.tid, 0);
    CHECK_EQ_INT(x.instructions, 6); /* the first, then the bound of 5 */
    CHECK(strcmp(out.msg, "no visible operation within 5 steps") == 0);
    /* and through the whole search: the error carries the cause */
    explore_options o;
    explore_options_default(&o);
    o.max_invisible = 5;
    explore_result r;
    CHECK_EQ_INT(explore_run(p, &o, &r), 0);
    CHECK(r.verdict == VERDICT_RUNTIME_ERROR);
    CHECK(r.nerrors == 1 && r.errors[0].cause == CAUSE_BOUNDED_INVIS);
    explore_result_free(&r);
    free(ran);
    free(s);
    vm_program_free(p);
}

/* The verdict comes from the fault kind, not the message. */
static void test_fault_kinds(void)
{
    static const struct {
        const char *body;
        vm_fault_kind kind;
        verdict v;
    } cases[] = {
        {"    assert 0, \"x\"\n", VM_FAULT_ASSERTION, VERDICT_ASSERTION},
        {"    reg r\n    mov r, 0\n    mod r, r, r\n", VM_FAULT_DIV_ZERO, VERDICT_RUNTIME_ERROR},
        {"    release m\n", VM_FAULT_NOT_OWNER, VERDICT_RUNTIME_ERROR},
        {"    reg r\n    mov r, 3\n    load r, a[r]\n", VM_FAULT_INDEX, VERDICT_RUNTIME_ERROR},
        {"    reg r\n    choose r, 2, 1\n", VM_FAULT_CHOOSE_EMPTY, VERDICT_RUNTIME_ERROR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char src[512];
        snprintf(src, sizeof src, "lock m\nshared a[2]\nthread t\n%s", cases[i].body);
        vm_program *p = assemble(src, NULL, 0);
        if (!p) continue;
        explore_options o;
        explore_options_default(&o);
        explore_result r;
        CHECK_EQ_INT(explore_run(p, &o, &r), 0);
        CHECK(r.verdict == cases[i].v);
        CHECK(r.nerrors == 1 && r.errors[0].cause == CAUSE_FAULT);
        if (r.nerrors) CHECK_EQ_INT(r.errors[0].fault, cases[i].kind);
        explore_result_free(&r);
        vm_program_free(p);
    }
}

/* ---- the look-ahead and the BFS batches change nothing but time --------------- */

static void same_search(const vm_program *p, explore_options o, lookahead_mode la,
                        uint64_t min_states)
{
    explore_result a, b;
    o.lookahead = LOOKAHEAD_OFF;
    CHECK_EQ_INT(explore_run(p, &o, &a), 0);
    o.lookahead = la;
    CHECK_EQ_INT(explore_run(p, &o, &b), 0);
    CHECK(a.stats.states_stored >= min_states); /* big enough to guess */
    CHECK_EQ_INT(b.stats.states_stored, a.stats.states_stored);
    CHECK_EQ_INT(b.stats.transitions, a.stats.transitions);
    CHECK_EQ_INT(b.stats.states_matched, a.stats.states_matched);
    CHECK_EQ_INT(b.stats.instructions, a.stats.instructions);
    CHECK_EQ_INT(b.stats.invisible, a.stats.invisible);
    CHECK_EQ_INT(b.stats.max_depth, a.stats.max_depth);
    CHECK(b.verdict == a.verdict);
    CHECK(b.stop == a.stop);
    CHECK_EQ_INT(b.nerrors, a.nerrors);
    for (uint32_t i = 0; i < a.nerrors && i < b.nerrors; i++) {
        CHECK(b.errors[i].kind == a.errors[i].kind);
        CHECK_EQ_INT(b.errors[i].len, a.errors[i].len);
        bool same = b.errors[i].len == a.errors[i].len;
        for (uint32_t k = 0; same && k < a.errors[i].len; k++) /* fields: the struct has padding */
            same = b.errors[i].path[k].tid == a.errors[i].path[k].tid &&
                   b.errors[i].path[k].choice == a.errors[i].path[k].choice;
        CHECK(same);
    }
    explore_result_free(&a);
    explore_result_free(&b);
}

static void test_lookahead_changes_nothing(void)
{
    static const lookahead_mode modes[] = {LOOKAHEAD_ON, LOOKAHEAD_CHILD, LOOKAHEAD_SIBLING};
    vm_define n4 = {"N", 4};
    vm_program *phil = assemble(philosophers, &n4, 1);
    vm_define wrong = {"WANT", 3};
    vm_program *bad = assemble(counters, &wrong, 1);
    vm_program *good = assemble(counters, NULL, 0);
    if (!phil || !bad || !good) return;
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        for (int order = 0; order < 2; order++) {
            explore_options o;
            explore_options_default(&o);
            o.race = LS_OFF; /* the look-ahead and the batches need no detector */
            o.search = order ? SEARCH_BFS : SEARCH_DFS;
            o.reduce = REDUCE_NONE;
            o.all_errors = true; /* every deadlock, paths of the first 10 */
            same_search(phil, o, modes[m], 1000);
            o.all_errors = false;
            same_search(phil, o, modes[m], 1000); /* stops at the first deadlock */
            o.max_depth = 40;
            same_search(phil, o, modes[m], 1000); /* pruned */
            o.max_depth = 0;
            same_search(bad, o, modes[m], 20); /* an assertion */
            same_search(good, o, modes[m], 20); /* complete */
            o.reduce = REDUCE_COMPOSE;
            o.all_errors = true;
            same_search(phil, o, modes[m], 1000);
        }
    }
    vm_program_free(phil);
    vm_program_free(bad);
    vm_program_free(good);
}

/* ---- the engine table and its checks -------------------------------------- */

/* Each option set runs the engine it names, and a combination an engine
 * refuses is refused before anything is allocated: explore_run() returns
 * EXPLORE_REFUSED (not -1, out of memory) and explore_check() says why. */
static void test_engines(void)
{
    explore_options o;
    explore_options_default(&o);
    CHECK(engine_for(&o) == &engine_dfs);
    o.search = SEARCH_BFS;
    CHECK(engine_for(&o) == &engine_bfs);
    o.por = true;
    CHECK(engine_for(&o) == &engine_bfs); /* the BFS has its own proviso */
    o.search = SEARCH_DFS;
    CHECK(engine_for(&o) == &engine_dfs_por);
    o.workers = 2;
    CHECK(engine_for(&o) == &engine_parallel);
    o.liveness = LIVENESS_NPC;
    CHECK(engine_for(&o) == &engine_npc);
    o.ltl_text = "[] p";
    CHECK(engine_for(&o) == &engine_ltl);

    char msg[512];
    explore_options_default(&o);
    CHECK(explore_check(&o, msg, sizeof msg) == NULL);
    o.liveness = LIVENESS_NPC;
    o.workers = 2;
    const char *why = explore_check(&o, msg, sizeof msg);
    CHECK(why && strcmp(why, "--liveness=npc is a sequential nested depth-first search: it "
                             "cannot be used with -j") == 0);
    o.workers = 0;
    o.search = SEARCH_BFS;
    why = explore_check(&o, msg, sizeof msg);
    CHECK(why && strcmp(why, "--liveness=npc is a nested depth-first search: it cannot be used "
                             "with --search=bfs") == 0);
    explore_options_default(&o);
    o.por = true;
    o.reduce = REDUCE_NONE;
    why = explore_check(&o, msg, sizeof msg);
    CHECK(why && strcmp(why, "--por works on composed steps: it cannot be used with "
                             "--reduce=none") == 0);
    explore_options_default(&o);
    o.search = SEARCH_STATELESS;
    o.scheduling_races = true;
    o.race = LS_ERASER;
    why = explore_check(&o, msg, sizeof msg);
    CHECK(why && strstr(why, "--scheduling=races needs --race=goldilocks (or off), not "
                             "--race=eraser") == why);

    vm_program *p = assemble(counters, NULL, 0);
    if (!p) return;
    explore_result r;
    explore_options_default(&o);
    o.liveness = LIVENESS_STARVATION;
    o.max_depth = 10;
    CHECK_EQ_INT(explore_run(p, &o, &r), EXPLORE_REFUSED);
    CHECK(r.verdict == VERDICT_INCOMPLETE && r.nerrors == 0);
    explore_result_free(&r);
    o.max_depth = 0;
    o.race = LS_OFF;
    CHECK_EQ_INT(explore_run(p, &o, &r), 0); /* the starvation search finds the lost update */
    CHECK_EQ_INT(r.verdict, VERDICT_ASSERTION);
    CHECK_EQ_INT(r.stop, STOP_ERROR);
    explore_result_free(&r);
    vm_program_free(p);
}

/* ---- names ------------------------------------------------------------------ */

static void test_name_tables(void)
{
    reduce_mode rm;
    search_order so;
    ls_kind lk;
    lookahead_mode lm;
    CHECK(reduce_mode_parse("none", &rm) && rm == REDUCE_NONE);
    CHECK(strcmp(reduce_mode_name(REDUCE_COMPOSE), "compose") == 0);
    CHECK(search_order_parse("bfs", &so) && so == SEARCH_BFS);
    CHECK(strcmp(search_order_name(SEARCH_DFS), "dfs") == 0);
    CHECK(race_mode_parse("goldilocks", &lk) && lk == LS_GOLDILOCKS);
    CHECK(strcmp(race_mode_name(LS_OFF), "off") == 0);
    CHECK(lookahead_mode_parse("sibling", &lm) && lm == LOOKAHEAD_SIBLING);
    CHECK(!race_mode_parse("LD", &lk) && !search_order_parse("", &so));
    CHECK(strcmp(verdict_name(VERDICT_LOCK_DISCIPLINE), "lock_discipline") == 0);
    CHECK(strcmp(stop_reason_name(STOP_MEMLIMIT), "memory_limit") == 0);
    CHECK(strcmp(verdict_name((verdict)99), "?") == 0);
    /* every value of each enumeration has a name that parses back to it */
    for (int v = 0; v <= LOOKAHEAD_OFF; v++)
        CHECK(lookahead_mode_parse(lookahead_mode_name((lookahead_mode)v), &lm) && (int)lm == v);
    for (int v = 0; v <= LS_GOLDILOCKS; v++)
        CHECK(race_mode_parse(race_mode_name((ls_kind)v), &lk) && (int)lk == v);
    for (int v = 0; v <= VERDICT_INCOMPLETE; v++) CHECK(strcmp(verdict_name((verdict)v), "?"));
    for (int v = 0; v <= STOP_NOMEM; v++) CHECK(strcmp(stop_reason_name((stop_reason)v), "?"));
}

int main(void)
{
    TEST_RUN(test_undo_round_trip);
    TEST_RUN(test_dfs_stack_growth);
    TEST_RUN(test_bfs_queue);
    TEST_RUN(test_step_ends_before_fault);
    TEST_RUN(test_step_bounded_invis);
    TEST_RUN(test_fault_kinds);
    TEST_RUN(test_lookahead_changes_nothing);
    TEST_RUN(test_engines);
    TEST_RUN(test_name_tables);
    return test_finish();
}
