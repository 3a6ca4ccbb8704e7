/* test_lockset_meta.c: lock-set detector tests (part of test_lockset) for
 * the detectors' data: lock sets are hash-consed when interned, the metadata
 * appended to the state vector has the expected layout, and ls_canonicalize
 * resets only metadata no later check can read. */
#include "test_lockset_int.h"

void interning_is_hash_consed(void)
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

void metadata_layout(void)
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
void canonical_metadata(void)
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
