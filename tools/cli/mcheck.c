/* mcheck.c: the command line's run. Reads the options (options.c), reads
 * a model, assembles it, and either dumps it, simulates one random run
 * (simulate.c), replays a saved trace (--replay: replay_cli.c reads the
 * model itself), or runs the search (with --adapt, reduce/'s
 * explore_adapt policy), shortens the first error's depth-first path
 * (--shorten, reduce/'s explore_shorten), replays the trace of every
 * error kept and hands them to the text or JSON report (report/report.h).
 * `mcheck trace ...` is another command line (trace_cmd.c).
 *
 * Exit status: 0 no error found, 1 error found, 2 bad input or usage,
 * 3 stopped by a limit before the search was complete. This file and the
 * reports it calls own stdout and stderr; the modules below only return
 * values. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_int.h"
#include "reduce.h"
#include "store.h"
#include "vm.h"
#ifdef MCHECK_MPI
#include "reduce_mpi.h" /* mcheck-mpi: this file built again, cli/mcheck_mpi.c */
#endif

/* Set by the handler, read by the search (every -j worker): a lock-free
 * atomic, which a handler may write (C11 7.14.1.1) and threads may share. */
static atomic_int interrupted;

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno; /* a handler leaves errno as it found it */
    atomic_store(&interrupted, 1);
    errno = saved;
}

/* The handler stays for every later signal (no SA_RESETHAND, unlike what
 * signal() gives under _POSIX_C_SOURCE): GNU timeout signals both the
 * process and its group, and a second SIGTERM must not kill the report. */
static void catch_signal(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART; /* as signal() has it: interrupted calls go on */
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* ---- main ---------------------------------------------------------------- */

static int exit_status(const explore_result *r)
{
    if (r->nerrors) return 1;
    return r->stop == STOP_COMPLETE ? 0 : 3;
}

/* --trace-html: the page, then any write error said (the exit status stays
 * the verdict's, as with --trace-json). Closes f. */
static void write_html(FILE *f, const char *path, const report_run *run, const vm_program *p,
                       const explore_result *r, const trace *traces)
{
    errno = 0;
    int err = report_html(f, run, p, r, traces) != 0 ? errno : 0;
    if (!err && (fflush(f) != 0 || ferror(f))) err = errno ? errno : EIO;
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (err) fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", path, strerror(err));
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* --trace-json: the first error with its whole trace, streamed: the
 * replay passes every entry to stream_entry() as it runs, which writes it
 * to the file, so a trace of millions of instructions costs disk, not
 * memory. The file's object starts with "trace" and its status fields
 * (trace_complete false when a limit stopped the replay); the other fields
 * of the error follow once the replay is done. */
typedef struct stream_ctx {
    FILE *out;
    const vm_program *p;
    uint64_t n;
} stream_ctx;

static bool stream_entry(void *ctx, const trace *t, const trace_entry *e)
{
    stream_ctx *sc = ctx;
    if (sc->n++) fputc(',', sc->out);
    report_trace_entry_json(sc->out, sc->p, t, e);
    return (sc->n & 0xFFFF) || !ferror(sc->out);
}

/* The default budget of --shorten: at least this many states, so that a
 * search that met an error early (philosophers: 67 states for a 66-step
 * trace; a breadth-first search to the 6-step one stores 69) still gets
 * its trace shortened; docs/benchmarks.md has what it costs. */
#define SHORTEN_MIN_STATES 100000

/* After a depth-first search: the first error's path shortened
 * (explore_shorten) within the budget, replacing r->errors[0] when a
 * shorter one is found; false if it is not tried (--shorten=off,
 * --search=bfs, no error, a lasso, --liveness=starvation). Only the first: with --all-errors the others are
 * other error states, and shortening each to "the same error" could map
 * two onto one path (any two deadlocks). */
static bool shorten_first(const cli *c, const vm_program *p, explore_result *r, double seconds,
                          shorten_stats *sh)
{
    if (r->nerrors && r->errors[0].lasso && r->lasso_shortened_from) { /* the nested search's */
        *sh = (shorten_stats){.outcome = SHORTEN_SHORTER, .stop = STOP_COMPLETE,
                              .from = r->lasso_shortened_from, .states = r->lasso_bfs_states};
        return true;
    }
    if (c->no_shorten || c->eo.search != SEARCH_DFS || !r->nerrors || r->errors[0].lasso ||
        c->eo.liveness == LIVENESS_STARVATION) /* its graph is built breadth-first */
        return false;
    /* a safety error of --liveness=npc or --ltl: the outer search is the
     * plain DFS over the same program (its extra visible points included),
     * so the plain BFS looks for the shorter path */
    explore_options o = c->eo;
    o.liveness = LIVENESS_OFF;
    o.ltl = NULL;
    o.ltl_text = NULL;
    o.liveness_test_bits = 0;
    uint64_t states = r->stats.states_stored;
    if (r->swarm && r->swarm_decided) /* --swarm: the finder's own search, not the sum */
        states = r->swarm[r->swarm_decided - 1].states;
    shorten_budget b = {
        .states = c->shorten_states ? c->shorten_states
                  : states > SHORTEN_MIN_STATES ? states : SHORTEN_MIN_STATES,
        .timelimit = !c->eo.timelimit ? 0 : c->eo.timelimit > seconds ? c->eo.timelimit - seconds
                                                                        : -1,
        .memlimit = c->eo.memlimit, /* the search's memory is freed by now */
    };
    explore_error e;
    explore_shorten(p, &o, &r->errors[0], &b, &e, sh); /* -1: sh says out of memory */
    if (sh->outcome == SHORTEN_SHORTER) {
        free(r->errors[0].path);
        r->errors[0] = e;
    }
    return true;
}

/* --starved T: the static thread named T (its id into c->eo.starved), or a
 * usage error (2) naming the threads there are. */
static int starved_thread(cli *c, const vm_program *p)
{
    char name[64], list[512] = "";
    size_t len = 0;
    for (uint32_t t = 0; t < p->nstatic; t++) {
        vm_thread_name(p, NULL, (int)t, name, sizeof name); /* static: no state read */
        if (!strcmp(name, c->starved)) {
            const vm_body *b = &p->bodies[p->threads[t].body];
            bool labelled = false;
            for (uint32_t pc = 0; pc < b->ncode && !labelled; pc++)
                labelled = b->code[pc].progress_label;
            if (!labelled) {
                fprintf(stderr, "mcheck: error: --starved %s: the thread's body has no progress "
                                "label, so it cannot starve (label the instruction that shows "
                                "it got through 'progress...')\n", c->starved);
                return 2;
            }
            c->eo.starved = (int32_t)t;
            return 0;
        }
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", t ? ", " : "", name);
    }
    fprintf(stderr, "mcheck: error: --starved: no thread '%s' in the model (its threads: %s; "
                    "a spawned thread cannot be named)\nTry 'mcheck --help'.\n", c->starved,
            p->nstatic ? list : "none");
    return 2;
}

static int run_search(cli *c, vm_program *p)
{
    explore_result r;
    explore_adaptation ad;
    FILE *dump = NULL, *html = NULL;
    if (c->dump_states && !(dump = fopen(c->dump_states, "w"))) {
        fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", c->dump_states, strerror(errno));
        return 2;
    }
    if (c->trace_html && !(html = fopen(c->trace_html, "w"))) { /* before a long search */
        fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", c->trace_html, strerror(errno));
        if (dump) fclose(dump);
        return 2;
    }
    c->eo.dump_states = dump;
    c->eo.interrupt = &interrupted;
    if (c->eo.search == SEARCH_STATELESS && !c->eo.max_depth && !c->quiet && model_loops(p))
        fprintf(stderr, "mcheck: note: --search=stateless stores no state, and this model has a "
                        "loop (a jump back): if a thread can loop for ever, the search deepens "
                        "its bound up to 10000 steps and may run very long; give --max-depth N "
                        "(\"no error in any execution of N steps\") or --timelimit S\n");
    if (!c->quiet && (c->progress || isatty(STDERR_FILENO))) c->eo.progress = stderr;
    catch_signal(SIGINT);
    catch_signal(SIGTERM);
#ifdef MCHECK_MPI
    /* mpirun forwards SIGUSR1 to every rank and then waits for them; on
     * SIGINT or SIGTERM it kills them soon after forwarding (exit 1) */
    catch_signal(SIGUSR1);
#endif
    struct timespec t0; /* --timelimit counts the replays too */
    clock_gettime(CLOCK_MONOTONIC, &t0);
#ifdef MCHECK_MPI
    /* every rank got here, or none searches (a rank that could not read
     * the model would leave the others waiting in the search) */
    if (!mcheck_mpi_ready(true)) {
        fprintf(stderr, "mcheck: error: a rank could not start the search (it could not "
                        "read or assemble the model, or ran out of memory)\n");
        if (dump) fclose(dump);
        if (html) fclose(html);
        return 2;
    }
#endif
    int rc = c->adapt ? explore_adapt(p, &c->eo, &r, &ad) : explore_run(p, &c->eo, &r);
    if (dump) fclose(dump);
    if (c->adapt) {
        if (!c->json) report_adapt_text(stdout, p, &ad);
        if (ad.dump_errno)
            fprintf(stderr, "mcheck: warning: cannot truncate '%s': %s\n", c->dump_states,
                    strerror(ad.dump_errno));
    }
    if (rc != 0) { /* the options are valid, so: no memory for the store or the stack */
        fprintf(stderr, "mcheck: error: out of memory %s\n",
                rc == -2 ? "adapting the model (--adapt)" : "before the search started");
        explore_result_free(&r);
        if (c->adapt) explore_adaptation_free(&ad);
        if (html) fclose(html);
        return 3;
    }
    double search_seconds = seconds_since(&t0);
    shorten_stats sh;
    bool shortening = shorten_first(c, p, &r, c->adapt ? ad.seconds : r.stats.seconds, &sh);
    /* --all-errors in text: a trace for the first of errors alike only
     * (a whole-space run wants the counts and a few short traces, not ten
     * walks through the depth-first stack); --json keeps every path */
    report_run run = {.model = c->model, .eo = &c->eo, .adapt = c->adapt ? &ad : NULL,
                      .defs = c->defs, .ndefs = c->ndefs, .trace_all = c->trace_all,
                      .shorten = shortening ? &sh : NULL,
                      .first_of_each = c->eo.all_errors && !c->json,
                      .search_seconds = search_seconds};
    struct timespec t_traces;
    clock_gettime(CLOCK_MONOTONIC, &t_traces);
    /* Out of memory from here on costs the traces (reported as not
     * available), never the verdict or the statistics. */
    trace *traces = r.nerrors ? calloc(r.nerrors, sizeof *traces) : NULL;
    trace_replay_opts ro = {.t0 = &t0, .keep_states = c->trace_states};
    bool stopped = false; /* a limit stopped a replay: exit 3 */
    FILE *tf = NULL;      /* --trace-json */
    stream_ctx sc = {.p = p};
    if (c->trace_json && !(tf = fopen(c->trace_json, "w")))
        fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", c->trace_json, strerror(errno));
    for (uint32_t i = 0; traces && i < r.nerrors; i++) {
        if (!report_error_shown(&run, &r, i)) continue; /* not printed: not replayed */
        bool stream = i == 0 && tf;
        if (stream) {
            sc.out = tf;
            ro.sink = stream_entry;
            ro.sink_ctx = &sc;
            fprintf(tf, "{\"trace\":[");
        }
        int rr = trace_replay_with(p, &c->eo, r.errors[i].path, r.errors[i].len, &ro, &traces[i]);
        if (stream) {
            trace st = {.instructions = sc.n, .stopped = rr != 0 ? STOP_NOMEM : traces[i].stopped};
            fprintf(tf, "]");
            report_trace_status_json(tf, &st);
            ro.sink = NULL;
        }
        if (rr != 0)
            trace_free(&traces[i]);
        else if (traces[i].stopped != STOP_COMPLETE)
            stopped = true;
    }
    run.trace_seconds = seconds_since(&t_traces);
    /* the statistics cover the replays: peak memory and time after them */
    uint64_t rss = explore_peak_rss();
    if (rss > r.stats.peak_rss) r.stats.peak_rss = rss;
    r.stats.seconds = seconds_since(&t0);

    if (c->json)
        report_json(stdout, &run, p, &r, traces);
    else
        report_text(stdout, &run, p, &r, traces);
    if (tf) {
        if (r.nerrors && traces)
            report_error_json_after_trace(tf, &run, p, &r.errors[0], report_trace_of(traces, 0));
        else
            fprintf(tf, "null");
        fprintf(tf, "\n");
        if (fclose(tf) != 0)
            fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", c->trace_json, strerror(errno));
    }
    if (html) write_html(html, c->trace_html, &run, p, &r, traces);
    int status = exit_status(&r);
    if (stopped) status = 3;
    for (uint32_t i = 0; traces && i < r.nerrors; i++) trace_free(&traces[i]);
    free(traces);
    explore_result_free(&r);
    if (c->adapt) explore_adaptation_free(&ad);
    return status;
}

#ifdef MCHECK_MPI
/* mcheck-mpi's main (cli/mcheck_mpi.c) calls it between MPI_Init and
 * MPI_Finalize */
#define MCHECK_MAIN mcheck_main
#else
#define MCHECK_MAIN main
#endif
int MCHECK_MAIN(int argc, char **argv)
{
#ifndef MCHECK_MPI
    /* `mcheck trace ...`: the trace tools (trace_cmd.c), a command line of
     * their own */
    if (argc >= 2 && !strcmp(argv[1], "trace")) return trace_main(argc - 1, argv + 1);
#endif
    cli c;
    memset(&c, 0, sizeof c);
    explore_options_default(&c.eo);
#ifdef MCHECK_MPI
    c.eo.search = SEARCH_BFS; /* the one order the distributed search has */
    c.eo.engine = &engine_mpi; /* the search explore_run() runs and checks */
#endif
    int rc = cli_parse(argc, argv, &c);
    if (rc != 0) {
        free(c.defs);
        return rc < 0 ? 0 : rc;
    }
#ifdef MCHECK_MPI
    if (mcheck_mpi_rank() != 0) c.trace_json = c.trace_html = NULL; /* rank 0 writes them */
#endif
    if (c.replay) {
        replay_request rq = {.file = c.replay, .model = c.model, .error = c.replay_error,
                             .eo = &c.eo, .reduce_set = c.reduce_set, .race_set = c.race_set,
                             .por_set = c.por_set, .max_invisible_set = c.maxinvis_set,
                             .spurious = c.spurious, .defs = c.defs, .ndefs = c.ndefs,
                             .json = c.json, .trace_json = c.trace_json};
        rc = replay_run(&rq);
        free(c.defs);
        return rc;
    }
    vm_program *p;
    ltl_automaton *ltl;
    char err[256];
    model_request mr = {.path = c.model, .defs = c.defs, .ndefs = c.ndefs, .spurious = c.spurious,
                        .liveness = c.eo.liveness != LIVENESS_OFF, .ltl_text = c.eo.ltl_text,
                        /* --analyze alone runs no thread: more than a state could hold */
                        .max_threads = c.analyze && !c.analyze_check ? VM_MAX_THREADS_ANALYSIS
                                                                     : 0};
    int st = model_load(&mr, &p, &ltl, err, sizeof err, &rc);
    if (st != MODEL_OK) {
        if (st == MODEL_BAD_LTL) fprintf(stderr, "mcheck: error: --ltl: %s\n", err);
        free(c.defs);
        return rc;
    }
    c.eo.ltl = ltl;
    if (c.starved && (rc = starved_thread(&c, p)) != 0) {
        ltl_free(ltl);
        vm_program_free(p);
        free(c.defs);
        return rc;
    }
    if (c.dump) {
        vm_dump(p, stdout);
        if (ls_discharge_print(p, c.eo.race, stdout) != 0) {
            fprintf(stderr, "mcheck: error: out of memory\n");
            rc = 3;
        }
    } else if (c.analyze) {
        rc = analyze_run(&c, p);
    } else if (c.simulate) {
        rc = simulate_run(p, c.seed, c.steps, c.record, stdout);
    } else {
        rc = run_search(&c, p);
    }
    ltl_free(ltl);
    vm_program_free(p);
    free(c.defs); /* the reports name the -D overrides */
    return rc;
}
