/* A Promela version of sv_peterson.bc (SV-COMP c/pthread-atomic/peterson.c),
   written for bench/external.py: the same statements, each one atomic step as
   in Promela; a spin loop on local copies blocks at an end label. */
bit flag1, flag2, turn, x;

active proctype thr1()
{
	bit f, t;
	flag1 = 1;
	turn = 1;
	f = flag2;
	t = turn;
end_spin:
	!(f == 1 && t == 1);
	x = 0;
	assert(x <= 0);
	flag1 = 0
}

active proctype thr2()
{
	bit f, t;
	flag2 = 1;
	turn = 0;
	f = flag1;
	t = turn;
end_spin:
	!(f == 1 && t == 0);
	x = 1;
	assert(x >= 1);
	flag2 = 0
}
