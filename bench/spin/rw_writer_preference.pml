/* rw_writer_preference.pml: SPIN's version of models/rw_writer_preference.bc
 * (readers-writers, writer preference: a waiting writer keeps new readers
 * out), the fix of rw_writer_starves.pml:
 *   spin -a rw_writer_preference.pml && gcc -DNP -DNFAIR=3 -o pan pan.c && ./pan -l -f
 * no fair non-progress cycle (without -f, the trivial one: the writer is
 * never scheduled). */
byte readers;
bit want;
bit m;
bit data;

#ifndef R
#define R 2
#endif
active [R] proctype reader()
{
    byte n;
loop:
    if
    :: want != 0 -> goto loop
    :: else
    fi;
    atomic { m == 0 -> m = 1 };
    if
    :: want != 0 -> m = 0; goto loop
    :: else
    fi;
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
    want = 1;
wait:
    if
    :: readers != 0 -> goto wait
    :: else
    fi;
    atomic { m == 0 -> m = 1 };
    if
    :: readers != 0 -> m = 0; goto wait
    :: else
    fi;
progress_write:
    data = 1 - data;
    assert(readers == 0);
    m = 0;
    want = 0;
    goto loop
}
