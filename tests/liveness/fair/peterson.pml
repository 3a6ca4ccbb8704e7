/* peterson.pml: tests/liveness/fair/peterson.bc in Promela, one statement per
 * composed step, for tests/liveness/test_ltl.py's comparison of --ltl --fair=weak
 * with SPIN's pan -a -f (weak fairness). */
bit flag0, flag1, turn;
#define want0 (flag0 == 1)
#define cs0 (p0@cs)

active proctype p0() {
loop:
    flag0 = 1;
    turn = 1;
wait:
    if
    :: flag1 == 0 -> goto cs
    :: else -> skip
    fi;
    if
    :: turn == 1 -> goto wait
    :: else -> skip
    fi;
cs:
    flag0 = 0;
    goto loop
}

active proctype p1() {
loop:
    flag1 = 1;
    turn = 0;
wait:
    if
    :: flag0 == 0 -> goto cs
    :: else -> skip
    fi;
    if
    :: turn == 0 -> goto wait
    :: else -> skip
    fi;
cs:
    flag1 = 0;
    goto loop
}
