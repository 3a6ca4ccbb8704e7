/* test_lockset_int.h: what the test_lockset executable's files share
 * (test_lockset.c, test_lockset_meta.c, test_lockset_discharge.c,
 * test_lockset_clone.c): the fixture that assembles a program, appends the
 * detector's metadata to its state and steps threads by a script; the
 * counter model; and the test cases main() runs. */
#ifndef MCHECK_TEST_LOCKSET_INT_H
#define MCHECK_TEST_LOCKSET_INT_H

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

static inline vm_program *assemble(const char *src)
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

static inline bool setup_opts(lfx *f, const char *src, ls_kind kind, bool discharge)
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

static inline bool setup(lfx *f, const char *src, ls_kind kind)
{
    return setup_opts(f, src, kind, false);
}

static inline void teardown(lfx *f)
{
    free(f->s);
    ls_free(f->d);
    vm_program_free(f->p);
}

/* Run a script of "TID:N" items separated by spaces: N steps of thread TID
 * (N = 0: until it cannot move). Returns the status of the first step that
 * is not VM_OK, else VM_OK. */
static inline vm_status run(lfx *f, const char *script)
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
static inline int verdict(const char *src, const char *script, ls_kind kind, char *msg,
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

/* Two threads increment x under m (defined in test_lockset.c). */
extern const char *const counter_locked;

/* test_lockset.c: verdicts of the detectors */
void locked_counter_is_clean(void);
void unlocked_counter_is_reported(void);
void three_lock_pairs(void);
void channel_handoff(void);
void init_phase(void);
void unshared_two_threads(void);
void unshared_owner_forgotten(void);
void goldilocks_worked_example(void);
void goldilocks_join_and_volatile(void);

/* test_lockset_meta.c: interning and metadata */
void interning_is_hash_consed(void);
void metadata_layout(void);
void canonical_metadata(void);

/* test_lockset_discharge.c: static discharge */
void discharge_philosophers(void);
void discharge_locks(void);
void discharge_threads(void);
void discharge_loop(void);
void discharge_partial(void);
void discharge_ordered(void);

/* test_lockset_clone.c: clones in several threads */
void clone_interning(void);
void clone_hooks(void);
void clone_reports(void);

#endif
