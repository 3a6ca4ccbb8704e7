/* test_lockset.c: the LD', Eraser and Goldilocks detectors on event
 * sequences. Small programs are assembled from text, the state vector gets
 * the detector's metadata appended, and threads are stepped by hand in a
 * chosen interleaving with the detector's hooks installed; each case checks
 * the verdict of every detector (and for Goldilocks the locksets of the
 * paper's worked example, step by step). The clone_* cases run clones of one
 * detector in several pthreads at once (a parallel search's workers).
 *
 * The cases are split over four files, one executable: this one holds main()
 * and the verdict cases; test_lockset_meta.c interning and the metadata;
 * test_lockset_discharge.c the static discharge; test_lockset_clone.c the
 * clones. Shared fixture: test_lockset_int.h. */
#include "test_lockset_int.h"

const char *const counter_locked =
    "shared x\nlock m\n"
    "thread t[2]\n"
    "  acquire m\n  load r0, x\n  add r0, r0, 1\n  store x, r0\n  release m\n";

void locked_counter_is_clean(void)
{
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++) {
        CHECK_EQ_INT(verdict(counter_locked, "0:0 1:0", (ls_kind)k, NULL, 0), LS_OFF);
        CHECK_EQ_INT(verdict(counter_locked, "1:0 0:0", (ls_kind)k, NULL, 0), LS_OFF);
    }
    lfx f;
    if (!setup(&f, counter_locked, LS_LD)) return;
    CHECK_EQ_INT(run(&f, "0:0 1:0"), VM_OK);
    char b[64];
    CHECK_CONTAINS(ls_format_set(f.d, f.s, ls_elem_set(f.d, f.s, 0), b, sizeof b), "{m}");
    CHECK_EQ_INT(f.s[f.p->layout.size], 3); /* checked and written */
    teardown(&f);
}

void unlocked_counter_is_reported(void)
{
    const char *src = "shared x\n"
                      "thread t[2]\n"
                      "  load r0, x\n  add r0, r0, 1\n  store x, r0\n";
    char msg[256];
    CHECK_EQ_INT(verdict(src, "0:0 1:0", LS_LD, msg, sizeof msg), LS_LD);
    CHECK_CONTAINS(msg, "lock discipline violated on 'x': written by t[0] holding {}");
    CHECK_EQ_INT(verdict(src, "0:0 1:0", LS_ERASER, msg, sizeof msg), LS_ERASER);
    CHECK_CONTAINS(msg, "(Eraser) on 'x': written by t[1] holding {}");
    CHECK_EQ_INT(verdict(src, "0:0 1:0", LS_GOLDILOCKS, msg, sizeof msg), LS_GOLDILOCKS);
    CHECK_CONTAINS(msg, "data race on 'x': read by t[1], not ordered after the last write");
    /* interleaved: t1 reads before t0 writes: the write is unordered with it */
    CHECK_EQ_INT(verdict(src, "0:1 1:1 0:0", LS_GOLDILOCKS, msg, sizeof msg), LS_GOLDILOCKS);
    CHECK_CONTAINS(msg, "written by t[0], not ordered after the read by t[1]");
    /* LS_OFF: no metadata, no hooks, no reports */
    CHECK_EQ_INT(verdict(src, "0:0 1:0", LS_OFF, NULL, 0), LS_OFF);
}

/* Elmas, Qadeer, Tasiran: x protected by {m1,m2}, {m2,m3}, {m1,m3} in turn. */
void three_lock_pairs(void)
{
    const char *src = "shared x\nlock m1\nlock m2\nlock m3\n"
                      "thread t1\n  acquire m1\n  acquire m2\n  store x, 1\n"
                      "  release m2\n  release m1\n"
                      "thread t2\n  acquire m2\n  acquire m3\n  store x, 2\n"
                      "  release m3\n  release m2\n"
                      "thread t3\n  acquire m1\n  acquire m3\n  store x, 3\n"
                      "  release m3\n  release m1\n";
    char msg[256];
    CHECK_EQ_INT(verdict(src, "0:0 1:0 2:0", LS_GOLDILOCKS, msg, sizeof msg), LS_OFF);
    CHECK_EQ_INT(verdict(src, "0:0 1:0 2:0", LS_LD, msg, sizeof msg), LS_LD);
    CHECK_CONTAINS(msg, "written by t3 holding {m1, m3}; candidate locks were {m2}");
    /* Eraser starts refining only at t2 (t1 was exclusive): {m2,m3} ∩ {m1,m3} */
    CHECK_EQ_INT(verdict(src, "0:0 1:0 2:0", LS_ERASER, msg, sizeof msg), LS_OFF);
}

void channel_handoff(void)
{
    const char *src = "shared x\nchan c\n"
                      "thread t1\n  store x, 1\n  send c, 1\n"
                      "thread t2\n  recv r0, c\n  store x, 2\n";
    char msg[256];
    CHECK_EQ_INT(verdict(src, "0:0 1:0", LS_GOLDILOCKS, msg, sizeof msg), LS_OFF);
    CHECK_EQ_INT(verdict(src, "0:0 1:0", LS_LD, msg, sizeof msg), LS_LD);
    CHECK_EQ_INT(verdict(src, "0:0 1:0", LS_ERASER, msg, sizeof msg), LS_ERASER);
    /* t2 writes before it receives: a real race */
    const char *bad = "shared x\nchan c\n"
                      "thread t1\n  store x, 1\n  send c, 1\n"
                      "thread t2\n  store x, 2\n  recv r0, c\n";
    CHECK_EQ_INT(verdict(bad, "0:0 1:0", LS_GOLDILOCKS, msg, sizeof msg), LS_GOLDILOCKS);
    CHECK_CONTAINS(msg, "'x': written by t2, not ordered after the last write");
}

void init_phase(void)
{
    const char *good = "shared x init main\nlock m\n"
                       "proc worker max 2\n"
                       "  acquire m\n  load r0, x\n  add r0, r0, 1\n  store x, r0\n"
                       "  release m\n"
                       "thread main\n  store x, 5\n  spawn r0, worker, 0\n"
                       "  spawn r1, worker, 1\n";
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++) {
        CHECK_EQ_INT(verdict(good, "0:0 1:0 2:0", (ls_kind)k, NULL, 0), LS_OFF);
        CHECK_EQ_INT(verdict(good, "0:0 2:0 1:0", (ls_kind)k, NULL, 0), LS_OFF);
    }
    const char *early = "shared x init main\nlock m\n"
                        "proc worker max 1\n"
                        "  acquire m\n  load r0, x\n  release m\n"
                        "thread main\n  spawn r0, worker, 0\n  store x, 5\n";
    char msg[256];
    CHECK_EQ_INT(verdict(early, "0:1 1:0 0:0", LS_LD, msg, sizeof msg), LS_LD);
    CHECK_CONTAINS(msg, "'x': first read by worker[0], not by its init thread 'main'");
    CHECK_EQ_INT(verdict(early, "0:1 1:0 0:0", LS_GOLDILOCKS, msg, sizeof msg),
                 LS_GOLDILOCKS);
    CHECK_CONTAINS(msg, "written by main, not ordered after the read by worker[0]");
    /* without `init`, main's unlocked write is already an LD' violation; Eraser
     * treats it as the exclusive phase */
    const char *noinit = "shared x\nlock m\n"
                         "proc worker max 1\n"
                         "  acquire m\n  load r0, x\n  release m\n"
                         "thread main\n  store x, 5\n  spawn r0, worker, 0\n";
    CHECK_EQ_INT(verdict(noinit, "0:0 1:0", LS_LD, NULL, 0), LS_LD);
    CHECK_EQ_INT(verdict(noinit, "0:0 1:0", LS_ERASER, NULL, 0), LS_OFF);
    CHECK_EQ_INT(verdict(noinit, "0:0 1:0", LS_GOLDILOCKS, NULL, 0), LS_OFF);
    /* read-only after init never violates LD' (LD-RO), unlocked reads included */
    const char *ro = "shared x init main\n"
                     "proc reader max 2\n  load r0, x\n  load r1, x\n"
                     "thread main\n  store x, 5\n  spawn r0, reader, 0\n"
                     "  spawn r1, reader, 1\n";
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++)
        CHECK_EQ_INT(verdict(ro, "0:0 1:1 2:0 1:0", (ls_kind)k, NULL, 0), LS_OFF);
}

void unshared_two_threads(void)
{
    const char *src = "unshared u[2]\n"
                      "thread a\n  store u[0], 1\n  load r0, u[0]\n"
                      "thread b\n  load r0, u[1]\n";
    char msg[256];
    for (int k = LS_OFF; k <= LS_GOLDILOCKS; k++) { /* every mode, LS_OFF included */
        CHECK_EQ_INT(verdict(src, "0:0 1:0", (ls_kind)k, msg, sizeof msg), LS_UNSHARED);
        CHECK_CONTAINS(msg, "unshared variable 'u[1]' touched by b, but 'u' belongs to a (the "
                            "first thread to touch any of its elements)");
        CHECK_EQ_INT(verdict(src, "0:0", (ls_kind)k, NULL, 0), LS_OFF);
    }
}

/* An unshared owner is forgotten once no live thread may touch the variable
 * again (ls_canonicalize), in every mode, so that --race=off stores as many
 * states as --race=ld where LD' holds. */
void unshared_owner_forgotten(void)
{
    const char *src = "unshared u\nlock m\n"
                      "thread a\n  store u, 1\n  acquire m\n  release m\n"
                      "thread b\n  acquire m\n  load r0, u\n  release m\n";
    for (int k = LS_OFF; k <= LS_GOLDILOCKS; k++) {
        lfx f;
        if (!setup(&f, src, (ls_kind)k)) return;
        uint32_t o = f.p->layout.size; /* the only metadata: u's owner */
        CHECK_EQ_INT(run(&f, "0:0"), VM_OK);
        CHECK_EQ_INT(f.s[o], 1);
        ls_canonicalize(f.d, f.s); /* b may still load u */
        CHECK_EQ_INT(f.s[o], 1);
        teardown(&f);
        if (!setup(&f, src, (ls_kind)k)) return;
        CHECK_EQ_INT(run(&f, "1:0 1:0"), VM_OK); /* b loads u: b owns it */
        CHECK_EQ_INT(f.s[o], 2);
        CHECK_EQ_INT(run(&f, "1:0 1:0"), VM_OK); /* b released m and ended */
        ls_canonicalize(f.d, f.s); /* a may still store */
        CHECK_EQ_INT(f.s[o], 2);
        CHECK_EQ_INT(run(&f, "0:0"), VM_STOPPED);
        CHECK_EQ_INT(ls_last_report(f.d)->kind, LS_UNSHARED);
        teardown(&f);
        if (!setup(&f, src, (ls_kind)k)) return;
        CHECK_EQ_INT(run(&f, "0:0 1:0 1:0"), VM_STOPPED); /* a owns it, then b */
        teardown(&f);
        if (!setup(&f, "unshared u\nthread a\n  store u, 1\n  nop\nthread b\n  nop\n",
                   (ls_kind)k))
            return;
        CHECK_EQ_INT(run(&f, "0:0"), VM_OK);
        CHECK_EQ_INT(f.s[f.p->layout.size], 1);
        ls_canonicalize(f.d, f.s); /* nobody may touch u again: forgotten */
        CHECK_EQ_INT(f.s[f.p->layout.size], 0);
        teardown(&f);
    }
}

/* Goldilocks, CACM 53(11) Figure 3 (precise data-race detection): T1
 * initializes o.data (x) and publishes o through a (under La), T2 moves it
 * to b (La, then Lb), T3 takes it from b (Lb) and writes o.data. The column
 * GLS(x) after each action, as in the figure. */
void goldilocks_worked_example(void)
{
    const char *src = "shared x\nshared a\nshared b\nlock La\nlock Lb\n"
                      "thread T1\n  store x, 0\n  acquire La\n  store a, 1\n"
                      "  release La\n"
                      "thread T2\n  acquire La\n  load r0, a\n  release La\n"
                      "  acquire Lb\n  store b, r0\n  release Lb\n"
                      "thread T3\n  acquire Lb\n  load r0, b\n  release Lb\n"
                      "  store x, 2\n";
    static const struct { int tid; const char *gls; } steps[] = {
        {0, "{T1}"}, {0, "{T1}"}, {0, "{T1}"}, {0, "{La, T1}"},
        {1, "{La, T1, T2}"}, {1, "{La, T1, T2}"}, {1, "{La, T1, T2}"},
        {1, "{La, T1, T2}"}, {1, "{La, T1, T2}"}, {1, "{La, Lb, T1, T2}"},
        {2, "{La, Lb, T1, T2, T3}"}, {2, "{La, Lb, T1, T2, T3}"},
        {2, "{La, Lb, T1, T2, T3}"}, {2, "{T3}"},
    };
    lfx f;
    if (!setup(&f, src, LS_GOLDILOCKS)) return;
    char b[128];
    CHECK_EQ_INT(ls_elem_set(f.d, f.s, 0), 0); /* initially empty */
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        vm_fault flt;
        CHECK_EQ_INT(vm_step(f.p, f.s, steps[i].tid, 0, &f.h, &flt), VM_OK);
        ls_format_set(f.d, f.s, ls_elem_set(f.d, f.s, 0), b, sizeof b);
        if (strcmp(b, steps[i].gls)) {
            char m[256];
            snprintf(m, sizeof m, "step %zu: GLS(x) = %s, expected %s", i, b, steps[i].gls);
            test_fail(__FILE__, __LINE__, m);
        }
    }
    teardown(&f);
    /* the same without T2's release of La: T3 is not ordered after T1 */
    const char *racy = "shared x\nshared a\nshared b\nlock La\nlock Lb\n"
                       "thread T1\n  store x, 0\n  acquire La\n  store a, 1\n"
                       "  release La\n"
                       "thread T3\n  load r0, b\n  store x, 2\n";
    CHECK_EQ_INT(verdict(racy, "0:0 1:0", LS_GOLDILOCKS, NULL, 0), LS_GOLDILOCKS);
}

/* Hand-made: ordering through spawn/join and through a volatile flag. */
void goldilocks_join_and_volatile(void)
{
    const char *join = "shared x\n"
                       "proc w max 1\n  store x, 1\n"
                       "thread main\n  store x, 0\n  spawn r0, w, 0\n  join r0\n"
                       "  load r1, x\n  store x, 3\n";
    CHECK_EQ_INT(verdict(join, "0:2 1:0 0:0", LS_GOLDILOCKS, NULL, 0), LS_OFF);
    const char *nojoin = "shared x\n"
                         "proc w max 1\n  store x, 1\n"
                         "thread main\n  spawn r0, w, 0\n  load r1, x\n";
    CHECK_EQ_INT(verdict(nojoin, "0:1 1:0 0:0", LS_GOLDILOCKS, NULL, 0), LS_GOLDILOCKS);

    const char *flag = "shared y\nvolatile flag\n"
                       "thread p\n  store y, 1\n  store flag, 1\n"
                       "thread c\nspin:\n  load r0, flag\n  jz r0, spin\n  store y, 2\n";
    CHECK_EQ_INT(verdict(flag, "0:0 1:0", LS_GOLDILOCKS, NULL, 0), LS_OFF);
    CHECK_EQ_INT(verdict(flag, "0:0 1:0", LS_LD, NULL, 0), LS_LD);
    /* c read the flag before p set it: its write to y is unordered */
    const char *early = "shared y\nvolatile flag\n"
                        "thread p\n  store y, 1\n  store flag, 1\n"
                        "thread c\n  load r0, flag\n  store y, 2\n";
    char msg[256];
    CHECK_EQ_INT(verdict(early, "1:1 0:0 1:0", LS_GOLDILOCKS, msg, sizeof msg), LS_GOLDILOCKS);
    CHECK_CONTAINS(msg, "its lockset is {p, flag}");
    /* wait/notify: the release in wait and the re-acquire are sync events */
    const char *mon = "shared z\nlock m\n"
                      "thread a\n  acquire m\n  wait m\n  load r0, z\n  release m\n"
                      "thread b\n  store z, 1\n  acquire m\n  notify m\n  release m\n";
    CHECK_EQ_INT(verdict(mon, "0:2 1:0 0:0", LS_GOLDILOCKS, NULL, 0), LS_OFF);
}

int main(void)
{
    TEST_RUN(locked_counter_is_clean);
    TEST_RUN(unlocked_counter_is_reported);
    TEST_RUN(three_lock_pairs);
    TEST_RUN(channel_handoff);
    TEST_RUN(init_phase);
    TEST_RUN(unshared_two_threads);
    TEST_RUN(unshared_owner_forgotten);
    TEST_RUN(goldilocks_worked_example);
    TEST_RUN(goldilocks_join_and_volatile);
    TEST_RUN(interning_is_hash_consed);
    TEST_RUN(metadata_layout);
    TEST_RUN(canonical_metadata);
    TEST_RUN(discharge_philosophers);
    TEST_RUN(discharge_locks);
    TEST_RUN(discharge_threads);
    TEST_RUN(discharge_loop);
    TEST_RUN(discharge_partial);
    TEST_RUN(discharge_ordered);
    TEST_RUN(clone_interning);
    TEST_RUN(clone_hooks);
    TEST_RUN(clone_reports);
    return test_finish();
}
