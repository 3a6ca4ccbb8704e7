#!/usr/bin/env python3
"""swarm.py: bug hunting where the search cannot finish (issue 34;
docs/benchmarks.md, "Bug hunting: swarm"). The time to the first error on
models/ring_opposite.bc (a ring of N workers with ordered locking and a pair
that takes two locks in opposite orders: a deadlock that needs one
preemption) by search: the default DFS (--por), --por=off, the stateless
search with preemption bounds 1-3 and delay bounds 1-3, and --swarm with 2,
4 and 8 workers;
each one run, stopped at --timelimit. Traces are not shortened
(--shorten=off), so the time is the search's. With SPIN installed
(`spin`, gcc), the Promela peer bench/spin/ring_opposite.pml run by pan in
SPIN's default order, with -DP_REVERSE, and as SPIN's swarm does it by hand:
pan built with -DP_RAND -DT_RAND and run with seeds -RS1..-RS4 (on 4 cores
those would run at once: the swarm's time is the least of theirs). It
prints a Markdown table; it decides nothing.

usage: bench/swarm.py [--mcheck build/tools/mcheck] [--n 10] [--iter 3]
                      [--timelimit 60] [--seed 1] [--no-spin] [--only TEXT]
(--only: just the mcheck rows whose name contains TEXT, and no SPIN rows)
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import TOP, build_pan  # noqa: E402

MODEL = os.path.join(TOP, "models", "ring_opposite.bc")
PML = os.path.join(TOP, "bench", "spin", "ring_opposite.pml")


def mcheck_row(mcheck, name, args, a):
    cmd = [mcheck, "--json", "--quiet", "--shorten=off", "--timelimit", str(a.timelimit),
           "-D", f"N={a.n}", "-D", f"ITER={a.iter}"] + args + [MODEL]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timelimit * 3 + 60)
    wall = time.monotonic() - t0
    js = json.loads(p.stdout)
    st = js["stats"]
    found = js["verdict"] not in ("ok", "incomplete")
    work = (f"{st['executions']:,} executions" if st.get("executions")
            else f"{st['states_stored']:,} states")
    note = ""
    if st.get("swarm") is not None:
        d = st.get("swarm_decided_by")
        if d is not None:
            w = st["swarm"][d]
            order = ("id order" if d == 0 else "reversed order" if d == 1
                     else f"random order, seed {w['seed']}")
            note = f"worker {d} ({order}), {w['states_stored']:,} states of its own"
    return (name, " ".join(args) or "(default)", js["verdict"], found, st["seconds"], wall, work,
            note)


def pan_row(name, cflags, runflags, a, work):
    d = build_pan(PML, {"N": a.n, "ITER": a.iter}, work, cflags=cflags, memlim_mb=4000)
    t0 = time.monotonic()
    p = subprocess.Popen(["./pan", "-m1000000"] + runflags, cwd=d, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=a.timelimit)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate()
    wall = time.monotonic() - t0
    found = "invalid end state (" in out
    states = next((line.split()[0] for line in out.splitlines() if "states, stored" in line), "?")
    secs = next((float(line.split()[3]) for line in out.splitlines()
                 if line.startswith("pan: elapsed time")), float("nan"))
    return (name, " ".join(cflags + runflags) or "(default)",
            "deadlock" if found else "stopped", found, secs, wall, f"{int(states):,} states"
            if states.isdigit() else states, "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--iter", type=int, default=3)
    ap.add_argument("--timelimit", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-spin", action="store_true")
    ap.add_argument("--only", help="only the mcheck rows whose name contains this")
    a = ap.parse_args()
    rows = []
    for name, args in (("DFS (default, --por)", []),
                       ("DFS --por=off", ["--por=off"]),
                       ("stateless, 1 preemption", ["--search=stateless", "--preemption-bound", "1"]),
                       ("stateless, 2 preemptions", ["--search=stateless", "--preemption-bound", "2"]),
                       ("stateless, 3 preemptions", ["--search=stateless", "--preemption-bound", "3"]),
                       ("stateless, 1 delay", ["--search=stateless", "--delay-bound", "1"]),
                       ("stateless, 2 delays", ["--search=stateless", "--delay-bound", "2"]),
                       ("stateless, 3 delays", ["--search=stateless", "--delay-bound", "3"]),
                       ("swarm of 2", ["--swarm", "2", "--seed", str(a.seed)]),
                       ("swarm of 4", ["--swarm", "4", "--seed", str(a.seed)]),
                       ("swarm of 8", ["--swarm", "8", "--seed", str(a.seed)])):
        if a.only and a.only not in name:
            continue
        rows.append(mcheck_row(a.mcheck, name, args, a))
        print(f"swarm.py: {rows[-1][0]}: {rows[-1][2]} in {rows[-1][5]:.2f} s", file=sys.stderr)
    if not a.no_spin and not a.only and shutil.which("spin") and shutil.which("gcc"):
        work = tempfile.mkdtemp(prefix="mcheck-swarm-pan-")
        try:
            rows.append(pan_row("SPIN pan, default order", [], [], a, work))
            rows.append(pan_row("SPIN pan, -DP_REVERSE", ["-DP_REVERSE"], [], a, work))
            for s in range(1, 5):
                rows.append(pan_row(f"SPIN pan, random {s}", ["-DP_RAND", "-DT_RAND"],
                                    [f"-RS{s}"], a, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"ring_opposite.bc -D N={a.n} -D ITER={a.iter}, one run each, "
          f"--timelimit {a.timelimit:g} s, {os.cpu_count()} cores\n")
    print("| search | options | verdict | search time (s) | wall (s) | work | found by |")
    print("|---|---|---|---:|---:|---:|---|")
    for name, opts, verdict, found, secs, wall, work, note in rows:
        print(f"| {name} | `{opts}` | {verdict} | {secs:.2f} | {wall:.2f} | {work} | {note} |")


if __name__ == "__main__":
    main()
