#!/usr/bin/env python3
"""test_hb_discharge.py: Goldilocks's happens-before discharge
(lockset/discharge_hb.c) on random models of tests/lib/gen_model.c, most of
them with --handoff (each proc gets its input by the spawn and returns its
result by the join, now and then racily: a write after the spawn, a read
before the join or after another child's join, two instances writing one
result), some also --spawns or --volatile, every fourth a plain --spawns
model.

With --race=goldilocks the default search (--por) drops the metadata of
the elements the static analysis proves ordered ("ordered by" in --dump);
--reduce=none never discharges anything. On each model where both complete:

  * the same error kinds (race, assertion, deadlock, runtime_error) when
    the full search finds no race; when it finds one, --por finds a race
    too and no kind the full search does not (on a racy model the
    reduction may miss another error: it did so before this analysis, on
    the same seeds, and --race=off's note says as much);
  * no element the full search reports a race on is one --dump says is
    ordered (the static claim itself, checked against every race found).

It counts the models on which the analysis discharged at least one element
and fails when fewer than a quarter of them did: a sample where the new
case never fires proves nothing.

usage: test_hb_discharge.py MCHECK GEN_MODEL [--count N] [--seed S] [--size small|medium]
CI runs --count 40 (seconds under ASan); offline, --count 600.
Ends with "N passed, N failed"; exit 1 on a failure.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import checks  # noqa: E402
from checks import check, write_model  # noqa: E402
from mcheck_test import SeedRun, error_counts, finish_random  # noqa: E402
from mcheck_test import search_json  # noqa: E402,F401

DUMP_LINE = re.compile(r"^  (\S+)\s+discharged: .*, ordered by ([a-z/]+): ")


def gen_args(seed, size):
    mix = (["--spawns", "--handoff"], ["--handoff"], ["--handoff", "--volatile"], ["--spawns"])
    return ["--size", size] + mix[seed % 4]


def ordered_elements(mcheck, model):
    """The elements --dump --race=goldilocks says are ordered by
    happens-before, by name (a run `a[0..2]` as a[0], a[1], a[2]), and the
    edges named."""
    p = subprocess.run([mcheck, "--dump", "--race=goldilocks", model], capture_output=True,
                       text=True, timeout=60)
    names, edges = set(), set()
    for line in p.stdout.splitlines():
        m = DUMP_LINE.match(line)
        if not m:
            continue
        edges.update(m.group(2).split("/"))
        r = re.match(r"^(\w+)\[(\d+)\.\.(\d+)\]$", m.group(1))
        if r:
            names.update(f"{r.group(1)}[{i}]" for i in range(int(r.group(2)), int(r.group(3)) + 1))
        else:
            names.add(m.group(1))
    return p.returncode, names, edges


def kinds(js):
    return sorted(error_counts(js))


def check_seed(opts, seed):
    S = SeedRun(opts, seed, gen_args(seed, opts.size))
    S.fired = False
    S.compared = S.skipped = False
    S.edges = set()
    text = S.generate()
    if text is None:
        return S
    failed0 = checks.failed
    with tempfile.TemporaryDirectory() as d:
        model = write_model(d, "m.bc", text)
        rc, ordered, S.edges = ordered_elements(opts.mcheck, model)
        S.ok(rc == 0, f"--dump exited {rc}")
        S.fired = bool(ordered)
        full = S.get(["--race=goldilocks", "--reduce=none", "--por=off", "--all-errors"], model,
                     "--reduce=none")
        por = S.get(["--race=goldilocks", "--por", "--all-errors"], model, "--por")
        if full is None or por is None:
            return S
        if full["stop"] != "complete" or por["stop"] != "complete":
            S.skipped = True
            print(f"skip {S.tag}: stopped ({full['stop']}, {por['stop']})")
            return S
        S.compared = True
        if "race" not in kinds(full):
            S.ok(kinds(por) == kinds(full),
                 f"--por error kinds {kinds(por)}, --reduce=none {kinds(full)}")
        else:
            S.ok("race" in kinds(por) and set(kinds(por)) <= set(kinds(full)),
                 f"--por error kinds {kinds(por)}, --reduce=none {kinds(full)} (a race)")
        raced = {e.get("element") for e in full["errors"] if e["kind"] == "race"}
        S.ok(not (raced & ordered), f"races on {sorted(raced & ordered)}, which --dump says are "
             "ordered by happens-before")
        if S.fired:
            S.ok(por["stats"]["discharged_elements"] >= len(ordered),
                 f"{por['stats']['discharged_elements']} elements discharged, fewer than the "
                 f"{len(ordered)} ordered")
    S.reproduce(failed0, text, "--race=goldilocks --all-errors")
    return S


def main():
    ap = checks.seed_parser(__doc__)
    opts = checks.parse_seed_args(ap)
    runs = compared = skipped = fired = 0
    edges = {}
    t0 = time.time()
    for seed in range(opts.seed, opts.seed + opts.count):
        S = check_seed(opts, seed)
        runs += 1
        compared += S.compared
        skipped += S.skipped
        fired += S.fired
        for e in S.edges:
            edges[e] = edges.get(e, 0) + 1
        if opts.verbose:
            print(f"{S.tag}: {'ordered' if S.fired else '-'}", flush=True)
    print(f"{runs} random models ({time.time() - t0:.0f} s): {compared} compared, {skipped} "
          f"skipped; {fired} with an element the happens-before analysis discharged (edges: "
          f"{', '.join(f'{k} {v}' for k, v in sorted(edges.items())) or 'none'})")
    check(fired >= runs // 4, f"only {fired} of {runs} models had an element ordered by "
          "happens-before: the sample does not exercise the analysis")
    return finish_random(compared, runs, "compared", skipped)


if __name__ == "__main__":
    sys.exit(main())
