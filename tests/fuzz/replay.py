#!/usr/bin/env python3
"""Replays the inputs that once crashed a fuzz target (tests/fuzz/regressions/)
through the ordinary mcheck, under each search option set the fuzz targets
pick from, bounded as they bound it. Every run must exit 0, 1, 2 or 3 with no
sanitizer report; a run that gets past the assembler must print a JSON report
whose memory stays within --memlimit (a few vectors of slack: the initial
state and the last transition's growth are not refused).

usage: replay.py MCHECK REGRESSIONS_DIR
The last line is "N passed, N failed".
"""
import json
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import SANITIZER, check, finish  # noqa: E402

BOUNDS = ["--json", "--quiet", "--max-depth", "50", "--max-invisible", "1000",
          "--memlimit", "2", "--timelimit", "10"]
MEMLIMIT = 2 << 20
VARIANTS = [
    [],
    ["--search=bfs"],
    ["--reduce=none"],
    ["--store=exact"],
    ["--store=bitstate", "--bitstate-mb", "1"],
    ["--fingerprint=128", "--all-errors"],
    ["--search=bfs", "--store=exact", "--all-errors"],
]





def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    mcheck, regdir = sys.argv[1], sys.argv[2]
    files = sorted(f for f in os.listdir(regdir) if f.endswith(".bc"))
    check(len(files) > 0, f"regression inputs in {regdir}")
    for name in files:
        path = os.path.join(regdir, name)
        for variant in VARIANTS:
            what = f"{name} {' '.join(variant)}"
            try:
                p = subprocess.run([mcheck] + BOUNDS + variant + [path], capture_output=True,
                                   text=True, errors="replace", timeout=120)
            except subprocess.TimeoutExpired:
                check(False, f"{what}: no answer within 120 s (--timelimit 10)")
                continue
            if SANITIZER.search(p.stderr) or p.returncode not in (0, 1, 2, 3):
                check(False, f"{what}: exit {p.returncode}\n{p.stderr[-3000:]}")
                continue
            if p.returncode == 2:
                check(p.stdout == "" and "error:" in p.stderr, f"{what}: exit 2 with a message")
                continue
            try:
                js = json.loads(p.stdout)
            except json.JSONDecodeError:
                check(False, f"{what}: exit {p.returncode} without a JSON report")
                continue
            st = js["stats"]
            used = st["store_bytes"] + st["search_bytes"]
            slack = 4 * st["state_vector_bytes"] + (1 << 20)
            check(used <= MEMLIMIT + slack,
                  f"{what}: store + stack/queue {used} bytes, above --memlimit 2 MB")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
