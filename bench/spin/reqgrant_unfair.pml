/* reqgrant_unfair.pml: models/reqgrant_unfair.bc in Promela, the SPIN peer of
 * `mcheck --ltl` (tests/liveness/test_ltl.py checks that both find an acceptance cycle
 * for the same formulas, or neither).
 *
 * One Promela statement per composed step of mcheck: every instruction of
 * the .bc that touches req, grant or a channel is visible, and the branch
 * after a load is folded into the guard that reads the variable (an if whose
 * guards test req[i] is one step, as `load r, req[i]` and its jz/jnz are one
 * composed step). The server's register r is not kept (the .bc's r is never
 * read after its branch), so state counts are close to mcheck's, not equal.
 * Channels have capacity 1, as `chan c` without a capacity.
 *
 *   spin -a -f '!([] (req0 -> <> grant0))' reqgrant_unfair.pml   (or -N claim)
 *   gcc -O2 -o pan pan.c && ./pan -a        acceptance cycle: violated
 */
byte req[2], grant[2];
chan ack0 = [1] of { byte };
chan ack1 = [1] of { byte };
chan done = [1] of { byte };

#define req0   (req[0] != 0)
#define grant0 (grant[0] != 0)
#define req1   (req[1] != 0)
#define grant1 (grant[1] != 0)

active proctype client0() {
    byte g;
loop:
    req[0] = 1;
    ack0 ? g;               /* blocks until granted */
    req[0] = 0;             /* first the request, then the grant */
    grant[0] = 0;
    done ! 1;
    goto loop
}

active proctype client1() {
    byte g;
loop:
    req[1] = 1;
    ack1 ? g;
    req[1] = 0;
    grant[1] = 0;
    done ! 1;
    goto loop
}

active proctype server() {
    byte r;
serve:                      /* the bug: client 1 is always looked at first */
    if
    :: req[1] != 0 -> goto g1
    :: else -> skip
    fi;
    if
    :: req[0] == 0 -> goto serve
    :: else -> skip
    fi;
    grant[0] = 1;
    ack0 ! 1;
    done ? r;
    goto serve;
g1:
    grant[1] = 1;
    ack1 ! 1;
    done ? r;
    goto serve
}
