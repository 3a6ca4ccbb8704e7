#!/usr/bin/env python3
"""--swarm N (reduce/search/swarm.c): N depth-first searches with --por, each
over its own store and in another thread order, the first to end deciding.

- models/ring_opposite.bc at small N: the deadlock found (exit 1), the worker
  that found it named in the text report and the JSON, its trace replayed by
  the search and by `mcheck --replay`; the same ring with the pair in one
  order: ok, complete (every worker's search alone is complete), exit 0;
- every bundled model: the swarm's verdict is one the default search finds
  (with --all-errors: another order may meet another error first), ok
  exactly where the default search says ok;
- --timelimit and SIGINT on a ring too big to finish: every worker stops
  cleanly, the verdict is incomplete (exit 3) with each worker's statistics;
  --max-depth: the worker that searched within it decides (exit 3);
- usage errors: what a swarm of depth-first searches over separate stores
  cannot be combined with.

usage: test_swarm.py MCHECK MODELS_DIR
The last line is "N passed, N failed".
"""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish, header, run_mcheck, run_quiet_json  # noqa: E402

MCHECK = MODELS = None
TMP = tempfile.mkdtemp(prefix="mcheck-swarm-")


def run(*args, timeout=120):
    return run_mcheck(MCHECK, *args, timeout=timeout)


def ring():
    return os.path.join(MODELS, "ring_opposite.bc")


def test_ring_deadlock():
    """The bundled ring at small sizes: the deadlock, named finder, replay."""
    for n, it, workers in (("3", "1", "4"), ("5", "2", "3"), ("6", "1", "8")):
        code, js, err = run_quiet_json(MCHECK, ["--swarm", workers, "-D", f"N={n}",
                                                "-D", f"ITER={it}", ring()])
        what = f"ring N={n} ITER={it} --swarm {workers}"
        if not check(js is not None, f"{what}: JSON ({err.strip()[:200]})"):
            continue
        check(code == 1 and js["verdict"] == "deadlock" and js["stop"] == "error",
              f"{what}: deadlock, exit 1 ({code}, {js['verdict']}, {js['stop']})")
        check(js["error"]["replayed"] and js["error"]["blocked"],
              f"{what}: the trace replays to the deadlock")
        st = js["stats"]
        check(len(st["swarm"]) == int(workers) and st["swarm_decided_by"] in range(int(workers)),
              f"{what}: a line per worker and the one that found it ({st.get('swarm_decided_by')})")
        check(js["options"]["swarm"] == int(workers), f"{what}: options.swarm")
    code, out, err = run("--swarm", "3", "--seed", "17", ring())
    found = re.search(r"^found by swarm worker (\d) \((id|reversed|random) order(, seed (\d+))?\)$",
                      out, re.M)
    check(code == 1 and found is not None, f"text: 'found by swarm worker K (... order)' ({out[-600:]!r})")
    if found:
        k = int(found.group(1))
        want = {0: "id", 1: "reversed", 2: "random"}[k]
        check(found.group(2) == want and (k < 2) == (found.group(4) is None)
              and (k < 2 or found.group(4) == str(17 + k - 2)),
              f"worker {k}'s order and seed: {found.group(0)}")
    check("swarm=3" in out.splitlines()[0], f"the header names the swarm ({out.splitlines()[0]})")
    # the big ring: the reversed order runs the ring first (its persistent
    # sets grow from the thread it runs first), then right before left
    code, js, err = run_quiet_json(MCHECK, ["--swarm", "2", "--timelimit", "30", "-D", "N=10",
                                            "-D", "ITER=3", ring()], timeout=120)
    if check(js is not None, f"ring N=10 --swarm 2: JSON ({err[:200]})"):
        st = js["stats"]
        check(code == 1 and st["swarm_decided_by"] == 1 and st["swarm"][1]["states_stored"] < 1000,
              f"ring N=10 ITER=3 --swarm 2: the reversed worker finds the deadlock at once "
              f"({code}, {st['swarm_decided_by']}, {st['swarm']})")
    # the saved trace replays as any trace does
    tj = os.path.join(TMP, "ring.json")
    code, out, err = run("--swarm", "4", "-D", "N=5", "--trace-json", tj, ring())
    check(code == 1, f"--trace-json with --swarm: exit {code}")
    code, out, err = run("--replay", tj, ring())
    check(code == 1 and "replay: reproduced (deadlock: no thread can move)" in out,
          f"--replay of the swarm's trace reproduces the deadlock ({code}, {out[-300:]!r})")
    code, out, err = run("--replay", tj, "--swarm", "2", ring())
    check(code == 2 and "--swarm cannot be used with --replay" in err, f"--replay --swarm: {err!r}")


def ring_fixed():
    """The ring with the pair in one order: no deadlock."""
    path = os.path.join(TMP, "ring_fixed.bc")
    if not os.path.exists(path):
        with open(ring()) as f:
            text = f.read()
        fixed = text.replace("    acquire b\n    acquire a\n    release a\n    release b\n",
                             "    acquire a\n    acquire b\n    release b\n    release a\n")
        check(fixed != text, "the ring's pair rewritten in one order")
        with open(path, "w") as f:
            f.write(fixed)
    return path


def test_ring_fixed():
    """The pair in one order: no deadlock; the first worker to complete
    makes the swarm complete."""
    path = ring_fixed()
    for workers in ("1", "2", "5"):
        code, js, err = run_quiet_json(MCHECK, ["--swarm", workers, "-D", "N=4", path])
        if check(js is not None, f"fixed ring --swarm {workers}: JSON ({err[:200]})"):
            check(code == 0 and js["verdict"] == "ok" and js["complete"]
                  and js["unreached"] is not None,
                  f"fixed ring --swarm {workers}: ok, complete, exit 0 ({code}, {js['verdict']})")
    code, out, _ = run("--swarm", "3", "-D", "N=4", path)
    check(code == 0 and re.search(r"^completed by swarm worker \d", out, re.M) is not None,
          "text: the worker whose search completed is named")


def test_bundled_models():
    """Every bundled model: the verdict its header expects (which the default
    search gives: run_models.py), or another error the default search finds
    with --all-errors (another order may meet another error first)."""
    for path in sorted(glob.glob(os.path.join(MODELS, "*.bc"))):
        name = os.path.basename(path)
        h = header(path)
        # --all-errors (some models' own option) is the plain search's only
        opts = [o for o in h.get("options", "").split() if o != "--all-errors"]
        scode, sw, serr = run_quiet_json(MCHECK, opts + ["--swarm", "3", path])
        if not check(sw is not None, f"{name} --swarm 3: JSON ({serr.strip()[:200]})"):
            continue
        expect = h.get("expect")
        if expect == "ok" or sw["verdict"] == "ok":
            check(sw["verdict"] == expect and scode == 0 and sw["complete"],
                  f"{name}: --swarm says {sw['verdict']} (exit {scode}), the default search {expect}")
            continue
        kinds = {expect}
        if sw["verdict"] != expect:
            code, plain, err = run_quiet_json(MCHECK, opts + ["--all-errors", path])
            kinds = {k for k, v in plain["error_counts"].items() if v} if plain else set()
        check(sw["verdict"] in kinds and scode == 1 and sw["error"]["replayed"],
              f"{name}: --swarm finds {sw['verdict']} (exit {scode}), one of the default "
              f"search's {sorted(kinds)}, and its trace replays")


def test_id_order_is_the_plain_search():
    path = os.path.join(MODELS, "philosophers_ordered.bc")
    code, plain, _ = run_quiet_json(MCHECK, ["--store=exact", path])
    code1, sw, _ = run_quiet_json(MCHECK, ["--store=exact", "--swarm", "1", path])
    if check(plain is not None and sw is not None, "philosophers_ordered: both reports"):
        check(code1 == 0 and sw["stats"]["states_stored"] == plain["stats"]["states_stored"]
              and sw["stats"]["transitions"] == plain["stats"]["transitions"],
              f"--swarm 1 (worker 0, id order) stores the default search's states "
              f"({sw['stats']['states_stored']}, {plain['stats']['states_stored']})")


def test_timelimit():
    """A ring too big to finish (without the deadlock, so that no order
    meets it first): every worker stops at the time limit."""
    code, js, err = run_quiet_json(MCHECK, ["--swarm", "2", "--timelimit", "1", "-D", "N=10",
                                            "-D", "ITER=3", ring_fixed()], timeout=60)
    if check(js is not None, f"--timelimit: JSON ({err[:200]})"):
        st = js["stats"]
        check(code == 3 and js["verdict"] == "incomplete" and js["stop"] == "time_limit",
              f"--swarm 2 --timelimit 1: incomplete, exit 3 ({code}, {js['verdict']}, {js['stop']})")
        check(st["swarm_decided_by"] is None and len(st["swarm"]) == 2
              and all(w["states_stored"] > 0 for w in st["swarm"])
              and st["states_stored"] == sum(w["states_stored"] for w in st["swarm"])
              and 0.9 < st["seconds"] < 10,
              f"--timelimit: each worker's statistics, summed ({st['swarm']}, {st['seconds']})")
    code, out, _ = run("--swarm", "2", "--timelimit", "0.5", "-D", "N=10", "-D", "ITER=3",
                       ring_fixed(), timeout=60)
    check(code == 3 and "search incomplete: time limit reached" in out
          and re.search(r"swarm worker 1 +reversed order: \d+ states.*time_limit", out),
          f"text: the limit and each worker's stop ({out[-500:]!r})")


def test_signal():
    """SIGINT stops every worker: the statistics so far, exit 3."""
    p = subprocess.Popen([MCHECK, "--swarm", "2", "-D", "N=10", "-D", "ITER=3", ring_fixed()],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check(p.returncode == 3 and "search incomplete: interrupted" in out
          and re.search(r"swarm worker 0 +id order: \d+ states.*interrupted", out),
          f"SIGINT: every worker stopped, exit 3 ({p.returncode}, {out[-400:]!r}, {err[-200:]!r})")


def test_max_depth():
    code, out, _ = run("--swarm", "2", "--max-depth", "5", os.path.join(MODELS, "philosophers_ordered.bc"))
    check(code == 3 and "searched to --max-depth by swarm worker" in out
          and "paths longer than --max-depth were pruned" in out,
          f"--max-depth: the worker that searched within it decides, exit 3 ({code})")


def test_usage():
    for args, want in (
            (["--search=bfs"], "--swarm cannot be used with --search=bfs"),
            (["--search=stateless"], "--swarm cannot be used with --search=stateless"),
            (["-j", "2"], "--swarm cannot be used with -j"),
            (["--liveness=npc"], "--swarm cannot be used with --liveness=npc"),
            (["--liveness=starvation"], "--swarm cannot be used with --liveness=starvation"),
            (["--ltl", "[] true"], "--swarm cannot be used with --ltl"),
            (["--all-errors"], "--swarm cannot be used with --all-errors"),
            (["--reduce=none"], "--swarm cannot be used with --reduce=none"),
            (["--por=off"], "--swarm runs the depth-first search with --por"),
            (["--simulate"], "--swarm applies to the search, not to --simulate"),
            (["--dump"], "--swarm applies to the search, not to --dump")):
        code, out, err = run("--swarm", "2", *args, ring())
        check(code == 2 and want in err and not out, f"--swarm 2 {' '.join(args)}: {err.strip()!r}")
    code, _, err = run("--swarm", "many", ring())
    check(code == 2 and "--swarm: expected a number of workers" in err, f"--swarm many: {err!r}")
    code, _, err = run("--seed", "3", ring())
    check(code == 2 and "--seed applies to --simulate and --swarm" in err, f"--seed alone: {err!r}")


def main():
    global MCHECK, MODELS
    MCHECK, MODELS = sys.argv[1], sys.argv[2]
    for t in (test_usage, test_ring_deadlock, test_ring_fixed, test_id_order_is_the_plain_search,
              test_timelimit, test_signal,
              test_max_depth, test_bundled_models):
        t()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
