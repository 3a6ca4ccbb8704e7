/* gen_model_handoff.c: --handoff's pieces (tests/differential/test_hb_discharge.py):
 * each proc a body spawns gets its input in `hiP`, written by the spawner
 * before the spawn, and returns its result in `hoP`, read by the spawner
 * after the join, now and then racily (gen_model.c has the description).
 * Split out of gen_model_body.c, which calls these from gen_body(). */
#include "gen_model_int.h"

/* --handoff: the elements of proc p's input and result: one per child its
 * spawner starts when that is a thread (the child's self is its number),
 * else 0 (scalars: a proc spawner passes its own self). */
int handoff_slots(const gen *g, int p)
{
    return g->bodies[g->bodies[p].spawner].proc ? 0 : g->bodies[p].per_spawn;
}

/* "hiP", or "hiP[i]" when the variable is an array. */
static const char *hv(const gen *g, char io, int p, int i)
{
    static char buf[4][24];
    static int k;
    char *s = buf[k++ & 3];
    if (handoff_slots(g, p))
        snprintf(s, sizeof buf[0], "h%c%d[%d]", io, p, i);
    else
        snprintf(s, sizeof buf[0], "h%c%d", io, p);
    return s;
}

/* --handoff: before its spawns, body b writes every child proc's input
 * (the value into val[P]). */
void handoff_in(gen *g, int b, int *val)
{
    for (int p = 0; p < g->nbodies; p++) {
        if (!g->bodies[p].proc || g->bodies[p].spawner != b) continue;
        val[p] = hrnd(g, 3);
        int n = handoff_slots(g, p);
        for (int i = 0; i < (n ? n : 1); i++)
            EMIT("    store %s, %d   ; handed over by the spawn\n", hv(g, 'i', p, i), val[p]);
    }
}

/* --handoff, now and then, after the spawns: an input written again (the
 * child may read either value) or a result read before the join. */
void handoff_racy(gen *g, int b, const int *val)
{
    for (int p = 0; p < g->nbodies; p++) {
        if (!g->bodies[p].proc || g->bodies[p].spawner != b) continue;
        int c = hrnd(g, 100);
        if (c < 12)
            EMIT("    store %s, %d   ; racy: after the spawn\n", hv(g, 'i', p, 0),
                 (val[p] + 1) % 3);
        else if (c < 24)
            EMIT("    load hvs, %s   ; racy: before the join\n", hv(g, 'o', p, 0));
    }
}

/* --handoff, now and then, right after body b's join of its child number
 * `joined` (kid0 .. in emit_spawns' order): the result of a child joined
 * later read already (racy: another child's join does not order it). */
void handoff_between(gen *g, int b, int joined)
{
    int k = 0;
    for (int p = 0; p < g->nbodies; p++) {
        if (!g->bodies[p].proc || g->bodies[p].spawner != b) continue;
        k += g->bodies[p].per_spawn; /* p's children are kids k - per_spawn .. k - 1 */
        if (k - 1 > joined && hrnd(g, 100) < 75)
            EMIT("    load hvs, %s   ; racy: after another child's join, before its own\n",
                 hv(g, 'o', p, g->bodies[p].per_spawn - 1));
    }
}

/* --handoff: after the joins, body b reads every child's result and
 * asserts it is the input plus one (mod 3). */
void handoff_out(gen *g, int b, const int *val)
{
    EMIT("    reg hvs\n");
    for (int p = 0; p < g->nbodies; p++) {
        if (!g->bodies[p].proc || g->bodies[p].spawner != b) continue;
        int n = handoff_slots(g, p);
        for (int i = 0; i < (n ? n : 1); i++)
            EMIT("    load hvs, %s   ; handed over by the join\n    eq hvs, hvs, %d\n"
                 "    assert hvs, \"%s is the input + 1\"\n", hv(g, 'o', p, i), (val[p] + 1) % 3,
                 hv(g, 'o', p, i));
    }
}
