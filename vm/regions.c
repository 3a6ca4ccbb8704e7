/* regions.c: `region NAME = x, y, ...` lines (issue 33): shared variables
 * that mcheck --analyze keeps together at an import, so that their
 * relations survive the mix (RATCOP's regions and region race freedom,
 * section 7; notes-ratcop-ziptrack.md B4, C2). Read once the program is
 * built, like props.c's lines, so that the variables may be declared
 * anywhere. Each name must be a shared variable (a whole array counts as
 * one member) in no other region. The search ignores regions; mcheck
 * --analyze=check searches for region races on the model rewritten with a
 * ghost variable per region (tools/cli/analyze_cli.c). */
#include "assemble_int.h"

void asm_read_regions(asm_ctx *c)
{
    uint32_t n = c->region_lines.n;
    if (!n) return;
    vm_program *p = c->p;
    p->regions = asm_arena_alloc(p, n * sizeof *p->regions);
    int32_t *in = asm_arena_alloc(p, (p->nvars ? p->nvars : 1) * sizeof *in); /* var -> region */
    uint32_t *vars = asm_arena_alloc(p, (p->nvars ? p->nvars : 1) * sizeof *vars);
    if (!p->regions || !in || !vars) {
        asm_out_of_memory(c);
        return;
    }
    for (uint32_t v = 0; v < p->nvars; v++) in[v] = -1;
    for (uint32_t i = 0; i < n && !c->oom; i++) {
        uint32_t li = c->region_lines.v[i];
        cursor k = asm_line_cursor(c, li, 1);
        const tok *name = cur_peek(&k);
        k.i++;
        bool bad = false;
        for (uint32_t j = 0; j < p->nregions; j++)
            if (strlen(p->regions[j].name) == name->len &&
                !memcmp(p->regions[j].name, name->p, name->len)) {
                asm_error_at(c, li, name->col, "duplicate region '%.*s'",
                             NAMEARG(name->p, name->len));
                asm_note_at(c, (uint32_t)p->regions[j].line - 1, p->regions[j].col,
                            "previous definition is here");
                bad = true;
            }
        if (!bad && !asm_cur_expect(&k, '=', "'=' after the region's name")) bad = true;
        uint32_t nv = 0;
        while (!bad) {
            const tok *t = cur_peek(&k);
            if (!t || t->kind != T_IDENT) {
                asm_cur_fail(&k, "a shared variable's name");
                bad = true;
                break;
            }
            k.i++;
            uint32_t v = 0;
            while (v < p->nvars &&
                   !(strlen(p->vars[v].name) == t->len && !memcmp(p->vars[v].name, t->p, t->len)))
                v++;
            if (v == p->nvars) {
                asm_error_at(c, li, t->col, "unknown variable '%.*s' in region '%.*s'",
                             NAMEARG(t->p, t->len), NAMEARG(name->p, name->len));
                bad = true;
            } else if (p->vars[v].cls != VM_SHARED) {
                asm_error_at(c, li, t->col, "'%.*s' is not a shared variable: a region groups "
                             "shared variables", NAMEARG(t->p, t->len));
                bad = true;
            } else if (in[v] >= 0) {
                asm_error_at(c, li, t->col, "'%.*s' is in region '%s' already: a variable is "
                             "in at most one region", NAMEARG(t->p, t->len),
                             in[v] == (int32_t)p->nregions ? "(this one)"
                                                           : p->regions[in[v]].name);
                bad = true;
            } else {
                in[v] = (int32_t)p->nregions;
                vars[nv++] = v;
            }
            if (bad || !cur_accept(&k, ',')) break;
        }
        if (!bad && !asm_cur_expect_end(&k)) bad = true;
        if (bad) {
            for (uint32_t j = 0; j < nv; j++) in[vars[j]] = -1;
            continue;
        }
        vm_region *rg = &p->regions[p->nregions++];
        rg->name = asm_arena_strndup(c, name->p, name->len);
        rg->line = c->lines.v[li].no;
        rg->col = name->col;
        uint32_t *mv = asm_arena_alloc(p, nv * sizeof *mv);
        if (!mv) {
            asm_out_of_memory(c);
            return;
        }
        memcpy(mv, vars, nv * sizeof *mv);
        rg->vars = mv;
        rg->nvars = nv;
    }
}
