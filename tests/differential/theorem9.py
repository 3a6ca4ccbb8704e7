#!/usr/bin/env python3
"""Differential test of Stoller's Theorem 9 on random models that BREAK the
locking discipline: if the full interleaving search (`--reduce=none`) reaches
a violation of LD', the reduced search (`--reduce=compose`, composed
transitions) reports a violation too, maybe a different one.

For each seed, `gen_model SEED --undisciplined` writes a random model that
now and then accesses a `shared` variable without its lock or under another
lock, takes a lock on one branch only, writes a read-only variable or an
`init T` variable after its init phase, lets another thread reach an `init T`
variable first, or touches an `unshared` variable from a second body (many
models still obey LD', and many violations are reachable in some
interleavings only). mcheck runs with `--race=ld --all-errors --store=exact`,
full and reduced, depth-first and breadth-first. A *violation* is an error of
kind `lock_discipline`, or the runtime error "unshared variable touched by
two threads" (Stoller's O_unsh discipline; the generated models have no
other runtime errors, which is checked; in saved models it is told apart by
the messages of the errors listed). Checks:

  * Theorem 9: a violation in the full search implies one in the reduced
    search (depth-first and breadth-first); a `lock_discipline` error in the
    full search implies one in the reduced search, unless the reduced search
    reports the unshared violation instead (counted, not a failure).
    (An assertion that failed in the invisible tail of a composed step used
    to end the path before other threads could move to a violation:
    tests/differential/theorem9_cases/assert_hides_violation.bc. Now an instruction that
    errs is a scheduling point of its own.)
  * the same for --por (persistent sets over composed steps, depth-first
    and breadth-first; Stoller, Theorem 10): a violation in the full search
    implies one in the --por search; every error kind --por finds, the full
    search finds, and its unshared violations too; with no violation in
    either, the same error kinds and the same deadlocked states (the lines
    `--dump-states` ends with " deadlock") as the full search, and every
    state --por stores is one the full search dumps;
  * the same for Goldilocks (`--race=goldilocks`): the full search finds a
    race iff the reduced search does (a race-free prefix commutes like a
    disciplined one: Elmas & Qadeer, section 5);
  * soundness of the other direction: every reduced path is a full path, so
    every kind of error the reduced search finds, the full search finds (a
    reduced violation is a real one);
  * unshared variables under every --race mode (every third seed whose
    model declares one, --race-modes-every, and each such saved case): the
    full search with `--race=off` finds every unshared violation `--race=ld`
    finds, and a search whose detector reports nothing of its own (ld full
    and reduced, goldilocks and eraser full) finds the same error kinds and
    unshared verdict as `--race=off` in its mode;
  * the first-error search (the default, no --all-errors) agrees: its
    verdict is ok iff the --all-errors search finds nothing, else one of
    the kinds that search finds;
  * when neither search reports a violation, the discipline held on every
    path, so Theorems 4 and 5 apply as in tests/differential/differential.py: the same
    error kinds; the visible states of the full search (every thread at a
    visible control point; `--dump-states` writes the vm part of each stored
    state, so states that differ only in detector metadata repeat, and the
    comparison is of multisets) are the states the reduced search stores;
    the reduced search stores those and its error states only;
  * depth-first and breadth-first searches of one mode (the full one on
    every third seed) store as many states, make as many transitions, find
    the same error counts and dump the same visible states;
  * on every fourth seed (--compact-every) and each saved case, both
    searches again with the compact store (the default; theorem9 otherwise
    runs the exact one): the same counts, errors and visible states;
  * tests/ref/refcheck.py --ld (an independent enumerator with its own LD'
    check) on the small models: in each mode the same error kinds, so the
    same violation verdict, and the same numbers of states and transitions
    (both keep the LD' metadata in the state, canonicalized alike; a
    violating access leaves it unchanged, as a fault leaves the state:
    tests/differential/theorem9_cases/error_state_metadata.bc was the regression).


Every fourth seed (--spawns-every) is spawn-heavy (`gen_model --undisciplined
--spawns`: two static threads each spawn a proc of their own and test the
ids the spawns returned; thread ids come from one counter, so a violation
may need one spawn order), through the same checks.

Models saved in tests/differential/theorem9_cases/ (`--cases DIR`) run the same checks
(the por_*.bc ones are small disciplined models, each pinning one part of
--por's closure or provisos that the random models seldom exercise: enablers
of a blocked thread, a spawner's future, the error and cycle provisos; each
catches one of tests/mutate.py's por-* mutants);
skipping one of them fails. A seed is skipped only when a search hits the
time limit (or an unshared violation cannot be decided), and more than
--max-skip-percent (3%) skipped seeds fail the test; an --all-errors search
that stops at an error fails; a missing reference checker fails (--no-ref
runs without it on purpose).

usage: theorem9.py MCHECK GEN_MODEL [--count N] [--seed S] [--size small|medium]
                   [--jobs J] [--ref-max-states N] [--ref-every K] [--no-ref]
                   [--full-bfs-every K] [--compact-every K] [--spawns-every K]
                   [--refcheck PATH] [--cases DIR]
                   [--keep DIR] [--verbose] [--max-skip-percent P]
Prints one FAIL line per failing model with its problems, the seed, a
reproduction command and the model; a summary of what the models did; and
"N passed, N failed" (one check per model). Exit status 1 on any failure.
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
from checks import (COVERAGE_UNDISC, SANITIZER, check, constructs, coverage_report, finish,  # noqa: E402
                    need_refcheck, parse_seed_args, seed_parser, show_model, too_many_skips)
from mcheck_test import add_calls_every, add_spawns_every, calls_opt, spawns_opt  # noqa: E402

CASES = os.path.join(HERE, "theorem9_cases")
TIMELIMIT = 60  # seconds per mcheck run; a model this big is skipped, not failed
COMMON = ["--race=ld", "--json", "--quiet", "--store=exact"]
UNSHARED = "unshared variable"


class Skip(Exception):
    pass


def mcheck_json(mcheck, args, model, problems, name):
    """Run mcheck; returns its JSON report (or raises Skip when the search
    was cut short by a limit). Problems go to `problems`. A run that names
    no --por option is composition alone (--por=off, whose counts refcheck
    gives), or --reduce=none: the default search is --por."""
    if not any(a.startswith("--por") for a in args):
        args = ["--por=off"] + args
    cmd = [mcheck] + COMMON + ["--timelimit", str(TIMELIMIT)] + args + [model]
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                       timeout=TIMELIMIT * 3)
    if SANITIZER.search(p.stderr):
        problems.append(f"{name}: sanitizer report:\n{p.stderr[-3000:]}")
    try:
        js = json.loads(p.stdout)
    except json.JSONDecodeError:
        js = None
    if p.returncode == 2 or js is None:
        how = (f"was killed by signal {-p.returncode}" if p.returncode < 0 else
               f"exited {p.returncode}")
        problems.append(f"{name}: mcheck {how} without a report (a generator bug if the model "
                        f"does not assemble): {p.stderr.strip()[-300:]}")
        return None
    if js["stop"] in ("time_limit", "memory_limit", "out_of_memory"):
        raise Skip(f"{name}: {js['stop']} after {js['stats']['states_stored']} states")
    if js["stop"] == "error" and "--all-errors" in args:
        # --all-errors searches past every error: stopping at one is a bug
        # (an "error cap" skip once hid --all-errors ignored)
        problems.append(f"{name}: --all-errors search stopped at an error "
                        f"({len(js['errors'])} errors)")
        return None
    want = 0 if js["verdict"] == "ok" else 1
    if p.returncode != want or js["stop"] not in ("complete", "error"):
        problems.append(f"{name}: exit status {p.returncode}, verdict {js['verdict']}, "
                        f"stop {js['stop']}")
    if "--all-errors" in args and js["stop"] != "complete":
        problems.append(f"{name}: --all-errors search stopped: {js['stop']}")
    return js


def error_counts(js):
    return {k: n for k, n in js["error_counts"].items() if n}


def kinds_of(js):
    return sorted(error_counts(js))


def violation_of(js, has_unshared=True, generated=False):
    """(lock_discipline found, unshared violation found) of an --all-errors
    report. The models of gen_model --undisciplined have no other runtime
    errors (`generated`: every runtime_error is an unshared violation); for
    other models the second is None when undecidable (more runtime errors
    than the report lists, none of those listed an unshared one)."""
    counts = error_counts(js)
    ld = counts.get("lock_discipline", 0) > 0
    if not has_unshared:
        return ld, False
    if generated:
        return ld, counts.get("runtime_error", 0) > 0
    rts = [e for e in js["errors"] if e["kind"] == "runtime_error"]
    if any(UNSHARED in e["message"] for e in rts):
        return ld, True
    if len(rts) == counts.get("runtime_error", 0):
        return ld, False
    return ld, None


def read_states(path):
    with open(path) as f:
        return collections.Counter(line.strip() for line in f if line.strip())


def run_refcheck(refcheck, model):
    p = subprocess.run([sys.executable, refcheck, "--ld", "--mode=both", model],
                       capture_output=True, text=True, timeout=900)
    res, msgs, mode = {}, {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"mode=(\w+) states=(\d+) transitions=(\d+) verdict=(\S+)", line)
        if m:
            mode = m.group(1)
            kinds = sorted(k for k in m.group(4).split(",") if k != "ok")
            res[mode] = (int(m.group(2)), int(m.group(3)), kinds)
            msgs[mode] = []
        elif mode and line.startswith("  "):
            msgs[mode].append(line.strip())
    return p.returncode, res, msgs, p.stderr.strip()


def check_model(opts, model, tag, stats):
    """Returns (status, [problems], info) with status pass / fail / skip."""
    problems = []
    d = os.path.dirname(model)
    full_dump, red_dump = os.path.join(d, "full.states"), os.path.join(d, "red.states")
    rbfs_dump, fbfs_dump = os.path.join(d, "rbfs.states"), os.path.join(d, "fbfs.states")
    por_dump, porbfs_dump = os.path.join(d, "por.states"), os.path.join(d, "porbfs.states")
    runs = {
        "full": ["--reduce=none", "--all-errors", "--dump-states", full_dump],
        "reduced": ["--reduce=compose", "--all-errors", "--dump-states", red_dump],
        "reduced-bfs": ["--reduce=compose", "--all-errors", "--search=bfs",
                        "--dump-states", rbfs_dump],
        "reduced-first": ["--reduce=compose"],
        # --por, depth-first and breadth-first (Theorem 10)
        "por": ["--reduce=compose", "--por", "--all-errors", "--dump-states", por_dump],
        "por-bfs": ["--reduce=compose", "--por", "--all-errors", "--search=bfs",
                    "--dump-states", porbfs_dump],
        # the same question for Goldilocks (docs/usage.md, "Detectors"): a
        # race in the full search implies one in the reduced search
        "gold-full": ["--reduce=none", "--all-errors", "--race=goldilocks"],
        "gold-reduced": ["--reduce=compose", "--all-errors", "--race=goldilocks"],
    }
    # a slice with the compact store (hash compaction, the default store):
    # the same counts, errors and visible states as the exact store
    compact = opts.compact_every > 0 and (tag is None or tag % opts.compact_every == 0)
    if compact:
        runs["full-compact"] = ["--reduce=none", "--all-errors", "--store=compact"]
        runs["reduced-compact"] = ["--reduce=compose", "--all-errors", "--store=compact",
                                   "--dump-states", os.path.join(d, "rc.states")]
    with open(model) as f:
        has_unshared = re.search(r"^\s*unshared\b", f.read(), re.M) is not None
    race_modes = has_unshared and opts.race_modes_every > 0 and (
        tag is None or tag % opts.race_modes_every == 0)
    if race_modes:
        # unshared variables are checked in every detector mode, --race=off
        # included (LANGUAGE.md): the other modes against LD' below
        runs["off-full"] = ["--reduce=none", "--all-errors", "--race=off"]
        runs["off-reduced"] = ["--reduce=compose", "--all-errors", "--race=off"]
        runs["eraser-full"] = ["--reduce=none", "--all-errors", "--race=eraser"]
    full_bfs = opts.full_bfs_every > 0 and (tag is None or tag % opts.full_bfs_every == 0)
    if full_bfs:
        runs["full-bfs"] = ["--reduce=none", "--all-errors", "--search=bfs",
                            "--dump-states", fbfs_dump]
    res = {}
    try:
        for name, args in runs.items():
            js = mcheck_json(opts.mcheck, args, model, problems, name)
            if js is None:
                return "fail", problems, ""
            res[name] = js
    except Skip as e:
        return "skip", [], str(e)
    fa, ra = res["full"], res["reduced"]
    kf, kr = kinds_of(fa), kinds_of(ra)

    generated = tag is not None

    def violation(js):
        return violation_of(js, has_unshared, generated)
    if generated:  # the generator's promise: no runtime errors but unshared violations
        for name, js in res.items():
            other = [e["message"] for e in js["errors"]
                     if e["kind"] == "runtime_error" and UNSHARED not in e["message"]]
            if other or (error_counts(js).get("runtime_error") and not has_unshared):
                problems.append(f"generator bug: {name} finds a runtime error other than an "
                                f"unshared violation: {other[:1]}")
    ldf, unf = violation(fa)
    info = (f"full {fa['stats']['states_stored']} states {kf or ['ok']}, "
            f"reduced {ra['stats']['states_stored']} {kr or ['ok']}")
    if unf is None:
        return "skip", [], f"undecidable unshared violation (full): {info}"

    # Theorem 9, for the depth-first and the breadth-first reduced search
    for name in ("reduced", "reduced-bfs"):
        ldr, unr = violation(res[name])
        if (ldf or unf) and not (ldr or unr):
            if unr is None:
                return "skip", [], f"undecidable unshared violation ({name}): {info}"
            what = (f"THEOREM 9: the full search finds a violation (lock_discipline {ldf}, "
                    f"unshared {unf}), {name} finds none; {name} kinds "
                    f"{kinds_of(res[name]) or ['ok']}")
            problems.append(what)
        elif ldf and not ldr and name == "reduced":
            stats["ld only as unshared"] += 1
    # Theorem 10: --por keeps a violation; and every --por path is a full
    # path; with no violation anywhere, Theorems 4, 5 and 10: the same error
    # kinds and deadlocked states, and only the full search's visible states
    full_states = set(read_states(full_dump))
    full_dead = {x for x in full_states if x.endswith(" deadlock")}
    full_vis = {x.split()[0] for x in full_states}
    for name, dump in (("por", por_dump), ("por-bfs", porbfs_dump)):
        ldp, unp = violation(res[name])
        if unp is None:
            return "skip", [], f"undecidable unshared violation ({name}): {info}"
        if (ldf or unf) and not (ldp or unp):
            problems.append(f"THEOREM 10: the full search finds a violation (lock_discipline "
                            f"{ldf}, unshared {unf}), {name} finds none; {name} kinds "
                            f"{kinds_of(res[name]) or ['ok']}")
        if not (ldf or unf or ldp or unp):
            pst = set(read_states(dump))
            pdead = {x for x in pst if x.endswith(" deadlock")}
            if kinds_of(res[name]) != kf:
                problems.append(f"{name}: no violation, but error kinds "
                                f"{kinds_of(res[name]) or ['ok']}; full {kf or ['ok']}")
            if pdead != full_dead:
                problems.append(f"{name}: no violation, but {len(pdead)} deadlocked states; "
                                f"full {len(full_dead)}; {len(full_dead - pdead)} missed")
            extra = {x.split()[0] for x in pst} - full_vis
            if extra:
                problems.append(f"{name}: {len(extra)} stored states are not visible states "
                                f"of the full search, e.g. {sorted(extra)[0]}")
    # every reduced path is a full path
    for name in ("reduced", "reduced-bfs", "por", "por-bfs"):
        extra = set(kinds_of(res[name])) - set(kf)
        if extra:
            problems.append(f"{name} finds {sorted(extra)}, the full search does not "
                            f"(full {kf or ['ok']})")
        ldr, unr = violation(res[name])
        if unr and not unf:
            problems.append(f"{name} finds an unshared violation, the full search does not")
    # Goldilocks: races found in one mode are found in the other (a race in
    # the reduced search is on a full path; one in the full search has a
    # race-free prefix, whose invisible accesses commute)
    gf, gr = "race" in kinds_of(res["gold-full"]), "race" in kinds_of(res["gold-reduced"])
    if gf != gr:
        problems.append(f"goldilocks: the full search {'finds' if gf else 'does not find'} a "
                        f"race, the reduced one {'does' if gr else 'does not'} "
                        f"(full {kinds_of(res['gold-full'])}, reduced "
                        f"{kinds_of(res['gold-reduced'])})")
    # unshared variables under every --race mode: a detector only cuts paths
    # at its own errors, so the full search without one (--race=off) finds
    # every unshared violation LD' finds; and where a detector reports
    # nothing of its own (no lock_discipline, no race), it cut nothing: the
    # same error kinds and the same unshared verdict as --race=off
    if race_modes:
        of, orr = res["off-full"], res["off-reduced"]
        unof = violation(of)[1]
        if unf and unof is False:
            problems.append("--race=off (full) finds no unshared violation, --race=ld does")
        for name, own, js, off in (("full (ld)", "lock_discipline", fa, of),
                                   ("reduced (ld)", "lock_discipline", ra, orr),
                                   ("full (goldilocks)", "race", res["gold-full"], of),
                                   ("full (eraser)", "race", res["eraser-full"], of)):
            # (Eraser reports its lockset violations as lock_discipline)
            if {own, "lock_discipline"} & set(kinds_of(js)) or (own == "lock_discipline" and ldf):
                continue
            if kinds_of(js) != kinds_of(off) or violation(js)[1] != violation(off)[1]:
                problems.append(f"{name}: no {own}, error kinds {kinds_of(js) or ['ok']} "
                                f"(unshared {violation(js)[1]}); --race=off: "
                                f"{kinds_of(off) or ['ok']} (unshared {violation(off)[1]})")
        stats["race modes"] += 1
        if unof:
            stats["unshared off"] += 1
    # the first-error search
    v1 = res["reduced-first"]["verdict"]
    if (v1 == "ok") != (not kr) or (v1 != "ok" and v1 not in kr):
        problems.append(f"reduced first-error verdict {v1}; --all-errors finds {kr or ['ok']}")

    # depth-first versus breadth-first, per mode
    pairs = [("reduced", "reduced-bfs", red_dump, rbfs_dump)]
    if full_bfs:
        pairs.append(("full", "full-bfs", full_dump, fbfs_dump))
    for a, b, da, db in pairs:
        sa, sb = res[a]["stats"], res[b]["stats"]
        if ((sa["states_stored"], sa["transitions"]) != (sb["states_stored"], sb["transitions"])
                or error_counts(res[a]) != error_counts(res[b])
                or read_states(da) != read_states(db)):
            problems.append(f"{b}: {sb['states_stored']} states, {sb['transitions']} "
                            f"transitions, errors {error_counts(res[b])}; {a}: "
                            f"{sa['states_stored']}, {sa['transitions']}, {error_counts(res[a])}"
                            + ("" if read_states(da) == read_states(db) else
                               "; different visible states"))

    if compact:
        for a, b in (("full", "full-compact"), ("reduced", "reduced-compact")):
            sa, sb = res[a]["stats"], res[b]["stats"]
            if ((sa["states_stored"], sa["transitions"]) != (sb["states_stored"], sb["transitions"])
                    or error_counts(res[a]) != error_counts(res[b])):
                problems.append(f"{b}: {sb['states_stored']} states, {sb['transitions']} "
                                f"transitions, errors {error_counts(res[b])}; exact store: "
                                f"{sa['states_stored']}, {sa['transitions']}, "
                                f"{error_counts(res[a])}")
        if read_states(red_dump) != read_states(os.path.join(d, "rc.states")):
            problems.append("reduced-compact: other visible states than the exact store's")
        stats["compact"] += 1

    ldr, unr = violation(ra)
    if ldf or unf:
        stats["violation"] += 1
    else:
        stats["disciplined"] += 1
    if not (ldf or unf or ldr or unr):
        # LD' held on every path: Theorems 4 and 5
        if kf != kr:
            problems.append(f"no violation, but error kinds differ: full {kf or ['ok']}, "
                            f"reduced {kr or ['ok']}")
        a, b = read_states(full_dump), read_states(red_dump)
        if a != b or not a:
            only_f, only_r = sorted((a - b).elements()), sorted((b - a).elements())
            problems.append(f"no violation, but visible states differ: full "
                            f"{sum(a.values())}, reduced {sum(b.values())}; {len(only_f)} "
                            f"only in full, {len(only_r)} only in reduced"
                            + (f"; e.g. only in full {only_f[0]}" if only_f else "")
                            + (f"; e.g. only in reduced {only_r[0]}" if only_r else ""))
        nonvis = sum(n for k, n in error_counts(ra).items() if k != "deadlock")
        if ra["stats"]["states_stored"] != sum(b.values()) + nonvis:
            problems.append(f"reduced: {ra['stats']['states_stored']} states stored, but "
                            f"{sum(b.values())} dumped and {nonvis} error states")

    # the reference enumerator with its own LD' check
    if (opts.ref and fa["stats"]["states_stored"] <= opts.ref_max_states
            and (tag is None or tag % opts.ref_every == 0)):
        rc, ref, msgs, err = run_refcheck(opts.refcheck, model)
        if rc == 2 or "none" not in ref or "reduced" not in ref:
            problems.append(f"refcheck --ld exited {rc}: {err[:300]}")
        else:
            stats["refcheck"] += 1
            for mode, js in (("none", fa), ("reduced", ra)):
                rs, rt, rk = ref[mode]
                st = js["stats"]
                if rk != kinds_of(js):
                    problems.append(f"refcheck --ld --mode={mode}: error kinds {rk or ['ok']} "
                                    f"({'; '.join(msgs[mode])}); mcheck: "
                                    f"{kinds_of(js) or ['ok']}")
                elif (rs, rt) != (st["states_stored"], st["transitions"]):
                    what = (f"refcheck --ld --mode={mode}: {rs} states, {rt} transitions; "
                            f"mcheck: {st['states_stored']} states, {st['transitions']} "
                            f"transitions")
                    # (a detector that updated the metadata before it
                    # reported made error states coincide that refcheck keeps
                    # apart: tests/differential/theorem9_cases/error_state_metadata.bc)
                    problems.append(what)
                ref_unsh = any(UNSHARED in m for m in msgs[mode])
                mc_unsh = violation(js)[1]
                if "runtime_error" in rk and mc_unsh is not None and ref_unsh and not mc_unsh:
                    problems.append(f"refcheck --ld --mode={mode}: an unshared violation; "
                                    f"mcheck: none")
            info += ", refcheck"
    return ("fail" if problems else "pass"), problems, info


def construct_opts(opts, seed):
    """The constructs of issue 30 on a share of the seeds, offset as in
    differential.py so that they fall on different seeds: atomic blocks on
    every --atomic-every-th seed (seed % K == 0), conds on every
    --conds-every-th offset by two (3, 8, 13, ...), rendezvous channels on
    every --rendezvous-every-th offset by three (2, 7, 12, ...)."""
    out = []
    if opts.atomic_every > 0 and seed % opts.atomic_every == 0:
        out.append("--atomic")
    if opts.conds_every > 0 and (seed + 2) % opts.conds_every == 0:
        out.append("--conds")
    if opts.rendezvous_every > 0 and (seed + 3) % opts.rendezvous_every == 0:
        out.append("--rendezvous")
    return out


def gen_args(opts, seed):
    """gen_model's options for seed (after --undisciplined)."""
    return spawns_opt(opts, seed) + calls_opt(opts, seed) + construct_opts(opts, seed)


def check_seed(opts, seed):
    stats = collections.Counter()
    gen = subprocess.run([opts.gen_model, str(seed), "--size", opts.size, "--undisciplined"]
                         + gen_args(opts, seed),
                         capture_output=True, text=True)
    text = gen.stdout
    if gen.returncode != 0 or not text:
        return "fail", [f"gen_model exited {gen.returncode}: {gen.stderr.strip()}"], text, "", stats
    with tempfile.TemporaryDirectory(prefix="mcheck-t9-") as d:
        model = os.path.join(d, f"seed{seed}.bc")
        with open(model, "w") as f:
            f.write(text)
        status, problems, info = check_model(opts, model, seed, stats)
    stats["spawns"] += bool(spawns_opt(opts, seed))
    stats["calls"] += bool(calls_opt(opts, seed))
    for c in construct_opts(opts, seed):
        stats[c[2:]] += 1
    return status, problems, text, info, stats


def check_case(opts, path):
    stats = collections.Counter()
    with open(path) as f:
        text = f.read()
    with tempfile.TemporaryDirectory(prefix="mcheck-t9-") as d:
        model = os.path.join(d, os.path.basename(path))
        with open(model, "w") as f:
            f.write(text)
        status, problems, info = check_model(opts, model, None, stats)
        # a case may pin what --por stores (`; expect-states-por: N`, with
        # --race=off): a part of the algorithm that loses no error kind,
        # deadlock or local state on its own still shows in the count
        m = re.search(r"^; expect-states-por: (\d+)", text, re.M)
        if m and status != "skip":
            try:
                js = mcheck_json(opts.mcheck, ["--race=off", "--por", "--all-errors"], model,
                                 problems, "por-count")
            except Skip as e:
                js, status = None, "skip"
                problems.append(str(e))
            if js and js["stats"]["states_stored"] != int(m.group(1)):
                problems.append(f"por-count: --por --race=off stores "
                                f"{js['stats']['states_stored']} states, expected {m.group(1)}")
            if problems and status == "pass":
                status = "fail"
    return status, problems, text, info, stats


def main():
    ap = seed_parser(__doc__)
    ap.add_argument("--ref-max-states", type=int, default=3000,
                    help="run refcheck.py --ld on models whose full search stores at most "
                         "this many states (default 3000)")
    ap.add_argument("--ref-every", type=int, default=1, metavar="K",
                    help="... and only on every K-th seed (default 1: all)")
    ap.add_argument("--full-bfs-every", type=int, default=3, metavar="K",
                    help="run the breadth-first full search on every K-th seed (default 3; "
                         "0: never)")
    ap.add_argument("--compact-every", type=int, default=4, metavar="K",
                    help="also run both searches with the compact store on every K-th seed "
                         "and each case (default 4; 0: never)")
    ap.add_argument("--race-modes-every", type=int, default=3, metavar="K",
                    help="on every K-th seed whose model has unshared variables and each "
                         "such case, also search with --race=off and eraser (default 3; "
                         "0: never)")
    add_spawns_every(ap)
    add_calls_every(ap)
    for name, k in (("atomic", 3), ("conds", 5), ("rendezvous", 5)):
        ap.add_argument(f"--{name}-every", type=int, default=k, metavar="K",
                        help=f"every K-th seed's model (offset as in differential.py) also "
                             f"gets gen_model --{name} (default {k}; 0: never)")
    ap.add_argument("--cases", default=CASES, metavar="DIR",
                    help="saved models checked too (default tests/differential/theorem9_cases; '' for none)")
    opts = parse_seed_args(ap)

    stats = collections.Counter()
    jobs = []
    cases = []
    if opts.cases and os.path.isdir(opts.cases):
        cases = sorted(os.path.join(opts.cases, f) for f in os.listdir(opts.cases)
                       if f.endswith(".bc"))
    skipped = 0
    cover = collections.Counter()
    check(need_refcheck(opts), "the reference checker is there")
    check(not opts.cases or cases, f"saved cases found in {opts.cases}")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
        for path in cases:
            jobs.append((os.path.relpath(path, HERE), None,
                         ex.submit(check_case, opts, path)))
        for seed in range(opts.seed, opts.seed + opts.count):
            jobs.append((f"seed {seed}", seed, ex.submit(check_seed, opts, seed)))
        for what, seed, fut in jobs:
            try:
                status, problems, text, info, st = fut.result()
                stats.update(st)
                if seed is not None:
                    cover.update(constructs(text))
            except subprocess.TimeoutExpired as e:
                status, problems, text, info = "fail", [f"timeout: {e.cmd}"], "", ""
            if status == "skip" and seed is None:
                # a saved case is there to be checked: skipping it fails
                check(False, f"{what}: skipped ({info})")
                continue
            if status == "skip":
                skipped += 1
                print(f"skip {what}: {info}", flush=True)
                continue
            if opts.verbose:
                print(f"{what}: {status} ({info})", flush=True)
            if not check(status == "pass", f"{what}: {len(problems)} problem(s)"):
                for p in problems:
                    print(f"  {p}")
                if seed is not None:
                    print(f"  reproduce: {opts.gen_model} {seed} --size {opts.size} "
                          f"--undisciplined{''.join(' ' + a for a in gen_args(opts, seed))} "
                          f"> seed{seed}.bc && "
                          f"{opts.mcheck} --race=ld --store=exact --all-errors --reduce=none "
                          f"seed{seed}.bc && "
                          f"{opts.mcheck} --race=ld --store=exact --all-errors --por=off "
                          f"seed{seed}.bc")
                show_model(text, seed, opts.keep if seed is not None else None)
    print(f"({stats['violation']} models with a violation in the full search, "
          f"{stats['disciplined']} without; refcheck ran on {stats['refcheck']}; compact "
          f"store on {stats['compact']}; "
          f"{stats['ld only as unshared']} where the reduced search met the unshared "
          f"violation instead of lock_discipline; {skipped} skipped; {stats['race modes']} "
          f"models with unshared variables also under --race=off and eraser, "
          f"{stats['unshared off']} with an unshared violation under --race=off; "
          f"{stats['spawns']} spawn-heavy (--spawns), {stats['calls']} with subroutines "
          f"(--calls), {stats['atomic']} with atomic blocks, {stats['conds']} with conds, "
          f"{stats['rendezvous']} with rendezvous channels)")
    if opts.count >= 200:
        check(stats["unshared off"] > 0, "some model has an unshared violation under --race=off")
        check(opts.spawns_every <= 0 or stats["spawns"] > 0,
              "some model is spawn-heavy (gen_model --spawns)")
        check(opts.calls_every <= 0 or stats["calls"] > 0,
              "some model has subroutines (gen_model --calls)")
        for name in ("atomic", "conds", "rendezvous"):
            check(getattr(opts, name + "_every") <= 0 or stats[name] > 0,
                  f"some model has gen_model --{name}")
    many = too_many_skips(skipped, opts.count, opts.max_skip_percent)
    check(many is None, (many or "")[5:])
    gaps = coverage_report(cover, opts.count, f"gen_model --size {opts.size} --undisciplined",
                           COVERAGE_UNDISC)
    check(not gaps, f"the generator never wrote {', '.join(gaps)} in {opts.count} seeds")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
