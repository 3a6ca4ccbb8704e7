/* philosophers_dstep.pml: models/philosophers.bc with Stoller's reduction
 * applied by hand, the SPIN peer of what mcheck's composed search should reach.
 *
 * Each composed step (one visible operation and the invisible instructions the
 * thread runs after it, up to its next visible operation) is one d_step, so pan
 * stores only visible states (Stoller, "Model-checking multi-threaded
 * distributed Java programs", STTT 4(1), 2002, sections 3.5 and 5). Under the
 * lock discipline the loads/stores of meals[i] and the releases are invisible,
 * so a philosopher has two steps: acquire fork[left]; and acquire fork[right]
 * with the meal, both releases and the jump back. The invisible start (mov, add,
 * mod) is folded into the initial state (the locals' initialisers), which
 * mcheck does not do yet: mcheck keeps a thread's start as a visible point of
 * its own (InitVis), 7 local configurations a philosopher against 6 here.
 * Whole space: 6^N states (3^N of them deadlocks). Not a model of the
 * fine-grained program: philosophers.pml is.
 *
 * Build and run:  spin -DN=7 -a philosophers_dstep.pml && gcc -O2 -DSAFETY -o pan pan.c
 *                 ./pan -E -m1000000      (-E: search past the deadlocks)
 */
#ifndef N
#define N 3
#endif

byte fork[N];   /* 0 free, else owner + 1 */
byte meals[N];

active [N] proctype phil()
{
    /* the registers of philosophers.bc, initialised as its first three
     * (invisible) instructions leave them */
    byte left = _pid, right = (_pid + 1) % N, m;
    do
    :: /* acquire fork[left] */
       d_step { fork[left] == 0 -> fork[left] = _pid + 1 };
       /* acquire fork[right]; load, add, mod, store meals[self];
        * release fork[right]; release fork[left]; jmp loop */
       d_step {
           fork[right] == 0 -> fork[right] = _pid + 1;
           m = meals[_pid];
           m = m + 1;
           m = m % 3;
           meals[_pid] = m;
           fork[right] = 0;
           fork[left] = 0
       }
    od
}
