#!/usr/bin/env python3
"""Benchmark: what the lock-discipline and race detectors cost.

For every bundled model (and larger instances of the philosophers and the
producer/consumer), runs mcheck with --race=off, ld, eraser and goldilocks
(default reduction, --all-errors so that models with errors are searched
whole) and prints a Markdown table: states, transitions, seconds, interned
locksets, and the ratios to --race=off. With --callgrind it also measures
the detector's share of the instructions executed (valgrind's callgrind,
repeatable): the inclusive cost of the detector's hooks and of the
canonicalization, over the whole run.

Figures are from ONE run on a shared machine: compare ratios, not times.

usage: bench/detectors.py [--mcheck build/tools/mcheck] [--callgrind] [--timelimit S]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DETECTORS = ["off", "ld", "eraser", "goldilocks"]
# the detector's entry points: every hook the interpreter calls, and the
# canonicalization the search calls on each new state
HOOKS = ["on_access", "on_acquire", "on_release", "on_spawn", "on_join", "on_send",
         "on_recv", "ls_canonicalize"]


def header_options(path):
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*;\s*options:\s*(.*?)\s*$", line)
            if m:
                return [o for o in m.group(1).split() if not o.startswith("--race=")
                        and o != "--adapt"]
    return []


def cases():
    out = []
    models = os.path.join(TOP, "models")
    for name in sorted(os.listdir(models)):
        if name.endswith(".bc"):
            path = os.path.join(models, name)
            out.append((name[:-3], path, header_options(path)))
    for n in (4, 5):
        out.append((f"philosophers_ordered N={n}", os.path.join(models, "philosophers_ordered.bc"),
                    ["-D", f"N={n}"]))
    out.append(("prodcons_monitor ITEMS=200", os.path.join(models, "prodcons_monitor.bc"),
                ["-D", "ITEMS=200"]))
    return out


def run(mcheck, path, opts, race, timelimit):
    p = subprocess.run([mcheck, "--json", "--quiet", "--all-errors", "--timelimit", str(timelimit),
                        f"--race={race}"] + opts + [path], capture_output=True, text=True)
    js = json.loads(p.stdout)
    st = js["stats"]
    return {"states": st["states_stored"], "transitions": st["transitions"],
            "seconds": st["seconds"], "locksets": st.get("locksets", 0),
            "verdict": js["verdict"], "complete": js["stop"] in ("complete",)}


def callgrind_share(mcheck, path, opts, race):
    """(total Ir, Ir inclusive in the detector's entry points)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        mcheck, "--quiet", "--all-errors", f"--race={race}"] + opts + [path],
                       capture_output=True, text=True)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                             capture_output=True, text=True).stdout
    total = 0
    m = re.search(r"^\s*([\d,]+).*PROGRAM TOTALS", ann, re.M)
    if m:
        total = int(m.group(1).replace(",", ""))
    det = 0
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*:(\w+)", line)
        if m and m.group(2) in HOOKS:
            det += int(m.group(1).replace(",", ""))
    return total, det


def fmt(n):
    return f"{n:,}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--timelimit", type=float, default=60)
    ap.add_argument("--callgrind", action="store_true",
                    help="also measure the detector's share of instructions (slow)")
    a = ap.parse_args()

    print("| model | detector | verdict | states | transitions | seconds | locksets "
          "| states vs off | time vs off |" + (" detector share of Ir |" if a.callgrind else ""))
    print("|---|---|---|---|---|---|---|---|---|" + ("---|" if a.callgrind else ""))
    for name, path, opts in cases():
        base = None
        for race in DETECTORS:
            r = run(a.mcheck, path, opts, race, a.timelimit)
            if race == "off":
                base = r
            sr = r["states"] / base["states"] if base["states"] else 0
            tr = r["seconds"] / base["seconds"] if base["seconds"] > 0.005 else None
            row = (f"| {name} | {race} | {r['verdict']}{'' if r['complete'] else ' (partial)'} "
                   f"| {fmt(r['states'])} | {fmt(r['transitions'])} | {r['seconds']:.3f} "
                   f"| {fmt(r['locksets'])} | {sr:.2f}x | {f'{tr:.2f}x' if tr else '-'} |")
            if a.callgrind:
                if race == "off":
                    row += " - |"
                else:
                    total, det = callgrind_share(a.mcheck, path, opts, race)
                    row += f" {100.0 * det / total:.1f}% |" if total else " ? |"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
