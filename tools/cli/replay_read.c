/* replay_read.c: the first half of mcheck --replay: the --trace-json file
 * or --json report parsed with Debian's cJSON (its allocations counted
 * against --memlimit), the error to replay picked (--replay-error K), its
 * "path" of scheduling decisions and the options recorded with it (reduce,
 * race, por, spurious wakeups, max_invisible, liveness, ltl, -D, --adapt's
 * volatile variables) read and checked over the command line's, and the
 * model assembled with them. It never reads the human-readable "trace"
 * array. A bad file or an option that contradicts a recorded one is a
 * usage error (exit 2), never a crash. replay_cli.c replays and reports. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

static int contradiction(const replay_request *rq, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "mcheck: error: FILE: ...": a file that cannot be replayed (exit 2). */
int replay_file_error(const replay_request *rq, const char *fmt, ...)
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
    /* JSON has no raw control bytes: between tokens only space, tab, CR and
     * LF, inside strings only escapes (cJSON would take any as whitespace) */
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)buf[i];
        if (b < 0x20 && b != '\t' && b != '\n' && b != '\r') {
            free(buf);
            fprintf(stderr, "mcheck: error: %s is not JSON: control byte 0x%02x at offset %zu\n",
                    rq->file, b, i);
            return NULL;
        }
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
        return replay_file_error(rq, "no error to replay (null: the search that wrote it found none)");
    if (!cJSON_IsObject(root))
        return replay_file_error(rq, "not a --trace-json file or --json report (expected an object)");
    const cJSON *errors = field(root, "errors");
    *ctx = root;
    if (errors) {
        unsigned long long k = rq->error ? rq->error : 1;
        if (!cJSON_IsArray(errors)) return replay_file_error(rq, "\"errors\" is not an array");
        int n = cJSON_GetArraySize(errors);
        if (n == 0)
            return replay_file_error(rq, "the report has no error to replay (verdict %s)",
                              cJSON_IsString(field(root, "verdict"))
                                  ? field(root, "verdict")->valuestring : "?");
        if (k > (unsigned long long)n)
            return replay_file_error(rq, "--replay-error %llu, but the report has %d error%s", k, n,
                              n == 1 ? "" : "s");
        *er = cJSON_GetArrayItem(errors, (int)(k - 1));
        if (!cJSON_IsObject(*er)) return replay_file_error(rq, "error %llu is not an object", k);
        return 0;
    }
    if (!field(root, "path") && !field(root, "kind"))
        return replay_file_error(rq, "not a --trace-json file or --json report (no \"path\", no "
                              "\"errors\")");
    if (rq->error > 1)
        return replay_file_error(rq, "--replay-error %llu: a --trace-json file holds one error",
                          rq->error);
    *er = root;
    return 0;
}

/* The recorded path, checked: [[tid, choice], ...]. */
static int read_path(const replay_request *rq, const cJSON *er, recorded *r)
{
    const cJSON *path = field(er, "path"), *step;
    if (!path)
        return replay_file_error(rq, "the error has no \"path\" (written before mcheck could replay "
                              "traces: search again with --trace-json)");
    if (!cJSON_IsArray(path)) return replay_file_error(rq, "\"path\" is not an array");
    uint64_t n = 0;
    cJSON_ArrayForEach(step, path) n++;
    if (n >= UINT32_MAX) return replay_file_error(rq, "\"path\" has %" PRIu64 " steps, too many", n);
    r->path = malloc((n ? n : 1) * sizeof *r->path);
    if (!r->path) {
        fprintf(stderr, "mcheck: error: out of memory reading the path of %s\n", rq->file);
        return 3;
    }
    uint32_t i = 0;
    cJSON_ArrayForEach(step, path) {
        double tid, choice;
        if (!cJSON_IsArray(step) || cJSON_GetArraySize(step) != 2)
            return replay_file_error(rq, "\"path\" step %" PRIu32 " is not a [thread, choice] pair",
                              i + 1);
        if (!json_int(step->child, 0, INT32_MAX, &tid))
            return replay_file_error(rq, "\"path\" step %" PRIu32 ": the thread is not a thread id "
                                  "(an integer from 0 to %d)", i + 1, INT32_MAX);
        if (!json_int(step->child->next, 0, JSON_INT_MAX, &choice))
            return replay_file_error(rq, "\"path\" step %" PRIu32 ": the choice is not an integer "
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
        return replay_file_error(rq, "the %s error has no \"cycle_start\" (its path is a lasso)", r->kind);
    if (cs) { /* --liveness or --ltl: the path is a lasso */
        double k;
        /* --ltl: cycle_start == len, the last state repeats forever */
        if (r->ltl_lasso && (!json_int(cs, 0, (double)r->len, &k)))
            return replay_file_error(rq, "\"cycle_start\" must be a step count from 0 to the path's "
                                  "length");
        if (!r->ltl_lasso && (!json_int(cs, 0, (double)(r->len ? r->len - 1 : 0), &k) || !r->len))
            return replay_file_error(rq, "\"cycle_start\" must be a step count below the path's length");
        r->lasso = true;
        r->cycle_start = (uint32_t)k;
    }
    r->starved = -1;
    if (r->starvation) { /* the starved thread: its id, or (older files) its name */
        const cJSON *tid = field(er, "starved_tid"), *name = field(er, "starved");
        double v;
        if (tid && !json_int(tid, 0, INT32_MAX, &v))
            return replay_file_error(rq, "\"starved_tid\" is not a thread id (an integer from 0 to %d)",
                              INT32_MAX);
        if (name && !cJSON_IsString(name)) return replay_file_error(rq, "\"starved\" is not a string");
        if (!tid && !name)
            return replay_file_error(rq, "the starvation error has no \"starved_tid\" or \"starved\" "
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
        return replay_file_error(rq, "\"options\".\"%s\" must be %s", key, expected);
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
    if (!cJSON_IsBool(v)) return replay_file_error(rq, "\"options\".\"%s\" must be true or false", key);
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
        return replay_file_error(rq, "\"options\".\"defines\" is not an array");
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
            return replay_file_error(rq, "\"options\".\"defines\" item %zu is not "
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
    if (model && !cJSON_IsString(model)) return replay_file_error(rq, "\"model\" is not a string");
    r->model = model ? model->valuestring : NULL;
    if (opts && !cJSON_IsObject(opts)) return replay_file_error(rq, "\"options\" is not an object");
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
            return replay_file_error(rq, "\"options\".\"max_invisible\" must be a number of steps from 1");
        if (rq->max_invisible_set && (uint64_t)v != r->eo.max_invisible)
            return contradiction(rq, "--max-invisible %" PRIu64 " contradicts the trace's "
                                     "max_invisible=%" PRIu64, r->eo.max_invisible, (uint64_t)v);
        r->eo.max_invisible = (uint64_t)v;
    }
    if (r->eo.por && r->eo.reduce != REDUCE_COMPOSE)
        return replay_file_error(rq, "\"options\": por needs reduce=compose");
    const cJSON *lv = field(opts, "liveness"), *fair = field(opts, "fair"), *ltl = field(opts, "ltl");
    const cJSON *fairness = field(opts, "fairness");
    if (lv && (!cJSON_IsString(lv) || (strcmp(lv->valuestring, "npc") &&
                                       strcmp(lv->valuestring, "starvation"))))
        return replay_file_error(rq, "\"options\".\"liveness\" must be \"npc\" or \"starvation\"");
    if (lv) r->eo.liveness = strcmp(lv->valuestring, "npc") ? LIVENESS_STARVATION : LIVENESS_NPC;
    if (r->starvation && r->eo.liveness != LIVENESS_STARVATION)
        return replay_file_error(rq, "\"options\".\"liveness\" must be \"starvation\" for a "
                              "starvation error");
    if (fair && !cJSON_IsBool(fair))
        return replay_file_error(rq, "\"options\".\"fair\" must be true or false");
    if (fairness && (!cJSON_IsString(fairness) || (strcmp(fairness->valuestring, "weak") &&
                                                   strcmp(fairness->valuestring, "strong"))))
        return replay_file_error(rq, "\"options\".\"fairness\" must be \"weak\" or \"strong\"");
    if (fairness && !cJSON_IsTrue(fair))
        return replay_file_error(rq, "\"options\": fairness needs fair=true");
    /* files written before strong fairness have "fair": true alone: weak */
    r->eo.fair = !cJSON_IsTrue(fair) ? FAIR_NONE
                 : fairness && !strcmp(fairness->valuestring, "strong") ? FAIR_STRONG : FAIR_WEAK;
    if (r->eo.fair && r->eo.liveness != LIVENESS_STARVATION)
        return replay_file_error(rq, "\"options\": fair needs liveness=starvation (the replay "
                                     "does not check the fairness of an npc or ltl lasso)");
    if (ltl && (!cJSON_IsString(ltl) || !ltl->valuestring[0]))
        return replay_file_error(rq, "\"options\".\"ltl\" must be a formula (a string)");
    if (ltl && lv) return replay_file_error(rq, "\"options\": ltl and liveness are separate searches");
    r->eo.ltl_text = ltl ? ltl->valuestring : NULL;
    if (r->ltl_lasso && !ltl)
        return replay_file_error(rq, "\"options\".\"ltl\" is missing: an ltl_violated error is "
                              "replayed with its formula");
    if (r->eo.liveness == LIVENESS_STARVATION && r->eo.por)
        return replay_file_error(rq, "\"options\": por cannot be used with liveness=starvation");
    if ((rc = read_defines(rq, field(opts, "defines"), r))) return rc;
    r->adapted = field(ctx, "adapted");
    if (r->adapted && !cJSON_IsArray(r->adapted))
        return replay_file_error(rq, "\"adapted\" is not an array of variable names");
    return 0;
}

/* The model, assembled with the recorded -D overrides, wakeups and the
 * variables --adapt made volatile; NULL after a message (*status). */
static vm_program *load_model(const replay_request *rq, recorded *r, int *status)
{
    vm_program *p;
    char err[256];
    model_request mr = {.path = rq->model, .defs = r->defs, .ndefs = r->ndefs,
                        .spurious = r->spurious, .liveness = r->eo.liveness != LIVENESS_OFF,
                        .ltl_text = r->eo.ltl_text}; /* as the search had them */
    int st = model_load(&mr, &p, &r->ltl, err, sizeof err, status);
    if (st == MODEL_REJECTED && r->ndefs) { /* the file's -D overrides may be what it rejects */
        fprintf(stderr, "mcheck: note: the -D overrides of the replay:");
        for (size_t i = 0; i < r->ndefs; i++)
            fprintf(stderr, " %s=%" PRId32, r->defs[i].name, r->defs[i].value);
        fprintf(stderr, " (recorded in %s, then the command line's)\n", rq->file);
    }
    if (st == MODEL_BAD_LTL) *status = replay_file_error(rq, "\"options\".\"ltl\": %s", err);
    if (st != MODEL_OK) return NULL;
    r->eo.ltl = r->ltl;
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
            *status = replay_file_error(rq, "\"adapted\": %s%s%s is not a variable of %s",
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

int replay_read(const replay_request *rq, cJSON **root, recorded *r, vm_program **p)
{
    int status = 2;
    const cJSON *er = NULL, *ctx = NULL, *kind, *message;
    if (!(*root = parse_file(rq, &status))) return status;
    if ((status = pick_error(rq, *root, &er, &ctx))) return status;
    kind = field(er, "kind");
    message = field(er, "message");
    if (!cJSON_IsString(kind) || !cJSON_IsString(message))
        return replay_file_error(rq, "the error has no \"kind\" and \"message\" strings");
    r->kind = kind->valuestring;
    r->message = message->valuestring;
    if ((status = read_path(rq, er, r))) return status;
    if ((status = read_options(rq, ctx, r))) return status;
    if (!(*p = load_model(rq, r, &status))) return status;
    return 0;
}
