/* rw_writer_starves.pml: SPIN's version of models/rw_writer_starves.bc
 * (readers-writers, reader preference), for the fair non-progress check:
 *   spin -a rw_writer_starves.pml && gcc -DNP -DNFAIR=3 -o pan pan.c && ./pan -l -f
 * Only the writer has a progress label, so a (fair) non-progress cycle is a
 * (weakly fair) execution in which the writer never writes. A lock is a bit
 * taken atomically when free. */
byte readers;
bit m;
bit data;

#ifndef R
#define R 2
#endif
active [R] proctype reader()
{
    byte n;
loop:
    atomic { m == 0 -> m = 1 };
    n = readers; readers = n + 1;
    m = 0;
    skip; /* reading */
    atomic { m == 0 -> m = 1 };
    n = readers; readers = n - 1;
    m = 0;
    goto loop
}

active proctype writer()
{
loop:
    if
    :: readers != 0 -> goto loop
    :: else
    fi;
    atomic { m == 0 -> m = 1 };
    if
    :: readers != 0 -> m = 0; goto loop
    :: else
    fi;
progress_write:
    data = 1 - data;
    assert(readers == 0);
    m = 0;
    goto loop
}
