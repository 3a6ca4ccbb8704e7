#!/usr/bin/env python3
"""Benchmark: race detection on compressed traces (issue 32, ZipTrack).

Records long random simulations of bundled models (`mcheck --simulate
--seed S --steps N --record FILE`: Sequitur online) and, on each recorded
trace, runs the happens-before analysis and the lockset analysis on the
grammar (`mcheck trace race|lockset FILE`) and on the expanded stream
(`--uncompressed`: Goldilocks, `--vc`: vector clocks, the Eraser
discipline). Prints a Markdown table: events, grammar size, compression
ratio, recording time, each analysis' time (from the command's own
`seconds`, so process start-up is left out; the uncompressed ones include
expanding the grammar), and the speed-up of the grammar over the stream.

Figures are from ONE run on a shared machine: compare ratios, not times.

usage: bench/ziptrack.py [--mcheck build/tools/mcheck] [--steps 10000,1000000,10000000]
                         [--models reqgrant_fair,livelock_ordered,...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the bundled models whose random runs go on (a loop without an end): the
# others end within a few hundred events whatever the step limit
MODELS = ["reqgrant_fair", "reqgrant_unfair", "livelock_ordered", "livelock_backoff",
          "philosophers_ordered", "rw_writer_starves", "rw_writer_preference"]


def trace_json(mcheck, args):
    p = subprocess.run([mcheck, "trace"] + args + ["--json"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"mcheck trace {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def analysis_seconds(js):
    s = js["seconds"]
    return s.get("expand", 0.0) + s["analysis"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--steps", default="10000,1000000,10000000")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--seed", type=int, default=7)
    opts = ap.parse_args()
    steps = [int(s) for s in opts.steps.split(",")]
    print("| model | steps | events | grammar size | ratio | record s | HB grammar s | "
          "Goldilocks s | VC s | VC / grammar | lockset grammar s | Eraser s | race |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="mcheck-zt-") as d:
        for name in opts.models.split(","):
            model = os.path.join(TOP, "models", name + ".bc")
            for n in steps:
                slp = os.path.join(d, f"{name}.{n}.slp")
                t0 = time.monotonic()
                p = subprocess.run([opts.mcheck, "--simulate", "--seed", str(opts.seed), "--steps",
                                    str(n), "--record", slp, model], capture_output=True, text=True)
                rec = time.monotonic() - t0
                if not os.path.exists(slp):
                    print(f"| {name} | {n} | not recorded: {p.stderr.strip()[:80]} |")
                    continue
                hb = trace_json(opts.mcheck, ["race", slp])
                gl = trace_json(opts.mcheck, ["race", "--uncompressed", slp])
                vc = trace_json(opts.mcheck, ["race", "--uncompressed", "--vc", slp])
                ls = trace_json(opts.mcheck, ["lockset", slp])
                er = trace_json(opts.mcheck, ["lockset", "--uncompressed", slp])
                g = hb["grammar"]
                a_hb, a_vc = analysis_seconds(hb), analysis_seconds(vc)
                speed = f"{a_vc / a_hb:.1f}x" if a_hb > 0 else "-"
                print(f"| {name} | {n:,} | {hb['events']:,} | {g['size']:,} | {g['ratio']:,.1f} | "
                      f"{rec:.2f} | {a_hb:.6f} | {analysis_seconds(gl):.6f} | {a_vc:.6f} | {speed} | "
                      f"{analysis_seconds(ls):.6f} | {analysis_seconds(er):.6f} | "
                      f"{hb['verdict']} |")
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
