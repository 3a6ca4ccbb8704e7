/* philosophers.pml: SPIN peer of models/philosophers.bc.
 *
 * N philosophers, each takes its left fork, then its right one; meals are
 * counted mod 3. A fork is a lock written as an atomic test-and-set
 * (`atomic { fork[i] == 0 -> fork[i] = owner }`), releasing it is one
 * assignment. Every other statement is one step, as every instruction is in
 * `mcheck --reduce=none` (SPIN's own partial-order reduction is on unless pan
 * is compiled with -DNOREDUCE). Deadlock shows up as "invalid end state".
 *
 * Build and run:  spin -DN=5 -a philosophers.pml && gcc -O2 -o pan pan.c && ./pan
 *
 * Figures (SPIN 6.5.2, gcc -O2, 2-core machine; bench/README.md has more):
 *   invalid end state found for N = 3..7, with and without -DNOREDUCE;
 *   states stored up to the first error, POR / NOREDUCE:
 *     N=3 46 / 86, N=4 68 / 128, N=5 90 / 237, N=6 112 / 279, N=7 134 / 388.
 *   whole space (./pan -c0 -m10000000), states stored and rate, POR | NOREDUCE:
 *     N=3   1,677               |     2,413
 *     N=4  20,600 (412,000 st/s) |    33,727 (337,270 st/s)
 *     N=5 246,065 (243,629 st/s) |   454,957 (267,622 st/s)
 *     N=6 2,963,288 (202,826 st/s) | 6,174,055 (216,330 st/s)
 *     N=7 incomplete: the DFS reaches the 10^7 depth limit.
 */
#ifndef N
#define N 3
#endif

byte fork[N];   /* 0 free, else owner + 1 */
byte meals[N];

active [N] proctype phil()
{
    byte left, right, m;
    left = _pid;
    right = _pid + 1;
    right = right % N;
loop:
    atomic { fork[left] == 0 -> fork[left] = _pid + 1 };    /* acquire fork[left] */
    atomic { fork[right] == 0 -> fork[right] = _pid + 1 };  /* acquire fork[right] */
    m = meals[_pid];
    m = m + 1;
    m = m % 3;
    meals[_pid] = m;
    fork[right] = 0;                                         /* release fork[right] */
    fork[left] = 0;                                          /* release fork[left] */
    goto loop
}
