#!/usr/bin/env python3
"""The distributed search (mcheck-mpi, issues 17 and 34): -np 1, 2, 4 in both
exchanges (--exchange=levels, the default, and --exchange=async) against the
sequential BFS and -j 2, on a deep narrow model and a wide one, in
interleaved rounds.

Models (--store=exact --all-errors, every count checked against the
sequential BFS's: a row that differs is marked):
  deep:  prodcons_monitor ITEMS=1000 CAP=6 --reduce=none --race=off
         (2.9 million states, 38,008 levels of ~77 states); --quick: ITEMS=150
  wide:  philosophers N=8, the default reduction (1.7 million states,
         levels of up to ~100,000); --quick: N=6
The machine is shared and its two cores do not run alike (measured: the same
sequential run took 0.70 s pinned to one core and 1.18 s on the other,
minutes later 0.78 and 0.78): so each round runs every configuration once,
in turn, and the table gives the median over the rounds of the search time
(mcheck's own figure), mpirun's wall time, and the per-round ratio to the
sequential BFS of the same round; the per-rank wait (time spent in the
exchange, or idle waiting for states) and what was sent are the last
round's.

usage: [chrt -r 10] bench/mpi.py [--build rel] [--quick] [--rounds 5] [--np 1,2,4]
                    [--models deep,wide]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from benchlib import TOP, fmt

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

MODELS = {
    "deep": ("prodcons_monitor.bc", ["-D", "ITEMS=1000", "-D", "CAP=6", "--reduce=none",
                                     "--race=off"], ["-D", "ITEMS=150", "-D", "CAP=6",
                                                     "--reduce=none", "--race=off"]),
    "wide": ("philosophers.bc", ["-D", "N=8"], ["-D", "N=6"]),
}


def run(cmd):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    wall = time.time() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    return json.loads(p.stdout), wall


def configs(o):
    mcheck = os.path.join(o.build, "tools", "mcheck")
    mpi = os.path.join(o.build, "tools", "mcheck-mpi")
    out = [("sequential BFS", [mcheck, "--search=bfs"]), ("-j 2", [mcheck, "-j", "2"])]
    for np in [int(x) for x in o.np.split(",")]:
        for ex in ("levels", "async"):
            out.append((f"-np {np} {ex}", ["mpirun", "--oversubscribe", "-np", str(np), mpi,
                                           f"--exchange={ex}"]))
    return out


def table(name, args, rows):
    print(f"\n{name}: {' '.join(args)}\n")
    print("| search | states | transitions | max depth | search s (median) | wall s (median) "
          "| time / sequential (median) | messages | B sent/state | wait s per rank |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    base = rows[0][1][-1]["stats"]
    for label, runs in rows:
        s = runs[-1]["stats"]
        same = s["states_stored"] == base["states_stored"] and \
            s["transitions"] == base["transitions"]
        secs = statistics.median(r["stats"]["seconds"] for r in runs)
        walls = statistics.median(r["wall"] for r in runs)
        ratios = statistics.median(r["stats"]["seconds"] / b["stats"]["seconds"]
                                   for r, b in zip(runs, rows[0][1]))
        ranks = s.get("ranks") or []
        msgs = sum(r["messages"] for r in ranks)
        sent = sum(r["bytes_sent"] for r in ranks)
        waits = [r["wait_seconds"] for r in ranks]
        wait = f"{min(waits):.2f}-{max(waits):.2f}" if waits else ""
        st = s["states_stored"]
        print(f"| {label} | {st:,}{'' if same else ' (DIFFERS)'} | {s['transitions']:,} | "
              f"{s['max_depth']:,} | {secs:.2f} | {walls:.2f} | {ratios:.2f} | "
              f"{fmt(msgs) if ranks else ''} | {f'{sent / st:.1f}' if ranks else ''} | {wait} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "rel"))
    ap.add_argument("--quick", action="store_true", help="small instances, one round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--np", default="1,2,4")
    ap.add_argument("--models", default="deep,wide")
    o = ap.parse_args()
    rounds = 1 if o.quick else o.rounds
    print(f"cores: {os.cpu_count()}, rounds: {rounds}")
    for name in o.models.split(","):
        f, args, quick = MODELS[name]
        args = quick if o.quick else args
        model = os.path.join(TOP, "models", f)
        cfgs = configs(o)
        runs = {label: [] for label, _ in cfgs}
        for _ in range(rounds):
            for label, cmd in cfgs:
                js, wall = run(cmd + ["--json", "--quiet", "--store=exact", "--all-errors"] +
                               args + [model])
                js["wall"] = wall
                runs[label].append(js)
        table(f"{name} ({f})", args, [(label, runs[label]) for label, _ in cfgs])
    return 0


if __name__ == "__main__":
    sys.exit(main())
