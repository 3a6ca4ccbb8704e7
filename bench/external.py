#!/usr/bin/env python3
"""External programs: published concurrent programs (SV-COMP, SCTBench, Java
PathFinder, BEEM, SPIN's examples) translated into mcheck's language, in bench/external/.

usage: bench/external.py [MCHECK] [--timelimit S] [--only NAME ...]

MCHECK defaults to build/tools/mcheck. For every bench/external/*.bc it runs
mcheck --json in four modes, each after the model's `; options:` line:

    default        (composition + --por, LD' checked)
    --por=off      composition alone
    --reduce=none  every instruction a scheduling point
    --race=goldilocks

and compares each verdict with the model's header: `; expect: V` for every
mode, overridden per mode by `; expect-por-off:`, `; expect-reduce-none:` and
`; expect-race-goldilocks:`. Where bench/external/NAME.pml exists and `spin`
is installed, it also builds pan (spin -a; gcc -O2 -DSAFETY) in a temporary
directory and runs `./pan -m1000000`; its verdict (ok, or the error SPIN
reports) is compared with `; expect-spin:` when the header has one.

Prints a Markdown table (program, source, the source's verdict, mcheck's
expected verdict, each mode's verdict / states / seconds with a check mark or
FAIL), then the counts and the programs that cannot be expressed yet. Exits 1
if any verdict differs from its header.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from benchlib import TOP, Rejected, build_pan, header_options, run_mcheck

MODES = [("default", [], "expect"),
         ("por=off", ["--por=off"], "expect-por-off"),
         ("reduce=none", ["--reduce=none"], "expect-reduce-none"),
         ("goldilocks", ["--race=goldilocks"], "expect-race-goldilocks")]

# Published programs looked at and not translated, with the reason.
CANNOT = [
    ("SPIN Examples/eratosthenes.pml (the sieve as a growing chain of processes)",
     "channels as values: each process creates a rendezvous channel "
     "(`chan child = [0]`) and passes it to the process it starts; mcheck's "
     "channels are declared at top level and are not values"),
    ("SPIN Examples/LTL/mobile1.pml, mobile2.pml (mobile handover)",
     "channels as values: rendezvous channels that carry channels "
     "(`chan l = [0] of { chan }`), received and then used"),
    ("SPIN Examples/calculator.pml",
     "channels as values: each client sends its own rendezvous reply channel "
     "(`chan me = [0]`) in its request"),
]

# Programs that need constructs not yet in this build (none since the
# condition variables landed).
PENDING = []


def header(path):
    """The model's header fields: expect lines, source, source verdict."""
    h = {"expect": {}, "source": "", "source_verdict": ""}
    with open(path) as fh:
        lines = fh.read().splitlines()
    for i, line in enumerate(lines):
        mo = re.match(r"\s*;\s*(expect(?:-[a-z0-9-]+)?):\s*(\S+)\s*$", line)
        if mo:
            h["expect"][mo.group(1)] = mo.group(2)
        mo = re.match(r"\s*;\s*source:\s*(.*)$", line)
        if mo and not h["source"]:
            text = mo.group(1)
            h["source"] = text.split("(")[0].strip() or text.strip()
            # the file path follows the project, possibly on the next line
            rest = " ".join([text] + [l.lstrip("; ").strip() for l in lines[i + 1:i + 2]])
            m2 = re.search(r"(?:^|\s)((?:c|src|benchmarks|Examples)/[\w./-]+)", rest)
            if m2:
                h["source"] += " " + m2.group(1).rstrip(";.,")
        mo = re.match(r"\s*;\s*source verdict:\s*(.*)$", line)
        if mo and not h["source_verdict"]:
            v = re.split(r"\s\(|:", mo.group(1))[0].strip()
            h["source_verdict"] = v
    return h


def spin_verdict(pml, workdir, timelimit):
    """SPIN's verdict on pml: ("ok" | "error: ...", states) or None."""
    d = build_pan(pml, {}, workdir, cflags=["-DSAFETY"])
    p = subprocess.run(["./pan", "-m1000000"], cwd=d, capture_output=True, text=True,
                       timeout=timelimit)
    out = p.stdout
    m = re.search(r"(\d+) states, stored", out)
    states = int(m.group(1)) if m else 0
    m = re.search(r"errors: (\d+)", out)
    errors = int(m.group(1)) if m else -1
    if errors == 0:
        return "ok", states
    m = re.search(r"pan:\d+: (.*?) \(at depth", out) or re.search(r"pan: (.*?) \(at depth", out)
    return ("error" + (": " + m.group(1) if m else "")), states


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mcheck", nargs="?", default=os.path.join(TOP, "build", "tools", "mcheck"))
    ap.add_argument("--timelimit", type=int, default=60)
    ap.add_argument("--only", nargs="*", default=None, help="program names (file stems)")
    args = ap.parse_args()
    if not os.path.exists(args.mcheck):
        sys.exit(f"external.py: no mcheck at {args.mcheck} (build it, or pass its path)")

    models = sorted(glob.glob(os.path.join(TOP, "bench", "external", "*.bc")))
    if args.only:
        models = [m for m in models if os.path.basename(m)[:-3] in args.only]
    have_spin = shutil.which("spin") is not None and shutil.which("gcc") is not None
    workdir = tempfile.mkdtemp(prefix="external-")

    cols = ["program", "source", "source verdict", "expected"]
    cols += [f"{name}: verdict / states / s" for name, _, _ in MODES]
    cols += ["SPIN"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    nverdicts = nagree = 0
    failed = []
    for path in models:
        name = os.path.basename(path)[:-3]
        h = header(path)
        opts = header_options(path)
        base = h["expect"].get("expect", "?")
        row = [name, h["source"], h["source_verdict"], base]
        for mode, flags, key in MODES:
            want = h["expect"].get(key, base)
            try:
                r = run_mcheck(args.mcheck, opts + flags + [path], args.timelimit)
                got = r["verdict"] if r["complete"] or r["verdict"] != "ok" else "incomplete"
                cell = f"{got} / {r['states']:,} / {r['seconds']:.2f}"
            except Rejected as e:
                got, cell = "rejected", f"rejected: {e}"
            except Exception as e:  # a crash or unparsable report
                got, cell = "error", f"error: {e}"
            nverdicts += 1
            if got == want:
                nagree += 1
                cell += " ✓"
            else:
                cell += f" FAIL (expected {want})"
                failed.append(f"{name} {mode}: expected {want}, got {got}")
            row.append(cell)
        pml = path[:-3] + ".pml"
        if os.path.exists(pml) and have_spin:
            try:
                v, states = spin_verdict(pml, workdir, args.timelimit)
                cell = f"{v} / {states:,}"
                want = h["expect"].get("expect-spin")
                if want is not None:
                    nverdicts += 1
                    if v.split(":")[0] == want:
                        nagree += 1
                        cell += " ✓"
                    else:
                        cell += f" FAIL (expected {want})"
                        failed.append(f"{name} spin: expected {want}, got {v}")
            except Exception as e:
                cell = f"spin failed: {e}"
        elif os.path.exists(pml):
            cell = "(spin not installed)"
        else:
            cell = "-"
        row.append(cell)
        print("| " + " | ".join(row) + " |", flush=True)
    shutil.rmtree(workdir, ignore_errors=True)

    print()
    print(f"programs: {len(models)}; verdicts that agree with their headers: "
          f"{nagree} of {nverdicts}")
    if failed:
        print("verdicts that differ:")
        for f in failed:
            print(f"  {f}")
    print()
    print("cannot be expressed yet:")
    for prog, why in CANNOT:
        print(f"  {prog}: {why}")
    if PENDING:
        print("pending (need constructs not yet in this build):")
        for prog, why in PENDING:
            print(f"  {prog}: {why}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
