/* test_lockset.c: the LD', Eraser and Goldilocks detectors on event
 * sequences. Small programs are assembled from text, the state vector gets
 * the detector's metadata appended, and threads are stepped by hand in a
 * chosen interleaving with the detector's hooks installed; each case checks
 * the verdict of every detector (and for Goldilocks the locksets of the
 * paper's worked example, step by step). The clone_* cases run clones of one
 * detector in several pthreads at once (a parallel search's workers). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lockset.h"
#include "testutil.h"
#include "vm.h"

typedef struct lfx {
    vm_program *p;
    ls_detector *d;
    uint8_t *s;
    uint32_t size;
    vm_hooks h;
} lfx;

static vm_program *assemble(const char *src)
{
    char *diag = NULL;
    size_t dlen = 0;
    FILE *dg = open_memstream(&diag, &dlen);
    int nerr = 0;
    vm_program *p = vm_assemble("t.bc", src, strlen(src), NULL, 0, dg, &nerr);
    fclose(dg);
    if (!p) {
        fprintf(stderr, "assembly failed:\n%s", diag);
        test_fail(__FILE__, __LINE__, "model assembles");
    }
    free(diag);
    return p;
}

static bool setup_opts(lfx *f, const char *src, ls_kind kind, bool discharge)
{
    memset(f, 0, sizeof *f);
    f->p = assemble(src);
    if (!f->p) return false;
    f->d = ls_new_opts(kind, f->p, f->p->layout.size, discharge);
    CHECK(f->d != NULL);
    if (!f->d) return false;
    f->size = f->p->layout.size + ls_meta_bytes(f->d);
    f->s = calloc(1, f->size);
    memcpy(f->s, f->p->init_state, f->p->layout.size);
    memset(f->s + f->p->layout.size, 0xAA, ls_meta_bytes(f->d)); /* init must clear */
    ls_init_meta(f->d, f->s);
    ls_hooks(f->d, &f->h);
    return true;
}

static bool setup(lfx *f, const char *src, ls_kind kind)
{
    return setup_opts(f, src, kind, false);
}

static void teardown(lfx *f)
{
    free(f->s);
    ls_free(f->d);
    vm_program_free(f->p);
}

/* Run a script of "TID:N" items separated by spaces: N steps of thread TID
 * (N = 0: until it cannot move). Returns the status of the first step that
 * is not VM_OK, else VM_OK. */
static vm_status run(lfx *f, const char *script)
{
    const char *q = script;
    while (*q) {
        char *end;
        long tid = strtol(q, &end, 10);
        long n = strtol(end + 1, &end, 10);
        q = end;
        while (*q == ' ') q++;
        long limit = n ? n : 1000;
        for (long i = 0; i < limit; i++) {
            if (!vm_enabled(f->p, f->s, (int)tid)) {
                if (n) test_fail(__FILE__, __LINE__, "scripted thread enabled");
                break;
            }
            vm_fault flt;
            vm_status rc = vm_step(f->p, f->s, (int)tid, 0, &f->h, &flt);
            if (rc == VM_FAULT) fprintf(stderr, "fault: %s\n", flt.msg);
            if (rc != VM_OK) return rc;
        }
    }
    return VM_OK;
}

/* The report kind of detector `kind` on src driven by script (LS_OFF: none;
 * -1: the model faulted). The message goes to msg. */
static int verdict(const char *src, const char *script, ls_kind kind, char *msg,
                   size_t n)
{
    lfx f;
    if (!setup(&f, src, kind)) return -1;
    vm_status rc = run(&f, script);
    int k = rc == VM_OK ? LS_OFF : rc == VM_STOPPED ? ls_last_report(f.d)->kind : -1;
    if (msg) snprintf(msg, n, "%s", rc == VM_STOPPED ? ls_last_report(f.d)->msg : "");
    teardown(&f);
    return k;
}

static const char *const counter_locked =
    "shared x\nlock m\n"
    "thread t[2]\n"
    "  acquire m\n  load r0, x\n  add r0, r0, 1\n  store x, r0\n  release m\n";

static void locked_counter_is_clean(void)
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

static void unlocked_counter_is_reported(void)
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
static void three_lock_pairs(void)
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

static void channel_handoff(void)
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

static void init_phase(void)
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

static void unshared_two_threads(void)
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
static void unshared_owner_forgotten(void)
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
static void goldilocks_worked_example(void)
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
static void goldilocks_join_and_volatile(void)
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

static void interning_is_hash_consed(void)
{
    vm_program *p = assemble("shared x\nlock k[70]\nchan c\nvolatile v\n"
                             "thread t[2]\n  nop\n");
    if (!p) return;
    ls_detector *d = ls_new(LS_GOLDILOCKS, p, p->layout.size);
    CHECK(d != NULL);
    CHECK_EQ_INT(ls_interned(d), 1); /* the empty set */
    CHECK_EQ_INT(ls_intern(d, NULL, 0), 0);
    uint32_t s1[] = {3, 69, LS_OBJ_THREAD(p, 1)};
    uint32_t s2[] = {69, LS_OBJ_THREAD(p, 1), 3, 3};
    uint32_t s3[] = {ls_obj_chan(d, 0), ls_obj_volatile(d, 1)};
    uint32_t a = ls_intern(d, s1, 3);
    CHECK_EQ_INT(a, 1);
    CHECK_EQ_INT(ls_intern(d, s2, 4), a);
    CHECK_EQ_INT(ls_interned(d), 2);
    uint32_t c = ls_intern(d, s3, 2);
    CHECK_EQ_INT(c, 2);
    CHECK_EQ_INT(ls_interned(d), 3);
    CHECK_EQ_INT(ls_obj_volatile(d, 0), UINT32_MAX); /* x is shared */
    uint32_t bad[] = {1000};
    CHECK_EQ_INT(ls_intern(d, bad, 1), UINT32_MAX);
    char b[128];
    CHECK_CONTAINS(ls_format_set(d, NULL, a, b, sizeof b), "{k[3], k[69], t1}");
    CHECK_CONTAINS(ls_format_set(d, NULL, c, b, sizeof b), "{v, c}");
    /* many distinct sets: the tables grow and ids stay stable */
    for (uint32_t i = 0; i < 70; i++)
        for (uint32_t j = i; j < 70; j++) {
            uint32_t s[] = {i, j};
            (void)ls_intern(d, s, 2);
        }
    CHECK_EQ_INT(ls_intern(d, s2, 4), a);
    CHECK_EQ_INT(ls_intern(d, s3, 2), c);
    uint64_t n = ls_interned(d);
    CHECK_EQ_INT(n, 3 + 70 + 70 * 69 / 2);
    ls_free(d);
    ls_free(NULL);
    vm_program_free(p);

    /* the same events give the same ids and the same metadata bytes */
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++) {
        lfx f1, f2;
        if (!setup(&f1, counter_locked, (ls_kind)k)) return;
        if (!setup(&f2, counter_locked, (ls_kind)k)) return;
        CHECK_EQ_INT(run(&f1, "1:0 0:0"), VM_OK);
        CHECK_EQ_INT(run(&f2, "1:0 0:0"), VM_OK);
        CHECK(!memcmp(f1.s, f2.s, f1.size));
        CHECK_EQ_INT(ls_interned(f1.d), ls_interned(f2.d));
        teardown(&f1);
        teardown(&f2);
    }
}

static void metadata_layout(void)
{
    const char *src = "shared x[3]\nvolatile v\nunshared u[4]\nunshared w\nlock m\n"
                      "thread t[3]\n  nop\n";
    vm_program *p = assemble(src);
    if (!p) return;
    ls_detector *d;
    /* LS_OFF keeps the unshared owners only (LANGUAGE.md: checked in every
     * mode), one byte per unshared variable */
    CHECK(ls_needed(LS_OFF, p) && ls_needed(LS_LD, p));
    d = ls_new(LS_OFF, p, 0);
    CHECK_EQ_INT(ls_meta_bytes(d), 2);
    vm_hooks h = {0};
    ls_hooks(d, &h);
    CHECK(h.ctx == d && h.access && !h.acquire && !h.release && !h.spawn);
    ls_free(d);
    vm_program *q = assemble("shared x\nvolatile v\nlock m\nthread t\n  nop\n");
    if (q) {
        CHECK(!ls_needed(LS_OFF, q) && ls_needed(LS_ERASER, q));
        d = ls_new(LS_OFF, q, 0);
        CHECK_EQ_INT(ls_meta_bytes(d), 0);
        ls_hooks(d, &h);
        CHECK(!h.access && !h.acquire);
        ls_free(d);
        vm_program_free(q);
    }
    d = ls_new(LS_LD, p, 0);
    CHECK_EQ_INT(ls_meta_bytes(d), 3 * 5 + 2);
    ls_hooks(d, &h);
    CHECK(h.access && !h.acquire && !h.recv);
    ls_free(d);
    d = ls_new(LS_ERASER, p, 0);
    CHECK_EQ_INT(ls_meta_bytes(d), 3 * 6 + 2);
    ls_free(d);
    d = ls_new(LS_GOLDILOCKS, p, 0);
    CHECK_EQ_INT(ls_meta_bytes(d), 3 * 4 * (1 + 3) + 2);
    ls_hooks(d, &h);
    CHECK(h.access && h.acquire && h.release && h.spawn && h.join && h.send && h.recv);
    ls_free(d);
    vm_program_free(p);
}

/* ls_canonicalize: metadata no later check can read is reset, the rest
 * kept. t[0] writes x and y under m; t[1] then only reads x under m and ends;
 * nobody touches y after t[0]'s write, and a[self] is each thread's own. */
static void canonical_metadata(void)
{
    const char *src = "shared x\nshared y\nshared a[2]\nlock m\n"
                      "thread w\n  acquire m\n  store x, 1\n  store y, 1\n  release m\n"
                      "  load r0, x\n"
                      "thread r\n  acquire m\n  load r0, x\n  release m\n";
    lfx f;
    if (!setup(&f, src, LS_LD)) return;
    uint32_t mx = f.p->layout.size, my = mx + 5;
    CHECK_EQ_INT(run(&f, "0:4"), VM_OK); /* w: acquire, store x, store y, release */
    CHECK_EQ_INT(f.s[mx], 3);            /* x written under {m} */
    CHECK_EQ_INT(f.s[my], 3);
    ls_canonicalize(f.d, f.s);
    CHECK_EQ_INT(f.s[mx], 3); /* w still reads x (its load), r too: kept */
    CHECK_EQ_INT(f.s[my], 0); /* nobody accesses y again: reset */
    /* which is why: w's unlocked read of x is a violation (written, cand {}) */
    CHECK_EQ_INT(run(&f, "0:0"), VM_STOPPED);
    teardown(&f);

    /* read-only after the start: the candidate set cannot matter */
    const char *ro = "shared x = 5\nlock m\n"
                     "thread t\n  acquire m\n  load r0, x\n  release m\n  load r1, x\n";
    if (!setup(&f, ro, LS_LD)) return;
    mx = f.p->layout.size;
    CHECK_EQ_INT(run(&f, "0:2"), VM_OK);
    CHECK_EQ_INT(f.s[mx], 2); /* checked, read only, cand {m} */
    ls_canonicalize(f.d, f.s);
    CHECK_EQ_INT(f.s[mx], 0); /* no write can follow: back to virgin */
    CHECK_EQ_INT(run(&f, "0:0"), VM_OK); /* the unlocked read is no violation */
    teardown(&f);

    /* [self]: each thread writes only its own element; after t[0] ended,
     * a[0] is dead but a[1] (t[1]'s, not yet written) stays */
    const char *own = "shared a[2]\nlock m\n"
                      "thread t[2]\n  acquire m\n  store a[self], 1\n  release m\n"
                      "  acquire m\n  load r0, a[self]\n  release m\n";
    if (!setup(&f, own, LS_LD)) return;
    uint32_t a0 = f.p->layout.size, a1 = a0 + 5;
    CHECK_EQ_INT(run(&f, "0:3 1:3"), VM_OK);
    CHECK_EQ_INT(f.s[a0], 3);
    CHECK_EQ_INT(f.s[a1], 3);
    ls_canonicalize(f.d, f.s);
    CHECK_EQ_INT(f.s[a0], 3); /* t[0] still reads a[0]: a later check reads it */
    CHECK_EQ_INT(run(&f, "0:0"), VM_OK);
    ls_canonicalize(f.d, f.s);
    CHECK_EQ_INT(f.s[a0], 0); /* t[0] ended: nobody reaches a[0] */
    CHECK_EQ_INT(f.s[a1], 3); /* t[1] still reads a[1] */
    teardown(&f);

    /* Goldilocks: W holds every thread that may still access the element */
    const char *g = "shared x\nlock m\n"
                    "thread t[2]\n  acquire m\n  load r0, x\n  store x, 1\n  release m\n";
    if (!setup(&f, g, LS_GOLDILOCKS)) return;
    uint32_t gx = f.p->layout.size;
    CHECK_EQ_INT(run(&f, "0:3"), VM_OK); /* t[0] wrote x, holds m: W = {t[0]} */
    ls_canonicalize(f.d, f.s);
    CHECK(vm_rd32(f.s, gx) != 0); /* t[1] may still access x and is not in W */
    CHECK_EQ_INT(run(&f, "0:1 1:1"), VM_OK); /* release m (W += m), t[1] acquires (W += t[1]) */
    ls_canonicalize(f.d, f.s);
    CHECK_EQ_INT(vm_rd32(f.s, gx), 0); /* W = {t[0], m, t[1]} covers every later access */
    CHECK_EQ_INT(run(&f, "1:0"), VM_OK);  /* and t[1]'s accesses are race-free */
    teardown(&f);
}

/* ---- static discharge (discharge.c) --------------------------------------- */

/* ls_discharge_why() of every element of src for `kind`, as a string of
 * letters: C checked, U unaccessed, O one thread, L common lock. */
static void whys(const char *src, ls_kind kind, char *out, size_t n)
{
    vm_program *p = assemble(src);
    out[0] = '\0';
    if (!p) return;
    ls_elem_facts *f = ls_discharge_facts(p);
    CHECK(f != NULL);
    size_t k = 0;
    for (uint32_t e = 0; f && e < p->nelems && k + 1 < n; e++)
        out[k++] = "CUOL"[ls_discharge_why(kind, p, f, e)];
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

static void discharge_philosophers(void)
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

static void discharge_locks(void)
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

static void discharge_threads(void)
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
static void discharge_loop(void)
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
static void discharge_partial(void)
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

/* ---- clones in several threads (ls_clone) --------------------------------- */

enum { CL_THREADS = 4, CL_OBJS = 70, CL_PAIRS = CL_OBJS * (CL_OBJS + 1) / 2 };

typedef struct cl_intern {
    ls_detector *d;     /* the original: thread 0 uses it, the others clone it */
    int t;
    uint32_t id[CL_PAIRS]; /* the id of pair k, {i, j} with i <= j */
    int bad;            /* failures seen in the thread (CHECK is not thread-safe) */
} cl_intern;

static uint32_t pair_index(uint32_t i, uint32_t j) /* i <= j < CL_OBJS */
{
    return i * CL_OBJS - i * (i - 1) / 2 + (j - i);
}

/* Intern every pair {i, j} in an order of its own (thread t starts at a
 * different pair and walks with a different stride), twice, and look each
 * set up again while others intern. */
static void *cl_intern_main(void *arg)
{
    cl_intern *c = arg;
    ls_detector *d = c->t == 0 ? c->d : ls_clone(c->d);
    if (!d) {
        c->bad++;
        return NULL;
    }
    static const uint32_t stride[CL_THREADS] = {1, 3, 11, 2477}; /* coprime to CL_PAIRS = 5 * 7 * 71 */
    for (int round = 0; round < 2; round++)
        for (uint32_t n = 0; n < CL_PAIRS; n++) {
            uint32_t k = (uint32_t)(((uint64_t)n * stride[c->t] + 611u * (uint32_t)c->t) % CL_PAIRS);
            uint32_t i = 0;
            while (pair_index(i + 1, i + 1) <= k) i++;
            uint32_t j = i + (k - pair_index(i, i));
            uint32_t objs[] = {j, i, j};
            uint32_t id = ls_intern(d, objs, 3);
            if (id == UINT32_MAX || (round == 1 && id != c->id[k])) c->bad++;
            c->id[k] = id;
            char b[64], want[64];
            ls_format_set(d, NULL, id, b, sizeof b);
            if (i == j) snprintf(want, sizeof want, "{k[%u]}", i);
            else snprintf(want, sizeof want, "{k[%u], k[%u]}", i, j);
            if (strcmp(b, want)) c->bad++;
        }
    if (ls_interned(d) < 2 || ls_seconds(d) != 0.0 || ls_last_report(d)->kind != LS_OFF)
        c->bad++;
    if (d != c->d) ls_free(d);
    return NULL;
}

/* Threads intern overlapping sequences of sets at once: the same set gets
 * the same id in every thread, the ids are 0 .. n-1 with n distinct sets. */
static void clone_interning(void)
{
    vm_program *p = assemble("shared x\nlock k[70]\nchan c\nvolatile v\nthread t[2]\n  nop\n");
    if (!p) return;
    ls_detector *d = ls_new(LS_GOLDILOCKS, p, p->layout.size);
    CHECK(d != NULL);
    if (!d) return;
    static cl_intern c[CL_THREADS];
    pthread_t th[CL_THREADS];
    for (int t = 0; t < CL_THREADS; t++) {
        c[t].d = d;
        c[t].t = t;
        c[t].bad = 0;
        CHECK_EQ_INT(pthread_create(&th[t], NULL, cl_intern_main, &c[t]), 0);
    }
    for (int t = 0; t < CL_THREADS; t++) pthread_join(th[t], NULL);
    uint64_t n = ls_interned(d);
    CHECK_EQ_INT(n, 1 + CL_PAIRS); /* the empty set and every pair */
    char *seen = calloc(n, 1);
    int differ = 0, outside = 0, shared = 0;
    for (int t = 0; t < CL_THREADS; t++) {
        CHECK_EQ_INT(c[t].bad, 0);
        for (uint32_t k = 0; k < CL_PAIRS; k++) {
            differ += c[t].id[k] != c[0].id[k];
            outside += c[t].id[k] < 1 || c[t].id[k] >= n;
        }
    }
    for (uint32_t k = 0; k < CL_PAIRS && seen; k++) {
        if (c[0].id[k] < n) {
            shared += seen[c[0].id[k]]; /* distinct sets, distinct ids: dense */
            seen[c[0].id[k]] = 1;
        }
    }
    CHECK_EQ_INT(differ, 0);
    CHECK_EQ_INT(outside, 0);
    CHECK_EQ_INT(shared, 0);
    free(seen);
    /* a clone sees what was interned before it, and a clone of a clone too */
    ls_detector *c1 = ls_clone(d), *c2 = c1 ? ls_clone(c1) : NULL;
    CHECK(c1 && c2);
    if (c1 && c2) {
        uint32_t objs[] = {5, 69};
        CHECK_EQ_INT(ls_intern(c2, objs, 2), c[0].id[pair_index(5, 69)]);
        uint32_t fresh[] = {1, 2, 3};
        uint32_t id = ls_intern(c2, fresh, 3);
        CHECK_EQ_INT(id, n);
        CHECK_EQ_INT(ls_intern(d, fresh, 3), id);
        CHECK_EQ_INT(ls_interned(c1), n + 1);
        CHECK_EQ_INT(ls_meta_bytes(c2), ls_meta_bytes(d));
    }
    ls_free(c2);
    ls_free(c1);
    ls_free(d);
    vm_program_free(p);
}

/* Random walks of the philosophers (deadlock ends a walk) with the hooks of
 * a clone installed, several threads at once; walk w is seeded by w. */
enum { CL_WALKS = 48, CL_STEPS = 200 };

typedef struct cl_walk {
    const vm_program *p;
    ls_detector *d;     /* the original */
    int t;
    uint8_t *end[CL_WALKS]; /* the last state of each walk this thread made */
    int bad;
} cl_walk;

static uint8_t *walk(const vm_program *p, ls_detector *d, uint32_t seed)
{
    uint32_t size = p->layout.size + ls_meta_bytes(d);
    uint8_t *s = calloc(1, size);
    if (!s) return NULL;
    memcpy(s, p->init_state, p->layout.size);
    ls_init_meta(d, s);
    vm_hooks h;
    memset(&h, 0, sizeof h);
    ls_hooks(d, &h);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int n = 0; n < CL_STEPS; n++) {
        int en[8], k = 0;
        for (int t = 0; t < (int)p->nthreads && k < 8; t++)
            if (vm_enabled(p, s, t)) en[k++] = t;
        if (k == 0) break;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        vm_fault flt;
        if (vm_step(p, s, en[x % (uint64_t)k], 0, &h, &flt) != VM_OK) break;
        ls_canonicalize(d, s);
    }
    return s;
}

static void *cl_walk_main(void *arg)
{
    cl_walk *c = arg;
    ls_detector *d = c->t == 0 ? c->d : ls_clone(c->d);
    if (!d) {
        c->bad++;
        return NULL;
    }
    for (int w = 0; w < CL_WALKS; w++) /* each thread its own order */
        c->end[(w + 5 * c->t) % CL_WALKS] = walk(c->p, d, (uint32_t)((w + 5 * c->t) % CL_WALKS));
    if (d != c->d) ls_free(d);
    return NULL;
}

/* The same walks in every thread, at once: each ends in the same bytes, and
 * the original run alone afterwards (every set already interned) too. */
static void clone_hooks(void)
{
    const char *src = "const N = 4\nlock fork[N]\nshared meals[N]\nvolatile v\n"
                      "thread phil[N]\n  reg left, right, m\n  mov left, self\n"
                      "  add right, self, 1\n  mod right, right, N\nloop:\n"
                      "  acquire fork[left]\n  acquire fork[right]\n  load m, meals[left]\n"
                      "  add m, m, 1\n  mod m, m, 3\n  store meals[left], m\n"
                      "  load m, meals[right]\n  store meals[right], m\n"
                      "  store v, m\n  release fork[right]\n  release fork[left]\n"
                      "  load m, v\n  jmp loop\n";
    vm_program *p = assemble(src);
    if (!p) return;
    for (int k = LS_LD; k <= LS_GOLDILOCKS; k++) {
        ls_detector *d = ls_new((ls_kind)k, p, p->layout.size);
        CHECK(d != NULL);
        if (!d) break;
        static cl_walk c[CL_THREADS];
        pthread_t th[CL_THREADS];
        for (int t = 0; t < CL_THREADS; t++) {
            memset(&c[t], 0, sizeof c[t]);
            c[t].p = p;
            c[t].d = d;
            c[t].t = t;
            CHECK_EQ_INT(pthread_create(&th[t], NULL, cl_walk_main, &c[t]), 0);
        }
        for (int t = 0; t < CL_THREADS; t++) pthread_join(th[t], NULL);
        uint64_t n = ls_interned(d);
        CHECK(n >= (k == LS_GOLDILOCKS ? 40u : 9u)); /* the walks did meet sets */
        uint32_t size = p->layout.size + ls_meta_bytes(d);
        for (int w = 0; w < CL_WALKS; w++) {
            uint8_t *ref = walk(p, d, (uint32_t)w);
            CHECK(ref != NULL);
            for (int t = 0; t < CL_THREADS; t++) {
                CHECK_EQ_INT(c[t].bad, 0);
                CHECK(ref && c[t].end[w] && !memcmp(ref, c[t].end[w], size));
                free(c[t].end[w]);
            }
            free(ref);
        }
        CHECK_EQ_INT(ls_interned(d), n); /* nothing new */
        /* every id names a distinct set */
        char (*str)[128] = calloc(n, sizeof *str);
        for (uint32_t i = 0; str && i < n; i++) {
            ls_format_set(d, NULL, i, str[i], sizeof str[i]);
            for (uint32_t j = 0; j < i; j++)
                if (!strcmp(str[i], str[j])) CHECK(!"two ids, one set");
        }
        free(str);
        ls_free(d);
    }
    vm_program_free(p);
}

/* A race found by one clone is its report: another clone and the original
 * keep theirs. */
typedef struct cl_report {
    ls_detector *d;
    const vm_program *p;
    const char *script; /* thread ids to step, in order, until one stops */
    vm_status rc;
    ls_report rep;
} cl_report;

static void *cl_report_main(void *arg)
{
    cl_report *c = arg;
    uint8_t *s = calloc(1, c->p->layout.size + ls_meta_bytes(c->d));
    c->rc = VM_FAULT;
    if (!s) return NULL;
    memcpy(s, c->p->init_state, c->p->layout.size);
    ls_init_meta(c->d, s);
    vm_hooks h;
    memset(&h, 0, sizeof h);
    ls_hooks(c->d, &h);
    c->rc = VM_OK;
    for (int rep = 0; rep < 200 && c->rc == VM_OK; rep++) {
        for (const char *q = c->script; *q && c->rc == VM_OK; q++) {
            int tid = *q - '0';
            if (!vm_enabled(c->p, s, tid)) continue;
            vm_fault flt;
            c->rc = vm_step(c->p, s, tid, 0, &h, &flt);
        }
    }
    c->rep = *ls_last_report(c->d);
    free(s);
    return NULL;
}

static void clone_reports(void)
{
    const char *src = "shared x\nlock m\n"
                      "thread a\nloop:\n  acquire m\n  load r0, x\n  add r0, r0, 1\n"
                      "  store x, r0\n  release m\n  jmp loop\n"
                      "thread b\nloop2:\n  acquire m\n  load r0, x\n  release m\n"
                      "  load r1, x\n  jmp loop2\n";
    vm_program *p = assemble(src);
    if (!p) return;
    ls_detector *d = ls_new(LS_GOLDILOCKS, p, p->layout.size);
    CHECK(d != NULL);
    if (!d) return;
    cl_report c[3] = {
        {ls_clone(d), p, "0000000", VM_OK, {0}}, /* a alone: clean */
        {ls_clone(d), p, "0000001111111", VM_OK, {0}}, /* b reads x unlocked after a wrote */
        {ls_clone(d), p, "1111100000", VM_OK, {0}},
    };
    pthread_t th[3];
    for (int t = 0; t < 3; t++) {
        CHECK(c[t].d != NULL);
        if (!c[t].d) return;
        CHECK_EQ_INT(pthread_create(&th[t], NULL, cl_report_main, &c[t]), 0);
    }
    for (int t = 0; t < 3; t++) pthread_join(th[t], NULL);
    CHECK_EQ_INT(c[0].rc, VM_OK);
    CHECK_EQ_INT(c[0].rep.kind, LS_OFF);
    CHECK_EQ_INT(ls_last_report(c[0].d)->kind, LS_OFF);
    for (int t = 1; t < 3; t++) {
        CHECK_EQ_INT(c[t].rc, VM_STOPPED);
        CHECK_EQ_INT(c[t].rep.kind, LS_GOLDILOCKS);
        CHECK_CONTAINS(c[t].rep.msg, "data race on 'x'");
        CHECK_EQ_INT(ls_last_report(c[t].d)->kind, LS_GOLDILOCKS);
    }
    CHECK_EQ_INT(ls_last_report(d)->kind, LS_OFF);
    CHECK_EQ_INT(ls_seconds(d), 0.0); /* the clones' time is their own */
    for (int t = 0; t < 3; t++) ls_free(c[t].d);
    ls_free(d);
    vm_program_free(p);
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
    TEST_RUN(clone_interning);
    TEST_RUN(clone_hooks);
    TEST_RUN(clone_reports);
    return test_finish();
}
