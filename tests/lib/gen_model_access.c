/* gen_model_access.c: the pieces of gen_model that touch the shared
 * variables: operands (index registers, computed indexes, the variables the
 * held locks make accessible), read-modify-writes, the invariant pairs,
 * critical sections (nested, recursive, with computed lock indexes) and,
 * with --undisciplined, the accesses that break the discipline. */
#include "gen_model_int.h"

/* ---- operands ------------------------------------------------------------ */

/* Index register of lock nesting depth d. */
const char *idx_reg(int d)
{
    static const char *r[MAX_HELD] = {"r4", "r5", "r8"};
    return r[d];
}

/* A non-negative run-time value in [0, n): writes code computing it into
 * `reg` (returns reg), or returns an immediate. */
const char *index_operand(gen *g, const char *reg, int n, char *buf, size_t bn)
{
    if (g->sp && g->bodies[g->cur].proc && chance(g, 35)) {
        /* --spawns: a child indexes by its id, which the spawn order decides */
        EMIT("    mod %s, tid, %d\n", reg, n);
        snprintf(buf, bn, "%s", reg);
        return buf;
    }
    switch (rnd(g, 6)) {
    case 0:
    case 1:
        snprintf(buf, bn, "%d", rnd(g, n));
        return buf;
    case 2:
        if (!g->bodies[g->cur].proc && g->bodies[g->cur].count <= n) {
            /* self < n already: index by `self` itself (the per-thread
             * element the detectors' liveness analysis tracks) */
            snprintf(buf, bn, "self");
            return buf;
        }
        EMIT("    mod %s, self, %d\n", reg, n);
        break;
    case 3:
        EMIT("    add %s, tid, %d\n", reg, rnd(g, 3));
        EMIT("    mod %s, %s, %d\n", reg, reg, n);
        break;
    case 4:
        if (g->loopdepth > 0) {
            EMIT("    mod %s, r6, %d\n", reg, n);
            break;
        }
        /* fall through */
    default:
        EMIT("    choose %s, 0, %d\n", reg, n - 1);
        break;
    }
    snprintf(buf, bn, "%s", reg);
    return buf;
}

static bool holds_static(const gen *g, int decl, int elem)
{
    for (int i = 0; i < g->nh; i++)
        if (g->h[i].decl == decl && (g->locks[decl].size == 0 || g->h[i].elem == elem)) return true;
    return false;
}

/* Shared variables accessible with the locks now held; for element-wise
 * guarded arrays `idx` receives the index operand to use. */
static int accessible(gen *g, int *list, const char **idx)
{
    int n = 0;
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        if (v->cls != V_SHARED) continue;
        if (v->guard_elem < 0) {
            int k;
            for (k = 0; k < g->nh; k++)
                if (g->h[k].decl == v->guard) {
                    idx[n] = g->h[k].idx;
                    list[n++] = i;
                    break;
                }
            if (k == g->nh && g->nh && brk(g, 6)) { /* under another lock */
                idx[n] = NULL;
                list[n++] = i;
            }
        } else if (holds_static(g, v->guard, v->guard_elem)) {
            idx[n] = NULL;
            list[n++] = i;
        } else if (g->nh && brk(g, 6)) { /* inconsistent locks */
            idx[n] = NULL;
            list[n++] = i;
        }
    }
    return n;
}

/* mem operand text for variable v; for a wholly guarded array, computes an
 * index (into r2) first. */
void mem_text(gen *g, int v, const char *eidx, char *buf, size_t n)
{
    const var *x = &g->vars[v];
    if (!x->size) {
        snprintf(buf, n, "%s", x->name);
    } else if (eidx) {
        snprintf(buf, n, "%s[%s]", x->name, eidx);
    } else {
        char ib[16];
        const char *i = index_operand(g, "r2", x->size, ib, sizeof ib);
        snprintf(buf, n, "%s[%s]", x->name, i);
    }
}

/* ---- pieces -------------------------------------------------------------- */


/* Read-modify-write of v under its lock; values stay in (-mod, mod). */
static void emit_rmw(gen *g, int v, const char *eidx)
{
    char m[32];
    const var *x = &g->vars[v];
    mem_text(g, v, eidx, m, sizeof m);
    switch (rnd(g, 6)) {
    case 0:
        EMIT("    store %s, %s\n", m, ex(g, rnd(g, x->mod)));
        return;
    case 4: /* halve and step: div by a non-zero constant or a register */
        EMIT("    load r0, %s\n", m);
        if (chance(g, 50)) {
            EMIT("    div r0, r0, %s\n", ex(g, between(g, 2, 3)));
        } else {
            EMIT("    or r3, r0, 1\n    div r0, %d, r3\n", between(g, 3, 7)); /* r3 odd: not 0 */
        }
        EMIT("    add r0, r0, 1\n    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    case 1:
        EMIT("    load r0, %s\n", m);
        EMIT("    sub r0, r0, 1\n");
        EMIT("    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    case 2:
        EMIT("    load r0, %s\n", m);
        EMIT("    mul r0, r0, 3\n");
        EMIT("    add r0, r0, %s\n", ex(g, between(g, 1, 2)));
        EMIT("    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    default:
        EMIT("    load r0, %s\n", m);
        EMIT("    add r0, r0, %s\n", ex(g, between(g, 1, x->mod - 1)));
        EMIT("    mod r0, r0, %s\n", ex(g, x->mod));
        break;
    }
    EMIT("    store %s, r0\n", m);
}

/* The invariant pair: update both (keeps p == q), check, or (rarely) break it. */
static void emit_pair(gen *g, int a)
{
    const var *x = &g->vars[a], *y = &g->vars[x->twin];
    int k = rnd(g, 10);
    if (k < 5) {
        int inc = between(g, 1, x->mod - 1);
        EMIT("    load r0, %s\n    add r0, r0, %d\n    mod r0, r0, %d\n    store %s, r0\n",
             x->name, inc, x->mod, x->name);
        if (chance(g, 50)) EMIT("    nop\n");
        EMIT("    load r1, %s\n    add r1, r1, %d\n    mod r1, r1, %d\n    store %s, r1\n",
             y->name, inc, y->mod, y->name);
    } else if (k < 9) {
        EMIT("    load r0, %s\n    load r1, %s\n    eq r2, r0, r1\n", x->name, y->name);
        EMIT("    assert r2, \"%s == %s\"\n", x->name, y->name);
    } else {
        EMIT("    load r0, %s\n    add r0, r0, 1\n    mod r0, r0, %d\n    store %s, r0\n",
             x->name, x->mod, x->name);
    }
}

/* rd := (rs < bound) for a value rs in (-bound-1, bound], in one of several
 * spellings (lt, le, ge+not, gt+neg, ne at the top). */
static void emit_less(gen *g, const char *rd, const char *rs, int bound)
{
    switch (rnd(g, 5)) {
    case 0:
        EMIT("    lt %s, %s, %s\n", rd, rs, ex(g, bound));
        break;
    case 1:
        EMIT("    le %s, %s, %s\n", rd, rs, ex(g, bound - 1));
        break;
    case 2:
        EMIT("    ge %s, %s, %d\n    not %s, %s\n", rd, rs, bound, rd, rd);
        break;
    case 3: /* -rs > -bound */
        EMIT("    neg %s, %s\n    gt %s, %s, %s\n", rd, rs, rd, rd, ex(g, -bound));
        break;
    default: /* values above bound do not occur: rs < bound iff rs != bound */
        EMIT("    ne %s, %s, %d\n", rd, rs, bound);
        break;
    }
}

static void emit_read_assert(gen *g, int v, const char *eidx)
{
    char m[32];
    const var *x = &g->vars[v];
    mem_text(g, v, eidx, m, sizeof m);
    EMIT("    load r1, %s\n", m);
    int bound = chance(g, 70) ? x->mod : x->mod - 1; /* the second may fail */
    emit_less(g, "r3", "r1", bound);
    EMIT("    assert r3, \"%s < %d\"\n", x->name, bound);
}

/* The body of a critical section: operations on the variables the held locks
 * guard, nested sections, choose, volatile traffic. */
static void cs_contents(gen *g, int depth)
{
    int n = between(g, 1, g->medium ? 3 : 2);
    for (int i = 0; i < n; i++) {
        int list[MAX_VARS];
        const char *idx[MAX_VARS];
        int na = accessible(g, list, idx);
        int k = rnd(g, 12);
        int j = na ? rnd(g, na) : 0;
        int v = na ? list[j] : -1;
        const char *e = na ? idx[j] : NULL;
        if (k < 6 && na) {
            if (g->vars[v].twin >= 0)
                emit_pair(g, v);
            else if (chance(g, 20))
                emit_read_assert(g, v, e);
            else
                emit_rmw(g, v, e);
        } else if (k < 8 && g->nh < MAX_HELD && depth < 3) {
            piece(g, depth + 1); /* usually a nested section */
        } else if (k < 9) {
            /* a choose between two updates */
            if (!na) continue;
            int l1 = new_label(g), l2 = new_label(g);
            EMIT("    choose r0, 0, 1\n    jz r0, L%d\n", l1);
            emit_rmw(g, v, e);
            EMIT("    jmp L%d\nL%d:\n", l2, l1);
            if (chance(g, 50)) emit_rmw(g, v, e);
            EMIT("L%d: nop\n", l2);
        } else if (k < 10) {
            /* notifyall or notify of a held lock (nobody may wait: a no-op) */
            const held *hh = &g->h[rnd(g, g->nh)];
            if (hh->skipped) continue; /* maybe not held: no runtime error */
            const lockdecl *l = &g->locks[hh->decl];
            if (l->size)
                EMIT("    %s %s[%s]\n", chance(g, 50) ? "notify" : "notifyall", l->name, hh->idx);
            else
                EMIT("    %s %s\n", chance(g, 50) ? "notify" : "notifyall", l->name);
        } else {
            for (int w = 0; w < g->nvars; w++)
                if (g->vars[w].cls == V_VOLATILE && !g->vars[w].size) {
                    EMIT("    store %s, %d\n", g->vars[w].name, rnd(g, 3));
                    break;
                }
        }
    }
}

void lock_text(gen *g, const held *hh, char *buf, size_t n)
{
    const lockdecl *l = &g->locks[hh->decl];
    if (l->size)
        snprintf(buf, n, "%s[%s]", l->name, hh->idx);
    else
        snprintf(buf, n, "%s", l->name);
}

/* acquire [re-acquire] contents release [release]; lock orders are random,
 * so two threads may nest two locks in opposite orders. */
void emit_cs(gen *g, int depth)
{
    if (g->nh >= MAX_HELD) return;
    held *hh = &g->h[g->nh];
    hh->decl = rnd(g, g->nlocks);
    const lockdecl *l = &g->locks[hh->decl];
    if (l->size) {
        const char *i = index_operand(g, idx_reg(g->nh), l->size, hh->idx, sizeof hh->idx);
        if (i[0] >= '0' && i[0] <= '9')
            hh->elem = atoi(i);
        else
            hh->elem = -1;
    } else {
        hh->idx[0] = '\0';
        hh->elem = 0;
    }
    char lt[32];
    lock_text(g, hh, lt, sizeof lt);
    g->nh++;
    bool rec = chance(g, 20);
    /* --undisciplined: on one branch of a choose the lock is not taken */
    static const char *skipreg[MAX_HELD] = {"r9", "r10", "r11"};
    const char *sr = skipreg[g->nh - 1];
    bool skip = !rec && brk(g, 8);
    hh->skipped = skip;
    int ls = 0;
    if (skip) {
        ls = new_label(g);
        EMIT("    choose %s, 0, 1   ; the lock only sometimes\n    jz %s, L%d\n", sr, sr, ls);
    }
    EMIT("    acquire %s\n", lt);
    if (skip) EMIT("L%d:\n", ls);
    if (rec) EMIT("    acquire %s   ; recursive\n", lt);
    cs_contents(g, depth);
    if (rec) {
        EMIT("    release %s\n", lt);
        if (chance(g, 40)) cs_contents(g, depth);
    }
    g->nh--;
    if (skip) {
        ls = new_label(g);
        EMIT("    jz %s, L%d\n", sr, ls);
    }
    EMIT("    release %s\n", lt);
    if (skip) EMIT("L%d: nop\n", ls);
    if (brk(g, 10)) { /* --undisciplined: one more access after the release */
        int vs[MAX_VARS], n = 0;
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_SHARED && g->vars[i].guard == hh->decl) vs[n++] = i;
        if (n) {
            int v = vs[rnd(g, n)];
            const char *e = g->vars[v].guard_elem < 0 ? hh->idx : NULL;
            EMIT("    ; after the release\n");
            if (chance(g, 40))
                emit_read_assert(g, v, e);
            else
                emit_rmw(g, v, e);
        }
    }
}

/* --undisciplined: an access to a global without its lock (or under some
 * other lock), maybe only on one branch of a choose or of a volatile test. */
void emit_racy(gen *g)
{
    int vs[MAX_VARS], n = 0;
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].cls != V_VOLATILE && g->vars[i].cls != V_PUB) vs[n++] = i;
    if (!n) {
        emit_arith_loop(g);
        return;
    }
    int v = vs[rnd(g, n)];
    int skip = 0;
    if (g->sp && g->bodies[g->cur].proc && chance(g, 50)) {
        /* --spawns: only a child that got certain ids: a violation that
         * needs one order of the spawns */
        skip = new_label(g);
        EMIT("    lt r0, tid, %d\n    jz r0, L%d\n", nstatic(g) + between(g, 1, nspawned(g)), skip);
    } else switch (rnd(g, 4)) {
    case 0:
        skip = new_label(g);
        EMIT("    choose r0, 0, %d\n    jz r0, L%d\n", between(g, 1, 2), skip);
        break;
    case 1:
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_VOLATILE && !g->vars[i].size) {
                skip = new_label(g);
                EMIT("    load r1, %s\n    jz r1, L%d\n", g->vars[i].name, skip);
                break;
            }
        break;
    default:
        break;
    }
    held other = {0};
    char lt[32] = "";
    if (chance(g, 35)) { /* under some lock, likely not the right one */
        pick_static_lock(g, &other.decl, &other.elem);
        if (g->locks[other.decl].size) snprintf(other.idx, sizeof other.idx, "%d", other.elem);
        lock_text(g, &other, lt, sizeof lt);
        EMIT("    acquire %s   ; not (necessarily) the guard\n", lt);
    } else {
        EMIT("    ; no lock\n");
    }
    char m[32];
    switch (rnd(g, 4)) {
    case 0:
        mem_text(g, v, NULL, m, sizeof m);
        EMIT("    load r1, %s\n", m);
        break;
    case 1:
        emit_read_assert(g, v, NULL);
        break;
    case 2:
        mem_text(g, v, NULL, m, sizeof m);
        EMIT("    store %s, %d\n", m, rnd(g, g->vars[v].mod));
        break;
    default:
        emit_rmw(g, v, NULL);
        break;
    }
    if (lt[0]) EMIT("    release %s\n", lt);
    if (skip) EMIT("L%d: nop\n", skip);
}

/* --undisciplined: misuse of the special globals; true when it emitted. */
bool emit_misc_undisc(gen *g)
{
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        char m[32];
        if (v->cls == V_READONLY && brk(g, 30)) { /* a write after a read-only phase */
            EMIT("    store %s, %d   ; written after all\n", v->name, rnd(g, v->mod));
            return true;
        }
        if (v->cls == V_UNSHARED && v->intruder == g->cur && chance(g, 60)) {
            mem_text(g, i, NULL, m, sizeof m);
            EMIT("    load r1, %s   ; touched by a second body\n", m);
            if (chance(g, 50)) EMIT("    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n", m);
            return true;
        }
        if (v->cls == V_UNSHARED && v->owner == g->cur && v->size) { /* (not scalar) */
            mem_text(g, i, NULL, m, sizeof m);
            EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n", m, m);
            return true;
        }
        if (v->cls == V_INIT && chance(g, 50)) {
            /* another body reads it (first, if it wins the race: a
             * violation), or someone writes it again */
            mem_text(g, i, NULL, m, sizeof m);
            if (v->init_body != g->cur && !chance(g, 25))
                EMIT("    load r1, %s   ; after its init phase?\n", m);
            else
                EMIT("    store %s, %d   ; a write after the init phase\n", m, rnd(g, v->mod));
            return true;
        }
        if (v->cls == V_INITMAIN && brk(g, 30)) {
            EMIT("    store %s, %d   ; a write after the init phase\n", v->name, rnd(g, v->mod));
            return true;
        }
    }
    return false;
}
