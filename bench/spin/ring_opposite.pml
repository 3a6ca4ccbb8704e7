/* ring_opposite.pml: SPIN peer of models/ring_opposite.bc (issue 34), for the
 * swarm benchmark (bench/swarm.py; docs/benchmarks.md, "Bug hunting: swarm").
 *
 * A ring of N workers with ordered locking (worker i takes the lower of
 * fork[i], fork[i+1 mod N] first), ITER meals each, and two processes that
 * take two other locks in opposite orders: a deadlock ("invalid end state")
 * that needs one preemption. The pair is declared first, as in the mcheck
 * model, so pan's default order (the highest _pid first: the ring before the
 * pair) and -DP_REVERSE differ. A lock is an atomic test-and-set.
 *
 * Build and run:  spin -DN=10 -DITER=3 -a ring_opposite.pml && gcc -O2 -o pan pan.c && ./pan -m100000
 * Swarm by hand:  gcc -O2 -DP_RAND -DT_RAND -o pan pan.c && ./pan -m100000 -RS17   (one seed a run)
 *                 gcc -O2 -DP_REVERSE -o pan pan.c && ./pan -m100000             (reversed order)
 */
#ifndef N
#define N 10
#endif
#ifndef ITER
#define ITER 3
#endif

bit fork[N];
bit a, b;
byte meals[N];

#define acquire(l) atomic { l == 0 -> l = 1 }
#define release(l) l = 0

active proctype left()
{
    acquire(a);
    acquire(b);
    release(b);
    release(a)
}

active proctype right()
{
    acquire(b);
    acquire(a);
    release(a);
    release(b)
}

active [N] proctype phil()
{
    byte first, second, i, m;
    first = _pid - 2;
    second = (first + 1) % N;
    if
    :: first > second -> m = first; first = second; second = m; m = 0
    :: else
    fi;
    i = ITER;
    do
    :: i > 0 ->
        acquire(fork[first]);
        acquire(fork[second]);
        m = meals[_pid - 2];
        m = m + 1;
        meals[_pid - 2] = m;
        m = 0;
        release(fork[second]);
        release(fork[first]);
        i = i - 1
    :: else -> break
    od
}
