/* reduce.h: the state-space search (DFS or BFS) with Stoller's transition
 * composition, error detection, traces and statistics.
 *
 * A transition from a stored state runs one enabled thread's pending
 * instruction with one of its choices. With REDUCE_COMPOSE it then runs that
 * thread's invisible instructions until the thread stands at a visible
 * control point, ends, blocks or errs (Stoller's execInvis, section 5.1), so
 * only visible states are stored; REDUCE_NONE stops after one instruction.
 * The search owns its store and stack; nothing here is global, so several
 * searches can run in one process. Errors are data: a verdict with its
 * cause and fault kind, the message only for people. Inside: step.c (the
 * composed step), dfs.c, bfs.c, lookahead.c, search.c, explore.c, replay.c,
 * parallel.c (-j N), shorten.c (a shorter trace after a depth-first search)
 * (docs/architecture.md). */
#ifndef MCHECK_REDUCE_H
#define MCHECK_REDUCE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "lockset.h"
#include "store.h"
#include "vm.h"

typedef enum reduce_mode { REDUCE_NONE, REDUCE_COMPOSE } reduce_mode;
/* SEARCH_STATELESS: Stoller's IF-SSS_cyc (stateless.c): a depth-first
 * search over executions that keeps only the current path, with sleep sets
 * and iterative deepening; no state store. */
typedef enum search_order { SEARCH_DFS, SEARCH_BFS, SEARCH_STATELESS } search_order;
/* --liveness: LIVENESS_NPC looks for a non-progress cycle (liveness.c). */
/* --fair: which infinite executions the starvation search counts. Weak:
 * a thread enabled continuously from some point on steps infinitely often
 * (SPIN's -f); strong (compassion): a thread enabled infinitely often steps
 * infinitely often (TLA+'s SF per thread; for a thread blocked on acquire,
 * SF of that acquire). */
typedef enum fairness_mode { FAIR_NONE = 0, FAIR_WEAK, FAIR_STRONG } fairness_mode;

typedef enum liveness_mode { LIVENESS_OFF = 0, LIVENESS_NPC,
                              LIVENESS_STARVATION /* a starved thread (starvation.c) */
} liveness_mode;

typedef enum verdict {
    VERDICT_OK = 0,
    VERDICT_DEADLOCK,
    VERDICT_ASSERTION,
    VERDICT_RUNTIME_ERROR,
    VERDICT_LOCK_DISCIPLINE,
    VERDICT_RACE,
    VERDICT_NON_PROGRESS,  /* --liveness=npc: a non-progress cycle (liveness.c) */
    VERDICT_LTL,           /* --ltl: an execution that violates the formula (ltl_search.c) */
    VERDICT_STARVATION,    /* --liveness=starvation: a starved thread (starvation.c) */
    VERDICT_INCOMPLETE,
} verdict;

/* Why the search stopped (besides having explored everything). */
typedef enum stop_reason {
    STOP_COMPLETE = 0,  /* every reachable state explored */
    STOP_ERROR,         /* the first error was found */
    STOP_DEPTH,         /* complete up to --max-depth; deeper paths pruned */
    STOP_MEMLIMIT,
    STOP_TIMELIMIT,
    STOP_INTERRUPTED,   /* SIGINT / SIGTERM */
    STOP_NOMEM,         /* an allocation failed */
    STOP_STATELIMIT,    /* explore_options.max_states stored (the BFS only) */
    STOP_PREEMPTION,    /* the stateless search: every execution within the
                           preemption bound explored, some beyond it left out
                           (the verdict stays ok: no error within the bound) */
    STOP_DELAY,         /* likewise for the delay bound (delay_bound.c) */
} stop_reason;

/* The order in which the depth-first search with --por (dfs_por.c) tries
 * the threads of a state's persistent set: --swarm's workers differ in it
 * (swarm.c). ORDER_RANDOM: a random permutation per state, keyed by the
 * state's hash and explore_options.order_seed (the same state, the same
 * order, so a run is repeatable). */
typedef enum thread_order { ORDER_IDS = 0, ORDER_REVERSED, ORDER_RANDOM } thread_order;

typedef enum lookahead_mode {
    LOOKAHEAD_AUTO = 0, /* guess by the odds, once the store passes 4 MB */
    LOOKAHEAD_ON,       /* guess by the odds from the start */
    LOOKAHEAD_CHILD,    /* always guess a lookup new (the tests use these two) */
    LOOKAHEAD_SIBLING,  /* always guess a lookup seen */
    LOOKAHEAD_OFF,
} lookahead_mode;

/* --ltl (ltl.c): the Büchi automaton of a negated formula. State 0 is the
 * initial pseudo-state; entering state q reads a state of the model that
 * makes the props in pos[q] true and those in neg[q] false (ltl_enters());
 * succ[succ_off[q] .. succ_off[q+1]) are q's successors. */
typedef struct ltl_automaton {
    uint32_t nstates, nedges;
    uint64_t *pos, *neg;   /* per state: bits of p->props */
    uint8_t *accepting;
    uint32_t *succ_off, *succ;
    uint32_t nodes;        /* the tableau's nodes (statistics) */
    uint32_t acceptance_sets; /* U subformulas (the degeneralization's counter) */
} ltl_automaton;

/* Parse `formula` over p's props, negate it and translate it; NULL with a
 * message in err (no "error:" prefix) if it is malformed or too large. */
ltl_automaton *ltl_translate(const char *formula, const vm_program *p, char *err, size_t errlen);
void ltl_free(ltl_automaton *a); /* NULL is a no-op */
/* May the automaton enter q reading a state whose props are `props`? */
bool ltl_enters(const ltl_automaton *a, uint32_t q, uint64_t props);

typedef struct explore_options {
    reduce_mode reduce;
    search_order search;
    ls_kind race;             /* lock-discipline / race detector (default LS_LD;
                                 LS_OFF: none) */
    store_config store;
    uint64_t max_depth;       /* 0: unbounded */
    uint64_t max_invisible;   /* BoundedInvis bound (default 100000) */
    double timelimit;         /* seconds; 0: none */
    uint64_t memlimit;        /* bytes; 0: none */
    bool shorten_off;         /* --shorten=off: lassos as the nested search found them */
    const struct engine *engine; /* the engine to run (mcheck-mpi: engine_mpi,
                                    reduce_mpi.h); NULL: the one the table picks
                                    (reduce/engine/engines.c) */
    bool memlimit_default;    /* memlimit is mcheck's default (a share of the
                                 physical memory), not the user's: checked when
                                 the clock is, not after every transition */
    bool all_errors;          /* keep searching after an error */
    unsigned max_traces;      /* with all_errors: keep the paths of this many
                                 errors (0: 10); later ones are only counted */
    FILE *progress;           /* progress lines every few seconds; NULL: none */
    FILE *dump_states;        /* hex of every stored visible state; NULL: none */
    atomic_int *interrupt;    /* set non-zero to stop the search (a signal handler
                                 may: a lock-free atomic is async-signal-safe) */
    bool por;                 /* Stoller's stronger reduction on top of
                                 composition (--por): threads' invisible
                                 starts folded, statically discharged
                                 elements without detector metadata,
                                 persistent sets with a cycle proviso. Off by
                                 default: LANGUAGE.md fixes the default
                                 search's counts. Needs REDUCE_COMPOSE. */
    unsigned workers;         /* -j: 0, the sequential search (dfs.c,
                                 bfs.c); N >= 1, N worker threads over one
                                 shared store (parallel.c): the same
                                 states and counts, another order */
    lookahead_mode lookahead; /* DFS without a detector: build the steps
                                 likely to come next and prefetch their
                                 lookups, guessing whether each lookup finds
                                 a new state (then its first step comes next)
                                 or a seen one (then the next step of its
                                 level) */
    const struct explore_error *target; /* non-NULL: only an error that
                                 matches it (explore_error_matches()) is
                                 recorded and stops the search; others are
                                 counted and searched past like --all-errors
                                 (an error state has no successors). For
                                 explore_shorten() */
    uint64_t max_states;      /* the sequential BFS stops (STOP_STATELIMIT)
                                 before expanding a state once this many are
                                 stored; 0: no bound. Others ignore it */
    /* --search=stateless (stateless.c) only: */
    int64_t preemption_bound; /* at most this many preemptions (a step of a
                                 thread other than the last one while the
                                 last one could still move) on an
                                 execution; -1 (the default): no bound */
    bool preemption_iterate;  /* raise the bound from 0 to preemption_bound,
                                 one at a time, while executions were left
                                 out for it (--preemption-bound=0..K) */
    int64_t delay_bound;      /* at most this many delays (delay_bound.c:
                                 deviations from a round-robin scheduler);
                                 -1 (the default): no bound. Not with
                                 preemption_bound; sleep sets off under it */
    bool delay_iterate;       /* raise it from 0 likewise (--delay-bound=0..K) */
    bool no_sleep_sets;       /* sleep sets off (tests and benchmarks) */
    bool scheduling_races;    /* --scheduling=races: race-driven transactions
                                 (stateless_races.c), a dynamic partial-order
                                 reduction of the stateless search */
    /* --liveness=npc (liveness.c): a nested depth-first search for a
     * non-progress cycle; the program's progress-labelled instructions must
     * be visible (vm_mark_progress()). Only with the sequential DFS, a
     * compact or exact store, no --por: explore_run() refuses the rest. */
    liveness_mode liveness;
    const ltl_automaton *ltl; /* --ltl (ltl_search.c): search the product
                                 with this automaton of the negated formula
                                 for an accepting cycle; the props'
                                 locations and locks made visible
                                 (vm_mark_props()); the same restrictions as
                                 --liveness, which it excludes */
    const char *ltl_text;     /* --ltl's formula as given (for the reports) */
    unsigned liveness_test_bits; /* tests only: the outer stack's set keys on
                                 this many bits of a state's hash (0: 64), so
                                 that collisions invent cycles the replay
                                 check must reject */
    fairness_mode fair;       /* --fair[=weak|strong] (--liveness=starvation):
                                 only weakly or strongly fair cycles count
                                 (starvation.c); FAIR_NONE (0): every cycle */
    int32_t starved;          /* --starved T: only thread T is checked for
                                 starvation (starvation.c); -1: every thread */
    const struct explore_lasso *check_lasso; /* mcheck --replay of a lasso of
                                 --liveness=starvation or --ltl: no search;
                                 explore_run() checks this lasso with the
                                 search's own check (starvation.c's,
                                 ltl_search.c's lasso_holds()) and records
                                 it as the search would, or no error */
    /* --swarm N (swarm.c): N worker threads, each the depth-first search
     * with --por over a store of its own in another thread order; the
     * first to end (an error, or a complete search) stops the others */
    unsigned swarm;           /* 0: no swarm */
    uint64_t swarm_seed;      /* --seed: worker k >= 2 orders with seed swarm_seed + k - 2 */
    thread_order order;       /* dfs_por.c: the order it tries a state's threads in */
    uint64_t order_seed;      /* ORDER_RANDOM's seed */
    /* mcheck-mpi (mpi.c) only, for tests and tuning: */
    uint64_t mpi_round_bytes; /* levels: a rank enters a round's exchange once
                                 its batches hold this many bytes (0: 4 MB);
                                 async: a batch is sent once it holds this
                                 many (0: 64 KB) */
    double mpi_progress;      /* seconds between progress lines (default 3;
                                 0: one every round) */
    bool mpi_async;           /* --exchange=async: mpi_async.c; else by levels
                                 (shortest traces, --max-depth) */
} explore_options;

/* The stateless search's depth bound when explore_options.max_depth is 0,
 * like SPIN's default -m10000: its iterative deepening stops there, and a
 * cyclic model is then reported incomplete (STOP_DEPTH). */
#define STATELESS_DEFAULT_DEPTH 10000u

void explore_options_default(explore_options *o);

/* One scheduling decision: thread and choice. */
typedef struct explore_step {
    int32_t tid;
    uint64_t choice;
} explore_step;

/* explore_options.check_lasso: a recorded lasso, the cycle its steps from
 * cycle_start on (--ltl: cycle_start == len, the last state repeats
 * forever); with --liveness=starvation, the thread it claims starves. */
typedef struct explore_lasso {
    const explore_step *path;
    uint32_t len, cycle_start;
    int32_t starved;
} explore_lasso;

/* What an error is, finer than its verdict (error_verdict() maps one to
 * the other). Code decides by the cause (and the fault kind), never by the
 * message text. */
typedef enum error_cause {
    CAUSE_NONE = 0,         /* no error */
    CAUSE_DEADLOCK,         /* no thread can move, and not a valid end */
    CAUSE_FAULT,            /* the interpreter faulted: `fault` says how */
    CAUSE_BOUNDED_INVIS,    /* Stoller's BoundedInvis: no visible operation
                               within --max-invisible steps */
    CAUSE_LOCK_DISCIPLINE,  /* LD' or Eraser reported an access */
    CAUSE_RACE,             /* Goldilocks reported an access */
    CAUSE_UNSHARED,         /* an unshared variable touched by a second thread */
    CAUSE_NON_PROGRESS,     /* --liveness=npc: a cycle of steps none of which
                               executes a progress-labelled instruction */
    CAUSE_LTL,              /* --ltl: an accepting cycle of the product with
                               the negated formula's automaton */
    CAUSE_STARVATION,       /* --liveness=starvation: a cycle on which a thread
                               is enabled and never passes its progress label */
} error_cause;

/* The verdict of an error: CAUSE_FAULT is an assertion or a runtime error
 * by its fault kind, BoundedInvis and unshared are runtime errors. */
verdict error_verdict(error_cause c, vm_fault_kind fault);

typedef struct explore_error {
    verdict kind;
    error_cause cause;
    vm_fault_kind fault;    /* with CAUSE_FAULT */
    char msg[256];          /* "assertion violated: ...", "deadlock", ... */
    int tid;                /* faulting thread (-1 for a deadlock) */
    uint32_t pc;
    uint32_t body;          /* the body thread tid runs (UINT32_MAX: deadlock) */
    uint32_t elem;          /* global element a detector reported (lock_discipline,
                               race, unshared runtime_error), else UINT32_MAX */
    explore_step *path;     /* from the initial state to the error */
    uint32_t len;
    /* CAUSE_NON_PROGRESS: the path is a lasso, a stem of cycle_start steps,
     * then the cycle: the state after all len steps is the state after the
     * first cycle_start (the search replayed it and compared them) */
    bool lasso;
    uint32_t cycle_start;
    int32_t starved;        /* CAUSE_STARVATION: the starved thread's id */
} explore_error;

typedef struct explore_stats {
    uint64_t states_stored;   /* including error states */
    uint64_t states_matched;  /* successors found already stored */
    uint64_t transitions;     /* successors generated (composed steps) */
    uint64_t end_states;      /* valid end states reached (every thread ended or
                                 waiting at an end label): stored ones; the
                                 stateless search counts distinct ones by hash,
                                 with --all-errors only (else 0) */
    uint64_t max_depth;       /* deepest stack (DFS) or level (BFS) */
    uint64_t instructions;    /* executed, visible and invisible */
    uint64_t invisible;       /* of those, merged into composed steps */
    uint64_t vector_bytes;    /* state vector size (with detector metadata) */
    uint64_t locksets;        /* distinct locksets interned by the detector */
    double detector_seconds;  /* time in the detector (sampled estimate) */
    uint64_t por_reduced;     /* --por: states whose persistent set left a
                                 thread with a step out */
    uint64_t por_proviso;     /* --por: of those, states the cycle proviso
                                 expanded fully after all */
    uint64_t shared_elements; /* global elements of shared variables */
    uint64_t discharged;      /* --por: of those, the ones the static
                                 analysis discharged (no detector metadata) */
    /* --search=stateless (stateless.c); 0 for the other searches */
    uint64_t executions;      /* executions explored (leaves of the search
                                 tree, error steps included), all iterations */
    uint64_t iterations;      /* depth-bounded searches run (iterative
                                 deepening, and the preemption bound raised) */
    uint64_t depth_bound;     /* the depth bound of the last iteration */
    uint64_t sleep_avoided;   /* steps not taken because their thread was
                                 asleep (revisits avoided by sleep sets) */
    uint64_t preemption_pruned; /* steps not taken for the preemption bound */
    int64_t preemption_bound; /* the bound of the last iteration (-1: none) */
    uint64_t delay_pruned;    /* steps not taken for the delay bound */
    int64_t delay_bound;      /* the delay bound of the last iteration (-1: none) */
    /* --scheduling=races (stateless_races.c); 0 otherwise */
    uint64_t light_nodes;     /* nodes where the last thread's transaction
                                 went on without a scheduling choice */
    uint64_t races_found;     /* backtrack points added for races */
    uint64_t race_fallbacks;  /* light nodes made full (a racing thread's
                                 step there was not light, or a step erred) */
    /* --liveness=npc (liveness.c); 0 otherwise. states_stored and
     * transitions count the search of every state (what the safety search
     * counts); these the product's second copy and the nested search */
    uint64_t np_states;       /* states entered in the non-progress copy */
    uint64_t np_transitions;  /* its non-progress steps generated */
    uint64_t nested_states;   /* states stored by the nested (inner) searches */
    uint64_t nested_transitions; /* their steps generated */
    uint64_t nested_searches; /* inner searches started (one per seed) */
    uint64_t progress_skipped; /* progress steps not taken in the copy and
                                 the inner searches */
    uint64_t cycles_rejected; /* cycles found that failed the replay check
                                 (a hash collision invented them) */
    /* --liveness=starvation (starvation.c); 0 otherwise */
    uint64_t starvation_checks; /* threads checked (a progress label) */
    uint64_t sccs;            /* SCCs completed over all those searches */
    /* Memory, in three senses (docs/usage.md "Memory figures"): reserved,
     * what is allocated (the capacity of an array, a whole bit array);
     * used, the bytes of it that hold live data; resident, what the OS
     * has given the process (peak_rss). --memlimit counts reserved bytes:
     * store_bytes + search_reserved + buffer_bytes + error_bytes. */
    uint64_t store_bytes;     /* what the store took from malloc, overhead
                                 included (bitstate: the whole array) */
    uint64_t search_bytes;    /* search_reserved + buffer_bytes (the figure
                                 the JSON field "search_bytes" has always had) */
    uint64_t search_reserved; /* the DFS stack (frames, undo log; -j: the
                                 workers' item stacks and tree nodes) or the
                                 BFS queue (parent links, level vectors):
                                 capacity allocated */
    uint64_t search_used;     /* of that, the most bytes holding entries at
                                 once (-j: sampled every few thousand steps
                                 and at the end) */
    uint64_t buffer_bytes;    /* fixed-size: work vectors, the recent-lookup
                                 cache, look-ahead slots, batches */
    uint64_t error_bytes;     /* the errors kept, with their paths */
    uint64_t refused_bytes;   /* STOP_MEMLIMIT at a growth of the stack or
                                 queue that did not fit: the bytes it needed
                                 (0: the counted total passed the limit) */
    uint64_t peak_rss;        /* bytes, from getrusage: the whole process
                                 (mcheck.c reads it again at report time) */
    double omission;          /* store_omission_probability */
    double seconds;
} explore_stats;

/* One worker of a parallel search (-j N): what it did. */
typedef struct explore_worker {
    uint64_t states;          /* stored by it */
    uint64_t transitions;     /* generated by it */
    double idle;              /* seconds it waited for work */
    uint64_t steals;          /* times it was handed work by another */
} explore_worker;

/* One rank of the distributed search (mcheck-mpi, reduce/mpi/mpi.c): what it
 * did and what it cost on the network. */
typedef struct explore_rank {
    uint64_t states;          /* stored by it (it owns them) */
    uint64_t transitions;     /* generated by it (it expanded their source) */
    uint64_t messages;        /* non-empty batches sent to other ranks */
    uint64_t bytes;           /* bytes of those batches */
    uint64_t store_bytes;     /* its store */
    double wait;              /* seconds in the exchanges (waiting for the
                                 slowest rank, and the transfer itself) */
} explore_rank;

/* An instruction the search never reached: pc of p->bodies[body]. */
/* --swarm N: what one worker did (swarm.c). */
typedef struct explore_swarm_worker {
    thread_order order;
    uint64_t seed;            /* ORDER_RANDOM's seed */
    uint64_t states;          /* stored in its own store */
    uint64_t transitions;
    uint64_t max_depth;
    stop_reason stop;         /* how its search ended; STOP_INTERRUPTED when
                                 another worker's end (or a signal) stopped it */
    double seconds;
} explore_swarm_worker;

typedef struct explore_unreached {
    uint32_t body;
    uint32_t pc;
} explore_unreached;

/* The parts of the memory --memlimit counts (explore_stats), to say which
 * one filled it. */
typedef enum mem_part {
    MEM_NONE = 0,
    MEM_STORE,      /* the visited-state set */
    MEM_STACK,      /* the DFS stack (-j: the workers' item stacks) */
    MEM_QUEUE,      /* the BFS queue (-j: the levels) */
    MEM_BUFFERS,    /* work vectors and caches */
    MEM_ERRORS,     /* the errors kept with their paths */
} mem_part;

typedef struct explore_result {
    verdict verdict;          /* the first error's kind, OK, or INCOMPLETE */
    stop_reason stop;
    mem_part memlimit_part;   /* STOP_MEMLIMIT: the part that filled the limit
                                 (a growth that did not fit, else the part
                                 holding the most live data); else MEM_NONE */
    explore_error *errors;    /* the first errors found, with their paths */
    uint32_t nerrors;
    uint64_t error_count[VERDICT_INCOMPLETE]; /* every error found, by kind */
    explore_stats stats;
    /* A search stopped by --memlimit, --timelimit, --max-states or a signal:
     * the state it was expanding then (the DFS's top, the BFS's last
     * successor; a copy of p->layout.size bytes, for the report's hint on
     * registers that make every state new), else NULL. Sequential stateful
     * searches only. */
    uint8_t *stop_state;
    /* Unreached code, like SPIN's "unreached in proctype": only after a
     * complete search (stop STOP_COMPLETE; with all_errors that is one
     * that went past every error). An instruction is reached when a step
     * ran it (or tried to: it faulted or the detector stopped it), or a
     * thread stood at it in a stored state (blocked there, perhaps for
     * good). The implicit trailing `end` of each body is never listed. In
     * body order, then pc order. */
    bool unreached_known;     /* false: the search was partial, or bitstate
                                 (it may miss states), or out of memory */
    explore_unreached *unreached;
    uint32_t nunreached;
    explore_worker *workers;  /* -j N: one per worker (NULL: sequential) */
    uint32_t nworkers;
    explore_rank *ranks;      /* mcheck-mpi: one per rank (NULL: one process) */
    uint32_t nranks;
    /* --liveness=npc, --ltl: the lasso of errors[0] was shortened
     * (reduce/liveness/lasso_bfs.c) from this many steps (0: it was not),
     * by breadth-first searches that kept lasso_bfs_states states */
    uint32_t lasso_shortened_from;
    uint64_t lasso_bfs_states;
    explore_swarm_worker *swarm; /* --swarm N: one per worker (NULL: no swarm) */
    uint32_t nswarm;
    uint32_t swarm_decided;   /* the worker whose end decided the result, + 1
                                 (its error, or its complete search); 0: none
                                 (every worker stopped at a limit) */
    const struct engine *engine; /* the engine that ran, for its statistics'
                                    rows (explore_stats_rows()); NULL: the
                                    distributed search's (mcheck-mpi) */
} explore_result;

/* Can explore_run() run these options? NULL if so, else why not: the text
 * of a usage error (written into msg, n bytes, or a constant). Each search
 * checks its own combination (reduce/engine/engines.c); the command line prints
 * the text. */
const char *explore_check(const explore_options *o, char *msg, size_t n);

/* Run the search. Returns 0; EXPLORE_REFUSED if explore_check() refuses
 * the options; or -1 if nothing could be allocated (result then holds
 * STOP_NOMEM). Free the result with explore_result_free(). */
#define EXPLORE_REFUSED (-2)
int explore_run(const vm_program *p, const explore_options *o, explore_result *r);
void explore_result_free(explore_result *r);

/* The name of each value, from one table per enumeration (search.c): the
 * command line parses them and the reports print them. A value out of
 * range is "?". */
const char *verdict_name(verdict v);      /* "ok", "deadlock", ... (JSON) */
const char *stop_reason_name(stop_reason s); /* "complete", "memory_limit", ... */
const char *reduce_mode_name(reduce_mode m);  /* "compose", "none" */
const char *search_order_name(search_order s); /* "dfs", "bfs", "stateless" */
const char *race_mode_name(ls_kind k);     /* "off", "ld", "eraser", "goldilocks" */
const char *lookahead_mode_name(lookahead_mode m); /* "auto", "on", ... "off" */
const char *fairness_name(fairness_mode f); /* "none", "weak", "strong" */
const char *mem_part_name(mem_part m);
const char *thread_order_name(thread_order o); /* "id", "reversed", "random" */
/* --swarm: "found by swarm worker 3 (random order, seed 17)" (or "...
 * completed by ..." for a complete search) into buf; NULL when no worker
 * decided the result or r is not a swarm's (swarm.c). */
const char *explore_swarm_decider(const explore_result *r, char *buf, size_t n);     /* "none", "store", "stack", "queue", ... */
/* The bytes --memlimit counts, from the statistics (the sum of the parts). */
uint64_t explore_counted_bytes(const explore_stats *x);
/* The process's peak resident set size so far, in bytes (getrusage; 0 if
 * it cannot be read). */
uint64_t explore_peak_rss(void);

/* ---- the statistics' rows (reduce/engine/rows.c) ----------------------- */

/* A report prints the common fields of explore_stats and, among them, the
 * rows of the engine that ran and of what wraps it (--por, the workers or
 * ranks), which explore_stats_rows() hands to the report's sink: a text row
 * with its label and its wording, or a JSON member with its key. Each has
 * a place; the report asks for one place at a time, so it names no search. */
typedef enum stats_place {
    STATS_COUNTS,    /* text: first; a search that stores no state counts here */
    STATS_SEARCH,    /* text: after the steps; JSON: after STATS_REDUCTION */
    STATS_REDUCTION, /* text: after STATS_SEARCH; JSON: after "end_states" */
    STATS_DETECTOR,  /* text: after the detector's lines (only with one) */
    STATS_LOAD,      /* text: after the time; JSON: after "shortening" */
} stats_place;

typedef enum stats_kind {
    STATS_COUNT,     /* a uint64_t */
    STATS_SIGNED,    /* an int64_t */
    STATS_NULL,      /* null: the value does not apply */
    STATS_SECONDS,   /* a double, to the microsecond */
    STATS_ARRAY,     /* opens an array ("key":[), closed by STATS_END */
    STATS_OBJECT,    /* opens an object ({) in an array, closed by STATS_END */
    STATS_END,
} stats_kind;

typedef struct stats_member {
    stats_kind kind;
    const char *key;          /* NULL for an object in an array and for the end */
    uint64_t count;
    int64_t number;
    double seconds;
} stats_member;

typedef struct stats_sink stats_sink;
struct stats_sink {
    stats_place at;           /* the place the report prints now: explore_stats_rows()
                                 hands over only its rows */
    /* A text row: its label (the report pads it to 20 columns) and value. */
    void (*row)(stats_sink *k, const char *label, const char *value);
    /* A JSON member of "stats". */
    void (*member)(stats_sink *k, const stats_member *m);
    void *out;                /* the report's own (its FILE, its state) */
};

/* What the common fields are for the engine that ran r with options o. */
typedef struct stats_frame {
    bool stores;              /* it stores states: states stored and matched, the
                                 store, its omission, the detector's time; else
                                 its rows at STATS_COUNTS say what it counted */
    const char *frontier;     /* what it keeps its frontier in: "stack" or "queue" */
    const char *rate_of;      /* what the time's rate counts ("states", ...) */
    uint64_t rate_count;      /* and how many */
} stats_frame;

stats_frame explore_stats_frame(const explore_options *o, const explore_result *r);
/* Hand the rows at k->at to k: those of the engine that ran r, then of
 * --por, then the load of each worker or rank. */
void explore_stats_rows(const explore_options *o, const explore_result *r, stats_sink *k);
/* b bytes for people: "512 B", "1.5 KB", ... "2.0 TB", written into buf (n bytes). */
const char *explore_human_bytes(double b, char *buf, size_t n);

/* Parse a name of the same tables: true and *out set if `s` names a value. */
bool reduce_mode_parse(const char *s, reduce_mode *out);
bool search_order_parse(const char *s, search_order *out);
bool race_mode_parse(const char *s, ls_kind *out);
bool lookahead_mode_parse(const char *s, lookahead_mode *out);

/* ---- shortening a counterexample (shorten.c) --------------------------- */

/* Does an error of this cause, fault, body, pc and element match `target`
 * (the same error for explore_shorten())? Any deadlock matches a deadlock; a
 * fault the same fault kind at the same pc of the same body; BoundedInvis
 * the same body and pc; a lock-discipline, race or unshared error the same
 * cause on the same global element (the access may be another instruction).
 * The thread id is not compared: another thread running the same body
 * (philosophers) may reach the error sooner. */
bool explore_error_matches(const explore_error *target, error_cause cause,
                           vm_fault_kind fault, uint32_t body, uint32_t pc, uint32_t elem);

/* What explore_shorten() may spend. */
typedef struct shorten_budget {
    uint64_t states;          /* stored states (0: no bound) */
    double timelimit;         /* seconds (0: none; < 0: spent already) */
    uint64_t memlimit;        /* bytes (0: none) */
} shorten_budget;

typedef enum shorten_outcome {
    SHORTEN_NOT_TRIED = 0,    /* the path has at most one step: none is shorter */
    SHORTEN_SHORTER,          /* a shorter path found (in `out`) */
    SHORTEN_NONE_SHORTER,     /* the search to depth len - 1 found no match */
    SHORTEN_STOPPED,          /* the budget or a limit stopped it (stop says) */
} shorten_outcome;

typedef struct shorten_stats {
    shorten_outcome outcome;
    stop_reason stop;         /* how the breadth-first search ended */
    uint32_t from;            /* the length of the path given */
    uint64_t budget;          /* shorten_budget.states */
    uint64_t states;          /* stored by the breadth-first search */
    double seconds;
} shorten_stats;

/* Look for a path shorter than er->path to an error matching `er`, by a
 * sequential breadth-first search with o's reduction, detector, --por,
 * max_invisible and store (bitstate becomes the default compact store), up
 * to depth er->len - 1, within budget `b`. With SHORTEN_SHORTER `out` holds
 * the shortest path found and the error at its end (free out->path);
 * otherwise `out` is zeroed. `st` says what happened. Returns 0, or -1 if
 * the search could not start (out of memory; st->stop STOP_NOMEM). */
int explore_shorten(const vm_program *p, const explore_options *o, const explore_error *er,
                    const shorten_budget *b, explore_error *out, shorten_stats *st);

/* ---- --adapt: search until LD' holds (adapt_search.c) ------------------ */

/* A shared variable --adapt made volatile, and the violation that named it. */
typedef struct explore_adapted {
    uint32_t var;             /* index into p->vars */
    char why[256];            /* the lock_discipline error's message */
} explore_adapted;

/* What explore_adapt() did besides the last search's result. */
typedef struct explore_adaptation {
    explore_adapted *vars;    /* made volatile, in order (owned; free with
                                 explore_adaptation_free) */
    uint32_t nvars;
    unsigned runs;            /* searches run (1 + re-runs) */
    uint64_t states;          /* states stored over all of them */
    double seconds;           /* their time, all together */
    int dump_errno;           /* o->dump_states could not be truncated
                                 between runs: the errno (0: it could) */
} explore_adaptation;

/* explore_run(), and again after each run that found LD' violations, with
 * the shared variables they name made volatile (vm_make_volatile) in `p`,
 * until a run ends otherwise; `r` is the last run's result, `a` says what
 * was made volatile and what all the runs cost. o->race must be LS_LD.
 * o->timelimit bounds all runs together; o->dump_states ends holding the
 * states of the last run only. Returns 0; -1 if a search could not start
 * (options invalid or out of memory; r as explore_run leaves it); -2 if
 * memory ran out in between (the last run's verdict may be one adaptation
 * would have removed). Free `a` with explore_adaptation_free() in every
 * case, and `r` with explore_result_free(). */
int explore_adapt(vm_program *p, const explore_options *o, explore_result *r,
                  explore_adaptation *a);
void explore_adaptation_free(explore_adaptation *a);

/* ---- traces ------------------------------------------------------------- */

/* What one instruction of a replayed path did with values, recorded by
 * trace replay from the states just before and just after it (the
 * reports print it: docs/usage.md). Which fields mean something depends on
 * the opcode:
 *   obj  the object an operand decided: the global element (load, store),
 *        lock element (acquire, release, wait and its re-acquire, notify,
 *        notifyall), channel (send, recv) or thread id (join); -1 when an
 *        index is out of range (idx holds it)
 *   old  before: the destination register (mov, arithmetic, not, neg,
 *        load, choose, recv, spawn), the stored element (store), the
 *        tested operand (jz, jnz, assert), the value sent (send)
 *   val  after (only when `done`): the destination register, the stored
 *        element, the lock's depth (acquire, release, re-acquire; 0: free)
 *   woke, nwoke  notify, notifyall: the threads it wakes, trace.woken[woke
 *        .. woke + nwoke) */
typedef struct trace_effect {
    bool recorded;            /* replay filled this in (--simulate does not) */
    bool done;                /* the instruction completed: `val` is known
                                 (not for the faulting or reported one) */
    int32_t obj;
    int32_t idx;
    int32_t old;
    int32_t val;
    uint32_t woke, nwoke;
} trace_effect;

/* One executed instruction of a replayed path. `step` numbers the scheduling
 * decisions from 1; a composed step yields several entries with one step. */
typedef struct trace_entry {
    uint32_t step;
    int32_t tid;
    uint32_t pc;
    uint64_t choice;          /* of the first instruction of the step */
    bool first;               /* first instruction of its step */
    bool reacquire;           /* the re-acquire of a notified `wait` */
    bool spurious;            /* ... of a `wait` never notified (with
                                 vm_program.spurious_wakeups) */
    /* with a detector: the global element the instruction accessed (-1:
     * none), and what the detector saw (set ids of trace.det) */
    int32_t elem;
    bool write;
    bool checked;             /* the element had a candidate set after it */
    uint32_t held;            /* locks the thread held */
    uint32_t set;             /* after the access: the candidate set (LD,
                                 Eraser) or the last write's set (Goldilocks);
                                 UINT32_MAX if the access was reported */
    trace_effect fx;          /* what it did with values */
    /* A bounded trace (see `trace`): the instructions of this entry's step
     * that the replay left out just before this entry (0 for every entry
     * but the first one after a gap), and, with omitted, the period p > 0
     * the left-out run is known to repeat with: each of them, and each of
     * the p entries before them, has the same (tid, pc, reacquire) as the
     * instruction p later (0: not known to repeat). */
    uint64_t omitted;
    uint32_t omitted_period;
} trace_entry;

/* A replayed trace, bounded: of each step (composed steps can run up to
 * --max-invisible instructions), the replay keeps the first `keep` and the
 * last `keep` instructions (trace_replay_opts.keep, default TRACE_KEEP) and
 * counts the ones in between in the omitted field of the first entry after
 * them, so a trace holds at most 2 * keep entries a step whatever the
 * bound. Users that print every entry thus print a step's head and tail;
 * the reports fold repeats and say what was left out
 * (tools/report/trace_view.c).
 * A replay stopped by a limit (`stopped`) holds what it recorded up to
 * there; entries[n - 1] is then not the error's instruction. */
#define TRACE_KEEP 1024u
typedef struct trace {
    trace_entry *entries;
    uint32_t n;
    uint8_t *final_state;     /* the state after the path (vm part) */
    int32_t *woken;           /* thread ids the entries' notifies woke
                                 (trace_effect.woke) */
    uint32_t nwoken;
    ls_detector *det;         /* the replay's detector (names the sets of
                                 the entries; NULL without one) */
    bool diverged;            /* replay did not follow the path */
    char why[256];            /* how it diverged, or the fault it ended in */
    /* trace_replay_states() only (--trace-states): the state (vm part,
     * layout.size bytes each) after each replayed step, states_from the
     * step number of the first (0 with --por's folded starts, else 1);
     * the last is the final state, also when its step faulted */
    uint8_t *states;
    uint32_t nstates;
    uint32_t states_from;
    uint64_t states_bytes;    /* what `states` holds, counted */
    /* How the replay ended, for mcheck --replay: end.kind is VERDICT_OK
     * when no error occurred (the path was followed to its end, or a step
     * could not run), else the error a step ran into or, after the last
     * step, a deadlock; end.len counts the steps run, the erring one
     * included; end.path is NULL. stuck is the number (from 1) of the step
     * that could not run, 0 when every step ran. */
    explore_error end;
    uint32_t stuck;
    uint64_t instructions;    /* replayed: entries kept and left out */
    uint64_t omitted;         /* of those, left out (the entries' omitted) */
    stop_reason stopped;      /* STOP_COMPLETE: the replay followed the path
                                 to its end (or diverged); STOP_TIMELIMIT,
                                 STOP_MEMLIMIT or STOP_INTERRUPTED: a limit
                                 stopped it after `instructions` */
} trace;

/* The trace entry of the instruction thread `tid` is about to run in `s`
 * (step number, choice, whether it starts its step), marking a re-acquire
 * after `wait`, notified or (with vm_program.spurious_wakeups) not; no
 * detector fields. Used by trace replay and by --simulate. */
trace_entry trace_entry_at(const vm_program *p, const uint8_t *s, uint32_t step, int tid,
                           uint64_t choice, bool first);

/* Replay `path` from the initial state with the same options as the search
 * (o->reduce, o->race, o->max_invisible, o->por) and record every instruction
 * executed, with the accesses the detector saw and what it did with values
 * (trace_entry.fx). Returns 0, or -1
 * on allocation failure. A replay that cannot follow the path (a thread not
 * enabled) sets diverged. Free with trace_free(). */
int trace_replay(const vm_program *p, const explore_options *o, const explore_step *path,
                 uint32_t len, trace *t);
/* trace_replay(), also keeping the state after each step (trace.states):
 * the full-state trace of --trace-states. */
int trace_replay_states(const vm_program *p, const explore_options *o, const explore_step *path,
                        uint32_t len, trace *t);

/* Called with every entry of a replay in order, kept or left out, once it
 * is complete (its effect recorded; the erring last one as it is), with
 * the trace being recorded (t->final_state is the replay's current state,
 * t->woken holds the threads a notify woke). An instruction cut from a
 * step (it erred) is never passed. False: stop the replay (out of memory
 * or output failed; trace_replay_with returns -1). */
typedef bool (*trace_sink)(void *ctx, const trace *t, const trace_entry *e);

typedef struct trace_replay_opts {
    const struct timespec *t0; /* CLOCK_MONOTONIC start of the run: o->timelimit
                                  counts from it (NULL: from the call) */
    uint32_t keep;             /* entries kept at each end of a step
                                  (0: TRACE_KEEP) */
    trace_sink sink;           /* NULL: none */
    void *sink_ctx;
    bool keep_states;          /* keep the state after each step
                                  (trace.states, --trace-states) */
} trace_replay_opts;

/* trace_replay() within the run's limits: every 64K instructions it checks
 * the time since ro->t0 against o->timelimit and o->interrupt, and it
 * counts the bytes it holds (entries, notified threads, the state) against
 * o->memlimit; a limit stops it with t->stopped set (returns 0). Each entry
 * also goes to ro->sink. `ro` may be NULL. */
int trace_replay_with(const vm_program *p, const explore_options *o, const explore_step *path,
                      uint32_t len, const trace_replay_opts *ro, trace *t);
void trace_free(trace *t);

#endif
