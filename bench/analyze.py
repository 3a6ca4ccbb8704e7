#!/usr/bin/env python3
"""analyze.py: mcheck --analyze's benchmark (issue 33; RATCOP Table 2 and
Table 3's shape).

1. Proved asserts per domain (interval / octagon, thread ids off / on) over
   the bundled models and tests/analyze/'s figures, with the search as the
   ground truth for how many asserts hold (`mcheck --all-errors`, complete
   searches only).
2. Time against thread count: a model of K loosely coupled threads (each
   updates its own two counters under its own lock and asserts their
   relation; RATCOP Table 3's benchmark shape), K = 2 .. 250 static
   instances, and a proc spawned K times (one summary for every instance;
   its x == y needs the region {x, y}: every instance updates both under one
   lock).
   The search's time beside it while it finishes within --timelimit.

usage: bench/analyze.py [--mcheck PATH] [--max-k K] [--timelimit S]
Prints two tables (Markdown).
"""
import argparse
import glob
import json
import os
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [("interval", "off"), ("interval", "on"), ("octagon", "off"), ("octagon", "on")]


def run(cmd, timeout=600):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t0


def precision(mcheck):
    models = sorted(glob.glob(os.path.join(ROOT, "models", "*.bc")) +
                    glob.glob(os.path.join(ROOT, "tests", "analyze", "*.bc")))
    rows = []
    totals = {c: 0 for c in CONFIGS}
    n_asserts = n_true = 0
    for m in models:
        res = {}
        for d, t in CONFIGS:
            p, _ = run([mcheck, "--analyze", "--json", f"--domain={d}", f"--tids={t}", m])
            res[(d, t)] = json.loads(p.stdout)
        asserts = res[CONFIGS[0]]["asserts"]
        if not asserts:
            continue
        s, _ = run([mcheck, "--race=goldilocks", "--all-errors", "--json", "--quiet", "--timelimit", "60", m])
        sj = json.loads(s.stdout)
        fails = {e["line"] for e in sj.get("errors", []) if e["kind"] == "assertion"}
        holds = sum(1 for a in asserts if a["line"] not in fails) if sj.get("complete") else None
        n_asserts += len(asserts)
        n_true += holds or 0
        cells = []
        for c in CONFIGS:
            k = res[c]["proved"]
            totals[c] += k
            cells.append(str(k))
        rows.append((os.path.relpath(m, ROOT), len(asserts), "?" if holds is None else holds,
                     cells))
    print("| model | asserts | hold (search) | " +
          " | ".join(f"{d} tids={t}" for d, t in CONFIGS) + " |")
    print("|---|---|---|" + "---|" * len(CONFIGS))
    for name, n, h, cells in rows:
        print(f"| {name} | {n} | {h} | " + " | ".join(cells) + " |")
    print(f"| **total** | {n_asserts} | {n_true} | " +
          " | ".join(f"**{totals[c]}**" for c in CONFIGS) + " |")


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


def scaling(mcheck, max_k, timelimit):
    print("\n| K | static: analyze ms | proved | search s | proc: analyze ms | proved | "
          "search s |")
    print("|---|---|---|---|---|---|---|")
    search_ok = {"static": True, "proc": True}
    with tempfile.TemporaryDirectory() as tmp:
        for k in [2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 250]:
            if k > max_k:
                break
            cells = [str(k)]
            for kind, gen in (("static", static_model), ("proc", proc_model)):
                if kind == "proc" and k > 250:
                    cells += ["-", "-", "-"]
                    continue
                path = os.path.join(tmp, f"{kind}{k}.bc")
                with open(path, "w") as f:
                    f.write(gen(k))
                p, _ = run([mcheck, "--analyze", "--json", path])
                j = json.loads(p.stdout)
                cells += [f"{j['stats']['seconds'] * 1e3:.1f}",
                          f"{j['proved']}/{len(j['asserts'])}"]
                if search_ok[kind]:
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
    ap.add_argument("--max-k", type=int, default=250)
    ap.add_argument("--timelimit", type=int, default=60)
    a = ap.parse_args()
    precision(a.mcheck)
    scaling(a.mcheck, a.max_k, a.timelimit)


if __name__ == "__main__":
    main()
