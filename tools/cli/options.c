/* options.c: mcheck's command line read into a `cli` (cli_int.h): each
 * option's value checked as it is read, then the combinations
 * the command line itself refuses (--replay with a search option,
 * --trace-html with --simulate, --adapt with a detector but LD', ...) and
 * explore_check()'s, the search's own (reduce/engine/engines.c); every refusal is
 * a usage error on stderr (exit 2). Last, the default reduction: --por
 * where it is sound for the options given. It runs nothing: mcheck.c does;
 * --help's text is help.c's. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_int.h"
#ifdef MCHECK_MPI
#include "reduce_mpi.h" /* mcheck-mpi: explore_mpi_unsupported() */
#endif

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define MAX_JOBS 1024

/* The cores this process may run on (-j 0). */
static unsigned cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (unsigned)n;
}

static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mcheck: error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'mcheck --help'.\n");
    return 2;
}

static bool parse_u64(const char *s, unsigned long long *v)
{
    char *end;
    if (!s || !*s || *s == '-') return false;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return errno == 0 && *end == '\0';
}

static bool parse_i32(const char *s, int32_t *v)
{
    char *end;
    if (!s || !*s) return false;
    errno = 0;
    long long x = strtoll(s, &end, 0);
    if (errno || *end) return false;
    if (x < INT32_MIN || x > (long long)UINT32_MAX) return false;
    *v = (int32_t)(uint32_t)x; /* hex patterns up to 0xffffffff */
    return true;
}

/* An enumerated option's value, by its table (names.c); false after a
 * usage error naming every value. */
static bool parse_name(const char *opt, const name_value *t, const char *arg, int *value)
{
    char expected[128];
    if (name_parse(t, arg, value)) return true;
    name_expected(t, expected, sizeof expected);
    bad_usage("%s: expected %s, got '%s'", opt, expected, arg);
    return false;
}

enum {
    OPT_SIMULATE = 256, OPT_SEED, OPT_STEPS, OPT_DUMP, OPT_REDUCE, OPT_RACE, OPT_SEARCH,
    OPT_STORE, OPT_FP, OPT_BITMB, OPT_ALL, OPT_MAXDEPTH, OPT_MAXINVIS,
    OPT_MEMLIMIT, OPT_TIMELIMIT, OPT_JSON, OPT_TRACEJSON, OPT_TRACE, OPT_DUMPSTATES,
    OPT_PROGRESS, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_ADAPT, OPT_LOOKAHEAD, OPT_SPURIOUS,
    OPT_POR, OPT_JOBS, OPT_TRACEHTML, OPT_TRACESTATES, OPT_REPLAY, OPT_REPLAY_ERROR, OPT_SHORTEN,
    OPT_PREEMPT, OPT_SLEEP, OPT_SCHED, OPT_LIVENESS, OPT_LIVENESS_BITS,
    OPT_LTL, OPT_DELAY,
    OPT_FAIR, OPT_STARVED, OPT_RECORD, OPT_SWARM,
    OPT_MPI_ROUND, OPT_MPI_PROGRESS, OPT_EXCHANGE,
    OPT_ANALYZE, OPT_DOMAIN, OPT_TIDS, OPT_INVARIANTS, OPT_FACTS,
};

/* Options of the search, the simulation or --dump, which --replay rejects. */
static bool search_only_option(int o)
{
    switch (o) {
    case OPT_SIMULATE: case OPT_SEED: case OPT_STEPS: case OPT_DUMP: case OPT_SEARCH:
    case OPT_STORE: case OPT_FP: case OPT_BITMB: case OPT_ALL: case OPT_ADAPT:
    case OPT_MAXDEPTH: case OPT_LOOKAHEAD: case OPT_DUMPSTATES: case OPT_JOBS: case 'j':
    case OPT_PREEMPT: case OPT_DELAY: case OPT_SLEEP: case OPT_SCHED: case OPT_LIVENESS_BITS:
    case OPT_FAIR: case OPT_STARVED: case OPT_RECORD: case OPT_SWARM:
    case OPT_LTL: case OPT_MPI_ROUND: case OPT_MPI_PROGRESS: case OPT_EXCHANGE:
        return true;
    default:
        return false;
    }
}

/* --preemption-bound and --delay-bound: "K" or "0..K" (iterate from 0). */
static bool parse_bound(const char *arg, int64_t *bound, bool *iterate)
{
    unsigned long long v;
    *iterate = !strncmp(arg, "0..", 3);
    if (!parse_u64(arg + (*iterate ? 3 : 0), &v) || v > 1000000) return false;
    *bound = (int64_t)v;
    return true;
}

/* --search=stateless: the options of the command line that make no sense
 * with it (it keeps no store); 0 if none. The search's own options are its
 * engine's to check (explore_check()). */
static int stateless_usage(const cli *c)
{
    if (c->eo.delay_bound >= 0 && c->sleep_set && !c->eo.no_sleep_sets)
        return bad_usage("--sleep-sets=on cannot be used with --delay-bound (sleep sets are "
                         "off under a delay bound)");
    if (c->store_set)
        return bad_usage("%s: --search=stateless stores no state", c->store_set);
    if (c->dump_states)
        return bad_usage("--dump-states: --search=stateless stores no state");
    if (c->shorten_given)
        return bad_usage("--shorten applies to the stateful depth-first search, not to "
                         "--search=stateless");
    return 0;
}

#ifdef MCHECK_MPI
/* mcheck-mpi: what the distributed search does not do (yet); 0 if none. */
static int mpi_usage(const cli *c)
{
    if (c->adapt) return bad_usage("--adapt is not supported by mcheck-mpi");
    if (c->shorten_given)
        return bad_usage("--shorten: mcheck-mpi searches breadth-first, its traces are "
                         "shortest already");
    if (c->dump_states) return bad_usage("--dump-states is not supported by mcheck-mpi");
    return 0; /* the rest: engine_mpi's refuses(), through explore_check() */
}
#endif
/* --scheduling=races: it is the stateless search and its detector is
 * Goldilocks, unless given (its engine checks what is given); 0 if fine. */
static int races_usage(cli *c)
{
    if (!c->search_set) c->eo.search = SEARCH_STATELESS;
    if (c->adapt)
        return bad_usage("--adapt needs the LD' detector, and --scheduling=races works with "
                         "--race=goldilocks or off");
    if (!c->race_set) c->eo.race = LS_GOLDILOCKS;
    return 0;
}

/* --liveness=npc (reduce/liveness/liveness.c): the command line's options it does
 * not take; 0 if fine (its engine checks the search's). */
static int liveness_usage(const cli *c)
{
    if (c->adapt)
        return bad_usage("--liveness=npc cannot be used with --adapt");
    if (c->shorten_given)
        return bad_usage("--shorten shortens a path to an error state; a non-progress cycle is "
                         "a lasso, not shortened");
    if (c->simulate || c->dump)
        return bad_usage("--liveness applies to the search, not to %s",
                         c->dump ? "--dump" : "--simulate");
    return 0;
}

/* --ltl (reduce/liveness/ltl_search.c): likewise; 0 if fine. */
static int ltl_usage(const cli *c)
{
    if (c->adapt) return bad_usage("--ltl cannot be used with --adapt");
    if (c->shorten_given)
        return bad_usage("--shorten shortens a path to an error state; an ltl counterexample is "
                         "a lasso, not shortened");
    if (c->simulate || c->dump)
        return bad_usage("--ltl applies to the search, not to %s", c->dump ? "--dump" : "--simulate");
    return 0;
}

/* --liveness=starvation (reduce/liveness/starvation.c): likewise; 0 if fine. */
static int starvation_usage(const cli *c)
{
    if (c->adapt)
        return bad_usage("--liveness=starvation cannot be used with --adapt");
    if (c->shorten_given)
        return bad_usage("--shorten shortens a path to an error state; a starvation is a "
                         "lasso, not shortened");
    return 0;
}

/* Without --por or --por=off: the strongest reduction that is sound for
 * the options given (LANGUAGE.md, "Which counts are fixed"). --por works on
 * composed steps with a state store; --liveness=starvation asks whether
 * each thread is enabled, which a persistent set does not keep; the
 * stateless searches have sleep sets of their own; an explicit
 * --lookahead=child|sibling|on is the search without --por. There the
 * default quietly means composition; only an explicit --por is refused. */

static bool por_by_default(const cli *c)
{
    if (c->eo.reduce != REDUCE_COMPOSE || c->eo.search == SEARCH_STATELESS ||
        (c->eo.liveness == LIVENESS_STARVATION && !c->eo.ltl_text) || c->eo.fair)
        return false;
    if (c->eo.lookahead != LOOKAHEAD_AUTO && c->eo.lookahead != LOOKAHEAD_OFF) return false;
#ifdef MCHECK_MPI
    explore_options o = c->eo;
    o.por = true;
    if (explore_mpi_unsupported(&o)) return false;
#endif
    return true;
}

int cli_parse(int argc, char **argv, cli *c)
{
    static const struct option opts[] = {
        {"simulate", no_argument, 0, OPT_SIMULATE},
        {"seed", required_argument, 0, OPT_SEED},
        {"steps", required_argument, 0, OPT_STEPS},
        {"dump", no_argument, 0, OPT_DUMP},
        {"reduce", required_argument, 0, OPT_REDUCE},
        {"race", required_argument, 0, OPT_RACE},
        {"search", required_argument, 0, OPT_SEARCH},
        {"store", required_argument, 0, OPT_STORE},
        {"fingerprint", required_argument, 0, OPT_FP},
        {"bitstate-mb", required_argument, 0, OPT_BITMB},
        {"all-errors", no_argument, 0, OPT_ALL},
        {"adapt", no_argument, 0, OPT_ADAPT},
        {"lookahead", required_argument, 0, OPT_LOOKAHEAD},
        {"spurious-wakeups", no_argument, 0, OPT_SPURIOUS},
        {"por", optional_argument, 0, OPT_POR},
        {"jobs", required_argument, 0, OPT_JOBS},
        {"shorten", required_argument, 0, OPT_SHORTEN},
        {"max-depth", required_argument, 0, OPT_MAXDEPTH},
        {"max-invisible", required_argument, 0, OPT_MAXINVIS},
        {"memlimit", required_argument, 0, OPT_MEMLIMIT},
        {"timelimit", required_argument, 0, OPT_TIMELIMIT},
        {"json", no_argument, 0, OPT_JSON},
        {"trace-json", required_argument, 0, OPT_TRACEJSON},
        {"trace-html", required_argument, 0, OPT_TRACEHTML},
        {"trace-states", no_argument, 0, OPT_TRACESTATES},
        {"trace", required_argument, 0, OPT_TRACE},
        {"dump-states", required_argument, 0, OPT_DUMPSTATES},
        {"progress", no_argument, 0, OPT_PROGRESS},
        {"quiet", no_argument, 0, OPT_QUIET},
        {"help", no_argument, 0, OPT_HELP},
        {"version", no_argument, 0, OPT_VERSION},
        {"replay", required_argument, 0, OPT_REPLAY},
        {"replay-error", required_argument, 0, OPT_REPLAY_ERROR},
        {"preemption-bound", required_argument, 0, OPT_PREEMPT},
        {"delay-bound", required_argument, 0, OPT_DELAY},
        {"sleep-sets", required_argument, 0, OPT_SLEEP},
        {"scheduling", required_argument, 0, OPT_SCHED},
        {"liveness", required_argument, 0, OPT_LIVENESS},
        {"liveness-test-bits", required_argument, 0, OPT_LIVENESS_BITS},
        {"ltl", required_argument, 0, OPT_LTL},
        {"fair", optional_argument, 0, OPT_FAIR},
        {"starved", required_argument, 0, OPT_STARVED},
        {"record", required_argument, 0, OPT_RECORD},
        {"swarm", required_argument, 0, OPT_SWARM},
        {"analyze", optional_argument, 0, OPT_ANALYZE},
        {"domain", required_argument, 0, OPT_DOMAIN},
        {"tids", required_argument, 0, OPT_TIDS},
        {"invariants", no_argument, 0, OPT_INVARIANTS},
        {"facts", optional_argument, 0, OPT_FACTS},
#ifdef MCHECK_MPI
        /* testing and tuning, not in --help (docs/usage.md) */
        {"mpi-round-bytes", required_argument, 0, OPT_MPI_ROUND},
        {"mpi-progress", required_argument, 0, OPT_MPI_PROGRESS},
        {"exchange", required_argument, 0, OPT_EXCHANGE},
#endif
        {0, 0, 0, 0},
    };
    unsigned long long v;
    int o, e, li = -1;
    const char *sim_opt = NULL; /* --seed or --steps given */
    c->seed = 1;
    c->steps = 10000;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":D:hj:", opts, &li)) != -1) {
        if (search_only_option(o)) c->search_only = li >= 0 ? opts[li].name : "j";
        if (li >= 0 || o == 'j') { /* what --analyze makes of it (analyze_cli.c) */
            const char *nm = li >= 0 ? opts[li].name : "j";
            int use = analyze_option_use(nm);
            char *to = use == ANALYZE_CHECK ? c->analyze_search : c->analyze_never;
            if (use != ANALYZE_ANY && (!*to || use == ANALYZE_CHECK))
                snprintf(to, sizeof c->analyze_search, "%s", nm);
        }
        li = -1;
        switch (o) {
        case 'D': {
            char *eq = strchr(optarg, '=');
            vm_define d;
            if (!eq || eq == optarg) return bad_usage("-D expects NAME=VALUE, got '%s'", optarg);
            *eq = '\0';
            d.name = optarg;
            if (!parse_i32(eq + 1, &d.value))
                return bad_usage("-D: '%s' is not a 32-bit integer", eq + 1);
            vm_define *nd = realloc(c->defs, (c->ndefs + 1) * sizeof *nd);
            if (!nd) {
                fprintf(stderr, "mcheck: error: out of memory\n");
                return 3;
            }
            c->defs = nd;
            c->defs[c->ndefs++] = d;
            break;
        }
        case 'j':
        case OPT_JOBS:
            if (!parse_u64(optarg, &v) || v > MAX_JOBS)
                return bad_usage("-j: expected a number of worker threads (0: one per core, at "
                                 "most %d), got '%s'", MAX_JOBS, optarg);
            c->eo.workers = v ? (unsigned)v : cores();
            c->jobs_set = true;
            break;
        case OPT_SWARM:
            if (!parse_u64(optarg, &v) || v > MAX_JOBS)
                return bad_usage("--swarm: expected a number of workers (0: one per core, at "
                                 "most %d), got '%s'", MAX_JOBS, optarg);
            c->eo.swarm = v ? (unsigned)v : cores();
            break;
        case OPT_SIMULATE: c->simulate = true; break;
        case OPT_SPURIOUS: c->spurious = true; break;
        case OPT_POR:
            c->por_set = true;
            if (!optarg || !strcmp(optarg, "on")) c->eo.por = true;
            else if (!strcmp(optarg, "off")) c->eo.por = false;
            else return bad_usage("--por: expected on or off, got '%s'", optarg);
            break;
        case OPT_SHORTEN:
            c->no_shorten = !strcmp(optarg, "off");
            c->eo.shorten_off = c->no_shorten;
            c->shorten_given = !c->no_shorten;
            c->shorten_states = 0;
            if (!c->no_shorten && strcmp(optarg, "on") &&
                (!parse_u64(optarg, &c->shorten_states) || c->shorten_states == 0))
                return bad_usage("--shorten: expected on, off or a number of states, got '%s'",
                                 optarg);
            break;
        case OPT_SEED:
            if (!parse_u64(optarg, &c->seed)) return bad_usage("--seed: bad number '%s'", optarg);
            sim_opt = "--seed";
            break;
        case OPT_STEPS:
            if (!parse_u64(optarg, &c->steps)) return bad_usage("--steps: bad number '%s'", optarg);
            sim_opt = "--steps";
            break;
        case OPT_DUMP: c->dump = true; break;
        case OPT_REDUCE:
            c->reduce_set = true;
            if (!parse_name("--reduce", reduce_names(), optarg, &e)) return 2;
            c->eo.reduce = (reduce_mode)e;
            break;
        case OPT_RACE:
            c->race_set = true;
            if (!parse_name("--race", race_names(), optarg, &e)) return 2;
            c->eo.race = (ls_kind)e;
            break;
        case OPT_SEARCH:
            if (!parse_name("--search", search_names(), optarg, &e)) return 2;
            c->eo.search = (search_order)e;
            c->search_set = true;
            break;
        case OPT_LOOKAHEAD:
            if (!parse_name("--lookahead", lookahead_names(), optarg, &e)) return 2;
            c->eo.lookahead = (lookahead_mode)e;
            break;
        case OPT_STORE:
            c->store_set = "--store";
            if (!parse_name("--store", store_names(), optarg, &e)) return 2;
            c->eo.store.kind = (store_kind)e;
            break;
        case OPT_FP:
            c->store_set = "--fingerprint";
            if (!strcmp(optarg, "64")) c->eo.store.fingerprint_bits = 64;
            else if (!strcmp(optarg, "128")) c->eo.store.fingerprint_bits = 128;
            else return bad_usage("--fingerprint: expected 64 or 128, got '%s'", optarg);
            break;
        case OPT_BITMB:
            c->store_set = "--bitstate-mb";
            if (!parse_u64(optarg, &v) || v == 0 || v > (1ull << 20))
                return bad_usage("--bitstate-mb: expected a size in MB, got '%s'", optarg);
            c->eo.store.bitstate_bytes = v << 20;
            break;
        case OPT_ALL: c->eo.all_errors = true; break;
        case OPT_ADAPT: c->adapt = true; break;
        case OPT_MAXDEPTH:
            if (!parse_u64(optarg, &v) || v == 0) return bad_usage("--max-depth: bad number '%s'", optarg);
            c->eo.max_depth = v;
            break;
        case OPT_MAXINVIS:
            c->maxinvis_set = true;
            if (!parse_u64(optarg, &v) || v == 0) return bad_usage("--max-invisible: bad number '%s'", optarg);
            c->eo.max_invisible = v;
            break;
        case OPT_MEMLIMIT:
            if (!parse_u64(optarg, &v) || v > (1ull << 40))
                return bad_usage("--memlimit: expected megabytes, got '%s'", optarg);
            c->eo.memlimit = v << 20;
            c->memlimit_set = true;
            break;
        case OPT_TIMELIMIT: {
            char *end;
            double t = strtod(optarg, &end);
            if (*end || !(t > 0) || t > 1e9) return bad_usage("--timelimit: expected seconds, got '%s'", optarg);
            c->eo.timelimit = t;
            break;
        }
        case OPT_JSON: c->json = true; break;
        case OPT_TRACEJSON: c->trace_json = optarg; break;
        case OPT_TRACEHTML: c->trace_html = optarg; break;
        case OPT_TRACESTATES: c->trace_states = true; break;
        case OPT_TRACE:
            if (strcmp(optarg, "compact") && strcmp(optarg, "all"))
                return bad_usage("--trace: expected 'compact' or 'all', got '%s'", optarg);
            c->trace_all = !strcmp(optarg, "all");
            break;
        case OPT_DUMPSTATES: c->dump_states = optarg; break;
        case OPT_REPLAY: c->replay = optarg; break;
        case OPT_REPLAY_ERROR:
            if (!parse_u64(optarg, &c->replay_error) || c->replay_error == 0 ||
                c->replay_error > UINT32_MAX)
                return bad_usage("--replay-error: expected an error number from 1, got '%s'",
                                 optarg);
            break;
        case OPT_PREEMPT:
            if (!parse_bound(optarg, &c->eo.preemption_bound, &c->eo.preemption_iterate))
                return bad_usage("--preemption-bound: expected K or 0..K (a number of "
                                 "preemptions), got '%s'", optarg);
            break;
        case OPT_DELAY:
            if (!parse_bound(optarg, &c->eo.delay_bound, &c->eo.delay_iterate))
                return bad_usage("--delay-bound: expected K or 0..K (a number of delays), "
                                 "got '%s'", optarg);
            break;
        case OPT_SLEEP:
            if (strcmp(optarg, "on") && strcmp(optarg, "off"))
                return bad_usage("--sleep-sets: expected on or off, got '%s'", optarg);
            c->eo.no_sleep_sets = !strcmp(optarg, "off");
            c->sleep_set = true;
            break;
        case OPT_SCHED:
            if (strcmp(optarg, "races") && strcmp(optarg, "all"))
                return bad_usage("--scheduling: expected races or all, got '%s'", optarg);
            c->eo.scheduling_races = !strcmp(optarg, "races");
            c->sched_set = true;
            break;
        case OPT_LIVENESS:
            if (!strcmp(optarg, "starvation")) { /* starvation.c */
                c->eo.liveness = LIVENESS_STARVATION;
                break;
            }
            if (strcmp(optarg, "npc") && strcmp(optarg, "off"))
                return bad_usage("--liveness: expected npc, starvation or off, got '%s'", optarg);
            c->eo.liveness = !strcmp(optarg, "npc") ? LIVENESS_NPC : LIVENESS_OFF;
            break;
        case OPT_LTL: c->eo.ltl_text = optarg; break;
        case OPT_LIVENESS_BITS:
            if (!parse_u64(optarg, &v) || v == 0 || v > 64)
                return bad_usage("--liveness-test-bits: expected 1..64, got '%s'", optarg);
            c->eo.liveness_test_bits = (unsigned)v;
            break;
        case OPT_FAIR:
            if (!optarg || !strcmp(optarg, "strong")) c->eo.fair = FAIR_STRONG;
            else if (!strcmp(optarg, "weak")) c->eo.fair = FAIR_WEAK;
            else return bad_usage("--fair: expected 'strong' or 'weak', got '%s'", optarg);
            break;
        case OPT_STARVED: c->starved = optarg; break;
        case OPT_RECORD: c->record = optarg; break;
        case OPT_ANALYZE:
            c->analyze = true;
            if (optarg && strcmp(optarg, "check"))
                return bad_usage("--analyze: expected nothing or '=check', got '%s'", optarg);
            c->analyze_check = optarg != NULL;
            break;
        case OPT_DOMAIN:
            if (strcmp(optarg, "octagon") && strcmp(optarg, "interval"))
                return bad_usage("--domain: expected octagon or interval, got '%s'", optarg);
            c->analyze_interval = !strcmp(optarg, "interval");
            c->analyze_opt = "--domain";
            break;
        case OPT_TIDS:
            if (strcmp(optarg, "on") && strcmp(optarg, "off"))
                return bad_usage("--tids: expected on or off, got '%s'", optarg);
            c->analyze_no_tids = !strcmp(optarg, "off");
            c->analyze_opt = "--tids";
            break;
        case OPT_INVARIANTS: c->invariants = true; c->analyze_opt = "--invariants"; break;
        case OPT_FACTS:
            c->facts = true;
            c->facts_at = optarg;
            c->analyze_opt = "--facts";
            break;
        case OPT_MPI_ROUND:
            if (!parse_u64(optarg, &v) || v == 0 || v > (1ull << 40))
                return bad_usage("--mpi-round-bytes: expected a number of bytes, got '%s'",
                                 optarg);
            c->eo.mpi_round_bytes = v;
            break;
        case OPT_MPI_PROGRESS: {
            char *end;
            double t = strtod(optarg, &end);
            if (!*optarg || *end || !(t >= 0) || t > 1e9)
                return bad_usage("--mpi-progress: expected seconds, got '%s'", optarg);
            c->eo.mpi_progress = t;
            break;
        }
        case OPT_EXCHANGE:
            if (!strcmp(optarg, "levels") || !strcmp(optarg, "async"))
                c->eo.mpi_async = !strcmp(optarg, "async");
            else
                return bad_usage("--exchange: expected levels or async, got '%s'", optarg);
            break;
        case OPT_PROGRESS: c->progress = true; break;
        case OPT_QUIET: c->quiet = true; break;
        case 'h':
        case OPT_HELP: cli_help(stdout); return -1;
        case OPT_VERSION:
            printf("mcheck %s\n", VM_VERSION);
            return -1;
        case ':': return bad_usage("option '%s' needs a value", argv[optind - 1]);
        default: return bad_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return bad_usage("%s", optind >= argc ? "no model file given" : "more than one model file given");
    c->model = argv[optind];
    if (c->analyze_opt && !c->analyze) return bad_usage("%s applies to --analyze", c->analyze_opt);
    if (c->analyze) {
        char why[400];
        if (analyze_refusal(c, why, sizeof why)) return bad_usage("%s", why);
    }
    if (c->replay && c->search_only)
        return bad_usage("%s%s cannot be used with --replay",
                         c->search_only[1] ? "--" : "-", c->search_only);
    if (c->replay_error && !c->replay) return bad_usage("--replay-error needs --replay FILE");
    c->eo.swarm_seed = c->seed; /* --swarm's random orders */
    if (sim_opt && !c->simulate && !(c->eo.swarm && !strcmp(sim_opt, "--seed")))
        /* the search explores every run: no seed (but for --swarm's orders), no step count */
        return bad_usage("%s applies to --simulate%s", sim_opt,
                         !strcmp(sim_opt, "--seed") ? " and --swarm" : "");
    if (c->eo.swarm && (c->dump || c->simulate))
        return bad_usage("--swarm applies to the search, not to %s",
                         c->dump ? "--dump" : "--simulate");
#ifdef MCHECK_MPI
    if (c->eo.swarm) /* the ranks partition one search's states */
        return bad_usage("--swarm runs threads in one mcheck process; mcheck-mpi has no swarm");
#endif
    if (c->record && !c->simulate)
        return bad_usage("--record applies to --simulate (it records one run)");
    if (c->trace_html && (c->dump || c->simulate))
        return bad_usage("--trace-html applies to the search, not to %s",
                         c->dump ? "--dump" : "--simulate");
    if (c->trace_states && (c->dump || c->simulate))
        return bad_usage("--trace-states applies to the search's traces, not to %s",
                         c->dump ? "--dump" : "--simulate");
    if (c->jobs_set && (c->dump || c->simulate))
        return bad_usage("-j applies to the search, not to %s", c->dump ? "--dump" : "--simulate");
    if (c->eo.scheduling_races) {
        int bad = races_usage(c);
        if (bad) return bad;
    } else if (c->sched_set && c->eo.search != SEARCH_STATELESS) {
        return bad_usage("--scheduling applies to --search=stateless");
    }
    if (c->eo.search == SEARCH_STATELESS) {
        int bad = stateless_usage(c);
        if (bad) return bad;
    } else if (c->eo.preemption_bound >= 0 || c->eo.delay_bound >= 0) {
        return bad_usage("%s applies to --search=stateless",
                         c->eo.delay_bound >= 0 ? "--delay-bound" : "--preemption-bound");
    }
    if (c->adapt) {
        /* Only LD' is what the reduction needs: under Eraser or Goldilocks a
         * variable without a violation may still break it (Stoller's Theorem 9
         * is about LD'), and with the detector off nothing would be found. */
        if (c->race_set && c->eo.race != LS_LD)
            return bad_usage("--adapt needs the LD' detector (--race=ld), not --race=%s",
                             race_mode_name(c->eo.race));
        if (c->dump || c->simulate)
            return bad_usage("--adapt applies to the search, not to %s",
                             c->dump ? "--dump" : "--simulate");
        c->eo.race = LS_LD;
    }
    if (c->eo.fair && !c->eo.liveness && !c->eo.ltl_text)
        return bad_usage("--fair applies to --liveness=starvation, --liveness=npc and --ltl");
    if (c->starved && (c->eo.liveness != LIVENESS_STARVATION || c->eo.ltl_text))
        return bad_usage("--starved applies to --liveness=starvation");
    if (c->eo.liveness == LIVENESS_STARVATION && !c->eo.ltl_text) {
        int bad = starvation_usage(c);
        if (bad) return bad;
    }
    if (c->eo.ltl_text) {
        int bad = ltl_usage(c);
        if (bad) return bad;
    } else if (c->eo.liveness) {
        int bad = liveness_usage(c);
        if (bad) return bad;
    } else if (c->eo.liveness_test_bits) {
        return bad_usage("--liveness-test-bits applies to --liveness=npc");
    }
    /* the search's own combination, checked by the search (reduce/engine/engines.c) */
    char msg[512];
    const char *why = explore_check(&c->eo, msg, sizeof msg);
    if (why) return bad_usage("%s", why);
#ifdef MCHECK_MPI
    if (!c->dump && !c->simulate && !c->replay) {
        int bad = mpi_usage(c);
        if (bad) return bad;
    }
#endif
    if (!c->por_set) c->eo.por = por_by_default(c);
    /* --sleep-sets: the stateless search's, and the sequential depth-first
     * search's with --por (dfs_por.c; --swarm's workers are that search) */
    if (c->sleep_set && c->eo.search != SEARCH_STATELESS &&
        (c->eo.search != SEARCH_DFS || !c->eo.por || c->eo.workers ||
         c->eo.liveness != LIVENESS_OFF || c->eo.ltl_text))
        return bad_usage("--sleep-sets applies to --search=stateless and to the sequential "
                         "depth-first search with --por (not with --search=bfs, -j, --por=off, "
                         "--liveness or --ltl)");
    if (c->eo.swarm && !c->eo.por) /* its workers' orders are dfs_por.c's */
        return bad_usage("--swarm runs the depth-first search with --por, whose workers try "
                         "the threads in different orders; it cannot be used with %s",
                         c->por_set ? "--por=off" : "options under which --por is not sound "
                         "(--liveness=starvation, --fair, --lookahead=on|child|sibling)");
#ifndef MCHECK_MPI /* mcheck-mpi: per rank, and ranks may share a machine: no default */
    if (!c->memlimit_set) {
        c->eo.memlimit = cli_default_memlimit();
        c->eo.memlimit_default = c->eo.memlimit != 0;
    }
#endif
    return 0;
}
