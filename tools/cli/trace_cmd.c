/* trace_cmd.c: `mcheck trace SUBCOMMAND [options] FILE`, the command line
 * of the trace module (trace/trace.h; issue 32, ZipTrack): race and lockset
 * analyses on a grammar (or on the expanded stream with --uncompressed),
 * stats, expand, compress. FILE is a trace in RAPID's text format or a
 * grammar file (told apart by the grammar file's first line); a RAPID trace
 * is compressed with Sequitur before a grammar analysis.
 *
 * Exit status, for scripts (docs/usage.md, "Traces"): 0 no race (no
 * violation; the other subcommands: done), 1 a race (a violation) found,
 * 2 bad input or usage, 3 out of memory (or an expansion that cannot fit).
 * Findings and timings go to stdout, errors to stderr. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_int.h"
#include "trace.h"

enum { CMD_RACE, CMD_LOCKSET, CMD_STATS, CMD_EXPAND, CMD_COMPRESS, NCMDS };
static const char *const cmd_names[NCMDS] = {"race", "lockset", "stats", "expand", "compress"};

static void trace_usage(FILE *out)
{
    fputs("usage: mcheck trace race [--uncompressed [--vc]] [--json] FILE\n"
          "       mcheck trace lockset [--uncompressed] [--json] FILE\n"
          "       mcheck trace stats [--json] FILE\n"
          "       mcheck trace expand FILE\n"
          "       mcheck trace compress [--json] IN OUT\n"
          "\n"
          "Race detection on traces and on their compressed form (ZipTrack: the\n"
          "analyses run on the grammar, never expanding it). FILE is a trace in\n"
          "RAPID's text format (one event per line, THREAD|OP(ARG)|LOC, OP one of\n"
          "r w acq rel fork join), compressed with Sequitur first, or a grammar file\n"
          "(mcheck trace compress, mcheck --simulate --record).\n"
          "\n"
          "  race          happens-before races: the first racing pair found\n"
          "  lockset       Eraser's lockset discipline: a variable whose locksets\n"
          "                have an empty intersection\n"
          "  stats         events, threads, locks, variables, grammar size,\n"
          "                compression ratio, depth\n"
          "  expand        the events, in RAPID's format\n"
          "  compress      RAPID's format (IN) to a grammar file (OUT)\n"
          "\n"
          "  --uncompressed  analyse the expanded stream instead: Goldilocks (race),\n"
          "                  the Eraser discipline (lockset)\n"
          "  --vc            with race --uncompressed: vector clocks (Djit+)\n"
          "  --json          one JSON object on stdout\n"
          "\n"
          "exit status: 0 no race (no violation; other subcommands: done), 1 race or\n"
          "violation found, 2 bad input or usage, 3 out of memory\n",
          out);
}

__attribute__((format(printf, 1, 2))) static int trace_bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mcheck: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'mcheck trace --help'.\n", stderr);
    va_end(ap);
    return 2;
}

/* CPU seconds of the process (one thread): the figures benchmarks compare,
 * which a busy machine does not inflate as it does wall time */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the input: a trace, a grammar, or both --------------------------------- */

typedef struct input {
    const char *path;
    bool is_grammar;        /* the file was a grammar file */
    bool have_trace, have_grammar;
    tr_trace t;
    tr_slp g;
    uint64_t *len;          /* the rules' lengths, once asked for */
    double read_s, compress_s;
} input;

static void input_free(input *in)
{
    tr_trace_free(&in->t);
    tr_slp_free(&in->g);
    free(in->len);
}

static int out_of_memory(const char *what)
{
    fprintf(stderr, "mcheck: error: out of memory%s%s\n", *what ? " " : "", what);
    return 3;
}

static bool seq_push(void *ctx, const tr_event *e) { return tr_sequitur_push(ctx, e); }

/* A RAPID file straight into Sequitur, line by line: the events are never
 * held (memory: the grammar's). */
static bool read_compressed(input *in, FILE *f, bool *nomem)
{
    tr_sequitur *q = tr_sequitur_new();
    tr_names names;
    memset(&names, 0, sizeof names);
    if (!q) {
        *nomem = true;
        fprintf(stderr, "%s: error: out of memory\n", in->path);
        return false;
    }
    bool ok = tr_read_rapid_each(f, in->path, stderr, &names, seq_push, q, nomem);
    tr_slp g;
    memset(&g, 0, sizeof g);
    if (!tr_sequitur_finish(q, &names, &g)) { /* frees q */
        if (ok) fprintf(stderr, "%s: error: out of memory\n", in->path);
        ok = false;
        *nomem = true;
    }
    if (!ok) {
        tr_slp_free(&g);
        tr_names_free(&names);
        return false;
    }
    in->g = g;
    in->have_grammar = true;
    return true;
}

/* Read in->path (a RAPID file compressed as it is read when `compress`);
 * 0, or the exit status after the message. */
static int input_read(input *in, bool compress)
{
    FILE *f = fopen(in->path, "r");
    if (!f) {
        fprintf(stderr, "mcheck: error: cannot read '%s': %s\n", in->path, strerror(errno));
        return 2;
    }
    double t0 = now();
    bool nomem, ok;
    in->is_grammar = tr_slp_is_file(f);
    if (in->is_grammar)
        in->have_grammar = ok = tr_slp_read(f, in->path, stderr, &in->g, &nomem);
    else if (compress)
        ok = read_compressed(in, f, &nomem);
    else
        in->have_trace = ok = tr_read_rapid(f, in->path, stderr, &in->t, &nomem);
    /* a RAPID file compressed as it is read: one figure for both */
    *(in->is_grammar || !compress ? &in->read_s : &in->compress_s) = now() - t0;
    fclose(f);
    if (!ok) return nomem ? 3 : 2;
    return 0;
}

/* The grammar of a RAPID trace: Sequitur, online (the trace's names move
 * into the grammar). 0 or 3. */
static int input_compress(input *in)
{
    if (in->have_grammar) return 0;
    double t0 = now();
    tr_sequitur *q = tr_sequitur_new();
    if (!q) return out_of_memory("compressing the trace");
    for (uint64_t i = 0; i < in->t.n; i++)
        if (!tr_sequitur_push(q, &in->t.ev[i])) {
            tr_names none;
            tr_slp partial;
            memset(&none, 0, sizeof none);
            memset(&partial, 0, sizeof partial);
            tr_sequitur_finish(q, &none, &partial); /* frees q */
            tr_slp_free(&partial);
            tr_names_free(&none);
            return out_of_memory("compressing the trace");
        }
    tr_names names = in->t.names;
    memset(&in->t.names, 0, sizeof in->t.names);
    if (!tr_sequitur_finish(q, &names, &in->g)) {
        tr_names_free(&names);
        return out_of_memory("compressing the trace");
    }
    in->have_grammar = true;
    /* the events go: from here on memory is the grammar's (--uncompressed
     * does not come here) */
    free(in->t.ev);
    in->t.ev = NULL;
    in->t.n = in->t.cap = 0;
    in->have_trace = false;
    in->compress_s = now() - t0;
    return 0;
}

static int input_lengths(input *in)
{
    if (in->len) return 0;
    in->len = malloc(((size_t)in->g.nrules + 1) * sizeof *in->len);
    if (!in->len || !tr_slp_lengths(&in->g, in->len)) return out_of_memory("");
    return 0;
}

/* The analyses' precondition (trace.h, "well-formedness"): 0, or 2 (the
 * first broken rule said as FILE: error: event N: ...) or 3. */
static int input_check(input *in)
{
    uint64_t pos = UINT64_MAX;
    char why[256] = "";
    tr_wf wf;
    if (!in->have_trace) { /* linear in the grammar (per-rule summaries) */
        wf = tr_slp_check(&in->g, &pos, why, sizeof why);
    } else {
        wf = tr_check_wellformed(&in->t, &pos, why, sizeof why);
    }
    if (wf == TR_WF_NOMEM) return out_of_memory("checking the trace");
    if (wf == TR_WF_OK) return 0;
    if (pos == UINT64_MAX)
        fprintf(stderr, "%s: error: %s (the analyses need a well-formed trace)\n", in->path, why);
    else
        fprintf(stderr, "%s: error: event %llu: %s (the analyses need a well-formed trace)\n",
                in->path, (unsigned long long)pos + 1, why);
    return 2;
}

/* The event at position pos of the grammar's trace, found by descending
 * from r0 with the rules' lengths (never expanding). */
static const tr_event *slp_event_at(const tr_slp *g, const uint64_t *len, uint64_t pos)
{
    uint32_t r = 0;
    for (;;) {
        uint64_t i = g->body[r];
        for (; i < g->body[r + 1]; i++) {
            uint32_t s = g->sym[i];
            uint64_t l = s < g->nterms ? 1 : len[s - g->nterms];
            if (pos < l) break;
            pos -= l;
        }
        if (i == g->body[r + 1]) return NULL; /* beyond the end */
        uint32_t s = g->sym[i];
        if (s < g->nterms) return &g->terms[s];
        r = s - g->nterms;
    }
}

static const tr_names *input_names(const input *in)
{
    return in->have_grammar ? &in->g.names : &in->t.names;
}

static const tr_event *input_event(const input *in, uint64_t pos)
{
    if (in->have_trace) return pos < in->t.n ? &in->t.ev[pos] : NULL;
    return slp_event_at(&in->g, in->len, pos);
}

static uint64_t input_events(const input *in)
{
    if (in->have_grammar) return in->g.nrules && in->len ? in->len[0] : 0;
    return in->t.n;
}

/* ---- grammar figures ---------------------------------------------------------- */

typedef struct gstats {
    uint64_t symbols; /* total length of the rule bodies */
    uint32_t depth;   /* rules on the longest path from r0 to an event */
} gstats;

/* Depth by one iterative walk (children first). false: out of memory. */
static bool grammar_stats(const tr_slp *g, gstats *st)
{
    st->symbols = g->nrules ? g->body[g->nrules] : 0;
    st->depth = 0;
    if (!g->nrules) return true;
    uint32_t *depth = calloc(g->nrules, sizeof *depth); /* 0: not done */
    uint32_t *stack = malloc((size_t)g->nrules * sizeof *stack);
    uint64_t *next = malloc((size_t)g->nrules * sizeof *next);
    if (!depth || !stack || !next) {
        free(depth);
        free(stack);
        free(next);
        return false;
    }
    uint32_t sp = 0;
    stack[sp] = 0;
    next[sp++] = g->body[0];
    while (sp) {
        uint32_t r = stack[sp - 1];
        if (next[sp - 1] == g->body[r + 1]) {
            uint32_t d = 0;
            for (uint64_t i = g->body[r]; i < g->body[r + 1]; i++) {
                uint32_t s = g->sym[i];
                if (s >= g->nterms && depth[s - g->nterms] > d) d = depth[s - g->nterms];
            }
            depth[r] = d + 1;
            sp--;
            continue;
        }
        uint32_t s = g->sym[next[sp - 1]++];
        if (s < g->nterms || depth[s - g->nterms]) continue;
        stack[sp] = s - g->nterms; /* a DAG (checked on reading): each rule once on the stack */
        next[sp++] = g->body[s - g->nterms];
    }
    st->depth = depth[0];
    free(depth);
    free(stack);
    free(next);
    return true;
}

static double ratio(uint64_t events, uint64_t symbols)
{
    return symbols ? (double)events / (double)symbols : 0.0;
}

/* ---- output ---------------------------------------------------------------------- */

static void json_opt_string(FILE *out, const char *s)
{
    if (s)
        json_string(out, s);
    else
        fputs("null", out);
}

static void text_event(FILE *out, const tr_names *n, uint64_t pos, const tr_event *e)
{
    fprintf(out, "  event %llu: ", (unsigned long long)pos + 1);
    tr_write_rapid(out, n, e);
}

static void json_event(FILE *out, const tr_names *n, uint64_t pos, const tr_event *e)
{
    fprintf(out, "{\"event\":%llu,\"thread\":", (unsigned long long)pos + 1);
    json_string(out, n->threads.v[e->thread]);
    fprintf(out, ",\"op\":\"%s\",\"object\":", tr_op_name(e->op));
    json_string(out, tr_obj_table(n, e->op)->v[e->obj]);
    fputs(",\"loc\":", out);
    json_opt_string(out, e->loc == TR_NO_LOC ? NULL : n->locs.v[e->loc]);
    fputc('}', out);
}

/* The figures every subcommand prints (text: a few lines; JSON: fields). */
static int print_figures(FILE *out, const input *in, bool json)
{
    const tr_names *n = input_names(in);
    gstats gs = {0};
    if (in->have_grammar && !grammar_stats(&in->g, &gs)) return out_of_memory("");
    uint64_t events = input_events(in);
    if (json) {
        fprintf(out, ",\"events\":%llu,\"threads\":%u,\"locks\":%u,\"variables\":%u,"
                     "\"locations\":%u,\"input\":\"%s\"",
                (unsigned long long)events, n->threads.n, n->locks.n, n->vars.n, n->locs.n,
                in->is_grammar ? "grammar" : "rapid");
        if (in->have_grammar)
            fprintf(out, ",\"grammar\":{\"terminals\":%u,\"rules\":%u,\"symbols\":%llu,"
                         "\"size\":%llu,\"ratio\":%.6g,\"depth\":%u}",
                    in->g.nterms, in->g.nrules, (unsigned long long)gs.symbols,
                    (unsigned long long)in->g.nterms + in->g.nrules, ratio(events, gs.symbols),
                    gs.depth);
        else
            fputs(",\"grammar\":null", out);
        return 0;
    }
    fprintf(out, "events: %llu\nthreads: %u\nlocks: %u\nvariables: %u\nlocations: %u\n",
            (unsigned long long)events, n->threads.n, n->locks.n, n->vars.n, n->locs.n);
    if (in->have_grammar)
        fprintf(out, "grammar: %u terminals, %u rules, %llu symbols in the rule bodies "
                     "(size %llu)\ncompression ratio: %.2f (events per symbol)\ndepth: %u\n",
                in->g.nterms, in->g.nrules, (unsigned long long)gs.symbols,
                (unsigned long long)in->g.nterms + in->g.nrules, ratio(events, gs.symbols),
                gs.depth);
    return 0;
}

static void print_times(FILE *out, const input *in, double analysis, bool json)
{
    if (json) {
        fprintf(out, ",\"seconds\":{\"read\":%.6f,\"compress\":%.6f,\"analysis\":%.6f}",
                in->read_s, in->compress_s, analysis < 0 ? 0.0 : analysis);
        return;
    }
    fprintf(out, "time: read %.6f s, compress %.6f s", in->read_s, in->compress_s);
    if (analysis >= 0) fprintf(out, ", analysis %.6f s", analysis);
    fputc('\n', out);
}

/* ---- the subcommands ------------------------------------------------------------------ */

/* --uncompressed walks a grammar's events one by one, a few ns each: past
 * 10^12 (hours) it refuses */
#define MAX_WALK 1000000000000ull

typedef struct opts {
    int cmd;
    bool uncompressed, vc, json;
    const char *file, *out;
} opts;

static int cmd_analysis(const opts *o, input *in)
{
    bool race = o->cmd == CMD_RACE;
    int rc = input_check(in);
    if (!rc && !o->uncompressed) rc = input_compress(in); /* read compressed: a no-op */
    if (!rc && in->have_grammar) rc = input_lengths(in);
    if (rc) return rc;
    uint64_t nev = input_events(in);
    if (o->uncompressed && nev > MAX_WALK) {
        fprintf(stderr, "mcheck: error: --uncompressed: the trace has %llu%s events, too many "
                        "to walk one by one (at most 10^12; the analyses on the grammar never "
                        "expand it)\n", (unsigned long long)nev, nev == UINT64_MAX ? " or more" : "");
        return 3;
    }
    const char *how = race ? (!o->uncompressed ? "ziptrack-hb" : o->vc ? "vector-clocks" : "goldilocks")
                           : (!o->uncompressed ? "ziptrack-lockset" : "eraser");
    tr_race rr = {0};
    tr_violation vv = {0};
    double t0 = now();
    bool ok;
    /* --uncompressed: the stream of a RAPID file in memory, or the
     * grammar's walked in order (never stored) */
    bool t = in->have_trace;
    if (race && !o->uncompressed)
        ok = tr_slp_race(&in->g, &rr);
    else if (race && o->vc)
        ok = t ? tr_race_vc(&in->t, &rr) : tr_race_vc_slp(&in->g, &rr);
    else if (race)
        ok = t ? tr_race_goldilocks(&in->t, &rr) : tr_race_goldilocks_slp(&in->g, &rr);
    else if (!o->uncompressed)
        ok = tr_slp_lockset(&in->g, &vv);
    else
        ok = t ? tr_lockset(&in->t, &vv) : tr_lockset_slp(&in->g, &vv);
    double analysis = now() - t0;
    if (!ok) return out_of_memory("in the analysis");
    const tr_names *n = input_names(in);
    const tr_event *e1 = NULL, *e2 = NULL;
    bool found = race ? rr.found : vv.found;
    uint64_t first = race ? rr.first : vv.first, second = race ? rr.second : vv.second;
    if (found) {
        e1 = input_event(in, first);
        e2 = input_event(in, second);
        if (!e1 || !e2) {
            fprintf(stderr, "mcheck: error: internal: the events %llu and %llu are "
                            "beyond the trace\n", (unsigned long long)first + 1,
                    (unsigned long long)second + 1);
            return 2;
        }
    }
    FILE *out = stdout;
    if (o->json) {
        fprintf(out, "{\"command\":\"%s\",\"file\":", cmd_names[o->cmd]);
        json_string(out, in->path);
        fprintf(out, ",\"analysis\":\"%s\",\"verdict\":\"%s\"", how,
                race ? (found ? "race" : "no race") : (found ? "violation" : "no violation"));
        if (race && found) {
            fputs(",\"race\":{\"variable\":", out);
            json_string(out, n->vars.v[e1->obj]);
            fputs(",\"first\":", out);
            json_event(out, n, rr.first, e1);
            fputs(",\"second\":", out);
            json_event(out, n, rr.second, e2);
            fputc('}', out);
        } else if (found) {
            fputs(",\"violation\":{\"variable\":", out);
            json_string(out, n->vars.v[vv.var]);
            fputs(",\"first\":", out);
            json_event(out, n, vv.first, e1);
            fputs(",\"second\":", out);
            json_event(out, n, vv.second, e2);
            fputc('}', out);
        }
        if ((rc = print_figures(out, in, true))) return rc;
        print_times(out, in, analysis, true);
        fputs("}\n", out);
        return found ? 1 : 0;
    }
    if (race && found) {
        fprintf(out, "verdict: race\nrace on '%s' between\n", n->vars.v[e1->obj]);
        text_event(out, n, rr.first, e1);
        text_event(out, n, rr.second, e2);
    } else if (race) {
        fputs("verdict: no race\n", out);
    } else if (found) {
        fprintf(out, "verdict: lockset violation\nviolation on '%s': its accesses share no lock "
                     "(nor read-only or thread-local use);\nthe common lockset became empty at\n",
                n->vars.v[vv.var]);
        text_event(out, n, vv.second, e2);
        fputs("and the accesses up to this one already share none with it\n", out);
        text_event(out, n, vv.first, e1);
    } else {
        fputs("verdict: no lockset violation\n", out);
    }
    fprintf(out, "analysis: %s on the %s\n", how, o->uncompressed ? "expanded trace" : "grammar");
    if ((rc = print_figures(out, in, false))) return rc;
    print_times(out, in, analysis, false);
    return found ? 1 : 0;
}

static int cmd_stats(const opts *o, input *in)
{
    int rc = input_compress(in);
    if (!rc) rc = input_lengths(in);
    if (rc) return rc;
    if (o->json) {
        fputs("{\"command\":\"stats\",\"file\":", stdout);
        json_string(stdout, in->path);
        if ((rc = print_figures(stdout, in, true))) return rc;
        print_times(stdout, in, -1, true);
        fputs("}\n", stdout);
        return 0;
    }
    if ((rc = print_figures(stdout, in, false))) return rc;
    print_times(stdout, in, -1, false);
    return 0;
}

typedef struct expand_ctx {
    FILE *out;
    const tr_names *n;
} expand_ctx;

static bool write_event(void *ctx, uint64_t pos, const tr_event *e)
{
    expand_ctx *x = ctx;
    tr_write_rapid(x->out, x->n, e);
    return (pos & 0xFFFF) || !ferror(x->out);
}

static int cmd_expand(input *in)
{
    expand_ctx x = {stdout, input_names(in)};
    if (in->have_trace) {
        for (uint64_t i = 0; i < in->t.n; i++) write_event(&x, i, &in->t.ev[i]);
    } else if (!tr_slp_each(&in->g, write_event, &x) && !ferror(stdout)) {
        return out_of_memory("expanding the grammar");
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mcheck: error: cannot write the events: %s\n", strerror(errno));
        return 2;
    }
    return 0;
}

static int cmd_compress(const opts *o, input *in)
{
    int rc = input_compress(in);
    if (!rc) rc = input_lengths(in);
    if (rc) return rc;
    double t0 = now();
    FILE *f = fopen(o->out, "w");
    if (!f) {
        fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", o->out, strerror(errno));
        return 2;
    }
    bool ok = tr_slp_write(f, &in->g);
    int err = ok ? 0 : errno ? errno : EIO;
    if (fclose(f) != 0 && ok) {
        ok = false;
        err = errno ? errno : EIO;
    }
    if (!ok) {
        fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", o->out, strerror(err));
        return 2;
    }
    double write_s = now() - t0;
    if (o->json) {
        fputs("{\"command\":\"compress\",\"file\":", stdout);
        json_string(stdout, in->path);
        fputs(",\"output\":", stdout);
        json_string(stdout, o->out);
        if ((rc = print_figures(stdout, in, true))) return rc;
        print_times(stdout, in, -1, true);
        fprintf(stdout, ",\"write_seconds\":%.6f}\n", write_s);
        return 0;
    }
    fprintf(stdout, "wrote %s\n", o->out);
    if ((rc = print_figures(stdout, in, false))) return rc;
    print_times(stdout, in, -1, false);
    return 0;
}

/* ---- main ---------------------------------------------------------------------------- */

enum { TOPT_UNCOMPRESSED = 256, TOPT_VC, TOPT_JSON, TOPT_HELP };

int trace_main(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"uncompressed", no_argument, 0, TOPT_UNCOMPRESSED},
        {"vc", no_argument, 0, TOPT_VC},
        {"json", no_argument, 0, TOPT_JSON},
        {"help", no_argument, 0, TOPT_HELP},
        {0, 0, 0, 0},
    };
    opts o = {.cmd = -1};
    if (argc < 2) return trace_bad_usage("mcheck trace: no subcommand given (race, lockset, "
                                         "stats, expand or compress)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        trace_usage(stdout);
        return 0;
    }
    for (int k = 0; k < NCMDS; k++)
        if (!strcmp(argv[1], cmd_names[k])) o.cmd = k;
    if (o.cmd < 0)
        return trace_bad_usage("mcheck trace: unknown subcommand '%s' (expected race, lockset, "
                               "stats, expand or compress)", argv[1]);
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc - 1, argv + 1, ":h", lopts, NULL)) != -1) {
        switch (c) {
        case TOPT_UNCOMPRESSED: o.uncompressed = true; break;
        case TOPT_VC: o.vc = true; break;
        case TOPT_JSON: o.json = true; break;
        case 'h':
        case TOPT_HELP: trace_usage(stdout); return 0;
        case ':': return trace_bad_usage("option '%s' needs a value", argv[optind]);
        default: return trace_bad_usage("unknown option '%s'", argv[optind]);
        }
    }
    int nargs = argc - 1 - optind, want = o.cmd == CMD_COMPRESS ? 2 : 1;
    if (nargs != want)
        return trace_bad_usage("mcheck trace %s: %s", cmd_names[o.cmd],
                               nargs < want ? (want == 2 ? "expected IN and OUT" : "no file given")
                                            : "too many files given");
    o.file = argv[1 + optind];
    if (want == 2) o.out = argv[2 + optind];
    if (o.uncompressed && o.cmd != CMD_RACE && o.cmd != CMD_LOCKSET)
        return trace_bad_usage("--uncompressed applies to race and lockset");
    if (o.vc && (o.cmd != CMD_RACE || !o.uncompressed))
        return trace_bad_usage("--vc applies to race --uncompressed");
    if (o.json && o.cmd == CMD_EXPAND)
        return trace_bad_usage("--json does not apply to expand (its output is RAPID's format)");
    input in = {.path = o.file};
    int rc = input_read(&in, !o.uncompressed && o.cmd != CMD_EXPAND);
    if (!rc) {
        switch (o.cmd) {
        case CMD_RACE:
        case CMD_LOCKSET: rc = cmd_analysis(&o, &in); break;
        case CMD_STATS: rc = cmd_stats(&o, &in); break;
        case CMD_EXPAND: rc = cmd_expand(&in); break;
        default: rc = cmd_compress(&o, &in); break;
        }
    }
    input_free(&in);
    return rc;
}
