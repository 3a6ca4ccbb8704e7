/* assemble.c: the mcheck assembler, model text -> vm_program (vm.h): the
 * pipeline, and the memory and name maps every stage uses.
 *
 * Three stages, so names may be used before their declaration: (1) lex every
 * line and read the top-level declarations into one namespace (bodies are
 * line ranges; asm_lex.c, asm_decl.c); (2) resolve constants (after -D),
 * sizes and initial values (asm_const.c); (3) decode each body (asm_code.c),
 * lay out the state vector, build the initial state (asm_const.c).
 * Diagnostics are kept sorted by position; 20 are printed clang-style, all
 * are counted. No exit(), no global state; everything the program owns lives
 * in its arena. docs/language.md is the user's description of the syntax. */
#include "assemble_int.h"

/* ---- arena: every allocation the program owns ------------------------ */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[];
} arena_block;

#define ARENA_CHUNK ((size_t)64 * 1024)

/* Zeroed memory owned by p (freed by vm_program_free), or NULL. The newest
 * chunk is the list head; oversized requests get a block of their own, linked
 * behind the head so the head keeps its free space. */
void *asm_arena_alloc(vm_program *p, size_t n)
{
    const size_t align = _Alignof(max_align_t);
    arena_block *head = p->arena;
    if (n > SIZE_MAX / 2) return NULL;
    n = n ? (n + align - 1) / align * align : align;
    if (!head || head->cap - head->used < n) {
        size_t cap = n > ARENA_CHUNK / 2 ? n : ARENA_CHUNK;
        arena_block *b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        if (head && cap != ARENA_CHUNK) {
            b->next = head->next;
            head->next = b;
        } else {
            b->next = head;
            p->arena = b;
        }
        head = b;
    }
    void *r = (char *)head->data + head->used;
    head->used += n;
    memset(r, 0, n);
    return r;
}

void vm_program_free(vm_program *p)
{
    if (!p) return;
    arena_block *b = p->arena;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(p);
}

/* Makes room for one more element of `sz` bytes; returns the (maybe moved)
 * array. On failure the array is unchanged and *cap too. */
void *asm_vec_grow(asm_ctx *c, void *v, uint32_t *cap, size_t sz)
{
    if (c->oom) return v;
    if (*cap > UINT32_MAX / 2) {
        asm_out_of_memory(c);
        return v;
    }
    uint32_t ncap = *cap ? *cap * 2 : 16;
    if ((size_t)ncap > SIZE_MAX / sz) {
        asm_out_of_memory(c);
        return v;
    }
    void *nv = realloc(v, (size_t)ncap * sz);
    if (!nv) {
        asm_out_of_memory(c);
        return v;
    }
    *cap = ncap;
    return nv;
}

/* A NUL-terminated copy of n bytes, owned by the program. */
char *asm_arena_strndup(asm_ctx *c, const char *s, size_t n)
{
    char *r = n < SIZE_MAX ? asm_arena_alloc(c->p, n + 1) : NULL;
    if (!r) {
        asm_out_of_memory(c);
        return NULL;
    }
    if (n) memcpy(r, s, n);
    return r;
}

/* ---- name maps -------------------------------------------------------- */

static uint32_t name_hash(const char *k, uint32_t len)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < len; i++) h = (h ^ (uint8_t)k[i]) * 16777619u;
    return h;
}

/* The slot holding k, or the empty slot where it would go; NULL if empty map. */
static strslot *strmap_slot(const strmap *m, const char *k, uint32_t len)
{
    if (!m->cap) return NULL;
    uint32_t i = name_hash(k, len) & (m->cap - 1);
    while (m->s[i].k && !(m->s[i].len == len && memcmp(m->s[i].k, k, len) == 0))
        i = (i + 1) & (m->cap - 1);
    return &m->s[i];
}

bool asm_strmap_get(const strmap *m, const char *k, uint32_t len, int32_t *v)
{
    const strslot *s = strmap_slot(m, k, len);
    if (!s || !s->k) return false;
    *v = s->v;
    return true;
}

/* Inserts or replaces k -> v. */
void asm_strmap_put(asm_ctx *c, strmap *m, const char *k, uint32_t len, int32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t ncap = m->cap ? m->cap * 2 : 64;
        strslot *ns = m->cap > UINT32_MAX / 4 ? NULL : calloc(ncap, sizeof *ns);
        if (!ns) {
            asm_out_of_memory(c);
            return;
        }
        strmap old = *m;
        m->s = ns;
        m->cap = ncap;
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.s[i].k) *strmap_slot(m, old.s[i].k, old.s[i].len) = old.s[i];
        free(old.s);
    }
    strslot *s = strmap_slot(m, k, len);
    if (!s->k) m->n++;
    *s = (strslot){k, len, v};
}

void asm_strmap_clear(strmap *m)
{
    if (m->s) memset(m->s, 0, (size_t)m->cap * sizeof *m->s);
    m->n = 0;
}

/* ---- entry points ----------------------------------------------------- */

static void free_ctx(asm_ctx *c)
{
    free(c->toks.v);
    free(c->lines.v);
    free(c->decls.v);
    free(c->inits.v);
    free(c->path.v);
    free(c->prop_lines.v);
    free(c->region_lines.v);
    free(c->names.s);
    free(c->b.labelmap.s);
    free(c->b.labels.v);
    free(c->b.regmap.s);
    free(c->b.regs.v);
    free(c->b.slots.v);
    free(c);
}

vm_program *vm_assemble(const char *filename, const char *src, size_t len,
                        const vm_define *defs, size_t ndefs, FILE *diag,
                        int *nerrors)
{
    return vm_assemble_for(filename, src, len, defs, ndefs, diag, nerrors, 0);
}

vm_program *vm_assemble_for(const char *filename, const char *src, size_t len,
                            const vm_define *defs, size_t ndefs, FILE *diag, int *nerrors,
                            uint32_t max_threads)
{
    const char *file = filename ? filename : "<input>";
    asm_ctx *c = calloc(1, sizeof *c);
    vm_program *p = calloc(1, sizeof *p);
    if (!c || !p) {
        if (diag) fprintf(diag, "%s: error: out of memory\n", file);
        if (nerrors) *nerrors = -1;
        free(c);
        free(p);
        return NULL;
    }
    c->p = p;
    c->max_threads = max_threads == 0 ? VM_MAX_THREADS
                     : max_threads < VM_MAX_THREADS_ANALYSIS ? max_threads
                                                             : VM_MAX_THREADS_ANALYSIS;
    c->file = file;
    c->src = src ? src : "";
    c->len = src ? len : 0;
    c->diag = diag;
    p->filename = asm_arena_strndup(c, file, strlen(file));
    if (c->oom) {
        /* reported below */
    } else if (c->len > MAX_SOURCE_BYTES) {
        asm_error_where(c, D_FILE, "input too large (limit %d bytes)", INT32_MAX);
    } else {
        asm_read_lines(c);
        if (!c->oom) asm_read_toplevel(c);
        if (!c->oom) asm_resolve(c, defs, ndefs);
        if (!c->oom) asm_assemble_bodies(c);
        if (!c->nerrors && !c->oom) asm_build_program(c);
        if (!c->nerrors && !c->oom) asm_read_props(c);
        if (!c->nerrors && !c->oom) asm_read_regions(c);
    }
    for (uint32_t b = 0; !c->nerrors && !c->oom && b < p->nbodies; b++)
        for (uint32_t pc = 0; pc < p->bodies[b].ncode; pc++)
            if (p->bodies[b].code[pc].op == VM_OP_store) p->vars[p->bodies[b].code[pc].obj].stored = true;
    asm_print_diagnostics(c);
    int ne = c->oom ? -1 : c->nerrors;
    free_ctx(c);
    if (nerrors) *nerrors = ne;
    if (ne) {
        vm_program_free(p);
        return NULL;
    }
    return p;
}

