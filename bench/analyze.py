#!/usr/bin/env python3
"""analyze.py: mcheck --analyze's benchmark (issue 33; RATCOP Table 2 and
Table 3's shape).

1. Proved asserts per domain (interval / octagon, thread ids off / on) over
   three groups: the bundled models and tests/analyze/'s figures; the
   published programs translated in bench/external/ (issue 30); and the
   SV-COMP programs ported with locks in tests/analyze/ratcop/ (RATCOP
   Table 2's way). The search is the ground truth (`--race=goldilocks
   --all-errors`, complete searches only): whether the model is race-free
   (the analysis's premise) and how many asserts hold. The percentages are
   over the true asserts of race-free models.
2. Time against thread count: a model of K loosely coupled threads (each
   updates its own two counters under its own lock and asserts their
   relation; RATCOP Table 3's benchmark shape), K = 2 .. 1000 static
   instances (past 255, the language's limit, only --analyze alone takes
   the model), with the analysis's peak resident memory; and a proc
   spawned K times up to 250 (one summary for every instance; its x == y
   needs the region {x, y}: every instance updates both under one lock).
   The search's time beside it while it finishes within --timelimit.

usage: bench/analyze.py [--mcheck PATH] [--max-k K] [--timelimit S]
                        [--truth-timelimit S] [--no-precision] [--no-scaling]
Prints the tables (Markdown).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [("interval", "off"), ("interval", "on"), ("octagon", "off"), ("octagon", "on")]


def run(cmd, timeout=600):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t0


ASSERT = re.compile(r"^\s*(\w+:)?\s*assert\b", re.M)
GROUPS = [("bundled models and tests/analyze/", ["models/*.bc", "tests/analyze/*.bc"]),
          ("ported: bench/external/ (issue 30's translations)", ["bench/external/*.bc"]),
          ("ported with locks: tests/analyze/ratcop/ (RATCOP Table 2's way)",
           ["tests/analyze/ratcop/*.bc"])]


def search_truth(mcheck, model, asserts, timelimit, tmp):
    """(complete, race, failing lines) by the search (--race=goldilocks
    --all-errors). It keeps the first errors' paths only: when some were
    dropped, an assert not among them is searched alone (the other asserts
    made nops, lines kept)."""
    s, _ = run([mcheck, "--race=goldilocks", "--all-errors", "--json", "--quiet", "--timelimit",
                str(timelimit), model], timeout=timelimit + 120)
    sj = json.loads(s.stdout)
    errors = sj.get("errors", [])
    race = any(e["kind"] == "race" for e in errors) or sj.get("error_counts", {}).get("race", 0) > 0
    fails = {e["line"] for e in errors if e["kind"] == "assertion"}
    complete = sj.get("complete", False)
    if complete and sum(sj.get("error_counts", {}).values()) > len(errors):
        with open(model) as f:
            src = f.read().split("\n")
        for a in asserts:
            if a["line"] in fails:
                continue
            out = [l if n == a["line"] or not ASSERT.match(l) else re.sub(r"assert\b.*", "nop", l)
                   for n, l in enumerate(src, 1)]
            path = os.path.join(tmp, "alone.bc")
            with open(path, "w") as f:
                f.write("\n".join(out))
            r, _ = run([mcheck, "--race=goldilocks", "--all-errors", "--json", "--quiet",
                        "--timelimit", str(timelimit), path], timeout=timelimit + 120)
            rj = json.loads(r.stdout)
            complete &= rj.get("complete", False)
            if any(e["kind"] == "assertion" for e in rj.get("errors", [])):
                fails.add(a["line"])
    return complete, race, fails


def precision(mcheck, timelimit):
    print("| model | asserts | race-free (search) | hold (search) | " +
          " | ".join(f"{d} tids={t}" for d, t in CONFIGS) + " |")
    print("|---|---|---|---|" + "---|" * len(CONFIGS))
    summary = []
    with tempfile.TemporaryDirectory() as tmp:
        for title, pats in GROUPS:
            models = sorted(m for pat in pats for m in glob.glob(os.path.join(ROOT, pat)))
            print(f"| *{title}* | | | |" + " |" * len(CONFIGS))
            n_asserts = n_true = 0
            totals = {c: 0 for c in CONFIGS}      # proved, every row
            true_proved = {c: 0 for c in CONFIGS}  # proved among the race-free rows' true asserts
            for m in models:
                with open(m) as f:
                    if not ASSERT.search(f.read()):
                        continue
                res = {}
                for d, t in CONFIGS:
                    p, _ = run([mcheck, "--analyze", "--json", f"--domain={d}", f"--tids={t}", m])
                    res[(d, t)] = json.loads(p.stdout)
                asserts = res[CONFIGS[0]]["asserts"]
                if not asserts:
                    continue
                complete, race, fails = search_truth(mcheck, m, asserts, timelimit, tmp)
                holds = sum(1 for a in asserts if a["line"] not in fails) if complete else None
                n_asserts += len(asserts)
                if complete and not race:
                    n_true += holds
                cells = []
                for c in CONFIGS:
                    k = res[c]["proved"]
                    totals[c] += k
                    if complete and not race:
                        true_proved[c] += sum(1 for a in res[c]["asserts"]
                                              if a["status"] == "proved" and a["line"] not in fails)
                    cells.append(str(k))
                rf = "?" if not complete and not race else "no" if race else "yes"
                print(f"| {os.path.relpath(m, ROOT)} | {len(asserts)} | {rf} | "
                      f"{'?' if holds is None else holds} | " + " | ".join(cells) + " |", flush=True)
            print(f"| **total** | {n_asserts} | | {n_true} (race-free) | " +
                  " | ".join(f"**{totals[c]}**" for c in CONFIGS) + " |")
            summary.append((title, n_true, true_proved))
    print()
    for title, n_true, tp in summary:
        print(f"- {title}: of {n_true} true asserts of race-free models, " + ", ".join(
            f"{d} tids={t} {tp[(d, t)]} ({100 * tp[(d, t)] / max(n_true, 1):.0f}%)"
            for d, t in CONFIGS))
    all_true = sum(n for _, n, _ in summary)
    print(f"- all: of {all_true}, " + ", ".join(
        f"{d} tids={t} {sum(tp[(d, t)] for _, _, tp in summary)} "
        f"({100 * sum(tp[(d, t)] for _, _, tp in summary) / max(all_true, 1):.0f}%)"
        for d, t in CONFIGS))


def static_model(k):
    src = [f"const K = {k}", "lock m[K]", "shared x[K], y[K]", "thread w[K]"]
    src += ["    reg a, b, ok, i", "loop:", "    acquire m[self]", "    load a, x[self]",
            "    load b, y[self]", "    add a, a, 1", "    add b, b, 1", "    store x[self], a",
            "    store y[self], b", "    eq ok, a, b", "    assert ok, \"x == y\"",
            "    release m[self]", "    add i, i, 1", "    lt ok, i, 2", "    jnz ok, loop"]
    return "\n".join(src) + "\n"


def proc_model(k):
    src = [f"const K = {k}", "lock m", "shared x, y", "region xy = x, y", f"proc w max K",
           "    reg a, b, ok",
           "    acquire m", "    load a, x", "    load b, y", "    add a, a, 1",
           "    add b, b, 1", "    store x, a", "    store y, b", "    sub ok, a, b",
           "    eq ok, ok, 0", "    assert ok, \"x == y\"", "    release m",
           "thread main", "    reg i, t, ok", "spawn_all:", "    spawn t, w, i", "    add i, i, 1",
           "    lt ok, i, K", "    jnz ok, spawn_all"]
    return "\n".join(src) + "\n"


def run_rss(cmd, timeout=3600):
    """Run cmd; (stdout, exit status, peak resident MB of that process)."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return out.read().decode(), p.returncode, ru.ru_maxrss / 1024


def scaling(mcheck, max_k, timelimit):
    print("\n| K | static: analyze ms | MB | proved | search s | proc: analyze ms | proved | "
          "search s |")
    print("|---|---|---|---|---|---|---|---|")
    search_ok = {"static": True, "proc": True}
    with tempfile.TemporaryDirectory() as tmp:
        for k in [2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 250, 500, 1000]:
            if k > max_k:
                break
            cells = [str(k)]
            for kind, gen in (("static", static_model), ("proc", proc_model)):
                if kind == "proc" and k > 255:  # a proc's max is at most 255
                    cells += ["-", "-", "-"]
                    continue
                path = os.path.join(tmp, f"{kind}{k}.bc")
                with open(path, "w") as f:
                    f.write(gen(k))
                out, _, mb = run_rss([mcheck, "--analyze", "--json", path])
                j = json.loads(out)
                cells += [f"{j['stats']['seconds'] * 1e3:.1f}"]
                if kind == "static":
                    cells.append(f"{mb:.0f}")
                cells.append(f"{j['proved']}/{len(j['asserts'])}")
                if k > 255:  # the search takes the language's 255 threads at most
                    cells.append("(> 255 threads)")
                elif search_ok[kind]:
                    s, secs = run([mcheck, "--quiet", "--timelimit", str(timelimit), path],
                                  timeout=timelimit + 60)
                    if s.returncode == 3:
                        search_ok[kind] = False
                        cells.append(f"> {timelimit}")
                    else:
                        cells.append(f"{secs:.2f}")
                else:
                    cells.append("-")
            print("| " + " | ".join(cells) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcheck", default=os.path.join(ROOT, "build", "tools", "mcheck"))
    ap.add_argument("--max-k", type=int, default=1000)
    ap.add_argument("--timelimit", type=int, default=60)
    ap.add_argument("--truth-timelimit", type=int, default=60,
                    help="the search that says which asserts hold, per model")
    ap.add_argument("--no-precision", action="store_true", help="the time table only")
    ap.add_argument("--no-scaling", action="store_true", help="the precision table only")
    a = ap.parse_args()
    if not a.no_precision:
        precision(a.mcheck, a.truth_timelimit)
    if not a.no_scaling:
        scaling(a.mcheck, a.max_k, a.timelimit)


if __name__ == "__main__":
    main()
