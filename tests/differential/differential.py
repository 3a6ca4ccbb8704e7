#!/usr/bin/env python3
"""Differential test of the lock-based reduction (DESIGN.md, "Soundness
contract"; Stoller, Theorems 4 and 5): with the locking discipline holding,
the reduced search finds the same visible states, deadlocks and errors as the
full search.

For each seed, gen_model writes a random disciplined model; then

  * the sets of error kinds reachable (deadlock, assertion, runtime_error, ...)
    found by `--all-errors` searches in both modes are equal;
  * the verdicts of the default (stop at the first error) searches agree: ok in
    one mode iff ok in the other, each one of the kinds reachable, and equal
    when only one kind is reachable (DFS order may meet a different first
    error when there are several);
  * the visible states of the full search (`--reduce=none --dump-states`:
    states in which every thread stands at a visible control point) are
    exactly the states the reduced search stores (`--dump-states`), with
    `--all-errors` so both searches go on past errors;
  * the reduced search stores nothing but those states and its error states,
    and its breadth-first variant stores the same;
  * if the model is small enough, tests/ref/refcheck.py's state
    and transition counts and error kinds in both modes equal mcheck's
    (`--all-errors --store=exact`, which explores everything, as refcheck does),
    and `refcheck.py --ld` finds no violation of LD' (else the generator is
    at fault: its models must be disciplined);
  * the compact store (default) counts as the exact one, and its DFS gives
    the same JSON (counts, verdict, trace) with `--lookahead=child`, `sibling`
    and `on` (the steps likely next built and prefetched before they are
    taken; `on` guesses by the odds, as `auto` does on big stores) as with
    `--lookahead=off`, in both modes, with and without `--all-errors`; so
    does `--search=bfs`, whose successors are built and prefetched in batches
    unless `--lookahead=off`;
  * on the small models with errors, the breadth-first searches' traces
    are shortest: the first error's of its kind, and with --all-errors the
    shortest listed of each kind, against a BFS over refcheck.py's successor
    function (tests/lib/shortest.py);
  * every fourth seed (--spawns-every) is a spawn-heavy model (gen_model
    --spawns: two static threads each spawn a proc of their own, assert
    or branch on the ids the spawns returned, children use `tid`; thread
    ids come from one counter, so the spawn order matters and two spawns
    never commute), through every check here, --por's included;
  * every fifth seed (--waiters-every) is a monitor-heavy model (gen_model
    --waiters: notifiers work under another lock while they hold the
    monitor's, waiters once woken), for --por's rule that leaves a waiting
    thread out of a persistent set while nobody outside it can notify it;
  * every third seed (--atomic-every) has atomic blocks and `assume`
    (gen_model --atomic, issue 30: fetch-and-add and compare-and-swap
    blocks over a volatile, a decrement guarded by `assume`, a critical
    section inside a block, an `assume` that blocks for good), through
    every check here, refcheck's counts and --por's included;
  * every third seed (--calls-every, seeds 1, 4, 7, ...) has subroutines
    (gen_model --calls: `call`/`ret` from several sites, nested now and
    then), for the static walkers that must follow a `ret` to its return
    sites (--por's tables, the canonicalization's futures);
  * every fifth seed, offset by three (--conds-every), has pthread condition
    variables (gen_model --conds: cwait at depth 1 in a re-check loop or
    not, csignal / cbroadcast under the lock or after it), through every
    check here, --por's and refcheck's included (seeds 3, 18, 33, ... with
    --spurious-wakeups too);
  * every fifth seed, offset by two (--rendezvous-every: seeds 2, 7, 12,
    ..., none of them --conds' or --waiters'), has rendezvous channels
    (gen_model --rendezvous: `chan cN[0]`, a send and a recv as one step of
    both threads, servers at end labels, instances of one body meeting,
    invisible arithmetic after a recv), through every check here, --por's
    and refcheck's included;
  * on every third seed whose model waits (wait or cwait; --spurious-every), the full and
    the reduced search again with `--spurious-wakeups`: the same error kinds,
    first-error verdicts and visible states, and refcheck.py
    --spurious-wakeups's counts in both modes on the small ones;
  * --por (persistent sets with the cycle provisos, DFS and BFS, issue 15;
    the DFS also with --sleep-sets=off, persistent sets alone)
    against the full search (`--all-errors`): the same error kinds, the
    same deadlocked states (`--dump-states` ends their lines with
    " deadlock"), every state --por stores (but its error states) is a
    visible state of the full search, it stores no more states than
    `--reduce=compose` (DFS and BFS alike), every thread's local state
    (its part of the vector: pc, status, registers) in a visible state of
    the full search is in some state it stores (but a static thread's
    initial one), its first-error verdict is one
    of the reachable kinds; with the default detector (LD') it finds the
    kinds `--reduce=compose` finds; with `--spurious-wakeups` (on the share
    above) the same error kinds and deadlocked states as the full search.
    (--por's states are not compared with composition's: the initial state
    may be past the threads' invisible starts and detector metadata may be
    discharged statically, so only the full search's visible states are
    the reference);
  * the comparisons above run with `--race=off` (detector metadata would
    make one visible state several stored ones); with the default detector
    (LD') both searches find the same error kinds, and their counts equal
    `refcheck.py --ld`'s, whose metadata is canonicalized like mcheck's
    (what no later check can read is reset).

usage: differential.py MCHECK GEN_MODEL [--count N] [--seed S] [--size small|medium]
                       [--jobs J] [--ref-max-states N] [--no-ref] [--refcheck PATH]
                       [--spurious-every K] [--spawns-every K] [--waiters-every K]
                       [--calls-every K] [--conds-every K] [--rendezvous-every K]
                       [--keep DIR] [--verbose] [--max-skip-percent P]
Prints one line per failure with the seed and a reproduction command, then
the failing model; ends with "N passed, N failed" (a model passes when every
check on it passes). Exit status 1 on any failure. Before that line, the
generator's coverage: how many models per 1000 seeds use each construct
(checks.COVERAGE, and checks.COVERAGE_CONDS and COVERAGE_RENDEZVOUS while
--conds-every and --rendezvous-every are on); one
never used in 200 or more seeds fails the test. A seed is skipped only when
a search hits the time limit, and more than --max-skip-percent (3%) skipped
seeds fail the test; an --all-errors search that stops at an error fails; a
missing reference checker fails (--no-ref runs without it on purpose).
"""
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from shortest import check_bfs_report, error_depths  # noqa: E402
from checks import (ATOMIC_COVERAGE, COVERAGE_CONDS, COVERAGE_RENDEZVOUS,  # noqa: E402
                    constructs, coverage_report,
                    need_refcheck, parse_seed_args, report_diff, seed_parser, show_model,
                    too_many_skips)
from mcheck_test import add_calls_every, add_spawns_every, calls_opt, spawns_opt  # noqa: E402

TIMELIMIT = 60  # seconds per mcheck run; a model this big is skipped, not failed


def mcheck_json(mcheck, args, model, env=None):
    """Run mcheck with --json --quiet; returns (exit status, parsed JSON or None, stderr).
    `--reduce=compose` without a --por option is composition alone
    (--por=off): the default search is --por, and composition's counts are
    the ones refcheck and the full search are compared with."""
    if "--reduce=compose" in args and not any(a.startswith("--por") for a in args):
        args = ["--por=off"] + args
    cmd = [mcheck, "--json", "--quiet", "--store=exact", "--timelimit", str(TIMELIMIT)] + args + [model]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMELIMIT * 3,
                       env=dict(os.environ, **env) if env else None)
    try:
        js = json.loads(p.stdout)
    except json.JSONDecodeError:
        js = None
    return p.returncode, js, p.stderr


def read_states(path):
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    return lines


def error_counts(js):
    """Errors found, by kind: the JSON's error_counts (every error, while
    `errors` lists only those whose trace was kept), or the error list."""
    if "error_counts" in js:
        return {k: n for k, n in js["error_counts"].items() if n}
    counts = {}
    for e in js["errors"]:
        counts[e["kind"]] = counts.get(e["kind"], 0) + 1
    return counts


def kinds_of(js):
    return sorted(error_counts(js))


def run_refcheck(refcheck, model, ld=False, extra=()):
    p = subprocess.run([sys.executable, refcheck, "--mode=both", "--quiet"]
                       + (["--ld"] if ld else []) + list(extra) + [model],
                       capture_output=True, text=True, timeout=600)
    res = {}
    for line in p.stdout.splitlines():
        m = re.match(r"mode=(\w+) states=(\d+) transitions=(\d+) verdict=(\S+)", line)
        if m:
            kinds = sorted(k for k in m.group(4).split(",") if k != "ok")
            res[m.group(1)] = (int(m.group(2)), int(m.group(3)), kinds)
    return p.returncode, res, p.stderr.strip()


def refcheck_agrees(refcheck, model, label, searches, ld=False, extra=(), hint=False,
                    kinds_of_search=None):
    """Problems (strings) where refcheck --mode=both disagrees with mcheck's
    full and reduced `searches` (two --json reports, --all-errors): states
    and transitions, and the error kinds of `kinds_of_search` (default: the
    same two reports)."""
    rc, ref, err = run_refcheck(refcheck, model, ld=ld, extra=extra)
    if rc == 2 or "none" not in ref or "reduced" not in ref:
        return [f"{label} exited {rc}: {err[:300]}"]
    problems = []
    for mode, js, kjs in zip(("none", "reduced"), searches, kinds_of_search or searches):
        rs, rt, rk = ref[mode]
        st = js["stats"]
        if (rs, rt) != (st["states_stored"], st["transitions"]):
            why = ""
            if hint and rt == st["transitions"] and rk == kinds_of(js):
                why = (" (same transitions and error kinds: error states identified "
                       "differently? mcheck stores one per state and faulting "
                       "thread, refcheck one per state, kind and message)")
            problems.append(f"{label} --mode={mode}: {rs} states, {rt} transitions; "
                            f"mcheck: {st['states_stored']} states, "
                            f"{st['transitions']} transitions{why}")
        if rk != kinds_of(kjs):
            problems.append(f"{label} --mode={mode}: error kinds {rk}; mcheck: {kinds_of(kjs)}")
    return problems


def check_spurious(res, full_dump, red_dump):
    """The reduced and the full search with --spurious-wakeups: the same
    error kinds, agreeing first-error verdicts, the same visible states, and
    the reduced search stores those and its error states only."""
    problems = []
    fa, ra = res["sp-full-all"], res["sp-reduced-all"]
    kf, kr = kinds_of(fa), kinds_of(ra)
    if kf != kr:
        problems.append(f"--spurious-wakeups: error kinds reachable: full {kf or ['none']}, "
                        f"reduced {kr or ['none']}")
    for name, ks in (("sp-full", kf), ("sp-reduced", kr)):
        v = res[name]["verdict"]
        if (v == "ok") != (not ks) or (v != "ok" and v not in ks):
            problems.append(f"{name}: first-error verdict {v}; --all-errors finds {ks or ['ok']}")
    if not fa["options"].get("spurious_wakeups"):
        problems.append("--spurious-wakeups: the report's options say spurious_wakeups false")
    sa, sb = set(read_states(full_dump)), set(read_states(red_dump))
    if sa != sb or not sa:
        problems.append(f"--spurious-wakeups: visible states: full {len(sa)}, reduced {len(sb)}; "
                        f"{len(sa - sb)} only in full, {len(sb - sa)} only in reduced")
    nonvis = sum(n for k, n in error_counts(ra).items() if k != "deadlock")
    if ra["stats"]["states_stored"] != len(sb) + nonvis:
        problems.append(f"--spurious-wakeups: reduced: {ra['stats']['states_stored']} states "
                        f"stored, but {len(sb)} dumped and {nonvis} error states")
    return problems


def por_states(path):
    """(every state, the deadlocked ones) of a --dump-states file, as sets
    of hex strings."""
    states, dead = set(), set()
    for line in read_states(path):
        hexs, _, tag = line.partition(" ")
        states.add(hexs)
        if tag == "deadlock":
            dead.add(hexs)
    return states, dead


def thread_blocks(mcheck, model):
    """[(thread id, first hex digit, last, static)] of each thread's part of
    the state vector (pc, status, registers), from `mcheck --dump`'s layout."""
    p = subprocess.run([mcheck, "--dump", model], capture_output=True, text=True, timeout=60)
    return [(int(m.group(3)), 2 * int(m.group(1)), 2 * (int(m.group(1)) + int(m.group(2))),
             m.group(4) != "spawn slot")
            for m in re.finditer(r"^\s+(\d+)\s+(\d+)\s+thread (\d+): (\w+(?: slot)?)",
                                 p.stdout, re.M)]


def local_states(states, blocks):
    """The set of (thread, its part of the vector) over `states`."""
    return {(t, x[a:b]) for x in states for t, a, b, _ in blocks}


def check_por(res, full_dump, dumps, label="", full="full-all", compose=("reduced-all",
                                                                       "reduced-bfs"),
              blocks=None):
    """--por (`dumps`: run name -> its --dump-states file, --all-errors)
    against the full search `full`: the same error kinds and deadlocked
    states, stored states among the full search's visible ones and no more
    of them than composition's (runs `compose`, same options)."""
    problems = []
    fa = res[full]
    kf = kinds_of(fa)
    fs, fd = por_states(full_dump)
    for name, dump in dumps.items():
        js = res[name]
        if kinds_of(js) != kf:
            problems.append(f"{label}{name}: error kinds {kinds_of(js) or ['none']}, the full "
                            f"search {kf or ['none']}")
        ps, pd = por_states(dump)
        if pd != fd:
            problems.append(f"{label}{name}: {len(pd)} deadlocked states, the full search "
                            f"{len(fd)}; {len(fd - pd)} missed"
                            + (f", e.g. {sorted(fd - pd)[0]}" if fd - pd else "")
                            + (f"; {len(pd - fd)} not the full search's, e.g. "
                               f"{sorted(pd - fd)[0]}" if pd - fd else ""))
        if not ps <= fs or not ps:
            problems.append(f"{label}{name}: {len(ps - fs)} of {len(ps)} stored states are "
                            f"not visible states of the full search"
                            + (f", e.g. {sorted(ps - fs)[0]}" if ps - fs else ""))
        if blocks:
            # every thread's local state (pc, status, registers) in some
            # visible state of the full search is one in some state --por
            # stores (Godefroid, Theorem 6.14: an explored path holds every
            # thread's steps of any path, in order, reading the same values);
            # a thread standing at pc 0 aside, its start (--por runs a static
            # thread's invisible prefix at the initial state, a spawned one's
            # in the spawn step: status running, pc 0 is "010000")
            lost = {(t, x) for t, x in local_states(fs, blocks) - local_states(ps, blocks)
                    if not x.startswith("010000")}
            if lost:
                t, x = sorted(lost)[0]
                problems.append(f"{label}{name}: {len(lost)} local states of threads that the "
                                f"full search reaches are in no stored state, e.g. thread {t}: {x}")
        st = js["stats"]["states_stored"]
        nonvis = sum(n for k, n in error_counts(js).items() if k != "deadlock")
        if st != len(ps) + nonvis:
            problems.append(f"{label}{name}: {st} states stored, but {len(ps)} dumped and "
                            f"{nonvis} error states")
        for c in compose:
            cs = res[c]["stats"]["states_stored"]
            if st > cs:
                problems.append(f"{label}{name}: {st} states stored, more than "
                                f"--reduce=compose's {cs} ({c})")
    return problems


def waiters_opt(opts, seed):
    """['--waiters'] on every --waiters-every-th seed, else []."""
    return ["--waiters"] if opts.waiters_every > 0 and seed % opts.waiters_every == 0 else []


def atomic_opt(opts, seed):
    """['--atomic'] on every --atomic-every-th seed, else []."""
    return ["--atomic"] if opts.atomic_every > 0 and seed % opts.atomic_every == 0 else []


def conds_opt(opts, seed):
    """['--conds'] on every --conds-every-th seed (offset: seeds 3, 8, 13, ...
    for K = 5, none of them --waiters'), else []."""
    k = opts.conds_every
    return ["--conds"] if k > 0 and (seed + 2) % k == 0 else []


def rendezvous_opt(opts, seed):
    """['--rendezvous'] on every --rendezvous-every-th seed (offset: seeds 2,
    7, 12, ... for K = 5, none of them --waiters' or --conds'), else []."""
    k = opts.rendezvous_every
    return ["--rendezvous"] if k > 0 and (seed + 3) % k == 0 else []


def gen_opts(opts, seed):
    """The generator's options for a seed."""
    return (spawns_opt(opts, seed) + waiters_opt(opts, seed) + atomic_opt(opts, seed)
            + calls_opt(opts, seed) + conds_opt(opts, seed) + rendezvous_opt(opts, seed))


def check_seed(opts, seed):
    """Returns (status, [problem lines], model text, info) with status in
    pass / fail / skip."""
    problems = []
    gen = subprocess.run([opts.gen_model, str(seed), "--size", opts.size] + gen_opts(opts, seed),
                         capture_output=True, text=True)
    text = gen.stdout
    if gen.returncode != 0 or not text:
        return "fail", [f"gen_model exited {gen.returncode}: {gen.stderr.strip()}"], text, ""
    with tempfile.TemporaryDirectory(prefix="mcheck-diff-") as d:
        model = os.path.join(d, f"seed{seed}.bc")
        with open(model, "w") as f:
            f.write(text)
        full_dump, red_dump = os.path.join(d, "full.states"), os.path.join(d, "reduced.states")
        bfs_dump = os.path.join(d, "bfs.states")
        por_dump, porbfs_dump = os.path.join(d, "por.states"), os.path.join(d, "porbfs.states")
        pns_dump = os.path.join(d, "porns.states")
        # the reduction itself is compared without a detector (its metadata
        # would make one visible state several stored ones); the default
        # detector (LD') is run too, and must find nothing
        runs = {
            "full-all": ["--reduce=none", "--race=off", "--all-errors", "--dump-states", full_dump],
            "reduced-all": ["--reduce=compose", "--race=off", "--all-errors",
                            "--dump-states", red_dump],
            "reduced-bfs": ["--reduce=compose", "--race=off", "--all-errors", "--search=bfs",
                            "--dump-states", bfs_dump],
            "full": ["--reduce=none", "--race=off"],
            "reduced": ["--reduce=compose", "--race=off"],
            "reduced-bfs-first": ["--reduce=compose", "--race=off", "--search=bfs"],
            "full-ld": ["--reduce=none", "--all-errors"],
            "reduced-ld": ["--reduce=compose", "--all-errors"],
            # --por, depth-first and breadth-first, against the full search
            "por-all": ["--reduce=compose", "--por", "--race=off", "--all-errors",
                        "--dump-states", por_dump],
            "por-bfs": ["--reduce=compose", "--por", "--race=off", "--all-errors",
                        "--search=bfs", "--dump-states", porbfs_dump],
            "por-nosleep": ["--reduce=compose", "--por", "--race=off", "--all-errors",
                            "--sleep-sets=off", "--dump-states", pns_dump],
            "por-first": ["--reduce=compose", "--por", "--race=off"],
            "por-ld": ["--reduce=compose", "--por", "--all-errors"],
        }
        # the compact store with each lookahead and without, and its cache
        # of recent lookups
        for mode in ("none", "compose"):
            for first in (False, True):
                for la in ("child", "sibling", "on", "off"):
                    runs[f"compact-{mode}-{'first' if first else 'all'}-{la}"] = (
                        [f"--reduce={mode}", "--race=off", "--store=compact", f"--lookahead={la}"]
                        + ([] if first else ["--all-errors"]))
        # the default DFS (--por) building each level's next step ahead from
        # the first state on (MCHECK_AHEAD_STORE_BYTES=0; by default from a
        # 4 MB store) against --lookahead=off
        for first in (False, True):
            for la in ("ahead", "off"):
                runs[f"por-{'first' if first else 'all'}-{la}"] = (
                    ["--reduce=compose", "--por", "--race=off", "--store=compact"]
                    + ([] if la == "ahead" else ["--lookahead=off"])
                    + ([] if first else ["--all-errors"]))
        # BFS in batches (the default) against the plain loop (--lookahead=off)
        for mode, first in (("none", False), ("none", True), ("compose", False)):
            for la in ("auto", "off"):
                runs[f"bfs-{mode}-{'first' if first else 'all'}-{la}"] = (
                    [f"--reduce={mode}", "--race=off", "--search=bfs", f"--lookahead={la}"]
                    + ([] if first else ["--all-errors"]))
        # --spurious-wakeups (a waiting thread may re-acquire without a
        # notify) on a share of the models that wait: the same comparisons
        spurious = (opts.spurious_every > 0 and seed % opts.spurious_every == 0
                    and re.search(r"^\s*(\w+:\s*)?c?wait\s", text, re.M) is not None)
        if spurious:
            sp_full, sp_red = os.path.join(d, "spf.states"), os.path.join(d, "spr.states")
            runs["sp-full-all"] = ["--reduce=none", "--race=off", "--all-errors",
                                   "--spurious-wakeups", "--dump-states", sp_full]
            runs["sp-reduced-all"] = ["--reduce=compose", "--race=off", "--all-errors",
                                      "--spurious-wakeups", "--dump-states", sp_red]
            runs["sp-full"] = ["--reduce=none", "--race=off", "--spurious-wakeups"]
            runs["sp-reduced"] = ["--reduce=compose", "--race=off", "--spurious-wakeups"]
            sp_por = os.path.join(d, "spp.states")
            runs["sp-por-all"] = ["--reduce=compose", "--por", "--race=off", "--all-errors",
                                  "--spurious-wakeups", "--dump-states", sp_por]
        res = {}
        for name, args in runs.items():
            env = {"MCHECK_AHEAD_STORE_BYTES": "0"} if name.endswith("-ahead") else None
            code, js, err = mcheck_json(opts.mcheck, args, model, env)
            if code == 2 or js is None:
                problems.append(f"mcheck {' '.join(args[:2])} exited {code} without a report "
                                f"(a generator bug if the model does not assemble): "
                                f"{err.strip()[:300]}")
                return "fail", problems, text, ""
            if js["stop"] in ("time_limit", "memory_limit", "out_of_memory"):
                return "skip", [], text, f"{name}: {js['stop']} after {js['stats']['states_stored']} states"
            if js["stop"] == "error" and "--all-errors" in args:
                # --all-errors searches past every error: stopping at one is
                # a bug (an "error cap" skip once hid --all-errors ignored)
                problems.append(f"{name}: --all-errors search stopped at an error "
                                f"({len(js['errors'])} errors)")
                return "fail", problems, text, ""
            if js["verdict"] in ("lock_discipline", "race"):
                problems.append(f"generator bug: {name} reports {js['verdict']}: "
                                f"{js['error']['message'] if js.get('error') else ''}")
            want = 0 if js["verdict"] == "ok" else 1
            if code != want or js["stop"] not in ("complete", "error"):
                problems.append(f"{name}: exit status {code}, verdict {js['verdict']}, "
                                f"stop {js['stop']}")
            if "--all-errors" in args and js["stop"] != "complete":
                problems.append(f"{name}: --all-errors search stopped: {js['stop']}")
            res[name] = js
        fa, ra = res["full-all"], res["reduced-all"]
        for name in ("full-ld", "reduced-ld"):
            if kinds_of(res[name]) != kinds_of(fa):
                problems.append(f"{name}: error kinds {kinds_of(res[name])}, without the "
                                f"detector {kinds_of(fa)}")

        # reachable error kinds
        kf, kr = kinds_of(fa), kinds_of(ra)
        if kf != kr:
            problems.append(f"error kinds reachable: full {kf or ['none']}, reduced {kr or ['none']}")
        # first-error verdicts
        vf, vr = res["full"]["verdict"], res["reduced"]["verdict"]
        if (vf == "ok") != (vr == "ok"):
            problems.append(f"verdict: full {vf}, reduced {vr}")
        if len(kf) == 1 and len(kr) == 1 and kf == kr and vf != vr:
            problems.append(f"verdict: full {vf}, reduced {vr} (only {kf[0]} is reachable)")
        for name, v, ks in (("full", vf, kf), ("reduced", vr, kr)):
            if v != "ok" and v not in ks:
                problems.append(f"{name}: first-error verdict {v} not among the kinds the "
                                f"--all-errors search finds {ks}")
            if v == "ok" and ks:
                problems.append(f"{name}: verdict ok, but --all-errors finds {ks}")

        if spurious:
            problems += check_spurious(res, sp_full, sp_red)
            problems += check_por(res, sp_full, {"sp-por-all": sp_por}, "--spurious-wakeups: ",
                                  full="sp-full-all", compose=("sp-reduced-all",))

        # --por against the full search
        blocks = thread_blocks(opts.mcheck, model)
        problems += check_por(res, full_dump, {"por-all": por_dump, "por-bfs": porbfs_dump,
                                               "por-nosleep": pns_dump}, blocks=blocks)
        vp = res["por-first"]["verdict"]
        if (vp == "ok") != (not kf) or (vp != "ok" and vp not in kf):
            problems.append(f"por-first: first-error verdict {vp}; the full search finds "
                            f"{kf or ['ok']}")
        if kinds_of(res["por-ld"]) != kinds_of(res["reduced-ld"]):
            problems.append(f"por-ld: error kinds {kinds_of(res['por-ld']) or ['none']}, "
                            f"--reduce=compose {kinds_of(res['reduced-ld']) or ['none']}")

        # visible states
        a, b = read_states(full_dump), read_states(red_dump)
        sa, sb = set(a), set(b)
        if len(sb) != len(b):
            problems.append(f"reduced: {len(b) - len(sb)} states dumped twice")
        if len(sa) != len(a):
            problems.append(f"full: {len(a) - len(sa)} visible states dumped twice")
        if sa != sb or not sa:
            only_f, only_r = sorted(sa - sb), sorted(sb - sa)
            problems.append(f"visible states: full {len(sa)}, reduced {len(sb)}; "
                            f"{len(only_f)} only in full, {len(only_r)} only in reduced"
                            + (f"; e.g. only in full {only_f[0]}" if only_f else "")
                            + (f"; e.g. only in reduced {only_r[0]}" if only_r else ""))
        # breadth-first finds what depth-first finds
        c = set(read_states(bfs_dump))
        rb = res["reduced-bfs"]
        if c != sb or kinds_of(rb) != kr or rb["stats"]["states_stored"] != ra["stats"]["states_stored"]:
            problems.append(f"reduced --search=bfs: {rb['stats']['states_stored']} states "
                            f"({len(c)} visible), kinds {kinds_of(rb)}; dfs: "
                            f"{ra['stats']['states_stored']} ({len(sb)}), kinds {kr}")
        # the reduced search stores its visible states and error states only
        nonvis_errors = sum(n for k, n in error_counts(ra).items() if k != "deadlock")
        if ra["stats"]["states_stored"] != len(sb) + nonvis_errors:
            problems.append(f"reduced: {ra['stats']['states_stored']} states stored, but "
                            f"{len(sb)} dumped and {nonvis_errors} error states")

        # the lookahead changes nothing but time and memory: the
        # same counts, verdicts and traces; and the compact store counts as
        # the exact one (a fingerprint collision among these few states is
        # too unlikely to be the reason)
        for mode, exact in (("none", fa), ("compose", ra)):
            for first in ("all", "first"):
                off = res.get(f"compact-{mode}-{first}-off")
                for la in ("child", "sibling", "on"):
                    on = res.get(f"compact-{mode}-{first}-{la}")
                    if on is None or off is None:
                        continue
                    diff = report_diff(on, off)
                    if diff:
                        problems.append(f"--reduce={mode} ({first} errors): --lookahead={la} "
                                        f"and off differ in {diff}")
                on = res.get(f"compact-{mode}-{first}-child")
                if first == "all" and on is not None:
                    a, b = on["stats"], exact["stats"]
                    if (a["states_stored"], a["transitions"]) != (b["states_stored"], b["transitions"]):
                        problems.append(f"--reduce={mode}: compact store {a['states_stored']} "
                                        f"states, {a['transitions']} transitions; exact "
                                        f"{b['states_stored']}, {b['transitions']}")
        for first in ("all", "first"):
            on, off = res.get(f"por-{first}-ahead"), res.get(f"por-{first}-off")
            diff = report_diff(on, off) if on is not None and off is not None else []
            if diff:
                problems.append(f"--por ({first} errors): steps built ahead and --lookahead=off "
                                f"differ in {diff}")
        for key in ("none-all", "none-first", "compose-all"):
            on, off = res.get(f"bfs-{key}-auto"), res.get(f"bfs-{key}-off")
            diff = report_diff(on, off) if on is not None and off is not None else []
            if diff:
                problems.append(f"--search=bfs ({key}): batches and --lookahead=off differ in {diff}")
        # the reference enumerator
        info = f"full {fa['stats']['states_stored']} states, reduced {ra['stats']['states_stored']}"
        if opts.ref and fa["stats"]["states_stored"] <= opts.ref_max_states:
            problems += refcheck_agrees(opts.refcheck, model, "refcheck", (fa, ra), hint=True)
            # with LD' (its metadata canonicalized alike): the same counts,
            # and the generator's promise that LD' holds (the kinds of the
            # search without LD': a generator bug if LD' is violated)
            problems += refcheck_agrees(opts.refcheck, model, "refcheck --ld",
                                        (res["full-ld"], res["reduced-ld"]), ld=True,
                                        kinds_of_search=(fa, fa))
            info += ", refcheck"
            if spurious:
                problems += refcheck_agrees(opts.refcheck, model, "refcheck --spurious-wakeups",
                                            (res["sp-full-all"], res["sp-reduced-all"]),
                                            extra=["--spurious-wakeups"])
                info += ", spurious refcheck"
            # breadth-first counterexamples are shortest (refcheck's BFS
            # over its own successor function gives the lengths)
            if kinds_of(fa):
                for red, first, alls in ((False, ("bfs-none-first-auto", "bfs-none-first-off"),
                                          ("bfs-none-all-auto", "bfs-none-all-off")),
                                         (True, ("reduced-bfs-first",), ("reduced-bfs",))):
                    depths = error_depths(text, red)
                    for name in first + alls:
                        for p in check_bfs_report(res[name], depths, name in first):
                            problems.append(f"{name}: {p}")
                info += ", shortest"
        if spurious:
            info += ", spurious"
        if spawns_opt(opts, seed):
            info += ", spawns"
        if waiters_opt(opts, seed):
            info += ", waiters"
        if atomic_opt(opts, seed):
            info += ", atomic"
        if calls_opt(opts, seed):
            info += ", calls"
        if rendezvous_opt(opts, seed):
            info += ", rendezvous"
        return ("fail" if problems else "pass"), problems, text, info


def main():
    ap = seed_parser(__doc__)
    ap.add_argument("--ref-max-states", type=int, default=4000,
                    help="run refcheck.py on models whose full search stores at most this "
                         "many states (default 4000)")
    ap.add_argument("--spurious-every", type=int, default=3, metavar="K",
                    help="on every K-th seed whose model waits, also search with "
                         "--spurious-wakeups (default 3; 0: never)")
    add_spawns_every(ap)
    ap.add_argument("--conds-every", type=int, default=5, metavar="K",
                    help="every K-th seed's model (offset by 3) has pthread conds (gen_model "
                         "--conds; default 5; 0: never)")
    ap.add_argument("--waiters-every", type=int, default=5, metavar="K",
                    help="every K-th seed's model is monitor-heavy (gen_model --waiters; "
                         "default 5; 0: never)")
    ap.add_argument("--atomic-every", type=int, default=3, metavar="K",
                    help="every K-th seed's model has atomic blocks and assume (gen_model "
                         "--atomic; default 3; 0: never)")
    add_calls_every(ap)
    ap.add_argument("--rendezvous-every", type=int, default=5, metavar="K",
                    help="every K-th seed's model (offset by 2) has rendezvous channels "
                         "(gen_model --rendezvous; default 5; 0: never)")
    opts = parse_seed_args(ap)

    seeds = range(opts.seed, opts.seed + opts.count)
    passed = failed = skipped = refs = spur = spawned = waiting = atomics = calling = 0
    conding = rendezvousing = 0
    cover = collections.Counter()
    if not need_refcheck(opts):
        return 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
        futs = [ex.submit(check_seed, opts, s) for s in seeds]
        for seed, fut in zip(seeds, futs):
            try:
                status, problems, text, info = fut.result()
            except subprocess.TimeoutExpired as e:
                status, problems, text, info = "fail", [f"timeout: {e.cmd}"], "", ""
            cover.update(constructs(text))
            if "refcheck" in info:
                refs += 1
            if "spurious" in info:
                spur += 1
            if spawns_opt(opts, seed):
                spawned += 1
            if waiters_opt(opts, seed):
                waiting += 1
            if atomic_opt(opts, seed):
                atomics += 1
            if calls_opt(opts, seed):
                calling += 1
            if conds_opt(opts, seed):
                conding += 1
            if rendezvous_opt(opts, seed):
                rendezvousing += 1
            if status == "skip":
                skipped += 1
                print(f"skip seed {seed}: {info}", flush=True)
                continue
            if opts.verbose:
                print(f"seed {seed}: {status} ({info})", flush=True)
            if status == "pass":
                passed += 1
                continue
            failed += 1
            repro = (f"{opts.gen_model} {seed} --size {opts.size}"
                     f"{''.join(' ' + a for a in gen_opts(opts, seed))}"
                     f" > seed{seed}.bc && "
                     f"{opts.mcheck} --store=exact --all-errors --reduce=none seed{seed}.bc && "
                     f"{opts.mcheck} --store=exact --all-errors --por=off seed{seed}.bc && "
                     f"{opts.mcheck} --store=exact --all-errors --por --race=off seed{seed}.bc")
            for p in problems:
                print(f"FAIL seed {seed}: {p}", flush=True)
            print(f"  reproduce: {repro}")
            show_model(text, seed, opts.keep)
    print(f"({skipped} models skipped: a search hit the time limit; refcheck ran on {refs}; "
          f"{spur} searched with --spurious-wakeups too; {spawned} spawn-heavy (--spawns); "
          f"{waiting} monitor-heavy (--waiters); {atomics} with atomic blocks (--atomic); "
          f"{calling} with subroutines (--calls); {conding} with conds (--conds); "
          f"{rendezvousing} with rendezvous channels (--rendezvous))")
    for every, seen, what in ((opts.spurious_every, spur, "was searched with --spurious-wakeups"),
                              (opts.spawns_every, spawned, "was spawn-heavy (gen_model --spawns)"),
                              (opts.waiters_every, waiting,
                               "was monitor-heavy (gen_model --waiters)"),
                              (opts.atomic_every, atomics, "had atomic blocks (gen_model --atomic)"),
                              (opts.calls_every, calling, "had subroutines (gen_model --calls)"),
                              (opts.conds_every, conding, "had conds (gen_model --conds)"),
                              (opts.rendezvous_every, rendezvousing,
                               "had rendezvous channels (gen_model --rendezvous)")):
        if opts.count >= 200 and every > 0 and not seen:
            print(f"FAIL no model {what}")
            failed += 1
    many = too_many_skips(skipped, opts.count, opts.max_skip_percent)
    if many:
        print(many)
        failed += 1
    gaps = coverage_report(cover, opts.count, f"gen_model --size {opts.size}",
                           (ATOMIC_COVERAGE if opts.atomic_every > 0 else [])
                           + (COVERAGE_CONDS if opts.conds_every > 0 else [])
                           + (COVERAGE_RENDEZVOUS if opts.rendezvous_every > 0 else []))
    if gaps:
        print(f"FAIL the generator never wrote {', '.join(gaps)} in {opts.count} seeds")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
