#!/usr/bin/env python3
"""test_races.py: --scheduling=races (reduce/search/stateless_races.c, issue 19's
second part) against the stateful search with --race=goldilocks, on random
models of tests/lib/gen_model.c (every second one with --volatile: volatile-heavy
models, where transactions and races matter; every fourth one with --spawns:
several threads spawn procs of their own, so the spawn order decides the
children's ids and two spawns never commute), on the bundled models, and on
the small models of tests/differential/races/ (one per part of the reduction).

For each random model, the stateful search (--all-errors --store=exact
--race=goldilocks) is the reference. The race-driven search explores one
execution per class of equivalent ones, not every interleaving, so it need
not reach every error *state*; on a model where it completes it must find:

  * the same error kinds (assertion, race, runtime_error, deadlock);
  * the same number of deadlocked states (the stateless search counts each
    error state once, by its hash: the deadlocks are all reached);
  * the same number of distinct valid end states (stats.end_states: each
    maximal execution's class has a representative, which ends there);
  * the same unreached code ("control points");
  * and the same with --race=off against the stateful --race=off when the
    reference finds no race (the option is sound only for race-free
    models), and with --sleep-sets=off;
  * never more executions than --scheduling=all (the same search with every
    visible step a scheduling point).

The depth cap given is the stateful search's number of stored states
(pigeonhole, as in test_stateless.py): an acyclic model completes; a model
stopped at the cap is cyclic and only checked for a subset of the kinds.

usage: test_races.py MCHECK GEN_MODEL [--count N] [--seed S] [--models DIR] [--spawns-every K]
CI runs --count 30 (seconds under ASan); offline, --count 1000.
Ends with "N passed, N failed"; exit 1 on a failure.
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import checks  # noqa: E402
from checks import check, write_model  # noqa: E402
from mcheck_test import (SeedRun, check_usage, error_counts, finish_random, random_seed_args,  # noqa: E402
                         spawns_opt)
from mcheck_test import search_json as run  # noqa: E402

RACES_TIME = 6  # seconds per race-driven run; past it, the comparison is not made


def kinds(js):
    return sorted(error_counts(js))


def unreached(js):
    return sorted((u["body"], u["pc"]) if isinstance(u, dict) else tuple(u) for u in js["unreached"])


class Seed(SeedRun):
    def __init__(self, opts, seed, volatile, spawns=False):
        super().__init__(opts, seed, (["--volatile"] if volatile else []) + (["--spawns"] if spawns else []))
        self.vol = volatile
        self.skipped = self.cyclic = False
        self.compared = False
        self.gain = None  # (executions races, executions all)

    def races(self, args, model, label, ref, cap):
        js = self.get(["--scheduling=races", "--all-errors", "--max-depth", str(cap)] + args,
                      model, label, RACES_TIME)
        if js is None:
            return None
        if js["stop"] == "time_limit":
            self.timeouts += 1
            return js
        got, want = kinds(js), kinds(ref)
        if js["stop"] == "complete":
            self.compared = True
            self.ok(got == want, f"{label}: error kinds {got}, stateful {want}")
            dl, rdl = js["error_counts"]["deadlock"], ref["error_counts"]["deadlock"]
            self.ok(dl == rdl, f"{label}: {dl} deadlocked states, stateful {rdl}")
            # every maximal trace has a representative: its end state is reached
            e, re_ = js["stats"]["end_states"], ref["stats"]["end_states"]
            self.ok(e == re_, f"{label}: {e} valid end states, stateful {re_}")
            self.ok(unreached(js) == unreached(ref),
                    f"{label}: unreached {unreached(js)}, stateful {unreached(ref)}")
        else:
            self.ok(js["stop"] == "depth_limit", f"{label}: stopped '{js['stop']}'")
            self.cyclic = True
            self.ok(set(got) <= set(want), f"{label}: kinds {got} not within {want}")
        return js


def check_seed(opts, seed, volatile, spawns=False):
    S = Seed(opts, seed, volatile, spawns)
    text = S.generate()
    if text is None:
        return S
    failed0 = checks.failed
    with tempfile.TemporaryDirectory() as d:
        model = write_model(d, "m.bc", text)
        ref = {}
        for race in ("goldilocks", "off"):
            # (composition alone, --por=off: the race-driven search's steps)
            js = S.get(["--all-errors", "--store=exact", "--race=" + race, "--por=off"], model,
                       f"stateful race={race}")
            if js is None:
                return S
            if js["stop"] == "time_limit":
                S.skipped = True
                print(f"skip {S.tag}: stateful race={race} hit the time limit")
                return S
            ref[race] = js
        cap = max(ref["goldilocks"]["stats"]["states_stored"], 1)
        main = S.races([], model, "races", ref["goldilocks"], cap)
        if main is not None and main["stop"] == "complete":
            S.ok(main["options"]["race"] == "goldilocks" and main["options"]["scheduling"] == "races",
                 f"options {main['options']}")
            S.races(["--sleep-sets=off"], model, "races --sleep-sets=off", ref["goldilocks"], cap)
            if not ref["goldilocks"]["error_counts"]["race"]:
                S.races(["--race=off"], model, "races --race=off", ref["off"], cap)
            alljs = S.get(["--search=stateless", "--race=goldilocks", "--all-errors", "--max-depth",
                           str(cap)], model, "scheduling=all", RACES_TIME)
            if alljs is not None and alljs["stop"] == "complete":
                a, r = alljs["stats"]["executions"], main["stats"]["executions"]
                S.ok(r <= a, f"races explored {r} executions, scheduling=all {a}")
                S.gain = (r, a)
    S.reproduce(failed0, text, "--scheduling=races --all-errors")
    return S


def check_bundled(opts):
    """Every bundled model with volatile variables or none: the verdict of
    the stateful search with --race=goldilocks."""
    small = {"philosophers_ordered.bc": ["-D", "N=2"], "prodcons_monitor.bc": ["-D", "ITEMS=2", "-D", "CAP=1"],
             "server_endlabel.bc": ["-D", "C=2", "-D", "REQS=2"], "spawn_join.bc": ["-D", "K=3"],
             "philosophers.bc": ["-D", "N=3"], "channels_pingpong.bc": ["-D", "ROUNDS=3"]}
    caps = {"philosophers_ordered.bc": "24", "livelock_backoff.bc": "24", "livelock_ordered.bc": "24",
            "reqgrant_unfair.bc": "24", "reqgrant_fair.bc": "24",
            "rw_writer_starves.bc": "16", "rw_writer_preference.bc": "16"}  # cyclic: the execution tree grows fast with the cap
    for name in sorted(os.listdir(opts.models)):
        if not name.endswith(".bc"):
            continue
        path = os.path.join(opts.models, name)
        args = small.get(name, [])
        _, ref, _ = run(opts.mcheck, ["--race=goldilocks"] + args, path)
        rc, js, err = run(opts.mcheck, ["--scheduling=races", "--max-depth", caps.get(name, "64")] + args, path)
        if not check(ref is not None and js is not None, f"{name}: no JSON (exit {rc}): {err.strip()[:300]}"):
            continue
        if js["stop"] == "depth_limit":  # cyclic: an ok model is incomplete at the cap
            check(ref["verdict"] == "ok" and js["verdict"] == "incomplete" and rc == 3,
                  f"{name}: cyclic model gave {js['verdict']}, stateful {ref['verdict']}")
        else:
            check(js["verdict"] == ref["verdict"], f"{name}: verdict {js['verdict']}, stateful {ref['verdict']}")
            check(rc == (0 if ref["verdict"] == "ok" else 1), f"{name}: exit {rc}")


def check_targeted(opts):
    """tests/differential/races/*.bc: small models whose error needs one part of the
    reduction (a race's backtrack point, the fallback to a full node, the
    clock of the exact release, a node made full by an erring step; the
    races-* mutants of mutate.py): the stateful search's error kinds."""
    d = os.path.join(HERE, "races")
    for name in sorted(os.listdir(d)):
        if not name.endswith(".bc"):
            continue
        path = os.path.join(d, name)
        with open(path) as f:
            args = next((line.split(":", 1)[1].split() for line in f if line.startswith("; options:")), [])
        _, ref, _ = run(opts.mcheck, ["--all-errors", "--race=goldilocks"] + args, path)
        rc, js, err = run(opts.mcheck, ["--all-errors", "--scheduling=races"] + args, path)
        if not check(ref is not None and js is not None, f"{name}: no JSON (exit {rc}): {err.strip()[:300]}"):
            continue
        # (a cyclic model's search is bounded by its --max-depth)
        want_stop = "depth_limit" if "--max-depth" in args else "complete"
        check(js["stop"] == want_stop and kinds(js) == kinds(ref) and "assertion" in kinds(js),
              f"{name}: {js['stop']}, error kinds {kinds(js)}, stateful {kinds(ref)}")


def check_cli(opts):
    model = os.path.join(opts.models, "spawn_join.bc")
    for bad, why in ((["--search=dfs"], "cannot be used with --search=dfs"),
                     (["--search=bfs"], "cannot be used with --search=bfs"),
                     (["--race=ld"], "needs --race=goldilocks (or off), not --race=ld"),
                     (["--race=eraser"], "not --race=eraser"),
                     (["--preemption-bound", "2"], "--preemption-bound cannot be used"),
                     (["--adapt"], "--adapt needs the LD' detector")):
        check_usage(opts.mcheck, ["--scheduling=races"] + bad + [model], why,
                    f"--scheduling=races {' '.join(bad)}")
    p = subprocess.run([opts.mcheck, "--scheduling=all", model], capture_output=True, text=True)
    check(p.returncode == 2 and "--scheduling applies to --search=stateless" in p.stderr,
          f"--scheduling=all without stateless: exit {p.returncode}")
    p = subprocess.run([opts.mcheck, "--scheduling=some", model], capture_output=True, text=True)
    check(p.returncode == 2 and "expected races or all" in p.stderr, "--scheduling=some accepted")
    rc, js, _ = run(opts.mcheck, ["--scheduling=races", "--race=off", "-D", "K=3"], model)
    check(js is not None and rc == 0 and js["options"]["search"] == "stateless"
          and js["options"]["race"] == "off" and js["stats"]["light_nodes"] > 0,
          f"--scheduling=races --race=off: exit {rc}")
    p = subprocess.run([opts.mcheck, "--quiet", "--scheduling=races", "-D", "K=3", model],
                       capture_output=True, text=True)
    check(p.returncode == 0 and "  race-driven          " in p.stdout and "light nodes (no choice)" in p.stdout,
          f"text statistics: {p.stdout[-600:]}")


def main():
    opts = random_seed_args(__doc__)
    check_cli(opts)
    check_targeted(opts)
    check_bundled(opts)
    runs = compared = skipped = cyclic = timeouts = spawned = 0
    races_ex = all_ex = 0
    for seed in range(opts.seed, opts.seed + opts.count):
        vol = seed % 2 == 1
        sp = bool(spawns_opt(opts, seed))
        t0 = time.time()
        S = check_seed(opts, seed, vol, sp)
        spawned += sp
        if opts.verbose:
            print(f"{S.tag}: {time.time() - t0:.1f} s{' cyclic' if S.cyclic else ''}"
                  f"{' gain %d/%d' % S.gain if S.gain else ''}", flush=True)
        runs += 1
        compared += S.compared
        skipped += S.skipped
        cyclic += S.cyclic
        timeouts += S.timeouts
        if S.gain:
            races_ex += S.gain[0]
            all_ex += S.gain[1]
    print(f"{runs} random models: {compared} compared exactly, {cyclic} cyclic (checked to the cap), "
          f"{skipped} skipped (stateful too big), {timeouts} race-driven runs past {RACES_TIME} s; "
          f"executions {races_ex} with races, {all_ex} with scheduling=all; {spawned} spawn-heavy "
          f"(--spawns)")
    return finish_random(compared, runs, "compared exactly", skipped)


if __name__ == "__main__":
    sys.exit(main())
