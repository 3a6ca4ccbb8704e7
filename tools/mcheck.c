/* mcheck.c: the command line. Reads a model, assembles it, and either dumps
 * it, simulates one random run, or searches every interleaving and prints
 * the verdict, a trace of the first error and the statistics (text or JSON).
 *
 * Exit status: 0 no error found, 1 error found, 2 bad input or usage,
 * 3 stopped by a limit before the search was complete. This file owns
 * stdout and stderr; the modules below it only return values. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reduce.h"
#include "report.h"
#include "store.h"
#include "vm.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void usage(FILE *out)
{
    fputs("usage: mcheck [options] MODEL.bc\n"
          "\n"
          "Explore every interleaving of the threads of MODEL.bc and report deadlocks,\n"
          "assertion failures and runtime errors with a trace.\n"
          "\n"
          "modes:\n"
          "  (default)              exhaustive search\n"
          "  --simulate             run one random interleaving, one line per step\n"
          "      --seed N           random seed (default 1)\n"
          "      --steps N          step limit (default 10000)\n"
          "  --dump                 print the assembled program and state layout\n"
          "\n"
          "model:\n"
          "  -D NAME=VALUE          override a const of the model\n"
          "\n"
          "search:\n"
          "  --reduce=compose|none  compose each visible step with its invisible tail\n"
          "                         (default), or schedule at every instruction\n"
          "  --race=off|ld|eraser|goldilocks\n"
          "                         check the locking discipline (Stoller's LD') or races\n"
          "                         during the search (default ld: the reduction is\n"
          "                         sound only while LD' holds; off checks nothing)\n"
          "  --search=dfs|bfs       depth-first (default) or breadth-first (shortest trace)\n"
          "  --store=compact|exact|bitstate\n"
          "                         hash compaction (default), full vectors, or supertrace\n"
          "  --fingerprint=64|128   hash-compaction fingerprint bits (default 64)\n"
          "  --bitstate-mb N        bit array size for --store=bitstate (default 64)\n"
          "  --all-errors           keep searching after the first error\n"
          "  --adapt                when LD' is violated on a variable, treat it as volatile\n"
          "                         and search again, until no violation is left (implies\n"
          "                         --race=ld; any other --race is a usage error)\n"
          "  --max-depth N          prune paths longer than N steps (search incomplete)\n"
          "  --lookahead=auto|on|child|sibling|off\n"
          "                         speed only: build the steps likely next and\n"
          "                         prefetch their store lookups, guessing each lookup\n"
          "                         new (child), seen (sibling) or by the odds so far\n"
          "                         (on; auto: once the store passes 4 MB); DFS only,\n"
          "                         not with a detector\n"
          "  --max-invisible N      bound on invisible steps in one composed step (100000)\n"
          "  --memlimit MB          stop cleanly when the search uses more memory\n"
          "  --timelimit S          stop cleanly after S seconds\n"
          "\n"
          "output:\n"
          "  --json                 print one JSON object instead of text\n"
          "  --trace-json FILE      write the error trace as JSON to FILE\n"
          "  --dump-states FILE     write every stored visible state (hex) to FILE\n"
          "  --progress             progress lines on stderr even when it is not a terminal\n"
          "  --quiet                no progress lines\n"
          "  --help, --version\n"
          "\n"
          "exit status: 0 no error, 1 error found, 2 bad input or usage, 3 incomplete\n",
          out);
}

/* ---- option parsing ------------------------------------------------------ */

typedef struct cli {
    explore_options eo;
    const char *model;
    vm_define *defs;
    size_t ndefs;
    bool dump, simulate, json, quiet, progress;
    bool adapt, race_set;      /* --adapt; --race was given */
    uint32_t *adapted;         /* --adapt: variables made volatile, in order */
    uint32_t nadapted;
    unsigned adapt_runs;       /* searches run (1 + re-runs) */
    uint64_t adapt_states;     /* states stored over all of them */
    double adapt_seconds;
    unsigned long long seed, steps;
    const char *trace_json, *dump_states;
} cli;

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

enum {
    OPT_SIMULATE = 256, OPT_SEED, OPT_STEPS, OPT_DUMP, OPT_REDUCE, OPT_RACE, OPT_SEARCH,
    OPT_STORE, OPT_FP, OPT_BITMB, OPT_ALL, OPT_MAXDEPTH, OPT_MAXINVIS,
    OPT_MEMLIMIT, OPT_TIMELIMIT, OPT_JSON, OPT_TRACEJSON, OPT_DUMPSTATES,
    OPT_PROGRESS, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_ADAPT, OPT_LOOKAHEAD,
};

static int parse_args(int argc, char **argv, cli *c)
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
        {"max-depth", required_argument, 0, OPT_MAXDEPTH},
        {"max-invisible", required_argument, 0, OPT_MAXINVIS},
        {"memlimit", required_argument, 0, OPT_MEMLIMIT},
        {"timelimit", required_argument, 0, OPT_TIMELIMIT},
        {"json", no_argument, 0, OPT_JSON},
        {"trace-json", required_argument, 0, OPT_TRACEJSON},
        {"dump-states", required_argument, 0, OPT_DUMPSTATES},
        {"progress", no_argument, 0, OPT_PROGRESS},
        {"quiet", no_argument, 0, OPT_QUIET},
        {"help", no_argument, 0, OPT_HELP},
        {"version", no_argument, 0, OPT_VERSION},
        {0, 0, 0, 0},
    };
    unsigned long long v;
    int o;
    c->seed = 1;
    c->steps = 10000;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":D:h", opts, NULL)) != -1) {
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
        case OPT_SIMULATE: c->simulate = true; break;
        case OPT_SEED:
            if (!parse_u64(optarg, &c->seed)) return bad_usage("--seed: bad number '%s'", optarg);
            break;
        case OPT_STEPS:
            if (!parse_u64(optarg, &c->steps)) return bad_usage("--steps: bad number '%s'", optarg);
            break;
        case OPT_DUMP: c->dump = true; break;
        case OPT_REDUCE:
            if (!reduce_mode_parse(optarg, &c->eo.reduce))
                return bad_usage("--reduce: expected 'compose' or 'none', got '%s'", optarg);
            break;
        case OPT_RACE:
            c->race_set = true;
            if (!race_mode_parse(optarg, &c->eo.race))
                return bad_usage("--race: expected 'off', 'ld', 'eraser' or 'goldilocks', got '%s'", optarg);
            break;
        case OPT_SEARCH:
            if (!search_order_parse(optarg, &c->eo.search))
                return bad_usage("--search: expected 'dfs' or 'bfs', got '%s'", optarg);
            break;
        case OPT_LOOKAHEAD:
            if (!lookahead_mode_parse(optarg, &c->eo.lookahead))
                return bad_usage("--lookahead: expected 'auto', 'on', 'child', 'sibling' or "
                                  "'off', got '%s'", optarg);
            break;
        case OPT_STORE:
            if (!strcmp(optarg, "compact")) c->eo.store.kind = STORE_COMPACT;
            else if (!strcmp(optarg, "exact")) c->eo.store.kind = STORE_EXACT;
            else if (!strcmp(optarg, "bitstate")) c->eo.store.kind = STORE_BITSTATE;
            else return bad_usage("--store: expected 'compact', 'exact' or 'bitstate', got '%s'", optarg);
            break;
        case OPT_FP:
            if (!strcmp(optarg, "64")) c->eo.store.fingerprint_bits = 64;
            else if (!strcmp(optarg, "128")) c->eo.store.fingerprint_bits = 128;
            else return bad_usage("--fingerprint: expected 64 or 128, got '%s'", optarg);
            break;
        case OPT_BITMB:
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
            if (!parse_u64(optarg, &v) || v == 0) return bad_usage("--max-invisible: bad number '%s'", optarg);
            c->eo.max_invisible = v;
            break;
        case OPT_MEMLIMIT:
            if (!parse_u64(optarg, &v) || v == 0 || v > (1ull << 40))
                return bad_usage("--memlimit: expected megabytes, got '%s'", optarg);
            c->eo.memlimit = v << 20;
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
        case OPT_DUMPSTATES: c->dump_states = optarg; break;
        case OPT_PROGRESS: c->progress = true; break;
        case OPT_QUIET: c->quiet = true; break;
        case 'h':
        case OPT_HELP: usage(stdout); return -1;
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
    return 0;
}

/* ---- input --------------------------------------------------------------- */

/* The whole file, or NULL with *nomem telling out of memory (exit 3) from
 * an error reading it (errno; exit 2). */
static char *read_file(const char *path, size_t *len, bool *nomem)
{
    *nomem = false;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) *nomem = true;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap > ((size_t)1 << 30)) {
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            *nomem = true;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = errno;
    if (buf && ferror(f)) {
        err = errno;
        free(buf);
        buf = NULL;
    }
    fclose(f);
    errno = err;
    *len = n;
    return buf;
}

/* ---- text report --------------------------------------------------------- */

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

/* The instruction at `pc` of the body thread `tid` runs in state `s`, or NULL
 * if there is none (a trace that did not replay may end in a state where the
 * thread was never spawned). */
static const vm_insn *insn_at(const vm_program *p, const uint8_t *s, int tid, uint32_t pc)
{
    if (!s || tid < 0 || (uint32_t)tid >= p->nthreads) return NULL;
    const vm_body *b = vm_thread_body(p, s, tid);
    return b && pc < b->ncode ? &b->code[pc] : NULL;
}

static const vm_insn unknown_insn = {.line = 0, .text = "?"};

static const vm_insn *entry_insn(const vm_program *p, const trace *t, const trace_entry *e)
{
    const vm_insn *in = insn_at(p, t->final_state, e->tid, e->pc);
    return in ? in : &unknown_insn;
}

/* Annotation of a trace entry: the value a choose picked, the re-acquire. */
static void entry_note(const trace_entry *e, const vm_insn *in, char *buf, size_t n)
{
    buf[0] = '\0';
    if (e->reacquire)
        snprintf(buf, n, "(re-acquire after notify)");
    else if (e->first && in->op == VM_OP_choose && in->a.kind == VM_ARG_IMM)
        snprintf(buf, n, "(chose %" PRId64 ")", (int64_t)in->a.val + (int64_t)e->choice);
    else if (e->first && in->op == VM_OP_choose)
        snprintf(buf, n, "(choice %" PRIu64 ")", e->choice);
    else if (e->first && in->op == VM_OP_notify && e->choice)
        snprintf(buf, n, "(wakes waiter %" PRIu64 ")", e->choice + 1);
}

void report_trace_line(FILE *out, const vm_program *p, const trace *t, const trace_entry *e)
{
    char name[64], note[64];
    const vm_insn *in = entry_insn(p, t, e);
    vm_thread_name(p, t->final_state, e->tid, name, sizeof name);
    entry_note(e, in, note, sizeof note);
    if (e->first)
        fprintf(out, "%6" PRIu32 "  %-14s %5d  %s%s%s\n", e->step, name, in->line, in->text,
                note[0] ? "  " : "", note);
    else
        fprintf(out, "%6s  %-14s %5d  %s%s%s\n", "", name, in->line, in->text,
                note[0] ? "  " : "", note);
}

void report_blocked_threads(FILE *out, const vm_program *p, const uint8_t *s)
{
    char name[64], why[192];
    for (uint32_t t = 0; t < p->nthreads; t++) {
        enum vm_tstatus st = vm_tstatus_of(p, s, (int)t);
        if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
        const vm_insn *in = insn_at(p, s, (int)t, vm_tpc(p, s, (int)t));
        if (!in) in = &unknown_insn;
        vm_thread_name(p, s, (int)t, name, sizeof name);
        vm_describe_block(p, s, (int)t, why, sizeof why);
        fprintf(out, "  %-14s line %d (%s): %s%s\n", name, in->line, in->text, why,
                in->end_label ? " [end label]" : "");
    }
}

/* `t` is NULL when the trace could not be replayed for lack of memory. */
static void print_error_text(FILE *out, const vm_program *p, const explore_error *er,
                             const trace *t, bool bfs_hint)
{
    char name[64];
    fprintf(out, "error: %s\n", er->msg);
    if (!t) {
        fprintf(out, "trace (%" PRIu32 " steps): not available: out of memory while replaying it\n",
                er->len);
        return;
    }
    const vm_insn *in = er->tid >= 0 ? insn_at(p, t->final_state, er->tid, er->pc) : NULL;
    if (in) {
        vm_thread_name(p, t->final_state, er->tid, name, sizeof name);
        fprintf(out, "  in %s at %s:%d: %s\n", name, p->filename, in->line, in->text);
    }
    report_accesses_text(out, p, t);
    fprintf(out, "trace (%" PRIu32 " steps, %" PRIu32 " instructions):\n", er->len, t->n);
    fprintf(out, "%6s  %-14s %5s  %s\n", "step", "thread", "line", "instruction");
    for (uint32_t i = 0; i < t->n; i++) report_trace_line(out, p, t, &t->entries[i]);
    if (t->diverged) fprintf(out, "warning: the trace did not replay: %s\n", t->why);
    if (er->kind == VERDICT_DEADLOCK) {
        fprintf(out, "blocked threads:\n");
        report_blocked_threads(out, p, t->final_state);
    }
    if (bfs_hint && er->len > 20)
        fprintf(out, "note: depth-first traces can be long; --search=bfs finds a shortest one\n");
}

static const char *human_bytes(double b, char *buf, size_t n)
{
    const char *unit[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

static void print_stats_text(FILE *out, const cli *c, const explore_result *r)
{
    const explore_stats *x = &r->stats;
    char b1[32], b2[32];
    double bps = x->states_stored ? (double)x->store_bytes / (double)x->states_stored : 0;
    fprintf(out, "statistics:\n");
    fprintf(out, "  states stored        %" PRIu64 "\n", x->states_stored);
    fprintf(out, "  states matched       %" PRIu64 "\n", x->states_matched);
    fprintf(out, "  transitions          %" PRIu64 "%s\n", x->transitions,
            c->eo.reduce == REDUCE_COMPOSE ? " (composed steps)" : "");
    fprintf(out, "  max depth            %" PRIu64 "\n", x->max_depth);
    fprintf(out, "  instructions         %" PRIu64, x->instructions);
    if (c->eo.reduce == REDUCE_COMPOSE)
        fprintf(out, " (%" PRIu64 " invisible merged, %.2f per composed step)", x->invisible,
                x->transitions ? (double)x->instructions / (double)x->transitions : 0.0);
    fprintf(out, "\n");
    fprintf(out, "  state vector         %" PRIu64 " bytes\n", x->vector_bytes);
    if (c->eo.race != LS_OFF) {
        fprintf(out, "  locksets interned    %" PRIu64 " (%s detector)\n", x->locksets,
                race_mode_name(c->eo.race));
        fprintf(out, "  detector time        %.3f s (%.0f%% of the search; 1 call in 64 timed)\n",
                x->detector_seconds,
                x->seconds > 0 ? 100.0 * x->detector_seconds / x->seconds : 0.0);
    }
    if (c->eo.store.kind == STORE_COMPACT)
        fprintf(out, "  store                compact, %u-bit fingerprints, %s (%.1f bytes/state)\n",
                c->eo.store.fingerprint_bits, human_bytes((double)x->store_bytes, b1, sizeof b1), bps);
    else
        fprintf(out, "  store                %s, %s (%.1f bytes/state)\n",
                store_kind_name(c->eo.store.kind), human_bytes((double)x->store_bytes, b1, sizeof b1),
                bps);
    fprintf(out, "  search stack/queue   %s\n", human_bytes((double)x->search_bytes, b2, sizeof b2));
    fprintf(out, "  peak memory (RSS)    %s\n", human_bytes((double)x->peak_rss, b1, sizeof b1));
    if (c->eo.store.kind == STORE_COMPACT)
        fprintf(out, "  omission probability %.3g (hash compaction)\n", x->omission);
    else if (c->eo.store.kind == STORE_BITSTATE)
        fprintf(out, "  coverage (estimate)  %.4f%% of states (bitstate: partial search)\n",
                100.0 * (1.0 - x->omission));
    fprintf(out, "  time                 %.3f s (%.0f states/s)\n", x->seconds,
            x->seconds > 0 ? (double)x->states_stored / x->seconds : 0.0);
    if (c->eo.store.kind == STORE_COMPACT && x->omission > 1e-6)
        fprintf(out, "warning: the probability that hash compaction omitted a state is %.3g;"
                     " use --fingerprint=128 or --store=exact\n", x->omission);
}

static void print_error_counts(FILE *out, const explore_result *r)
{
    uint64_t total = 0;
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++) total += r->error_count[k];
    fprintf(out, "errors found: %" PRIu64, total);
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++)
        if (r->error_count[k]) fprintf(out, ", %s %" PRIu64, verdict_name((verdict)k), r->error_count[k]);
    if (total > r->nerrors)
        fprintf(out, " (traces of the first %" PRIu32 " shown)", r->nerrors);
    fprintf(out, "\n");
}

static const char *stop_text(stop_reason s)
{
    switch (s) {
    case STOP_COMPLETE: return "search complete";
    case STOP_ERROR: return "search stopped at the first error";
    case STOP_DEPTH: return "search incomplete: paths longer than --max-depth were pruned";
    case STOP_MEMLIMIT: return "search incomplete: memory limit reached";
    case STOP_TIMELIMIT: return "search incomplete: time limit reached";
    case STOP_INTERRUPTED: return "search incomplete: interrupted";
    case STOP_NOMEM: return "search incomplete: out of memory";
    }
    return "?";
}

/* ---- JSON report --------------------------------------------------------- */

static void print_trace_json(FILE *out, const vm_program *p, const trace *t)
{
    char name[64], note[64];
    fprintf(out, "[");
    for (uint32_t i = 0; i < t->n; i++) {
        const trace_entry *e = &t->entries[i];
        const vm_insn *in = entry_insn(p, t, e);
        vm_thread_name(p, t->final_state, e->tid, name, sizeof name);
        entry_note(e, in, note, sizeof note);
        fprintf(out, "%s{\"step\":%" PRIu32 ",\"thread\":", i ? "," : "", e->step);
        json_string(out, name);
        fprintf(out, ",\"tid\":%d,\"pc\":%" PRIu32 ",\"line\":%d,\"instruction\":", e->tid, e->pc,
                in->line);
        json_string(out, in->text);
        if (note[0]) {
            fprintf(out, ",\"note\":");
            json_string(out, note);
        }
        fprintf(out, "}");
    }
    fprintf(out, "]");
}

/* `t` is NULL when the trace could not be replayed for lack of memory. */
static void print_error_json(FILE *out, const vm_program *p, const explore_error *er,
                             const trace *t)
{
    char name[64], why[192];
    fprintf(out, "{\"kind\":\"%s\",\"message\":", verdict_name(er->kind));
    json_string(out, er->msg);
    if (!t) {
        fprintf(out, ",\"thread\":null,\"line\":null,\"steps\":%" PRIu32
                     ",\"replayed\":false,\"trace\":null}", er->len);
        return;
    }
    const vm_insn *in = er->tid >= 0 ? insn_at(p, t->final_state, er->tid, er->pc) : NULL;
    if (in) {
        vm_thread_name(p, t->final_state, er->tid, name, sizeof name);
        fprintf(out, ",\"thread\":");
        json_string(out, name);
        fprintf(out, ",\"line\":%d,\"instruction\":", in->line);
        json_string(out, in->text);
    } else {
        fprintf(out, ",\"thread\":null,\"line\":null");
    }
    fprintf(out, ",\"steps\":%" PRIu32 ",\"replayed\":%s,\"trace\":", er->len,
            t->diverged ? "false" : "true");
    print_trace_json(out, p, t);
    report_accesses_json(out, p, t);
    if (er->kind == VERDICT_DEADLOCK) {
        fprintf(out, ",\"blocked\":[");
        bool first = true;
        for (uint32_t i = 0; i < p->nthreads; i++) {
            enum vm_tstatus st = vm_tstatus_of(p, t->final_state, (int)i);
            if (st == VM_T_UNUSED || st == VM_T_ENDED) continue;
            const vm_insn *bi = insn_at(p, t->final_state, (int)i, vm_tpc(p, t->final_state, (int)i));
            if (!bi) bi = &unknown_insn;
            vm_thread_name(p, t->final_state, (int)i, name, sizeof name);
            vm_describe_block(p, t->final_state, (int)i, why, sizeof why);
            fprintf(out, "%s{\"thread\":", first ? "" : ",");
            json_string(out, name);
            fprintf(out, ",\"line\":%d,\"instruction\":", bi->line);
            json_string(out, bi->text);
            fprintf(out, ",\"waits_for\":");
            json_string(out, why);
            fprintf(out, "}");
            first = false;
        }
        fprintf(out, "]");
    }
    fprintf(out, "}");
}

/* The replayed trace of error i, or NULL if it could not be replayed (out of
 * memory: trace_free() left it without a final state). */
static const trace *trace_of(const trace *traces, uint32_t i)
{
    return traces && traces[i].final_state ? &traces[i] : NULL;
}

static void print_json(FILE *out, const cli *c, const vm_program *p, const explore_result *r,
                       const trace *traces)
{
    const explore_stats *x = &r->stats;
    fprintf(out, "{\"mcheck\":\"%s\",\"model\":", VM_VERSION);
    json_string(out, c->model);
    fprintf(out, ",\"verdict\":\"%s\",\"complete\":%s,\"stop\":\"%s\"",
            verdict_name(r->verdict),
            r->stop == STOP_COMPLETE ? "true" : "false", stop_reason_name(r->stop));
    fprintf(out, ",\"options\":{\"reduce\":\"%s\",\"race\":\"%s\",\"store\":\"%s\","
                 "\"fingerprint_bits\":%u,\"search\":\"%s\",\"max_depth\":%" PRIu64 "}",
            reduce_mode_name(c->eo.reduce), race_mode_name(c->eo.race),
            store_kind_name(c->eo.store.kind),
            c->eo.store.fingerprint_bits, search_order_name(c->eo.search),
            c->eo.max_depth);
    if (c->adapt) { /* the variables --adapt made volatile, in order */
        fprintf(out, ",\"adapted\":[");
        for (uint32_t i = 0; i < c->nadapted; i++) {
            if (i) fputc(',', out);
            json_string(out, p->vars[c->adapted[i]].name);
        }
        fprintf(out, "],\"adapt_runs\":%u", c->adapt_runs);
    }
    fprintf(out, ",\"error\":");
    if (r->nerrors)
        print_error_json(out, p, &r->errors[0], trace_of(traces, 0));
    else
        fprintf(out, "null");
    fprintf(out, ",\"errors\":[");
    for (uint32_t i = 0; i < r->nerrors; i++) {
        if (i) fprintf(out, ",");
        print_error_json(out, p, &r->errors[i], trace_of(traces, i));
    }
    fprintf(out, "],\"error_counts\":{");
    for (int k = VERDICT_DEADLOCK; k < VERDICT_INCOMPLETE; k++)
        fprintf(out, "%s\"%s\":%" PRIu64, k == VERDICT_DEADLOCK ? "" : ",", verdict_name((verdict)k),
                r->error_count[k]);
    fprintf(out, "}");
    double bps = x->states_stored ? (double)x->store_bytes / (double)x->states_stored : 0;
    fprintf(out,
            ",\"stats\":{\"states_stored\":%" PRIu64 ",\"transitions\":%" PRIu64
            ",\"states_matched\":%" PRIu64 ",\"max_depth\":%" PRIu64 ",\"instructions\":%" PRIu64
            ",\"invisible_instructions\":%" PRIu64 ",\"composed_transitions\":%" PRIu64
            ",\"avg_composed_step\":%.3f"
            ",\"state_vector_bytes\":%" PRIu64 ",\"store_bytes\":%" PRIu64
            ",\"bytes_per_state\":%.3f,\"search_bytes\":%" PRIu64 ",\"peak_rss_bytes\":%" PRIu64
            ",\"omission_probability\":%.6g,\"locksets\":%" PRIu64
            ",\"detector_seconds\":%.6f",
            x->states_stored, x->transitions, x->states_matched, x->max_depth, x->instructions,
            x->invisible, c->eo.reduce == REDUCE_COMPOSE ? x->transitions : 0,
            x->transitions ? (double)x->instructions / (double)x->transitions : 0.0,
            x->vector_bytes, x->store_bytes, bps, x->search_bytes, x->peak_rss, x->omission,
            x->locksets, x->detector_seconds);
    /* bitstate covers part of the states, by an estimate; the others all */
    if (c->eo.store.kind == STORE_BITSTATE)
        fprintf(out, ",\"coverage\":%.6g", 1.0 - x->omission);
    else
        fprintf(out, ",\"coverage\":null");
    fprintf(out, ",\"seconds\":%.6f,\"states_per_second\":%.1f}}\n", x->seconds,
            x->seconds > 0 ? (double)x->states_stored / x->seconds : 0.0);
}

/* ---- main ---------------------------------------------------------------- */

static int exit_status(const explore_result *r)
{
    if (r->nerrors) return 1;
    return r->stop == STOP_COMPLETE ? 0 : 3;
}

/* ---- --adapt ------------------------------------------------------------- */

/* The shared variable a lock_discipline error names, or UINT32_MAX. */
static uint32_t discipline_var(const vm_program *p, const explore_error *er)
{
    if (er->kind != VERDICT_LOCK_DISCIPLINE || er->elem >= p->nelems) return UINT32_MAX;
    const vm_var *v = vm_elem_var(p, er->elem);
    return v && v->cls == VM_SHARED ? (uint32_t)(v - p->vars) : UINT32_MAX;
}

/* Make every shared variable that a kept lock_discipline error of r names
 * volatile (with --all-errors there may be several), printing a line for
 * each in text mode. Returns how many, or -1 when memory runs out. */
static int adapt_variables(cli *c, vm_program *p, const explore_result *r)
{
    int n = 0;
    for (uint32_t i = 0; i < r->nerrors; i++) {
        uint32_t v = discipline_var(p, &r->errors[i]); /* UINT32_MAX once adapted */
        if (v == UINT32_MAX) continue;
        uint32_t *na = realloc(c->adapted, (c->nadapted + 1) * sizeof *na);
        if (!na) return -1;
        c->adapted = na;
        c->adapted[c->nadapted++] = v;
        if (vm_make_volatile(p, v) < 0) return -1;
        if (!c->json) {
            printf("adapt: '%s' treated as volatile (%s)\n", p->vars[v].name, r->errors[i].msg);
            fflush(stdout);
        }
        n++;
    }
    return n;
}

/* Stoller's BoundedInvis error ("no visible operation within N steps"), the
 * one verdict that depends on what is visible: a thread spinning on a flag
 * that is not volatile yet never reaches a visible point. */
static bool bounded_invis(const explore_result *r)
{
    return r->nerrors && r->errors[0].cause == CAUSE_BOUNDED_INVIS;
}

/* One search; counts it in the --adapt totals. With --timelimit and --adapt,
 * the limit is what the earlier runs left. */
static int adapt_run(cli *c, const vm_program *p, const explore_options *o, explore_result *r)
{
    explore_options eo = *o;
    if (c->adapt && eo.timelimit > 0) {
        double left = eo.timelimit - c->adapt_seconds;
        eo.timelimit = left > 1e-6 ? left : 1e-6; /* 0 would mean no limit */
    }
    int rc = explore_run(p, &eo, r);
    c->adapt_runs++;
    c->adapt_states += r->stats.states_stored;
    c->adapt_seconds += r->stats.seconds;
    return rc;
}

/* explore_run(), and with --adapt again after each run that found LD'
 * violations, with the offending variables made volatile, until a run ends
 * otherwise. r is the last run's result. Only an interrupt ends the loop
 * early: a run that found violations before a limit stopped it (with
 * --all-errors) is followed by another, which the limit will stop too
 * (--timelimit bounds all runs together), so that the verdict is never a
 * violation --adapt could have removed. A run that stops at a BoundedInvis
 * error is followed by a search past errors for a violation beyond it (the
 * spin is on a flag LD' does not cover yet); if there is one, adaptation goes
 * on, else the BoundedInvis error is the verdict. Returns 0, -1 if a search
 * could not start for lack of memory, -2 if memory ran out in between (the
 * last run's verdict may be one adaptation would have removed). */
static int explore_adapt(cli *c, vm_program *p, FILE *dump, explore_result *r)
{
    for (;;) {
        int rc = adapt_run(c, p, &c->eo, r);
        if (rc != 0 || !c->adapt || interrupted) return rc;
        int n = adapt_variables(c, p, r);
        if (n == 0 && r->stop == STOP_ERROR && bounded_invis(r)) {
            explore_options po = c->eo;
            explore_result pr;
            po.all_errors = true;
            po.max_traces = 1000; /* only the violations' elements are used */
            po.dump_states = NULL;
            if (adapt_run(c, p, &po, &pr) != 0)
                n = -1;
            else if (!interrupted)
                n = adapt_variables(c, p, &pr);
            explore_result_free(&pr);
        }
        if (n < 0) return -2; /* out of memory: no verdict */
        if (n == 0) return 0;
        if (dump) { /* --dump-states: the states of the last run only */
            fflush(dump);
            if (ftruncate(fileno(dump), 0) != 0)
                fprintf(stderr, "mcheck: warning: cannot truncate '%s': %s\n", c->dump_states,
                        strerror(errno));
            rewind(dump);
        }
        explore_result_free(r);
    }
}

static int run_search(cli *c, vm_program *p)
{
    explore_result r;
    FILE *dump = NULL;
    if (c->dump_states && !(dump = fopen(c->dump_states, "w"))) {
        fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", c->dump_states, strerror(errno));
        return 2;
    }
    c->eo.dump_states = dump;
    c->eo.interrupt = &interrupted;
    if (!c->quiet && (c->progress || isatty(STDERR_FILENO))) c->eo.progress = stderr;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int rc = explore_adapt(c, p, dump, &r);
    if (dump) fclose(dump);
    if (rc != 0) { /* the options are valid, so: no memory for the store or the stack */
        fprintf(stderr, "mcheck: error: out of memory %s\n",
                rc == -2 ? "adapting the model (--adapt)" : "before the search started");
        explore_result_free(&r);
        return 3;
    }
    /* Out of memory from here on costs the traces (reported as not
     * available), never the verdict or the statistics. */
    trace *traces = r.nerrors ? calloc(r.nerrors, sizeof *traces) : NULL;
    for (uint32_t i = 0; traces && i < r.nerrors; i++)
        if (trace_replay(p, c->eo.reduce, c->eo.max_invisible, c->eo.race, r.errors[i].path, r.errors[i].len,
                         &traces[i]) != 0)
            trace_free(&traces[i]);

    if (c->json) {
        print_json(stdout, c, p, &r, traces);
    } else {
        printf("mcheck %s: %s (reduce=%s%s%s%s, store=%s, search=%s)\n", VM_VERSION, c->model,
               reduce_mode_name(c->eo.reduce),
               c->eo.race != LS_OFF ? ", race=" : "", c->eo.race != LS_OFF ? race_mode_name(c->eo.race) : "",
               c->adapt ? ", adapt" : "", store_kind_name(c->eo.store.kind), search_order_name(c->eo.search));
        for (uint32_t i = 0; i < r.nerrors; i++) {
            if (r.nerrors > 1) printf("\n--- error %" PRIu32 " of %" PRIu32 " ---\n", i + 1, r.nerrors);
            print_error_text(stdout, p, &r.errors[i], trace_of(traces, i), c->eo.search == SEARCH_DFS);
        }
        if (c->eo.all_errors) print_error_counts(stdout, &r);
        if (c->adapt) {
            printf("adapted:%s", c->nadapted ? "" : " none");
            for (uint32_t i = 0; i < c->nadapted; i++)
                printf("%s '%s'", i ? "," : "", p->vars[c->adapted[i]].name);
            printf("%s\n", c->nadapted ? " (treated as volatile)" : "");
        }
        printf("verdict: %s", verdict_name(r.verdict));
        if (r.verdict == VERDICT_OK) printf(" (no error found)");
        printf("\n%s", stop_text(r.stop));
        if (c->eo.store.kind == STORE_BITSTATE && r.stop == STOP_COMPLETE)
            printf(" (bitstate: partial coverage, states may have been missed)");
        printf("\n");
        print_stats_text(stdout, c, &r);
        if (c->adapt)
            printf("  adapt                %u search%s, %" PRIu64 " states stored and %.3f s in all\n",
                   c->adapt_runs, c->adapt_runs == 1 ? "" : "es", c->adapt_states, c->adapt_seconds);
    }
    if (c->trace_json) {
        FILE *tf = fopen(c->trace_json, "w");
        if (!tf) {
            fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", c->trace_json, strerror(errno));
        } else {
            if (r.nerrors)
                print_error_json(tf, p, &r.errors[0], trace_of(traces, 0));
            else
                fprintf(tf, "null");
            fprintf(tf, "\n");
            fclose(tf);
        }
    }
    int status = exit_status(&r);
    for (uint32_t i = 0; traces && i < r.nerrors; i++) trace_free(&traces[i]);
    free(traces);
    explore_result_free(&r);
    return status;
}

int main(int argc, char **argv)
{
    cli c;
    memset(&c, 0, sizeof c);
    explore_options_default(&c.eo);
    int rc = parse_args(argc, argv, &c);
    if (rc != 0) {
        free(c.defs);
        return rc < 0 ? 0 : rc;
    }
    size_t len;
    bool nomem;
    char *src = read_file(c.model, &len, &nomem);
    if (!src) {
        if (nomem)
            fprintf(stderr, "mcheck: error: out of memory\n");
        else
            fprintf(stderr, "mcheck: error: cannot read '%s': %s\n", c.model, strerror(errno));
        free(c.defs);
        return nomem ? 3 : 2;
    }
    int nerr = 0;
    vm_program *p = vm_assemble(c.model, src, len, c.defs, c.ndefs, stderr, &nerr);
    free(src);
    free(c.defs);
    if (!p) return nerr < 0 ? 3 : 2; /* out of memory is a resource limit */
    if (c.dump)
        vm_dump(p, stdout);
    else if (c.simulate)
        rc = simulate_run(p, c.seed, c.steps, stdout);
    else
        rc = run_search(&c, p);
    free(c.adapted);
    vm_program_free(p);
    return rc;
}
