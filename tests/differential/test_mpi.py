#!/usr/bin/env python3
"""test_mpi.py: the distributed search (mcheck-mpi, reduce/mpi/mpi.c, issue 17)
against the sequential breadth-first search, under `mpirun --oversubscribe`
on this one machine (registered in ctest only when CMake found MPI), in both
of its exchanges: by levels (the default: the same max depth as the BFS, and
its shortest traces) and asynchronous (--exchange=async, mpi_async.c: its max
depth is that of the paths it found, at least the sequential BFS's).

  * a complete search (--por=off --all-errors --store=exact) stores, matches
    and runs exactly what `mcheck --por=off --search=bfs --store=exact
    --all-errors` does: the same states, transitions, states matched,
    instructions, max depth, error counts by kind and unreached code, on
    every bundled model with -np 2 and on some with -np 4, on random
    models of tests/lib/gen_model.c, with the LD',
    Eraser and Goldilocks detectors (their set ids differ between ranks:
    the vectors are translated) and with the compact store; the per-rank
    figures add up to the totals;
  * many rounds a level, or 256-byte batches, many of them in flight
    (--mpi-round-bytes 256), also with ranks that look for batches only
    every 300th time round (MCHECK_MPI_POLL_EVERY), change nothing;
  * no early termination: a model whose frontier is one state a level (on
    one rank, the others idle) for 60 levels is searched to its end, in
    both exchanges (the asynchronous one's counting waves);
  * the first error stops every rank; by levels its trace is as short as
    the sequential BFS's, asynchronously at least as long, and the JSON
    report's path replays (mcheck --replay) to an error of the same kind;
  * --timelimit and --memlimit stop every rank with exit 3 and the figures
    so far; options the distributed search does not have, and bad values of
    its own (--mpi-round-bytes, --mpi-progress, --exchange), and
    --max-depth with --exchange=async, are usage errors;
  * a progress line every round (--mpi-progress 0): its last one holds
    every rank's states and the last level;
  * failures: rank 1 out of memory (mcheck-mpi_failalloc, --failalloc),
    SIGTERM to rank 1 and SIGUSR1 to mpirun stop every rank with exit 3 and
    the statistics; SIGINT to mpirun and SIGKILL to rank 1 end mpirun within
    seconds (exit not 0; the killed rank named), never a hang;
  * --por (persistent sets under a static cycle proviso, reduce/mpi/mpi.c):
    por_model() on bundled models (with their options: their expected
    verdicts) and on random ones (disciplined, --spawns, --undisciplined,
    --spurious-wakeups), at -np 1 and 2: the error kinds of the full search
    and of `mcheck --por --search=bfs`, its deadlocked states, no more
    states than without --por, the same figures at every -np, the first
    error against `mcheck --por` and its trace replayed; IGNORE, a model
    whose assertion only the proviso finds (tests/mutate.py's
    mpi-por-no-proviso); --memlimit stops a --por search with exit 3. In
    ctest a share (about 40 s under ASan); --por-all --por-count 30 runs
    every bundled model and every check on each.
Every command line names --por or --por=off: the default is --por wherever
it is sound, mcheck-mpi included.
Under AddressSanitizer, Open MPI's own leaks are suppressed
(tests/differential/lsan_mpi.supp); two runs check for leaks with full stacks.
"""
import argparse
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import SANITIZER, check, finish  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAME = ("states_stored", "transitions", "end_states", "states_matched", "instructions",
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


# --por's static cycle proviso (reduce/mpi/mpi.c, expand()): two threads that
# spin for ever, each on a volatile of its own, so each alone is a
# persistent set, and each step of `a` comes back to the state it left;
# b fails an assertion after three rounds. Both steps close a cycle (a
# jump back), so the proviso expands every state fully; without it the
# search would take {a} everywhere and never see b move.
IGNORE = """volatile x, y
thread a
loop:
    load r0, x
    jmp loop
thread b
again:
    load r0, y
    add r1, r1, 1
    lt r2, r1, 3
    jnz r2, again
    assert 0, "b went round three times"
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


def por_named(args):
    """args with --por=off in front unless they name --por themselves: every
    command line says which search it runs (--por is the default wherever
    it is sound, in mcheck-mpi too)."""
    return args if any(a.startswith("--por") for a in args) else ["--por=off"] + args


def seq(o, args, model):
    return run([o.mcheck, "--json", "--quiet", "--search=bfs"] + por_named(args) + [model])


def mpi(o, np, args, model, env=ENV):
    return run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(np),
                o.mcheck_mpi, "--json", "--quiet"] + por_named(args) + [model], env=env)


def figures(js, depth=True):
    """The figures every complete search of a model has alike; `depth`: the
    max depth too (breadth-first searches only)."""
    s = js["stats"]
    return ({k: s.get(k) for k in SAME if depth or k != "max_depth"}, js["stop"],
            js["error_counts"], json.dumps(js.get("unreached")))


def compare(o, model, args, np, label, env=ENV, mpi_args=(), exchange="async"):
    """A complete distributed search against the sequential BFS; mpi_args:
    mcheck-mpi's own options (--mpi-round-bytes); `exchange`: levels or
    async (whose max depth is only at least the BFS's)."""
    rs, s, _ = seq(o, ["--store=exact", "--all-errors"] + args, model)
    rm, m, err = mpi(o, np, ["--store=exact", "--all-errors", f"--exchange={exchange}"] + args +
                     list(mpi_args), model, env=env)
    if not check(s is not None and m is not None, f"{label}: no report ({err[-500:]})"):
        return None
    label += f" --exchange={exchange}"
    check(rs == rm, f"{label}: exit {rm}, sequential {rs}")
    depth = exchange == "levels"
    check(figures(s, depth) == figures(m, depth), f"{label}: -np {np}\n  {figures(m, depth)}\n"
          f"  sequential {figures(s, depth)}")
    check(m["stats"]["max_depth"] >= s["stats"]["max_depth"],
          f"{label}: max depth {m['stats']['max_depth']}, the BFS {s['stats']['max_depth']}")
    ranks = m["stats"].get("ranks", [])
    check(len(ranks) == np, f"{label}: {len(ranks)} rank entries for -np {np}")
    check(sum(r["states_stored"] for r in ranks) == m["stats"]["states_stored"] and
          sum(r["transitions"] for r in ranks) == m["stats"]["transitions"],
          f"{label}: the ranks' figures do not add up")
    return m


def bundled(o):
    """Returns the reports of the bundled models' complete searches, by name."""
    models = sorted(f for f in os.listdir(o.models) if f.endswith(".bc"))
    reports = {}
    for f in models:  # the two run with -np 4 below are not run with -np 2
        if f not in ("philosophers.bc", "lockset_triangle.bc"):
            reports[f] = compare(o, os.path.join(o.models, f), [], 2, f)
    for f in ("philosophers.bc", "lockset_triangle.bc"):
        reports[f] = compare(o, os.path.join(o.models, f), [], 4, f + " -np 4",
                             exchange="levels")
    for race, exchange in (("eraser", "async"), ("goldilocks", "levels")):
        for f in ("lockset_triangle.bc", "prodcons_monitor.bc"):
            compare(o, os.path.join(o.models, f), [f"--race={race}"], 3, f"{f} --race={race}",
                    exchange=exchange)
    phil = os.path.join(o.models, "philosophers.bc")
    # compact: the union of the ranks' stores holds the same 64-bit fingerprints
    rs, s, _ = seq(o, ["--all-errors"], phil)
    rm, m, _ = mpi(o, 3, ["--all-errors"], phil)
    check(s and m and figures(s, False) == figures(m, False),
          "philosophers compact -np 3: counts differ")
    # many rounds a level; 256-byte batches, many in flight at once
    rounds = ["--mpi-round-bytes", "256"]
    compare(o, phil, ["-D", "N=4"], 3, "philosophers N=4, 256-byte rounds", mpi_args=rounds,
            exchange="levels")
    compare(o, os.path.join(o.models, "prodcons_monitor.bc"), [], 4,
            "prodcons_monitor, 256-byte batches", mpi_args=rounds)
    # ranks that look at the network every 300th time round: batches stay in
    # flight while every rank is idle and waves go by; the counts keep the
    # search going (tests/mutate.py's mpi-async-idle-only ends it early)
    compare(o, os.path.join(o.models, "prodcons_monitor.bc"), [], 3,
            "prodcons_monitor, slow polling", mpi_args=rounds,
            env=dict(ENV, MCHECK_MPI_POLL_EVERY="300"))
    # the progress line, every round: the last one has every rank's states
    rm, m, err = run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "3",
                      o.mcheck_mpi, "--json", "--progress", "--por=off", "--all-errors", "-D",
                      "N=4", "--exchange=levels"] + rounds + ["--mpi-progress", "0", phil])
    lines = [ln for ln in err.splitlines() if ln.startswith("mcheck: ") and "states/s" in ln]
    want = m and (f"mcheck: {m['stats']['states_stored']} states, " ,
                  f" level {m['stats']['max_depth']}, 3 ranks, ")
    check(m and len(lines) > m["stats"]["max_depth"] and lines[-1].startswith(want[0]) and
          want[1] in lines[-1], f"progress lines: {lines[-3:]}, report {m and m['stats']}")
    # asynchronous: a line every wave, the last with every rank's states
    rm, m, err = run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "3",
                      o.mcheck_mpi, "--json", "--progress", "--por=off", "--all-errors", "-D",
                      "N=4", "--exchange=async"] + rounds + ["--mpi-progress", "0", phil])
    lines = [ln for ln in err.splitlines() if ln.startswith("mcheck: ") and "states/s" in ln]
    want = m and f"mcheck: {m['stats']['states_stored']} states, "
    check(m and lines and lines[-1].startswith(want) and "3 ranks, asynchronous" in lines[-1],
          f"progress lines (async): {lines[-3:]}, report {m and m['stats']}")
    # leaks, with full stacks (Open MPI's suppressed)
    compare(o, os.path.join(o.models, "lockset_triangle.bc"), [], 2,
            "lockset_triangle (leak check)", env=leak_env())
    return reports


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
        ex2, ex4 = ("async", "levels") if seed % 2 else ("levels", "async")
        compare(o, model, [], 2, f"seed {seed}", exchange=ex2)
        compare(o, model, ["--race=goldilocks"] if seed % 3 == 0 else [], 4, f"seed {seed} -np 4",
                exchange=ex4)


def termination(o, d):
    model = os.path.join(d, "chain.bc")
    with open(model, "w") as f:
        f.write(CHAIN)
    for exchange in ("levels", "async"):
        m = compare(o, model, [], 4, "chain (one state a level)", exchange=exchange)
        if m:
            check(m["stats"]["max_depth"] >= 60, f"chain: max depth {m['stats']['max_depth']}")
            busy = [r for r in m["stats"]["ranks"] if r["states_stored"]]
            check(len(busy) >= 2, "chain: the states did not spread over the ranks")


def first_error(o, d):
    phil = os.path.join(o.models, "philosophers.bc")
    rs, s, _ = seq(o, [], phil)
    for np, exchange in ((2, "levels"), (4, "async"), (2, "async")):
        env = leak_env() if np == 2 else ENV
        rm, m, err = mpi(o, np, [f"--exchange={exchange}"], phil, env=env)
        if not check(m is not None, f"first error -np {np}: no report ({err[-500:]})"):
            continue
        check(rm == 1 and m["verdict"] == "deadlock" and m["stop"] == "error",
              f"first error -np {np}: exit {rm}, verdict {m['verdict']}, stop {m['stop']}")
        steps, least = m["error"]["steps"], s["error"]["steps"]
        check(steps == least if exchange == "levels" else steps >= least,
              f"first error -np {np} --exchange={exchange}: {steps} steps, the sequential BFS "
              f"{least}")
        check(m["error"]["replayed"] is True and m["error"]["trace_complete"] is True,
              f"first error -np {np}: the trace did not replay")
        report = os.path.join(d, f"first{np}{exchange}.json")
        with open(report, "w") as f:
            json.dump(m, f)
        p = subprocess.run([o.mcheck, "--por=off", "--replay", report, phil],
                           capture_output=True, text=True)
        check(p.returncode == 1 and "deadlock" in p.stdout,
              f"first error -np {np}: mcheck --replay exit {p.returncode}:\n{p.stdout[-800:]}")
    # the text report: the trace and a line per rank
    p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2",
                        o.mcheck_mpi, "--quiet", "--por=off", phil], capture_output=True, text=True,
                       env=ENV)
    check(p.returncode == 1 and "ranks=2)" in p.stdout and "trace (" in p.stdout and
          p.stdout.count("\n  rank ") == 2 and "verdict: deadlock" in p.stdout,
          f"text report:\n{p.stdout[-1500:]}")


def limits_and_usage(o):
    phil = os.path.join(o.models, "philosophers.bc")
    # a model without errors, so that the exit is the limit's at any speed
    # (philosophers.bc's deadlocks are met within 0.3 s by a release build)
    ordered = os.path.join(o.models, "philosophers_ordered.bc")
    rm, m, _ = mpi(o, 2, ["--all-errors", "-D", "N=8", "--timelimit", "0.3"], ordered)
    check(rm == 3 and m and m["stop"] == "time_limit" and m["verdict"] == "incomplete",
          f"--timelimit: exit {rm}, {m and m['stop']}")
    rm, m, _ = mpi(o, 2, ["--all-errors", "-D", "N=8", "--memlimit", "2"], ordered)
    check(rm == 3 and m and m["stop"] == "memory_limit" and m["stats"]["states_stored"] > 0,
          f"--memlimit: exit {rm}, {m and m['stop']}")
    for args, what in ((["--por", "-j", "2"], "-j"),
                       (["--por=off", "--search=dfs"], "--search=dfs"),
                       (["--por", "--store=bitstate"], "--store=bitstate"),
                       (["--mpi-round-bytes", "0"], "--mpi-round-bytes"),
                       (["--mpi-progress", "-1"], "--mpi-progress"),
                       (["--exchange=sometimes"], "--exchange"),
                       (["--max-depth", "3", "--exchange=async"],
                        "--max-depth with --exchange=async")):
        p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2",
                            o.mcheck_mpi] + args + [phil], capture_output=True, text=True,
                           env=ENV)
        check(p.returncode == 2 and f"mcheck: error: {what}" in p.stderr and
              p.stderr.count("mcheck: error:") == 1,
              f"{' '.join(args)}: exit {p.returncode}, stderr:\n{p.stderr[-800:]}")
    # --max-depth by levels (the default): cut short at depth 3 (exit 3), as the BFS
    rs, s, _ = seq(o, ["--all-errors", "--max-depth", "3"], ordered)
    rm, m, _ = mpi(o, 2, ["--all-errors", "--max-depth", "3"], ordered)
    check(rm == rs == 3 and m and s and m["stop"] == s["stop"] and
          m["stats"]["states_stored"] == s["stats"]["states_stored"],
          f"--max-depth 3 --exchange=levels: exit {rm}, {m and m['stop']}, "
          f"{m and m['stats']['states_stored']} states; mcheck exit {rs}, "
          f"{s and s['stats']['states_stored']}")


def rank_pid(mpirun, rank):
    """The pid of MPI rank `rank` among mpirun's children (None if not yet)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != mpirun:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"OMPI_COMM_WORLD_RANK={rank}\0".encode() in f.read():
                    return int(pid)
        except (OSError, ValueError, IndexError):
            continue
    return None


def signalled(o, label, sig, to_mpirun):
    """philosophers_ordered N=8 (no error, minutes long) under -np 2: at the
    first progress line (the search is running), signal `sig` to mpirun or
    to rank 1. Returns (exit status, JSON report, stderr, seconds from the
    signal to mpirun's exit), or None if the search never started."""
    model = os.path.join(o.models, "philosophers_ordered.bc")
    p = subprocess.Popen(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2",
                          o.mcheck_mpi, "--json", "--progress", "--por=off", "--mpi-progress",
                          "0.2", "--mpi-round-bytes", "65536", "-D", "N=8", model],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    err, deadline = b"", time.time() + 60
    while b" states/s, " not in err and time.time() < deadline and p.poll() is None:
        if select.select([p.stderr], [], [], 1.0)[0]:
            err += os.read(p.stderr.fileno(), 65536)
    target = p.pid if to_mpirun else rank_pid(p.pid, 1)
    if not check(b" states/s, " in err and target, f"{label}: the search did not start "
                 f"({err.decode()[-800:]})"):
        p.kill()
        p.communicate()
        return None
    os.kill(target, sig)
    t0 = time.time()
    try:
        out, rest = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, rest = p.communicate()
        check(False, f"{label}: mpirun still running 30 s after the signal (a hang)")
    took = time.time() - t0
    err = (err + rest).decode()
    try:
        js = json.loads(out)
    except ValueError:
        js = None
    if SANITIZER.search(err):
        check(False, f"{label}: sanitizer report:\n{err[-3000:]}")
    return p.returncode, js, err, took


def failures(o):
    """A rank out of memory, interrupted, or killed: every rank stops."""
    # out of memory in rank 1 only (failalloc: its allocations after the
    # 1000th fail): rank 0 reports the stop, exit 3 on every rank
    if o.failalloc:
        model = os.path.join(o.models, "philosophers_ordered.bc")
        args = ["--json", "--quiet", "--por=off", "-D", "N=5", model]
        rc, js, err = run(["mpirun", "--oversubscribe", "--allow-run-as-root",
                           "-np", "1", o.failalloc] + args +
                          [":", "-np", "1", "env", "MCHECK_FAIL_ALLOC_AFTER=1000", o.failalloc] +
                          args)
        check(rc == 3 and js and js["stop"] == "out_of_memory" and
              js["verdict"] == "incomplete" and js["stats"]["states_stored"] > 0 and
              len(js["stats"]["ranks"]) == 2 and
              all(r["states_stored"] > 0 for r in js["stats"]["ranks"]),
              f"rank 1 out of memory: exit {rc}, {js and js['stop']}\n{err[-800:]}")
    # SIGTERM to one rank (as a batch system's kill might): the round's
    # Allreduce carries the interrupt; SIGUSR1 to mpirun, which forwards it
    # to every rank and waits for them
    for label, sig, to_mpirun in (("SIGTERM to rank 1", signal.SIGTERM, False),
                                  ("SIGUSR1 to mpirun", signal.SIGUSR1, True)):
        r = signalled(o, label, sig, to_mpirun)
        if r:
            rc, js, err, took = r
            check(rc == 3 and js and js["stop"] == "interrupted" and
                  js["verdict"] == "incomplete" and js["stats"]["states_stored"] > 0 and
                  len(js["stats"]["ranks"]) == 2 and took < 15,
                  f"{label}: exit {rc} after {took:.1f} s, {js and js['stop']}\n{err[-800:]}")
    # SIGINT to mpirun (Ctrl-C): Open MPI sends SIGTERM to the ranks and
    # kills them a second later; they stop, rank 0 may have printed its
    # report (interrupted), mpirun exits 1; never a hang
    r = signalled(o, "SIGINT to mpirun", signal.SIGINT, True)
    if r:
        rc, js, err, took = r
        check(rc != 0 and took < 15 and (js is None or js["stop"] == "interrupted"),
              f"SIGINT to mpirun: exit {rc} after {took:.1f} s, {js and js['stop']}")
    # SIGKILL to one rank: mpirun ends the job and says which rank died
    r = signalled(o, "SIGKILL to rank 1", signal.SIGKILL, False)
    if r:
        rc, js, err, took = r
        check(rc != 0 and took < 15 and "signal 9" in err,
              f"SIGKILL to rank 1: exit {rc} after {took:.1f} s:\n{err[-1500:]}")


def kinds(js):
    return sorted(k for k, n in js["error_counts"].items() if n)


def por_model(o, model, label, extra=(), nps=(2,), first=False, undisciplined=False,
              nopor=None):
    """mcheck-mpi --por on one model, against the sequential searches:

      * --all-errors at each -np of `nps`: a complete search whose error
        kinds are those of `mcheck --por --search=bfs` and, when the full
        search (--por=off --reduce=none) finds no violation (of LD', or a
        race), those of the full search; else it finds a violation too
        (Theorems 9 and 10); on gen_model --undisciplined's models
        (`undisciplined`: their runtime_error is the unshared violation) a
        subset of the full search's kinds;
      * as many deadlocked states as the sequential `mcheck --por
        --search=bfs` finds: a persistent-set search reaches every deadlock
        of the graph it reduces, whatever its proviso (seen-successor there,
        static here), which changes only what else is stored (other error
        states too: a step into an error is not independent of the steps it
        cuts off, and the persistent sets may leave some of those out);
      * no more states than without --por (`nopor`: mcheck-mpi's report,
        else the sequential BFS's, which compare() shows equal to it);
      * the same figures at every -np (the proviso looks at a state alone,
        so the reduced graph does not depend on the ranks);
      * `first`: the first error (no --all-errors, -np 2) agrees with
        `mcheck --por` (ok iff ok; one of the kinds above; the same one
        when only one kind is reachable), and its trace replays, in the
        report and with `mcheck --por --replay`.
    Returns the -np 2 report (or None)."""
    extra = list(extra)
    base = ["--store=exact", "--all-errors"] + extra
    _, full, _ = seq(o, ["--por=off", "--reduce=none"] + base, model)
    if full is None or full["stop"] != "complete":
        return None  # too big for the full search: not a test model
    kf = kinds(full)
    _, sp, _ = seq(o, ["--por"] + base, model)
    if nopor is None:
        _, nopor, _ = seq(o, ["--por=off"] + base, model)
    if not check(sp and nopor and sp["stop"] == "complete", f"{label}: sequential searches"):
        return None
    seen, m2 = {}, None
    for np in nps:  # -np 2 asynchronous, -np 1 by levels
        ex = ["--exchange=async"] if np == 2 else []
        rm, m, err = mpi(o, np, ["--por"] + ex + base, model)
        if not check(m is not None, f"{label} -np {np}: no report ({err[-500:]})"):
            continue
        km = kinds(m)
        check(rm == (1 if km else 0) and m["stop"] == "complete",
              f"{label} -np {np}: exit {rm}, stop {m['stop']}, kinds {km}")
        viol = ("lock_discipline", "race") + (("runtime_error",) if undisciplined else ())
        if any(k in kf for k in viol):
            ok = any(k in km for k in viol) and (not undisciplined or set(km) <= set(kf))
        else:
            ok = km == kf
        check(ok and km == kinds(sp), f"{label} -np {np}: error kinds {km}, the full search "
              f"{kf}, mcheck --por --search=bfs {kinds(sp)}")
        dm, ds = m["error_counts"]["deadlock"], sp["error_counts"]["deadlock"]
        check(dm == ds, f"{label} -np {np}: {dm} deadlocked states, mcheck --por --search=bfs {ds}")
        ms, ns = m["stats"]["states_stored"], nopor["stats"]["states_stored"]
        check(ms <= ns, f"{label} -np {np}: {ms} states with --por, {ns} without")
        seen[np] = (figures(m, False), m["stats"].get("por_reduced_states"),
                    m["stats"].get("por_proviso_states"))
        if np == 2:
            m2 = m
    check(len(set(map(json.dumps, seen.values()))) <= 1,
          f"{label}: the figures differ between -np {list(seen)}: {list(seen.values())}")
    if first:
        rs, s, _ = run([o.mcheck, "--json", "--quiet", "--por"] + extra + [model])
        rm, m, err = mpi(o, 2, ["--por"] + extra, model)
        if check(s is not None and m is not None, f"{label} first error: no report "
                 f"({err[-500:]})"):
            vs, vm, ks = s["verdict"], m["verdict"], kinds(sp)
            check(rm == rs and (vm == "ok") == (vs == "ok") and
                  (vm == "ok" or vm in ks) and (len(ks) != 1 or vm == vs),
                  f"{label} first error: {vm} (exit {rm}), mcheck --por {vs} (exit {rs}), "
                  f"--all-errors {ks}")
            if vm != "ok":
                check(m["error"]["replayed"] is True and m["error"]["trace_complete"] is True,
                      f"{label} first error: the trace did not replay")
                report = os.path.join(o.tmpdir, os.path.basename(model) + ".first.json")
                with open(report, "w") as f:
                    json.dump(m, f)
                p = subprocess.run([o.mcheck, "--por", "--replay", report] + extra + [model],
                                   capture_output=True, text=True)
                check(p.returncode == 1 and "replay: reproduced" in p.stdout,
                      f"{label} first error: mcheck --por --replay exit {p.returncode}:\n"
                      f"{p.stdout[-800:]}")
    return m2


def model_header(path):
    """A bundled model's `; options:` and `; expect:` lines."""
    opts, expect = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("; options:"):
                opts += line.split(":", 1)[1].split()
            elif line.startswith("; expect:"):
                expect = line.split(":", 1)[1].strip()
    return opts, expect


def por_bundled(o, nopor):
    """mcheck-mpi --por on the bundled models, with their options: their
    expected verdict among the error kinds (ok: none), and por_model()'s
    checks (`nopor`: compare()'s mcheck-mpi reports, by model, for the
    models without options)."""
    names = sorted(f for f in os.listdir(o.models) if f.endswith(".bc"))
    if not o.por_all:
        names = [f for f in names if f in POR_BUNDLED]
    for f in names:
        path = os.path.join(o.models, f)
        opts, expect = model_header(path)
        if "--adapt" in opts:  # not mcheck-mpi's: its verdict is another one
            opts, expect = [], None
        nps = (1, 2) if o.por_all or f in POR_NP1 else (2,)
        m = por_model(o, path, f, opts, nps=nps, first=o.por_all or f in POR_FIRST,
                      nopor=None if opts else nopor.get(f))
        if m and expect:
            check((expect == "ok") == (not kinds(m)) and (expect == "ok" or expect in kinds(m)),
                  f"{f}: --por finds {kinds(m)}, the model expects {expect}")
    # the spurious wakeups a model expects
    path = os.path.join(o.models, "spurious_if_wait.bc")
    m = por_model(o, path, "spurious_if_wait.bc --spurious-wakeups", ["--spurious-wakeups"])
    check(m and kinds(m) == ["assertion"], f"spurious_if_wait --spurious-wakeups: {m and kinds(m)}")


# In ctest (an ASan build, where one mpirun costs about 2 s): these bundled
# models (a deadlock, the detector's set ids, wait/notify, cycles that the
# proviso meets, spawns), and --por-count random ones; --por-all runs every
# bundled model, and every model at -np 1 and 2 and to its first error.
POR_BUNDLED = ("lockset_triangle.bc", "livelock_ordered.bc", "philosophers.bc",
               "prodcons_monitor.bc", "spawn_join.bc")
POR_NP1 = ("livelock_ordered.bc",)
POR_FIRST = ("philosophers.bc",)


def por_random(o, d):
    """por_model() on random models: disciplined ones, with --spawns on every
    fourth seed, --undisciplined on every third, --spurious-wakeups on
    every fifth seed whose model waits, Goldilocks on every seventh."""
    for seed in range(1, o.por_count + 1):
        gen = [o.gen_model, str(seed)]
        undisc = seed % 3 == 0
        if undisc:
            gen.append("--undisciplined")
        elif seed % 4 == 0:
            gen.append("--spawns")
        text = subprocess.run(gen, capture_output=True, text=True).stdout
        model = os.path.join(d, f"por{seed}.bc")
        with open(model, "w") as f:
            f.write(text)
        extra = []
        if seed % 5 == 0 and "wait " in text:
            extra.append("--spurious-wakeups")
        if seed % 7 == 0:  # set ids of another detector, translated between ranks
            extra.append("--race=goldilocks")
        label = f"--por seed {seed}" + "".join(" " + a for a in gen[2:] + extra)
        np1 = o.por_all or seed % 8 == 1
        por_model(o, model, label, extra, nps=(1, 2) if np1 else (2,),
                  first=o.por_all or seed % 8 == 2, undisciplined=undisc)


def por_proviso(o, d):
    """The static proviso is what finds IGNORE's assertion; limits stop a
    --por search cleanly."""
    model = os.path.join(d, "ignore.bc")
    with open(model, "w") as f:
        f.write(IGNORE)
    rm, m, err = mpi(o, 2, ["--por"], model)
    check(rm == 1 and m and m["verdict"] == "assertion" and
          m["stats"]["por_proviso_states"] > 0,
          f"ignore.bc: exit {rm}, {m and m['verdict']} (the cycle proviso)\n{err[-500:]}")
    # a model without errors: the deadlocks of philosophers.bc are met before
    # the limit once the search is asynchronous (errors found: exit 1)
    ordered = os.path.join(o.models, "philosophers_ordered.bc")
    rm, m, _ = mpi(o, 2, ["--por", "--all-errors", "-D", "N=8", "--memlimit", "1"], ordered)
    check(rm == 3 and m and m["stop"] == "memory_limit" and m["stats"]["states_stored"] > 0,
          f"--por --memlimit: exit {rm}, {m and m['stop']}")


def timed(name, f, *a):
    t0 = time.time()
    r = f(*a)
    if os.environ.get("MCHECK_TEST_TIMES"):
        print(f"{name}: {time.time() - t0:.1f} s", file=sys.stderr)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("mcheck")
    ap.add_argument("mcheck_mpi")
    ap.add_argument("gen_model")
    ap.add_argument("--models", required=True)
    ap.add_argument("--count", type=int, default=4, help="random models (default 4)")
    ap.add_argument("--failalloc", help="mcheck-mpi linked with tests/e2e/failalloc.c")
    ap.add_argument("--por-count", type=int, default=7,
                    help="random models for --por (default 7)")
    ap.add_argument("--parts", help="run only these parts, comma-separated (bundled, random, "
                    "por bundled, por random, por proviso, termination, first error, limits, "
                    "failures)")
    ap.add_argument("--por-all", action="store_true",
                    help="--por: every bundled model, -np 1 and 2 and the first error on each "
                         "model (slow)")
    o = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcheck-mpi-") as d:
        o.tmpdir = d
        parts = o.parts.split(",") if o.parts else None

        def part(name, f, *a):
            return timed(name, f, *a) if parts is None or name in parts else None

        reports = part("bundled", bundled, o) or {}
        part("random", random_models, o, d)
        part("por bundled", por_bundled, o, {f: m for f, m in reports.items() if m})
        part("por random", por_random, o, d)
        part("por proviso", por_proviso, o, d)
        part("termination", termination, o, d)
        part("first error", first_error, o, d)
        part("limits", limits_and_usage, o)
        part("failures", failures, o)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
