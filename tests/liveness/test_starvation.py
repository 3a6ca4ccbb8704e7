#!/usr/bin/env python3
"""--liveness=starvation [--fair[=strong|weak]] [--starved T]
(reduce/liveness/starvation.c): exact verdicts, starved threads and lassos on
the small models of tests/liveness/starvation/ (fair and unfair cycles, a lock
under weak and strong fairness, a thread blocked only inside another's
composed step, one blocked for good, a thread that ends, no label, the
round-robin arbiter and its buggy twin) and tests/liveness/npc/self_loop.bc,
without fairness, weak and strong, under composition and --reduce=none;
--starved T; the bundled readers-writers pair; the usage errors; the text
report (notes, cycle mark, fairness); a differential on random models of
gen_model (some labels renamed progress_*): the same verdicts with
composition, --reduce=none and --store=exact, without fairness, weak and
strong, no cycle rejected by the replay check, a strong starvation also a
weak one (of the same thread, --starved); and SPIN's ./pan -l -f on
bench/spin/rw_*.pml when spin and gcc are installed (only the writer has a
progress label, so SPIN's weakly fair non-progress cycle is the writer's
weakly fair starvation).

usage: test_starvation.py MCHECK GEN_MODEL [--count N] (default 20 random models)
The last line is "N passed, N failed".
"""
import json
import os
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish  # noqa: E402
from checks import run_quiet as run, run_quiet_json as run_json  # noqa: E402
from mcheck_test import check_usage, count_args, have_spin, progress_model, spin_non_progress  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SV = os.path.join(HERE, "starvation")


# model: {(fair, reduce): (starved thread or None, cycle_start, steps)};
# fair: None (no --fair), "weak" or "strong" (--fair=...; --fair is strong)
EXACT = {
    "starvation/unfair_only.bc": {
        (None, "compose"): ("worker", 0, 1), (None, "none"): ("worker", 0, 2),
        ("weak", "compose"): None, ("weak", "none"): None,
        ("strong", "compose"): None, ("strong", "none"): None},
    "starvation/fair_starve.bc": {  # starves under strong fairness too
        (None, "compose"): ("getter", 2, 4), (None, "none"): ("getter", 5, 8),
        ("weak", "compose"): ("getter", 0, 5), ("weak", "none"): ("getter", 0, 8),
        ("strong", "compose"): ("getter", 0, 5), ("strong", "none"): ("getter", 0, 8)},
    "starvation/lock_starve.bc": {  # weak fairness is not fairness of locks
        (None, "compose"): ("t[0]", 2, 8), (None, "none"): ("t[0]", 6, 27),
        ("weak", "compose"): ("t[0]", 2, 14), ("weak", "none"): ("t[0]", 6, 27),
        ("strong", "compose"): None, ("strong", "none"): None},
    "starvation/hidden_lock.bc": {  # blocked only inside the owner's composed step
        (None, "compose"): ("waiter", 1, 3), (None, "none"): ("waiter", 6, 20),
        ("weak", "compose"): ("waiter", 1, 7), ("weak", "none"): ("waiter", 6, 34),
        ("strong", "compose"): None, ("strong", "none"): None},
    "starvation/never_enabled.bc": {  # blocked for good: not starved
        (None, "compose"): None, (None, "none"): None,
        ("weak", "compose"): None, ("weak", "none"): None,
        ("strong", "compose"): None, ("strong", "none"): None},
    "starvation/terminates.bc": {
        (None, "compose"): ("worker", 0, 1), (None, "none"): ("worker", 0, 2),
        ("weak", "compose"): None, ("weak", "none"): None,
        ("strong", "compose"): None, ("strong", "none"): None},
    "starvation/no_label.bc": {
        (None, "compose"): None, (None, "none"): None,
        ("weak", "compose"): None, ("weak", "none"): None,
        ("strong", "compose"): None, ("strong", "none"): None},
    "npc/self_loop.bc": {  # a cycle of one composed step
        (None, "compose"): ("waiter", 1, 2), (None, "none"): ("waiter", 2, 4),
        ("weak", "compose"): ("waiter", 1, 3), ("weak", "none"): ("waiter", 2, 6),
        ("strong", "compose"): ("waiter", 1, 3), ("strong", "none"): ("waiter", 2, 6)},
    # issue 31: the correct round-robin arbiter starves no client under strong
    # fairness; weak fairness calls client[0] starved (it loses m for ever)
    "starvation/arbiter_rr.bc": {
        (None, "compose"): ("client[0]", 1, 2), (None, "none"): ("client[0]", 5, 11),
        ("weak", "compose"): ("client[0]", 1, 4), ("weak", "none"): ("client[0]", 5, 11),
        ("strong", "compose"): None, ("strong", "none"): None},
    # its buggy twin: client[1] never gets the turn; weak fairness reports
    # client[0] first, strong fairness the real starvation
    "starvation/arbiter_rr_bug.bc": {
        (None, "compose"): ("client[0]", 1, 2), (None, "none"): ("client[0]", 5, 11),
        ("weak", "compose"): ("client[0]", 1, 4), ("weak", "none"): ("client[0]", 5, 11),
        ("strong", "compose"): ("client[1]", 3, 8), ("strong", "none"): ("client[1]", 14, 44)},
}

# --starved T: (model, fairness options, T) -> (starved thread or None, cycle_start, steps)
STARVED = {
    ("arbiter_rr_bug.bc", ("--fair=weak",), "client[1]"): ("client[1]", 3, 7),
    ("arbiter_rr_bug.bc", ("--fair",), "client[1]"): ("client[1]", 3, 8),
    ("arbiter_rr_bug.bc", ("--fair",), "client[0]"): None,
    ("arbiter_rr_bug.bc", (), "client[1]"): ("client[1]", 3, 5),
    ("arbiter_rr.bc", ("--fair",), "client[1]"): None,
    ("arbiter_rr.bc", ("--fair=weak",), "client[1]"): ("client[1]", 2, 5),
    ("lock_starve.bc", ("--fair=weak",), "t[1]"): ("t[1]", 2, 14),
}


def fair_opts(fair):
    """The options of fairness None, "weak" or "strong" (as --fair=strong and,
    to keep the default checked, as plain --fair)."""
    return [] if fair is None else ["--fair"] if fair == "strong" else ["--fair=" + fair]


def exact(mcheck):
    for name, cases in EXACT.items():
        path = os.path.join(HERE, name)
        for (fair, red), want in cases.items():
            opts = ["--liveness=starvation", "--reduce=" + red] + fair_opts(fair)
            code, js, err = run_json(mcheck, opts + [path])
            tag = f"{name} {' '.join(opts)}"
            if not js:
                check(False, f"{tag}: no JSON ({err.strip()[:200]})")
                continue
            e = js.get("error") or {}
            got = (e.get("starved"), e.get("cycle_start"), e.get("steps")) if e else None
            check(got == want and code == (1 if want else 0)
                  and js["verdict"] == ("starvation" if want else "ok"),
                  f"{tag}: {js['verdict']} {got} exit {code}, expected {want}")
            check(js["stats"]["cycles_rejected"] == 0 and js["options"]["liveness"] == "starvation"
                  and js["options"]["fair"] == (fair is not None)
                  and js["options"]["fairness"] == (fair or "none"),
                  f"{tag}: no cycle rejected, options liveness/fair in the JSON")
    code, out, _ = run(mcheck, ["--liveness=starvation", os.path.join(SV, "unfair_only.bc")])
    check("note: not checked for starvation (no progress label in the body): spinner" in out,
          "unfair_only.bc: the note names the unchecked thread")
    check("<<<<< cycle starts here: steps 1- repeat forever >>>>>" in out
          and "error: starvation: thread worker is enabled infinitely often" in out
          and "liveness=starvation)" in out,
          "unfair_only.bc: the text report (error line, cycle mark, header)")
    code, out, _ = run(mcheck, ["--liveness=starvation", "--fair=weak", os.path.join(SV, "fair_starve.bc")])
    check("in a weakly fair execution" in out and "liveness=starvation, fair=weak)" in out,
          "fair_starve.bc --fair=weak: the report says the execution is weakly fair")
    for f in ("--fair", "--fair=strong"):
        code, out, _ = run(mcheck, ["--liveness=starvation", f, os.path.join(SV, "fair_starve.bc")])
        check("in a strongly fair execution" in out and "liveness=starvation, fair=strong)" in out,
              f"fair_starve.bc {f}: the report says the execution is strongly fair")
    for (name, fair, t), want in STARVED.items():
        opts = ["--liveness=starvation", *fair, "--starved", t]
        code, js, err = run_json(mcheck, opts + [os.path.join(SV, name)])
        e = (js or {}).get("error") or {}
        got = (e.get("starved"), e.get("cycle_start"), e.get("steps")) if e else None
        check(js is not None and got == want and code == (1 if want else 0)
              and js["stats"]["threads_checked"] == 1 and js["stats"]["cycles_rejected"] == 0,
              f"{name} {' '.join(opts)}: {got} exit {code}, expected {want}, one thread checked")
    # the arbiter pair as a user meets it: the text reports
    arb, bug = os.path.join(SV, "arbiter_rr.bc"), os.path.join(SV, "arbiter_rr_bug.bc")
    code, out, _ = run(mcheck, ["--liveness=starvation", "--fair", arb])
    check(code == 0 and "verdict: ok" in out, "arbiter_rr.bc --fair: ok")
    code, out, _ = run(mcheck, ["--liveness=starvation", "--fair=weak", arb])
    check(code == 1 and "error: starvation: thread client[0] is enabled infinitely often and never "
          "passes its progress label in a weakly fair execution" in out,
          "arbiter_rr.bc --fair=weak: client[0] starves")
    code, out, _ = run(mcheck, ["--liveness=starvation", "--fair", bug])
    check(code == 1 and "error: starvation: thread client[1] is enabled infinitely often and never "
          "passes its progress label in a strongly fair execution" in out,
          "arbiter_rr_bug.bc --fair: client[1] starves")
    code, out, _ = run(mcheck, ["--liveness=starvation", "--fair=weak", "--starved", "client[1]", bug])
    check(code == 1 and "thread client[1] is enabled infinitely often" in out,
          "arbiter_rr_bug.bc --fair=weak --starved client[1]: client[1] starves")
    code, out, _ = run(mcheck, ["--liveness=starvation", "--fair", "-D", "N=3", arb])
    check(code == 0, "arbiter_rr.bc -D N=3 --fair: ok")
    code, out, _ = run(mcheck, ["--liveness=starvation", os.path.join(SV, "no_label.bc")])
    check(code == 0 and "not checked for starvation (no progress label in the body): a[0], a[1]" in out,
          "no_label.bc: ok, both threads named as not checked")


def bundled(mcheck):
    for name, unfair, fair in (("rw_writer_starves.bc", "starvation", "starvation"),
                               ("rw_writer_preference.bc", "starvation", "ok")):
        path = os.path.join(TOP, "models", name)
        for f, want in (([], unfair), (["--fair=weak"], fair), (["--fair"], fair)):
            for extra in ([], ["--reduce=none"], ["--store=exact"], ["--race=off"]):
                code, js, _ = run_json(mcheck, ["--liveness=starvation", path] + f + extra)
                got = js and js["verdict"]
                check(got == want and js["stats"]["cycles_rejected"] == 0
                      and (want == "ok" or js["error"]["starved"] == "writer"),
                      f"{name} {' '.join(f + extra)}: verdict {got}, expected {want} (the writer)")
    # the graph is the safety search's with --reduce=none (under composition
    # the progress points are visible: more states)
    path = os.path.join(TOP, "models", "rw_writer_preference.bc")
    for red, base in (("none", []),):
        _, a, _ = run_json(mcheck, ["--reduce=" + red] + base + [path])
        _, b, _ = run_json(mcheck, ["--reduce=" + red, "--liveness=starvation", "--fair=weak", path])
        check(a and b and (a["stats"]["states_stored"], a["stats"]["transitions"]) ==
              (b["stats"]["states_stored"], b["stats"]["transitions"]),
              f"rw_writer_preference.bc --reduce={red}: the graph has the counts of {base or 'the safety search'}"
              f" ({a and a['stats']['states_stored']}, {b and b['stats']['states_stored']})")


def usage(mcheck):
    path = os.path.join(SV, "unfair_only.bc")
    for opts, text in ((["--por"], "--liveness=starvation cannot be used with --por: a persistent set postpones"),
                       (["--search=bfs"], "cannot be used with --search=bfs"),
                       (["--search=stateless"], "cannot be used with --search=stateless"),
                       (["-j", "2"], "cannot be used with -j"),
                       (["--store=bitstate"], "cannot be used with --store=bitstate"),
                       (["--max-depth", "5"], "cannot be used with --max-depth"),
                       (["--adapt"], "--liveness=starvation cannot be used with --adapt"),
                       (["--shorten=on"], "a starvation is a lasso, not shortened")):
        args = opts + ["--liveness=starvation"]
        check_usage(mcheck, ["--quiet"] + args + [path], text, " ".join(args))
    # every fairness and --starved with --por: refused with the reason
    for opts in (["--fair"], ["--fair=weak"], ["--fair=strong"], ["--starved", "worker"]):
        args = opts + ["--por", "--liveness=starvation"]
        check_usage(mcheck, ["--quiet"] + args + [path],
                    "--liveness=starvation cannot be used with --por: a persistent set postpones"
                    " the threads independent of it, and whether each thread is enabled, which "
                    "any step may change, is what starvation and every --fair condition are about",
                    " ".join(args))
    for args in (["--fair"], ["--fair=weak"]):
        check_usage(mcheck, args + [path], "--fair applies to --liveness=starvation, "
                    "--liveness=npc and --ltl", " ".join(args))
    check_usage(mcheck, ["--liveness=starvation", "--fair=medium", path],
                "--fair: expected 'strong' or 'weak', got 'medium'")
    check_usage(mcheck, ["--liveness=starvation", "--fair=", path],
                "--fair: expected 'strong' or 'weak', got ''")
    arb = os.path.join(SV, "arbiter_rr.bc")
    for opts, text in ((["--starved", "client[1]"], "--starved applies to --liveness=starvation"),
                       (["--liveness=npc", "--starved", "client[1]"],
                        "--starved applies to --liveness=starvation"),
                       (["--liveness=starvation", "--starved", "client[2]"],
                        "--starved: no thread 'client[2]' in the model (its threads: client[0], "
                        "client[1]; a spawned thread cannot be named)"),
                       (["--liveness=starvation", "--starved", "client"],
                        "--starved: no thread 'client' in the model"),
                       (["--liveness=starvation", "--starved", "spinner"], None)):
        if text is None:  # a thread without a progress label: nothing to check
            check_usage(mcheck, opts + [path], "--starved spinner: the thread's body has no "
                        "progress label, so it cannot starve", " ".join(opts))
        else:
            check_usage(mcheck, opts + [arb], text, " ".join(opts))


def replay(mcheck):
    """--replay of a starvation lasso checks the recorded fairness: the weakly
    fair lasso of the correct arbiter (client[0] loses m for ever) reproduces
    as weak, fails the check as strong (client[0] is enabled in the cycle and
    never steps), and a file from before "fairness" (fair: true alone) is
    weak; a bad "fairness" is a file error."""
    arb = os.path.join(SV, "arbiter_rr.bc")
    with tempfile.TemporaryDirectory() as d:
        tj = os.path.join(d, "weak.json")
        run(mcheck, ["--liveness=starvation", "--fair=weak", "--trace-json", tj, arb])
        data = json.load(open(tj))
        check(data["options"].get("fair") is True and data["options"].get("fairness") == "weak",
              f"arbiter_rr.bc --fair=weak --trace-json: options {data['options']}")
        for fairness, want, text in (("weak", 1, "replay: reproduced (starvation: thread client[0]"),
                                     ("strong", 0, "but no error occurs: the model no longer has "
                                                   "the recorded starvation"),
                                     (None, 1, "replay: reproduced (starvation: thread client[0]"),
                                     ("medium", 2, '"options"."fairness" must be "weak" or "strong"')):
            if fairness is None:
                data["options"].pop("fairness")
            else:
                data["options"]["fairness"] = fairness
            path = os.path.join(d, f"{fairness}.json")
            json.dump(data, open(path, "w"))
            code, out, err = run(mcheck, ["--replay", path, arb])
            head = "search: --liveness=starvation --fair=" + ("weak" if fairness in (None, "weak") else "strong")
            check(code == want and text in out + err and (want == 2 or head in out),
                  f"--replay, fairness {fairness}: exit {code}, expected {want} ({(out + err).strip()[-160:]})")


def randomized(mcheck, gen, count):
    seen = {"starvation": 0, "ok": 0}
    seen_fair = {"starvation": 0, "ok": 0}
    with tempfile.TemporaryDirectory() as d:
        for seed in range(1, count + 1):
            src = progress_model(gen, seed)  # every second label marks progress
            path = os.path.join(d, f"m{seed}.bc")
            open(path, "w").write(src)
            verdicts = {}
            for fair in (None, "weak", "strong"):
                got = {}
                for v in (["--reduce=compose"], ["--reduce=none"], ["--store=exact"]):
                    code, js, err = run_json(mcheck, ["--liveness=starvation"] + fair_opts(fair) + v + [path])
                    if not js:
                        check(False, f"random seed {seed} {v}: no JSON ({err.strip()[:200]})")
                        continue
                    e = js.get("error") or {}
                    got[v[0]] = (js["verdict"], e.get("starved"), js["stop"] in ("complete", "error"),
                                 js["stats"]["cycles_rejected"])
                vals = set(got.values())
                check(len(vals) == 1 and all(c for _, _, c, _ in vals) and all(r == 0 for *_, r in vals),
                      f"random seed {seed} {fair}: (verdict, starved, complete, rejected) agree: {got}")
                if got:
                    v0 = list(got.values())[0][0]
                    verdicts[fair] = list(got.values())[0]
                    if fair != "weak":
                        (seen_fair if fair else seen)[v0 if v0 in seen else "ok"] += 1
            # strongly fair executions are weakly fair ones: a strong starvation
            # of T is a weak one (asked with --starved T), and weak ok is strong ok
            st = verdicts.get("strong")
            if st and st[0] == "starvation":
                code, js, _ = run_json(mcheck, ["--liveness=starvation", "--fair=weak", "--starved",
                                                st[1], path])
                check(js is not None and js["verdict"] == "starvation" and js["error"]["starved"] == st[1],
                      f"random seed {seed}: the strong starvation of {st[1]} is a weak one")
            if verdicts.get("weak") and verdicts["weak"][0] == "ok":
                check(st is not None and st[0] == "ok", f"random seed {seed}: weak ok, strong {st}")
    print(f"random models: without --fair {seen}, with --fair (strong) {seen_fair}")
    check(count < 10 or (seen["ok"] and seen["starvation"]),
          f"the random sample has models with and without starvation: {seen}")


def spin(mcheck):
    if not have_spin():
        return
    for name in ("rw_writer_starves", "rw_writer_preference"):
        pml = os.path.join(TOP, "bench", "spin", name + ".pml")
        for fair in (False, True):
            spin_npc = spin_non_progress(pml, ["-DNFAIR=3"], ["-f"] if fair else [])
            _, js, _ = run_json(mcheck, ["--liveness=starvation"] + (["--fair=weak"] if fair else []) +
                                [os.path.join(TOP, "models", name + ".bc")])
            ours = js and js["verdict"] == "starvation"
            check(spin_npc == ours,
                  f"{name}{' -f' if fair else ''}: SPIN -l non-progress cycle {spin_npc}, mcheck {ours}")


def memlimit(mcheck):
    """The graph the search keeps counts against --memlimit: a limit below it
    stops the search cleanly (exit 3, stop memory_limit, the statistics so
    far); a limit above it changes nothing."""
    path = os.path.join(TOP, "models", "rw_writer_preference.bc")
    base = ["--liveness=starvation", "--fair", "-D", "R=3", path]
    code, full, err = run_json(mcheck, base)
    if not check(full is not None, f"memlimit: no JSON ({err.strip()[:200]})"):
        return
    for mb in ("1", "3"):
        code, js, err = run_json(mcheck, ["--memlimit", mb] + base)
        check(code == 3 and js is not None and js["stop"] == "memory_limit"
              and js["verdict"] == "incomplete"
              and 0 < js["stats"]["states_stored"] < full["stats"]["states_stored"],
              f"--memlimit {mb}: exit {code}, {js and (js['stop'], js['stats']['states_stored'])}")
    code, js, err = run_json(mcheck, ["--memlimit", "200"] + base)
    check(code == 0 and js is not None and js["stop"] == "complete"
          and js["stats"]["states_stored"] == full["stats"]["states_stored"],
          f"--memlimit 200: exit {code}, {js and js['stop']}")


def main():
    (mcheck, gen), count = count_args(sys.argv[1:], 20)
    exact(mcheck)
    bundled(mcheck)
    usage(mcheck)
    replay(mcheck)
    memlimit(mcheck)
    randomized(mcheck, gen, count)
    spin(mcheck)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
