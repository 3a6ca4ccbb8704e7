/* livelock_ordered.pml: SPIN's version of models/livelock_ordered.bc (both
 * threads take m[0], then m[1]; no back-off): no non-progress cycle.
 *   spin -a livelock_ordered.pml && gcc -DNP -o pan pan.c && ./pan -l */
bit flag[2];
bit m[2];
byte work[2];

active [2] proctype t()
{
loop:
    flag[_pid] = 1;
    atomic { m[0] == 0 -> m[0] = 1 };
    atomic { m[1] == 0 -> m[1] = 1 };
progress_work:
    work[_pid] = (work[_pid] + 1) % 2;
    m[1] = 0;
    m[0] = 0;
    flag[_pid] = 0;
    goto loop
}
