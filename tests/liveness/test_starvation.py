#!/usr/bin/env python3
"""--liveness=starvation [--fair] (reduce/liveness/starvation.c): exact verdicts,
starved threads and lassos on the small models of tests/liveness/starvation/ (fair
and unfair cycles, a lock under weak fairness, a thread blocked only inside
another's composed step, one blocked for good, a thread that ends, no label)
and tests/liveness/npc/self_loop.bc, under composition and --reduce=none; the
bundled readers-writers pair; the usage errors; the text report (notes,
cycle mark); a differential on random models of gen_model (some labels
renamed progress_*): the same verdicts with composition, --reduce=none and
--store=exact, with and without --fair, no cycle rejected by the replay
check; and SPIN's ./pan -l -f on bench/spin/rw_*.pml when spin and gcc are
installed (only the writer has a progress label, so SPIN's fair non-progress
cycle is the writer's fair starvation).

usage: test_starvation.py MCHECK GEN_MODEL [--count N] (default 20 random models)
The last line is "N passed, N failed".
"""
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


# model: {(fair, reduce): (starved thread or None, cycle_start, steps)}
EXACT = {
    "starvation/unfair_only.bc": {
        (False, "compose"): ("worker", 0, 1), (False, "none"): ("worker", 0, 2),
        (True, "compose"): None, (True, "none"): None},
    "starvation/fair_starve.bc": {
        (False, "compose"): ("getter", 2, 4), (False, "none"): ("getter", 5, 8),
        (True, "compose"): ("getter", 0, 5), (True, "none"): ("getter", 0, 8)},
    "starvation/lock_starve.bc": {
        (False, "compose"): ("t[0]", 2, 8), (False, "none"): ("t[0]", 6, 27),
        (True, "compose"): ("t[0]", 2, 14), (True, "none"): ("t[0]", 6, 27)},
    "starvation/hidden_lock.bc": {  # blocked only inside the owner's composed step
        (False, "compose"): ("waiter", 1, 3), (False, "none"): ("waiter", 6, 20),
        (True, "compose"): ("waiter", 1, 7), (True, "none"): ("waiter", 6, 34)},
    "starvation/never_enabled.bc": {  # blocked for good: not starved
        (False, "compose"): None, (False, "none"): None,
        (True, "compose"): None, (True, "none"): None},
    "starvation/terminates.bc": {
        (False, "compose"): ("worker", 0, 1), (False, "none"): ("worker", 0, 2),
        (True, "compose"): None, (True, "none"): None},
    "starvation/no_label.bc": {
        (False, "compose"): None, (False, "none"): None,
        (True, "compose"): None, (True, "none"): None},
    "npc/self_loop.bc": {  # a cycle of one composed step
        (False, "compose"): ("waiter", 1, 2), (False, "none"): ("waiter", 2, 4),
        (True, "compose"): ("waiter", 1, 3), (True, "none"): ("waiter", 2, 6)},
}


def exact(mcheck):
    for name, cases in EXACT.items():
        path = os.path.join(HERE, name)
        for (fair, red), want in cases.items():
            opts = ["--liveness=starvation", "--reduce=" + red] + (["--fair"] if fair else [])
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
                  and js["options"]["fair"] == fair,
                  f"{tag}: no cycle rejected, options liveness/fair in the JSON")
    code, out, _ = run(mcheck, ["--liveness=starvation", os.path.join(SV, "unfair_only.bc")])
    check("note: not checked for starvation (no progress label in the body): spinner" in out,
          "unfair_only.bc: the note names the unchecked thread")
    check("<<<<< cycle starts here: steps 1- repeat forever >>>>>" in out
          and "error: starvation: thread worker is enabled infinitely often" in out
          and "liveness=starvation)" in out,
          "unfair_only.bc: the text report (error line, cycle mark, header)")
    code, out, _ = run(mcheck, ["--liveness=starvation", "--fair", os.path.join(SV, "fair_starve.bc")])
    check("in a weakly fair execution" in out and "liveness=starvation, fair)" in out,
          "fair_starve.bc --fair: the report says the execution is weakly fair")
    code, out, _ = run(mcheck, ["--liveness=starvation", os.path.join(SV, "no_label.bc")])
    check(code == 0 and "not checked for starvation (no progress label in the body): a[0], a[1]" in out,
          "no_label.bc: ok, both threads named as not checked")


def bundled(mcheck):
    for name, unfair, fair in (("rw_writer_starves.bc", "starvation", "starvation"),
                               ("rw_writer_preference.bc", "starvation", "ok")):
        path = os.path.join(TOP, "models", name)
        for f, want in (([], unfair), (["--fair"], fair)):
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
        _, b, _ = run_json(mcheck, ["--reduce=" + red, "--liveness=starvation", "--fair", path])
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
    for args in (["--fair"], ["--fair", "--liveness=npc"]):
        code, _, err = run(mcheck, args + [path])
        check(code == 2 and "--fair applies to --liveness=starvation" in err,
              f"{' '.join(args)}: usage error")


def randomized(mcheck, gen, count):
    seen = {"starvation": 0, "ok": 0}
    seen_fair = {"starvation": 0, "ok": 0}
    with tempfile.TemporaryDirectory() as d:
        for seed in range(1, count + 1):
            src = progress_model(gen, seed)  # every second label marks progress
            path = os.path.join(d, f"m{seed}.bc")
            open(path, "w").write(src)
            for fair in ([], ["--fair"]):
                got = {}
                for v in (["--reduce=compose"], ["--reduce=none"], ["--store=exact"]):
                    code, js, err = run_json(mcheck, ["--liveness=starvation"] + fair + v + [path])
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
                    (seen_fair if fair else seen)[v0 if v0 in seen else "ok"] += 1
    print(f"random models: without --fair {seen}, with --fair {seen_fair}")
    check(count < 10 or (seen["ok"] and seen["starvation"]),
          f"the random sample has models with and without starvation: {seen}")


def spin(mcheck):
    if not have_spin():
        return
    for name in ("rw_writer_starves", "rw_writer_preference"):
        pml = os.path.join(TOP, "bench", "spin", name + ".pml")
        for fair in (False, True):
            spin_npc = spin_non_progress(pml, ["-DNFAIR=3"], ["-f"] if fair else [])
            _, js, _ = run_json(mcheck, ["--liveness=starvation"] + (["--fair"] if fair else []) +
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
    memlimit(mcheck)
    randomized(mcheck, gen, count)
    spin(mcheck)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
