/* A Promela version of jpf_dining_phil.bc (JPF src/examples/DiningPhil.java),
   written for bench/external.py: N philosophers, each takes its left fork,
   then its right one, once; a fork is a byte holding its owner's _pid + 1. */
#define N 4
byte fork[N];

active [N] proctype phil()
{
	atomic { fork[_pid] == 0 -> fork[_pid] = _pid + 1 };
	atomic { fork[(_pid + 1) % N] == 0 -> fork[(_pid + 1) % N] = _pid + 1 };
	fork[(_pid + 1) % N] = 0;
	fork[_pid] = 0
}
