/* replay_cli.c: mcheck --replay FILE MODEL, mcheck's SPIN trail replay
 * (spin -t). Reads a --trace-json file or a --json report with Debian's
 * cJSON, applies the options recorded with the error (reduce, race, por,
 * spurious wakeups, max_invisible, -D, --adapt's volatile variables),
 * re-executes its "path" of scheduling decisions through the interpreter
 * (trace_replay(), reduce/replay.c) and says whether the recorded error
 * occurs again, another one, none, or where and why the path cannot be
 * followed. It reads only "path" and the options, never the human-readable
 * "trace" array; it prints with report_text.c's and report_json.c's
 * functions. A lasso (--liveness, --ltl: "cycle_start") has its cycle
 * re-checked: npc's here (lasso_closes()), starvation's and ltl's by the
 * searches' own checks (explore_options.check_lasso). Bad files are usage
 * errors (exit 2), never crashes. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"

/* JSON integers mcheck reads exactly: a double holds every one up to 2^53. */
#define JSON_INT_MAX 9007199254740992.0

/* What the file recorded, merged with the command line. */
typedef struct recorded {
    const char *model;        /* the model the search ran on; NULL: not recorded */
    const char *kind;         /* the recorded error's verdict name and message */
    const char *message;
    explore_step *path;
    uint32_t len;
    explore_options eo;       /* the command line's, with the recorded options */
    bool spurious;
    vm_define *defs;          /* recorded, then the command line's overrides */
    size_t ndefs;
    const cJSON *adapted;     /* names --adapt made volatile; NULL: none */
    bool lasso;               /* a non-progress cycle: "cycle_start" recorded */
    uint32_t cycle_start;
    bool ltl_lasso;           /* an ltl_violated error ("options"."ltl") */
    bool starvation;          /* a starvation error (--liveness=starvation) */
    ltl_automaton *ltl;       /* the recorded formula re-translated (load_model()) */
    int32_t starved;          /* "starved_tid"; -1: by its name "starved" */
    const char *starved_name; /* "starved"; NULL: not recorded */
    explore_adaptation ad;    /* those variables (load_model()), for the report */
} recorded;

static int file_error(const replay_request *rq, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int contradiction(const replay_request *rq, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "mcheck: error: FILE: ...": a file that cannot be replayed (exit 2). */
static int file_error(const replay_request *rq, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mcheck: error: %s: ", rq->file);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* A command-line option that contradicts a recorded one: a usage error. */
static int contradiction(const replay_request *rq, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mcheck: error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (recorded in %s)\nTry 'mcheck --help'.\n", rq->file);
    return 2;
}

/* True if `theirs`, a string cJSON decoded, is `ours` as report_json.c's
 * json_string() wrote it: each byte outside printable ASCII was written as
 * \u00XX, which cJSON decodes to the UTF-8 of U+00XX. */
static bool same_text(const char *ours, const char *theirs)
{
    const unsigned char *a = (const unsigned char *)ours, *b = (const unsigned char *)theirs;
    for (; *a; a++) {
        if (*a < 0x80) {
            if (*b++ != *a) return false;
        } else {
            if (b[0] != (0xc0 | (*a >> 6)) || b[1] != (0x80 | (*a & 0x3f))) return false;
            b += 2;
        }
    }
    return *b == '\0';
}

/* An integer in [lo, hi], exactly. */
static bool json_int(const cJSON *n, double lo, double hi, double *v)
{
    if (!cJSON_IsNumber(n)) return false;
    double d = n->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi) return false;
    *v = d;
    return true;
}

static const cJSON *field(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* --memlimit while cJSON parses: its allocations counted against the
 * limit (cJSON's hooks are process-wide, so this count is too). A block
 * carries its size in front of it. */
static struct {
    size_t used, limit;   /* bytes; limit 0: none */
    bool over, failed;    /* the limit was reached; an allocation failed */
} json_mem;

#define JSON_MEM_HEADER 16 /* keeps malloc's alignment */

static void *json_malloc(size_t n)
{
    if (json_mem.limit && (n > json_mem.limit || json_mem.used > json_mem.limit - n)) {
        json_mem.over = json_mem.failed = true;
        return NULL;
    }
    unsigned char *b = n < SIZE_MAX - JSON_MEM_HEADER ? malloc(n + JSON_MEM_HEADER) : NULL;
    if (!b) {
        json_mem.failed = true;
        return NULL;
    }
    memcpy(b, &n, sizeof n);
    json_mem.used += n;
    return b + JSON_MEM_HEADER;
}

static void json_free(void *q)
{
    if (!q) return;
    unsigned char *b = (unsigned char *)q - JSON_MEM_HEADER;
    size_t n;
    memcpy(&n, b, sizeof n);
    json_mem.used -= n;
    free(b);
}

/* The file parsed, or NULL after an error message (*status: its exit). */
static cJSON *parse_file(const replay_request *rq, int *status)
{
    size_t len;
    bool nomem;
    *status = 2;
    char *buf = tool_read_file(rq->file, &len, &nomem);
    if (!buf) {
        if (nomem) {
            fprintf(stderr, "mcheck: error: out of memory reading '%s'\n", rq->file);
            *status = 3;
        } else {
            fprintf(stderr, "mcheck: error: cannot read '%s': %s\n", rq->file, strerror(errno));
        }
        return NULL;
    }
    const char *end = NULL;
    json_mem.limit = rq->eo->memlimit > len ? (size_t)(rq->eo->memlimit - len) : 1;
    if (!rq->eo->memlimit) json_mem.limit = 0;
    json_mem.over = json_mem.failed = false;
    cJSON_Hooks hooks = {.malloc_fn = json_malloc, .free_fn = json_free};
    cJSON_InitHooks(&hooks);
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, false);
    if (json_mem.failed) {
        if (json_mem.over)
            fprintf(stderr, "mcheck: error: memory limit reached reading %s (--memlimit %" PRIu64
                            " MB)\n", rq->file, rq->eo->memlimit >> 20);
        else
            fprintf(stderr, "mcheck: error: out of memory reading %s\n", rq->file);
        cJSON_Delete(root);
        free(buf);
        *status = 3;
        return NULL;
    }
    size_t at = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : len;
    if (root) /* only white space may follow the value */
        while (at < len && strchr(" \t\r\n", buf[at])) at++;
    if (!root || at < len) {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < at; i++, col++)
            if (buf[i] == '\n') line++, col = 0;
        if (len == 0)
            fprintf(stderr, "mcheck: error: %s is empty, not a --trace-json file\n", rq->file);
        else
            fprintf(stderr, "mcheck: error: %s is not JSON: %s at line %zu, column %zu\n",
                    rq->file, root ? "text after the value" : "unexpected text", line, col);
        cJSON_Delete(root);
        free(buf);
        return NULL;
    }
    free(buf);
    return root;
}

/* The error to replay and the object that records its options: a
 * --trace-json file is both; a --json report holds them apart. */
static int pick_error(const replay_request *rq, const cJSON *root, const cJSON **er,
                      const cJSON **ctx)
{
    if (cJSON_IsNull(root))
        return file_error(rq, "no error to replay (null: the search that wrote it found none)");
    if (!cJSON_IsObject(root))
        return file_error(rq, "not a --trace-json file or --json report (expected an object)");
    const cJSON *errors = field(root, "errors");
    *ctx = root;
    if (errors) {
        unsigned long long k = rq->error ? rq->error : 1;
        if (!cJSON_IsArray(errors)) return file_error(rq, "\"errors\" is not an array");
        int n = cJSON_GetArraySize(errors);
        if (n == 0)
            return file_error(rq, "the report has no error to replay (verdict %s)",
                              cJSON_IsString(field(root, "verdict"))
                                  ? field(root, "verdict")->valuestring : "?");
        if (k > (unsigned long long)n)
            return file_error(rq, "--replay-error %llu, but the report has %d error%s", k, n,
                              n == 1 ? "" : "s");
        *er = cJSON_GetArrayItem(errors, (int)(k - 1));
        if (!cJSON_IsObject(*er)) return file_error(rq, "error %llu is not an object", k);
        return 0;
    }
    if (!field(root, "path") && !field(root, "kind"))
        return file_error(rq, "not a --trace-json file or --json report (no \"path\", no "
                              "\"errors\")");
    if (rq->error > 1)
        return file_error(rq, "--replay-error %llu: a --trace-json file holds one error",
                          rq->error);
    *er = root;
    return 0;
}

/* The recorded path, checked: [[tid, choice], ...]. */
static int read_path(const replay_request *rq, const cJSON *er, recorded *r)
{
    const cJSON *path = field(er, "path"), *step;
    if (!path)
        return file_error(rq, "the error has no \"path\" (written before mcheck could replay "
                              "traces: search again with --trace-json)");
    if (!cJSON_IsArray(path)) return file_error(rq, "\"path\" is not an array");
    uint64_t n = 0;
    cJSON_ArrayForEach(step, path) n++;
    if (n >= UINT32_MAX) return file_error(rq, "\"path\" has %" PRIu64 " steps, too many", n);
    r->path = malloc((n ? n : 1) * sizeof *r->path);
    if (!r->path) {
        fprintf(stderr, "mcheck: error: out of memory reading the path of %s\n", rq->file);
        return 3;
    }
    uint32_t i = 0;
    cJSON_ArrayForEach(step, path) {
        double tid, choice;
        if (!cJSON_IsArray(step) || cJSON_GetArraySize(step) != 2)
            return file_error(rq, "\"path\" step %" PRIu32 " is not a [thread, choice] pair",
                              i + 1);
        if (!json_int(step->child, 0, INT32_MAX, &tid))
            return file_error(rq, "\"path\" step %" PRIu32 ": the thread is not a thread id "
                                  "(an integer from 0 to %d)", i + 1, INT32_MAX);
        if (!json_int(step->child->next, 0, JSON_INT_MAX, &choice))
            return file_error(rq, "\"path\" step %" PRIu32 ": the choice is not an integer "
                                  "from 0 to 2^53", i + 1);
        r->path[i].tid = (int32_t)tid;
        r->path[i].choice = (uint64_t)choice;
        i++;
    }
    r->len = i;
    const cJSON *cs = field(er, "cycle_start");
    r->ltl_lasso = !strcmp(r->kind, verdict_name(VERDICT_LTL));
    r->starvation = !strcmp(r->kind, verdict_name(VERDICT_STARVATION));
    if (!cs && (r->ltl_lasso || r->starvation))
        return file_error(rq, "the %s error has no \"cycle_start\" (its path is a lasso)", r->kind);
    if (cs) { /* --liveness or --ltl: the path is a lasso */
        double k;
        /* --ltl: cycle_start == len, the last state repeats forever */
        if (r->ltl_lasso && (!json_int(cs, 0, (double)r->len, &k)))
            return file_error(rq, "\"cycle_start\" must be a step count from 0 to the path's "
                                  "length");
        if (!r->ltl_lasso && (!json_int(cs, 0, (double)(r->len ? r->len - 1 : 0), &k) || !r->len))
            return file_error(rq, "\"cycle_start\" must be a step count below the path's length");
        r->lasso = true;
        r->cycle_start = (uint32_t)k;
    }
    r->starved = -1;
    if (r->starvation) { /* the starved thread: its id, or (older files) its name */
        const cJSON *tid = field(er, "starved_tid"), *name = field(er, "starved");
        double v;
        if (tid && !json_int(tid, 0, INT32_MAX, &v))
            return file_error(rq, "\"starved_tid\" is not a thread id (an integer from 0 to %d)",
                              INT32_MAX);
        if (name && !cJSON_IsString(name)) return file_error(rq, "\"starved\" is not a string");
        if (!tid && !name)
            return file_error(rq, "the starvation error has no \"starved_tid\" or \"starved\" "
                                  "(the starved thread)");
        if (tid) r->starved = (int32_t)v;
        r->starved_name = name ? name->valuestring : NULL;
    }
    return 0;
}

/* A recorded enumerated option; contradicted when given otherwise. */
static int read_name(const replay_request *rq, const cJSON *opts, const char *key,
                     const name_value *t, bool set, int *value)
{
    const cJSON *v = field(opts, key);
    char expected[128];
    int rec;
    if (!v) return 0; /* not recorded: the command line's, or the default */
    if (!cJSON_IsString(v) || !name_parse(t, v->valuestring, &rec)) {
        name_expected(t, expected, sizeof expected);
        return file_error(rq, "\"options\".\"%s\" must be %s", key, expected);
    }
    if (set && rec != *value)
        return contradiction(rq, "--%s=%s contradicts the trace's %s=%s", key,
                             name_of(t, *value), key, v->valuestring);
    *value = rec;
    return 0;
}

static int read_bool(const replay_request *rq, const cJSON *opts, const char *key, bool set,
                     const char *given, bool *value)
{
    const cJSON *v = field(opts, key);
    if (!v) return 0;
    if (!cJSON_IsBool(v)) return file_error(rq, "\"options\".\"%s\" must be true or false", key);
    bool rec = cJSON_IsTrue(v);
    if (set && rec != *value)
        return contradiction(rq, "%s contradicts the trace's %s=%s", given, key,
                             rec ? "true" : "false");
    *value = rec;
    return 0;
}

/* The -D overrides: the recorded ones, each replaced by the command line's
 * of the same name, then the command line's other ones. */
static int read_defines(const replay_request *rq, const cJSON *defs, recorded *r)
{
    const cJSON *d;
    size_t n = rq->ndefs;
    if (defs && !cJSON_IsArray(defs))
        return file_error(rq, "\"options\".\"defines\" is not an array");
    cJSON_ArrayForEach(d, defs) n++;
    r->defs = calloc(n ? n : 1, sizeof *r->defs);
    if (!r->defs) {
        fprintf(stderr, "mcheck: error: out of memory\n");
        return 3;
    }
    cJSON_ArrayForEach(d, defs) {
        const cJSON *name = field(d, "name");
        double v;
        if (!cJSON_IsObject(d) || !cJSON_IsString(name) || !name->valuestring[0] ||
            !json_int(field(d, "value"), INT32_MIN, INT32_MAX, &v))
            return file_error(rq, "\"options\".\"defines\" item %zu is not "
                                  "{\"name\": NAME, \"value\": a 32-bit integer}", r->ndefs + 1);
        r->defs[r->ndefs++] = (vm_define){.name = name->valuestring, .value = (int32_t)v};
    }
    size_t nrec = r->ndefs;
    for (size_t i = 0; i < rq->ndefs; i++) {
        size_t k = 0;
        while (k < nrec && strcmp(r->defs[k].name, rq->defs[i].name)) k++;
        if (k < nrec)
            r->defs[k].value = rq->defs[i].value; /* the command line's -D wins */
        else
            r->defs[r->ndefs++] = rq->defs[i];
    }
    return 0;
}

/* The options recorded in ctx (a --trace-json file's error, or a report),
 * over the command line's; a command-line option that contradicts one is a
 * usage error. Missing fields keep the command line's value or default. */
static int read_options(const replay_request *rq, const cJSON *ctx, recorded *r)
{
    const cJSON *opts = field(ctx, "options"), *model = field(ctx, "model");
    int e, rc;
    r->eo = *rq->eo;
    r->spurious = rq->spurious;
    if (model && !cJSON_IsString(model)) return file_error(rq, "\"model\" is not a string");
    r->model = model ? model->valuestring : NULL;
    if (opts && !cJSON_IsObject(opts)) return file_error(rq, "\"options\" is not an object");
    e = (int)r->eo.reduce;
    if ((rc = read_name(rq, opts, "reduce", reduce_names(), rq->reduce_set, &e))) return rc;
    r->eo.reduce = (reduce_mode)e;
    e = (int)r->eo.race;
    if ((rc = read_name(rq, opts, "race", race_names(), rq->race_set, &e))) return rc;
    r->eo.race = (ls_kind)e;
    if ((rc = read_bool(rq, opts, "por", rq->por_set, r->eo.por ? "--por" : "--por=off",
                        &r->eo.por)))
        return rc;
    if ((rc = read_bool(rq, opts, "spurious_wakeups", rq->spurious, "--spurious-wakeups",
                        &r->spurious)))
        return rc;
    const cJSON *mi = field(opts, "max_invisible");
    if (mi) {
        double v;
        if (!json_int(mi, 1, JSON_INT_MAX, &v))
            return file_error(rq, "\"options\".\"max_invisible\" must be a number of steps from 1");
        if (rq->max_invisible_set && (uint64_t)v != r->eo.max_invisible)
            return contradiction(rq, "--max-invisible %" PRIu64 " contradicts the trace's "
                                     "max_invisible=%" PRIu64, r->eo.max_invisible, (uint64_t)v);
        r->eo.max_invisible = (uint64_t)v;
    }
    if (r->eo.por && r->eo.reduce != REDUCE_COMPOSE)
        return file_error(rq, "\"options\": por needs reduce=compose");
    const cJSON *lv = field(opts, "liveness"), *fair = field(opts, "fair"), *ltl = field(opts, "ltl");
    if (lv && (!cJSON_IsString(lv) || (strcmp(lv->valuestring, "npc") &&
                                       strcmp(lv->valuestring, "starvation"))))
        return file_error(rq, "\"options\".\"liveness\" must be \"npc\" or \"starvation\"");
    if (lv) r->eo.liveness = strcmp(lv->valuestring, "npc") ? LIVENESS_STARVATION : LIVENESS_NPC;
    if (r->starvation && r->eo.liveness != LIVENESS_STARVATION)
        return file_error(rq, "\"options\".\"liveness\" must be \"starvation\" for a "
                              "starvation error");
    if (fair && !cJSON_IsBool(fair))
        return file_error(rq, "\"options\".\"fair\" must be true or false");
    r->eo.fair = cJSON_IsTrue(fair);
    if (r->eo.fair && r->eo.liveness != LIVENESS_STARVATION)
        return file_error(rq, "\"options\": fair needs liveness=starvation");
    if (ltl && (!cJSON_IsString(ltl) || !ltl->valuestring[0]))
        return file_error(rq, "\"options\".\"ltl\" must be a formula (a string)");
    if (ltl && lv) return file_error(rq, "\"options\": ltl and liveness are separate searches");
    r->eo.ltl_text = ltl ? ltl->valuestring : NULL;
    if (r->ltl_lasso && !ltl)
        return file_error(rq, "\"options\".\"ltl\" is missing: an ltl_violated error is "
                              "replayed with its formula");
    if (r->eo.liveness == LIVENESS_STARVATION && r->eo.por)
        return file_error(rq, "\"options\": por cannot be used with liveness=starvation");
    if ((rc = read_defines(rq, field(opts, "defines"), r))) return rc;
    r->adapted = field(ctx, "adapted");
    if (r->adapted && !cJSON_IsArray(r->adapted))
        return file_error(rq, "\"adapted\" is not an array of variable names");
    return 0;
}

/* The model, assembled with the recorded -D overrides, wakeups and the
 * variables --adapt made volatile; NULL after a message (*status). */
static vm_program *load_model(const replay_request *rq, recorded *r, int *status)
{
    size_t len;
    bool nomem;
    int nerr = 0;
    char *src = tool_read_file(rq->model, &len, &nomem);
    *status = nomem ? 3 : 2;
    if (!src) {
        if (nomem)
            fprintf(stderr, "mcheck: error: out of memory\n");
        else
            fprintf(stderr, "mcheck: error: cannot read '%s': %s\n", rq->model, strerror(errno));
        return NULL;
    }
    vm_program *p = vm_assemble(rq->model, src, len, r->defs, r->ndefs, stderr, &nerr);
    free(src);
    if (!p) {
        *status = nerr < 0 ? 3 : 2;
        if (r->ndefs) { /* the file's -D overrides may be what the model rejects */
            fprintf(stderr, "mcheck: note: the -D overrides of the replay:");
            for (size_t i = 0; i < r->ndefs; i++)
                fprintf(stderr, " %s=%" PRId32, r->defs[i].name, r->defs[i].value);
            fprintf(stderr, " (recorded in %s, then the command line's)\n", rq->file);
        }
        return NULL;
    }
    p->spurious_wakeups = r->spurious;
    if (r->eo.liveness) vm_mark_progress(p); /* as the search had it */
    if (r->eo.ltl_text) { /* the props' points visible, the formula re-translated */
        char err[256];
        vm_mark_props(p);
        if (!(r->ltl = ltl_translate(r->eo.ltl_text, p, err, sizeof err))) {
            *status = file_error(rq, "\"options\".\"ltl\": %s", err);
            vm_program_free(p);
            return NULL;
        }
        r->eo.ltl = r->ltl;
    }
    const cJSON *name;
    uint32_t nadapted = 0;
    cJSON_ArrayForEach(name, r->adapted) nadapted++;
    r->ad.vars = calloc(nadapted ? nadapted : 1, sizeof *r->ad.vars);
    if (!r->ad.vars) {
        fprintf(stderr, "mcheck: error: out of memory\n");
        *status = 3;
        vm_program_free(p);
        return NULL;
    }
    r->ad.runs = 1;
    cJSON_ArrayForEach(name, r->adapted) { /* --adapt's volatile variables, in order */
        uint32_t v = 0;
        while (cJSON_IsString(name) && v < p->nvars && strcmp(p->vars[v].name, name->valuestring))
            v++;
        if (!cJSON_IsString(name) || v == p->nvars) {
            *status = file_error(rq, "\"adapted\": %s%s%s is not a variable of %s",
                                 cJSON_IsString(name) ? "'" : "",
                                 cJSON_IsString(name) ? name->valuestring : "an item",
                                 cJSON_IsString(name) ? "'" : "", rq->model);
            vm_program_free(p);
            return NULL;
        }
        vm_make_volatile(p, v);
        r->ad.vars[r->ad.nvars++].var = v;
    }
    return p;
}

/* Why step `k` (from 1) of the path cannot run in `s`, the state before it. */
static void why_stuck(const vm_program *p, const uint8_t *s, const explore_step *st, uint32_t k,
                      char *buf, size_t n)
{
    char name[64], why[192];
    size_t at;
    if ((uint32_t)st->tid >= p->nthreads) {
        snprintf(buf, n, "step %" PRIu32 ": the model has no thread %" PRId32 " (it has %" PRIu32
                 " thread slots)", k, st->tid, p->nthreads);
        return;
    }
    vm_thread_name(p, s, st->tid, name, sizeof name);
    enum vm_tstatus ts = vm_tstatus_of(p, s, st->tid);
    uint64_t en = vm_enabled(p, s, st->tid);
    if (ts == VM_T_UNUSED) {
        snprintf(buf, n, "step %" PRIu32 ": thread %" PRId32 " was never spawned", k, st->tid);
    } else if (ts == VM_T_ENDED) {
        snprintf(buf, n, "step %" PRIu32 ": %s has ended", k, name);
    } else if (en == 0) {
        vm_describe_block(p, s, st->tid, why, sizeof why);
        snprintf(buf, n, "step %" PRIu32 ": %s cannot move (%s)", k, name, why);
    } else {
        snprintf(buf, n, "step %" PRIu32 ": %s has %" PRIu64 " choice%s here (0 to %" PRIu64
                 "), the trace takes choice %" PRIu64, k, name, en, en == 1 ? "" : "s", en - 1,
                 st->choice);
        return;
    }
    bool any = false;
    for (uint32_t i = 0; i < p->nthreads && !any; i++) any = vm_enabled(p, s, (int)i) > 0;
    at = strlen(buf);
    if (!any && at < n)
        snprintf(buf + at, n - at, "; no thread can move after step %" PRIu32 "%s", k - 1,
                 vm_valid_end(p, s) ? " (a valid end state)" : ": a deadlock");
}

typedef enum outcome {
    OUT_REPRODUCED,   /* the recorded error at the path's end */
    OUT_EARLIER,      /* the recorded error, before the path's end */
    OUT_DIFFERENT,    /* another error */
    OUT_NO_ERROR,     /* the path followed to its end, no error */
    OUT_DIVERGED,     /* a step could not run */
    OUT_STOPPED,      /* --timelimit, --memlimit or an interrupt stopped it */
} outcome;

static const char *const outcome_names[] = {
    [OUT_REPRODUCED] = "reproduced", [OUT_EARLIER] = "reproduced_earlier",
    [OUT_DIFFERENT] = "different_error", [OUT_NO_ERROR] = "no_error",
    [OUT_DIVERGED] = "diverged", [OUT_STOPPED] = "stopped",
};

/* The sentence that ends the text report (not for OUT_DIVERGED). */
static void outcome_text(FILE *out, outcome oc, const recorded *r, const explore_error *end,
                         const trace *t)
{
    switch (oc) {
    case OUT_STOPPED:
        fprintf(out, "replay: stopped by %s after %" PRIu64 " instructions, at step %" PRIu32
                     " of %" PRIu32 ": incomplete, neither reproduced nor refuted\n",
                report_stop_option(t->stopped), t->instructions,
                t->n ? t->entries[t->n - 1].step : 0, r->len);
        break;
    case OUT_REPRODUCED:
        fprintf(out, "replay: reproduced (%s) after %" PRIu32 " step%s\n", end->msg, end->len,
                end->len == 1 ? "" : "s");
        break;
    case OUT_EARLIER:
        fprintf(out, "replay: reproduced (%s) at step %" PRIu32 ", before the trace's last "
                     "step %" PRIu32 "\n", end->msg, end->len, r->len);
        break;
    case OUT_DIFFERENT:
        fprintf(out, "replay: a different error: %s (%s) at step %" PRIu32 "; the trace "
                     "recorded %s (%s) after %" PRIu32 " step%s\n",
                verdict_name(end->kind), end->msg, end->len, r->kind, r->message, r->len,
                r->len == 1 ? "" : "s");
        break;
    case OUT_NO_ERROR:
        fprintf(out, "replay: the trace replays to its end (%" PRIu32 " step%s), but no error "
                     "occurs: the model no longer has the recorded %s (%s) on this path\n",
                r->len, r->len == 1 ? "" : "s", r->kind, r->message);
        break;
    case OUT_DIVERGED:
        break;
    }
}

static void json_define_list(FILE *out, const recorded *r)
{
    fprintf(out, "[");
    for (size_t i = 0; i < r->ndefs; i++) {
        fprintf(out, "%s{\"name\":", i ? "," : "");
        json_string(out, r->defs[i].name);
        fprintf(out, ",\"value\":%" PRId32 "}", r->defs[i].value);
    }
    fprintf(out, "]");
}

/* --json: one object, the replayed error as report_trace_file_json()
 * writes it (itself replayable). */
static void outcome_json(FILE *out, const replay_request *rq, const recorded *r,
                         const vm_program *p, const trace *t, outcome oc,
                         const explore_error *er, const char *why, const report_run *run)
{
    char name[64];
    fprintf(out, "{\"mcheck\":\"%s\",\"replay\":", VM_VERSION);
    json_string(out, rq->file);
    fprintf(out, ",\"model\":");
    json_string(out, rq->model);
    fprintf(out, ",\"recorded_model\":");
    if (r->model) json_string(out, r->model); else fprintf(out, "null");
    fprintf(out, ",\"options\":{\"reduce\":\"%s\",\"race\":\"%s\",\"por\":%s,"
                 "\"spurious_wakeups\":%s,\"max_invisible\":%" PRIu64 ",\"defines\":",
            reduce_mode_name(r->eo.reduce), race_mode_name(r->eo.race),
            r->eo.por ? "true" : "false", r->spurious ? "true" : "false", r->eo.max_invisible);
    json_define_list(out, r);
    if (r->eo.liveness) /* only then, as the search's report */
        fprintf(out, ",\"liveness\":\"%s\"", r->eo.liveness == LIVENESS_NPC ? "npc" : "starvation");
    if (r->eo.fair) fprintf(out, ",\"fair\":true");
    if (r->eo.ltl_text) {
        fprintf(out, ",\"ltl\":");
        json_string(out, r->eo.ltl_text);
    }
    fprintf(out, "},\"recorded\":{\"kind\":");
    json_string(out, r->kind);
    fprintf(out, ",\"message\":");
    json_string(out, r->message);
    fprintf(out, ",\"steps\":%" PRIu32 "},\"outcome\":\"%s\",\"verdict\":\"%s\"", r->len,
            outcome_names[oc],
            verdict_name(oc == OUT_STOPPED ? VERDICT_INCOMPLETE : er ? er->kind : VERDICT_OK));
    if (oc == OUT_STOPPED) fprintf(out, ",\"stopped\":\"%s\"", stop_reason_name(t->stopped));
    fprintf(out, ",\"steps_followed\":%" PRIu32 ",\"divergence\":",
            oc == OUT_DIVERGED ? t->stuck - 1 : t->end.len);
    if (oc == OUT_DIVERGED) {
        const explore_step *st = &r->path[t->stuck - 1];
        fprintf(out, "{\"step\":%" PRIu32 ",\"tid\":%" PRId32 ",\"thread\":", t->stuck, st->tid);
        if ((uint32_t)st->tid < p->nthreads &&
            vm_tstatus_of(p, t->final_state, st->tid) != VM_T_UNUSED) {
            vm_thread_name(p, t->final_state, st->tid, name, sizeof name);
            json_string(out, name);
        } else {
            fprintf(out, "null");
        }
        fprintf(out, ",\"choice\":%" PRIu64 ",\"reason\":", st->choice);
        json_string(out, why);
        fprintf(out, "}");
    } else {
        fprintf(out, "null");
    }
    fprintf(out, ",\"error\":");
    if (er)
        report_trace_file_json(out, run, p, er, t);
    else
        fprintf(out, "null");
    fprintf(out, "}\n");
}

/* A lasso's replay (trace_replay_states()): the state (vm part) after the
 * whole path equals the state after its first cycle_start steps, and no
 * step of the cycle executes a progress-labelled instruction. */
static bool lasso_closes(const vm_program *p, const recorded *r, const trace *t)
{
    /* with --por the states start at step 0, the folded starts */
    const uint8_t *at = report_state_after(p, t, r->cycle_start);
    const uint8_t *end = report_state_after(p, t, r->len);
    if (!at && r->cycle_start == 0 && t->states_from == 1) at = p->init_state;
    if (!at || !end) return false;
    for (uint32_t i = 0; i < t->n; i++) {
        const trace_entry *e = &t->entries[i];
        const vm_body *b = vm_thread_body(p, t->final_state, e->tid);
        if (e->first && e->step > r->cycle_start && b && e->pc < b->ncode &&
            b->code[e->pc].progress_label)
            return false;
    }
    return memcmp(at, end, p->layout.size) == 0;
}

/* A starvation or ltl lasso whose path replayed without an error: the
 * search's own check of it (explore_options.check_lasso, starvation.c's and
 * ltl_search.c's lasso_holds()). *er gets the error it records, if any;
 * *stop how the check ended (a limit: STOP_TIMELIMIT...). 0, or the exit
 * status after a message. */
static int check_lasso(const replay_request *rq, const recorded *r, const vm_program *p,
                       const trace *t, explore_error *er, stop_reason *stop)
{
    char name[64];
    explore_lasso l = {.path = r->path, .len = r->len, .cycle_start = r->cycle_start,
                       .starved = r->starved};
    for (uint32_t u = 0; r->starvation && l.starved < 0 && u < p->nthreads; u++) {
        if (vm_tstatus_of(p, t->final_state, (int)u) == VM_T_UNUSED) continue;
        vm_thread_name(p, t->final_state, (int)u, name, sizeof name);
        if (!strcmp(name, r->starved_name)) l.starved = (int32_t)u;
    }
    if (r->starvation && l.starved < 0)
        return file_error(rq, "\"starved\": no thread '%s' on the replayed path",
                          r->starved_name);
    explore_options o = r->eo;
    o.search = SEARCH_DFS;
    o.workers = 0;
    o.all_errors = false;
    o.max_depth = 0;
    o.max_states = 0;
    o.target = NULL;
    o.progress = o.dump_states = NULL;
    o.check_lasso = &l;
    explore_result res;
    int rc = explore_run(p, &o, &res);
    if (rc != 0) {
        explore_result_free(&res);
        if (rc == EXPLORE_REFUSED) { /* the saved options: a search that has no lasso check */
            char msg[512];
            fprintf(stderr, "mcheck: error: %s: %s\n", rq->file,
                    explore_check(&o, msg, sizeof msg));
            return 2;
        }
        fprintf(stderr, "mcheck: error: out of memory checking the cycle of %s\n", rq->file);
        return 3;
    }
    *stop = res.stop;
    if (res.nerrors) {
        *er = res.errors[0];
        er->path = NULL;
    }
    explore_result_free(&res);
    return 0;
}

/* Replay the path and report; the exit status. */
static int replay_report(const replay_request *rq, recorded *r, vm_program *p)
{
    trace t;
    char why[512] = "";
    bool npc = r->lasso && !r->ltl_lasso && !r->starvation; /* checked here */
    if ((npc ? trace_replay_states(p, &r->eo, r->path, r->len, &t)
             : trace_replay(p, &r->eo, r->path, r->len, &t)) != 0) {
        fprintf(stderr, "mcheck: error: out of memory replaying %s\n", rq->file);
        return 3;
    }
    outcome oc;
    explore_error er = t.end;
    if (r->lasso && !npc && er.kind == VERDICT_OK && !t.stuck && t.stopped == STOP_COMPLETE) {
        stop_reason stop = STOP_COMPLETE;
        int rc = check_lasso(rq, r, p, &t, &er, &stop);
        if (rc) {
            trace_free(&t);
            return rc;
        }
        if (stop != STOP_COMPLETE && stop != STOP_ERROR) t.stopped = stop;
    }
    if (npc && er.kind == VERDICT_OK && !t.stuck && t.stopped == STOP_COMPLETE &&
        lasso_closes(p, r, &t)) { /* the cycle: reproduced */
        er.kind = VERDICT_NON_PROGRESS;
        er.cause = CAUSE_NON_PROGRESS;
        er.tid = -1;
        er.len = r->len;
        er.lasso = true;
        er.cycle_start = r->cycle_start;
        snprintf(er.msg, sizeof er.msg, "%s", r->message);
    }
    if (npc) { /* kept for the check only: the report prints no states */
        free(t.states);
        t.states = NULL;
        t.nstates = 0;
    }
    bool error = er.kind != VERDICT_OK;
    er.path = r->path;
    if (t.stopped != STOP_COMPLETE) { /* a limit: whatever came so far says nothing */
        oc = OUT_STOPPED;
        error = false;
    } else if (t.stuck) {
        oc = OUT_DIVERGED;
        why_stuck(p, t.final_state, &r->path[t.stuck - 1], t.stuck, why, sizeof why);
    } else if (!error) {
        oc = OUT_NO_ERROR;
    } else if (strcmp(verdict_name(er.kind), r->kind) || !same_text(er.msg, r->message)) {
        oc = OUT_DIFFERENT;
    } else {
        oc = er.len == r->len ? OUT_REPRODUCED : OUT_EARLIER;
    }
    t.diverged = false; /* the report says how the replay ended, not the trace */
    report_run run = {.model = rq->model, .eo = &r->eo, .adapt = r->adapted ? &r->ad : NULL,
                      .defs = r->defs, .ndefs = r->ndefs};
    if (rq->json) {
        outcome_json(stdout, rq, r, p, &t, oc, error ? &er : NULL, why, &run);
    } else {
        printf("mcheck %s: replay of %s on %s (reduce=%s%s%s%s%s%s)\n", VM_VERSION, rq->file,
               rq->model, reduce_mode_name(r->eo.reduce), r->eo.por ? "+por" : "",
               r->eo.race != LS_OFF ? ", race=" : "",
               r->eo.race != LS_OFF ? race_mode_name(r->eo.race) : "",
               r->adapted ? ", adapted" : "", r->spurious ? ", spurious-wakeups" : "");
        if (r->eo.liveness) /* the search the trace came from */
            printf("search: --liveness=%s%s\n", r->eo.liveness == LIVENESS_NPC ? "npc" : "starvation",
                   r->eo.fair ? " --fair" : "");
        if (r->eo.ltl_text) printf("search: --ltl '%s'\n", r->eo.ltl_text);
        if (r->model && strcmp(r->model, rq->model))
            printf("note: the trace was recorded on %s\n", r->model);
        if (error) {
            report_error_text(stdout, p, &er, &t, r->adapted != NULL);
        } else {
            report_trace_text(stdout, p, &t, oc == OUT_DIVERGED ? t.stuck - 1
                                             : oc == OUT_STOPPED && t.n ? t.entries[t.n - 1].step
                                                                        : r->len);
        }
        if (oc == OUT_STOPPED) report_trace_stopped_text(stdout, &t);
        outcome_text(stdout, oc, r, &er, &t);
    }
    fflush(stdout);
    if (rq->trace_json && error) {
        FILE *tf = fopen(rq->trace_json, "w");
        if (!tf) {
            fprintf(stderr, "mcheck: error: cannot write '%s': %s\n", rq->trace_json,
                    strerror(errno));
        } else {
            report_trace_file_json(tf, &run, p, &er, &t);
            fprintf(tf, "\n");
            fclose(tf);
        }
    }
    if (oc == OUT_DIVERGED)
        fprintf(stderr, "mcheck: error: %s does not replay on %s: %s\n", rq->file, rq->model, why);
    trace_free(&t);
    return oc == OUT_STOPPED ? 3 : oc == OUT_DIVERGED ? 2 : error ? 1 : 0;
}

int replay_run(const replay_request *rq)
{
    int status = 2;
    recorded r = {0};
    const cJSON *er = NULL, *ctx = NULL, *kind, *message;
    vm_program *p = NULL;
    cJSON *root = parse_file(rq, &status);
    if (!root) return status;
    if ((status = pick_error(rq, root, &er, &ctx))) goto out;
    kind = field(er, "kind");
    message = field(er, "message");
    if (!cJSON_IsString(kind) || !cJSON_IsString(message)) {
        status = file_error(rq, "the error has no \"kind\" and \"message\" strings");
        goto out;
    }
    r.kind = kind->valuestring;
    r.message = message->valuestring;
    if ((status = read_path(rq, er, &r))) goto out;
    if ((status = read_options(rq, ctx, &r))) goto out;
    if (!(p = load_model(rq, &r, &status))) goto out;
    status = replay_report(rq, &r, p);
out:
    vm_program_free(p);
    free(r.path);
    free(r.defs);
    free(r.ad.vars);
    ltl_free(r.ltl);
    cJSON_Delete(root);
    return status;
}
