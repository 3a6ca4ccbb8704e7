/* gen_model_body.c: the rest of gen_model's pieces (volatile traffic,
 * choose, arithmetic loops, monitors' waiters and notifiers, hazards, spins,
 * thread ids, endless loops), piece(), which picks one, and gen_body(),
 * which writes a body: its spawns and joins, its roles in a shuffled order
 * (the channel roles and --rendezvous's order are in gen_model_chan.c), and
 * how it ends. */
#include "gen_model_int.h"

/* ---- pieces (continued) ------------------------------------------------- */

static void emit_volatile(gen *g)
{
    int vs[MAX_VARS], n = 0;
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].cls == V_VOLATILE) vs[n++] = i;
    if (!n) return;
    const var *v = &g->vars[vs[rnd(g, n)]];
    char m[32];
    if (v->size) {
        char ib[16];
        snprintf(m, sizeof m, "%s[%s]", v->name, index_operand(g, "r2", v->size, ib, sizeof ib));
    } else {
        snprintf(m, sizeof m, "%s", v->name);
    }
    int k = rnd(g, 6);
    if (k < 2) {
        EMIT("    store %s, %d\n", m, rnd(g, 3));
    } else if (k < 4) { /* read, branch on it */
        int l = new_label(g);
        EMIT("    load r1, %s\n    jz r1, L%d\n", m, l);
        EMIT("    add r3, r3, 1\n    mod r3, r3, 2\n");
        EMIT("L%d: nop\n", l);
    } else if (k < 5) { /* two reads may differ: an assertion that can fail */
        EMIT("    load r0, %s\n    load r1, %s\n    eq r3, r0, r1\n", m, m);
        EMIT("    assert r3, \"%s read twice\"\n", v->name);
    } else { /* increment modulo 3 (a racy but visible update) */
        EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 3\n    store %s, r1\n", m, m);
    }
}

/* --atomic (issue 30): an atomic block over a volatile scalar (values in
 * [0, 3)): a fetch-and-add, a compare-and-swap loop, a guarded decrement
 * (`assume`: blocks while the value is 0), a critical section inside a block
 * (its first instruction acquires), or, now and then, an `assume` outside a
 * block that blocks the thread for good on one choice. Disciplined: the
 * volatile needs no lock, the critical section keeps its guard. */
static void emit_atomic(gen *g)
{
    int vs[MAX_VARS], n = 0, gv = -1;
    for (int i = 0; i < g->nvars; i++) {
        const var *x = &g->vars[i];
        if (x->cls == V_VOLATILE && !x->size && !x->is_flag) vs[n++] = i;
        if (gv < 0 && x->cls == V_SHARED && !x->size && x->guard >= 0 && x->guard_elem >= 0 &&
            x->twin < 0 && !x->is_flag && x->init_by < 0 && !x->init_main)
            gv = i;
    }
    int k = rnd(g, 9);
    if (k == 8) {
        EMIT("    choose r0, 0, 3\n    assume r0   ; blocks for good on 0\n");
        return;
    }
    if (k >= 6 && gv >= 0) {
        const var *x = &g->vars[gv];
        char lt[32];
        if (g->locks[x->guard].size)
            snprintf(lt, sizeof lt, "%s[%d]", g->locks[x->guard].name, x->guard_elem);
        else
            snprintf(lt, sizeof lt, "%s", g->locks[x->guard].name);
        EMIT("    atomic\n    acquire %s\n    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, %d\n"
             "    store %s, r1\n    release %s\n", lt, x->name, x->mod, x->name, lt);
        if (n) EMIT("    store %s, r1\n", g->vars[vs[rnd(g, n)]].name);
        EMIT("    end_atomic\n");
        return;
    }
    if (!n) {
        emit_volatile(g);
        return;
    }
    const char *v = g->vars[vs[rnd(g, n)]].name;
    if (k < 2) {
        EMIT("    atomic\n    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 3\n    store %s, r1\n"
             "    end_atomic\n", v, v);
    } else if (k < 4) {
        int l1 = new_label(g), l2 = new_label(g);
        EMIT("L%d: load r0, %s\n    atomic\n    load r1, %s\n    eq r1, r1, r0\n    jz r1, L%d\n"
             "    add r1, r0, 1\n    mod r1, r1, 3\n    store %s, r1\n    mov r1, 1\n"
             "L%d: end_atomic\n    jz r1, L%d\n", l1, v, v, l2, v, l2, l1);
    } else {
        EMIT("    atomic\n    load r1, %s\n    assume r1\n    sub r1, r1, 1\n    store %s, r1\n"
             "    end_atomic\n", v, v);
    }
}

/* if (choose) A else B */
static void emit_choose_branch(gen *g, int depth)
{
    int l1 = new_label(g), l2 = new_label(g);
    EMIT("    choose r0, 0, %d\n    jz r0, L%d\n", between(g, 1, 2), l1);
    piece(g, depth + 1);
    EMIT("    jmp L%d\nL%d:\n", l2, l1);
    if (chance(g, 60)) piece(g, depth + 1);
    EMIT("L%d: nop\n", l2);
}

/* invisible counted loop on registers */
void emit_arith_loop(gen *g)
{
    int l = new_label(g);
    int n = between(g, 2, 3);
    EMIT("    mov r7, 0\nL%d:\n", l);
    g->mult *= n;
    if (g->has_k)
        EMIT("    add r1, r1, r7\n    mul r1, r1, K\n    and r1, r1, 7\n");
    else
        EMIT("    add r1, r1, r7\n    mul r1, r1, %s\n    and r1, r1, 7\n", ex(g, between(g, 2, 5)));
    switch (rnd(g, 6)) {
    case 0:
        EMIT("    xor r1, r1, 0x3\n    shr r1, r1, 1\n");
        break;
    case 1:
        EMIT("    shl r1, r1, %d\n    or r1, r1, r7\n    and r1, r1, 7\n", between(g, 1, 2));
        break;
    case 2:
        EMIT("    neg r1, r1\n    and r1, r1, 7\n");
        break;
    case 3:
        EMIT("    not r2, r1\n    add r1, r1, r2\n    div r1, r1, %d\n", between(g, 2, 3));
        break;
    case 4:
        EMIT("    mod r2, r1, %d\n    sub r1, r1, r2\n", between(g, 2, 3));
        break;
    default:
        break;
    }
    if (chance(g, 50))
        EMIT("    add r7, r7, 1\n    lt r2, r7, %s\n    jnz r2, L%d\n", ex(g, n), l);
    else
        EMIT("    add r7, r7, 1\n    ge r2, r7, %d\n    jz r2, L%d\n", n, l);
    g->mult /= n;
    EMIT("    mov r7, 0\n");
}

static void monitor_lock_text(gen *g, const monitor *m, char *buf, size_t n)
{
    const lockdecl *l = &g->locks[m->lock];
    if (l->size)
        snprintf(buf, n, "%s[%d]", l->name, m->elem);
    else
        snprintf(buf, n, "%s", l->name);
}

/* --conds: pthread waiting on cond cvN with the monitor's lock at depth 1,
 * re-checking the condition in a `while` loop, or checking it once. */
static void emit_cwaiter(gen *g, const monitor *m)
{
    char lk[32];
    monitor_lock_text(g, m, lk, sizeof lk);
    const char *f = g->vars[m->flag].name;
    int lw = new_label(g), ld = new_label(g);
    EMIT("    acquire %s\n", lk);
    EMIT("L%d:\n    load r3, %s\n", lw, f);
    if (m->counting) EMIT("    gt r3, r3, 0\n");
    EMIT("    jnz r3, L%d\n", ld);
    if (chance(g, 15))
        EMIT("end_w%d: cwait cv%d, %s\n", lw, m->cond, lk);
    else
        EMIT("    cwait cv%d, %s\n", m->cond, lk);
    if (m->recheck) EMIT("    jmp L%d\n", lw);
    EMIT("L%d:\n", ld);
    if (m->consume) {
        if (m->counting)
            EMIT("    load r3, %s\n    sub r3, r3, 1\n    mod r3, r3, %s\n    store %s, r3\n", f,
                 ex(g, 4), f);
        else
            EMIT("    store %s, 0\n", f);
    }
    EMIT("    release %s\n", lk);
    if (g->wt && g->nh == 0 && chance(g, 60)) emit_cs(g, 1);
}

/* Java-monitor waiting: re-check the condition in a loop under the lock. */
static void emit_waiter(gen *g, const monitor *m)
{
    char lk[32];
    if (m->cond >= 0) {
        emit_cwaiter(g, m);
        return;
    }
    monitor_lock_text(g, m, lk, sizeof lk);
    const char *f = g->vars[m->flag].name;
    int lw = new_label(g), ld = new_label(g);
    bool rec = chance(g, 20);
    EMIT("    acquire %s\n", lk);
    if (rec) EMIT("    acquire %s   ; wait with depth 2\n", lk);
    EMIT("L%d:\n    load r3, %s\n", lw, f);
    if (m->counting) EMIT("    gt r3, r3, 0\n");
    EMIT("    jnz r3, L%d\n", ld);
    if (chance(g, 15))
        EMIT("end_w%d: wait %s\n", lw, lk);
    else
        EMIT("    wait %s\n", lk);
    EMIT("    jmp L%d\nL%d:\n", lw, ld);
    if (m->consume) {
        if (m->counting)
            EMIT("    load r3, %s\n    sub r3, r3, 1\n    store %s, r3\n", f, f);
        else
            EMIT("    store %s, 0\n", f);
    }
    if (rec) EMIT("    release %s\n", lk);
    EMIT("    release %s\n", lk);
    if (g->wt && g->nh == 0 && chance(g, 60)) emit_cs(g, 1); /* --waiters: once woken */
}

static void emit_notifier(gen *g, const monitor *m)
{
    char lk[32];
    monitor_lock_text(g, m, lk, sizeof lk);
    const char *f = g->vars[m->flag].name;
    EMIT("    acquire %s\n", lk);
    if (m->counting)
        EMIT("    load r3, %s\n    add r3, r3, 1\n    mod r3, r3, %s\n    store %s, r3\n", f, ex(g, 4), f);
    else
        EMIT("    store %s, 1\n", f);
    /* --waiters: work under another lock while the monitor's is held */
    if (g->wt && g->nh == 0 && chance(g, 60)) emit_cs(g, 1);
    if (m->cond >= 0) { /* --conds: no lock needed to signal */
        const char *op = chance(g, 60) ? "csignal" : "cbroadcast";
        if (chance(g, 30)) {
            EMIT("    release %s\n    %s cv%d\n", lk, op, m->cond);
        } else {
            EMIT("    %s cv%d\n    release %s\n", op, m->cond, lk);
        }
        return;
    }
    EMIT("    %s %s\n", chance(g, 50) ? "notify" : "notifyall", lk);
    EMIT("    release %s\n", lk);
}

/* A rare runtime error: division by zero or an index out of range. */
static void emit_hazard(gen *g)
{
    switch (rnd(g, 3)) {
    case 0:
        EMIT("    choose r1, 0, 2\n    div r2, 6, r1\n");
        break;
    case 1: {
        int va = -1;
        for (int i = 0; i < g->nvars; i++)
            if (g->vars[i].cls == V_VOLATILE && g->vars[i].size) va = i;
        if (va >= 0) {
            EMIT("    choose r1, 0, %d\n    store %s[r1], 1\n", g->vars[va].size,
                 g->vars[va].name);
            break;
        }
        EMIT("    choose r1, 0, 1\n    mod r2, 5, r1\n");
        break;
    }
    default: /* release of a lock this thread does not hold, on one branch */
        if (g->locks[0].size)
            EMIT("    choose r1, 0, 3\n    jnz r1, L%d\n    release %s[0]\nL%d: nop\n",
                 g->label + 1, g->locks[0].name, g->label + 1);
        else
            EMIT("    choose r1, 0, 3\n    jnz r1, L%d\n    release %s\nL%d: nop\n",
                 g->label + 1, g->locks[0].name, g->label + 1);
        g->label++;
        break;
    }
}

/* Spin on a volatile until it is non-zero (visible in every iteration). */
static void emit_spin(gen *g)
{
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].cls == V_VOLATILE && !g->vars[i].size) {
            int l = new_label(g);
            EMIT("L%d:\n    load r1, %s\n    jz r1, L%d\n", l, g->vars[i].name, l);
            return;
        }
}

static void emit_misc_global(gen *g)
{
    if (g->undisc && emit_misc_undisc(g)) return;
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        if (v->cls == V_READONLY && chance(g, 60)) {
            EMIT("    load r1, %s\n    lt r3, r1, %d\n    assert r3, \"read-only\"\n", v->name,
                 v->mod);
            return;
        }
        if (v->cls == V_UNSHARED && v->owner == g->cur && chance(g, 70)) {
            EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n",
                 v->name, v->name);
            return;
        }
        if (v->cls == V_INITMAIN && g->bodies[g->cur].proc && (!g->sp || from_main(g, g->cur))
            && chance(g, 70)) {
            EMIT("    load r1, %s\n    add r3, r1, 0\n", v->name);
            return;
        }
    }
    emit_arith_loop(g);
}

/* --spawns: a child uses its id (which the spawn order decides): asserts
 * a bound on it, stores it (modulo) into a guarded variable under its lock,
 * or indexes a lock array (and the array it guards element-wise) by it. */
static void emit_tid_piece(gen *g)
{
    int k = rnd(g, 3);
    if (k == 0) {
        int bound = nstatic(g) + between(g, 1, nspawned(g));
        EMIT("    lt r3, tid, %s\n    assert r3, \"tid < %d\"\n", ex(g, bound), bound);
        return;
    }
    int cand[MAX_VARS], n = 0;
    for (int i = 0; i < g->nvars; i++) {
        const var *v = &g->vars[i];
        if (v->cls == V_SHARED && v->twin < 0 && !v->is_flag && (k == 1) == (v->guard_elem >= 0))
            cand[n++] = i;
    }
    if (!n || (k == 2 && g->nh >= MAX_HELD)) {
        emit_misc_global(g);
        return;
    }
    const var *v = &g->vars[cand[rnd(g, n)]];
    const lockdecl *l = &g->locks[v->guard];
    if (k == 1) { /* a scalar or an array guarded by one lock element */
        char lt[32], m[32];
        if (l->size)
            snprintf(lt, sizeof lt, "%s[%d]", l->name, v->guard_elem);
        else
            snprintf(lt, sizeof lt, "%s", l->name);
        if (v->size) {
            EMIT("    mod r2, tid, %d\n", v->size);
            snprintf(m, sizeof m, "%s[r2]", v->name);
        } else {
            snprintf(m, sizeof m, "%s", v->name);
        }
        EMIT("    acquire %s\n", lt);
        if (chance(g, 50))
            EMIT("    mod r0, tid, %d\n", v->mod);
        else
            EMIT("    load r0, %s\n    add r0, r0, tid\n    mod r0, r0, %d\n", m, v->mod);
        EMIT("    store %s, r0\n    release %s\n", m, lt);
        return;
    }
    /* element tid % size of an array guarded element-wise by a lock array */
    const char *r = idx_reg(g->nh);
    EMIT("    mod %s, tid, %d\n    acquire %s[%s]\n", r, v->size, l->name, r);
    EMIT("    load r0, %s[%s]\n    add r0, r0, %d\n    mod r0, r0, %d\n    store %s[%s], r0\n",
         v->name, r, between(g, 1, v->mod - 1), v->mod, v->name, r);
    EMIT("    release %s[%s]\n", l->name, r);
}

/* One general-purpose piece at nesting depth `depth`. */
void piece(gen *g, int depth)
{
    if (brk(g, 14)) {
        emit_racy(g);
        return;
    }
    if (g->sp && g->bodies[g->cur].proc && chance(g, 30)) {
        emit_tid_piece(g);
        return;
    }
    if (g->at && chance(g, 30)) {
        emit_atomic(g);
        return;
    }
    int k = rnd(g, 20);
    if (depth >= 3) k = 19;
    if (g->vol && k >= 16 && k < 19 && chance(g, 60)) k = 9; /* --volatile: more traffic */
    if (k < 9)
        emit_cs(g, depth);
    else if (k < 12)
        emit_volatile(g);
    else if (k < 14 && depth < 2)
        emit_choose_branch(g, depth);
    else if (k < 16)
        emit_misc_global(g);
    else if (k < 17)
        emit_spin(g);
    else if (k < 19)
        emit_cs(g, depth);
    else
        emit_arith_loop(g);
}

/* A loop that never ends, at the end of a body (a cycle of the state graph
 * on which one thread moves forever: what a persistent-set search without
 * its cycle proviso gets wrong, postponing the other threads' steps for
 * ever; Godefroid's "ignoring problem"). Each round takes one visible step
 * that touches nothing (choose), a lock, a volatile, or a guarded variable
 * under its lock; values stay bounded, so the model stays finite-state and
 * disciplined. */
static void emit_forever(gen *g)
{
    int k = rnd(g, 4), v = -1;
    if (k == 2) {
        for (int i = 0; i < g->nvars && v < 0; i++)
            if (g->vars[i].cls == V_VOLATILE && !g->vars[i].size) v = i;
        if (v < 0) k = 0;
    } else if (k == 3) {
        for (int i = 0; i < g->nvars && v < 0; i++) {
            const var *x = &g->vars[i];
            if (x->cls == V_SHARED && !x->size && x->guard >= 0 && x->guard_elem >= 0 &&
                x->twin < 0 && !x->is_flag)
                v = i;
        }
        if (v < 0) k = 1;
    }
    char lt[32];
    int decl = 0, elem = 0;
    if (k == 1) pick_static_lock(g, &decl, &elem);
    if (k == 3) {
        decl = g->vars[v].guard;
        elem = g->vars[v].guard_elem;
    }
    if (g->locks[decl].size)
        snprintf(lt, sizeof lt, "%s[%d]", g->locks[decl].name, elem);
    else
        snprintf(lt, sizeof lt, "%s", g->locks[decl].name);
    EMIT("Lforever:   ; never ends\n");
    switch (k) {
    case 0: EMIT("    choose r1, 0, 1\n"); break;
    case 1: EMIT("    acquire %s\n    release %s\n", lt, lt); break;
    case 2:
        EMIT("    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, 3\n    store %s, r1\n",
             g->vars[v].name, g->vars[v].name);
        break;
    default:
        EMIT("    acquire %s\n    load r1, %s\n    add r1, r1, 1\n    mod r1, r1, %d\n"
             "    store %s, r1\n    release %s\n",
             lt, g->vars[v].name, g->vars[v].mod, g->vars[v].name, lt);
        break;
    }
    EMIT("    jmp Lforever\n");
}

/* ---- bodies -------------------------------------------------------------- */

static void shuffle(gen *g, task *t, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(g, i + 1);
        task x = t[i];
        t[i] = t[j];
        t[j] = x;
    }
}

static void emit_task(gen *g, const task *t)
{
    /* now and then a protocol role runs inside a critical section: a wait
     * that holds another lock (or the monitor twice), a send under a lock */
    /* (not a cwait: it needs its lock at depth 1, and the lock under which
     * it would run may be the monitor's) */
    bool cwait = t->r == R_WAIT && g->mons[t->obj].cond >= 0;
    /* (nor an exchange: its instances would need the lock to meet) */
    if (t->r != R_PIECE && t->r != R_HAZARD && t->r != R_EXCHANGE && !cwait && g->nh == 0
        && chance(g, 12)) {
        held *hh = &g->h[g->nh];
        pick_static_lock(g, &hh->decl, &hh->elem);
        hh->skipped = false;
        if (g->locks[hh->decl].size)
            snprintf(hh->idx, sizeof hh->idx, "%d", hh->elem);
        else
            hh->idx[0] = '\0';
        char lt[32];
        lock_text(g, hh, lt, sizeof lt);
        EMIT("    acquire %s   ; role under a lock\n", lt);
        g->nh++;
        task inner = *t;
        emit_task(g, &inner);
        g->nh--;
        EMIT("    release %s\n", lt);
        return;
    }
    switch (t->r) {
    case R_PIECE: piece(g, 0); break;
    case R_WAIT: emit_waiter(g, &g->mons[t->obj]); break;
    case R_NOTIFY: emit_notifier(g, &g->mons[t->obj]); break;
    case R_SEND: emit_send(g, &g->chans[t->obj]); break;
    case R_RECV: emit_recv(g, &g->chans[t->obj]); break;
    case R_HAZARD: emit_hazard(g); break;
    case R_EXCHANGE: emit_exchange(g, &g->chans[t->obj]); break;
    }
}

/* The spawns of body b (at its start): every proc it spawns, per_spawn
 * instances each, with self = the spawn's number (main) or the spawner's own
 * self (a proc spawning one helper per instance). Returns the number of
 * children, joined at the end of the body (registers kid0, kid1, ...). */
static int emit_spawns(gen *g, int b)
{
    int n = 0;
    for (int p = 0; p < g->nbodies; p++)
        if (g->bodies[p].proc && g->bodies[p].spawner == b) n += g->bodies[p].per_spawn;
    if (!n) return 0;
    EMIT("    reg");
    for (int i = 0; i < n; i++) EMIT("%s kid%d", i ? "," : "", i);
    EMIT("\n");
    int k = 0;
    for (int p = 0; p < g->nbodies; p++) {
        const body *pb = &g->bodies[p];
        if (!pb->proc || pb->spawner != b) continue;
        for (int i = 0; i < pb->per_spawn; i++, k++) {
            if (g->bodies[b].proc)
                EMIT("    spawn kid%d, %s, self\n", k, pb->name);
            else
                EMIT("    spawn kid%d, %s, %d\n", k, pb->name, i);
        }
    }
    return k;
}

/* --spawns: after its spawns, a spawner now and then asserts on the id a
 * spawn returned (kidK), branches on it, or stores it (modulo) into a
 * guarded scalar under its lock: the spawn order decides these ids. */
static void emit_kid_checks(gen *g, int nkids)
{
    int lo = nstatic(g), ns = nspawned(g);
    for (int k = 0; k < nkids; k++) {
        int c = rnd(g, 8);
        int id = lo + rnd(g, ns);
        if (c < 2) {
            EMIT("    eq r0, kid%d, %s\n    assert r0, \"kid%d is thread %d\"\n", k, ex(g, id), k, id);
        } else if (c < 3) {
            int bound = lo + between(g, 1, ns);
            EMIT("    lt r0, kid%d, %d\n    assert r0, \"kid%d < %d\"\n", k, bound, k, bound);
        } else if (c < 5) {
            int l = new_label(g);
            EMIT("    eq r0, kid%d, %d\n    jz r0, L%d\n", k, id, l);
            if (chance(g, 50))
                piece(g, 1);
            else
                EMIT("    add r3, r3, 1\n");
            EMIT("L%d: nop\n", l);
        } else if (c < 6) {
            int cand[MAX_VARS], n = 0;
            for (int i = 0; i < g->nvars; i++) {
                const var *v = &g->vars[i];
                if (v->cls == V_SHARED && !v->size && v->guard_elem >= 0 && v->twin < 0 &&
                    !v->is_flag && !v->init_main)
                    cand[n++] = i;
            }
            if (!n) continue;
            const var *v = &g->vars[cand[rnd(g, n)]];
            char lt[32];
            if (g->locks[v->guard].size)
                snprintf(lt, sizeof lt, "%s[%d]", g->locks[v->guard].name, v->guard_elem);
            else
                snprintf(lt, sizeof lt, "%s", g->locks[v->guard].name);
            EMIT("    acquire %s\n    mod r0, kid%d, %d\n    store %s, r0\n    release %s\n", lt, k,
                 v->mod, v->name, lt);
        }
    }
}

/* --calls: subroutines fn0 (, fn1) of the body, called from several sites
 * (fn0 now and then calls fn1: nesting); registers are not saved, and a
 * piece inside uses only its own scratch registers. */
typedef struct subs {
    int n;           /* subroutines (0: none in this body) */
    bool nested;     /* fn0 calls fn1 */
    int ncalls[2];   /* call sites of each */
    double mult[2];  /* the iterations around its call sites, summed */
} subs;

static void call_site(gen *g, subs *su, int k)
{
    EMIT("    call fn%d\n", k);
    su->ncalls[k]++;
    su->mult[k] += g->mult;
}

/* After the body's own code: each subroutine, a piece or two and `ret`. */
static void emit_subs(gen *g, subs *su)
{
    EMIT("    end\n");
    if (su->nested) su->mult[1] += su->mult[0];
    for (int k = 0; k < su->n; k++) {
        EMIT("fn%d:\n", k);
        g->mult = su->mult[k];
        g->nh = 0;
        piece(g, 1);
        if (k == 0 && su->nested) EMIT("    call fn1\n");
        if (chance(g, 40)) piece(g, 2);
        EMIT("    ret\n");
    }
    g->mult = 1;
}

void gen_body(gen *g, int b, bool hazard_here)
{
    body *bd = &g->bodies[b];
    task t[16];
    int n = 0;
    int server = -1;
    g->cur = b;
    g->out = &bd->code;
    g->label = 0;
    g->nh = 0;
    g->loopdepth = 0;
    g->mult = 1;
    subs su = {0};
    if (g->calls && chance(g, 70)) { /* --calls */
        su.n = between(g, 1, 2);
        su.nested = su.n == 2 && chance(g, 50);
        su.ncalls[1] = su.nested;
        if (chance(g, 40)) EMIT("    stack %d\n", between(g, 2, 4)); /* the first line */
    }

    for (int i = 0; i < g->nmons; i++) {
        if (g->mons[i].waiter == b) t[n++] = (task){R_WAIT, i};
        if (g->mons[i].notifier == b) t[n++] = (task){R_NOTIFY, i};
    }
    for (int i = 0; i < g->nchans; i++) {
        const chan *c = &g->chans[i];
        if (!c->cap && c->sender == b && c->receiver == b && !c->server) {
            t[n++] = (task){R_EXCHANGE, i}; /* --rendezvous: between its instances */
            continue;
        }
        if (g->chans[i].sender == b) t[n++] = (task){R_SEND, i};
        if (g->chans[i].receiver == b) {
            if (g->chans[i].server)
                server = i;
            else
                t[n++] = (task){R_RECV, i};
        }
    }
    int npieces = g->medium ? between(g, 1, 3) : between(g, 1, 2);
    if ((n >= 2 || total_instances(g) > 2) && npieces > 1) npieces--;
    if (g->sp && !bd->proc && chance(g, 50)) npieces--; /* --spawns: its spawns are its work */
    if (g->wt && b == g->sig) npieces = 0; /* --waiters: sig only notifies */
    for (int i = 0; i < npieces; i++) t[n++] = (task){R_PIECE, 0};
    if (hazard_here) t[n++] = (task){R_HAZARD, 0};
    shuffle(g, t, n);
    /* a body that both sends and receives on one channel sends first; a
     * chained notify follows the wait it is chained to */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if ((t[i].r == R_RECV && t[j].r == R_SEND && t[i].obj == t[j].obj)
                || (t[i].r == R_NOTIFY && t[j].r == R_WAIT && g->mons[t[i].obj].after == t[j].obj)) {
                task x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    if (has_rendezvous(g, t, n) && chance(g, 75)) order_rendezvous(g, t, n);

    if (g->ho && bd->proc && bd->spawner >= 0) {
        /* --handoff: the input, handed over by the spawn, and the result */
        const char *sx = handoff_slots(g, b) ? "[self]" : "";
        EMIT("    reg hvc\n    load hvc, hi%d%s\n    add hvc, hvc, 1\n    mod hvc, hvc, 3\n"
             "    store ho%d%s, hvc\n", b, sx, b, sx);
    }
    for (int i = 0; i < g->nvars; i++) { /* --undisciplined: `init T` by T */
        const var *v = &g->vars[i];
        if (v->cls != V_INIT || v->init_body != b) continue;
        if (v->size)
            for (int e = 0; e < v->size; e++)
                EMIT("    store %s[%d], %d   ; init phase\n", v->name, e, rnd(g, v->mod));
        else
            EMIT("    store %s, %d   ; init phase\n", v->name, rnd(g, v->mod));
    }
    if (g->pub >= 0) { /* `init T`: T initializes and publishes, the others wait */
        bool is_t = false;
        for (int i = 0; i < g->nvars; i++) {
            const var *v = &g->vars[i];
            if (v->init_by != b) continue;
            is_t = true;
            for (int e = 0; e < (v->size ? v->size : 1); e++) {
                if (v->size)
                    EMIT("    store %s[%d], %d   ; init phase\n", v->name, e, rnd(g, v->mod));
                else
                    EMIT("    store %s, %d   ; init phase\n", v->name, rnd(g, v->mod));
            }
        }
        if (is_t)
            EMIT("    store %s, 1   ; published\n", g->vars[g->pub].name);
        else
            EMIT("Lpub:\n    load r1, %s\n    jz r1, Lpub\n", g->vars[g->pub].name);
    }
    if (b == 0 && g->spawns) {
        /* main: initialize cfg and the `init main` variables, spawn, work, join */
        for (int i = 0; i < g->nvars; i++) {
            const var *v = &g->vars[i];
            if (v->cls == V_INITMAIN) EMIT("    store %s, %d   ; init phase\n",
                                           v->name, between(g, 1, 3));
            for (int e = 0; v->init_main && e < (v->size ? v->size : 1); e++) {
                if (v->size)
                    EMIT("    store %s[%d], %d   ; init phase\n", v->name, e, rnd(g, v->mod));
                else
                    EMIT("    store %s, %d   ; init phase\n", v->name, rnd(g, v->mod));
            }
        }
    }
    if (g->sp && !bd->proc && chance(g, 25)) piece(g, 0); /* --spawns: work, then spawn */
    int hval[MAX_BODIES];
    if (g->ho) handoff_in(g, b, hval);
    int nkids = emit_spawns(g, b);
    if (g->sp) emit_kid_checks(g, nkids);
    if (g->ho) handoff_racy(g, b, hval);
    if (su.n && chance(g, 50)) call_site(g, &su, rnd(g, su.n));

    /* a counted loop around part of the body (a visible operation may or may
     * not be inside: the count bounds it either way) */
    int loop_from = n, loop_to = n, iters = 0;
    if (chance(g, g->medium ? 45 : 30) && n > 0) {
        loop_from = rnd(g, n);
        loop_to = between(g, loop_from + 1, n);
        iters = between(g, 2, g->medium ? 3 : 2);
        /* --rendezvous: a loop around a rendezvous role repeats its sends
         * or receives, which the partner does not (a deadlock): rarer */
        if (has_rendezvous(g, t + loop_from, loop_to - loop_from) && chance(g, 70)) iters = 0;
    }
    for (int i = 0; i < n; i++) {
        if (i == loop_from && iters) {
            EMIT("    mov r6, 0\nLtop:\n");
            g->loopdepth++;
            g->mult *= iters;
        }
        if (su.n && t[i].r == R_PIECE && chance(g, 50))
            call_site(g, &su, rnd(g, su.n)); /* the piece is a call */
        else
            emit_task(g, &t[i]);
        if (i + 1 == loop_to && iters) {
            EMIT("    add r6, r6, 1\n    lt r0, r6, %s\n    jnz r0, Ltop\n", ex(g, iters));
            g->mult /= iters;
            EMIT("    mov r6, 0\n");
            g->loopdepth--;
        }
    }
    for (int k = 0; k < su.n; k++) /* every subroutine from two sites at least */
        while (su.ncalls[k] < 2) call_site(g, &su, k);

    if (nkids) {
        for (int i = 0; i < nkids; i++) {
            EMIT("    join kid%d\n", i);
            if (g->ho && i + 1 < nkids) handoff_between(g, b, i);
        }
        if (g->ho) handoff_out(g, b, hval);
        /* after the joins: the children's updates are visible */
        if (chance(g, 50)) piece(g, 0);
    }
    for (int i = 0; g->undisc && i < g->nvars; i++) { /* --undisciplined: unshared ones */
        const var *v = &g->vars[i];
        if (v->cls != V_UNSHARED || (v->intruder != b && v->owner != b) || !chance(g, 60)) continue;
        char m[32];
        mem_text(g, i, NULL, m, sizeof m);
        EMIT("    load r1, %s%s\n", m, v->intruder == b ? "   ; touched by a second body" : "");
        if (chance(g, 50)) EMIT("    add r1, r1, 1\n    mod r1, r1, 2\n    store %s, r1\n", m);
    }
    if (g->joiner == b) {
        /* join a static thread by its id (joins may be mutual: a deadlock) */
        EMIT("    join %d\n", g->join_tid);
    }
    if (g->leaker == b) {
        /* end while holding a lock: it stays held (LANGUAGE.md) */
        EMIT("    acquire %s   ; never released\n", g->locks[0].size ? "la0[0]" : "m0");
    }
    if (server >= 0) {
        const chan *c = &g->chans[server];
        EMIT("end_srv:\n    recv r1, %s\n", c->name);
        if (chance(g, 50)) EMIT("    mod r1, r1, 2\n");
        EMIT("    jmp end_srv\n");
    } else if (chance(g, 10)) {
        emit_forever(g);
    } else if (chance(g, 20)) {
        EMIT("    end\n");
    }
    if (su.n) emit_subs(g, &su);
}
