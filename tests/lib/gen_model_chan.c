/* gen_model_chan.c: the channel roles of gen_model's bodies (gen_model.c
 * has the description of the generator): a sender's sends, a receiver's
 * receives (on a rendezvous channel, now and then with the receiver's tail
 * that runs in the send's step), --rendezvous's exchange between the
 * instances of one body, and --rendezvous's order of a body's roles, which
 * puts its rendezvous roles first, channel by channel. Split out of
 * gen_model_body.c, whose gen_body() and emit_task() call these. */
#include "gen_model_int.h"

/* ---- channel roles ------------------------------------------------------ */

void emit_send(gen *g, const chan *c)
{
    for (int i = 0; i < c->nmsg; i++) {
        if (chance(g, 50))
            EMIT("    send %s, %s\n", c->name, ex(g, rnd(g, 3)));
        else
            EMIT("    mod r1, r1, 3\n    send %s, r1\n", c->name);
    }
}

void emit_recv(gen *g, const chan *c)
{
    for (int i = 0; i < c->nmsg; i++) {
        EMIT("    recv r1, %s\n", c->name);
        if (!c->cap && chance(g, 35)) /* --rendezvous: the receiver's tail in the step */
            EMIT("    mul r3, r1, 2\n    add r3, r3, r6\n    mod r3, r3, 5\n");
        if (chance(g, 25)) {
            int bound = between(g, 2, 3);
            EMIT("    lt r3, r1, %s\n    assert r3, \"message < %d\"\n", ex(g, bound), bound);
        }
    }
}

/* --rendezvous: a body that both sends and receives on a rendezvous channel
 * (its instances hand messages to each other): the even instances send
 * first, the odd ones receive first (sending first, every instance would
 * block at its send). */
void emit_exchange(gen *g, const chan *c)
{
    int odd = new_label(g), done = new_label(g);
    EMIT("    and r0, self, 1\n    jnz r0, L%d\n", odd);
    emit_send(g, c);
    emit_recv(g, c);
    EMIT("    jmp L%d\nL%d:\n", done, odd);
    emit_recv(g, c);
    emit_send(g, c);
    EMIT("L%d: nop\n", done);
}

/* ---- --rendezvous: the order of a body's roles -------------------------- */

static bool is_rendezvous(const gen *g, const task *t)
{
    return (t->r == R_SEND || t->r == R_RECV || t->r == R_EXCHANGE) && !g->chans[t->obj].cap;
}

bool has_rendezvous(const gen *g, const task *t, int n)
{
    for (int i = 0; i < n; i++)
        if (is_rendezvous(g, &t[i])) return true;
    return false;
}

/* --rendezvous, most bodies: the rendezvous roles first, by channel (a send
 * or recv on c0 before one on c1), the other roles after them in their
 * order. Bodies in this order meet (a body's wait for a notify that comes
 * after its partner's recv, or a send on c1 before a recv on c0 while the
 * partner does the opposite, would deadlock); the others now and then do
 * not. */
void order_rendezvous(const gen *g, task *t, int n)
{
    task out[16];
    int k = 0;
    for (int c = 0; c < g->nchans; c++)
        for (int i = 0; i < n; i++)
            if (is_rendezvous(g, &t[i]) && t[i].obj == c) out[k++] = t[i];
    for (int i = 0; i < n; i++)
        if (!is_rendezvous(g, &t[i])) out[k++] = t[i];
    memcpy(t, out, sizeof *t * (size_t)n);
}
