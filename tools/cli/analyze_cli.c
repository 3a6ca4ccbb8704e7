/* analyze_cli.c: mcheck --analyze (issue 33): the thread-local analysis of
 * analyze/ (RATCOP's sync-CFG analyses), its premise and its report.
 *
 * The premise is checked, not assumed: the facts are sound only for a model
 * free of data races (happens-before, with the edges Goldilocks and the
 * analysis share). Per shared variable the report says whether lockset/'s
 * static discharge proves every element race-free (lock-protected, one
 * thread, never written, or ordered by spawn, join or a channel), and for the
 * rest asks for the search (`mcheck --race=goldilocks`), which
 * --analyze=check runs. Volatile variables are racy by design (the analysis
 * reads them flow-insensitively) and unshared ones thread-local by the
 * language (a second thread touching one is a runtime error).
 *
 * The command line's part: which options --analyze takes, which only
 * --analyze=check's search, which neither (options.c asks, by name).
 *
 * Exit status: 0 every assert proved or unreachable, 1 some unknown or the
 * check found a race, 2 bad model (before this file), 3 out of memory. A
 * TLC or Frama-C user reads 1 as "not everything was proved", and 0 as the
 * green light. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "cli_int.h"
#include "lockset.h"

/* The options of the search --analyze=check runs (--race=goldilocks
 * --all-errors), and those nothing --analyze runs uses; by long name. */
static const char *const CHECK_OPTIONS[] = {
    "search", "store", "fingerprint", "bitstate-mb", "all-errors", "max-depth", "lookahead",
    "jobs", "j", "preemption-bound", "delay-bound", "sleep-sets", "scheduling", "reduce", "race", "por",
    "max-invisible", "memlimit", "timelimit", "progress", NULL};
static const char *const NEVER_OPTIONS[] = {
    "simulate", "seed", "steps", "dump", "adapt", "dump-states", "liveness",
    "liveness-test-bits", "ltl", "fair", "starved", "record", "swarm", "shorten", "trace-json",
    "trace-html", "trace-states", "trace", "replay", "replay-error", "mpi-round-bytes",
    "mpi-progress", NULL};

int analyze_option_use(const char *name)
{
    for (const char *const *o = CHECK_OPTIONS; *o; o++)
        if (!strcmp(*o, name)) return ANALYZE_CHECK;
    for (const char *const *o = NEVER_OPTIONS; *o; o++)
        if (!strcmp(*o, name)) return ANALYZE_NEVER;
    return ANALYZE_ANY;
}

const char *analyze_refusal(const cli *c, char *msg, size_t n)
{
    const char *dash = c->analyze_never[1] ? "--" : "-";
    if (c->dump || c->simulate || c->replay)
        snprintf(msg, n, "--analyze cannot be used with %s",
                 c->dump ? "--dump" : c->simulate ? "--simulate" : "--replay");
    else if (*c->analyze_never)
        snprintf(msg, n, "%s%s cannot be used with --analyze: the analysis explores no "
                         "interleaving, and --analyze=check's search looks for data races only "
                         "(--race=goldilocks --all-errors)", dash, c->analyze_never);
    else if (*c->analyze_search && !c->analyze_check)
        snprintf(msg, n, "%s%s applies to the search, not to --analyze, which explores no "
                         "interleaving (--analyze=check's race search takes it)",
                 c->analyze_search[1] ? "--" : "-", c->analyze_search);
    else if (c->eo.store.kind == STORE_BITSTATE)
        snprintf(msg, n, "--store=bitstate cannot be used with --analyze=check: supertrace "
                         "covers part of the states, so it cannot confirm race freedom");
    else if (c->race_set && c->eo.race != LS_GOLDILOCKS)
        snprintf(msg, n, "--race=%s cannot be used with --analyze=check: its search looks for "
                         "data races (--race=goldilocks)", race_mode_name(c->eo.race));
    else
        return NULL;
    return msg;
}

static const char *status_name(an_status s)
{
    return s == AN_PROVED ? "proved" : s == AN_UNKNOWN ? "unknown" : "unreachable";
}

/* Per shared variable: elements proved race-free statically, and why (the
 * first element's reason that is not LS_CHECKED). */
typedef struct var_premise {
    uint32_t proved, total;
    ls_why why;
    uint32_t lock;
} var_premise;

static const char *why_text(ls_why w)
{
    switch (w) {
    case LS_UNACCESSED: return "never accessed";
    case LS_ONE_THREAD: return "one thread only";
    case LS_COMMON_LOCK: return "always under";
    case LS_READ_ONLY: return "never written";
    case LS_ORDERED: return "ordered by spawn, join, a channel or a lock";
    case LS_CHECKED: break;
    }
    return "?";
}

/* The premise, per variable; *unconfirmed counts the shared variables with
 * an element not proved. NULL when memory runs out. */
static var_premise *premise(const vm_program *p, uint32_t *unconfirmed)
{
    var_premise *vp = calloc(p->nvars ? p->nvars : 1, sizeof *vp);
    ls_elem_facts *f = ls_discharge_facts(p);
    if (!vp || !f) {
        free(vp);
        free(f);
        return NULL;
    }
    *unconfirmed = 0;
    for (uint32_t v = 0; v < p->nvars; v++) {
        const vm_var *x = &p->vars[v];
        vp[v].total = x->size;
        vp[v].why = LS_CHECKED;
        if (x->cls != VM_SHARED) continue;
        for (uint32_t i = 0; i < x->size; i++) {
            ls_why w = ls_discharge_why(LS_GOLDILOCKS, p, f, x->first_elem + i);
            if (w == LS_CHECKED) continue;
            vp[v].proved++;
            if (vp[v].why == LS_CHECKED) {
                vp[v].why = w;
                vp[v].lock = f[x->first_elem + i].lock;
            }
        }
        if (vp[v].proved < vp[v].total) (*unconfirmed)++;
    }
    free(f);
    return vp;
}

/* Is region rg race-free as a whole (RATCOP section 7), statically: one
 * lock held at every access to any element of any member, or no member
 * ever written? */
static bool region_proved(const vm_program *p, const vm_region *rg)
{
    ls_elem_facts *f = ls_discharge_facts(p);
    if (!f) return false;
    bool written = false, ok = true;
    uint32_t lock = UINT32_MAX;
    for (uint32_t i = 0; i < rg->nvars; i++) {
        const vm_var *v = &p->vars[rg->vars[i]];
        written |= v->stored;
        for (uint32_t j = 0; j < v->size; j++) {
            const ls_elem_facts *x = &f[v->first_elem + j];
            if (x->threads == 0) continue;
            if (x->lock == UINT32_MAX || (lock != UINT32_MAX && x->lock != lock)) ok = false;
            else lock = x->lock;
        }
    }
    free(f);
    return ok || !written;
}

/* A growable text. */
typedef struct text {
    char *s;
    size_t n, cap;
    bool nomem;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->nomem) return;
    if (t->n + n + 1 > t->cap) {
        size_t c = (t->n + n + 1) * 2;
        char *ns = realloc(t->s, c);
        if (!ns) {
            t->nomem = true;
            return;
        }
        t->s = ns;
        t->cap = c;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

/* The region of the variable named at s (len n), or -1. */
static int region_of(const vm_program *p, const char *s, size_t n)
{
    for (uint32_t g = 0; g < p->nregions; g++)
        for (uint32_t i = 0; i < p->regions[g].nvars; i++) {
            const char *v = p->vars[p->regions[g].vars[i]].name;
            if (strlen(v) == n && !memcmp(v, s, n)) return (int)g;
        }
    return -1;
}

static bool ident_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

/* --analyze=check with regions: the model's text rewritten so that every
 * load of a region member first loads a ghost shared variable
 * `__region_NAME` (into a register `__region_r` the body declares) and every
 * store of one first stores it: two accesses to members of one region, one
 * a write, unordered by happens-before (a region race, RATCOP section 7)
 * are then a data race on the ghost, which Goldilocks reports. This is the
 * paper's section 7.2 done at each access (a store always writes its
 * ghost, so a write whose value reads no region is seen too: notes B4).
 * Labels stay on the first instruction of their line; lines move, so a
 * report names the ghost, not a line. NULL when memory runs out. */
static char *ghost_source(const vm_program *p, const char *src, size_t len)
{
    text t = {0};
    bool reg_declared = false;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && src[e] != '\n') e++;
        const char *l = src + i;
        size_t ll = e - i, k = 0, code = ll;
        for (size_t j = 0; j < ll; j++)
            if (l[j] == ';' || l[j] == '#' || l[j] == '"') {
                code = j;
                break;
            }
        while (k < code && (l[k] == ' ' || l[k] == '\t')) k++;
        size_t w = k;
        while (w < code && ident_char(l[w])) w++;
        if (w > k && !(w < code && l[w] == ':') &&
            ((w - k == 6 && !memcmp(l + k, "thread", 6)) || (w - k == 4 && !memcmp(l + k, "proc", 4))))
            reg_declared = false; /* a new body */
        /* labels */
        size_t lab_end = k;
        for (;;) {
            size_t q = lab_end;
            while (q < code && ident_char(l[q])) q++;
            if (q > lab_end && q < code && l[q] == ':') {
                lab_end = q + 1;
                while (lab_end < code && (l[lab_end] == ' ' || l[lab_end] == '\t')) lab_end++;
                continue;
            }
            break;
        }
        size_t m = lab_end, me = m;
        while (me < code && ident_char(l[me])) me++;
        bool is_load = me - m == 4 && !memcmp(l + m, "load", 4);
        bool is_store = me - m == 5 && !memcmp(l + m, "store", 5);
        int g = -1;
        if (is_load || is_store) {
            size_t o = me;
            if (is_load) { /* the second operand */
                while (o < code && l[o] != ',') o++;
                if (o < code) o++;
            }
            while (o < code && (l[o] == ' ' || l[o] == '\t')) o++;
            size_t oe = o;
            while (oe < code && ident_char(l[oe])) oe++;
            g = region_of(p, l + o, oe - o);
        }
        if (g >= 0) {
            char buf[200];
            if (is_load && !reg_declared) {
                puts_(&t, "    reg __region_r\n");
                reg_declared = true;
            }
            put(&t, l, lab_end); /* the labels */
            snprintf(buf, sizeof buf, is_load ? "load __region_r, __region_%s\n    "
                                              : "store __region_%s, 0\n    ",
                     p->regions[g].name);
            puts_(&t, buf);
            put(&t, l + lab_end, ll - lab_end);
        } else {
            put(&t, l, ll);
        }
        puts_(&t, "\n");
        i = e + 1;
    }
    for (uint32_t g = 0; g < p->nregions; g++) {
        puts_(&t, "shared __region_");
        puts_(&t, p->regions[g].name);
        puts_(&t, "\n");
    }
    if (t.nomem) {
        free(t.s);
        return NULL;
    }
    return t.s;
}

/* --analyze=check: the search with Goldilocks (on the ghost program when
 * the model has regions); 0 race-free, 1 a race (*msg says where), 3
 * incomplete or out of memory, 2 the ghost program did not assemble. */
static int search_premise(const cli *c, const vm_program *p, char *msg, size_t n)
{
    explore_options o = c->eo;
    o.race = LS_GOLDILOCKS;
    o.all_errors = true;
    o.progress = c->progress && !c->quiet ? stderr : NULL; /* --progress: the search's */
    o.dump_states = NULL;
    vm_program *gp = NULL;
    if (p->nregions) {
        size_t len;
        bool nomem;
        char *src = tool_read_file(c->model, &len, &nomem);
        char *gs = src ? ghost_source(p, src, len) : NULL;
        free(src);
        if (!gs) {
            snprintf(msg, n, "out of memory or the model cannot be read");
            return 3;
        }
        FILE *devnull = fopen("/dev/null", "w");
        int ne = 0;
        gp = vm_assemble(c->model, gs, strlen(gs), c->defs, c->ndefs, devnull ? devnull : stderr,
                         &ne);
        if (devnull) fclose(devnull);
        free(gs);
        if (!gp) {
            snprintf(msg, n, "the regions could not be checked (the model with ghost "
                             "variables does not assemble)");
            return 2;
        }
        gp->spurious_wakeups = p->spurious_wakeups;
    }
    explore_result r;
    if (explore_run(gp ? gp : p, &o, &r) != 0) {
        snprintf(msg, n, "out of memory before the search started");
        vm_program_free(gp);
        return 3;
    }
    int rc = r.stop == STOP_COMPLETE ? 0 : 3;
    snprintf(msg, n, "%s", rc ? "the search did not complete"
                              : gp ? "no data race and no region race in any execution"
                                   : "no data race in any execution");
    if (r.error_count[VERDICT_RACE]) {
        rc = 1;
        snprintf(msg, n, "a data race (its trace was not kept)");
        for (uint32_t i = 0; i < r.nerrors; i++)
            if (r.errors[i].kind == VERDICT_RACE) {
                const char *vn = r.errors[i].elem < (gp ? gp : p)->nelems
                                     ? vm_elem_var(gp ? gp : p, r.errors[i].elem)->name : "";
                if (!strncmp(vn, "__region_", 9))
                    snprintf(msg, n, "a region race on region '%s': two accesses to its "
                                     "members, one a write, unordered", vn + 9);
                else
                    snprintf(msg, n, "%s", r.errors[i].msg);
                break;
            }
    }
    explore_result_free(&r);
    vm_program_free(gp);
    return rc;
}

/* --invariants at an assert: the registers, and no global (an assert reads
 * registers only; globals are owned only where they are accessed). */
static bool no_global(void *ctx, uint32_t e)
{
    (void)ctx;
    (void)e;
    return false;
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(out, "\\u%04x", *s);
        else fputc(*s, out);
    }
    fputc('"', out);
}

/* Code no thread reaches (sound under the premise: RATCOP's Theorem 4 with
 * gamma(bottom) empty), as ranges of source lines; the implicit `end` of a
 * body is left out. */
static void print_unreached(const an_result *r, const vm_program *p, const char *model, FILE *out)
{
    int32_t from = -1, to = -1;
    bool any = false;
    for (uint32_t b = 0; b < p->nbodies; b++) {
        const vm_body *body = &p->bodies[b];
        for (uint32_t pc = 0; pc + 1 < body->ncode; pc++) {
            bool reached = false;
            for (uint32_t u = 0; u < an_nunits(r) && !reached; u++)
                reached = an_unit_body(r, u) == b && an_reached(r, u, pc);
            int32_t line = body->code[pc].line;
            if (reached) continue;
            if (from >= 0 && line <= to + 1 && line >= from) {
                if (line > to) to = line;
                continue;
            }
            if (from >= 0) fprintf(out, to > from ? "%d-%d, " : "%d, ", (int)from, (int)to);
            else fprintf(out, "unreachable code (no thread gets there): %s lines ", model);
            from = to = line;
            any = true;
        }
    }
    if (any) fprintf(out, to > from ? "%d-%d\n" : "%d\n", (int)from, (int)to);
}

int analyze_run(const cli *c, vm_program *p)
{
    an_options o;
    an_options_default(&o);
    if (c->analyze_interval) o.domain = AN_INTERVAL;
    if (c->analyze_no_tids) o.tids = false;
    uint32_t unconfirmed = 0;
    var_premise *vp = premise(p, &unconfirmed);
    an_result *r = vp ? an_run(p, &o) : NULL;
    if (!r) {
        free(vp);
        fprintf(stderr, "mcheck: error: out of memory\n");
        return 3;
    }
    an_facts *facts = NULL;
    if (c->facts) { /* WHERE resolved before the report starts */
        int frc = analyze_facts_find(c, r, p, &facts);
        if (frc) {
            an_free(r);
            free(vp);
            return frc;
        }
    }
    char smsg[300] = "";
    int search = -1; /* not run */
    if (c->analyze_check) search = search_premise(c, p, smsg, sizeof smsg);
    const an_stats *st = an_result_stats(r);
    uint32_t n = an_nasserts(r), counts[3] = {0, 0, 0};
    const an_assert *as = an_asserts(r);
    for (uint32_t i = 0; i < n; i++) counts[as[i].status]++;
    const char *dom = o.domain == AN_OCTAGON ? "octagon" : "interval";
    FILE *out = stdout;
    char name[96];
    if (c->json) {
        fprintf(out, "{\"model\":");
        json_str(out, c->model);
        fprintf(out, ",\"domain\":\"%s\",\"tids\":%s,\"asserts\":[", dom, o.tids ? "true" : "false");
        for (uint32_t i = 0; i < n; i++) {
            fprintf(out, "%s{\"line\":%d,\"col\":%d,\"status\":\"%s\",\"msg\":", i ? "," : "",
                    (int)as[i].line, (int)as[i].col, status_name(as[i].status));
            json_str(out, as[i].msg);
            if (as[i].unit != UINT32_MAX) {
                an_unit_name(r, as[i].unit, name, sizeof name);
                fprintf(out, ",\"thread\":");
                json_str(out, name);
            }
            if (c->invariants && as[i].unit != UINT32_MAX) {
                char *buf = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&buf, &len);
                if (m) {
                    an_fact_print(r, as[i].unit, as[i].pc, m, no_global, NULL);
                    fclose(m);
                    fprintf(out, ",\"fact\":");
                    json_str(out, buf);
                }
                free(buf);
            }
            fprintf(out, "}");
        }
        fprintf(out, "],\"proved\":%u,\"unknown\":%u,\"unreachable\":%u", counts[AN_PROVED],
                counts[AN_UNKNOWN], counts[AN_UNREACHABLE]);
        fprintf(out, ",\"premise\":{\"unconfirmed\":[");
        const char *sep = "";
        for (uint32_t v = 0; v < p->nvars; v++)
            if (p->vars[v].cls == VM_SHARED && vp[v].proved < vp[v].total) {
                fprintf(out, "%s", sep);
                json_str(out, p->vars[v].name);
                sep = ",";
            }
        fprintf(out, "],\"regions_unconfirmed\":[");
        sep = "";
        for (uint32_t g = 0; g < p->nregions; g++)
            if (!region_proved(p, &p->regions[g])) {
                fprintf(out, "%s", sep);
                json_str(out, p->regions[g].name);
                sep = ",";
            }
        fprintf(out, "],\"search\":\"%s\"}", search < 0 ? "not run" : search == 0 ? "race-free"
                                             : search == 1 ? "race" : search == 2 ? "not checked"
                                             : "incomplete");
        fprintf(out, ",\"stats\":{\"units\":%u,\"points\":%u,\"reached\":%u,\"sync_edges\":%u,"
                     "\"transfers\":%llu,\"variables_max\":%u,\"seconds\":%.6f}",
                st->units, st->points, st->reached, st->sync_edges,
                (unsigned long long)st->transfers, st->dims_max, st->seconds);
        if (facts) analyze_facts_json(facts, out);
        fprintf(out, "}\n");
    } else {
        fprintf(out, "analyze %s: %s domain, thread ids %s; %u threads analyzed, %u points "
                     "(%u reached), %u sync edges, %.3f ms\n",
                c->model, dom, o.tids ? "on" : "off", st->units, st->points, st->reached,
                st->sync_edges, st->seconds * 1e3);
        fprintf(out, "premise: the results hold if the model is free of data races "
                     "(happens-before, as --race=goldilocks checks)\n");
        for (uint32_t v = 0; v < p->nvars; v++) {
            const vm_var *x = &p->vars[v];
            if (x->cls == VM_VOLATILE) {
                fprintf(out, "  %-12s volatile: racy by design, read as any value ever stored\n",
                        x->name);
                continue;
            }
            if (x->cls == VM_UNSHARED) {
                fprintf(out, "  %-12s unshared: thread-local (a second thread is a runtime "
                             "error)\n", x->name);
                continue;
            }
            if (vp[v].proved == vp[v].total) {
                fprintf(out, "  %-12s race-free statically: %s", x->name, why_text(vp[v].why));
                if (vp[v].why == LS_COMMON_LOCK) {
                    vm_lock_name(p, vp[v].lock, name, sizeof name);
                    fprintf(out, " %s%s", name, x->size > 1 ? " (an element each)" : "");
                }
                fputc('\n', out);
            } else {
                fprintf(out, "  %-12s NOT proved race-free statically (%u of %u elements)\n",
                        x->name, vp[v].total - vp[v].proved, vp[v].total);
            }
        }
        for (uint32_t g = 0; g < p->nregions; g++) {
            const vm_region *rg = &p->regions[g];
            fprintf(out, "  region %-5s %s\n", rg->name,
                    region_proved(p, rg) ? "race-free as a region statically: one lock held at "
                                           "every access to every member (or none written)"
                                         : "NOT proved race-free as a region statically: "
                                           "confirm with mcheck --analyze=check (it searches "
                                           "for region races with a ghost variable per region)");
        }
        if (unconfirmed && search < 0)
            fprintf(out, "  confirm race freedom with the search: mcheck --race=goldilocks %s "
                         "(or mcheck --analyze=check)\n", c->model);
        if (search >= 0)
            fprintf(out, "  search (--race=goldilocks): %s%s\n", smsg,
                    search == 1 ? ": THE RESULTS BELOW DO NOT HOLD" : "");
        for (uint32_t i = 0; i < n; i++) {
            fprintf(out, "%s:%d:%d: assert \"%s\": %s", c->model, (int)as[i].line, (int)as[i].col,
                    as[i].msg ? as[i].msg : "", status_name(as[i].status));
            if (as[i].status == AN_UNKNOWN) {
                an_unit_name(r, as[i].unit, name, sizeof name);
                fprintf(out, " (in %s)", name);
            }
            fputc('\n', out);
            if (c->invariants && as[i].unit != UINT32_MAX) {
                an_unit_name(r, as[i].unit, name, sizeof name);
                fprintf(out, "    fact (%s): ", name);
                an_fact_print(r, as[i].unit, as[i].pc, out, no_global, NULL);
                fputc('\n', out);
            }
        }
        fprintf(out, "%u asserts: %u proved, %u unknown, %u unreachable\n", n, counts[AN_PROVED],
                counts[AN_UNKNOWN], counts[AN_UNREACHABLE]);
        print_unreached(r, p, c->model, out);
        if (facts) analyze_facts_text(facts, out);
    }
    int rc = counts[AN_UNKNOWN] ? 1 : 0;
    if (search == 1) rc = 1;
    if ((search == 3 || search == 2) && !rc) rc = search;
    analyze_facts_free(facts);
    an_free(r);
    free(vp);
    return rc;
}
