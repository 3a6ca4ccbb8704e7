#!/usr/bin/env python3
"""--liveness=npc (reduce/liveness/liveness.c): exact verdicts and lassos on the small
models of tests/liveness/npc/ and the bundled livelock models, under composition
and --reduce=none; the usage errors; the replay check (with
--liveness-test-bits, collisions invent cycles that it must reject); --replay
of a lasso; a differential on random models of gen_model (some labels renamed
progress_*): the same verdict with composition, --reduce=none and
--store=exact; and SPIN's ./pan -l on bench/spin/livelock_*.pml when spin
and gcc are installed.

usage: test_liveness.py MCHECK GEN_MODEL [--count N] (default 25 random models)
The last line is "N passed, N failed".
"""
import json
import os
import re
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish  # noqa: E402
from checks import run_quiet as run, run_quiet_json as run_json  # noqa: E402
from mcheck_test import check_usage, count_args, have_spin, progress_model, spin_non_progress  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LV = os.path.join(HERE, "npc")


# model, expected verdict, {reduce: (cycle_start, steps)} for a cycle
EXACT = [
    ("progress_cycle.bc", "ok", None),
    ("long_stem.bc", "non_progress_cycle", {"compose": (41, 42), "none": (101, 103)}),
    ("self_loop.bc", "non_progress_cycle", {"compose": (0, 1), "none": (0, 2)}),
    ("no_label.bc", "non_progress_cycle", {"compose": (0, 4), "none": (0, 8)}),
]


def exact(mcheck):
    for name, want, lasso in EXACT:
        path = os.path.join(LV, name)
        for red in ("compose", "none"):
            code, js, err = run_json(mcheck, ["--liveness=npc", "--reduce=" + red, path])
            got = js and js["verdict"]
            check(got == want and code == (1 if want != "ok" else 0),
                  f"{name} --reduce={red}: verdict {got} exit {code}, expected {want} ({err.strip()[:200]})")
            if not js:
                continue
            check(js["stats"]["cycles_rejected"] == 0,
                  f"{name} --reduce={red}: {js['stats']['cycles_rejected']} cycles rejected, expected 0")
            if lasso:
                e = js["error"]
                check((e["cycle_start"], e["steps"]) == lasso[red],
                      f"{name} --reduce={red}: lasso (cycle_start, steps) "
                      f"{(e['cycle_start'], e['steps'])}, expected {lasso[red]}")
    code, out, _ = run(mcheck, ["--liveness=npc", os.path.join(LV, "no_label.bc")])
    check("note: no progress label in the model: every cycle is a non-progress cycle" in out,
          "no_label.bc: the note that the model has no progress label")
    check("<<<<< cycle starts here: steps 1- repeat forever >>>>>" in out,
          "no_label.bc: the text trace marks where the cycle starts")
    code, out, _ = run(mcheck, ["--liveness=npc", os.path.join(LV, "long_stem.bc")])
    lines = out.splitlines()
    mark = [i for i, l in enumerate(lines) if "cycle starts here" in l]
    check(len(mark) == 1 and re.match(r"\s+42\s", lines[mark[0] + 1]) is not None,
          "long_stem.bc: the mark stands just before step 42")
    code, out, _ = run(mcheck, [os.path.join(LV, "long_stem.bc")])
    check("liveness=npc" not in out and code == 0, "long_stem.bc without --liveness: ok, no liveness in the report")


def bundled(mcheck):
    for name, want in (("livelock_backoff.bc", "non_progress_cycle"), ("livelock_ordered.bc", "ok")):
        path = os.path.join(TOP, "models", name)
        for extra in ([], ["--reduce=none"], ["--store=exact"], ["--race=off"]):
            code, js, _ = run_json(mcheck, ["--liveness=npc", path] + extra)
            got = js and js["verdict"]
            check(got == want and js["stats"]["cycles_rejected"] == 0,
                  f"{name} {' '.join(extra)}: verdict {got}, expected {want}, no cycle rejected")
    # the safety search of copy 0 is the plain DFS: --reduce=none counts equal
    # (under composition progress points become visible: more states)
    path = os.path.join(TOP, "models", "livelock_ordered.bc")
    _, a, _ = run_json(mcheck, ["--reduce=none", path])
    _, b, _ = run_json(mcheck, ["--reduce=none", "--liveness=npc", path])
    check(a and b and (a["stats"]["states_stored"], a["stats"]["transitions"]) ==
          (b["stats"]["states_stored"], b["stats"]["transitions"]) == (480, 846),
          "livelock_ordered.bc --reduce=none: --liveness=npc's copy 0 has the safety search's counts")
    check(b and (b["stats"]["np_states"], b["stats"]["nested_states"]) == (480, 480),
          f"livelock_ordered.bc --reduce=none: every state in the copy and the nested search "
          f"({b and (b['stats']['np_states'], b['stats']['nested_states'])})")


def usage(mcheck):
    path = os.path.join(TOP, "models", "livelock_ordered.bc")
    for opts, text in ((["--search=bfs"], "cannot be used with --search=bfs"),
                       (["--search=stateless"], "cannot be used with --search=stateless"),
                       (["-j", "2"], "cannot be used with -j"),
                       (["--store=bitstate"], "cannot be used with --store=bitstate"),
                       (["--liveness=fair"], "--liveness: expected npc, starvation or off, got 'fair'")):
        args = opts + ([] if opts[0].startswith("--liveness") else ["--liveness=npc"])
        check_usage(mcheck, ["--quiet"] + args + [path], text, " ".join(args))
    code, _, err = run(mcheck, ["--liveness-test-bits=4", path])
    check(code == 2 and "applies to --liveness=npc" in err, "--liveness-test-bits alone: usage error")


def replay_check(mcheck):
    """Keys of 1..4 bits make the stack set answer yes for states not on
    it: the nested search then meets false cycles, which the replay check
    must reject (counted, noted) and never report."""
    path = os.path.join(TOP, "models", "livelock_ordered.bc")
    for bits in (1, 4):
        code, js, _ = run_json(mcheck, ["--liveness=npc", f"--liveness-test-bits={bits}", path])
        check(js and js["verdict"] == "ok" and code == 0 and js["stats"]["cycles_rejected"] > 0,
              f"livelock_ordered.bc --liveness-test-bits={bits}: ok with false cycles rejected "
              f"({js and (js['verdict'], js['stats']['cycles_rejected'])})")
    code, out, _ = run(mcheck, ["--liveness=npc", "--liveness-test-bits=1", path])
    check(re.search(r"note: \d+ cycles found by the nested search failed the replay check", out),
          "the text report notes the rejected cycles")
    bad = os.path.join(TOP, "models", "livelock_backoff.bc")
    code, js, _ = run_json(mcheck, ["--liveness=npc", "--liveness-test-bits=1", bad])
    check(js and js["verdict"] == "non_progress_cycle", "livelock_backoff.bc: a real cycle survives tiny keys")


def replay(mcheck):
    path = os.path.join(TOP, "models", "livelock_backoff.bc")
    with tempfile.TemporaryDirectory() as d:
        rep, tj = os.path.join(d, "r.json"), os.path.join(d, "t.json")
        code, out, _ = run(mcheck, ["--liveness=npc", "--json", path])
        open(rep, "w").write(out)
        run(mcheck, ["--liveness=npc", "--trace-json", tj, path])
        for f in (rep, tj):
            code, out, err = run(mcheck, ["--replay", f, path])
            check(code == 1 and "replay: reproduced (non-progress cycle" in out,
                  f"--replay {os.path.basename(f)}: the lasso reproduced ({code}, {err.strip()[:160]})")
        js = json.load(open(rep))
        js["error"]["cycle_start"] = 0  # a stem that does not close the cycle
        js["errors"][0]["cycle_start"] = 0
        json.dump(js, open(rep, "w"))
        code, out, _ = run(mcheck, ["--replay", rep, path])
        check(code == 0 and "no error occurs" in out, "--replay of a lasso that does not close: no error")


# A seed whose model needs --por's error proviso and the nested search's
# following of the outer one's choices (tests/mutate.py's
# liveness-por-error-not-full and live-por-nested-own-choices differ from
# --reduce=none on seed 218 only, among seeds 1-600): always run.
PROVISO_SEEDS = [218]


def randomized(mcheck, gen, count):
    seen = {"non_progress_cycle": 0, "ok": 0}
    seen_fair = {"non_progress_cycle": 0, "ok": 0}
    with tempfile.TemporaryDirectory() as d:
        for seed in list(range(1, count + 1)) + [s for s in PROVISO_SEEDS if s > count]:
            src = progress_model(gen, seed)  # every second label marks progress
            path = os.path.join(d, f"m{seed}.bc")
            open(path, "w").write(src)
            got = {}
            for v in (["--reduce=compose"], ["--reduce=none"], ["--store=exact"], ["--por"]):
                code, js, err = run_json(mcheck, ["--liveness=npc", "--all-errors"] + v + [path])
                if not js:
                    check(False, f"random seed {seed} {v}: no JSON ({err.strip()[:200]})")
                    continue
                npc = js["error_counts"]["non_progress_cycle"] > 0
                got[v[0]] = (npc, js["stop"] in ("complete", "error"), js["stats"]["cycles_rejected"])
            vals = set(got.values())
            check(len(vals) == 1 and all(c for _, c, _ in vals) and all(r == 0 for _, _, r in vals),
                  f"random seed {seed}: (non-progress cycle, complete, rejected) agree: {got}")
            if got:
                seen["non_progress_cycle" if list(got.values())[0][0] else "ok"] += 1
            # --fair (reduce/liveness/fair_cycle.c, issue 31): the three agree, no
            # cycle rejected; fewer runs count as fairness grows stronger
            fair = {}
            for fo in ("--fair=weak", "--fair"):
                res = set()
                for v in (["--reduce=compose"], ["--reduce=none"], ["--store=exact"]):
                    code, js, err = run_json(mcheck, ["--liveness=npc", "--all-errors", fo] + v + [path])
                    res.add(js and (js["error_counts"]["non_progress_cycle"] > 0, js["stop"] in
                                    ("complete", "error"), js["stats"]["cycles_rejected"]))
                check(len(res) == 1 and None not in res and all(c and r == 0 for _, c, r in res),
                      f"random seed {seed} {fo}: (non-progress cycle, complete, rejected) agree: {res}")
                fair[fo] = next(iter(res))
            unfair = got and list(got.values())[0]
            if unfair and fair["--fair=weak"] and fair["--fair"]:
                check(fair["--fair"][0] <= fair["--fair=weak"][0] <= unfair[0],
                      f"random seed {seed}: a fair non-progress cycle is a weakly fair one is a cycle "
                      f"(none {unfair[0]}, weak {fair['--fair=weak'][0]}, strong {fair['--fair'][0]})")
                seen_fair["non_progress_cycle" if fair["--fair"][0] else "ok"] += 1
    print(f"random models: {seen}, with --fair {seen_fair}")
    check(count < 10 or (seen["ok"] and seen["non_progress_cycle"]),
          f"the random sample has models with and without a non-progress cycle: {seen}")


def spin(mcheck):
    if not have_spin():
        return
    for name in ("livelock_backoff", "livelock_ordered"):
        for pan, fair in (([], []), (["-f"], ["--fair=weak"])):  # -f: weak fairness
            spin_npc = spin_non_progress(os.path.join(TOP, "bench", "spin", name + ".pml"),
                                         ["-DNFAIR=3"] if pan else [], pan)
            _, js, _ = run_json(mcheck, ["--liveness=npc"] + fair + [os.path.join(TOP, "models", name + ".bc")])
            ours = js and js["verdict"] == "non_progress_cycle"
            check(spin_npc == ours, f"{name}: SPIN -l {' '.join(pan)} non-progress cycle {spin_npc}, "
                                    f"mcheck {' '.join(fair)} {ours}")


# a's loop passes a progress label, b's does not: the only non-progress
# cycle is b's loop with a never scheduled. --por's persistent set {a}
# (a's step is independent of b's, and a is tried first) holds a progress
# step, so visibility must expand both threads: else copy 1 would have no
# step at all and b's loop would never be explored.
PROGRESS_VISIBLE = """volatile x, y
thread a
progress_a:
    store x, 1
    jmp progress_a
thread b
spin:
    store y, 1
    jmp spin
"""


def por(mcheck):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "progress_visible.bc")
        with open(path, "w") as f:
            f.write(PROGRESS_VISIBLE)
        for extra in ([], ["--por"]):
            code, js, err = run_json(mcheck, ["--liveness=npc"] + extra + [path])
            check(code == 1 and js and js["verdict"] == "non_progress_cycle"
                  and js["stats"]["cycles_rejected"] == 0,
                  f"progress_visible.bc {extra}: b's loop is a non-progress cycle ({code}, "
                  f"{err.strip()[:200]})")


def main():
    (mcheck, gen), count = count_args(sys.argv[1:], 25)
    exact(mcheck)
    bundled(mcheck)
    usage(mcheck)
    replay_check(mcheck)
    replay(mcheck)
    randomized(mcheck, gen, count)
    por(mcheck)
    spin(mcheck)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
