#!/usr/bin/env python3
"""test_stateless.py: --search=stateless (reduce/search/stateless.c, issue 19)
against the stateful search, on random models of tests/lib/gen_model.c
(disciplined ones, and every second seed also an undisciplined one; every
fourth seed's models spawn-heavy, gen_model --spawns: several threads spawn
procs of their own, so the spawn order decides the children's ids, and the
sleep sets must not take two spawns for independent) and on the bundled
models.

For each random model, the stateful search (--all-errors --store=exact) in
both modes gives the reference: its error counts are the distinct error
states (and deadlocked states) it stored. The stateless search counts each
error state once too (by its hash), so on a model where it completes:

  * stateless --all-errors (composed steps) has exactly the stateful
    search's error counts (deadlocks included: the same number of distinct
    deadlocked states), with the default detector (LD') and with --race=off;
  * with --reduce=none, exactly the stateful --reduce=none's, when that
    finishes within the time limit (it has no sleep sets to thank for
    being small: it may not);
  * on a disciplined model (LD' holds: Stoller's Theorems 4 and 5) with
    --race=off, the error kinds and the deadlock count of the full stateful
    search (--reduce=none);
  * --sleep-sets=off gives the same counts (sleep sets only prune), and
    avoids no revisit; a preemption bound as large as the depth leaves
    nothing out for the bound and gives the same counts;
  * with sleep sets (bounded_sleep.c), --preemption-bound 0, 1, 2 and 3
    find exactly the error states (counts per kind) and end states of
    --sleep-sets=off at the same bound, which explores every execution
    within it (the soundness of sleep sets with a bound);
  * --preemption-bound 0 to 3 and 0..1 find error kinds that are a subset, say
    "within N preemptions: incomplete" and exit 3 when they find none and
    left something out;
  * the first error (no --all-errors) is one of the reachable kinds;
  * --delay-bound 0 to 3 (delay_bound.c, no sleep sets) find error states
    that are real (kinds a subset of the stateful search's) and grow with
    the bound (the error counts per kind at K within those at K + 1); a
    delay-bounded search that says complete has exactly the stateful
    search's error counts and end states.

The depth cap given is the stateful search's number of stored states: an
execution longer than that repeats a state (pigeonhole), so an acyclic
model always completes, and a stop at the cap proves a cycle. On a cyclic
model the stateless search can only stop there (depth_limit, exit 3 when no
error); its error kinds are then a subset of the stateful ones.

Preemptions (check_preemptions): models/bank_audit.bc's overdraft needs
exactly 2 preemptions, and 0..2 explores exactly what the bounds 0, 1 and 2
alone explore. Leaves cut at the depth bound count their sleep-set skips
(check_leaf_counts).

Delays (check_delays): models/ring_opposite.bc -D N=10 -D ITER=3 (12
threads) has its deadlock one delay from the round-robin schedule, found in
an exact number of executions; --delay-bound 0 is one execution (or complete
with a single schedule); 0..K raises the bound until nothing is left out.

Bundled models: every models/*.bc gives its stateful verdict (the header's
`; expect:` line) with --search=stateless, with smaller -D values where the
stateful options make the execution tree too big, and a depth cap on the
cyclic ones (then an `ok` model ends "incomplete" at the cap, no error).

usage: test_stateless.py MCHECK GEN_MODEL [--count N] [--seed S] [--models DIR]
                         [--spawns-every K]
CI runs --count 12 (about a minute); offline, --count 1000 (minutes).
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
from mcheck_test import (SeedRun, check_usage, finish_random, random_seed_args,  # noqa: E402
                         spawns_opt)
from mcheck_test import error_counts as counts, search_json as run  # noqa: E402

STATELESS_TIME = 4  # seconds per stateless run; past it, the comparison is not made
SHALLOW = 16  # the depth cap of the runs on a deep or cyclic model


class Seed(SeedRun):
    def __init__(self, opts, seed, undisciplined, spawns=False):
        super().__init__(opts, seed,
                         (["--undisciplined"] if undisciplined else []) + (["--spawns"] if spawns else []))
        self.und = undisciplined
        self.skips = 0
        self.bounded = 0      # bounds at which sleep sets on and off were compared
        self.delayed = 0      # delay bounds checked
        self.delay_complete = 0  # of those, complete within the bound
        self.cyclic = False   # a run stopped at the depth cap (a cycle, by pigeonhole)
        self.deep = False     # the main run did not complete in time
        # (self.timeouts: stateless runs past STATELESS_TIME, comparison not made)

    def stateless(self, args, model, label, ref, cap, exact=True):
        """A stateless --all-errors run against the stateful reference `ref`:
        exact counts when complete, a subset of kinds at the depth cap."""
        js = self.get(["--search=stateless", "--all-errors", "--max-depth", str(cap)] + args,
                      model, label, STATELESS_TIME)
        if js is None:
            return None
        stop = js["stop"]
        if stop == "time_limit":
            self.timeouts += 1
            return js
        got, want = counts(js), counts(ref)
        if stop == "complete":
            if exact:
                self.ok(got == want, f"{label}: error counts {got}, stateful {want}")
                # sleep sets prune transitions, never states: every valid end state too
                e, re_ = js["stats"]["end_states"], ref["stats"]["end_states"]
                self.ok(e == re_, f"{label}: {e} end states, stateful {re_}")
            self.ok(js["stats"]["executions"] > 0, f"{label}: no execution counted")
        else:
            self.ok(stop == "depth_limit", f"{label}: stopped '{stop}'")
            self.cyclic = True
            self.ok(set(got) <= set(want), f"{label}: kinds {sorted(got)} not within {sorted(want)}")
            self.ok(all(got[k] <= want[k] for k in got), f"{label}: counts {got} above {want}")
        return js


    def bounded_sleep(self, on, pb, model, cap):
        """Sleep sets with a preemption bound (bounded_sleep.c) against none
        at the same bound (every execution within it): the same error states
        (counts per kind, deadlocks included) and end states, a cut at the
        depth cap in both or neither (equivalent executions are as long)."""
        off = self.get(["--search=stateless", "--all-errors", "--max-depth", str(cap),
                        "--preemption-bound", pb, "--sleep-sets=off"], model,
                       f"--preemption-bound {pb} --sleep-sets=off", STATELESS_TIME)
        if off is None or off["stop"] == "time_limit":
            self.timeouts += off is not None
            return
        label = f"--preemption-bound {pb}, sleep sets on and off"
        self.ok(counts(on) == counts(off), f"{label}: error counts {counts(on)} and {counts(off)}")
        e1, e0 = on["stats"]["end_states"], off["stats"]["end_states"]
        self.ok(e1 == e0, f"{label}: {e1} and {e0} end states")
        self.ok((on["stop"] == "depth_limit") == (off["stop"] == "depth_limit"),
                f"{label}: stopped {on['stop']} and {off['stop']}")
        self.ok(off["stats"]["sleep_avoided"] == 0, f"{label}: off avoided steps")
        self.bounded += 1


    def delay_bounds(self, model, cap, want, ref):
        """--delay-bound 0..3 (delay_bound.c): real errors, growing with the
        bound, and the stateful counts where the search says complete."""
        prev = None
        for d in ("0", "1", "2", "3"):
            label = f"--delay-bound {d}"
            js = self.get(["--search=stateless", "--all-errors", "--max-depth", str(cap),
                           "--delay-bound", d], model, label, STATELESS_TIME)
            if js is None or js["stop"] == "time_limit":
                self.timeouts += js is not None
                prev = None
                continue
            got, stop = counts(js), js["stop"]
            self.ok(set(got) <= set(want), f"{label}: kinds {sorted(got)} not within {sorted(want)}")
            self.ok(stop in ("complete", "delay_bound", "depth_limit"), f"{label}: stop {stop}")
            self.ok(js["stats"]["sleep_avoided"] == 0, f"{label}: sleep sets used")
            if stop == "delay_bound":
                self.ok(js["stats"]["delay_pruned"] > 0, f"{label}: nothing pruned")
                self.ok(js["verdict"] == (js["errors"][0]["kind"] if js["errors"] else "ok"),
                        f"{label}: verdict {js['verdict']}")
            if stop == "complete":
                self.delay_complete += 1
                self.ok(js["stats"]["delay_pruned"] == 0, f"{label}: complete, yet steps left out")
                self.ok(got == want, f"{label}: complete, error counts {got}, stateful {want}")
                e, re_ = js["stats"]["end_states"], ref["stats"]["end_states"]
                self.ok(e == re_, f"{label}: complete, {e} end states, stateful {re_}")
            if prev is not None:  # within K delays is within K + 1
                self.ok(all(got.get(k, 0) >= n for k, n in prev.items()),
                        f"{label}: error counts {got} lost some of the smaller bound's {prev}")
            prev = got
            self.delayed += 1


def check_seed(opts, seed, undisciplined, spawns=False):
    S = Seed(opts, seed, undisciplined, spawns)
    text = S.generate()
    if text is None:
        return S
    with tempfile.TemporaryDirectory() as d:
        model = write_model(d, "m.bc", text)
        failed0 = checks.failed
        ref = {}
        for race in ("ld", "off"):
            for mode in ("compose", "none"):
                # (composition alone, --por=off: the stateless search's steps)
                js = S.get(["--all-errors", "--store=exact", "--race=" + race, "--reduce=" + mode,
                            "--por=off"], model, f"stateful {mode} race={race}")
                if js is None:
                    return S
                if js["stop"] == "time_limit":
                    S.skips += 1
                    print(f"skip {S.tag}: stateful {mode} race={race} hit the time limit")
                    return S
                ref[race, mode] = js
        cap = max(ref["ld", "compose"]["stats"]["states_stored"], 1)
        main = S.stateless([], model, "stateless", ref["ld", "compose"], cap)
        if main is None:
            return S
        if main["stop"] != "complete":
            # cyclic (stopped at the cap) or too deep for the time: the
            # shallow runs check a subset of the kinds, and stop at the cap
            S.deep = True
            cap = SHALLOW
            main = S.stateless([], model, "stateless (shallow)", ref["ld", "compose"], cap)
        S.stateless(["--race=off"], model, "stateless race=off", ref["off", "compose"], cap)
        S.stateless(["--reduce=none"], model, "stateless reduce=none", ref["ld", "none"],
                    cap if S.deep else max(ref["ld", "none"]["stats"]["states_stored"], 1))
        off = S.stateless(["--race=off"], model, "stateless race=off vs full", ref["off", "none"],
                          cap, exact=False)
        if off is not None and off["stop"] == "complete" and not undisciplined:
            # the deadlocks and error kinds of the full search (Theorems 4, 5)
            fk, k = counts(ref["off", "none"]), counts(off)
            S.ok(sorted(fk) == sorted(k), f"kinds {sorted(k)}, full search {sorted(fk)}")
            S.ok(fk.get("deadlock", 0) == k.get("deadlock", 0),
                 f"{k.get('deadlock', 0)} deadlocked states, full search {fk.get('deadlock', 0)}")
        if main is not None and main["stop"] == "complete":
            js = S.stateless(["--sleep-sets=off"], model, "--sleep-sets=off", ref["ld", "compose"], cap)
            if js is not None and js["stop"] == "complete":
                S.ok(js["stats"]["sleep_avoided"] == 0, "--sleep-sets=off avoided revisits")
                S.ok(js["stats"]["executions"] >= main["stats"]["executions"],
                     "sleep sets explored more executions than none")
            js = S.stateless(["--preemption-bound", str(cap)], model, "--preemption-bound CAP",
                             ref["ld", "compose"], cap)
            if js is not None and js["stop"] == "complete":
                S.ok(js["stats"]["preemption_pruned"] == 0, "a bound as large as the depth left steps out")
        for pb in ("0", "1", "2", "3", "0..1"):
            js = S.get(["--search=stateless", "--all-errors", "--max-depth", str(cap),
                        "--preemption-bound", pb], model, f"--preemption-bound {pb}", STATELESS_TIME)
            if js is None or js["stop"] == "time_limit":
                continue
            if ".." not in pb:
                S.bounded_sleep(js, pb, model, cap)
            got, want = counts(js), counts(ref["ld", "compose"])
            S.ok(set(got) <= set(want), f"--preemption-bound {pb}: kinds {sorted(got)} not within {sorted(want)}")
            S.ok(js["stop"] in ("complete", "preemption_bound", "depth_limit"),
                 f"--preemption-bound {pb}: stop {js['stop']}")
            if js["stop"] == "preemption_bound":
                S.ok(js["stats"]["preemption_pruned"] > 0, f"--preemption-bound {pb}: nothing pruned")
                S.ok(js["verdict"] == (js["errors"][0]["kind"] if js["errors"] else "ok"),
                     f"--preemption-bound {pb}: verdict {js['verdict']}")
        S.delay_bounds(model, cap, counts(ref["ld", "compose"]), ref["ld", "compose"])
        # the first error: one of the reachable kinds
        rc, js, _ = run(opts.mcheck, ["--search=stateless", "--max-depth", str(cap)], model,
                        STATELESS_TIME)
        if js is not None and js["stop"] != "time_limit":
            want = counts(ref["ld", "compose"])
            v = js["verdict"]
            S.ok(v in want or (v == "ok" and not want) or (v == "incomplete" and S.deep),
                 f"first-error verdict {v}, reachable {sorted(want)}")
            S.ok(rc == {"ok": 0, "incomplete": 3}.get(v, 1), f"exit {rc} for verdict {v}")
            if js["errors"]:
                S.ok(js["errors"][0]["replayed"], "the first error's trace did not replay")
        S.reproduce(failed0, text, "--search=stateless --all-errors")
    return S


# Bundled models: the options that keep the execution tree small (smaller
# -D values than the headers' where needed), and a depth cap on the cyclic
# ones (their `ok` ends incomplete at the cap: exit 3, no error).
BUNDLED = {
    "adapt_flag.bc": (["--adapt", "--max-depth", "40"], "cyclic"),
    "philosophers_ordered.bc": (["-D", "N=2", "--max-depth", "24"], "cyclic"),
    "prodcons_monitor.bc": (["-D", "ITEMS=2", "-D", "CAP=1"], None),
    "channels_pingpong.bc": (["-D", "ROUNDS=3"], None),
    "server_endlabel.bc": (["-D", "C=2", "-D", "REQS=2"], None),
    "spawn_join.bc": (["-D", "K=3"], None),
    "philosophers.bc": (["-D", "N=3"], None),
    "bank_audit.bc": (["-D", "T=2", "-D", "OPS=3"], None),
    "livelock_backoff.bc": (["--max-depth", "24"], "cyclic"),
    "livelock_ordered.bc": (["--max-depth", "24"], "cyclic"),
    "reqgrant_unfair.bc": (["--max-depth", "24"], "cyclic"),
    "reqgrant_fair.bc": (["--max-depth", "24"], "cyclic"),
    "rw_writer_starves.bc": (["--max-depth", "16"], "cyclic"),
    "rw_writer_preference.bc": (["--max-depth", "16"], "cyclic"),
}


def check_bundled(opts):
    for name in sorted(os.listdir(opts.models)):
        if not name.endswith(".bc"):
            continue
        path = os.path.join(opts.models, name)
        with open(path) as f:
            head = [line for line in f if line.startswith(";")]
        expect = next((line.split(":", 1)[1].strip() for line in head if line.startswith("; expect:")), None)
        if expect is None:  # a model without an expectation: the stateful verdict is the reference
            hopts = next((line.split(":", 1)[1].split() for line in head if line.startswith("; options:")), [])
            _, ref, _ = run(opts.mcheck, hopts, path)
            expect = ref["verdict"] if ref else None
        args, kind = BUNDLED.get(name, ([], None))
        rc, js, err = run(opts.mcheck, ["--search=stateless"] + args, path)
        if not check(js is not None, f"{name}: no JSON (exit {rc}): {err.strip()[:300]}"):
            continue
        if kind == "cyclic" and expect == "ok":
            check(js["verdict"] == "incomplete" and js["stop"] == "depth_limit" and rc == 3,
                  f"{name}: cyclic ok model gave {js['verdict']}/{js['stop']} exit {rc}")
        else:
            check(js["verdict"] == expect and js["stop"] in ("complete", "error"),
                  f"{name}: verdict {js['verdict']} ({js['stop']}), stateful {expect}")
            check(rc == (0 if expect == "ok" else 1), f"{name}: exit {rc}")
        check(js["stats"]["states_stored"] == 0 and js["options"]["store"] == "none",
              f"{name}: a state stored")


def check_cli(opts):
    """Usage errors, the preemption-bound verdict line, the default depth."""
    model = os.path.join(opts.models, "spawn_join.bc")
    for bad in (["-j", "2"], ["--store=exact"], ["--fingerprint=128"], ["--dump-states", os.devnull],
                ["--por"], ["--lookahead=on"], ["--shorten=on"]):
        check_usage(opts.mcheck, ["--search=stateless"] + bad + [model], "",
                    f"--search=stateless {' '.join(bad)}")
    for bad in (["--preemption-bound", "2"], ["--delay-bound", "1"]):
        p = subprocess.run([opts.mcheck] + bad + [model], capture_output=True, text=True)
        check(p.returncode == 2 and "applies to --search=stateless" in p.stderr, f"{bad} without stateless")
    # --sleep-sets: also the sequential depth-first search's with --por
    for bad in (["--search=bfs"], ["-j", "2"], ["--por=off"], ["--liveness=npc"]):
        p = subprocess.run([opts.mcheck, "--sleep-sets=off"] + bad + [model], capture_output=True,
                           text=True)
        check(p.returncode == 2 and p.stderr.startswith(
            "mcheck: error: --sleep-sets applies to --search=stateless and to the sequential "
            "depth-first search with --por (not with --search=bfs, -j, --por=off, --liveness or "
            "--ltl)\n"), f"--sleep-sets=off {bad}: {p.stderr[:200]!r}")
    p = subprocess.run([opts.mcheck, "--sleep-sets=off", model], capture_output=True, text=True)
    check(p.returncode in (0, 1) and "; --sleep-sets=off" in p.stdout,
          f"--sleep-sets=off with the default search: taken, and said ({p.stdout[-300:]!r})")
    for bad, msg in (
            (["--search=stateless", "--delay-bound", "1", "--preemption-bound", "1"],
             "mcheck: error: --delay-bound cannot be used with --preemption-bound (one bound at a time)\n"),
            (["--scheduling=races", "--delay-bound", "1"],
             "mcheck: error: --delay-bound cannot be used with --scheduling=races (a bounded search "
             "needs every thread switch as a scheduling choice)\n"),
            (["--delay-bound", "1"], "mcheck: error: --delay-bound applies to --search=stateless\n"),
            (["--search=bfs", "--delay-bound", "0..2"],
             "mcheck: error: --delay-bound applies to --search=stateless\n"),
            (["--search=stateless", "--delay-bound", "1", "--sleep-sets=on"],
             "mcheck: error: --sleep-sets=on cannot be used with --delay-bound (sleep sets are off "
             "under a delay bound)\n"),
            (["--search=stateless", "--delay-bound", "0..x"],
             "mcheck: error: --delay-bound: expected K or 0..K (a number of delays), got '0..x'\n")):
        p = subprocess.run([opts.mcheck] + bad + [model], capture_output=True, text=True)
        check(p.returncode == 2 and p.stderr == msg + "Try 'mcheck --help'.\n",
              f"{' '.join(bad)}: exit {p.returncode}, {p.stderr!r}")
    p = subprocess.run([opts.mcheck, "--search=stateless", "--preemption-bound", "x", model],
                       capture_output=True, text=True)
    check(p.returncode == 2, "--preemption-bound x accepted")
    p = subprocess.run([opts.mcheck, "--quiet", "--search=stateless", "--preemption-bound", "1", "-D", "K=3",
                        model], capture_output=True, text=True)
    check(p.returncode == 3 and "verdict: ok (no error found within 1 preemption: incomplete)\n" in p.stdout,
          f"--preemption-bound 1: exit {p.returncode}, {p.stdout[:400]}")
    p = subprocess.run([opts.mcheck, "--quiet", "--search=stateless", "--preemption-bound", "0..9", "-D", "K=3",
                        model], capture_output=True, text=True)
    check(p.returncode == 0 and "verdict: ok (no error found)\nsearch complete\n" in p.stdout
          and "preemption bound     3, raised from 0" in p.stdout,
          f"--preemption-bound 0..9: exit {p.returncode}, {p.stdout[:600]}")
    # --preemption-bound 0..K raises the bound also when iterative deepening
    # reaches the depth cap at a smaller one: the philosophers' deadlock
    # needs one preemption, and bound 0 is cut at every depth (issue 28)
    phil = os.path.join(opts.models, "philosophers.bc")
    for cap in ([], ["--max-depth", "64"]):
        p = subprocess.run([opts.mcheck, "--quiet", "--search=stateless", "--preemption-bound", "0..2"]
                           + cap + [phil], capture_output=True, text=True)
        check(p.returncode == 1 and "verdict: deadlock\n" in p.stdout
              and "preemption bound     1, raised from 0" in p.stdout,
              f"--preemption-bound 0..2 {' '.join(cap)} on the philosophers: the deadlock at bound 1 "
              f"(exit {p.returncode}, {p.stdout[-700:]})")
    # a cyclic model without --max-depth: the default cap, incomplete
    cyc = os.path.join(opts.models, "adapt_flag.bc")
    rc, js, _ = run(opts.mcheck, ["--search=stateless", "--adapt"], cyc)
    check(js is not None and rc == 3 and js["stop"] == "depth_limit" and js["stats"]["depth_bound"] == 10000,
          f"cyclic model, default cap: exit {rc}, {js and js['stop']}, {js and js['stats']['depth_bound']}")


def check_preemptions(opts):
    """models/bank_audit.bc needs exactly 2 preemptions: --preemption-bound 0
    and 1 find nothing (ok within the bound, exit 3), 2 and 0..2 find the
    overdraft with a trace that replays. 0..2 deepens again from the first
    depth bound at each raised bound: its executions and transitions are
    exactly the sum of --preemption-bound 0, 1 and 2 run alone (T=3 OPS=6:
    executions of 39 steps, so each bound deepens 32 then 64)."""
    model = os.path.join(opts.models, "bank_audit.bc")
    for size in (["-D", "T=2", "-D", "OPS=3"], ["-D", "T=3", "-D", "OPS=6"]):
        tag = "bank_audit " + " ".join(size)
        alone = []
        for pb in ("0", "1", "2"):
            rc, js, err = run(opts.mcheck, ["--search=stateless", "--all-errors", "--preemption-bound", pb]
                              + size, model)
            if not check(js is not None, f"{tag} --preemption-bound {pb}: no JSON {err.strip()[:300]}"):
                return
            want = "ok" if pb != "2" else "assertion"
            check(js["verdict"] == want and js["stop"] == "preemption_bound" and rc == (3 if pb != "2" else 1),
                  f"{tag} --preemption-bound {pb}: {js['verdict']}/{js['stop']} exit {rc}, expected {want}")
            alone.append(js["stats"])
        rc, js, err = run(opts.mcheck, ["--search=stateless", "--all-errors", "--preemption-bound", "0..2"]
                          + size, model)
        if not check(js is not None, f"{tag} 0..2: no JSON {err.strip()[:300]}"):
            return
        check(js["verdict"] == "assertion" and rc == 1, f"{tag} 0..2: {js['verdict']} exit {rc}")
        for key in ("executions", "transitions", "iterations"):
            total = sum(st[key] for st in alone)
            check(js["stats"][key] == total,
                  f"{tag} 0..2: {key} {js['stats'][key]}, the bounds 0, 1, 2 alone {total}")
        for pb in ("2", "0..2"):  # the first error: a trace that replays
            rc, js, err = run(opts.mcheck, ["--search=stateless", "--preemption-bound", pb] + size, model)
            e = js and js["errors"] and js["errors"][0]
            check(rc == 1 and e and e["kind"] == "assertion" and e["replayed"],
                  f"{tag} --preemption-bound {pb}: exit {rc}, first error {e}")


def check_delays(opts):
    """--delay-bound (delay_bound.c) on models/ring_opposite.bc -D N=10
    -D ITER=3: threads left (0), right (1), phil[0..9] (2..11); left and
    right take 2 composed steps each, a worker 7 (its start, then 6
    acquires), 74 in all. The round-robin schedule runs left, right, then
    the workers by id, each to its end: 1 execution, with nothing in it to
    wait for. With one delay, each node of it where a second thread is
    enabled (levels 0 to 66: phil[9] runs alone at 67-73) gives one more
    execution, the round-robin one after the delay; the delay at level 1
    (skip left after `acquire a`, right takes `b`) is the deadlock, met when
    the depth-first search backs up to level 1 after the deviations at
    66..2. So with --max-depth 100 (one iteration) 1 + 65 executions before
    the deadlock's, which is not counted (the search stops there); with
    iterative deepening (depth bounds 32, 64, 128, the execution cut at a
    bound counted) 33 + 65 + 66 = 164, and 0..2 adds bound 0's one execution
    at each of the three depth bounds: 167."""
    model = os.path.join(opts.models, "ring_opposite.bc")
    size = ["-D", "N=10", "-D", "ITER=3"]
    for args, execs in ((["--delay-bound", "1"], 164), (["--delay-bound", "1", "--max-depth", "100"], 66),
                        (["--delay-bound", "0..2"], 167)):
        rc, js, err = run(opts.mcheck, ["--search=stateless"] + args + size, model)
        tag = f"ring_opposite N=10 ITER=3 {' '.join(args)}"
        if not check(js is not None, f"{tag}: no JSON {err.strip()[:300]}"):
            continue
        e = js["errors"] and js["errors"][0]
        got = (rc, js["verdict"], js["stats"]["executions"], js["stats"]["delay_bound"],
               js["stats"]["preemption_bound"], bool(e and e["replayed"]))
        check(got == (1, "deadlock", execs, 1, None, True),
              f"{tag}: (exit, verdict, executions, delay bound, preemption bound, replayed) {got}, "
              f"expected {(1, 'deadlock', execs, 1, None, True)}")
    # bound 0: the round-robin schedule alone; incomplete, exit 3
    p = subprocess.run([opts.mcheck, "--quiet", "--search=stateless", "--delay-bound", "0", "--max-depth",
                        "100"] + size + [model], capture_output=True, text=True)
    check(p.returncode == 3 and "verdict: ok (no error found within 0 delays: incomplete)\n"
          "search incomplete: executions with more delays than the bound were not explored\n" in p.stdout
          and "  executions           1 (no state stored)\n" in p.stdout
          and "  sleep sets           off (under a delay bound)\n" in p.stdout,
          f"--delay-bound 0 on ring_opposite: exit {p.returncode}, {p.stdout[:900]}")
    with tempfile.TemporaryDirectory() as d:
        one = write_model(d, "one.bc", "lock a\nthread t\n    acquire a\n    release a\n    acquire a\n"
                                       "    release a\n")
        rc, js, err = run(opts.mcheck, ["--search=stateless", "--delay-bound", "0"], one)
        got = js and (rc, js["verdict"], js["stop"], js["stats"]["executions"], js["stats"]["delay_pruned"])
        check(got == (0, "ok", "complete", 1, 0), f"--delay-bound 0, one thread: {got}")
        # two threads of 2 steps on their own locks: 6 interleavings; within
        # 0, 1, 2, 3 delays 1, 3, 5, 6 of them (t1 t0 t1 t0 needs 3: each
        # switch but the one at t1's end is a delay), so 0..9 stops at 3,
        # complete, after 1 + 3 + 5 + 6 executions
        two = write_model(d, "two.bc", "lock a, b\n"
                                       "thread t0\n    acquire a\n    release a\n    acquire a\n    release a\n"
                                       "thread t1\n    acquire b\n    release b\n    acquire b\n    release b\n")
        for db, want in (("0", (3, "delay_bound", 1)), ("1", (3, "delay_bound", 3)),
                         ("2", (3, "delay_bound", 5)), ("3", (0, "complete", 6)), ("0..9", (0, "complete", 15))):
            rc, js, err = run(opts.mcheck, ["--search=stateless", "--delay-bound", db], two)
            got = js and (rc, js["stop"], js["stats"]["executions"])
            check(got == want, f"--delay-bound {db}, two threads: (exit, stop, executions) {got}, expected {want}")
        p = subprocess.run([opts.mcheck, "--quiet", "--search=stateless", "--delay-bound", "0..9", two],
                           capture_output=True, text=True)
        check("  delay bound          3, raised from 0 (5 steps left out)\n" in p.stdout,
              f"--delay-bound 0..9: {p.stdout[:900]}")


def check_leaf_counts(opts):
    """A leaf cut at the depth bound counts the steps its sleep set leaves
    out, as an inner node does: two threads on their own locks (2 steps
    each) avoid 1 revisit at --max-depth 1 and, from --max-depth 3 on, the
    4 of the complete search."""
    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "indep.bc")
        with open(model, "w") as f:
            f.write("lock a, b\n"
                    "thread t0\n    acquire a\n    release a\n    acquire a\n    release a\n"
                    "thread t1\n    acquire b\n    release b\n    acquire b\n    release b\n")
        for depth, stop, avoided in ((1, "depth_limit", 1), (3, "depth_limit", 4), (10, "complete", 4)):
            rc, js, err = run(opts.mcheck, ["--search=stateless", "--max-depth", str(depth)], model)
            got = js and (js["stop"], js["stats"]["sleep_avoided"])
            check(got == (stop, avoided), f"independent threads --max-depth {depth}: (stop, sleep_avoided) "
                                          f"{got}, expected {(stop, avoided)}")


def main():
    opts = random_seed_args(__doc__, "models are")
    check_cli(opts)
    check_bundled(opts)
    check_preemptions(opts)
    check_leaf_counts(opts)
    check_delays(opts)
    skips = cyclic = deep = timeouts = bounded = delayed = delay_complete = 0
    runs = spawned = 0
    for seed in range(opts.seed, opts.seed + opts.count):
        sp = bool(spawns_opt(opts, seed))
        for und in ((False, True) if seed % 2 == 0 else (False,)):
            t0 = time.time()
            S = check_seed(opts, seed, und, sp)
            spawned += sp
            if opts.verbose:
                print(f"{S.tag}: {time.time() - t0:.1f} s{' cyclic' if S.cyclic else ''}", flush=True)
            runs += 1
            skips += S.skips > 0
            cyclic += S.cyclic
            deep += S.deep
            timeouts += S.timeouts
            bounded += S.bounded
            delayed += S.delayed
            delay_complete += S.delay_complete
    print(f"{runs} random models: {runs - deep - skips} complete, {deep} cyclic or too deep for "
          f"{STATELESS_TIME} s (checked to depth {SHALLOW}), {skips} skipped (stateful too big); "
          f"{timeouts} stateless runs past {STATELESS_TIME} s (not compared); {spawned} "
          f"spawn-heavy (--spawns); {bounded} bounds (0-3) compared with sleep sets off; "
          f"{delayed} delay bounds (0-3) checked, {delay_complete} of them complete")
    # most bounds must be compared, or the soundness check would not run
    check(bounded >= 2 * runs, f"only {bounded} bounds of {4 * runs} compared with sleep sets off")
    check(delayed >= 2 * runs and delay_complete >= runs // 3,
          f"only {delayed} delay bounds of {4 * runs} checked, {delay_complete} complete")
    # most models must be complete, or the exact comparisons would not run
    return finish_random(runs - deep - skips, runs, "complete", skips)


if __name__ == "__main__":
    sys.exit(main())
