#!/usr/bin/env python3
"""test_parallel.py: the parallel search (-j N, reduce/search/parallel.c, issue 16)
against the sequential one.

On random models (tests/lib/gen_model.c, disciplined and --undisciplined) and on
the bundled models, with 1, 2, 3 and 8 worker threads (more threads than the
machine has cores):

  * a complete search (--all-errors) stores, matches and runs exactly what
    the sequential search does: the same states, transitions, states
    matched, instructions, error counts by kind, interned locksets and
    unreached code, with --store=exact and with the compact store (same
    fingerprints), depth-first and breadth-first, composed and
    --reduce=none, with and without a detector (--race=off, ld, goldilocks);
    --dump-states writes the same set of states;
  * the first-error search (no --all-errors) finds an error iff the
    sequential one does, of a kind the complete search reaches, and its
    trace replays; --search=bfs -j N finds a trace as short as the
    sequential BFS's (a shortest one);
  * --por -j N (persistent sets with the seen-successor proviso, no sleep
    sets) finds the same error kinds and the same deadlocked states as the
    sequential --por, and stores no more states than composition alone;
  * --max-depth with --search=bfs -j N stores what the sequential BFS does;
  * the per-worker figures add up to the totals; the text report shows a
    line per worker; limits (--timelimit, --memlimit, SIGINT) stop every
    worker with exit 3 and the figures so far; options that do not apply
    to -j are usage errors.
"""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import differential  # noqa: E402  (its --por checks' helpers)
from checks import (SANITIZER, check, finish, header, parse_seed_args, seed_parser,  # noqa: E402
                    show_model)

JOBS = (1, 2, 3, 8)
SAME = ("states_stored", "transitions", "states_matched", "instructions",
        "invisible_instructions", "locksets")


def run(mcheck, args, model, timeout=120):
    """One search with --json: (exit status, report or None, stderr). Without
    a --por option it is composition (--por=off), whose counts -j N must
    equal exactly; --por -j N is check_por()'s."""
    if not any(a.startswith("--por") for a in args):
        args = ["--por=off"] + args
    p = subprocess.run([mcheck, "--json", "--quiet"] + args + [model], capture_output=True,
                       text=True, timeout=timeout)
    try:
        js = json.loads(p.stdout)
    except ValueError:
        js = None
    # a sanitizer's report (ThreadSanitizer in the MCHECK_TSAN build) fails the test
    if SANITIZER.search(p.stderr):
        check(False, f"{' '.join(args)} {os.path.basename(model)}: sanitizer report:\n"
              f"{p.stderr[-3000:]}")
    return p.returncode, js, p.stderr


def figures(js):
    """What a complete parallel search must share with the sequential one
    (with --all-errors the verdict is the first error's kind, which depends
    on the order: the error counts by kind do not)."""
    s = js["stats"]
    verdict = js["verdict"] if js["verdict"] in ("ok", "incomplete") else "error"
    return ({k: s.get(k) for k in SAME}, verdict, js["stop"], js["error_counts"],
            json.dumps(js.get("unreached")))


def kinds(js):
    return {k for k, v in js["error_counts"].items() if v}


def dumped(path):
    with open(path) as f:
        return sorted(f.read().split("\n"))


def compare_complete(mcheck, model, base, label, problems, dump_dir=None):
    """Sequential and -j N complete searches with options `base`."""
    rc, seq, err = run(mcheck, base + ["--all-errors"], model)
    if seq is None:
        problems.append(f"{label}: sequential search failed ({rc}): {err.strip()}")
        return None
    if seq["stop"] != "complete":
        return "skip"
    seq_dump = None
    if dump_dir:
        seq_dump = os.path.join(dump_dir, "seq.states")
        run(mcheck, base + ["--all-errors", "--dump-states", seq_dump], model)
    for j in JOBS:
        args = base + ["--all-errors", "-j", str(j)]
        if dump_dir:
            par_dump = os.path.join(dump_dir, f"j{j}.states")
            args += ["--dump-states", par_dump]
        rc, par, err = run(mcheck, args, model)
        if par is None:
            problems.append(f"{label} -j {j}: failed ({rc}): {err.strip()}")
            continue
        if figures(par) != figures(seq):
            problems.append(f"{label} -j {j}: {figures(par)} != sequential {figures(seq)}")
        ws = par["stats"].get("workers", [])
        if len(ws) != j or sum(w["states_stored"] for w in ws) + 0 != par["stats"]["states_stored"]:
            problems.append(f"{label} -j {j}: per-worker figures {ws} do not add up")
        if dump_dir and dumped(par_dump) != dumped(seq_dump):
            problems.append(f"{label} -j {j}: --dump-states differs from the sequential search's")
    return seq


def first_error(mcheck, model, base, label, all_kinds, problems):
    """-j N stopping at the first error: a reachable kind, a trace that replays."""
    rc, seq, _ = run(mcheck, base, model)
    if seq is None or seq["stop"] not in ("complete", "error"):
        return
    for j in (2, 3):
        rc, par, err = run(mcheck, base + ["-j", str(j)], model)
        if par is None:
            problems.append(f"{label} -j {j}: failed ({rc}): {err.strip()}")
            continue
        if (par["verdict"] == "ok") != (seq["verdict"] == "ok"):
            problems.append(f"{label} -j {j}: verdict {par['verdict']}, sequential "
                            f"{seq['verdict']}")
        if par["verdict"] != "ok":
            if par["verdict"] not in all_kinds:
                problems.append(f"{label} -j {j}: verdict {par['verdict']} not among the "
                                f"reachable kinds {sorted(all_kinds)}")
            e = par["error"]
            if not e or not e.get("replayed"):
                problems.append(f"{label} -j {j}: the trace does not replay: {e}")
            elif "--search=bfs" in base and e["steps"] != seq["error"]["steps"]:
                problems.append(f"{label} -j {j}: BFS trace of {e['steps']} steps, the "
                                f"sequential BFS's {seq['error']['steps']}")


def check_por(mcheck, model, label, d, compose_states, problems):
    """--por -j N: the sequential --por's error kinds and deadlocked states,
    and every thread's local states that it reaches (differential.py's
    check against the full search; the seen-successor proviso is what keeps
    a thread from being ignored on a cycle)."""
    sd = os.path.join(d, "por-seq.states")
    rc, seq, _ = run(mcheck, ["--por", "--race=off", "--all-errors", "--dump-states", sd], model)
    if seq is None or seq["stop"] != "complete":
        return
    dead = {l for l in dumped(sd) if l.endswith(" deadlock")}
    blocks = differential.thread_blocks(mcheck, model)
    seq_local = differential.local_states(differential.por_states(sd)[0], blocks)
    for j in (2, 3):
        for order in ("dfs", "bfs"):
            pd = os.path.join(d, f"por-{j}-{order}.states")
            rc, par, err = run(mcheck, ["--por", "--race=off", "--all-errors", f"--search={order}",
                                        "-j", str(j), "--dump-states", pd], model)
            if par is None:
                problems.append(f"{label} --por -j {j} {order}: failed ({rc}): {err.strip()}")
                continue
            if kinds(par) != kinds(seq):
                problems.append(f"{label} --por -j {j} {order}: error kinds {sorted(kinds(par))}"
                                f", sequential --por {sorted(kinds(seq))}")
            lost = {(t, x) for t, x in seq_local - differential.local_states(
                differential.por_states(pd)[0], blocks) if not x.startswith("010000")}
            if lost:
                problems.append(f"{label} --por -j {j} {order}: {len(lost)} local states of "
                                f"threads that the sequential --por reaches are in no stored "
                                f"state, e.g. {sorted(lost)[0]}")
            pdead = {l for l in dumped(pd) if l.endswith(" deadlock")}
            if pdead != dead:
                problems.append(f"{label} --por -j {j} {order}: deadlocked states differ "
                                f"({len(pdead)} against {len(dead)})")
            if compose_states is not None and par["stats"]["states_stored"] > compose_states:
                problems.append(f"{label} --por -j {j} {order}: {par['stats']['states_stored']}"
                                f" states, more than composition's {compose_states}")


def check_seed(opts, seed):
    problems = []
    gen = [opts.gen_model, str(seed), "--size", opts.size]
    if seed % 4 == 3:
        gen.append("--undisciplined")
    text = subprocess.run(gen, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory(prefix="mcheck-par-") as d:
        model = os.path.join(d, f"seed{seed}.bc")
        with open(model, "w") as f:
            f.write(text)
        rc, full, _ = run(opts.mcheck, ["--reduce=none", "--race=off", "--all-errors"], model)
        if full is None or full["stop"] != "complete":
            return "skip", problems, text
        seq = compare_complete(opts.mcheck, model, ["--race=off", "--store=exact"], "exact",
                               problems, dump_dir=d)
        compare_complete(opts.mcheck, model, ["--race=off"], "compact", problems)
        compare_complete(opts.mcheck, model, ["--race=off", "--search=bfs"], "bfs", problems)
        compare_complete(opts.mcheck, model, ["--reduce=none", "--race=off"], "none", problems)
        compare_complete(opts.mcheck, model, [], "ld", problems)
        if seed % 3 == 0:
            compare_complete(opts.mcheck, model, ["--race=goldilocks"], "goldilocks", problems)
            compare_complete(opts.mcheck, model, ["--race=eraser", "--search=bfs"], "eraser",
                             problems)
        all_kinds = kinds(full)
        rc, ld, _ = run(opts.mcheck, ["--all-errors"], model)
        ld_kinds = kinds(ld) if ld else set()
        first_error(opts.mcheck, model, ["--race=off"], "first", all_kinds, problems)
        first_error(opts.mcheck, model, ["--race=off", "--search=bfs"], "first-bfs", all_kinds,
                    problems)
        first_error(opts.mcheck, model, [], "first-ld", ld_kinds | all_kinds, problems)
        check_por(opts.mcheck, model, "por", d,
                  seq["stats"]["states_stored"] if isinstance(seq, dict) else None, problems)
        # --max-depth: breadth-first levels are the same sets in parallel
        rc, b, _ = run(opts.mcheck, ["--race=off", "--search=bfs", "--all-errors",
                                     "--max-depth", "3"], model)
        for j in (2, 3):
            rc, pb, _ = run(opts.mcheck, ["--race=off", "--search=bfs", "--all-errors",
                                          "--max-depth", "3", "-j", str(j)], model)
            if b and pb and figures(pb) != figures(b):
                problems.append(f"max-depth bfs -j {j}: {figures(pb)} != {figures(b)}")
    return ("fail" if problems else "pass"), problems, text


def bundled(opts, models_dir):
    """Each bundled model with its header options: -j 2 and 3 give the
    sequential complete search's counts and the expected verdict."""
    for name in sorted(os.listdir(models_dir)):
        if not name.endswith(".bc"):
            continue
        path = os.path.join(models_dir, name)
        h = header(path)
        base = h.get("options", "").split()
        problems = []
        compare_complete(opts.mcheck, path, base + ["--store=exact"], name, problems)
        for j in (2, 3):
            rc, js, err = run(opts.mcheck, base + ["-j", str(j)], path)
            check(js is not None and js["verdict"] == h["expect"],
                  f"{name} -j {j}: verdict {js and js['verdict']}, expected {h['expect']} {err}")
        for p in problems:
            check(False, p)
        check(not problems, f"{name}: complete -j searches equal the sequential one")


def cli(opts, models_dir):
    mc = opts.mcheck
    phil = os.path.join(models_dir, "philosophers.bc")
    # usage errors
    for args, msg in ((["-j", "x"], "-j: expected a number"),
                      (["-j", "-1"], "-j: expected a number"),
                      (["-j", "100000"], "-j: expected a number"),
                      (["-j", "2", "--lookahead=on"], "applies to the sequential search"),
                      (["-j", "2", "--simulate"], "-j applies to the search")):
        p = subprocess.run([mc] + args + [phil], capture_output=True, text=True)
        check(p.returncode == 2 and msg in p.stderr, f"{args}: exit 2 with '{msg}': "
              f"{p.returncode} {p.stderr.strip()}")
    # -j 0: one worker per core
    rc, js, _ = run(mc, ["-j", "0"], phil)
    check(js and js["options"]["workers"] == (os.cpu_count() or 1),
          f"-j 0: {js and js['options']['workers']} workers, {os.cpu_count()} cores")
    # the text report: header, a line per worker, the trace note
    p = subprocess.run([mc, "-j", "3", "-D", "N=4", phil], capture_output=True, text=True)
    check("workers=3" in p.stdout.splitlines()[0], "text header names the workers")
    check(sum(l.startswith("  worker ") for l in p.stdout.splitlines()) == 3,
          "text report: one line per worker")
    check("the trace is a shortest one to this error (a sequential breadth-first search "
          "after the parallel depth-first one)" in p.stdout, "dfs -j: the trace note (shortened)")
    p = subprocess.run([mc, "-j", "3", "--shorten=off", "-D", "N=4", phil], capture_output=True,
                       text=True)
    check("need not be the shortest" in p.stdout, "dfs -j --shorten=off: the trace note")
    p = subprocess.run([mc, "-j", "3", "--search=bfs", phil], capture_output=True, text=True)
    check("the trace is a shortest one" in p.stdout, "bfs -j: the trace note")
    # limits stop every worker: exit 3, the figures so far (a model without
    # errors: with one found the exit status would be 1)
    phil = os.path.join(models_dir, "prodcons_monitor.bc")
    big = ["-D", "ITEMS=4000", "-D", "CAP=6", "--reduce=none"]
    for j in (2, 8):
        t0 = time.time()
        rc, js, _ = run(mc, big + ["-j", str(j), "--timelimit", "0.5"], phil)
        check(rc == 3 and js and js["stop"] == "time_limit" and js["stats"]["states_stored"] > 0
              and time.time() - t0 < 5, f"-j {j} --timelimit: exit {rc}, {js and js['stop']}")
        rc, js, _ = run(mc, big + ["-j", str(j), "--memlimit", "20"], phil)
        # what the search counts stays near the limit (not the RSS: the
        # ThreadSanitizer build's shadow memory would count)
        check(rc == 3 and js and js["stop"] == "memory_limit"
              and js["stats"]["store_bytes"] + js["stats"]["search_bytes"] < 30 << 20,
              f"-j {j} --memlimit 20: exit {rc}, {js and js['stop']}")
        p = subprocess.run([mc, "--progress", "-j", str(j), "--timelimit", "2.5"] + big + [phil],
                           capture_output=True, text=True)
        check(f"{j} workers" in p.stderr and "states/s" in p.stderr,
              f"-j {j} --progress: a progress line with the totals ({p.stderr!r})")
        p = subprocess.Popen([mc, "--json", "--quiet", "-j", str(j)] + big + [phil],
                             stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=10)
        js = json.loads(out) if out else None
        check(p.returncode == 3 and js and js["stop"] == "interrupted",
              f"-j {j} SIGINT: exit {p.returncode}, {js and js['stop']}")
    # the work is shared: every worker stores states of a search of 10^5 states
    for order in ("dfs", "bfs"):
        rc, js, _ = run(mc, ["-D", "N=6", "--race=off", "--all-errors", f"--search={order}",
                             "-j", "2"], os.path.join(models_dir, "philosophers.bc"))
        ws = js["stats"]["workers"] if js else []
        check(len(ws) == 2 and all(w["states_stored"] * 100 >= js["stats"]["states_stored"]
                                   for w in ws) and (order == "bfs" or
                                                     sum(w["handed_work"] for w in ws) >= 1),
              f"-j 2 {order}: both workers take part: {ws}")
    # the first error stops every worker promptly
    phil = os.path.join(models_dir, "philosophers.bc")
    rc, js, _ = run(mc, ["-D", "N=8", "-j", "2"], phil)
    check(rc == 1 and js["verdict"] == "deadlock" and js["stats"]["states_stored"] < 100000,
          f"-j 2 first error: exit {rc}, {js and js['stats']['states_stored']} states")


def main():
    ap = seed_parser(__doc__)
    ap.add_argument("--models", help="the bundled models' directory (default ../models)")
    opts = parse_seed_args(ap)
    models_dir = opts.models or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "..", "..", "models")
    cli(opts, models_dir)
    bundled(opts, models_dir)
    seeds = range(opts.seed, opts.seed + opts.count)
    skipped = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
        futs = [ex.submit(check_seed, opts, s) for s in seeds]
        for seed, fut in zip(seeds, futs):
            status, problems, text = fut.result()
            if status == "skip":
                skipped += 1
                continue
            for p in problems:
                check(False, f"seed {seed}: {p}")
            if problems:
                show_model(text, seed, opts.keep)
            check(not problems, f"seed {seed}")
    print(f"({skipped} models skipped: too big for the full search)")
    check(skipped * 10 <= max(opts.count, 10), f"{skipped} of {opts.count} seeds skipped")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
