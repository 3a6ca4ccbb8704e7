#!/usr/bin/env python3
"""Allocation failure injection: every allocation failure ends in a clean stop.

Runs mcheck_failalloc (mcheck linked with tests/e2e/failalloc.c) on bundled models
under several option sets. A first run counts the allocations A the run makes;
then, for N = 0, 1, ..., A (all of the first 28, then about 10 more evenly
spaced: --first-all N and --sample N set them; offline, --first-all 200
--sample 60), allocation
N+1 and every later one fail (and, on a smaller set, only allocation N+1
fails). Each run must:
  - print no sanitizer report (ASan, LeakSanitizer, UBSan): no crash, no leak;
  - either end as the run without failures did (same exit status and verdict,
    and for a complete search the same number of states: a failure that was
    recovered from must not change the answer; only a trace may be missing,
    said so), or
  - exit 3 saying "out of memory": before the search ("mcheck: error: out of
    memory", or "MODEL: error: out of memory" from the assembler), or during
    it with the verdict "incomplete", the stop reason and the statistics.
Never a crash, never exit 2 (the input is fine), never a wrong verdict.

usage: failalloc.py [--first-all N] [--sample N] MCHECK_FAILALLOC MODELS_DIR
The last line is "N passed, N failed".
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import SANITIZER, check, finish  # noqa: E402

MODELS = [  # model, its options (from its header), the option sets to try
    ("philosophers.bc", ["-D", "N=3"]),
    ("prodcons_monitor.bc", ["-D", "ITEMS=10", "-D", "CAP=6"]),
    ("spawn_join.bc", ["-D", "K=3"]),
    ("assert_fail.bc", []),
]
VARIANTS = [
    [],
    ["--store=exact"],
    ["--search=bfs"],
    ["--store=bitstate", "--bitstate-mb", "1"],
    ["--reduce=none", "--store=exact"],
    ["--all-errors", "--json"],
    ["--fingerprint=128", "--trace-json", os.devnull],
    ["--reduce=none", "--all-errors"],  # thousands of allocations: sampled
    ["--por", "--all-errors"],  # the static discharge's allocations too
    ["-j", "2", "--all-errors", "--store=exact"],  # the parallel search's (workers,
    ["-j", "3", "--search=bfs"],                   # clones, nodes, stacks, levels)
]
FIRST_ALL = 18    # every failure point up to here (CI; offline: --first-all 200)
SAMPLE = 6        # then about this many more, evenly spaced (offline: --sample 60)
# Judy 1.0.5 leaks the nodes of an insert that runs out of memory (its own
# error path: a program that only calls JudyLIns until it fails and then
# JudyLFreeArray leaks too). The exact store meets that once, as the search
# stops; runs where allocations fail therefore ignore leaks from inside Judy's
# allocator. Runs without failures (the baselines here, every other test) do not.
JUDY_LEAKS = "leak:j__udyLAlloc\nleak:j__udy1Alloc\n"

SUPPRESSIONS = None




def run(exe, args, after=None, once=False, report=False):
    env = dict(os.environ)
    for k in ("MCHECK_FAIL_ALLOC_AFTER", "MCHECK_FAIL_ALLOC_ONCE", "MCHECK_FAIL_ALLOC_REPORT"):
        env.pop(k, None)
    if after is not None:
        env["MCHECK_FAIL_ALLOC_AFTER"] = str(after)
        env["LSAN_OPTIONS"] = f"suppressions={SUPPRESSIONS}:print_suppressions=0"
    if once:
        env["MCHECK_FAIL_ALLOC_ONCE"] = "1"
    if report:
        env["MCHECK_FAIL_ALLOC_REPORT"] = "1"
    p = subprocess.run([exe, "--quiet"] + args, capture_output=True, text=True,
                       errors="replace", env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def summary(out):
    """(verdict, stop, states stored) from a text or JSON report."""
    if out.startswith("{"):
        try:
            d = json.loads(out)
        except json.JSONDecodeError:
            return None, None, None
        return d["verdict"], d["stop"], d["stats"]["states_stored"]
    v = re.search(r"^verdict: (\w+)", out, re.M)
    st = re.search(r"^  states stored +(\d+)", out, re.M)
    stop = re.search(r"^(search [^\n]*)", out, re.M)
    return (v.group(1) if v else None, stop.group(1) if stop else None,
            int(st.group(1)) if st else None)


def judge(what, base, res):
    """Problems with result `res` of a run where allocations failed, or []."""
    rc0, out0, _ = base
    rc, out, err = res
    problems = []
    if SANITIZER.search(err):
        problems.append("sanitizer report:\n" + err[-3000:])
        return problems
    v0, stop0, n0 = summary(out0)
    v, stop, n = summary(out)
    if rc == rc0 and v == v0:
        if rc0 == 0 and n != n0:
            problems.append(f"complete search with {n} states instead of {n0}")
        oom_said = "out of memory" in out + err or "out_of_memory" in out
        if not oom_said and stop != stop0:
            problems.append(f"stop '{stop}' instead of '{stop0}'")
        return problems
    if rc != 3:
        problems.append(f"exit {rc} (verdict {v}) instead of {rc0} (verdict {v0}) or 3")
        return problems
    if "out of memory" not in out + err and "out_of_memory" not in out:
        problems.append("exit 3 without saying 'out of memory'")
    if out:  # the search ran: verdict, stop reason and statistics
        if v != "incomplete":
            problems.append(f"exit 3 with verdict {v}")
        if not ("search incomplete: out of memory" in out or '"stop":"out_of_memory"' in out):
            problems.append("no out-of-memory stop reason")
        if not ("statistics:" in out or '"stats":' in out):
            problems.append("no statistics")
    elif not re.search(r"error: out of memory", err):
        problems.append("nothing on stdout and no 'error: out of memory' on stderr")
    return problems


def failure_points(total):
    pts = list(range(0, min(total, FIRST_ALL) + 1))
    if total > FIRST_ALL:
        step = max(1, (total - FIRST_ALL) // SAMPLE)
        pts += list(range(FIRST_ALL + step, total + 1, step))
    return pts


def main():
    global FIRST_ALL, SAMPLE
    args = sys.argv[1:]
    for flag in ("--first-all", "--sample"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args) or not args[i + 1].isdigit():
                print(__doc__)
                return 2
            if flag == "--first-all":
                FIRST_ALL = int(args[i + 1])
            else:
                SAMPLE = max(1, int(args[i + 1]))
            del args[i:i + 2]
    if len(args) != 2:
        print(__doc__)
        return 2
    exe, models = args
    global SUPPRESSIONS
    fd, SUPPRESSIONS = tempfile.mkstemp(prefix="mcheck-lsan-", suffix=".supp")
    with os.fdopen(fd, "w") as f:
        f.write(JUDY_LEAKS)
    try:
        return run_all(exe, models)
    finally:
        os.unlink(SUPPRESSIONS)


def run_all(exe, models):
    jobs = []  # (what, base, args, after, once)
    for name, opts in MODELS:
        path = os.path.join(models, name)
        for vi, variant in enumerate(VARIANTS):
            # composition (--por=off) but where the variant names --por: the
            # default search is --por, whose allocations the --por variant
            # covers; the others keep the runs (and the time) they had
            por = [] if any(a.startswith("--por") for a in variant) else ["--por=off"]
            args = por + opts + variant + [path]
            base = run(exe, args, report=True)
            m = re.search(r"failalloc: (\d+) allocations", base[2])
            check(m is not None and not SANITIZER.search(base[2]),
                  f"{name} {variant}: baseline run counts its allocations:\n{base[2][-2000:]}")
            if not m:
                continue
            total = int(m.group(1))
            pts = failure_points(total)
            for n in pts:
                jobs.append((f"{name} {' '.join(variant)} fail after {n}", base, args, n, False))
            if vi in (0, 2, len(VARIANTS) - 1):  # transient failures: recovery must not change the answer
                for n in pts:
                    jobs.append((f"{name} {' '.join(variant)} fail once at {n + 1}", base, args,
                                 n, True))
    workers = max(2, os.cpu_count() or 2)
    print(f"{len(jobs)} runs with failing allocations", flush=True)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = pool.map(lambda j: (j, run(exe, j[2], after=j[3], once=j[4])), jobs)
        for (what, base, args, n, once), res in results:
            problems = judge(what, base, res)
            check(not problems, f"{what}: " + "; ".join(problems) +
                  f"\n  rerun: MCHECK_FAIL_ALLOC_AFTER={n}{' MCHECK_FAIL_ALLOC_ONCE=1' if once else ''}"
                  f" {exe} {' '.join(args)}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
