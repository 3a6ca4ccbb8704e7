#!/usr/bin/env python3
"""preemption.py: a model too large for the stateful search, on which the
stateless search with a preemption bound finds a seeded bug (issue 19;
docs/benchmarks.md, "The stateless search"). On models/bank_audit.bc with
-D T=3 -D OPS=40 (3 tellers, 40 transfers each; -D options replace these) it runs, in
one run: the stateful depth-first search, --search=bfs and --por under
--memlimit (states stored, time, exit status, verdict), and the stateless
search with --preemption-bound 1, 2 and 0..2 (executions, transitions,
iterations, time, verdict, the first error's trace length and the
preemptions in it), and prints a Markdown table with each run's time and
peak memory as a ratio of the `--preemption-bound 2` run's. It runs mcheck
and prints; it decides nothing. Use a Release build: the stateful runs take
minutes each.

The preemptions of a trace are counted for this model: a switch away from a
thread that has not ended (a teller ends after 2 * OPS + 1 steps; no teller
ever blocks, since m is never held across a step) is a preemption.

usage: bench/preemption.py [--mcheck rel/tools/mcheck] [--memlimit 500]
                           [--timelimit 1800] [-D NAME=VALUE ...]
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import TOP  # noqa: E402

MODEL = os.path.join(TOP, "models", "bank_audit.bc")


def run(mcheck, args, timelimit):
    """One search without --all-errors (the report stays small): its exit
    status and JSON report."""
    # through /usr/bin/time, which forks it from a small process: a process
    # inherits its parent's peak RSS across fork and exec (Linux), and this
    # script's would hide the stateless search's 2 MB
    p = subprocess.run(["/usr/bin/time", "-f", ""]
                       + [mcheck, "--json", "--quiet", "--timelimit", str(timelimit)] + args + [MODEL],
                       capture_output=True, text=True, timeout=timelimit * 2 + 60)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"preemption.py: mcheck {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    return p.returncode, json.loads(p.stdout)


def constant(name, defines):
    """A constant's value: from -D, else from the model's declaration."""
    for d in defines:
        k, _, v = d.partition("=")
        if k == name:
            return int(v, 0)
    with open(MODEL) as f:
        mo = re.search(rf"^const {name} = (\d+)", f.read(), re.M)
    return int(mo.group(1))


def preemptions(path, steps_to_end):
    """Switches away from a thread that has not ended, along the path."""
    done, n = {}, 0
    for i, (t, _) in enumerate(path):
        done[t] = done.get(t, 0) + 1
        if i + 1 < len(path) and path[i + 1][0] != t and done[t] < steps_to_end:
            n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "rel", "tools", "mcheck"))
    ap.add_argument("--memlimit", type=int, default=500, help="MB, for the stateful searches")
    ap.add_argument("--timelimit", type=int, default=1800, help="seconds, for every search")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE")
    a = ap.parse_args()
    defines = a.defines or ["T=3", "OPS=40"]
    dopts = [x for d in defines for x in ("-D", d)]
    steps_to_end = 2 * constant("OPS", defines) + 1
    runs = [
        ("stateful DFS", ["--memlimit", str(a.memlimit)]),
        ("stateful --search=bfs", ["--search=bfs", "--memlimit", str(a.memlimit)]),
        ("stateful --por", ["--por", "--memlimit", str(a.memlimit)]),
        ("stateless --preemption-bound 1", ["--search=stateless", "--preemption-bound", "1"]),
        ("stateless --preemption-bound 2", ["--search=stateless", "--preemption-bound", "2"]),
        ("stateless --preemption-bound 0..2", ["--search=stateless", "--preemption-bound", "0..2"]),
    ]
    rows = []
    for name, args in runs:
        code, js = run(a.mcheck, dopts + args, a.timelimit)
        rows.append((name, code, js))
        print(f"{name}: exit {code}, {js['verdict']}/{js['stop']}, {js['stats']['seconds']:.2f} s",
              file=sys.stderr, flush=True)
    ref = next(js for name, _, js in rows if name.endswith("bound 2"))["stats"]
    model = "models/bank_audit.bc" + (" " + " ".join(dopts) if dopts else "")
    print(f"{model}, `--memlimit {a.memlimit}` for the stateful searches:\n")
    print("| search | exit | verdict/stop | states stored | executions | transitions | iterations "
          "| trace steps | preemptions in trace | time (s) | peak RSS (MB) | time / bound 2's "
          "| RSS / bound 2's |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, code, js in rows:
        st, e = js["stats"], js["error"]
        stateless = "stateless" in name
        print(f"| {name} | {code} | {js['verdict']}/{js['stop']} "
              f"| {st['states_stored']:,} | {format(st['executions'], ',') if stateless else '-'} | {st['transitions']:,} "
              f"| {st['iterations'] if stateless else '-'} "
              f"| {e['steps'] if e else '-'} | {preemptions(e['path'], steps_to_end) if e else '-'} "
              f"| {st['seconds']:.2f} | {st['peak_rss_bytes'] / 1e6:.1f} "
              f"| {st['seconds'] / max(ref['seconds'], 1e-6):.1f} "
              f"| {st['peak_rss_bytes'] / max(ref['peak_rss_bytes'], 1):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
