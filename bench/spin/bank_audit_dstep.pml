/* bank_audit_dstep.pml: models/bank_audit.bc with Stoller's reduction applied
 * by hand (as prodcons_monitor_dstep.pml): each composed step is one d_step,
 * so pan stores visible states only. A teller's visible points are its start
 * and its two `acquire m`; m is free at each of them (no teller holds it
 * across a step), so the lock itself is left out. The check step reads the
 * balance (acquire, load, release, ge); the act step debits, asserts, credits,
 * appends to the audit checksum and plans the next transfer. Only the
 * registers a later step reads are kept (i, src, dst, amt, ok; the .bc also
 * leaves b, h and x set), so the states are close to, not one to one with,
 * mcheck's. `audit` wraps like the .bc's 32-bit arithmetic (gcc -fwrapv).
 *
 * Build and run:  spin -DOPS=40 -a bank_audit_dstep.pml
 *                 gcc -O2 -fwrapv -DSAFETY -DMEMLIM=500 -o pan pan.c && ./pan -m100000
 */
#ifndef T
#define T 3
#endif
#ifndef OPS
#define OPS 40
#endif
#define A 4
#define MID (OPS / 2)
#define START 1000000
#define LOAN 50

int bal[A + 1];
int audit;

inline plan() {
    src = (self + i) % A;
    dst = (src + self + 1) % A;
    amt = i % 3 + 1;
    if
    :: self < 2 && i == MID -> src = A; amt = LOAN
    :: self < 2 && i == MID + 1 -> dst = A; amt = LOAN
    :: else -> skip
    fi
}

proctype teller(byte self) {
    byte i, src, dst, amt;
    bit ok;
    d_step { plan() }
    do
    :: i < OPS ->
        d_step { ok = (bal[src] >= amt) }    /* the check: its own critical section */
        d_step {                             /* the act: another one */
            if
            :: ok ->
                bal[src] = bal[src] - amt;
                assert(bal[src] >= 0);       /* no account overdrawn */
                bal[dst] = bal[dst] + amt
            :: else -> skip
            fi;
            audit = audit * 31 + ((self * OPS + i) * 2 + ok);
            i++;
            if
            :: i < OPS -> plan()
            :: else -> src = 0; dst = 0; amt = 0; ok = 0
            fi
        }
    :: else -> break
    od
}

init {
    atomic {
        byte k;
        for (k : 0 .. A - 1) { bal[k] = START };
        bal[A] = LOAN;
        for (k : 0 .. T - 1) { run teller(k) }
    }
}
