/* prodcons_monitor.pml: SPIN peer of models/prodcons_monitor.bc.
 *
 * A producer puts ITEMS items into a ring buffer of CAP slots guarded by a Java
 * style monitor m; a consumer takes them and asserts they arrive in order.
 *
 * Monitor emulation (Promela has no monitors), one atomic step each, the same
 * steps as in LANGUAGE.md:
 *   acquire m      atomic { m == 0 -> m = me }           blocks while held
 *   release m      m = 0                                  (never recursive here)
 *   wait m         atomic { m = 0; waiting[me] = 1 }      release + join wait set
 *   (re-acquire)   atomic { waiting[me] == 0 && m == 0 -> m = me }
 *                  the woken thread blocks until notified AND the lock is free
 *   notifyall m    d_step { waiting[0] = 0; waiting[1] = 0 }
 * The pc of a waiting thread stays at its wait, as in mcheck. With two threads
 * at most one of them ever waits, so notifyall = notify here.
 * Every other statement is one step (SPIN's partial-order reduction is on
 * unless pan is compiled with -DNOREDUCE).
 *
 * Build and run:  spin -a prodcons_monitor.pml && gcc -O2 -o pan pan.c && ./pan
 *
 * Figures (SPIN 6.5.2, gcc -O2, 2-core machine; bench/README.md has more):
 *   ITEMS=10 CAP=6, no errors: POR 5,659 states stored (5,946 transitions),
 *   NOREDUCE 14,697 states (24,480 transitions); too fast to time.
 *   ITEMS=250 CAP=6:  POR 229,579 states (1,765,992 st/s), NOREDUCE 588,537 (1,839,178 st/s)
 *   ITEMS=250 CAP=40: POR 6,391,416 states (761,790 st/s), NOREDUCE 18,591,316 (521,788 st/s)
 */
#ifndef ITEMS
#define ITEMS 10
#endif
#ifndef CAP
#define CAP 6
#endif

byte m;              /* 0 free, else owner + 1 */
bit  waiting[2];     /* the wait set of m */
short buf[CAP];     /* items up to ITEMS: shorts, so ITEMS=2000 does not wrap */
byte count, head, tail;

active proctype producer()   /* _pid 0 */
{
    short i;
    byte c, t;
    i = 0;
    do
    :: i < ITEMS ->
        atomic { m == 0 -> m = 1 };                         /* acquire m */
chk_full:   c = count;
        if
        :: c < CAP -> skip
        :: else ->
            atomic { m = 0; waiting[0] = 1 };               /* wait m ... */
            atomic { waiting[0] == 0 && m == 0 -> m = 1 };  /* ... re-acquire */
            goto chk_full
        fi;
        t = tail;
        buf[t] = i;
        t = t + 1;
        t = t % CAP;
        tail = t;
        c = count;
        c = c + 1;
        count = c;
        d_step { waiting[0] = 0; waiting[1] = 0 };          /* notifyall m */
        m = 0;                                              /* release m */
        i = i + 1
    :: else -> break
    od
}

active proctype consumer()   /* _pid 1 */
{
    short i, v;
    byte c, h;
    i = 0;
    do
    :: i < ITEMS ->
        atomic { m == 0 -> m = 2 };                         /* acquire m */
chk_empty:  c = count;
        if
        :: c != 0 -> skip
        :: else ->
            atomic { m = 0; waiting[1] = 1 };               /* wait m ... */
            atomic { waiting[1] == 0 && m == 0 -> m = 2 };  /* ... re-acquire */
            goto chk_empty
        fi;
        h = head;
        v = buf[h];
        buf[h] = 0;
        h = h + 1;
        h = h % CAP;
        head = h;
        c = count;
        c = c - 1;
        count = c;
        d_step { waiting[0] = 0; waiting[1] = 0 };          /* notifyall m */
        m = 0;                                              /* release m */
        assert(v == i);                                     /* items arrive in order */
        i = i + 1
    :: else -> break
    od
}
