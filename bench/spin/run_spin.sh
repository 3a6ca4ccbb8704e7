#!/bin/sh
# run_spin.sh: run the SPIN peers (bench/README.md). Builds pan in a temporary
# directory, with and without SPIN's partial-order reduction, and prints pan's
# verdict and statistics lines.
#   sh bench/spin/run_spin.sh            philosophers N=3..7 to the first error,
#                                        producer/consumer (ITEMS=10, CAP=6)
#   FULL=1 sh bench/spin/run_spin.sh     also the whole philosophers space (-c0),
#                                        N=3..6 (N=6 takes about a minute)
# and the models reduced by hand (*_dstep.pml), whole space: philosophers
# N=3..7, producer/consumer ITEMS=10 CAP=6.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

pan() { # pan MODEL.pml "SPIN-DEFINES" "GCC-FLAGS" "PAN-FLAGS"
    spin $2 -a "$here/$1" >/dev/null
    gcc -O2 -DMEMLIM=16000 $3 -o pan pan.c
    ./pan $4 2>&1 | grep -E 'invalid end state|assertion violated|errors:|states, stored|transitions \(|rate' || true
}

for n in 3 4 5 6 7; do
    for mode in POR NOREDUCE; do
        flags=; [ $mode = NOREDUCE ] && flags=-DNOREDUCE
        echo "== philosophers N=$n $mode (first error)"
        pan philosophers.pml "-DN=$n" "$flags" "-m1000000"
    done
done
if [ "${FULL:-0}" = 1 ]; then
    for n in 3 4 5 6; do
        for mode in POR NOREDUCE; do
            flags=; [ $mode = NOREDUCE ] && flags=-DNOREDUCE
            echo "== philosophers N=$n $mode (whole space, -c0)"
            pan philosophers.pml "-DN=$n" "$flags" "-c0 -m10000000"
        done
    done
fi
for mode in POR NOREDUCE; do
    flags=; [ $mode = NOREDUCE ] && flags=-DNOREDUCE
    echo "== prodcons_monitor ITEMS=10 CAP=6 $mode"
    pan prodcons_monitor.pml "" "$flags" "-m1000000"
done
for n in 3 4 5 6 7; do
    echo "== philosophers_dstep N=$n (reduced by hand, whole space, -c0)"
    pan philosophers_dstep.pml "-DN=$n" "-DSAFETY" "-c0 -m1000000" | grep -v "^pan:[0-9]" || true
done
echo "== prodcons_monitor_dstep ITEMS=10 CAP=6 (reduced by hand)"
pan prodcons_monitor_dstep.pml "" "-DSAFETY" "-c0 -m1000000" | grep -v "^pan:[0-9]" || true
