#!/usr/bin/env python3
"""No silent wrong answers, and --memlimit counts everything the search holds.

- A bitstate search is labelled as partial coverage: in text (the stop line
  and the coverage estimate) and in JSON (stats.coverage, the estimated
  fraction of states covered; null for the stores that cover every state).
- The hash-compaction warning (omission probability above 1e-6) needs about
  6 million states with 64-bit fingerprints: too slow under ASan. The formula
  is tested in test_store (test_compact_omission_formula); here only that a
  small run prints the probability and no warning.
- --memlimit: a model with a 1 MB state vector stops with "memory_limit"
  (exit 3, verdict incomplete, statistics) under DFS and BFS, with the store
  and the stack/queue within the limit (before this was checked ahead of
  growth, BFS allocated 1024 vectors at once); a bitstate array bigger than
  the limit stops the search at once (the store is counted too).
- The lock-depth limit: a recursive lock's depth is a u16 (LANGUAGE.md's
  layout), so 65535 nested acquires are allowed and the 65536th is the
  runtime error "lock 'm' acquired more than 65535 times", at that acquire,
  in both --reduce modes; the counts are those of the reference enumerator
  (tests/ref/refcheck.py -D DEPTH=65536 --ld: 65537/65536 reduced,
  262142/262141 full; too slow to rerun here). Its trace is 65536 steps
  long, so it is not a tests/semantics model (its golden would be megabytes).
(--max-depth reporting "incomplete" is tested in test_cli.py.)

usage: test_limits.py MCHECK MODELS_DIR
The last line is "N passed, N failed".
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from checks import check, finish

MCHECK = None




def run(*args):
    p = subprocess.run([MCHECK, "--quiet"] + list(args), capture_output=True, text=True,
                       errors="replace", timeout=300)
    return p.returncode, p.stdout, p.stderr


def run_json(*args):
    code, out, err = run("--json", *args)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, None, err + out


# 250000 shared words: a 1 MB state vector; each choice is a new state
BIG_VECTOR = """shared a[250000]
volatile v
thread t[2]
    reg i
loop:
    choose i, 0, 1000
    store v, i
    jmp loop
"""


def test_bitstate_labels(models):
    model = os.path.join(models, "spawn_join.bc")
    code, out, _ = run("--store=bitstate", "--bitstate-mb", "1", model)
    check(code == 0, f"bitstate run of spawn_join exits 0 (got {code})")
    check("search complete (bitstate: partial coverage" in out,
          "bitstate: the stop line says partial coverage:\n" + out)
    check("coverage (estimate)" in out and "bitstate: partial search" in out,
          "bitstate: the statistics show the coverage estimate")
    code, js, _ = run_json("--store=bitstate", "--bitstate-mb", "1", model)
    cov = js and js["stats"].get("coverage")
    check(js is not None and js["options"]["store"] == "bitstate"
          and isinstance(cov, (int, float)) and 0 < cov <= 1,
          f"bitstate JSON: stats.coverage is a fraction (got {cov!r})")
    for store in ("compact", "exact"):
        code, js, _ = run_json("--store=" + store, model)
        check(js is not None and "coverage" in js["stats"] and js["stats"]["coverage"] is None,
              f"{store} JSON: stats.coverage is null")
        code, out, _ = run("--store=" + store, model)
        check("partial" not in out, f"{store}: not labelled partial")


def test_omission_reported(models):
    model = os.path.join(models, "spawn_join.bc")
    code, out, _ = run(model)
    check("omission probability" in out and "warning:" not in out,
          "compact: omission probability printed, no warning on a small run")


def test_memlimit_counts_everything(tmp):
    path = os.path.join(tmp, "big_vector.bc")
    with open(path, "w") as f:
        f.write(BIG_VECTOR)
    # 5 MB: a few of these 1 MB vectors. The DFS holds two vectors and per
    # level a frame and an undo record (tens of bytes), so with hash
    # compaction a much bigger limit would take millions of states to reach.
    limit = 5
    for search in ("dfs", "bfs"):
        for store in ("compact", "exact"):
            # --race=off: 1 MB vectors (LD' metadata would add 5 bytes per
            # element, and three such vectors alone are past 5 MB)
            code, js, err = run_json("--race=off", "--search=" + search, "--store=" + store,
                                     "--memlimit", str(limit), path)
            what = f"--memlimit {limit} --search={search} --store={store}"
            if js is None:
                check(False, f"{what}: JSON report\n{err[-2000:]}")
                continue
            st = js["stats"]
            used = st["store_bytes"] + st["search_bytes"]
            check(code == 3 and js["stop"] == "memory_limit" and js["verdict"] == "incomplete",
                  f"{what}: exit 3, memory_limit (got {code}, {js['stop']})")
            check(st["states_stored"] > 1, f"{what}: searched before stopping")
            check(used <= (limit << 20) + 2 * st["state_vector_bytes"],
                  f"{what}: store + stack/queue {used} bytes within the limit")
    code, js, _ = run_json("--store=bitstate", "--bitstate-mb", "16", "--memlimit", "8", path)
    check(code == 3 and js is not None and js["stop"] == "memory_limit",
          "a 16 MB bit array under --memlimit 8 stops with memory_limit")


# acquire m DEPTH times (every acquire of a held lock nests), then release it
# as often; the release loop is one invisible run of 4 * DEPTH instructions
LOCK_DEPTH = """const DEPTH = 65535
lock m
shared x
thread t
    reg n, c
more:
    acquire m
    add n, n, 1
    lt c, n, DEPTH
    jnz c, more
    store x, n
less:
    release m
    sub n, n, 1
    jnz n, less
"""


def test_lock_depth_limit(tmp):
    path = os.path.join(tmp, "lock_depth.bc")
    with open(path, "w") as f:
        f.write(LOCK_DEPTH)
    code, js, err = run_json("--max-invisible", "300000", path)
    check(code == 0 and js is not None and js["verdict"] == "ok"
          and js["stats"]["states_stored"] == 65536,
          f"65535 nested acquires of m are allowed (got {code}, "
          f"{js and js['verdict']}, {js and js['stats']['states_stored']})\n{err[-500:]}")
    # text, not JSON: the 65536-step trace is 15 MB of text, 74 MB of JSON
    for mode, states, transitions in (("compose", 65537, 65536), ("none", 262142, 262141)):
        code, out, err = run("-D", "DEPTH=65536", "--reduce=" + mode, path)
        head = out[:400].splitlines()
        check(code == 1 and len(head) > 2
              and head[1] == "error: lock 'm' acquired more than 65535 times"
              and head[2] == f"  in t at {path}:7: acquire m"
              and "\nverdict: runtime_error\n" in out,
              f"--reduce={mode}: the 65536th acquire is a runtime error at line 7 (got {code}, "
              f"{head[:3]})\n{err[-500:]}")
        got = re.findall(r"^  (states stored|transitions) +(\d+)", out, re.M)
        check(got == [("states stored", str(states)), ("transitions", str(transitions))],
              f"--reduce={mode}: refcheck's counts {states}/{transitions} (got {got})")


def main():
    global MCHECK
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    MCHECK, models = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="mcheck-limits-") as tmp:
        test_bitstate_labels(models)
        test_omission_reported(models)
        test_memlimit_counts_everything(tmp)
        test_lock_depth_limit(tmp)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
