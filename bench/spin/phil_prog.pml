/* phil_prog.pml: SPIN peer of bench/liveness_por.py's phil_prog.bc
 * (models/philosophers_ordered.bc with the label progress_eat before the
 * meal): every philosopher takes the lower-numbered of its forks first, so
 * there is no deadlock, and each meal passes a progress label. A fork is an
 * atomic test-and-set, every other statement one step, as every instruction
 * is in `mcheck --reduce=none`; SPIN's own partial-order reduction is on
 * unless pan is built with -DNOREDUCE. No non-progress cycle.
 *
 *   spin -DN=5 -a phil_prog.pml && gcc -O2 -DNP -o pan pan.c && ./pan -l -m1000000
 */
#ifndef N
#define N 4
#endif

byte fork[N];   /* 0 free, else owner + 1 */
byte meals[N];

active [N] proctype phil()
{
    byte first, second, m;
    first = _pid;
    second = (_pid + 1) % N;
    if
    :: first > second -> m = first; first = second; second = m; m = 0
    :: else
    fi;
loop:
    atomic { fork[first] == 0 -> fork[first] = _pid + 1 };
    atomic { fork[second] == 0 -> fork[second] = _pid + 1 };
progress_eat:
    m = meals[_pid];
    m = m + 1;
    m = m % 3;
    meals[_pid] = m;
    fork[second] = 0;
    fork[first] = 0;
    goto loop
}
