#!/usr/bin/env python3
"""shorten.py: what shortening a depth-first counterexample costs (--shorten,
issue 18; docs/benchmarks.md, "Shortening depth-first traces"). For each
bundled model with an error (its header's options) and the dining
philosophers at N=5, 6, 7, 8: the depth-first search's time and states, the
breadth-first shortening's states and time (stats.shortening), the trace's
steps before and after, and for comparison a --search=bfs run (the shortest
trace to the nearest error, time and states). It runs mcheck and prints a
Markdown table; it decides nothing. Each search runs --repeat times, the
least time of each kept.

usage: bench/shorten.py [--mcheck build/tools/mcheck] [--repeat N]
"""
import argparse
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import TOP, header_options  # noqa: E402


def search(mcheck, args, repeat):
    """The report of the last of `repeat` runs, its "seconds" (the search's
    and the shortening's) each the least over the runs: the counts are the
    same on every run, the times vary with the machine's load."""
    best = None
    for _ in range(repeat):
        p = subprocess.run([mcheck, "--json", "--quiet"] + args, capture_output=True,
                           text=True, timeout=3600)
        if p.returncode not in (0, 1):
            sys.exit(f"shorten.py: mcheck {' '.join(args)}: exit {p.returncode}: "
                     f"{p.stderr.strip()[:200]}")
        js = json.loads(p.stdout)
        if best is not None:
            js["stats"]["seconds"] = min(js["stats"]["seconds"], best["stats"]["seconds"])
            if js["stats"]["shortening"]:
                js["stats"]["shortening"]["seconds"] = min(
                    js["stats"]["shortening"]["seconds"],
                    best["stats"]["shortening"]["seconds"])
        best = js
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    cases = []
    for path in sorted(glob.glob(os.path.join(TOP, "models", "*.bc"))):
        with open(path) as f:
            if "; expect: ok" in f.read():
                continue
        cases.append((os.path.basename(path), header_options(path) + [path]))
    phil = os.path.join(TOP, "models", "philosophers.bc")
    for n in (5, 6, 7, 8):
        cases.append((f"philosophers.bc -D N={n}", ["-D", f"N={n}", phil]))
    print("| model | error | DFS time (s) | DFS states | shortening states | shortening time (s) "
          "| steps before | steps after | BFS time (s) | BFS states | BFS steps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, args in cases:
        js = search(a.mcheck, args, a.repeat)
        bfs = search(a.mcheck, ["--search=bfs"] + args, a.repeat)
        e, st, sh = js["error"], js["stats"], js["stats"]["shortening"]
        before = e["shortened_from"] if e["shortened_from"] is not None else e["steps"]
        print(f"| {name} | {e['kind']} | {st['seconds']:.3f} | {st['states_stored']:,} "
              f"| {sh['states_stored'] if sh else 0:,} | {sh['seconds'] if sh else 0:.3f} "
              f"| {before} | {e['steps']} | {bfs['stats']['seconds']:.3f} "
              f"| {bfs['stats']['states_stored']:,} | {bfs['error']['steps']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
