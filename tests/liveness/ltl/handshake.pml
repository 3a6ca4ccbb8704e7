/* handshake.pml: tests/liveness/ltl/handshake.bc in Promela, one statement per
 * composed step (the branch after a load folded into its guard), for
 * tests/liveness/test_ltl.py's translator cross-check against SPIN. */
byte x, y;
#define p (x == 1)
#define q (y == 1)

active proctype a() {
loop:
    x = 1;
    x = 0;
    if
    :: y == 0 -> goto loop
    :: else -> skip
    fi
}

active proctype b() {
wait:
    if
    :: x == 0 -> goto wait
    :: else -> skip
    fi;
    y = 1
}
