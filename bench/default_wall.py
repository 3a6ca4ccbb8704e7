#!/usr/bin/env python3
"""The default search as a user waits for it (issue 28): the whole command
`mcheck --all-errors -D N=K models/philosophers.bc`, no other option, its
text report included, timed from start to exit, beside SPIN on the same
program: pan -c0 (every error counted and searched past) on the hand-reduced
model (bench/spin/philosophers_dstep.pml, each composed step one d_step:
6^N states) and on the fine-grained one with SPIN's own reduction; and
mcheck --por=off (composition alone). pan is compiled before its clock
starts (in SPIN's favour: a SPIN user waits for spin -a and gcc too), with
a depth limit (-m) the search needs and no more: pan zeroes its whole stack
before it starts.

For each N the commands run in turns, `--repeat` times (default 3): A, B,
C, D, A, B, ... so that a shared machine's load falls on each alike; the
median of each is printed, and the ratios are of the medians. mcheck's own
time split (search, the shorter trace, replaying traces) is read off its
statistics.

usage: bench/default_wall.py [--mcheck build/tools/mcheck] [--min-n 5] [--max-n 7]
                             [--repeat 3] [--timelimit 60]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import TOP, build_pan, fmt

SPIN_CFLAGS = ["-DSAFETY"]


def wall(cmd, cwd, timelimit):
    """(seconds from start to exit, stdout) of one command."""
    t = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timelimit)
    return time.monotonic() - t, p.stdout


def mcheck_figures(out):
    g = lambda pat: (re.search(pat, out, re.M) or [None, "-"])[1]
    return {"states": g(r"^  states stored\s+(\d+)"),
            "split": g(r"^  time split\s+(.*)$"),
            "errors": g(r"^errors found: (\d+)"),
            "trace": g(r"^trace \((\d+) steps")}


def pan_states(out):
    if "max search depth too small" in out:
        return "depth too small"
    m = re.search(r"(\d+) states, stored", out)
    return m.group(1) if m else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--min-n", type=int, default=5)
    ap.add_argument("--max-n", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timelimit", type=float, default=60)
    args = ap.parse_args()
    if not os.path.exists(args.mcheck):
        sys.exit(f"no mcheck at {args.mcheck}: run ./bootstrap.sh build first")
    if shutil.which("spin") is None:
        sys.exit("spin not found: apt-get install spin")
    model = os.path.join(TOP, "models", "philosophers.bc")
    print("| N | command | states | whole command (s, median) | vs SPIN hand-reduced | "
          "mcheck's time split (last run) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for n in range(args.min_n, args.max_n + 1):
            dstep = build_pan(os.path.join(TOP, "bench/spin/philosophers_dstep.pml"), {"N": n},
                              work, SPIN_CFLAGS)
            fine = build_pan(os.path.join(TOP, "bench/spin/philosophers.pml"), {"N": n},
                             work, SPIN_CFLAGS)
            runs = [
                ("mcheck --all-errors (default)", [args.mcheck, "--all-errors", "-D", f"N={n}", model], None),
                ("mcheck --all-errors --por=off", [args.mcheck, "--all-errors", "--por=off", "-D",
                                                   f"N={n}", model], None),
                ("SPIN pan -c0, hand-reduced (d_step)", ["./pan", "-c0", "-m1000000"], dstep),
                ("SPIN pan -c0, its own POR", ["./pan", "-c0", "-m10000000"], fine),
            ]
            times = {name: [] for name, _, _ in runs}
            outs = {}
            for _ in range(args.repeat):
                for name, cmd, cwd in runs:
                    try:
                        sec, out = wall(cmd, cwd, args.timelimit)
                    except subprocess.TimeoutExpired:
                        sec, out = float("inf"), ""
                    times[name].append(sec)
                    outs[name] = out
            ref = statistics.median(times["SPIN pan -c0, hand-reduced (d_step)"])
            for name, cmd, cwd in runs:
                med = statistics.median(times[name])
                if cwd is None:
                    f = mcheck_figures(outs[name])
                    states, split = f["states"], f["split"]
                else:
                    states, split = pan_states(outs[name]), ""
                st = fmt(int(states)) if states.isdigit() else states
                shown = "> limit" if med == float("inf") else f"{med:.3f}"
                rat = "-" if med == float("inf") or not ref else f"{med / ref:.2f}x"
                print(f"| {n} | {name} | {st} | {shown} | {rat} | {split} |")
            shutil.rmtree(dstep)
            shutil.rmtree(fine)


if __name__ == "__main__":
    main()
