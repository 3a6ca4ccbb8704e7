#!/usr/bin/env python3
"""Compare mcheck builds on one model: run each in turn, RUNS times, and print
each build's CPU seconds (user + system; min, median, max) and its median's
ratio to the first build's. On a shared machine one run can be 1.3x off, and
the load drifts over minutes; runs taken in turn see the same drift.

usage: bench/ab.py [--runs N] MCHECK_A MCHECK_B [...] -- MCHECK_ARGS...
e.g.   bench/ab.py --runs 5 /tmp/mcheck-before build/tools/mcheck -- \
           --reduce=none --race=off -D ITEMS=2000 -D CAP=6 models/prodcons_monitor.bc
"""
import argparse
import resource
import statistics
import subprocess
import sys


def cpu_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("builds", nargs="+")
    opts = ap.parse_args(argv[:cut])
    args = ["--quiet"] + argv[cut + 1:]
    times = {b: [] for b in opts.builds}
    for _ in range(opts.runs):
        for b in opts.builds:
            times[b].append(cpu_seconds([b] + args))
    base = statistics.median(times[opts.builds[0]])
    for b in opts.builds:
        t = sorted(times[b])
        med = statistics.median(t)
        print(f"{b}: CPU s min {t[0]:.3f} median {med:.3f} max {t[-1]:.3f}  "
              f"(x{med / base:.3f} of the first)")


if __name__ == "__main__":
    main()
