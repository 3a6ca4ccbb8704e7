/* prodcons_monitor_dstep.pml: models/prodcons_monitor.bc with Stoller's
 * reduction applied by hand, the SPIN peer of what mcheck's composed search
 * should reach.
 *
 * Each composed step (one visible operation and the invisible instructions the
 * thread runs after it, up to its next visible operation) is one d_step, so pan
 * stores only visible states (Stoller, STTT 4(1), 2002, sections 3.5 and 5).
 * Visible, as `mcheck --dump` marks them: acquire m and wait m (two steps: the
 * release into the wait set, and the re-acquire once notified). Invisible:
 * notifyall m, release m and every access to buf, count, head and tail (all
 * under m). So a thread has three places: at acquire m (at = 0), at wait m
 * holding m (at = 1), in the wait set or notified (at = 2, waiting[] tells
 * which); the monitor is emulated as in prodcons_monitor.pml. The registers
 * are the .bc's, holding what its instructions leave in them, so a state maps
 * one to one onto a visible state of mcheck's search. Unlike mcheck today, each
 * thread's invisible start (mov i, 0 and the loop test) is folded into the
 * initial state: the states are mcheck's (--race=off) less those in which a
 * thread has not started. A thread that has ended stands at its loop with
 * i == ITEMS (labelled end_: a valid end state for pan). Items are shorts
 * (ITEMS up to 32767; prodcons_monitor.pml's bytes stop at 255).
 *
 * Build and run:  spin -DITEMS=200 -DCAP=6 -a prodcons_monitor_dstep.pml
 *                 gcc -O2 -DSAFETY -o pan pan.c && ./pan -c0 -m1000000
 */
#ifndef ITEMS
#define ITEMS 10
#endif
#ifndef CAP
#define CAP 6
#endif

byte  m;             /* 0 free, else owner + 1 */
bit   waiting[2];    /* the wait set of m: 1 waiting, 0 running or notified */
short buf[CAP];
byte  count, head, tail;

/* producer, from "full:" (m held) to its next visible operation: if the
 * buffer is full, stop at wait m; else put, notifyall m, release m, add i and
 * the loop test, and stop at acquire m (or end) */
inline produce() {
    c = count;
    c = (c < CAP);
    if
    :: c ->
        t = tail;
        buf[t] = i;
        t = t + 1;
        t = t % CAP;
        tail = t;
        c = count;
        c = c + 1;
        count = c;
        waiting[0] = 0; waiting[1] = 0;     /* notifyall m */
        m = 0;                              /* release m */
        i = i + 1;
        c = (i >= ITEMS);
        at = 0
    :: else -> at = 1
    fi
}

/* consumer, from "empty:" (m held) to its next visible operation: if the
 * buffer is empty, stop at wait m; else take, notifyall m, release m, the
 * assertion, add i and the loop test, and stop at acquire m (or end) */
inline consume() {
    c = count;
    if
    :: c != 0 ->
        h = head;
        v = buf[h];
        buf[h] = 0;
        h = h + 1;
        h = h % CAP;
        head = h;
        c = count;
        c = c - 1;
        count = c;
        waiting[0] = 0; waiting[1] = 0;     /* notifyall m */
        m = 0;                              /* release m */
        c = (v == i);
        assert(c);                          /* items arrive in order */
        i = i + 1;
        c = (i >= ITEMS);
        at = 0
    :: else -> at = 1
    fi
}

active proctype producer()   /* _pid 0 */
{
    short i;
    byte c, t, at;
end_loop:
    do
    :: d_step { at == 0 && i < ITEMS && m == 0 -> m = 1; produce() }   /* acquire m .. */
    :: d_step { at == 1 -> m = 0; waiting[0] = 1; at = 2 }             /* wait m */
    :: d_step { at == 2 && waiting[0] == 0 && m == 0 -> m = 1; produce() } /* re-acquire .. */
    od
}

active proctype consumer()   /* _pid 1 */
{
    short i, v;
    byte c, h, at;
end_loop:
    do
    :: d_step { at == 0 && i < ITEMS && m == 0 -> m = 2; consume() }   /* acquire m .. */
    :: d_step { at == 1 -> m = 0; waiting[1] = 1; at = 2 }             /* wait m */
    :: d_step { at == 2 && waiting[1] == 0 && m == 0 -> m = 2; consume() } /* re-acquire .. */
    od
}
