#!/usr/bin/env python3
"""Benchmark: mcheck against SPIN, and mcheck's reduction against its own
fully interleaved search. Prints Markdown tables (paste into
docs/benchmarks.md); machines are shared and noisy, so compare ratios, not
absolute times.

usage: bench/compare.py [--mcheck build/tools/mcheck] [--timelimit 30] [--quick]
                        [--repeat R] [--only throughput|reduction]

With --repeat R (default 3) table 1 runs mcheck, pan and pan -DNOREDUCE R
times each, one after the other in turn, and reports each one's median run
(by rate): on a shared machine one run of either tool can be 1.3x off.

Table 1 (throughput and memory, both fully interleaved): dining philosophers
N = 3..7 (models/philosophers.bc, bench/spin/philosophers.pml) and the monitor
producer/consumer. mcheck runs --reduce=none --all-errors (search past the
deadlocks) with --race=off (SPIN checks no races); pan runs -E (invalid end states not reported, so it searches the
whole space too), with its partial-order reduction (default) and without
(-DNOREDUCE). Runs longer than --timelimit are stopped (mcheck --timelimit,
pan by SIGINT, which makes it print its statistics) and compared on the states
they reached in that time.

Table 2 (reduction): every bundled model without --reduce and with
--reduce=none: states stored, transitions, time, and the ratio.
"""
import argparse
import os
import shutil
import sys
import tempfile

from benchlib import TOP, build_pan, fmt, header_options, ratio, run_mcheck, run_pan


# -E: invalid end states (the deadlocks) not reported, so pan searches the
# whole space; a depth limit of 10^8 steps for the fully interleaved DFS
PAN_FLAGS = ["-E", "-m100000000"]


def median_run(rs):
    """The run with the median rate (pan's runs too short to time have rate nan:
    they sort last, and count only if most runs are like that)."""
    key = lambda r: (r["rate"] != r["rate"], r["rate"])
    return sorted(rs, key=key)[(len(rs) - 1) // 2]


def throughput(args, workdir):
    cases = [("philosophers", {"N": n}, "models/philosophers.bc", ["--all-errors"],
              "bench/spin/philosophers.pml") for n in (range(3, 6) if args.quick else range(3, 8))]
    cases.append(("prodcons_monitor", {"ITEMS": 10, "CAP": 6}, "models/prodcons_monitor.bc", [],
                  "bench/spin/prodcons_monitor.pml"))
    # the bundled instance is over before SPIN's clock ticks: bigger ones give
    # rates (pan takes about 0.05 s on ITEMS=200, which its 0.01 s clock
    # times to within 20%, and 0.3 s on ITEMS=2000)
    for items in (200, 2000):
        cases.append(("prodcons_monitor", {"ITEMS": items, "CAP": 6}, "models/prodcons_monitor.bc",
                      [], "bench/spin/prodcons_monitor.pml"))
    print("| model | mcheck states | mcheck states/s | SPIN POR states | SPIN POR states/s "
          "| rate ratio (mcheck/SPIN POR) | SPIN NOREDUCE states/s | rate ratio (vs NOREDUCE) "
          "| mcheck store B/state | SPIN B/state (POR, stored vector + overhead) | memory ratio (SPIN/mcheck) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, defs, model, extra, pml in cases:
        dargs = sum((["-D", f"{k}={v}"] for k, v in defs.items()), [])
        # --race=off: SPIN checks no races, so the detector (and its metadata in
        # the state vector) stays out of the throughput comparison
        pan_por = build_pan(os.path.join(TOP, pml), defs, workdir)
        pan_nr = build_pan(os.path.join(TOP, pml), defs, workdir, ["-DNOREDUCE"])
        runs = {"m": [], "por": [], "nr": []}
        for _ in range(args.repeat):
            runs["m"].append(run_mcheck(args.mcheck, dargs + extra + [
                "--reduce=none", "--race=off", os.path.join(TOP, model)], args.timelimit))
            runs["por"].append(run_pan(pan_por, args.timelimit, PAN_FLAGS))
            runs["nr"].append(run_pan(pan_nr, args.timelimit, PAN_FLAGS))
        m, por, nr = (median_run(runs[k]) for k in ("m", "por", "nr"))
        label = name + "".join(f" {k}={v}" for k, v in defs.items())
        mark = lambda r: "" if r["complete"] else " (partial)"
        print(f"| {label} | {fmt(m['states'])}{mark(m)} | {fmt(m['rate'])} "
              f"| {fmt(por['states'])}{mark(por)} | {fmt(por['rate'])} "
              f"| {ratio(m['rate'], por['rate'])} | {fmt(nr['rate'])} | {ratio(m['rate'], nr['rate'])} "
              f"| {m['store_bps']:.1f} | {por['store_bps']:.1f} "
              f"| {por['store_bps'] / m['store_bps']:.1f}x |", flush=True)


def reduction(args):
    models = sorted(f for f in os.listdir(os.path.join(TOP, "models")) if f.endswith(".bc"))
    print("| model | verdict | --reduce=none states | transitions | s "
          "| compose states | transitions | s | states ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in models:
        path = os.path.join(TOP, "models", f)
        opts = header_options(path)
        full = run_mcheck(args.mcheck, opts + ["--all-errors", "--reduce=none", path], args.timelimit)
        red = run_mcheck(args.mcheck, opts + ["--all-errors", path], args.timelimit)
        mark = lambda r: "" if r["complete"] or r["verdict"] != "incomplete" else " (partial)"
        print(f"| {f} | {red['verdict']} | {fmt(full['states'])}{mark(full)} | {fmt(full['transitions'])} "
              f"| {full['seconds']:.3f} | {fmt(red['states'])}{mark(red)} | {fmt(red['transitions'])} "
              f"| {red['seconds']:.3f} | {full['states'] / max(1, red['states']):.1f}x |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--timelimit", type=float, default=30)
    ap.add_argument("--quick", action="store_true", help="N = 3..5 only")
    ap.add_argument("--only", choices=["throughput", "reduction"])
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each tool per case in table 1; the median counts")
    args = ap.parse_args()
    if not os.path.exists(args.mcheck):
        sys.exit(f"no mcheck at {args.mcheck}: run ./bootstrap.sh build first")
    with tempfile.TemporaryDirectory() as workdir:
        if args.only in (None, "throughput"):
            if shutil.which("spin") is None:
                sys.exit("spin is not installed: apt-get install spin")
            print("## Throughput and memory, fully interleaved\n")
            throughput(args, workdir)
            print()
        if args.only in (None, "reduction"):
            print("## Reduction: --reduce=none against composed steps (--all-errors)\n")
            reduction(args)


if __name__ == "__main__":
    main()
