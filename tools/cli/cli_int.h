/* cli_int.h: private to tools/cli/, the command line. What its files
 * share: the names of option values (names.c), mcheck --replay
 * (replay_cli.c), --simulate (simulate.c) and mcheck-mpi's hooks
 * (mcheck_mpi.c). They call the reports (report.h) and the shared helpers
 * (common.h); nothing below tools/cli/ calls them. */
#ifndef MCHECK_TOOLS_CLI_INT_H
#define MCHECK_TOOLS_CLI_INT_H

#include <stdio.h>

#include "common.h"
#include "reduce.h"
#include "report.h"
#include "vm.h"

/* ---- the command line (options.c) -------------------------------------- */

/* What the command line asks for: the search's options and the rest. */
typedef struct cli {
    explore_options eo;
    const char *model;
    vm_define *defs;
    size_t ndefs;
    bool dump, simulate, json, quiet, progress;
    bool adapt, race_set;      /* --adapt; --race was given */
    bool spurious;             /* --spurious-wakeups (set on the program) */
    bool jobs_set;             /* -j was given */
    bool trace_states;         /* --trace-states: the whole state after each step */
    bool trace_all;            /* --trace=all */
    bool no_shorten;           /* --shorten=off */
    bool shorten_given;        /* --shorten=on|STATES: also with --all-errors */
    unsigned long long shorten_states; /* --shorten=STATES (0: the default budget) */
    unsigned long long seed, steps;
    const char *trace_json, *dump_states;
    const char *trace_html;    /* --trace-html FILE */
    const char *replay;        /* --replay FILE */
    unsigned long long replay_error; /* --replay-error K (0: not given) */
    bool reduce_set, por_set, maxinvis_set; /* given (--replay compares them) */
    const char *search_only;   /* the last option --replay has no use for */
    const char *store_set;     /* the last store option given (--store, ...) */
    bool sleep_set;            /* --sleep-sets was given */
    bool search_set;           /* --search was given */
    bool memlimit_set;         /* --memlimit was given */
    bool sched_set;            /* --scheduling was given */
    const char *starved;       /* --starved T: the thread's name (mcheck.c
                                  looks it up once the model is loaded) */
    const char *record;        /* --record FILE: the simulated run's events */
    bool analyze, analyze_check; /* --analyze[=check] (analyze_cli.c) */
    bool analyze_interval;     /* --domain=interval */
    bool analyze_no_tids;      /* --tids=off */
    bool invariants, facts;    /* --invariants, --facts */
    const char *facts_at;      /* --facts=WHERE: a label or a line, or NULL */
    const char *analyze_opt;   /* the last option only --analyze takes */
    char analyze_never[24];    /* the first option given that --analyze never
                                  uses (--ltl, --swarm, ...; "j" for -j) */
    char analyze_search[24];   /* the last search option given, which only
                                  --analyze=check's race search uses */
} cli;

/* Read argv into c (zeroed, c->eo defaulted by the caller). Returns 0, or
 * the exit status after a usage error on stderr (2, or 3 out of memory),
 * or -1 after --help or --version (printed on stdout: exit 0). */
int cli_parse(int argc, char **argv, cli *c);
/* --help's text on out (help.c), and the default --memlimit it states and
 * mcheck applies: 3/4 of the memory the process may use, 0 if unknown. */
void cli_help(FILE *out);
uint64_t cli_default_memlimit(void);

/* ---- names (names.c): one table per enumeration the tool names ---------- */

/* A name and its enum value; tables end with {NULL, 0}. Verdict and stop
 * reason names are reduce/'s (verdict_name, stop_reason_name), store kinds
 * statestore/'s (store_kind_name): these are the ones only tools/ names. */
typedef struct name_value {
    const char *name;
    int value;
} name_value;

const name_value *reduce_names(void);    /* --reduce=compose|none */
const name_value *race_names(void);      /* --race=off|ld|eraser|goldilocks */
const name_value *search_names(void);    /* --search=dfs|bfs */
const name_value *lookahead_names(void); /* --lookahead=auto|on|child|sibling|off */
/* --store: the kinds in --help's order, named by store_kind_name(). */
const name_value *store_names(void);

/* The name of `value` in t, or "?". */
const char *name_of(const name_value *t, int value);
/* Sets *value to the value named s; false if t has no such name. */
bool name_parse(const name_value *t, const char *s, int *value);
/* The names of t for a usage error: "'a', 'b' or 'c'". */
void name_expected(const name_value *t, char *buf, size_t n);

/* ---- the model (model_load.c) ------------------------------------------- */

/* What a run needs of the model: its file, the -D overrides, and the
 * options that change the program (what they make visible). */
typedef struct model_request {
    const char *path;
    const vm_define *defs;
    size_t ndefs;
    bool spurious;          /* --spurious-wakeups */
    bool liveness;          /* --liveness: progress labels visible */
    const char *ltl_text;   /* --ltl: the formula, or NULL */
    uint32_t max_threads;   /* 0: the language's limit; --analyze alone:
                               VM_MAX_THREADS_ANALYSIS (vm_assemble_for()) */
} model_request;

/* Where model_load() stopped. */
enum {
    MODEL_OK = 0,
    MODEL_UNREAD,   /* the file cannot be read, or memory ran out (said on stderr) */
    MODEL_REJECTED, /* the assembler rejected it or ran out of memory (said on stderr) */
    MODEL_BAD_LTL,  /* the formula does not translate: why in err, for the caller */
};

/* Read, assemble and prepare the model of rq into *pp (and the formula's
 * automaton into *ltl, NULL without one); returns MODEL_*, *exit_code
 * the exit status (2: bad input, 3: out of memory), and *pp and *ltl are
 * NULL unless MODEL_OK. */
int model_load(const model_request *rq, vm_program **pp, ltl_automaton **ltl, char *err, size_t n,
               int *exit_code);
/* Does some thread jump back (a loop: executions of every length)? */
bool model_loops(const vm_program *p);

/* ---- replay (replay_cli.c) --------------------------------------------- */

/* mcheck --replay FILE MODEL: what the command line gives it. */
typedef struct replay_request {
    const char *file;           /* the --trace-json file or --json report */
    const char *model;
    unsigned long long error;   /* --replay-error K: error K of a report,
                                   from 1 (0: not given, the first) */
    const explore_options *eo;  /* the command line's: reduce, race, por and
                                   max_invisible where given, the limits */
    bool reduce_set, race_set, por_set, max_invisible_set; /* given */
    bool spurious;              /* --spurious-wakeups given */
    const vm_define *defs;      /* -D: override the recorded ones by name */
    size_t ndefs;
    bool json;                  /* --json: a JSON report of the replay */
    const char *trace_json;     /* --trace-json: the replayed error's file */
} replay_request;

/* Read the trace, assemble the model with its recorded options, replay
 * the path (trace_replay) and report the outcome. Returns the exit status:
 * 1 an error occurred (the recorded one or another), 0 none, 2 a bad file,
 * a contradicting option or a path that cannot be followed, 3 out of
 * memory. */
int replay_run(const replay_request *rq);

/* ---- simulation (simulate.c) ------------------------------------------- */

/* One random interleaving, one instruction per step. With `record` (a
 * path, or NULL) its events go to that grammar file (record.c) and the
 * per-step lines are left out. Returns the exit status: 0 all threads
 * ended (or a valid end), 1 deadlock or error, 3 step limit; the recording
 * failing: 2 (cannot write, a second joiner), 3 (out of memory). */
int simulate_run(const vm_program *p, unsigned long long seed,
                 unsigned long long max_steps, const char *record, FILE *out);

/* ---- the recorder (record.c) -------------------------------------------- */

/* The events of a simulated run (docs/usage.md, "Traces", says which),
 * compressed online with Sequitur. */
typedef struct recorder recorder;
recorder *record_new(const vm_program *p); /* NULL: out of memory */
/* The hooks to pass to every vm_step() of the run (they never stop it). */
const vm_hooks *record_hooks(recorder *r);
/* Write the grammar file at path and a summary line to out; frees r.
 * Returns 0, 2 (cannot write; a thread joined by two threads) or 3 (out
 * of memory), after a message on stderr. */
int record_finish(recorder *r, const char *path, FILE *out);
void record_free(recorder *r); /* NULL is a no-op */

/* ---- mcheck --analyze (analyze_cli.c) ---------------------------------- */

/* The thread-local analysis of p (analyze/), its premise (lockset/'s static
 * discharge; with --analyze=check the search) and its report. Returns the
 * exit status: 0 every assert proved or unreachable, 1 some unknown (or the
 * search found a race), 3 out of memory. */
int analyze_run(const cli *c, vm_program *p);

/* What an option given means to --analyze, by its long name ("j" for -j):
 * ANALYZE_ANY, it takes it (or it is the model's or the output's);
 * ANALYZE_CHECK, the search's, which only --analyze=check's race search
 * honours; ANALYZE_NEVER, nothing --analyze runs uses it. */
enum { ANALYZE_ANY, ANALYZE_CHECK, ANALYZE_NEVER };
int analyze_option_use(const char *name);
/* Why the command line c (with --analyze) is a usage error, its message
 * written to msg; NULL if it is fine. */
const char *analyze_refusal(const cli *c, char *msg, size_t n);

/* ---- --analyze --facts (analyze_facts.c) -------------------------------- */

struct an_result;
typedef struct an_facts an_facts;
/* The points --facts asks for (c->facts_at: a label or a line, NULL every
 * instruction) in r's threads. Returns 0 with *f set, or the exit status
 * after a message on stderr (2: WHERE names nothing, or the model cannot be
 * read; 3: out of memory). */
int analyze_facts_find(const cli *c, const struct an_result *r, const vm_program *p,
                       an_facts **f);
/* After the text report: "facts of T:" and a line per instruction, or
 * "fact at WHERE (line L, pc P `insn`) in T: ..." per point. */
void analyze_facts_text(const an_facts *f, FILE *out);
/* Inside the --json report's object: ,"facts_at":...,"facts":[...] (and
 * ,"layout":...,"units":[...] for every instruction). */
void analyze_facts_json(const an_facts *f, FILE *out);
void analyze_facts_free(an_facts *f); /* NULL is a no-op */

/* ---- mcheck trace (trace_cmd.c) ------------------------------------------ */

/* `mcheck trace SUBCOMMAND [options] FILE`: argv[0] is "trace". Returns
 * the exit status (trace_cmd.c's header). */
int trace_main(int argc, char **argv);

#ifdef MCHECK_MPI
/* ---- mcheck-mpi (mcheck_mpi.c) ------------------------------------------ */
/* mcheck.c's main, renamed: mcheck_mpi.c's main runs it on every rank. */
int mcheck_main(int argc, char **argv);
/* This process's rank in MPI_COMM_WORLD. */
int mcheck_mpi_rank(void);
/* Collective, once per rank: true if every rank says ok (it is about to
 * search). A rank that returns from mcheck_main() without calling it calls
 * it with false on the way out, so the others never wait for it. */
bool mcheck_mpi_ready(bool ok);
#endif

#endif
