/* test_lockset_discharge.c: lock-set detector tests (part of test_lockset)
 * for the static discharge (lockset/discharge.c): which elements each
 * detector proves race-free before the search (ls_discharge_why), on the
 * philosophers, lock-protected, thread-local, loop and partly discharged
 * variables. */
#include "test_lockset_int.h"

/* ---- static discharge (discharge.c) --------------------------------------- */

/* ls_discharge_why() of every element of src for `kind`, as a string of
 * letters: C checked, U unaccessed, O one thread, L common lock, R read-only,
 * H ordered by happens-before. */
static void whys(const char *src, ls_kind kind, char *out, size_t n)
{
    vm_program *p = assemble(src);
    out[0] = '\0';
    if (!p) return;
    ls_elem_facts *f = ls_discharge_facts(p);
    CHECK(f != NULL);
    size_t k = 0;
    for (uint32_t e = 0; f && e < p->nelems && k + 1 < n; e++)
        out[k++] = "CUOLRH"[ls_discharge_why(kind, p, f, e)];
    out[k] = '\0';
    free(f);
    vm_program_free(p);
}

static const char *const philosophers =
    "const N = 3\nlock fork[N]\nshared meals[N]\n"
    "thread phil[N]\n  reg left, right, m\n  mov left, self\n  add right, self, 1\n"
    "  mod right, right, N\nloop:\n  acquire fork[left]\n  acquire fork[right]\n"
    "  load m, meals[self]\n  add m, m, 1\n  mod m, m, 3\n  store meals[self], m\n"
    "  release fork[right]\n  release fork[left]\n  jmp loop\n";

void discharge_philosophers(void)
{
    vm_program *p = assemble(philosophers);
    if (!p) return;
    ls_elem_facts *f = ls_discharge_facts(p);
    CHECK(f != NULL);
    for (uint32_t e = 0; f && e < 3; e++) {
        CHECK_EQ_INT(f[e].threads, 1);
        CHECK_EQ_INT(f[e].unit, (int)e); /* phil[e], thread e */
        CHECK(f[e].init_ok);
        /* held: fork[e] and fork[(e+1) % 3]; the lowest is named */
        CHECK_EQ_INT(f[e].lock, e == 2 ? 0 : e);
        CHECK_EQ_INT(ls_discharge_why(LS_LD, p, f, e), LS_COMMON_LOCK);
        CHECK_EQ_INT(ls_discharge_why(LS_ERASER, p, f, e), LS_ONE_THREAD);
        CHECK_EQ_INT(ls_discharge_why(LS_GOLDILOCKS, p, f, e), LS_ONE_THREAD);
        CHECK_EQ_INT(ls_discharge_why(LS_OFF, p, f, e), LS_CHECKED);
    }
    free(f);
    /* the detector made with discharge keeps no metadata at all */
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++) {
        ls_detector *d = ls_new_opts((ls_kind)k, p, p->layout.size, true);
        ls_detector *full = ls_new((ls_kind)k, p, p->layout.size);
        CHECK(d && full);
        if (d && full) {
            CHECK_EQ_INT(ls_meta_bytes(d), 0);
            CHECK_EQ_INT(ls_discharged(d), 3);
            CHECK(ls_meta_bytes(full) > 0);
            CHECK_EQ_INT(ls_discharged(full), 0);
        }
        ls_free(d);
        ls_free(full);
    }
    char *txt = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&txt, &len);
    CHECK_EQ_INT(ls_discharge_print(p, LS_LD, out), 0);
    fclose(out);
    CHECK_CONTAINS(txt, "3 of 3 shared elements discharged");
    CHECK_CONTAINS(txt, "meals[0..2]    discharged: one thread each (phil[0] .. phil[2]), "
                        "each always under an element of fork");
    free(txt);
    vm_program_free(p);
}

void discharge_locks(void)
{
    char w[16];
    /* two threads, always under m (m re-held after a wait): discharged */
    whys("shared x\nlock m\n"
         "thread a\n  acquire m\n  store x, 1\n  notify m\n  release m\n"
         "thread b\n  acquire m\n  wait m\n  load r0, x\n  release m\n",
         LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "L"));
    /* two threads, no common lock: kept by every detector */
    const char *two = "shared x\nlock m, n\n"
                      "thread a\n  acquire m\n  store x, 1\n  release m\n"
                      "thread b\n  acquire n\n  store x, 2\n  release n\n";
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++) {
        whys(two, (ls_kind)k, w, sizeof w);
        CHECK(!strcmp(w, "C"));
    }
    /* unknown indexes (a chosen value, even one from 0 .. 1) name every
     * element: under different locks, all of x is kept; a known index names
     * one element only (y[0] is a's alone, y[1] nobody's) */
    const char *idx = "shared x[3]\nshared y[2]\nlock m, n\n"
                      "thread a\n  choose r0, 0, 1\n  acquire m\n  store x[r0], 1\n"
                      "  release m\n  store y[0], 1\n"
                      "thread b\n  choose r0, 0, 1\n  acquire n\n  store x[r0], 2\n"
                      "  store x[2], 2\n  release n\n";
    whys(idx, LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "CCCCU"));
    whys(idx, LS_ERASER, w, sizeof w);
    CHECK(!strcmp(w, "CCCOU"));
    /* a release in an unknown-index form drops every element of the lock */
    whys("shared x\nlock l[2]\n"
         "thread a\n  choose r0, 0, 1\n  acquire l[0]\n  release l[r0]\n  store x, 1\n"
         "thread b\n  acquire l[0]\n  store x, 2\n  release l[0]\n",
         LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "C"));
}

void discharge_threads(void)
{
    char w[16];
    /* a proc with max 2 is two threads; with max 1, one */
    const char *two = "shared y\n"
                      "proc w max 2\n  store y, self\n"
                      "thread main\n  spawn r0, w, 0\n  spawn r0, w, 1\n";
    whys(two, LS_ERASER, w, sizeof w);
    CHECK(!strcmp(w, "C"));
    whys(two, LS_GOLDILOCKS, w, sizeof w);
    CHECK(!strcmp(w, "C"));
    const char *one = "shared y\n"
                      "proc w max 1\n  store y, self\n"
                      "thread main\n  spawn r0, w, 0\n";
    whys(one, LS_ERASER, w, sizeof w);
    CHECK(!strcmp(w, "O"));
    /* LD' has no exclusive phase: a lone thread's unlocked write is a
     * violation, so "one thread" does not discharge it for LD' */
    whys(one, LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "C"));
    char msg[256];
    lfx f;
    if (setup_opts(&f, one, LS_LD, true)) {
        CHECK_EQ_INT(ls_discharged(f.d), 0);
        CHECK_EQ_INT(run(&f, "0:1 1:1"), VM_STOPPED);
        CHECK_EQ_INT(ls_last_report(f.d)->kind, LS_LD);
        teardown(&f);
    }
    /* `init main`, but a worker may access it first: kept for LD' (whose
     * init check it is), discharged for Eraser, which ignores `init` */
    const char *init = "shared c init main\nlock m\n"
                       "thread main\n  acquire m\n  store c, 1\n  release m\n"
                       "thread worker\n  acquire m\n  load r0, c\n  release m\n";
    whys(init, LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "C"));
    whys(init, LS_ERASER, w, sizeof w);
    CHECK(!strcmp(w, "L"));
    CHECK_EQ_INT(verdict(init, "1:0 0:0", LS_LD, msg, sizeof msg), LS_LD);
    if (setup_opts(&f, init, LS_LD, true)) { /* still reported with discharge */
        CHECK_EQ_INT(run(&f, "1:0 0:0"), VM_STOPPED);
        CHECK_CONTAINS(ls_last_report(f.d)->msg, "not by its init thread 'main'");
        teardown(&f);
    }
    /* every accessor is an instance of T: discharged for LD' too */
    whys("shared c init main\nlock m\n"
         "thread main\n  acquire m\n  store c, 1\n  release m\n  acquire m\n"
         "  load r0, c\n  release m\n",
         LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "L"));
}

/* A release inside a loop: the loop head holds m on entry but not on the
 * back edge, so x has no common lock (and LD' does report it). */
void discharge_loop(void)
{
    const char *src = "shared x\nlock m\n"
                      "thread a\n  reg i, c\n  acquire m\nloop:\n  store x, i\n"
                      "  add i, i, 1\n  lt c, i, 2\n  jz c, out\n  release m\n"
                      "  jmp loop\nout:\n";
    char w[16];
    whys(src, LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "C"));
    whys(src, LS_ERASER, w, sizeof w); /* one thread: Eraser never reports it */
    CHECK(!strcmp(w, "O"));
    lfx f;
    if (setup_opts(&f, src, LS_LD, true)) {
        CHECK_EQ_INT(run(&f, "0:0"), VM_STOPPED); /* the second, unlocked store */
        CHECK_CONTAINS(ls_last_report(f.d)->msg, "written by a holding {}");
        teardown(&f);
    }
    /* the same loop re-acquiring m before the back edge: always under m */
    const char *ok = "shared x\nlock m\n"
                     "thread a\n  reg i, c\n  acquire m\nloop:\n  store x, i\n"
                     "  release m\n  add i, i, 1\n  lt c, i, 2\n  acquire m\n"
                     "  jnz c, loop\n  release m\n";
    whys(ok, LS_LD, w, sizeof w);
    CHECK(!strcmp(w, "L"));
}

/* Some elements of a variable discharged, others not: the kept ones are
 * checked and canonicalized as before. */
void discharge_partial(void)
{
    const char *src = "shared x[2]\nlock m\n"
                      "thread t[2]\n  acquire m\n  store x[0], self\n  release m\n"
                      "  store x[1], self\n";
    lfx f;
    if (!setup_opts(&f, src, LS_LD, true)) return;
    CHECK_EQ_INT(ls_discharged(f.d), 1);
    CHECK_EQ_INT(ls_meta_bytes(f.d), 5); /* x[1]'s record only */
    CHECK_EQ_INT(run(&f, "0:3"), VM_OK);
    ls_canonicalize(f.d, f.s);
    CHECK_EQ_INT(run(&f, "0:1"), VM_STOPPED);
    CHECK_EQ_INT(ls_last_report(f.d)->elem, 1);
    CHECK_EQ_INT(ls_elem_set(f.d, f.s, 0), 0); /* no metadata: nothing to show */
    CHECK(!ls_elem_checked(f.d, f.s, 0));
    teardown(&f);
    /* Goldilocks: x[1]'s race is found, x[0] has no record to propagate into */
    if (!setup_opts(&f, src, LS_GOLDILOCKS, true)) return;
    CHECK_EQ_INT(ls_discharged(f.d), 1);
    CHECK_EQ_INT(run(&f, "0:0"), VM_OK);
    ls_canonicalize(f.d, f.s);
    CHECK_EQ_INT(run(&f, "1:3"), VM_OK);
    CHECK_EQ_INT(run(&f, "1:1"), VM_STOPPED);
    CHECK_EQ_INT(ls_last_report(f.d)->elem, 1);
    teardown(&f);
}

/* The happens-before discharge (discharge_hb.c): Goldilocks only ('H');
 * each case has a twin one edit away that races and is kept ('C'). */
void discharge_ordered(void)
{
    static const struct {
        const char *src, *want;
    } cases[] = {
        /* the parent's write before the spawn, the child's read */
        {"shared x\nthread main\n  store x, 1\n  spawn r0, w, 0\nproc w\n  load r1, x\n", "H"},
        {"shared x\nthread main\n  spawn r0, w, 0\n  store x, 1\nproc w\n  load r1, x\n", "C"},
        /* the child's write, the parent's read after the join (through a copy) */
        {"shared x\nthread main\n  spawn r0, w, 0\n  mov r2, r0\n  join r2\n  load r1, x\n"
         "proc w\n  store x, 1\n", "H"},
        {"shared x\nthread main\n  spawn r0, w, 0\n  mov r0, 5\n  join r0\n  load r1, x\n"
         "proc w\n  store x, 1\n", "C"},
        /* a loop spawning and joining one child per round; without the join
         * of the first of two children, the second join is not enough */
        {"shared x\nthread main\n  mov r3, 0\nL:\n  store x, r3\n  spawn r0, w, 0\n  join r0\n"
         "  add r3, r3, 1\n  lt r4, r3, 2\n  jnz r4, L\nproc w max 2\n  load r1, x\n", "H"},
        {"shared x\nthread main\n  mov r3, 0\nL:\n  spawn r0, w, 0\n"
         "  add r3, r3, 1\n  lt r4, r3, 2\n  jnz r4, L\n  join r0\n  load r1, x\n"
         "proc w max 2\n  store x, 1\n", "C"},
        /* a grandchild starts after the write; joining its parent does not
         * wait for it */
        {"shared x\nthread main\n  store x, 1\n  spawn r0, w, 0\nproc w\n  spawn r0, s, 0\n"
         "proc s\n  load r1, x\n", "H"},
        {"shared x\nthread main\n  spawn r0, w, 0\n  join r0\n  load r1, x\nproc w\n"
         "  spawn r0, s, 0\nproc s\n  store x, 1\n", "C"},
        /* a static thread joined by its id */
        {"shared x\nthread a\n  store x, 1\nthread b\n  join 0\n  load r1, x\n", "H"},
        {"shared x\nthread a\n  store x, 1\nthread b\n  join 1\n  load r1, x\n", "C"},
        /* a channel: every send after the write, the read after a recv */
        {"shared x\nchan c\nthread a\n  store x, 1\n  send c, 1\nthread b\n  recv r0, c\n"
         "  load r1, x\n", "H"},
        {"shared x\nchan c\nthread a\n  send c, 0\n  store x, 1\n  send c, 1\nthread b\n"
         "  recv r0, c\n  load r1, x\n", "C"},
        /* two instances of one proc both write, one after the other's join:
         * ordered, but this analysis orders two threads of one proc body only
         * by a lock, so it is kept (conservatively) */
        {"shared x\nthread main\n  spawn r0, w, 0\n  join r0\n  spawn r0, w, 1\n  join r0\n"
         "proc w max 2\n  store x, self\n", "C"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char w[16];
        whys(cases[i].src, LS_GOLDILOCKS, w, sizeof w);
        if (strcmp(w, cases[i].want)) fprintf(stderr, "  case %zu: %s\n", i, w);
        CHECK(!strcmp(w, cases[i].want));
        whys(cases[i].src, LS_ERASER, w, sizeof w);
        CHECK(!strcmp(w, "C"));
        whys(cases[i].src, LS_LD, w, sizeof w);
        CHECK(!strcmp(w, "C"));
    }
}
