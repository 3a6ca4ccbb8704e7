#!/usr/bin/env python3
"""The parallel search (-j N, issue 16): speedup and overhead, measured in one run.

For each model (10^6 to 10^7 states: fully interleaved philosophers and
producer/consumer, and the reduced philosophers with LD' on) it runs the
sequential search and -j 1, 2, 4 and 8, taking turns, --repeat times each,
and prints one Markdown table of the fastest run of each: search time,
states/s, store bytes per state, and the ratios that issue 16 asks for:
-j 1 against the sequential search (the engine's overhead), -j 2 against
-j 1 (the speedup), and 4 and 8 threads on this machine's cores
(oversubscription), and two sequential searches run at once as two
processes, which share nothing but the machine: their combined speed is
the ceiling two cores of this machine give this model. Then the per-worker load of one -j 2 run per model
(states, idle seconds, times handed work). Every run of a model must store
the same number of states (the exact count is the sequential one's); a row
that does not is marked.

Search time is mcheck's own figure (the search, not the trace replay or the
report). The machine is shared: take ratios from one run of this script.

usage: bench/parallel.py [--mcheck build/tools/mcheck] [--repeat 3] [--quick]
                         [--search dfs|bfs]
"""
import argparse
import json
import os
import subprocess
import sys

from benchlib import TOP, fmt

MODELS = [
    # (name, model, options)
    ("philosophers N=5, --reduce=none (fully interleaved)", "philosophers.bc",
     ["-D", "N=5", "--reduce=none", "--race=off", "--all-errors"]),
    ("prodcons_monitor ITEMS=2000 CAP=6, --reduce=none", "prodcons_monitor.bc",
     ["-D", "ITEMS=2000", "-D", "CAP=6", "--reduce=none", "--race=off"]),
    ("philosophers N=7, composed, LD' on (reduced)", "philosophers.bc",
     ["-D", "N=7", "--all-errors"]),
]
QUICK = [
    ("philosophers N=6, composed, LD' on", "philosophers.bc", ["-D", "N=6", "--all-errors"]),
]
CONFIGS = [("sequential", []), ("-j 1", ["-j", "1"]), ("-j 2", ["-j", "2"]),
           ("-j 4", ["-j", "4"]), ("-j 8", ["-j", "8"])]


def run(mcheck, args, model):
    """One search; its report (--json, with the errors' traces dropped)."""
    p = subprocess.run([mcheck, "--json", "--quiet"] + args + [model], capture_output=True,
                       text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"mcheck {' '.join(args)} {model}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def run_pair(mcheck, args, model):
    """Two sequential searches at once, as two processes: how much two cores
    of this machine give a search that shares nothing (memory bandwidth and
    the caches are shared all the same). Returns the slower one's time."""
    cmd = [mcheck, "--json", "--quiet"] + args + [model]
    ps = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
          for _ in range(2)]
    return max(json.loads(p.communicate()[0])["stats"]["seconds"] for p in ps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one small model, one run each")
    ap.add_argument("--search", choices=["dfs", "bfs"], default="dfs")
    opts = ap.parse_args()
    models = QUICK if opts.quick else MODELS
    repeat = 1 if opts.quick else opts.repeat
    print(f"cores: {os.cpu_count()}; search={opts.search}; fastest of {repeat} runs, "
          f"taken in turn\n")
    print("| model | search | states | time (s) | states/s | store B/state | ratio |")
    print("|---|---|---|---|---|---|---|")
    loads = []
    for name, file, margs in models:
        model = os.path.join(TOP, "models", file)
        base = margs + [f"--search={opts.search}"]
        best = {}
        pair = float("inf")
        for _ in range(repeat):
            for cname, cargs in CONFIGS:
                js = run(opts.mcheck, base + cargs, model)
                if cname not in best or js["stats"]["seconds"] < best[cname]["stats"]["seconds"]:
                    best[cname] = js
            pair = min(pair, run_pair(opts.mcheck, base, model))
        seq = best["sequential"]["stats"]
        one = best["-j 1"]["stats"]["seconds"]
        for cname, _ in CONFIGS:
            s = best[cname]["stats"]
            if cname == "sequential":
                r = ""
            elif cname == "-j 1":
                r = f"{s['seconds'] / seq['seconds']:.2f}x the sequential time"
            else:
                r = f"{one / s['seconds']:.2f}x -j 1's speed"
            same = "" if s["states_stored"] == seq["states_stored"] else " (differs!)"
            print(f"| {name} | {cname} | {s['states_stored']:,}{same} | {s['seconds']:.2f} | "
                  f"{fmt(s['states_per_second'])} | {s['bytes_per_state']:.1f} | {r} |")
        print(f"| {name} | two sequential searches at once (the machine's ceiling) | "
              f"{seq['states_stored']:,} each | {pair:.2f} | | | "
              f"{2 * seq['seconds'] / pair:.2f}x one search's speed |")
        loads.append((name, best["-j 2"]["stats"].get("workers", [])))
    print("\nload balance, -j 2 (fastest run):\n")
    print("| model | worker | states | transitions | idle (s) | handed work |")
    print("|---|---|---|---|---|---|")
    for name, ws in loads:
        for i, w in enumerate(ws):
            print(f"| {name} | {i} | {w['states_stored']:,} | {w['transitions']:,} | "
                  f"{w['idle_seconds']:.3f} | {w['handed_work']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
