/* test_interp.c: the semantics of each instruction on a state vector:
 * wrap-around arithmetic, runtime errors, every monitor rule, channels
 * (rendezvous included),
 * spawn/join, end, choose, hooks, valid ends and blocked-thread reports,
 * call/ret and the return stack.
 * Programs are assembled from text; steps are driven by hand. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "vm.h"

typedef struct fixture {
    vm_program *p;
    uint8_t *s;
} fixture;

static fixture load(const char *src)
{
    fixture f = {0};
    char *diag = NULL;
    size_t dlen = 0;
    FILE *d = open_memstream(&diag, &dlen);
    int nerr = 0;
    f.p = vm_assemble("t.bc", src, strlen(src), NULL, 0, d, &nerr);
    fclose(d);
    if (!f.p) {
        fprintf(stderr, "assembly failed:\n%s", diag);
        test_fail(__FILE__, __LINE__, "model assembles");
    } else {
        f.s = malloc(f.p->layout.size);
        memcpy(f.s, f.p->init_state, f.p->layout.size);
    }
    free(diag);
    return f;
}

static void unload(fixture *f)
{
    free(f->s);
    vm_program_free(f->p);
}

/* Run n steps of thread tid (choice 0); stop early on a fault. */
static vm_status steps(fixture *f, int tid, int n, vm_fault *flt)
{
    for (int i = 0; i < n; i++) {
        if (!vm_enabled(f->p, f->s, tid)) return VM_OK;
        vm_status rc = vm_step(f->p, f->s, tid, 0, NULL, flt);
        if (rc != VM_OK) return rc;
    }
    return VM_OK;
}

static int32_t reg(fixture *f, int tid, uint32_t slot)
{
    return vm_rd32(f->s, vm_treg_off(&f->p->threads[tid], slot));
}

static int32_t global(fixture *f, const char *name, uint32_t i)
{
    for (uint32_t v = 0; v < f->p->nvars; v++)
        if (!strcmp(f->p->vars[v].name, name)) return vm_global(f->p, f->s, f->p->vars[v].first_elem + i);
    test_fail(__FILE__, __LINE__, "global exists");
    return 0;
}

static void arithmetic_wraps(void)
{
    fixture f = load("thread t\n"
                     "  add r0, 2147483647, 1\n"    /* slot 0 */
                     "  mul r1, 65536, 65536\n"     /* slot 1 */
                     "  div r2, -2147483648, -1\n"  /* slot 2 */
                     "  mod r3, -2147483648, -1\n"  /* slot 3 */
                     "  div r4, -7, 2\n"
                     "  mod r5, -7, 2\n"
                     "  shl r6, 1, 33\n"
                     "  shr r7, -1, 28\n"
                     "  neg r8, -2147483648\n"
                     "  sub r9, -2147483648, 1\n"
                     "  mov r10, 0xffffffff\n"
                     "  not r11, 0\n"
                     "  xor r12, 6, 3\n"
                     "  lt r13, -1, 0\n"
                     "  ge r14, 3, 4\n");
    if (!f.p) return;
    vm_fault flt;
    CHECK_EQ_INT(steps(&f, 0, 15, &flt), VM_OK);
    CHECK_EQ_INT(reg(&f, 0, 0), INT32_MIN);
    CHECK_EQ_INT(reg(&f, 0, 1), 0);
    CHECK_EQ_INT(reg(&f, 0, 2), INT32_MIN);
    CHECK_EQ_INT(reg(&f, 0, 3), 0);
    CHECK_EQ_INT(reg(&f, 0, 4), -3);
    CHECK_EQ_INT(reg(&f, 0, 5), -1);
    CHECK_EQ_INT(reg(&f, 0, 6), 2);
    CHECK_EQ_INT(reg(&f, 0, 7), 15);
    CHECK_EQ_INT(reg(&f, 0, 8), INT32_MIN);
    CHECK_EQ_INT(reg(&f, 0, 9), INT32_MAX);
    CHECK_EQ_INT(reg(&f, 0, 10), -1);
    CHECK_EQ_INT(reg(&f, 0, 11), 1);
    CHECK_EQ_INT(reg(&f, 0, 12), 5);
    CHECK_EQ_INT(reg(&f, 0, 13), 1);
    CHECK_EQ_INT(reg(&f, 0, 14), 0);
    unload(&f);
}

static void runtime_errors(void)
{
    const char *cases[][2] = {
        {"thread t\n  mov r0, 0\n  div r1, 5, r0\n", "division by zero"},
        {"thread t\n  mod r1, 5, 0\n", "modulo by zero"},
        {"shared a[3]\nlock m\nthread t\n  acquire m\n  mov r0, 3\n  load r1, a[r0]\n",
         "index 3 out of range for 'a[3]'"},
        {"shared a[3]\nlock m\nthread t\n  acquire m\n  store a[-1], 1\n", "index -1 out of range"},
        {"thread t\n  assert 0, \"never\"\n", "assertion violated: never"},
        {"lock m\nthread t\n  release m\n", "release of 'm', which is not held"},
        {"lock m\nthread t\n  wait m\n", "wait of 'm', which is not held"},
        {"lock m\nthread t\n  notify m\n", "notify of 'm', which is not held"},
        {"lock m\nthread t\n  notifyall m\n", "notifyall of 'm', which is not held"},
        {"lock k[2]\nthread t\n  acquire k[2]\n", "index 2 out of range for lock 'k[2]'"},
        {"thread t\n  choose r0, 3, 2\n", "choose from an empty range [3, 2]"},
        {"thread t\n  join 7\n", "join of thread 7, which does not exist"},
        {"proc w max 1\n  nop\nthread t\n  spawn r0, w, 0\n  spawn r0, w, 1\n",
         "spawn of 'w' beyond its max of 1 instances"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f = load(cases[i][0]);
        if (!f.p) continue;
        int tid = (int)f.p->nstatic - 1;
        vm_fault flt = {0};
        uint32_t pc_before = 0;
        vm_status rc = VM_OK;
        for (int k = 0; k < 10 && rc == VM_OK && vm_enabled(f.p, f.s, tid); k++) {
            pc_before = vm_tpc(f.p, f.s, tid);
            rc = vm_step(f.p, f.s, tid, 0, NULL, &flt);
        }
        CHECK_EQ_INT(rc, VM_FAULT);
        CHECK_CONTAINS(flt.msg, cases[i][1]);
        CHECK_EQ_INT(flt.pc, pc_before); /* the trace points at the faulting instruction */
        CHECK_EQ_INT(vm_tpc(f.p, f.s, tid), pc_before);
        unload(&f);
    }
}

/* A release of a lock another thread holds names the holder, and says when
 * the holder ended while holding it. */
static void not_owner_names_holder(void)
{
    fixture f = load("lock m\nthread a\n  acquire m\n  nop\nthread b\n  release m\n");
    if (!f.p) return;
    vm_fault flt = {0};
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, NULL, &flt), VM_OK); /* a: acquire m */
    CHECK_EQ_INT(vm_step(f.p, f.s, 1, 0, NULL, &flt), VM_FAULT);
    CHECK_CONTAINS(flt.msg, "release of 'm', which is held by a");
    CHECK(strstr(flt.msg, "ended") == NULL);
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, NULL, &flt), VM_OK); /* a: nop */
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, NULL, &flt), VM_OK); /* a: end, m still held */
    CHECK_EQ_INT(vm_step(f.p, f.s, 1, 0, NULL, &flt), VM_FAULT);
    CHECK_CONTAINS(flt.msg, "release of 'm', which is held by a (ended while holding it)");
    unload(&f);
}

static void recursive_locks(void)
{
    fixture f = load("lock m\n"
                     "thread a\n  acquire m\n  acquire m\n  release m\n  release m\n"
                     "thread b\n  acquire m\n");
    if (!f.p) return;
    vm_fault flt;
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 1);
    CHECK_EQ_INT(steps(&f, 0, 2, &flt), VM_OK);
    CHECK_EQ_INT(vm_lock_owner(f.p, f.s, 0), 0);
    CHECK_EQ_INT(vm_rd16(f.s, f.p->layout.locks_off + 1), 2);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 0); /* b blocks */
    char why[192];
    vm_describe_block(f.p, f.s, 1, why, sizeof why);
    CHECK_CONTAINS(why, "acquire of 'm', held by a");
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(vm_lock_owner(f.p, f.s, 0), 0); /* still held at depth 1 */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 0);
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(vm_lock_owner(f.p, f.s, 0), -1);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 1);
    unload(&f);
}

static const char *monitor_model =
    "lock m\n"
    "thread w[2]\n"            /* tids 0, 1 */
    "  acquire m\n"
    "  acquire m\n"
    "  wait m\n"
    "  release m\n"
    "  release m\n"
    "thread n\n"               /* tid 2 */
    "  acquire m\n"
    "  notify m\n"
    "  notifyall m\n"
    "  release m\n";

static void wait_releases_fully_and_restores_depth(void)
{
    fixture f = load(monitor_model);
    if (!f.p) return;
    vm_fault flt;
    uint32_t lo = f.p->layout.locks_off;
    CHECK_EQ_INT(steps(&f, 0, 3, &flt), VM_OK); /* acquire x2, wait */
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 0), VM_T_WAITING);
    CHECK_EQ_INT(vm_lock_owner(f.p, f.s, 0), -1);
    CHECK_EQ_INT(vm_rd16(f.s, lo + 1), 0);
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 0), 2); /* pc stays at the wait */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0);
    CHECK(vm_at_visible(f.p, f.s, 0));
    CHECK_EQ_INT(steps(&f, 1, 3, &flt), VM_OK); /* w[1] waits too */
    /* notify with two waiters: two successors, each wakes one */
    CHECK_EQ_INT(steps(&f, 2, 1, &flt), VM_OK); /* n acquires */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 2), 2);
    uint8_t *save = malloc(f.p->layout.size);
    memcpy(save, f.s, f.p->layout.size);
    CHECK_EQ_INT(vm_step(f.p, f.s, 2, 1, NULL, &flt), VM_OK);
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 0), VM_T_WAITING);
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 1), VM_T_NOTIFIED);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 0); /* n still holds m */
    char why[192];
    vm_describe_block(f.p, f.s, 1, why, sizeof why);
    CHECK_CONTAINS(why, "re-acquire (after notify) of 'm', held by n");
    memcpy(f.s, save, f.p->layout.size);
    CHECK_EQ_INT(vm_step(f.p, f.s, 2, 0, NULL, &flt), VM_OK);
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 0), VM_T_NOTIFIED);
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 1), VM_T_WAITING);
    CHECK_EQ_INT(steps(&f, 2, 1, &flt), VM_OK); /* notifyall */
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 1), VM_T_NOTIFIED);
    CHECK_EQ_INT(steps(&f, 2, 1, &flt), VM_OK); /* release */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 1);
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, NULL, &flt), VM_OK); /* re-acquire */
    CHECK_EQ_INT(vm_lock_owner(f.p, f.s, 0), 0);
    CHECK_EQ_INT(vm_rd16(f.s, lo + 1), 2); /* depth restored */
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 0), 3);
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 0), VM_T_RUNNING);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 0);
    free(save);
    unload(&f);
}

/* --spurious-wakeups (vm_program.spurious_wakeups): a WAITING thread is
 * enabled exactly when a NOTIFIED one would be (the lock is free), and its
 * step is the same re-acquire, leaving the wait set. Off, it needs a notify. */
static void spurious_wakeups(void)
{
    fixture f = load(monitor_model);
    if (!f.p) return;
    vm_fault flt;
    uint32_t lo = f.p->layout.locks_off;
    CHECK_EQ_INT(steps(&f, 0, 3, &flt), VM_OK); /* w[0]: acquire x2, wait */
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 0), VM_T_WAITING);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0);
    f.p->spurious_wakeups = true;
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 1); /* m is free */
    CHECK(vm_at_visible(f.p, f.s, 0));
    CHECK_EQ_INT(steps(&f, 2, 1, &flt), VM_OK); /* n acquires m */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0);
    char why[192];
    vm_describe_block(f.p, f.s, 0, why, sizeof why);
    CHECK_CONTAINS(why, "waits in the wait set of 'm', held by n");
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 2), 1); /* notify: one waiter */
    memcpy(f.s, f.p->init_state, f.p->layout.size);
    CHECK_EQ_INT(steps(&f, 0, 3, &flt), VM_OK);
    CHECK_EQ_INT(f.s[lo + 3] & 1, 1); /* in the wait set */
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, NULL, &flt), VM_OK); /* the spurious wakeup */
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 0), VM_T_RUNNING);
    CHECK_EQ_INT(f.s[lo + 3] & 1, 0); /* left the wait set */
    CHECK_EQ_INT(vm_lock_owner(f.p, f.s, 0), 0);
    CHECK_EQ_INT(vm_rd16(f.s, lo + 1), 2); /* saved depth restored */
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 0), 3);
    CHECK_EQ_INT(vm_rd16(f.s, f.p->threads[0].offset + f.p->threads[0].depth_off), 0);
    /* the same state as after a notify and re-acquire */
    uint8_t *woken = malloc(f.p->layout.size);
    memcpy(woken, f.s, f.p->layout.size);
    f.p->spurious_wakeups = false;
    memcpy(f.s, f.p->init_state, f.p->layout.size);
    CHECK_EQ_INT(steps(&f, 0, 3, &flt), VM_OK);
    CHECK_EQ_INT(steps(&f, 2, 4, &flt), VM_OK); /* n: acquire, notify, notifyall, release */
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, NULL, &flt), VM_OK);
    uint32_t n_slot = f.p->threads[2].offset; /* n's slot differs: mask it */
    memcpy(f.s + n_slot, woken + n_slot, f.p->threads[2].bytes);
    CHECK(!memcmp(f.s, woken, f.p->layout.size));
    free(woken);
    unload(&f);
}

static void notify_without_waiters_is_a_noop(void)
{
    fixture f = load("lock m\nthread t\n  acquire m\n  notify m\n  release m\n");
    if (!f.p) return;
    vm_fault flt;
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 1);
    CHECK_EQ_INT(steps(&f, 0, 2, &flt), VM_OK);
    CHECK_EQ_INT(vm_lock_owner(f.p, f.s, 0), -1);
    unload(&f);
}

static void channels_are_fifo_and_canonical(void)
{
    fixture f = load("chan c[2]\n"
                     "thread s\n  send c, 10\n  send c, 20\n  send c, 30\n"
                     "thread r\n  recv r0, c\n  recv r1, c\n  recv r2, c\n  recv r3, c\n");
    if (!f.p) return;
    vm_fault flt;
    uint32_t co = f.p->chans[0].offset;
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 0); /* empty */
    CHECK_EQ_INT(steps(&f, 0, 2, &flt), VM_OK);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0); /* full */
    char why[192];
    vm_describe_block(f.p, f.s, 0, why, sizeof why);
    CHECK_CONTAINS(why, "send on 'c', which is full (2 of 2)");
    CHECK_EQ_INT(steps(&f, 1, 1, &flt), VM_OK);
    CHECK_EQ_INT(reg(&f, 1, 0), 10);
    CHECK_EQ_INT(f.s[co], 1);
    CHECK_EQ_INT(vm_rd32(f.s, co + 1), 20); /* contents start at slot 0 */
    CHECK_EQ_INT(vm_rd32(f.s, co + 5), 0);  /* unused slot zero */
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(steps(&f, 1, 3, &flt), VM_OK);
    CHECK_EQ_INT(reg(&f, 1, 1), 20);
    CHECK_EQ_INT(reg(&f, 1, 2), 30);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 0);
    vm_describe_block(f.p, f.s, 1, why, sizeof why);
    CHECK_CONTAINS(why, "recv on 'c', which is empty");
    unload(&f);
}

/* A rendezvous: a recv never moves alone; a send has a successor per
 * receiver standing at a recv on its channel, in id order, and its step
 * moves both threads (the detectors see the handshake both ways). */
static int rv_events[8], nevents;
static bool log_send(void *ctx, uint8_t *s, int tid, uint32_t c)
{
    (void)ctx, (void)s, (void)c;
    if (nevents < 8) rv_events[nevents++] = 10 + tid;
    return false;
}
static bool log_recv(void *ctx, uint8_t *s, int tid, uint32_t c)
{
    (void)ctx, (void)s, (void)c;
    if (nevents < 8) rv_events[nevents++] = 20 + tid;
    return false;
}

static void rendezvous_moves_two_threads(void)
{
    fixture f = load("chan c[0], d[0]\n"
                     "thread s\n  reg v\n  mov v, 7\n  send c, v\n  send c, 8\n"
                     "thread a\n  recv r0, c\n  nop\n"
                     "thread b\n  recv r0, d\n"
                     "thread e\n  mov r0, 1\n  recv r1, c\n");
    if (!f.p) return;
    vm_fault flt;
    char why[192];
    CHECK_EQ_INT(f.p->chans[0].cap, 0);
    CHECK_EQ_INT(f.p->chans[1].offset - f.p->chans[0].offset, 1); /* the length byte only */
    for (int t = 1; t <= 2; t++) CHECK_EQ_INT(vm_enabled(f.p, f.s, t), 0);
    vm_describe_block(f.p, f.s, 1, why, sizeof why);
    CHECK_CONTAINS(why, "recv on rendezvous 'c', where no thread is sending");
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK); /* mov */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 1);   /* r1 only: r3 is not at its recv */
    CHECK_EQ_INT(vm_rendezvous_receiver(f.p, f.s, 0, 0), 1);
    CHECK_EQ_INT(vm_rendezvous_receiver(f.p, f.s, 0, 1), -1);
    CHECK_EQ_INT(steps(&f, 3, 1, &flt), VM_OK); /* r3 reaches its recv */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 2);
    CHECK_EQ_INT(vm_rendezvous_receiver(f.p, f.s, 0, 1), 3);
    vm_hooks h = {.send = log_send, .recv = log_recv};
    nevents = 0;
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 1, &h, &flt), VM_OK); /* to r3 */
    CHECK_EQ_INT(reg(&f, 3, 1), 7);
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 3), 2);
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 0), 2);
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 1), 0); /* r1 still waits */
    CHECK_EQ_INT(f.s[f.p->chans[0].offset], 0);
    CHECK_EQ_INT(nevents, 4);
    CHECK_EQ_INT(rv_events[0], 10); /* send by s, recv by r3, then back */
    CHECK_EQ_INT(rv_events[1], 23);
    CHECK_EQ_INT(rv_events[2], 13);
    CHECK_EQ_INT(rv_events[3], 20);
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, NULL, &flt), VM_OK); /* 8 to r1 */
    CHECK_EQ_INT(reg(&f, 1, 0), 8);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 2), 0); /* d: nobody sends */
    vm_describe_block(f.p, f.s, 2, why, sizeof why);
    CHECK_CONTAINS(why, "recv on rendezvous 'd', where no thread is sending");
    unload(&f);

    f = load("chan c[0]\nthread s\n  send c, 1\nthread t\n  nop\n");
    if (!f.p) return;
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0);
    vm_describe_block(f.p, f.s, 0, why, sizeof why);
    CHECK_CONTAINS(why, "send on rendezvous 'c', where no thread waits to receive");
    unload(&f);
}

static void spawn_join_and_end(void)
{
    fixture f = load("shared total init main\n"
                     "lock m\n"
                     "proc w max 2\n"
                     "  reg x\n"
                     "  mov x, self\n"
                     "  add x, x, tid\n"
                     "thread main\n"
                     "  spawn r0, w, 7\n"
                     "  spawn r1, w, 8\n"
                     "  join r0\n"
                     "  join r1\n");
    if (!f.p) return;
    vm_fault flt;
    CHECK_EQ_INT(f.p->nstatic, 1);
    CHECK_EQ_INT(f.p->nthreads, 3);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 1), 0); /* spawn slot unused */
    CHECK_EQ_INT(steps(&f, 0, 2, &flt), VM_OK);
    CHECK_EQ_INT(reg(&f, 0, 0), 1);
    CHECK_EQ_INT(reg(&f, 0, 1), 2);
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 1), VM_T_RUNNING);
    CHECK_EQ_INT(vm_tself(f.p, f.s, 2), 8);
    char name[64];
    vm_thread_name(f.p, f.s, 2, name, sizeof name);
    CHECK(!strcmp(name, "w[1]"));
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0); /* join blocks */
    CHECK_EQ_INT(steps(&f, 1, 2, &flt), VM_OK);
    CHECK_EQ_INT(reg(&f, 1, 0), 8);           /* self 7 + tid 1 */
    CHECK_EQ_INT(steps(&f, 1, 1, &flt), VM_OK); /* implicit end */
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 1), VM_T_ENDED);
    CHECK_EQ_INT(reg(&f, 1, 0), 0);           /* registers cleared */
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 1), 0);     /* pc reset */
    CHECK_EQ_INT(vm_tself(f.p, f.s, 1), 0);
    vm_thread_name(f.p, f.s, 1, name, sizeof name);
    CHECK(!strcmp(name, "w[0]"));             /* an ended thread keeps its name */
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 1);
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0);
    unload(&f);
}

static void choose_counts_choices(void)
{
    fixture f = load("thread t\n  mov r1, 5\n  choose r0, -2, r1\n");
    if (!f.p) return;
    vm_fault flt;
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 8);
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 7, NULL, &flt), VM_OK);
    CHECK_EQ_INT(reg(&f, 0, 1), 5);
    unload(&f);
}

typedef struct events {
    int n;
    uint32_t elem[8];
    bool write[8];
    int acquires, releases;
} events;

static bool on_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    events *e = ctx;
    if (e->n < 8) {
        e->elem[e->n] = elem;
        e->write[e->n] = write;
    }
    e->n++;
    return false;
}

static bool on_acquire(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ((events *)ctx)->acquires++;
    return false;
}

static bool on_release(void *ctx, uint8_t *s, int tid, uint32_t lock)
{
    ((events *)ctx)->releases++;
    return false;
}

static bool stop_access(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write)
{
    return true;
}

static void hooks_report_events(void)
{
    fixture f = load("shared x\nshared a[4]\nlock m\n"
                     "thread t\n  acquire m\n  acquire m\n  load r0, a[2]\n  store x, r0\n"
                     "  release m\n  release m\n");
    if (!f.p) return;
    events e = {0};
    vm_hooks h = {.ctx = &e, .access = on_access, .acquire = on_acquire, .release = on_release};
    vm_fault flt;
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, &h, &flt), VM_OK);
    CHECK_EQ_INT(e.n, 2);
    CHECK_EQ_INT(e.elem[0], 3); /* a[2]: x is element 0 */
    CHECK(!e.write[0]);
    CHECK_EQ_INT(e.elem[1], 0);
    CHECK(e.write[1]);
    CHECK_EQ_INT(e.acquires, 1); /* only when the lock becomes ours */
    CHECK_EQ_INT(e.releases, 1); /* only when it becomes free */
    unload(&f);

    f = load("shared x\nthread t\n  store x, 5\n");
    if (!f.p) return;
    vm_hooks stop = {.access = stop_access};
    CHECK_EQ_INT(vm_step(f.p, f.s, 0, 0, &stop, &flt), VM_STOPPED);
    CHECK_EQ_INT(global(&f, "x", 0), 0); /* stopped before the write */
    unload(&f);
}

static void end_labels_make_valid_ends(void)
{
    fixture f = load("chan c\nthread server\nend_idle:\n  recv r0, c\n  jmp end_idle\n"
                     "thread other\n  recv r0, c\n");
    if (!f.p) return;
    CHECK_EQ_INT(vm_enabled(f.p, f.s, 0), 0);
    CHECK(!vm_valid_end(f.p, f.s)); /* `other` is blocked at no end label */
    unload(&f);
    f = load("chan c\nthread server\nend_idle:\n  recv r0, c\n  jmp end_idle\n"
             "thread other\n  nop\n");
    if (!f.p) return;
    vm_fault flt;
    CHECK_EQ_INT(steps(&f, 1, 2, &flt), VM_OK);
    CHECK_EQ_INT(vm_tstatus_of(f.p, f.s, 1), VM_T_ENDED);
    CHECK(vm_valid_end(f.p, f.s));
    unload(&f);
}

static void lock_depth_overflow_is_an_error(void)
{
    fixture f = load("lock m\nthread t\nl:\n  acquire m\n  jmp l\n");
    if (!f.p) return;
    vm_fault flt = {0};
    vm_status rc = VM_OK;
    for (long i = 0; i < 2L * 70000 && rc == VM_OK; i++) rc = vm_step(f.p, f.s, 0, 0, NULL, &flt);
    CHECK_EQ_INT(rc, VM_FAULT);
    CHECK_CONTAINS(flt.msg, "acquired more than 65535 times");
    unload(&f);
}

/* call pushes pc + 1 and jumps; ret pops it and zeroes the entry, so the
 * stack stays canonical; `end` clears it with the registers. */
static void call_ret_and_the_return_stack(void)
{
    fixture f = load("thread t\n"
                     "  call s\n"      /* 0 */
                     "  call s\n"      /* 1 */
                     "  end\n"         /* 2 */
                     "s:\n  add r0, r0, 1\n" /* 3 */
                     "  ret\n");        /* 4 */
    if (!f.p) return;
    const vm_thread_slot *sl = &f.p->threads[0];
    uint32_t so = sl->offset + sl->stack_off;
    vm_fault flt;
    CHECK(sl->stack_off != 0);
    CHECK_EQ_INT(sl->stack_cap, VM_DEFAULT_STACK);
    CHECK_EQ_INT(f.p->bodies[0].stack, VM_DEFAULT_STACK);
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 0), 3);
    CHECK_EQ_INT(f.s[so], 1);
    CHECK_EQ_INT(vm_rd16(f.s, so + 1), 1);
    CHECK_EQ_INT(steps(&f, 0, 2, &flt), VM_OK); /* add, ret */
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 0), 1);
    CHECK_EQ_INT(f.s[so], 0);
    CHECK_EQ_INT(vm_rd16(f.s, so + 1), 0);      /* canonical: unused entries zero */
    CHECK_EQ_INT(steps(&f, 0, 3, &flt), VM_OK); /* call, add, ret */
    CHECK_EQ_INT(vm_tpc(f.p, f.s, 0), 2);
    CHECK_EQ_INT(reg(&f, 0, 0), 2);
    unsigned n;
    const uint32_t *rs = vm_ret_sites(&f.p->bodies[0], 4, &n);
    CHECK_EQ_INT(n, 2);
    CHECK(n == 2 && rs[0] == 1 && rs[1] == 2);
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK); /* end */
    CHECK(memcmp(f.s + sl->offset + VM_TS_PC, f.p->init_state + sl->offset + VM_TS_PC,
                 sl->bytes - VM_TS_PC) == 0);
    unload(&f);
}

static void return_stack_errors(void)
{
    fixture f = load("thread t\n  stack 2\n  call s\ns:\n  call s\n");
    if (!f.p) return;
    vm_fault flt = {0};
    CHECK_EQ_INT(f.p->threads[0].stack_cap, 2);
    CHECK_EQ_INT(steps(&f, 0, 5, &flt), VM_FAULT);
    CHECK_EQ_INT(flt.kind, VM_FAULT_STACK_OVERFLOW);
    CHECK_EQ_INT(flt.pc, 1);
    CHECK_CONTAINS(flt.msg, "return stack overflow");
    unload(&f);
    f = load("thread t\n  call s\ns:\n  ret\n");
    if (!f.p) return;
    CHECK_EQ_INT(steps(&f, 0, 5, &flt), VM_FAULT); /* call, ret, ret */
    CHECK_EQ_INT(flt.kind, VM_FAULT_STACK_EMPTY);
    CHECK_EQ_INT(flt.pc, 1);
    CHECK_CONTAINS(flt.msg, "empty return stack");
    unload(&f);
    /* spawn slots: the deepest proc's stack; a proc's own depth is its limit */
    f = load("proc a max 1\n  stack 1\n  call s\ns:\n  call s\n"
             "proc b max 1\n  stack 5\n  call s\ns:\n  ret\n"
             "thread m\n  spawn r0, a, 0\n");
    if (!f.p) return;
    CHECK_EQ_INT(f.p->threads[1].stack_cap, 5);
    CHECK_EQ_INT(f.p->threads[0].stack_off, 0); /* m has no call: no stack */
    CHECK_EQ_INT(steps(&f, 0, 1, &flt), VM_OK);
    CHECK_EQ_INT(steps(&f, 1, 3, &flt), VM_FAULT);
    CHECK_EQ_INT(flt.kind, VM_FAULT_STACK_OVERFLOW);
    unload(&f);
}

int main(void)
{
    TEST_RUN(arithmetic_wraps);
    TEST_RUN(runtime_errors);
    TEST_RUN(not_owner_names_holder);
    TEST_RUN(recursive_locks);
    TEST_RUN(wait_releases_fully_and_restores_depth);
    TEST_RUN(spurious_wakeups);
    TEST_RUN(notify_without_waiters_is_a_noop);
    TEST_RUN(channels_are_fifo_and_canonical);
    TEST_RUN(rendezvous_moves_two_threads);
    TEST_RUN(spawn_join_and_end);
    TEST_RUN(choose_counts_choices);
    TEST_RUN(hooks_report_events);
    TEST_RUN(end_labels_make_valid_ends);
    TEST_RUN(lock_depth_overflow_is_an_error);
    TEST_RUN(call_ret_and_the_return_stack);
    TEST_RUN(return_stack_errors);
    return test_finish();
}
