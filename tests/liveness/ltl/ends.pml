/* ends.pml: tests/liveness/ltl/ends.bc in Promela, one statement per composed step
 * (the branch after `load r, x` folded into its guard), for
 * tests/liveness/test_ltl.py's translator cross-check against SPIN. */
byte x, y;
#define p (x == 1)
#define q (y == 1)

active proctype a() {
    x = 1;
    y = 1;
    x = 0
}

active proctype b() {
    if
    :: x == 0 -> skip
    :: else -> y = 1
    fi;
    y = 0
}
