/* vm.h: the mcheck modeling language as a program, a state layout and an
 * interpreter (the interface of the vm/ module).
 *
 * vm_assemble() turns model text into an immutable vm_program: decoded
 * instructions with resolved operands, a visible flag per pc (LANGUAGE.md,
 * Stoller 3.5), a source map, and the layout of one flat, canonical state
 * vector. vm_step() executes one instruction of one thread on such a vector and
 * reports what it did through a hook table; it knows nothing of state stores,
 * searches or detectors. Nothing here keeps global mutable state.
 *
 * The state vector is canonical: equal program states are equal bytes (unused
 * bytes zero, an ended thread's registers and pc cleared, channel contents
 * always start at slot 0). Multi-byte fields are unaligned; read them through
 * the accessors below. */
#ifndef MCHECK_VM_H
#define MCHECK_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define VM_VERSION "0.1.0"

/* Limits the assembler enforces (so the interpreter never has to). */
#define VM_MAX_THREADS 255      /* lock owners are stored as tid + 1 in a byte */
#define VM_MAX_THREADS_ANALYSIS 4096 /* a program no state is built for (mcheck
                                        --analyze alone: vm_assemble_for()) */
#define VM_MAX_CODE 65535       /* instructions per body (pc is 16 bits) */
#define VM_MAX_CHAN_CAP 255     /* channel length is one byte */
#define VM_MAX_PROC_MAX 255     /* spawn counters are one byte */
#define VM_MAX_REGS 16          /* r0 .. r15 (named registers come on top) */
#define VM_MAX_LOCK_DEPTH 65535 /* recursive acquire beyond this is a runtime error */
#define VM_MAX_STACK 255        /* `stack N`: N in 1 .. 255 (the stack pointer is a byte) */
#define VM_DEFAULT_STACK 8      /* return-stack depth of a body with a `call` and no `stack` */

/* Operand formats (opcodes.def). r = destination register, a/b = values,
 * m = global (NAME or NAME[a]), k = lock, c = channel, p = proc, l = label,
 * s = string. */
enum vm_format {
    VM_FMT_NONE, /* nop, end */
    VM_FMT_RA,   /* rd, a */
    VM_FMT_RAB,  /* rd, a, b */
    VM_FMT_RM,   /* rd, mem */
    VM_FMT_MA,   /* mem, a */
    VM_FMT_L,    /* label */
    VM_FMT_AL,   /* a, label */
    VM_FMT_AS,   /* a, "string" */
    VM_FMT_K,    /* lk */
    VM_FMT_CA,   /* ch, a */
    VM_FMT_RC,   /* rd, ch */
    VM_FMT_RPA,  /* rd, P, a */
    VM_FMT_A,    /* a */
    VM_FMT_Q,    /* c (a condition variable) */
    VM_FMT_QK,   /* c, lk */
};

enum vm_opflag {
    VM_F_VIS = 1u << 0,    /* always a scheduling point */
    VM_F_BLOCK = 1u << 1,  /* may be disabled */
    VM_F_CHOICE = 1u << 2, /* may have several successors */
    VM_F_MEM = 1u << 3,    /* reads or writes a global (visible iff volatile) */
    VM_F_LOCK = 1u << 4,   /* names a lock */
    VM_F_COND = 1u << 5,   /* names a condition variable (cond, cidx) */
};

enum vm_opcode {
#define OP(name, fmt, flags, doc) VM_OP_##name,
#include "opcodes.def"
#undef OP
    VM_OP_COUNT
};

typedef struct vm_opinfo {
    const char *name;
    enum vm_format format;
    unsigned flags;
    const char *doc;
} vm_opinfo;

/* The table generated from opcodes.def, indexed by enum vm_opcode. */
extern const vm_opinfo vm_ops[VM_OP_COUNT];

/* A value operand. */
enum vm_argkind {
    VM_ARG_IMM,  /* val is the value (integers and consts are folded) */
    VM_ARG_REG,  /* val is a register slot of the executing body */
    VM_ARG_SELF, /* the thread's instance index or spawn argument */
    VM_ARG_TID,  /* the thread's global id */
};

typedef struct vm_operand {
    uint8_t kind; /* enum vm_argkind */
    int32_t val;
} vm_operand;

/* One decoded instruction. Which fields mean something depends on the
 * format: rd (RA RAB RM RC RPA), a (RA RAB MA AL AS CA RPA A), b (RAB),
 * obj + idx (RM MA: var id; K: lock decl id; idx is IMM 0 for a scalar),
 * obj (CA RC: channel id; RPA: body id of the proc; L AL: target pc),
 * msg (AS). `atomic` and `end_atomic` name the program's hidden lock
 * "(atomic)" in obj + idx (a lock declaration the assembler adds when a
 * body has an atomic block: the detectors and the static analyses see a
 * block as that lock held); `atomic` also has a = IMM the pc of its
 * `end_atomic` and b = IMM 1 when an `assume` is inside (a guarded block,
 * whose enabledness needs a dry run); cond + cidx (Q QK: cond decl id and
 * index; QK's lock is in obj + idx, so every VM_F_LOCK instruction names
 * its lock there). */
typedef struct vm_insn {
    uint8_t op;        /* enum vm_opcode */
    uint8_t visible;   /* scheduling point in the reduced search (incl. InitVis) */
    uint8_t end_label; /* a label whose name starts with "end" names this pc */
    uint8_t progress_label; /* a label whose name starts with "progress" names this
                               pc (mcheck --liveness=npc; vm_mark_progress()) */
    uint8_t in_block;  /* after an `atomic`, up to and including its
                          `end_atomic`: run as part of the block's step,
                          never a scheduling point (visible is 0) */
    uint8_t rd;        /* destination register slot */
    vm_operand a, b;
    vm_operand idx;
    int32_t obj;
    const char *msg;
    int32_t cond;      /* Q QK: cond decl id */
    vm_operand cidx;   /* Q QK: index into the cond declaration (IMM 0 for a scalar) */
    int32_t line, col; /* source position of the mnemonic (1-based) */
    const char *text;  /* the instruction as written, trimmed, no comment */
} vm_insn;

enum vm_varclass { VM_SHARED, VM_VOLATILE, VM_UNSHARED };

typedef struct vm_const {
    const char *name;
    int32_t value;
    int32_t line, col;
} vm_const;

/* A global variable (scalar or array). Element e of variable v lives at
 * layout offset v->offset + 4 * e as a little-endian int32, and has the
 * program-wide element number v->first_elem + e (used by detectors). */
typedef struct vm_var {
    const char *name;
    int32_t line, col;
    enum vm_varclass cls;
    bool is_array;
    uint32_t size;        /* elements (1 for a scalar) */
    int32_t init_body;    /* body id of `init T`, or -1 */
    bool stored;          /* some `store` instruction names it (one that
                             none does keeps its initial values for ever) */
    const int32_t *init;  /* size initial values */
    uint32_t offset;
    uint32_t first_elem;
} vm_var;

/* A lock declaration (scalar or array); element e is lock first + e. A
 * `cond` declaration has the same shape (element e is cond first + e). */
typedef struct vm_lockdecl {
    const char *name;
    int32_t line, col;
    bool is_array;
    uint32_t size;
    uint32_t first;
} vm_lockdecl;

typedef struct vm_chan {
    const char *name;
    int32_t line, col;
    uint32_t cap;    /* 1 .. VM_MAX_CHAN_CAP */
    uint32_t offset; /* length byte, then cap int32 slots */
} vm_chan;

/* A `thread` or `proc` declaration and its code. */
typedef struct vm_body {
    const char *name;
    int32_t line, col;
    bool is_proc;
    bool is_array;       /* `thread phil[N]`: instances are named phil[i] */
    uint32_t count;      /* instances (thread) or max spawns (proc) */
    uint32_t first_tid;  /* thread: id of instance 0; proc: unused */
    vm_insn *code;
    uint32_t ncode;      /* includes the implicit trailing `end` */
    uint32_t nregs;      /* register slots this body uses */
    const char **regname;/* slot -> name as written ("r3", "left") */
    uint32_t stack;      /* return-stack depth: 0 if the body has no `call`,
                            else `stack N` or VM_DEFAULT_STACK */
    /* Where each `ret` may return (a sound superset, for the static
     * walkers): pc + 1 of every `call` to a subroutine from which the ret is
     * reachable with that call's frame on top (vm_ret_sites()). CSR over
     * the pcs: ret_pcs[ret_off[pc] .. ret_off[pc + 1]); both NULL when the
     * body has no `call`. */
    const uint32_t *ret_off;
    const uint32_t *ret_pcs;
} vm_body;

/* The pcs the `ret` at pc of body b may return to; *n of them (0 for a pc
 * that is not a reachable ret). */
static inline const uint32_t *vm_ret_sites(const vm_body *b, uint32_t pc, unsigned *n)
{
    if (!b->ret_off) {
        *n = 0;
        return NULL;
    }
    *n = b->ret_off[pc + 1] - b->ret_off[pc];
    return b->ret_pcs + b->ret_off[pc];
}

/* A proposition a model declares (`prop NAME = EXPR`, props.c), for
 * mcheck --ltl: EXPR as postfix code over volatile elements, lock owners,
 * thread locations at labels and constants. */
enum vm_pxop {
    VM_PX_INT,    /* push a */
    VM_PX_ELEM,   /* push global element a (a volatile variable's) */
    VM_PX_OWNER,  /* push the owner of lock element a (a thread id, -1 free) */
    VM_PX_AT,     /* push 1 if thread a stands at pc b (not ended), else 0 */
    VM_PX_NOT, VM_PX_AND, VM_PX_OR,
    VM_PX_EQ, VM_PX_NE, VM_PX_LT, VM_PX_LE, VM_PX_GT, VM_PX_GE,
};
typedef struct vm_pxinsn {
    uint8_t op;   /* enum vm_pxop */
    int32_t a, b;
} vm_pxinsn;
typedef struct vm_prop {
    const char *name;
    int32_t line, col;
    const vm_pxinsn *code;
    uint32_t ncode;
} vm_prop;

/* State layout. All offsets are bytes from the start of the vector.
 *
 * lock l:    [owner:u8 (0 free, else tid+1)][depth:u16][waitset: wsbytes]
 * chan c:    [len:u8][slot:i32 * cap]   (slots >= len are zero)
 * cond q:    [waitset: wsbytes]  (a pthread condition variable: its wait
 *            set only; a model without `cond` has none of these bytes)
 * spawns:    [count:u8] per proc body, in body order (0 for threads)
 * thread t:  static (a `thread` instance):
 *              [status:u8][pc:u16][saved depth:u16, if the body has a wait]
 *              [sp:u8][return pc:u16 * stack, if the body has a call][reg:i32*nregs]
 *            spawn slot:
 *              [status:u8][pc:u16][body:u8][saved depth:u16][self:i32]
 *              [sp:u8][return pc:u16 * (the max stack of the procs), if a proc has a call]
 *              [reg:i32*nregs]
 *            Return-stack entries at sp and above are zero (canonical).
 *            A static thread's body and `self` never change, so they are in
 *            vm_thread_slot, not in the vector: every byte hashed and copied
 *            per transition is one that can differ between states.
 */
enum vm_tstatus {
    VM_T_UNUSED = 0,   /* spawn slot not started yet */
    VM_T_RUNNING = 1,  /* at pc; may be blocked by its instruction */
    VM_T_WAITING = 2,  /* in the wait set of the lock named at pc (wait) or
                          of the cond named at pc (cwait) */
    VM_T_NOTIFIED = 3, /* woken; must re-acquire the lock at pc (cwait: its
                          second operand, in obj + idx) */
    VM_T_ENDED = 4,
};

typedef struct vm_thread_slot {
    uint32_t offset;    /* of the slot in the state vector */
    int32_t body;       /* static body id, or -1 for a spawn slot */
    uint32_t nregs;     /* register slots reserved */
    uint32_t bytes;     /* of the slot */
    uint32_t depth_off; /* saved lock depth (u16), from the slot start; 0: none */
    uint32_t self_off;  /* `self` (i32), from the slot start; 0: static, in `self` */
    uint32_t stack_off; /* return stack ([sp:u8][pc:u16 * stack_cap]), from the
                           slot start; 0: no body it runs has a `call` */
    uint32_t stack_cap; /* return-stack entries reserved */
    uint32_t regs_off;  /* register 0, from the slot start */
    int32_t self;       /* a static thread's instance index */
    bool loc_read;      /* a prop reads its location (vm_mark_props()): with
                           --por its start is not folded, so that every
                           state it passes through the prop is seen */
} vm_thread_slot;

/* Offsets within every slot (status, pc) and within a spawn slot (the
 * rest). */
enum {
    VM_TS_STATUS = 0,
    VM_TS_PC = 1,
    VM_TS_HEADER_STATIC = 3,  /* static slot: status, pc */
    VM_TS_BODY = 3,           /* spawn slot */
    VM_TS_SPAWN_DEPTH = 4,
    VM_TS_SPAWN_SELF = 6,
    VM_TS_SPAWN_REGS = 10,
};

/* Offset of register r of thread tid. */
static inline uint32_t vm_treg_off(const vm_thread_slot *sl, uint32_t r)
{
    return sl->offset + sl->regs_off + 4 * r;
}

typedef struct vm_layout {
    uint32_t size;          /* bytes of the whole vector */
    uint32_t globals_off;   /* all globals, 4 bytes per element */
    uint32_t locks_off;
    uint32_t lock_bytes;    /* per lock: 3 + wsbytes */
    uint32_t wsbytes;       /* wait-set bitmask bytes: (nthreads + 7) / 8 */
    uint32_t conds_off;     /* cond elements, wsbytes each */
    uint32_t spawns_off;
    uint32_t threads_off;
} vm_layout;

typedef struct vm_program {
    const char *filename;
    vm_const *consts;
    uint32_t nconsts;
    vm_var *vars;
    uint32_t nvars;
    uint32_t nelems;        /* global elements over all vars */
    vm_lockdecl *lockdecls;
    uint32_t nlockdecls;
    uint32_t nlocks;        /* lock elements */
    vm_lockdecl *conddecls; /* `cond` declarations */
    uint32_t nconddecls;
    uint32_t nconds;        /* cond elements */
    vm_chan *chans;
    uint32_t nchans;
    vm_body *bodies;
    uint32_t nbodies;
    vm_thread_slot *threads;
    uint32_t nthreads;      /* static threads + every possible spawn */
    uint32_t nstatic;       /* ids 0 .. nstatic-1 exist from the start */
    uint32_t max_regs_proc; /* register slots of a spawn slot */
    vm_layout layout;
    uint8_t *init_state;    /* layout.size bytes */
    vm_prop *props;         /* `prop` declarations (props.c), in order */
    uint32_t nprops;
    struct vm_region *regions; /* `region` declarations (regions.c), in order */
    uint32_t nregions;
    void *arena;            /* owns every string and array above */
    /* Run options that change the semantics (set by the caller after
     * vm_assemble, false by default; the search, trace replay and
     * simulation all read them from here): */
    bool spurious_wakeups;  /* a thread in a wait set may leave it without a
                               notify (Java allows it): a WAITING thread is
                               then enabled as a NOTIFIED one is, and its step
                               is the same re-acquire */
} vm_program;

/* `region NAME = x, y, ...` (regions.c): shared variables that
 * mcheck --analyze keeps together at an import (RATCOP's regions, section
 * 7): their relations survive the mix. A variable is in at most one
 * region. The search ignores regions; mcheck --analyze=check checks their
 * race freedom on a rewritten model (tools/cli/analyze_cli.c). */
typedef struct vm_region {
    const char *name;
    int32_t line, col;
    const uint32_t *vars; /* variable ids */
    uint32_t nvars;
} vm_region;

/* -D NAME=VALUE overrides. */
typedef struct vm_define {
    const char *name;
    int32_t value;
} vm_define;

/* Assemble `len` bytes of `src` (need not be NUL-terminated; may contain
 * NULs, which are errors). Diagnostics go to `diag` in the form
 * "FILE:LINE:COL: error: ...", followed by the source line and a caret; at
 * most 20 are printed. Returns NULL on any error, with *nerrors (if
 * non-NULL) set to the number of errors, or to -1 if memory ran out (then
 * the only diagnostic is "FILE: error: out of memory", and the input may be
 * fine). The caller owns the program: vm_program_free(). */
vm_program *vm_assemble(const char *filename, const char *src, size_t len,
                        const vm_define *defs, size_t ndefs, FILE *diag,
                        int *nerrors);
/* The same with a thread limit of its own (0: VM_MAX_THREADS), at most
 * VM_MAX_THREADS_ANALYSIS: a program with more than VM_MAX_THREADS threads
 * must never be run (the interpreter, the searches and the detectors keep
 * thread ids in a byte); its layout and code are complete for static
 * analyses (analyze/, lockset/'s discharge). */
vm_program *vm_assemble_for(const char *filename, const char *src, size_t len,
                            const vm_define *defs, size_t ndefs, FILE *diag, int *nerrors,
                            uint32_t max_threads);
void vm_program_free(vm_program *p); /* NULL is a no-op */

/* Reclassify global variable `var` (shared or unshared) as volatile, as if
 * the model had declared it so (mcheck --adapt): its class becomes
 * VM_VOLATILE, an `init T` clause is dropped (only shared variables have
 * one), and every load and store of it becomes visible. The layout and the
 * initial state do not change. Returns the number of instructions that became
 * visible (0 if it already was volatile or is never accessed), or -1 if
 * `var` is out of range. */
int vm_make_volatile(vm_program *p, uint32_t var);

/* mcheck --liveness=npc: make every instruction a `progress*` label names
 * visible (progress.c), so that a composed step never runs through one: it
 * is executed only as the first instruction of a step. Called only under
 * --liveness, so the default search's counts do not change. Returns the
 * number of progress-labelled instructions (0: the model has none). */
uint32_t vm_mark_progress(vm_program *p);

/* mcheck --ltl: the value (0 or 1) of prop `i` in state s (props.c). */
int vm_prop_value(const vm_program *p, uint32_t i, const uint8_t *s);
/* mcheck --ltl: make visible every instruction a prop's location names and
 * every release of a lock a prop's owner() reads (props.c), so that a prop
 * changes only at the first instruction of a composed step. Returns the
 * number of instructions made visible. Only under --ltl (the default
 * search's counts stay). */
uint32_t vm_mark_props(vm_program *p);

/* Print the program: layout and code with visible flags (mcheck --dump). */
void vm_dump(const vm_program *p, FILE *out);

/* ---- interpreter ---------------------------------------------------- */

/* Events reported while executing (any pointer may be NULL). A hook returning
 * true stops the step: vm_step() then returns VM_STOPPED (the detector keeps
 * the details). `s` is the state being modified. */
typedef struct vm_hooks {
    void *ctx;
    void (*exec)(void *ctx, const uint8_t *s, int tid, uint32_t pc);
    bool (*access)(void *ctx, uint8_t *s, int tid, uint32_t elem, bool write);
    bool (*acquire)(void *ctx, uint8_t *s, int tid, uint32_t lock); /* lock became ours */
    bool (*release)(void *ctx, uint8_t *s, int tid, uint32_t lock); /* lock became free */
    bool (*spawn)(void *ctx, uint8_t *s, int parent, int child);
    bool (*join)(void *ctx, uint8_t *s, int joiner, int joinee);
    bool (*send)(void *ctx, uint8_t *s, int tid, uint32_t chan);
    bool (*recv)(void *ctx, uint8_t *s, int tid, uint32_t chan);
} vm_hooks;

typedef enum vm_status {
    VM_OK = 0,      /* the instruction executed */
    VM_FAULT = 1,   /* runtime error: see vm_fault; state is unspecified */
    VM_STOPPED = 2, /* a hook stopped the step */
    VM_NOT_TAKEN = 3, /* an `assume` of 0 inside an atomic block: the
                         block's step is not taken (only a dry run of
                         vm_enabled() meets it; state unspecified) */
} vm_status;

/* What a faulting instruction did wrong. Code decides by the kind; the
 * message (which names the variables, locks and values) is for people. */
typedef enum vm_fault_kind {
    VM_FAULT_ASSERTION,    /* assert of 0: "assertion violated: ..." */
    VM_FAULT_DIV_ZERO,     /* div or mod by zero */
    VM_FAULT_INDEX,        /* index out of range of a variable or lock array */
    VM_FAULT_NOT_OWNER,    /* release, wait or notify of a lock the thread does not
                              hold; cwait of a lock not held at depth exactly 1 */
    VM_FAULT_LOCK_DEPTH,   /* acquire nested more than VM_MAX_LOCK_DEPTH times */
    VM_FAULT_SPAWN_MAX,    /* spawn of a proc beyond its max instances */
    VM_FAULT_CHOOSE_EMPTY, /* choose from an empty range */
    VM_FAULT_JOIN_NO_THREAD, /* join of a thread id that does not exist */
    VM_FAULT_STACK_OVERFLOW, /* call with the return stack full */
    VM_FAULT_STACK_EMPTY,    /* ret with the return stack empty */
} vm_fault_kind;

typedef struct vm_fault {
    vm_fault_kind kind;
    int tid;
    uint32_t pc;
    char msg[192];
} vm_fault;

/* Number of successors thread `tid` has in state `s`: 0 when it cannot move
 * (not started, ended, waiting (unless p->spurious_wakeups and the lock is
 * free), or its instruction is blocked); otherwise the
 * number of choices (choose values, notify targets, rendezvous receivers; 1 for everything else,
 * including an instruction that will fault). */
uint64_t vm_enabled(const vm_program *p, const uint8_t *s, int tid);

/* Execute the pending instruction of thread `tid`, taking choice `choice`
 * (0 .. vm_enabled()-1). The thread must be enabled. One instruction:
 * at an `atomic` it only takes the hidden lock, and the caller runs the
 * block's instructions (in_block) with vm_step() too, with no other
 * thread in between, the first of them with the choice
 * vm_block_choice() gives. */
vm_status vm_step(const vm_program *p, uint8_t *s, int tid, uint64_t choice,
                  const vm_hooks *h, vm_fault *f);

/* The successors the instruction at pc would have if running thread `tid`
 * stood there in s (vm_describe_block(): what blocks an atomic block). */
uint64_t vm_enabled_at(const vm_program *p, const uint8_t *s, int tid, uint32_t pc);

/* Thread `tid` stands at an `atomic` and takes step choice c (0 ..
 * vm_enabled()-1): the choice its block's first instruction takes. The
 * same c unless the block is guarded, where vm_enabled() counts only the
 * choices whose run passes every `assume`, and c is the c-th of those. */
uint64_t vm_block_choice(const vm_program *p, const uint8_t *s, int tid, uint64_t c);

/* A rendezvous (`chan c[0]`): if thread `tid` stands at a `send` on a
 * rendezvous channel, the thread that receives with step choice `c` (the
 * c-th thread in id order that is running at a `recv` on that channel),
 * else -1 (also when c is out of range). vm_step() of that send moves
 * both: the receiver's register gets the value and its pc passes the
 * `recv`; the caller runs the receiver's invisible tail. */
int vm_rendezvous_receiver(const vm_program *p, const uint8_t *s, int tid, uint64_t c);

/* The value of operand `o` for thread `tid` in state `s` (a register of the
 * body it runs, `self`, `tid` or an immediate), as vm_step() reads it. For
 * trace replay and reports; the interpreter has its own inline copy. */
int32_t vm_operand_value(const vm_program *p, const uint8_t *s, int tid, const vm_operand *o);

/* The value of a binary arithmetic, bitwise or relational instruction
 * (add .. ge; div and mod need b != 0), as the interpreter computes it. */
int32_t vm_arith(enum vm_opcode op, int32_t a, int32_t b);

/* ---- static analysis: constant registers (absint.c) ------------------- */

/* An abstract register value: a known int32, VM_ABS_TOP (any value) or
 * VM_ABS_BOT (the pc is not reached). */
typedef int64_t vm_absval;
#define VM_ABS_TOP ((vm_absval)INT64_MIN)
#define VM_ABS_BOT ((vm_absval)INT64_MAX)

/* Constant propagation over body `body` for a thread whose `self` and
 * global id are `self` and `tid` (each a known value or VM_ABS_TOP),
 * starting at pc 0 with every register 0 (a thread's registers start
 * cleared): the value each register may have when the thread stands at
 * each pc, regs[pc * (nregs + 1) + r] (nregs = the body's); the extra
 * entry regs[pc * (nregs + 1) + nregs] is 0 at a pc reachable from pc 0 and
 * VM_ABS_BOT, like every register there, at a pc that is not. Branches on a known value take
 * one way only. Sound for every run of such a thread, whatever the other
 * threads do (loads, recv, choose and spawn results are VM_ABS_TOP). NULL
 * when memory runs out. The caller frees it. */
vm_absval *vm_absregs(const vm_program *p, uint32_t body, vm_absval self, vm_absval tid);

/* The value of operand o when the registers are `regs` (one pc's row of
 * vm_absregs()). */
vm_absval vm_absop(const vm_operand *o, const vm_absval *regs, vm_absval self, vm_absval tid);

/* The pcs control may go to after the instruction at pc (returns how
 * many), with its registers `regs`: a known jz/jnz operand picks one way;
 * `end` has none; `call L` goes to L; `ret` to each of vm_ret_sites() (any
 * number). *succ is set to the list: `buf` (at most 2 entries) or the body's
 * return sites. */
unsigned vm_abssucc(const vm_body *b, uint32_t pc, const vm_absval *regs, vm_absval self,
                    vm_absval tid, uint32_t buf[2], const uint32_t **succ);

/* True if thread `tid` stands at a scheduling point of the reduced search:
 * not running (ended, unused, waiting, notified) or its pc is visible. */
bool vm_at_visible(const vm_program *p, const uint8_t *s, int tid);

/* True if the state is a valid end state when no thread is enabled: every
 * thread ended or unused, or blocked at an end label. */
bool vm_valid_end(const vm_program *p, const uint8_t *s);

/* Thread name: "main", "phil[2]", "worker[0]" (spawn slots by instance). */
void vm_thread_name(const vm_program *p, const uint8_t *s, int tid, char *buf,
                    size_t n);

/* What a thread that cannot move waits for, e.g. "acquire fork[1] held by
 * phil[1]", "recv on empty c", "notify of m (in wait set)". */
void vm_describe_block(const vm_program *p, const uint8_t *s, int tid,
                       char *buf, size_t n);

/* The code of the body thread `tid` runs (NULL for an unused spawn slot). */
const vm_body *vm_thread_body(const vm_program *p, const uint8_t *s, int tid);

/* Name of lock element l ("m", "fork[1]") and global element e ("x",
 * "meals[2]"). */
void vm_lock_name(const vm_program *p, uint32_t l, char *buf, size_t n);
void vm_elem_name(const vm_program *p, uint32_t e, char *buf, size_t n);
/* The variable that global element e belongs to. */
const vm_var *vm_elem_var(const vm_program *p, uint32_t e);

/* ---- raw state access (little-endian, unaligned) ---------------------- */
/* memcpy, so that each is one load or store on the machines that allow
 * unaligned access (the byte-by-byte forms were four stores: compilers do
 * not merge stores through a uint8_t pointer that may alias). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define VM_LE16(x) __builtin_bswap16(x)
#define VM_LE32(x) __builtin_bswap32(x)
#else
#define VM_LE16(x) (x)
#define VM_LE32(x) (x)
#endif
static inline uint32_t vm_rd16(const uint8_t *s, uint32_t off)
{
    uint16_t v;
    memcpy(&v, s + off, 2);
    return VM_LE16(v);
}
static inline void vm_wr16(uint8_t *s, uint32_t off, uint32_t v)
{
    uint16_t u = VM_LE16((uint16_t)v);
    memcpy(s + off, &u, 2);
}
static inline int32_t vm_rd32(const uint8_t *s, uint32_t off)
{
    uint32_t v;
    memcpy(&v, s + off, 4);
    return (int32_t)VM_LE32(v);
}
static inline void vm_wr32(uint8_t *s, uint32_t off, int32_t v)
{
    uint32_t u = VM_LE32((uint32_t)v);
    memcpy(s + off, &u, 4);
}

static inline enum vm_tstatus vm_tstatus_of(const vm_program *p,
                                            const uint8_t *s, int tid)
{
    return (enum vm_tstatus)s[p->threads[tid].offset + VM_TS_STATUS];
}
static inline uint32_t vm_tpc(const vm_program *p, const uint8_t *s, int tid)
{
    return vm_rd16(s, p->threads[tid].offset + VM_TS_PC);
}
/* Index in p->bodies of the code thread `tid` runs (meaningless for an
 * unused spawn slot). */
static inline uint32_t vm_tbody_index(const vm_program *p, const uint8_t *s, int tid)
{
    const vm_thread_slot *sl = &p->threads[tid];
    return sl->body >= 0 ? (uint32_t)sl->body : s[sl->offset + VM_TS_BODY];
}
/* A thread's `self`: its instance index, or a spawned thread's argument. */
static inline int32_t vm_tself(const vm_program *p, const uint8_t *s, int tid)
{
    const vm_thread_slot *sl = &p->threads[tid];
    return sl->self_off ? vm_rd32(s, sl->offset + sl->self_off) : sl->self;
}
/* Offset of cond element q's wait set. */
static inline uint32_t vm_cond_off(const vm_program *p, uint32_t q)
{
    return p->layout.conds_off + q * p->layout.wsbytes;
}
/* Name of cond element q ("c", "cv[1]"). */
void vm_cond_name(const vm_program *p, uint32_t q, char *buf, size_t n);
/* Owner of lock element l: a thread id, or -1 when free. */
static inline int vm_lock_owner(const vm_program *p, const uint8_t *s,
                                uint32_t l)
{
    return (int)s[p->layout.locks_off + l * p->layout.lock_bytes] - 1;
}
static inline int32_t vm_global(const vm_program *p, const uint8_t *s,
                                uint32_t elem)
{
    return vm_rd32(s, p->layout.globals_off + 4 * elem);
}

#endif
