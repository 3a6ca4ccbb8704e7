/* fact_print.c: a fact as people and tests read it (mcheck --analyze
 * --invariants and --facts): every variable first brought into the int32
 * range (an_wrap: exactly, or forgotten when its values span more than one
 * 2^32 window), so every printed bound is a statement about int32 values;
 * then the bounds of each variable and the octagonal constraints the bounds
 * do not already imply; as text, or as JSON for --facts --json (the same
 * bounds and constraints, by name). */
#include <stdlib.h>
#include <string.h>

#include "analyze_int.h"

/* [lo, hi] as int32 values (transfer.c's int32_range): shifted into the
 * int32 range when it fits one 2^32 window, else all of it. */
static void int32_range_of(int64_t *lo, int64_t *hi)
{
    if (*lo == INT64_MIN || *hi == INT64_MAX) {
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        return;
    }
    int64_t k = (*lo - INT32_MIN) >= 0 ? (*lo - INT32_MIN) / AN_WRAP
                                       : -((-(*lo - INT32_MIN) + AN_WRAP - 1) / AN_WRAP);
    int64_t k2 = (*hi - INT32_MIN) >= 0 ? (*hi - INT32_MIN) / AN_WRAP
                                        : -((-(*hi - INT32_MIN) + AN_WRAP - 1) / AN_WRAP);
    if (k != k2) {
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        return;
    }
    *lo -= k * AN_WRAP;
    *hi -= k * AN_WRAP;
}

/* A copy of the fact at (u, pc) with every variable wrapped and closed, or
 * NULL (out of memory, or bottom: *bottom). The caller frees it. */
static uint8_t *wrapped(const an_result *r, uint32_t ui, uint32_t pc, bool *bottom)
{
    const an_unit *u = &r->units[ui];
    *bottom = !u->reached[pc];
    if (*bottom) return NULL;
    uint8_t *b = malloc(u->f_bytes);
    if (!b) return NULL;
    memcpy(b, an_block(u, pc), u->f_bytes);
    an_fact f = an_fact_at(u, b);
    for (uint32_t v = 0; v < u->n; v++) an_wrap(u, &f, v);
    if (!oct_close(f.m, u->n)) {
        *bottom = true;
        free(b);
        return NULL;
    }
    return b;
}

/* The element of packed variable v. */
static uint32_t elem_of(const an_unit *u, uint32_t v)
{
    for (uint32_t e = 0; e < u->nelems; e++)
        if (u->edim[e] == (int32_t)v) return e;
    return 0;
}

/* The variable's number in --facts --json: registers, self, tid as in the
 * unit, then nregs + 2 + element for every global (packed or not). */
static uint32_t json_var(const an_unit *u, uint32_t v)
{
    return v < u->nregs + 2 ? v : u->nregs + 2 + elem_of(u, v);
}

static void var_name(const an_result *r, const an_unit *u, uint32_t v, char *buf, size_t n)
{
    if (v < u->nregs) snprintf(buf, n, "%s", r->p->bodies[u->body].regname[v]);
    else if (v == an_dim_self(u)) snprintf(buf, n, "self");
    else if (v == an_dim_tid(u)) snprintf(buf, n, "tid");
    else vm_elem_name(r->p, elem_of(u, v), buf, n);
}

/* Where a fact's parts go: the text of --invariants and --facts, or the
 * structured JSON of --facts --json. A bound of v: lo <= v <= hi, either
 * side absent (has_lo, has_hi false) when the int32 range is all it says. A
 * relation: a + sb * b op c (sb -1 or 1, op "=", "<=" or ">="), modulo
 * 2^32 when mod32 (an equality the wrapping forgot). */
/* A name as a JSON string (names are identifiers, elements `x[3]`: only
 * quotes and backslashes would need escapes). */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

typedef struct sink {
    FILE *out;
    bool json;
    const char *sep;
} sink;

static void put_bound(sink *k, const char *v, int64_t lo, bool has_lo, int64_t hi, bool has_hi)
{
    if (k->json) {
        fprintf(k->out, "%s{\"var\":", k->sep);
        json_string(k->out, v);
        if (has_lo) fprintf(k->out, ",\"min\":%lld", (long long)lo);
        else fprintf(k->out, ",\"min\":null");
        if (has_hi) fprintf(k->out, ",\"max\":%lld}", (long long)hi);
        else fprintf(k->out, ",\"max\":null}");
    } else if (lo == hi && has_lo && has_hi) {
        fprintf(k->out, "%s%s = %lld", k->sep, v, (long long)lo);
    } else if (!has_lo) {
        fprintf(k->out, "%s%s <= %lld", k->sep, v, (long long)hi);
    } else if (!has_hi) {
        fprintf(k->out, "%s%s >= %lld", k->sep, v, (long long)lo);
    } else {
        fprintf(k->out, "%s%lld <= %s <= %lld", k->sep, (long long)lo, v, (long long)hi);
    }
    k->sep = k->json ? "," : ", ";
}

static void put_rel(sink *k, const char *a, int sb, const char *b, const char *op, int64_t c,
                    bool mod32)
{
    if (k->json) {
        fprintf(k->out, "%s{\"lhs\":[[1,", k->sep);
        json_string(k->out, a);
        fprintf(k->out, "],[%d,", sb);
        json_string(k->out, b);
        fprintf(k->out, "]],\"op\":\"%s\",\"rhs\":%lld%s}", op, (long long)c,
                mod32 ? ",\"mod_2_32\":true" : "");
    } else if (!strcmp(op, "=") && sb < 0) { /* a - b = c: a = b + c */
        if (c == 0) fprintf(k->out, "%s%s = %s", k->sep, a, b);
        else fprintf(k->out, "%s%s = %s %c %lld", k->sep, a, b, c > 0 ? '+' : '-',
                     (long long)(c > 0 ? c : -c));
    } else {
        fprintf(k->out, "%s%s %c %s %s %lld", k->sep, a, sb < 0 ? '-' : '+', b, op, (long long)c);
    }
    if (!k->json && mod32) fprintf(k->out, " (mod 2^32)");
    k->sep = k->json ? "," : ", ";
}

/* The fact at (ui, pc) into k: bounds, then (json: after `mid`) relations. */
static void fact_put(const an_result *r, uint32_t ui, uint32_t pc, sink *k,
                     bool (*owned)(void *ctx, uint32_t elem), void *ctx, const char *mid)
{
    const an_unit *u = &r->units[ui];
    FILE *out = k->out;
    bool bottom;
    uint8_t *b = wrapped(r, ui, pc, &bottom);
    if (!b) {
        if (k->json) fprintf(out, "%s", bottom ? "" : "\"?\"");
        else fprintf(out, "%s", bottom ? "false (unreachable)" : "? (out of memory)");
        if (k->json) fputs(mid, out);
        return;
    }
    an_fact f = an_fact_at(u, b);
    uint32_t d = 2 * u->n;
    bool *show = calloc(u->n, sizeof *show);
    int64_t *lo = malloc(u->n * sizeof *lo), *hi = malloc(u->n * sizeof *hi);
    if (!show || !lo || !hi) {
        fprintf(out, "%s", k->json ? "\"?\"" : "? (out of memory)");
        if (k->json) fputs(mid, out);
        goto out;
    }
    for (uint32_t v = 0; v < u->n; v++) {
        oct_bounds(f.m, u->n, v, &lo[v], &hi[v]);
        if (v < u->nregs) show[v] = true;
        else if (v < u->nregs + 2) show[v] = u->summary;
        else {
            uint32_t e = elem_of(u, v);
            show[v] = vm_elem_var(r->p, e)->cls != VM_VOLATILE && (!owned || owned(ctx, e));
        }
    }
    char a[96], c2[96];
    for (uint32_t v = 0; v < u->n; v++) {
        if (!show[v] || (lo[v] <= INT32_MIN && hi[v] >= INT32_MAX)) continue;
        var_name(r, u, v, a, sizeof a);
        put_bound(k, a, lo[v], lo[v] > INT32_MIN, hi[v], hi[v] < INT32_MAX);
    }
    if (k->json) {
        fputs(mid, out);
        k->sep = "";
    }
    for (uint32_t i = 0; i < u->n; i++) {
        if (!show[i] || lo[i] == hi[i]) continue;
        for (uint32_t j = i + 1; j < u->n; j++) {
            if (!show[j] || lo[j] == hi[j]) continue;
            var_name(r, u, i, a, sizeof a);
            var_name(r, u, j, c2, sizeof c2);
            /* i - j in [-m[2i][2j], m[2j][2i]]; i + j in [-m[2i][2j+1], m[2i+1][2j]] */
            int64_t up = f.m[(size_t)(2 * j) * d + 2 * i], dn = f.m[(size_t)(2 * i) * d + 2 * j];
            int64_t sup = f.m[(size_t)(2 * i + 1) * d + 2 * j];
            int64_t sdn = f.m[(size_t)(2 * i) * d + 2 * j + 1];
            bool up_new = up != AN_INF && up < hi[i] - lo[j];
            bool dn_new = dn != AN_INF && dn < hi[j] - lo[i];
            if (up_new && dn_new && up == -dn) {
                put_rel(k, a, -1, c2, "=", up, false);
            } else {
                if (up_new) put_rel(k, a, -1, c2, "<=", up, false);
                if (dn_new) put_rel(k, c2, -1, a, "<=", dn, false);
            }
            if (sup != AN_INF && sup < hi[i] + hi[j]) put_rel(k, a, 1, c2, "<=", sup, false);
            if (sdn != AN_INF && sdn < -(lo[i] + lo[j])) put_rel(k, a, 1, c2, ">=", -sdn, false);
        }
    }
    /* equalities of variables the wrapping forgot: they hold modulo 2^32 */
    const an_fact o = an_fact_at(u, an_block(u, pc));
    for (uint32_t i = 0; i < u->n; i++) {
        if (!show[i] || !(lo[i] <= INT32_MIN && hi[i] >= INT32_MAX)) continue;
        for (uint32_t j = 0; j < u->n; j++) {
            if (j == i || !show[j] || (j < i && lo[j] <= INT32_MIN && hi[j] >= INT32_MAX)) continue;
            int64_t up = o.m[(size_t)(2 * j) * d + 2 * i], dn = o.m[(size_t)(2 * i) * d + 2 * j];
            if (up == AN_INF || up != -dn) continue;
            if (f.m[(size_t)(2 * j) * d + 2 * i] == up && f.m[(size_t)(2 * i) * d + 2 * j] == dn)
                continue; /* printed above */
            var_name(r, u, i, a, sizeof a);
            var_name(r, u, j, c2, sizeof c2);
            put_rel(k, a, -1, c2, "=", up, true);
        }
    }
    if (!k->json && !*k->sep) fprintf(out, "true");
out:
    free(show);
    free(lo);
    free(hi);
    free(b);
}

void an_fact_print(const an_result *r, uint32_t ui, uint32_t pc, FILE *out,
                   bool (*owned)(void *ctx, uint32_t elem), void *ctx)
{
    sink k = {out, false, ""};
    fact_put(r, ui, pc, &k, owned, ctx, "");
}

void an_fact_print_json(const an_result *r, uint32_t ui, uint32_t pc, FILE *out,
                        bool (*owned)(void *ctx, uint32_t elem), void *ctx)
{
    sink k = {out, true, ""};
    fprintf(out, "{\"reached\":%s,\"bounds\":[", an_reached(r, ui, pc) ? "true" : "false");
    fact_put(r, ui, pc, &k, owned, ctx, "],\"relations\":[");
    fprintf(out, "]}");
}

void an_fact_json(const an_result *r, uint32_t ui, uint32_t pc, FILE *out)
{
    const an_unit *u = &r->units[ui];
    bool bottom;
    uint8_t *b = wrapped(r, ui, pc, &bottom);
    if (!b) {
        fprintf(out, "{\"bottom\":%s,\"cons\":[]}", bottom ? "true" : "false");
        return;
    }
    an_fact f = an_fact_at(u, b);
    uint32_t d = 2 * u->n;
    fprintf(out, "{\"bottom\":false,\"cons\":[");
    const char *sep = "";
    for (uint32_t I = 0; I < d; I++)
        for (uint32_t J = 0; J < d; J++) {
            int64_t c = f.m[(size_t)I * d + J];
            if (c == AN_INF || I == J) continue;
            uint32_t tI = oct_bar(J), tJ = oct_bar(I); /* the coherent twin */
            if (tI < I || (tI == I && tJ < J)) continue;
            int si = (I & 1) ? -1 : 1, sj = (J & 1) ? -1 : 1;
            if ((I >> 1) == (J >> 1)) /* V_J - V_I = 2 sj x */
                fprintf(out, "%s[%d,%u,0,-1,%lld]", sep, sj, json_var(u, J >> 1),
                        (long long)(c >= 0 ? c / 2 : -((-c + 1) / 2)));
            else
                fprintf(out, "%s[%d,%u,%d,%u,%lld]", sep, sj, json_var(u, J >> 1), -si,
                        json_var(u, I >> 1), (long long)c);
            sep = ",";
        }
    for (uint32_t e = 0; e < u->nelems; e++) { /* the elements outside the pack */
        if (u->edim[e] >= 0) continue;
        int64_t lo = f.iv[2 * e], hi = f.iv[2 * e + 1];
        int32_range_of(&lo, &hi);
        if (hi < INT32_MAX) fprintf(out, "%s[1,%u,0,-1,%lld]", sep, u->nregs + 2 + e, (long long)hi);
        if (hi < INT32_MAX) sep = ",";
        if (lo > INT32_MIN) fprintf(out, "%s[-1,%u,0,-1,%lld]", sep, u->nregs + 2 + e, (long long)-lo);
        if (lo > INT32_MIN) sep = ",";
    }
    fprintf(out, "]}");
    free(b);
}
