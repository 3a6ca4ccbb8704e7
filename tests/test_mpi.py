#!/usr/bin/env python3
"""test_mpi.py: the distributed search (mcheck-mpi, reduce/mpi.c, issue 17)
against the sequential breadth-first search, under `mpirun --oversubscribe`
on this one machine (registered in ctest only when CMake found MPI).

  * a complete search (--all-errors, --store=exact) stores, matches and runs
    exactly what `mcheck --search=bfs --store=exact --all-errors` does: the
    same states, transitions, states matched, instructions, max depth, error
    counts by kind and unreached code, on every bundled model with -np 2 and
    on some with -np 4, on random models of tests/gen_model.c, with the LD',
    Eraser and Goldilocks detectors (their set ids differ between ranks:
    the vectors are translated) and with the compact store; the per-rank
    figures add up to the totals;
  * many rounds a level (MCHECK_MPI_ROUND_BYTES=256) change nothing;
  * no early termination: a model whose frontier is one state a level (on
    one rank, the others idle) for 60 levels is searched to its end;
  * the first error stops every rank; its trace is as short as the
    sequential BFS's, and the JSON report's path replays (mcheck --replay)
    to an error of the same kind;
  * --timelimit and --memlimit stop every rank with exit 3 and the figures
    so far; options the distributed search does not have are usage errors.
Under AddressSanitizer, Open MPI's own leaks are suppressed
(tests/lsan_mpi.supp); two runs check for leaks with full stacks.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import SANITIZER, check, finish  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAME = ("states_stored", "transitions", "states_matched", "instructions",
        "invisible_instructions", "max_depth")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_mca_base_component_disable_dlclose="1",
           OMPI_MCA_rmaps_base_oversubscribe="1",
           LSAN_OPTIONS="suppressions=" + os.path.join(HERE, "lsan_mpi.supp"))
ENV["ASAN_OPTIONS"] = "detect_leaks=0"  # but in leak_env()

# One thread, 60 steps, one state a level: the frontier is on one rank.
CHAIN = """lock m
shared x
thread t
    mov r1, 60
loop:
    acquire m
    load r0, x
    add r0, r0, 1
    store x, r0
    release m
    sub r1, r1, 1
    jnz r1, loop
"""


def leak_env():
    e = dict(ENV)
    e["ASAN_OPTIONS"] = "fast_unwind_on_malloc=0"
    return e


def run(cmd, env=ENV, timeout=120):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    try:
        js = json.loads(p.stdout)
    except ValueError:
        js = None
    if SANITIZER.search(p.stderr):
        check(False, f"{' '.join(cmd)}: sanitizer report:\n{p.stderr[-3000:]}")
    return p.returncode, js, p.stderr


def seq(o, args, model):
    return run([o.mcheck, "--json", "--quiet", "--search=bfs"] + args + [model])


def mpi(o, np, args, model, env=ENV):
    return run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(np),
                o.mcheck_mpi, "--json", "--quiet"] + args + [model], env=env)


def figures(js):
    s = js["stats"]
    return ({k: s.get(k) for k in SAME}, js["stop"], js["error_counts"],
            json.dumps(js.get("unreached")))


def compare(o, model, args, np, label, env=ENV):
    """A complete distributed search against the sequential BFS."""
    rs, s, _ = seq(o, ["--store=exact", "--all-errors"] + args, model)
    rm, m, err = mpi(o, np, ["--store=exact", "--all-errors"] + args, model, env=env)
    if not check(s is not None and m is not None, f"{label}: no report ({err[-500:]})"):
        return None
    check(rs == rm, f"{label}: exit {rm}, sequential {rs}")
    check(figures(s) == figures(m), f"{label}: -np {np}\n  {figures(m)}\n  sequential "
          f"{figures(s)}")
    ranks = m["stats"].get("ranks", [])
    check(len(ranks) == np, f"{label}: {len(ranks)} rank entries for -np {np}")
    check(sum(r["states_stored"] for r in ranks) == m["stats"]["states_stored"] and
          sum(r["transitions"] for r in ranks) == m["stats"]["transitions"],
          f"{label}: the ranks' figures do not add up")
    return m


def bundled(o):
    models = sorted(f for f in os.listdir(o.models) if f.endswith(".bc"))
    for f in models:
        compare(o, os.path.join(o.models, f), [], 2, f)
    for f in ("philosophers.bc", "lockset_triangle.bc"):
        compare(o, os.path.join(o.models, f), [], 4, f + " -np 4")
    for race in ("eraser", "goldilocks"):
        for f in ("lockset_triangle.bc", "prodcons_monitor.bc"):
            compare(o, os.path.join(o.models, f), [f"--race={race}"], 3, f"{f} --race={race}")
    phil = os.path.join(o.models, "philosophers.bc")
    # compact: the union of the ranks' stores holds the same 64-bit fingerprints
    rs, s, _ = seq(o, ["--all-errors"], phil)
    rm, m, _ = mpi(o, 3, ["--all-errors"], phil)
    check(s and m and figures(s) == figures(m), "philosophers compact -np 3: counts differ")
    # many rounds a level
    env = dict(ENV, MCHECK_MPI_ROUND_BYTES="256")
    compare(o, phil, ["-D", "N=4"], 3, "philosophers N=4, 256-byte rounds", env=env)
    compare(o, os.path.join(o.models, "prodcons_monitor.bc"), [], 4,
            "prodcons_monitor, 256-byte rounds", env=env)
    # leaks, with full stacks (Open MPI's suppressed)
    compare(o, os.path.join(o.models, "lockset_triangle.bc"), [], 2,
            "lockset_triangle (leak check)", env=leak_env())


def random_models(o, d):
    for seed in range(1, o.count + 1):
        gen = [o.gen_model, str(seed)] + (["--undisciplined"] if seed % 2 == 0 else [])
        text = subprocess.run(gen, capture_output=True, text=True).stdout
        model = os.path.join(d, f"seed{seed}.bc")
        with open(model, "w") as f:
            f.write(text)
        rc, full, _ = seq(o, ["--store=exact", "--all-errors"], model)
        if full is None or full["stop"] != "complete":
            continue
        compare(o, model, [], 2, f"seed {seed}")
        compare(o, model, ["--race=goldilocks"] if seed % 3 == 0 else [], 4, f"seed {seed} -np 4")


def termination(o, d):
    model = os.path.join(d, "chain.bc")
    with open(model, "w") as f:
        f.write(CHAIN)
    m = compare(o, model, [], 4, "chain (one state a level)")
    if m:
        check(m["stats"]["max_depth"] >= 60, f"chain: max depth {m['stats']['max_depth']}")
        busy = [r for r in m["stats"]["ranks"] if r["states_stored"]]
        check(len(busy) >= 2, "chain: the states did not spread over the ranks")


def first_error(o, d):
    phil = os.path.join(o.models, "philosophers.bc")
    rs, s, _ = seq(o, [], phil)
    for np in (2, 4):
        env = leak_env() if np == 2 else ENV
        rm, m, err = mpi(o, np, [], phil, env=env)
        if not check(m is not None, f"first error -np {np}: no report ({err[-500:]})"):
            continue
        check(rm == 1 and m["verdict"] == "deadlock" and m["stop"] == "error",
              f"first error -np {np}: exit {rm}, verdict {m['verdict']}, stop {m['stop']}")
        check(m["error"]["steps"] == s["error"]["steps"],
              f"first error -np {np}: {m['error']['steps']} steps, the sequential BFS "
              f"{s['error']['steps']}")
        check(m["error"]["replayed"] is True and m["error"]["trace_complete"] is True,
              f"first error -np {np}: the trace did not replay")
        report = os.path.join(d, f"first{np}.json")
        with open(report, "w") as f:
            json.dump(m, f)
        p = subprocess.run([o.mcheck, "--replay", report, phil], capture_output=True, text=True)
        check(p.returncode == 1 and "deadlock" in p.stdout,
              f"first error -np {np}: mcheck --replay exit {p.returncode}:\n{p.stdout[-800:]}")
    # the text report: the trace and a line per rank
    p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2",
                        o.mcheck_mpi, "--quiet", phil], capture_output=True, text=True, env=ENV)
    check(p.returncode == 1 and "ranks=2)" in p.stdout and "trace (" in p.stdout and
          p.stdout.count("\n  rank ") == 2 and "verdict: deadlock" in p.stdout,
          f"text report:\n{p.stdout[-1500:]}")


def limits_and_usage(o):
    phil = os.path.join(o.models, "philosophers.bc")
    rm, m, _ = mpi(o, 2, ["--all-errors", "-D", "N=7", "--timelimit", "0.3"], phil)
    check(rm == 3 and m and m["stop"] == "time_limit" and m["verdict"] == "incomplete",
          f"--timelimit: exit {rm}, {m and m['stop']}")
    rm, m, _ = mpi(o, 2, ["--all-errors", "-D", "N=7", "--memlimit", "2"], phil)
    check(rm == 3 and m and m["stop"] == "memory_limit" and m["stats"]["states_stored"] > 0,
          f"--memlimit: exit {rm}, {m and m['stop']}")
    for args, what in ((["--por"], "--por"), (["--search=dfs"], "--search=dfs"),
                       (["-j", "2"], "-j"), (["--store=bitstate"], "--store=bitstate"),
                       (["--adapt"], "--adapt"), (["--shorten=on"], "--shorten")):
        p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2",
                            o.mcheck_mpi] + args + [phil], capture_output=True, text=True,
                           env=ENV)
        check(p.returncode == 2 and f"mcheck: error: {what}" in p.stderr and
              p.stderr.count("mcheck: error:") == 1,
              f"{' '.join(args)}: exit {p.returncode}, stderr:\n{p.stderr[-800:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("mcheck")
    ap.add_argument("mcheck_mpi")
    ap.add_argument("gen_model")
    ap.add_argument("--models", required=True)
    ap.add_argument("--count", type=int, default=4, help="random models (default 4)")
    o = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcheck-mpi-") as d:
        bundled(o)
        random_models(o, d)
        termination(o, d)
        first_error(o, d)
        limits_and_usage(o)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
