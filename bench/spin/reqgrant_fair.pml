/* reqgrant_fair.pml: models/reqgrant_fair.bc in Promela (round robin: after
 * serving a client the server looks at the other one first), the SPIN peer
 * of `mcheck --ltl`; written as reqgrant_unfair.pml is (one statement per
 * composed step, the branch after a load folded into its guard).
 *
 *   spin -a -f '!([] (req0 -> <> grant0))' reqgrant_fair.pml
 *   gcc -O2 -o pan pan.c && ./pan -a        no acceptance cycle
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
serve0:                     /* client 0 first */
    if
    :: req[0] != 0 -> goto g0
    :: else -> skip
    fi;
    if
    :: req[1] == 0 -> goto serve0
    :: else -> skip
    fi;
g1:
    grant[1] = 1;
    ack1 ! 1;
    done ? r;
    goto serve0;            /* next time client 0 first */
g0:
    grant[0] = 1;
    ack0 ! 1;
    done ? r;
serve1:                     /* client 1 first */
    if
    :: req[1] != 0 -> goto g1
    :: else -> skip
    fi;
    if
    :: req[0] == 0 -> goto serve1
    :: else -> skip
    fi;
    goto g0
}
