#!/usr/bin/env python3
"""Compare mcheck builds on one model: run each in turn, RUNS times, and print
each build's CPU seconds (user + system; min, median, max) and its median's
ratio to the first build's. On a shared machine one run can be 1.3x off, and
the load drifts over minutes; runs taken in turn see the same drift.

--paired (two builds): run the two at the same time, one on each core, the
first started alternately, and print the median and range of the per-pair
ratios B/A as well. Both runs of a pair see the same moment's interference
(the host's, and each other's on the shared cache and memory), so the ratio
is steadier than ratios of runs taken in turn; use it on a 2-core machine
with nothing else running.

--callgrind: count the instructions each build executes (valgrind's
callgrind, one run each: repeatable, whatever the load) and print each
count and its ratio to the first build's. Options a build does not know
make it exit 2, which is reported.

usage: bench/ab.py [--runs N] [--paired | --callgrind] MCHECK_A MCHECK_B [...] -- MCHECK_ARGS...
e.g.   bench/ab.py --runs 5 /tmp/mcheck-before build/tools/mcheck -- \
           --reduce=none --race=off -D ITEMS=2000 -D CAP=6 models/prodcons_monitor.bc
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys


def check_exit(cmd, status):
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1, 3):
        sys.exit(f"{' '.join(cmd)}: exit {code}")


def paired_seconds(cmd_a, cmd_b, a_first):
    """Run both at once; their CPU seconds (user + system)."""
    order = [cmd_a, cmd_b] if a_first else [cmd_b, cmd_a]
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for c in order]
    secs = {}
    for _ in procs:
        pid, status, ru = os.wait4(-1, 0)
        cmd = next(c for c, p in zip(order, procs) if p.pid == pid)
        check_exit(cmd, status)
        secs[pid] = ru.ru_utime + ru.ru_stime
    t = [secs[p.pid] for p in procs]
    return (t[0], t[1]) if a_first else (t[1], t[0])


def cpu_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions(cmd):
    """The instructions cmd executes (callgrind's Ir)."""
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}")
    for line in p.stderr.splitlines():
        if "refs:" in line:
            return int(line.split("refs:")[1].replace(",", ""))
    sys.exit(f"{' '.join(cmd)}: no instruction count in valgrind's output")


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--paired", action="store_true",
                    help="two builds: run them at the same time, one on each core")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions instead of timing (valgrind, one run each)")
    ap.add_argument("builds", nargs="+")
    opts = ap.parse_args(argv[:cut])
    args = ["--quiet"] + argv[cut + 1:]
    if opts.callgrind:
        ir = {b: instructions([b] + args) for b in opts.builds}
        base = ir[opts.builds[0]]
        for b in opts.builds:
            print(f"{b}: {ir[b]:,} instructions (x{ir[b] / base:.4f} of the first)")
        return
    if opts.paired and len(opts.builds) != 2:
        sys.exit("--paired compares two builds")
    times = {b: [] for b in opts.builds}
    ratios = []
    for i in range(opts.runs):
        if opts.paired:
            a, b = opts.builds
            ta, tb = paired_seconds([a] + args, [b] + args, i % 2 == 0)
            times[a].append(ta)
            times[b].append(tb)
            ratios.append(tb / ta)
            continue
        for b in opts.builds:
            times[b].append(cpu_seconds([b] + args))
    base = statistics.median(times[opts.builds[0]])
    for b in opts.builds:
        t = sorted(times[b])
        med = statistics.median(t)
        print(f"{b}: CPU s min {t[0]:.3f} median {med:.3f} max {t[-1]:.3f}  "
              f"(x{med / base:.3f} of the first)")
    if ratios:
        print(f"paired: second/first per pair, median x{statistics.median(ratios):.3f} "
              f"(x{min(ratios):.3f} .. x{max(ratios):.3f})")


if __name__ == "__main__":
    main()
