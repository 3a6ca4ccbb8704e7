#!/usr/bin/env python3
"""Benchmark: the depth-first search with --por, with sleep sets (the
default) and without (--sleep-sets=off: persistent sets and the cycle
proviso alone), on every bundled model and on larger instances of a few.

Sleep sets prune transitions, but with state caching a state reached again
with fewer threads asleep than it was first explored with is explored again
for those (dfs_por.c's header, Godefroid's H(s) rule), and the sets are kept
in a map from each state's hash: so they can cost more than they save. This
prints, per model, the states and transitions of both, the median search
time of --rounds runs taken in turn, and peak resident memory, with the
ratios; then the totals.

usage: python3 bench/sleep_sets.py [--mcheck rel/tools/mcheck] [--rounds 3] [--quick]
"""
import argparse
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import TOP, Rejected, fmt, header_options, run_mcheck  # noqa: E402

LARGER = [  # (label, model, options): instances of a million states or so
    ("philosophers N=8", "philosophers.bc", ["-D", "N=8"]),
    ("philosophers_ordered N=8", "philosophers_ordered.bc", ["-D", "N=8"]),
    ("prodcons_monitor ITEMS=2000 CAP=6", "prodcons_monitor.bc", ["-D", "ITEMS=2000", "-D", "CAP=6"]),
    ("ticket_lock N=6 M=6", "ticket_lock.bc", ["-D", "N=6", "-D", "M=6"]),
    ("guarded_semaphore N=5 ROUNDS=2", "guarded_semaphore.bc", ["-D", "N=5", "-D", "ROUNDS=2"]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcheck", default=os.path.join(TOP, "rel", "tools", "mcheck"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timelimit", type=int, default=120)
    ap.add_argument("--quick", action="store_true", help="the bundled models only")
    o = ap.parse_args()
    cases = [(os.path.basename(m)[:-3], os.path.basename(m), [])
             for m in sorted(glob.glob(os.path.join(TOP, "models", "*.bc")))]
    if not o.quick:
        cases += LARGER
    print("| model | states (sleep sets) | states (off) | transitions (sleep sets) | "
          "transitions (off) | search s (sleep sets) | search s (off) | time off / on | "
          "peak MB (on, off) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    tot = {"s_on": 0, "s_off": 0, "t_on": 0, "t_off": 0, "sec_on": 0.0, "sec_off": 0.0}
    fewer_states = fewer_trans = 0
    for label, model, opts in cases:
        path = os.path.join(TOP, "models", model)
        args = header_options(path) + opts + ["--all-errors", path]
        runs = {"on": [], "off": []}
        try:
            for _ in range(o.rounds):
                runs["on"].append(run_mcheck(o.mcheck, args, o.timelimit))
                runs["off"].append(run_mcheck(o.mcheck, ["--sleep-sets=off"] + args, o.timelimit))
        except Rejected as e:  # a model whose header options exclude --por's DFS
            print(f"| {label} | refused: {e} |||||||")
            continue
        on, off = runs["on"][0], runs["off"][0]
        if not (on["complete"] and off["complete"]):
            print(f"| {label} | incomplete ({on['stop']}, {off['stop']}) |||||||")
            continue
        sec_on = statistics.median(r["seconds"] for r in runs["on"])
        sec_off = statistics.median(r["seconds"] for r in runs["off"])
        rss_on = on["rss_bps"] * on["states"] / 1e6
        rss_off = off["rss_bps"] * off["states"] / 1e6
        print(f"| {label} | {fmt(on['states'])} | {fmt(off['states'])} | {fmt(on['transitions'])} "
              f"| {fmt(off['transitions'])} | {sec_on:.3f} | {sec_off:.3f} | "
              f"{sec_off / sec_on if sec_on > 0.05 else float('nan'):.2f} | "
              f"{rss_on:.0f}, {rss_off:.0f} |")
        tot["s_on"] += on["states"]
        tot["s_off"] += off["states"]
        tot["t_on"] += on["transitions"]
        tot["t_off"] += off["transitions"]
        tot["sec_on"] += sec_on
        tot["sec_off"] += sec_off
        fewer_states += on["states"] < off["states"]
        fewer_trans += on["transitions"] < off["transitions"]
    print(f"| **total** | {fmt(tot['s_on'])} | {fmt(tot['s_off'])} | {fmt(tot['t_on'])} | "
          f"{fmt(tot['t_off'])} | {tot['sec_on']:.2f} | {tot['sec_off']:.2f} | "
          f"{tot['sec_off'] / max(tot['sec_on'], 1e-9):.2f} | |")
    print(f"\nsleep sets store fewer states on {fewer_states} models and run fewer transitions "
          f"on {fewer_trans} (time ratios below 0.05 s of search are not given)")


if __name__ == "__main__":
    main()
