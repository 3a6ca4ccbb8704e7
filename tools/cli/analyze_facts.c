/* analyze_facts.c: mcheck --analyze --facts[=WHERE] (issue 33): the
 * analysis's fact before an instruction, over the thread's registers and
 * the global the instruction accesses (the one it owns there: RATCOP's
 * Corollary 2), at every instruction of every thread or only at a label's
 * (or a source line's) in every thread whose body has it.
 *
 * As text after the report, or with --json as members of its object:
 * "facts", one entry per point with the fact by name (bounds and relations,
 * an_fact_print_json()) and as the text prints it; and, for --facts of
 * every instruction, "layout" and "units", the raw constraints over
 * numbered variables that tests/analyze/test_soundness.py checks against
 * every reachable state of the search. The points are found before the
 * report starts, so a WHERE that names nothing is a usage error (exit 2)
 * with nothing on stdout, in both forms. */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "cli_int.h"

typedef struct point {
    uint32_t unit, pc;
    int32_t line; /* the label's or the line asked for; the instruction's for all */
} point;

struct an_facts {
    const an_result *r;
    const vm_program *p;
    const char *where; /* NULL: every instruction */
    point *pts;
    size_t n, cap;
};

typedef struct own_ctx {
    const vm_program *p;
    const vm_insn *in;
} own_ctx;

/* The globals the instruction accesses (the owned ones). */
static bool accessed(void *ctx, uint32_t e)
{
    own_ctx *o = ctx;
    if (o->in->op != VM_OP_load && o->in->op != VM_OP_store) return false;
    const vm_var *v = &o->p->vars[o->in->obj];
    return e >= v->first_elem && e < v->first_elem + v->size;
}

static bool add(an_facts *f, uint32_t unit, uint32_t pc, int32_t line)
{
    if (f->n == f->cap) {
        size_t c = f->cap ? 2 * f->cap : 64;
        point *np = realloc(f->pts, c * sizeof *np);
        if (!np) return false;
        f->pts = np;
        f->cap = c;
    }
    f->pts[f->n++] = (point){unit, pc, line};
    return true;
}

/* The lines of WHERE: the number itself, or every line that starts with
 * the label `WHERE:`; at most max. 0 lines: none. -1: cannot read. */
static int where_lines(const char *model, const char *where, int32_t *lines, int max, bool *nomem)
{
    char *end;
    long v = strtol(where, &end, 10);
    if (*where && !*end && v > 0) {
        lines[0] = v > INT32_MAX ? INT32_MAX : (int32_t)v;
        return 1;
    }
    size_t len;
    char *src = tool_read_file(model, &len, nomem);
    if (!src) return -1;
    size_t wl = strlen(where);
    int nl = 0;
    int32_t no = 1;
    for (size_t i = 0; i < len && nl < max; no++) {
        size_t j = i;
        while (j < len && (src[j] == ' ' || src[j] == '\t')) j++;
        if (j + wl < len && !strncmp(src + j, where, wl) && src[j + wl] == ':') lines[nl++] = no;
        while (i < len && src[i] != '\n') i++;
        i++;
    }
    free(src);
    return nl;
}

/* The instruction of body b at source line `line` (the first on or after
 * it, inside the body), or UINT32_MAX. */
static uint32_t pc_at(const vm_program *p, const vm_body *b, int32_t line)
{
    if (line < b->line) return UINT32_MAX;
    uint32_t pc = 0;
    while (pc < b->ncode && b->code[pc].line < line) pc++;
    if (pc == b->ncode || (pc + 1 < b->ncode && b->code[pc].line > b->code[b->ncode - 1].line))
        return UINT32_MAX;
    for (uint32_t o = 0; o < p->nbodies; o++) /* the next body starts after the line */
        if (p->bodies[o].line > b->line && p->bodies[o].line <= line) return UINT32_MAX;
    return pc;
}

int analyze_facts_find(const cli *c, const an_result *r, const vm_program *p, an_facts **out)
{
    an_facts *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f) goto nomem;
    f->r = r;
    f->p = p;
    f->where = c->facts_at;
    if (!f->where) {
        for (uint32_t u = 0; u < an_nunits(r); u++) {
            const vm_body *b = &p->bodies[an_unit_body(r, u)];
            for (uint32_t pc = 0; pc < b->ncode; pc++)
                if (!add(f, u, pc, b->code[pc].line)) goto nomem;
        }
        *out = f;
        return 0;
    }
    int32_t lines[64];
    bool nomem = false;
    int nl = where_lines(c->model, f->where, lines, 64, &nomem);
    if (nl < 0) {
        analyze_facts_free(f);
        if (nomem) goto nomem_msg;
        fprintf(stderr, "mcheck: error: cannot read the model\n");
        return 2;
    }
    for (int k = 0; k < nl; k++)
        for (uint32_t u = 0; u < an_nunits(r); u++) {
            uint32_t pc = pc_at(p, &p->bodies[an_unit_body(r, u)], lines[k]);
            if (pc != UINT32_MAX && !add(f, u, pc, lines[k])) goto nomem;
        }
    if (!f->n) {
        fprintf(stderr, "mcheck: error: --facts=%s: no label '%s' and no such line in a thread "
                        "body of %s\n", f->where, f->where, c->model);
        analyze_facts_free(f);
        return 2;
    }
    *out = f;
    return 0;
nomem:
    analyze_facts_free(f);
nomem_msg:
    fprintf(stderr, "mcheck: error: out of memory\n");
    return 3;
}

void analyze_facts_free(an_facts *f)
{
    if (!f) return;
    free(f->pts);
    free(f);
}

void analyze_facts_text(const an_facts *f, FILE *out)
{
    char name[96];
    for (size_t i = 0; i < f->n; i++) {
        const point *pt = &f->pts[i];
        const vm_insn *in = &f->p->bodies[an_unit_body(f->r, pt->unit)].code[pt->pc];
        own_ctx oc = {f->p, in};
        an_unit_name(f->r, pt->unit, name, sizeof name);
        if (f->where) {
            fprintf(out, "fact at %s (line %d, pc %u `%s`) in %s: ", f->where, (int)pt->line,
                    pt->pc, in->text, name);
        } else {
            if (pt->pc == 0) fprintf(out, "facts of %s:\n", name);
            fprintf(out, "  %4u  line %-4d %-24s ", pt->pc, (int)in->line, in->text);
        }
        an_fact_print(f->r, pt->unit, pt->pc, out, accessed, &oc);
        fputc('\n', out);
    }
}

/* "layout" and "units": every instruction's fact as raw constraints. */
static void raw_json(const an_result *r, const vm_program *p, FILE *out)
{
    fprintf(out, ",\"layout\":{\"globals_off\":%u,\"threads\":[", p->layout.globals_off);
    for (uint32_t t = 0; t < p->nthreads; t++) {
        const vm_thread_slot *sl = &p->threads[t];
        fprintf(out, "%s{\"offset\":%u,\"body\":%d,\"regs_off\":%u,\"self_off\":%u,\"self\":%d}",
                t ? "," : "", sl->offset, (int)sl->body, sl->regs_off, sl->self_off, (int)sl->self);
    }
    fprintf(out, "]},\"units\":[");
    for (uint32_t u = 0; u < an_nunits(r); u++) {
        uint32_t bi = an_unit_body(r, u);
        const vm_body *b = &p->bodies[bi];
        char name[96];
        an_unit_name(r, u, name, sizeof name);
        fprintf(out, "%s{\"name\":", u ? "," : "");
        json_string(out, name);
        fprintf(out, ",\"body\":%u,\"tid\":%d,\"nregs\":%u,\"pcs\":[", bi,
                u < p->nstatic ? (int)u : -1, b->nregs);
        for (uint32_t pc = 0; pc < b->ncode; pc++) {
            const vm_insn *in = &b->code[pc];
            fprintf(out, "%s{\"fact\":", pc ? "," : "");
            an_fact_json(r, u, pc, out);
            if ((in->op == VM_OP_load || in->op == VM_OP_store) &&
                p->vars[in->obj].cls == VM_SHARED) { /* the element it owns there */
                const vm_var *v = &p->vars[in->obj];
                fprintf(out, ",\"access\":[%u,%u,%d,%d]", v->first_elem, v->size, in->idx.kind,
                        (int)in->idx.val);
            }
            fprintf(out, "}");
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]");
}

void analyze_facts_json(const an_facts *f, FILE *out)
{
    char name[96];
    fprintf(out, ",\"facts_at\":");
    if (f->where) json_string(out, f->where);
    else fprintf(out, "null");
    fprintf(out, ",\"facts\":[");
    for (size_t i = 0; i < f->n; i++) {
        const point *pt = &f->pts[i];
        const vm_insn *in = &f->p->bodies[an_unit_body(f->r, pt->unit)].code[pt->pc];
        own_ctx oc = {f->p, in};
        an_unit_name(f->r, pt->unit, name, sizeof name);
        fprintf(out, "%s{\"thread\":", i ? "," : "");
        json_string(out, name);
        fprintf(out, ",\"line\":%d,\"pc\":%u,\"insn\":", (int)pt->line, pt->pc);
        json_string(out, in->text);
        fprintf(out, ",\"fact\":");
        an_fact_print_json(f->r, pt->unit, pt->pc, out, accessed, &oc);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            an_fact_print(f->r, pt->unit, pt->pc, m, accessed, &oc);
            fclose(m);
            fprintf(out, ",\"text\":");
            json_string(out, buf ? buf : "");
        }
        free(buf);
        fprintf(out, "}");
    }
    fprintf(out, "]");
    if (!f->where) raw_json(f->r, f->p, out);
}
