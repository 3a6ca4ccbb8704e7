/* phil_prog_dstep.pml: phil_prog.pml with Stoller's reduction applied by
 * hand, as mcheck --liveness=npc composes it: each composed step (a visible
 * operation and the invisible instructions after it, up to the next visible
 * one) is one d_step, so pan stores only visible states. Under the lock
 * discipline the meal's load and store and the releases are invisible, and
 * --liveness makes the progress-labelled instruction visible, so a
 * philosopher has three steps: acquire its first fork; acquire its second;
 * and the meal (the progress step) with both releases and the jump back.
 * The invisible start is folded into the locals' initialisers.
 *
 *   spin -DN=5 -a phil_prog_dstep.pml && gcc -O2 -DNP -o pan pan.c && ./pan -l -m1000000
 */
#ifndef N
#define N 4
#endif

byte fork[N];   /* 0 free, else owner + 1 */
byte meals[N];

active [N] proctype phil()
{
    byte first = (_pid < (_pid + 1) % N -> _pid : (_pid + 1) % N),
         second = (_pid < (_pid + 1) % N -> (_pid + 1) % N : _pid), m;
    do
    :: d_step { fork[first] == 0 -> fork[first] = _pid + 1 };
       d_step { fork[second] == 0 -> fork[second] = _pid + 1 };
progress_eat:
       d_step {
           m = meals[_pid];
           m = m + 1;
           m = m % 3;
           meals[_pid] = m;
           fork[second] = 0;
           fork[first] = 0
       }
    od
}
