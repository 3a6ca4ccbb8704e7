/* gen_model_int.h: what the parts of gen_model share (gen_model.c has the
 * description of the generator): the output buffer, the model (locks,
 * variables, monitors, channels, bodies) and the generator state `gen`, the
 * EMIT() macro, and the functions one part calls in another. */
#ifndef GEN_MODEL_INT_H
#define GEN_MODEL_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output buffer ------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

/* ---- model ------------------------------------------------------------- */

enum { MAX_LOCKS = 4, MAX_VARS = 24, MAX_BODIES = 8, MAX_MON = 2, MAX_CHANS = 2, MAX_HELD = 3 };

/* V_PUB: the volatile flag by which the `init T` thread publishes its
 * variables (no other piece touches it) */
enum vclass { V_SHARED, V_VOLATILE, V_UNSHARED, V_READONLY, V_INITMAIN, V_INIT, V_PUB };

typedef struct lockdecl {
    char name[8];
    int size; /* 0: scalar */
} lockdecl;

typedef struct var {
    char name[8];
    int size;          /* 0: scalar */
    enum vclass cls;
    int guard;         /* shared: lock declaration */
    int guard_elem;    /* element of an array lock, or -1: element i of the
                          variable is guarded by element i of the lock */
    int mod;           /* values stay within (-mod, mod) */
    int twin;          /* a variable kept equal to this one, or -1 */
    int owner;         /* unshared: the only body that touches it */
    int intruder;      /* unshared, --undisciplined: a body that touches it too, or -1 */
    int init_body;     /* V_INIT (--undisciplined): the `init T` body */
    bool is_flag;      /* condition flag of a monitor */
    bool init_main;    /* V_SHARED: `init main`, main stores it unlocked before spawning */
    int init_by;       /* V_SHARED: `init T` for a static thread T that stores it
                          unlocked, then raises the V_PUB flag every other
                          thread waits for first; or -1 */
} var;

typedef struct monitor {
    int lock, elem;    /* monitor lock element (elem 0 for a scalar lock) */
    int flag;          /* var: the condition */
    int waiter, notifier; /* bodies */
    bool consume;      /* the waiter resets the flag */
    bool counting;     /* notifier increments; waiter waits for >= 1 */
    int after;         /* a chain: the notifier notifies after its wait on monitor
                          `after` returns (its body waits there first), or -1 */
    int cond;          /* --conds: the pthread cond `cvN` the waiter cwaits on
                          (and the notifier csignals or cbroadcasts), or -1: a
                          Java monitor (wait/notify on the lock) */
    bool recheck;      /* --conds: the cwait is in a `while` re-check loop */
} monitor;

typedef struct chan {
    char name[8];
    int cap;              /* 0: a rendezvous channel (--rendezvous) */
    int sender, receiver; /* bodies */
    int nmsg;             /* messages per role execution */
    bool server;          /* receiver is an endless server at an end label */
} chan;

typedef struct body {
    char name[12];
    int count;   /* instances (thread) or max (proc) */
    bool proc;
    bool is_array;
    int spawner;   /* proc: the body whose every instance spawns it */
    int per_spawn; /* proc: instances each spawner instance spawns (and joins) */
    sbuf code;
    double weight; /* code lines, each times the iterations around it */
} body;

typedef struct held {
    int decl;
    char idx[16]; /* index operand as written ("" for a scalar lock) */
    int elem;     /* static element, or -1 when computed at run time */
    bool skipped; /* --undisciplined: taken on one branch only */
} held;

typedef struct gen {
    uint64_t rng;
    bool medium;
    lockdecl locks[MAX_LOCKS];
    int nlocks;
    var vars[MAX_VARS];
    int nvars;
    monitor mons[MAX_MON];
    int nmons;
    chan chans[MAX_CHANS];
    int nchans;
    body bodies[MAX_BODIES];
    int nbodies;
    bool spawns;   /* body 0 (`main`) spawns procs (which may spawn procs) */
    int pub;       /* the V_PUB variable, or -1 */
    bool hazard;   /* one piece that may raise a runtime error */
    bool has_k;    /* `const K` declared (the arithmetic loop uses it) */
    int kval;
    int joiner, join_tid; /* body that joins static thread join_tid, or -1 */
    int leaker;           /* body that ends holding a lock, or -1 */
    bool undisc;          /* --undisciplined: break LD' now and then */
    bool vol;             /* --volatile: volatile-heavy (tests/differential/test_races.py) */
    bool sp;              /* --spawns: several static threads spawn procs of their own */
    bool wt;              /* --waiters: monitors always; notifiers work under
                             another lock while they hold the monitor's, waiters
                             once woken */
    int sig;              /* --waiters: the body that only notifies (the last) */
    bool ho;              /* --handoff: data handed over by spawn and join */
    bool at;              /* --atomic: atomic blocks and assume (issue 30) */
    bool calls;           /* --calls: subroutines called from several sites */
    bool cv;              /* --conds: monitors always, most of them pthread
                             conds (cwait under the lock at depth 1) */
    bool rv;              /* --rendezvous: a channel always, some of them
                             rendezvous channels (`chan c[0]`) */
    int nconds;           /* --conds: cv0 .. */
    uint64_t hrng;        /* --handoff's own generator (hrnd()) */
    /* spelling only (comma lists, constant expressions): a second generator,
     * so these choices never change what a seed's model means */
    uint64_t srng;
    int exrate;           /* percent of the constants written as expressions */
    int nconst;           /* consts D0 .. of the expressions */
    int cval[4];
    int brk;              /* how often (percent of the nominal rates) */
    /* code generation */
    int cur;       /* body being written */
    sbuf *out;
    int label;
    held h[MAX_HELD];
    int nh;
    int loopdepth;
    double est;    /* size estimate of the model */
    double mult;   /* iterations of the loops around the code being emitted */
} gen;

#define EMIT(...) emit(g, __VA_ARGS__)

/* gen_model_decl.c: the random and spelling generators, emit(), the plan of the
 * declarations, monitors, channels and bodies, and print_model() */
void emit(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rnd(gen *g, int n);
int between(gen *g, int lo, int hi);
bool chance(gen *g, int pct);
int srnd(gen *g, int n);
int hrnd(gen *g, int n);
/* gen_model_body.c: --handoff's elements per proc (0: scalars) */
int handoff_slots(const gen *g, int p);
const char *ex(gen *g, int v);
bool brk(gen *g, int pct);
int new_label(gen *g);
void pick_static_lock(gen *g, int *decl, int *elem);
int instances(const gen *g, int b);
int total_instances(const gen *g);
int nspawned(const gen *g);
int nstatic(const gen *g);
bool from_main(const gen *g, int b);
void plan(gen *g);
void print_model(gen *g, uint64_t seed);

/* gen_model_access.c: operands, critical sections and the undisciplined accesses */
const char *idx_reg(int d);
const char *index_operand(gen *g, const char *reg, int n, char *buf, size_t bn);
void mem_text(gen *g, int v, const char *eidx, char *buf, size_t n);
void lock_text(gen *g, const held *hh, char *buf, size_t n);
void emit_cs(gen *g, int depth);
void emit_racy(gen *g);
bool emit_misc_undisc(gen *g);

/* gen_model_handoff.c: --handoff's input before the spawns, racy touches,
 * reads between the joins, and the result after them */
void handoff_in(gen *g, int b, int *val);
void handoff_racy(gen *g, int b, const int *val);
void handoff_between(gen *g, int b, int joined);
void handoff_out(gen *g, int b, const int *val);

/* gen_model_body.c: the other pieces, piece(), and the bodies */
void emit_arith_loop(gen *g);
void piece(gen *g, int depth);
void gen_body(gen *g, int b, bool hazard_here);

/* A body's roles (gen_body() shuffles them, emit_task() writes each): a
 * piece, a monitor's waiter or notifier, a channel's sender or receiver, a
 * hazard, or (--rendezvous) an exchange between the body's instances; obj
 * is the monitor or channel. */
typedef enum role { R_PIECE, R_WAIT, R_NOTIFY, R_SEND, R_RECV, R_HAZARD, R_EXCHANGE } role;

typedef struct task {
    role r;
    int obj;
} task;

/* gen_model_chan.c: the channel roles, and --rendezvous's order of a body's
 * roles (has_rendezvous(): one of t[0 .. n) is a role on a rendezvous
 * channel) */
void emit_send(gen *g, const chan *c);
void emit_recv(gen *g, const chan *c);
void emit_exchange(gen *g, const chan *c);
bool has_rendezvous(const gen *g, const task *t, int n);
void order_rendezvous(const gen *g, task *t, int n);

#endif
