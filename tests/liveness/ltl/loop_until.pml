/* loop_until.pml: tests/liveness/ltl/loop_until.bc in Promela, one statement per
 * composed step (the branch after `load r, x` folded into its guard), for
 * tests/liveness/test_ltl.py's translator cross-check against SPIN. */
byte x, y;
#define p (x == 1)
#define q (y == 1)

active proctype a() {
    x = 1;
    x = 0;
    x = 1
}

active proctype b() {
loop:
    y = 1;
    y = 0;
    if
    :: x == 0 -> goto loop
    :: else -> skip
    fi
}
