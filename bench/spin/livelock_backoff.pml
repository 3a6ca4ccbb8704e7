/* livelock_backoff.pml: SPIN's version of models/livelock_backoff.bc (two
 * threads backing off forever), for the non-progress cycle check:
 *   spin -a livelock_backoff.pml && gcc -DNP -o pan pan.c && ./pan -l
 * A lock is a bit taken atomically when free; progress_work marks the work. */
bit flag[2];
bit m[2];
byte work[2];

active [2] proctype t()
{
    byte other = 1 - _pid;
loop:
    flag[_pid] = 1;
    atomic { m[_pid] == 0 -> m[_pid] = 1 };
    if
    :: flag[other] == 0 -> goto enter
    :: else -> m[_pid] = 0; flag[_pid] = 0; goto loop
    fi;
enter:
    atomic { m[other] == 0 -> m[other] = 1 };
progress_work:
    work[_pid] = (work[_pid] + 1) % 2;
    m[other] = 0;
    m[_pid] = 0;
    flag[_pid] = 0;
    goto loop
}
