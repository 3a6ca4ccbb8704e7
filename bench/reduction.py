#!/usr/bin/env python3
"""How much mcheck's reduction saves, beside SPIN (the harness of issue 15).

For dining philosophers N = 3..8 (--all-errors: the whole space, past every
deadlock) and the monitor producer/consumer at three sizes, prints one Markdown
table: states, transitions and search time for each mcheck configuration in
CONFIGS, for SPIN's default verifier on the fine-grained Promela model
(bench/spin/philosophers.pml, prodcons_monitor.pml; -DSAFETY, its
partial-order reduction on) and for SPIN on the models with Stoller's reduction
applied by hand (bench/spin/*_dstep.pml: one d_step per composed step), and
each row's states and time against the hand-reduced SPIN model's, measured in
the same run. Then a second table: every bundled model, mcheck only.

Not a throughput benchmark (compare.py is), and one run each on a shared
machine: the time ratios are noisy (1.3x either way), the state counts exact.
Ideas: Stoller, "Model-checking multi-threaded distributed Java programs",
STTT 4(1), 2002 (composition, sections 3.5 and 5; persistent and sleep sets,
section 6); Godefroid, LNCS 1032, 1996.

usage: bench/reduction.py [--mcheck build/tools/mcheck] [--timelimit 60] [--quick]
                          [--only spin|models] [--match REGEX] [--memlimit-mb 12000]
"""
import argparse
import os
import re
import shutil
import sys
import tempfile
import time

from benchlib import TOP, Rejected, build_pan, fmt, header_options, run_mcheck, run_pan

# mcheck configurations, one column group each: (name, options). A
# configuration this build rejects (exit 2: an option it lacks) shows as "-".
# Composition alone is --por=off (LANGUAGE.md fixes its counts); the default
# is --por: the invisible starts folded, the static discharge of detector
# metadata, persistent sets and (DFS) sleep sets.
CONFIGS = [
    ("mcheck --reduce=none", ["--reduce=none"]),
    ("mcheck composition, --por=off (LD' on)", ["--por=off"]),
    ("mcheck composition, --por=off --race=off", ["--por=off", "--race=off"]),
    ("mcheck default: --por (LD' on)", []),
    ("mcheck default, --race=off", ["--race=off"]),
]

# SPIN: -DSAFETY (no cycle detection: a safety search, as mcheck's), POR on;
# pan -c0 counts every error and searches past it (deadlocks are "invalid end
# states"), so the counts are of the whole space.
SPIN_CFLAGS = ["-DSAFETY"]
SPIN_FLAGS = ["-c0"]
# DFS depth limits: the fine-grained models' stacks grow to millions of steps;
# pan zeroes its whole stack (56 bytes a step) before its clock starts.
DEPTH_FINE = 100_000_000
DEPTH_DSTEP = 10_000_000


def spin_cases(quick):
    phil = [(f"philosophers N={n}", "models/philosophers.bc", {"N": n}, ["--all-errors"],
             "philosophers") for n in (range(3, 7) if quick else range(3, 9))]
    # ITEMS <= 255: prodcons_monitor.pml keeps items in bytes
    sizes = [(10, 6), (200, 6)] if quick else [(10, 6), (200, 6), (250, 40)]
    pc = [(f"prodcons_monitor ITEMS={i} CAP={c}", "models/prodcons_monitor.bc",
           {"ITEMS": i, "CAP": c}, ["--all-errors"], "prodcons_monitor") for i, c in sizes]
    return phil + pc


class Pan:
    """Builds pan per (model, defines, depth) and runs it with a time limit
    counted on pan's own clock: the wall-clock limit adds the time pan takes
    to zero its DFS stack, measured once per depth on the smallest model."""

    def __init__(self, workdir, timelimit, memlim_mb):
        self.workdir, self.timelimit, self.memlim = workdir, timelimit, memlim_mb
        self.grace = {}

    def startup(self, depth):
        if depth not in self.grace:
            d = build_pan(os.path.join(TOP, "bench/spin/philosophers.pml"), {"N": 2},
                          self.workdir, SPIN_CFLAGS, self.memlim)
            t = time.monotonic()
            r = run_pan(d, 600, SPIN_FLAGS + [f"-m{depth}"])
            self.grace[depth] = time.monotonic() - t - r["seconds"]
            shutil.rmtree(d)
        return self.grace[depth]

    def run(self, pml, defines, depth):
        d = build_pan(os.path.join(TOP, "bench/spin", pml), defines, self.workdir,
                      SPIN_CFLAGS, self.memlim)
        r = run_pan(d, self.timelimit + self.startup(depth) + 1, SPIN_FLAGS + [f"-m{depth}"])
        shutil.rmtree(d)
        return r


def cell_states(r, limit):
    """(states, transitions, time) cells; a run stopped early shows what it
    reached, after a ">"."""
    if r is None:
        return ["-", "-", "-"]
    if r["complete"]:
        t = r["seconds"]
        ts = "< 0.01" if t == 0 else f"{t:.3f}" if t < 10 else f"{t:.1f}"
        return [fmt(r["states"]), fmt(r["transitions"]), ts]
    why = "memory" if r.get("memlim") or r.get("stop") == "memlimit" else f"{limit:g} s"
    return [f"> {fmt(r['states'])}", f"> {fmt(r['transitions'])}", f"> {why}"]


# pan's clock ticks in 0.01 s: a time ratio needs at least this many seconds
MIN_TIMED = 0.05


def against(r, ref, key):
    """r[key] / ref[key] as "1.23x"; ">" when r stopped early, "-" when either
    is missing, ref is incomplete, or a time is too short for pan's clock
    (under MIN_TIMED) or mcheck's (0)."""
    if r is None or ref is None or not ref["complete"] or not ref[key]:
        return "-"
    if key == "seconds" and (ref[key] < MIN_TIMED or (r["complete"] and r[key] == 0)):
        return "-"
    x = r[key] / ref[key]
    s = f"{x:.3f}x" if x < 0.1 else f"{x:.2f}x"
    return s if r["complete"] else "> " + s


def print_notes(notes, everywhere):
    """notes: {(config, message): [cases]}; one line each, the cases named
    unless the config was rejected everywhere."""
    for (name, msg), cases in notes.items():
        where = "" if len(cases) == everywhere else " (" + ", ".join(cases) + ")"
        print(f"\n- {name}{where}: rejected, {msg}")


def spin_table(args, workdir):
    pan = Pan(workdir, args.timelimit, args.memlimit_mb)
    notes, depth_notes = {}, []
    print("| model | search | states | transitions | time (s) "
          "| states vs SPIN hand-reduced | time vs SPIN hand-reduced |")
    print("|---|---|---|---|---|---|---|")
    cases = [c for c in spin_cases(args.quick) if re.search(args.match, c[0])]
    for label, model, defs, extra, stem in cases:
        dargs = sum((["-D", f"{k}={v}"] for k, v in defs.items()), [])
        rows = []
        for name, opts in CONFIGS:
            try:
                r = run_mcheck(args.mcheck, dargs + extra + opts + [os.path.join(TOP, model)],
                               args.timelimit, args.memlimit_mb)
            except Rejected as e:
                notes.setdefault((name, e.args[0]), []).append(label)
                r = None
            rows.append((name, r))
        spin_default = pan.run(f"{stem}.pml", defs, DEPTH_FINE)
        hand = pan.run(f"{stem}_dstep.pml", defs, DEPTH_DSTEP)
        rows.append(("SPIN default (POR)", spin_default))
        rows.append(("SPIN, reduction by hand (d_step)", hand))
        if spin_default["depth_too_small"] or hand["depth_too_small"]:
            depth_notes.append(label)
        for i, (name, r) in enumerate(rows):
            cells = cell_states(r, args.timelimit)
            print(f"| {label if i == 0 else ''} | {name} | " + " | ".join(cells)
                  + f" | {against(r, hand, 'states')} | {against(r, hand, 'seconds')} |",
                  flush=True)
    print_notes(notes, len(cases))
    for label in depth_notes:
        print(f"\n- {label}: pan reached its DFS depth limit: its counts are pruned")


def models_table(args):
    models = sorted(f for f in os.listdir(os.path.join(TOP, "models")) if f.endswith(".bc"))
    head = "| model | verdict |" + "".join(f" {n}: states | transitions | s |" for n, _ in CONFIGS)
    print(head)
    print("|---|---|" + "---|---|---|" * len(CONFIGS))
    notes = {}
    for f in models:
        path = os.path.join(TOP, "models", f)
        opts = header_options(path)
        cells, verdicts = [], []
        for name, copts in CONFIGS:
            try:
                r = run_mcheck(args.mcheck, opts + ["--all-errors"] + copts + [path],
                               args.timelimit, args.memlimit_mb)
            except Rejected as e:
                notes.setdefault((name, e.args[0]), []).append(f)
                cells += ["-", "-", "-"]
                continue
            verdicts.append((name, r["verdict"]))
            c = cell_states(r, args.timelimit)
            if verdicts[0][1] != r["verdict"]:
                c[0] += f" ({r['verdict']})"
            cells += c
        print(f"| {f} | {verdicts[0][1] if verdicts else '-'} | " + " | ".join(cells) + " |",
              flush=True)
    print_notes(notes, len(models))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--timelimit", type=float, default=60,
                    help="seconds per run, mcheck's and pan's (default 60)")
    ap.add_argument("--quick", action="store_true",
                    help="philosophers N = 3..6 and two producer/consumer sizes only")
    ap.add_argument("--only", choices=["spin", "models"])
    ap.add_argument("--match", default="", metavar="REGEX",
                    help="only the philosophers/producer-consumer cases whose label matches, "
                         "e.g. 'N=8|ITEMS=250'")
    ap.add_argument("--memlimit-mb", type=int, default=12000,
                    help="memory per run, mcheck --memlimit and pan -DMEMLIM (default 12000)")
    args = ap.parse_args()
    if not os.path.exists(args.mcheck):
        sys.exit(f"no mcheck at {args.mcheck}: run ./bootstrap.sh build first")
    if args.only != "models" and shutil.which("spin") is None:
        sys.exit("spin is not installed: apt-get install spin (or --only models)")
    with tempfile.TemporaryDirectory() as workdir:
        if args.only in (None, "spin"):
            print("## Philosophers and producer/consumer, beside SPIN\n")
            spin_table(args, workdir)
            print()
        if args.only in (None, "models"):
            print("## Every bundled model (--all-errors, the options its header states)\n")
            models_table(args)


if __name__ == "__main__":
    main()
