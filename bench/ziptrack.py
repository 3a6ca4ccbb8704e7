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
The commands' own seconds are CPU seconds (one thread), which a busy
machine inflates far less than wall time.

With --generated N,N,...: program-like traces instead (tests/lib/gen_trace.c:
workers looping over calls with critical sections, scheduled at random or
round robin), each written as a RAPID text file, compressed as it is read
(`mcheck trace compress`), then analysed on the grammar and on the stream
walked from the grammar; beside them, the RAPID file read whole into memory
and analysed with vector clocks (what a stream tool does). Each command's
peak memory (its maximum resident set) is printed with its time.

usage: bench/ziptrack.py [--mcheck build/tools/mcheck] [--steps 10000,1000000,10000000]
                         [--models reqgrant_fair,livelock_ordered,...]
       bench/ziptrack.py --generated 10000,100000,1000000,10000000,100000000
                         [--gen-trace build/tests/gen_trace] [--schedules rr,random]
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


def run_rusage(argv, stdout=None):
    """Like timed(), with the rusage of this child alone (os.wait4)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=stdout if stdout is not None else subprocess.PIPE,
                         stderr=subprocess.PIPE)
    out = p.stdout.read() if stdout is None else b""
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, out.decode(), err.decode(), time.monotonic() - t0, ru.ru_maxrss / 1024


def generated(opts):
    sizes = [int(s) for s in opts.generated.split(",")]
    print("| schedule | events | text MB | grammar size | ratio | compress s | compress MB | "
          "HB grammar s | MB | Goldilocks walk s | VC walk s | MB | VC / grammar | "
          "lockset grammar s | MB | Eraser walk s | VC on the text file s | MB | race |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="mcheck-ztg-") as d:
        for sched in opts.schedules.split(","):
            for n in sizes:
                txt, slp = os.path.join(d, "t.txt"), os.path.join(d, "t.slp")
                with open(txt, "w") as f:
                    subprocess.run([opts.gen_trace, "--events", str(n), "--schedule", sched,
                                    "--seed", str(opts.seed)], stdout=f, check=True)
                mb = os.path.getsize(txt) / 1e6

                def js(args):
                    code, out, err, dt, rss = run_rusage([opts.mcheck, "trace"] + args + ["--json"])
                    if code not in (0, 1):
                        raise SystemExit(f"mcheck trace {' '.join(args)}: exit {code}: {err.strip()}")
                    return json.loads(out), rss

                cz, cz_mb = js(["compress", txt, slp])
                hb, hb_mb = js(["race", slp])
                gl, _ = js(["race", "--uncompressed", slp])
                vc, vc_mb = js(["race", "--uncompressed", "--vc", slp])
                ls, ls_mb = js(["lockset", slp])
                er, _ = js(["lockset", "--uncompressed", slp])
                text = ("-", "-")
                if n <= opts.text_max:
                    tv, tv_mb = js(["race", "--uncompressed", "--vc", txt])
                    text = (f"{tv['seconds']['read'] + tv['seconds']['analysis']:.3f}", f"{tv_mb:.0f}")
                g = cz["grammar"]
                a_hb, a_vc = hb["seconds"]["analysis"], vc["seconds"]["analysis"]
                speed = f"{a_vc / a_hb:.2f}x" if a_hb > 0 else "-"
                print(f"| {sched} | {cz['events']:,} | {mb:,.1f} | {g['size']:,} | {g['ratio']:,.1f} | "
                      f"{cz['seconds']['compress']:.3f} | {cz_mb:.0f} | {a_hb:.4f} | {hb_mb:.0f} | "
                      f"{gl['seconds']['analysis']:.4f} | {a_vc:.4f} | {vc_mb:.0f} | {speed} | "
                      f"{ls['seconds']['analysis']:.4f} | {ls_mb:.0f} | {er['seconds']['analysis']:.4f} | "
                      f"{text[0]} | {text[1]} | {hb['verdict']} |")
                sys.stdout.flush()
                os.unlink(txt)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcheck", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--steps", default="10000,1000000,10000000")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--generated", help="sizes of generated program-like traces")
    ap.add_argument("--gen-trace", default=os.path.join(TOP, "build", "tests", "gen_trace"))
    ap.add_argument("--schedules", default="rr,random")
    ap.add_argument("--text-max", type=int, default=10**8,
                    help="largest trace read whole from its text file")
    opts = ap.parse_args()
    if opts.generated:
        return generated(opts)
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
