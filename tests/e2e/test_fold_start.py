#!/usr/bin/env python3
"""End-to-end tests of --por's first device, a thread's invisible start folded
into the step before it (issue 15: the static threads' at the initial state,
a spawned thread's in its spawn step; reduce/ts/step.c, step_fold_start()).
What it promises: the philosophers' counts (6^N instead of 7^N); on every
bundled and semantics model the verdict and error kinds of the search without
--por, never more states, and only states that search stores; a start that
would err (assertion, division by zero, BoundedInvis) or touch a global is not
folded, so its error is still found, with a trace that replays; traces show
the folded instructions (text: a "start:" section, JSON: step 0 entries).
It does not test the persistent sets --por will add.

usage: test_fold_start.py MCHECK MODELS_DIR
The last line is "N passed, N failed".
"""
import json
import os
import re
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish, header, run_mcheck, write_model  # noqa: E402

MCHECK = None
MODELS = None
TMP = tempfile.mkdtemp(prefix="mcheck-fold-")
START = "start:  each thread's invisible first instructions (--por)"


def model(name, text):
    return write_model(TMP, name, text)


def run(*args, timeout=600):
    # "without --por" here is composition alone, named --por=off: the
    # default search is --por
    if not any(a.startswith("--por") for a in args):
        args = ("--por=off",) + args
    return run_mcheck(MCHECK, *args, timeout=timeout)


def run_json(*args):
    code, out, err = run("--json", "--quiet", *args)
    try:
        return code, json.loads(out)
    except json.JSONDecodeError:
        return code, None


def states(*args):
    path = os.path.join(TMP, "dump")
    run("--quiet", "--store=exact", "--dump-states", path, *args)
    with open(path) as f:
        return set(line.strip() for line in f if line.strip())


def trace_rows(out):
    """The text trace's rows as (step, thread, instruction), and the line
    before the first row (the note after an instruction, `  ; ...`, left
    out)."""
    body = out.split("  step  thread          line  instruction\n")[1]
    rows, first = [], None
    for line in body.splitlines():
        if not re.match(r"^[ 0-9]{6}  \S", line):
            if rows or first is not None:
                break
            first = line
            continue
        rows.append((line[:6].strip(), line[8:23].strip(), line[29:].split("  ; ")[0].strip()))
    return first, rows


def test_philosophers():
    phil = os.path.join(MODELS, "philosophers.bc")
    for n, plain, por in ((3, 343, 216), (4, 2401, 1296), (5, 16807, 7776)):
        opts = ["--race=off", "--all-errors", "--store=exact", "-D", f"N={n}", phil]
        _, a = run_json(*opts)
        code, b = run_json("--por", *opts)
        # 6^N with the starts folded; the persistent sets remove more (a
        # philosopher's own forks are nobody else's business while he holds
        # them: Stoller's Figure 3), and keep every deadlock: 3^N of them,
        # one per meal count
        check(a and b and a["stats"]["states_stored"] == plain
              and 0 < b["stats"]["states_stored"] <= por
              and b["verdict"] == a["verdict"] == "deadlock" and code == 1,
              f"philosophers N={n}: {plain} states, at most {por} = 6^{n} "
              f"with --por ({a and a['stats']['states_stored']}, "
              f"{b and b['stats']['states_stored']})")
        check(a and b and a["error_counts"]["deadlock"] == b["error_counts"]["deadlock"] == 3 ** n,
              f"philosophers N={n}: --por keeps all 3^{n} deadlocked states "
              f"({a and a['error_counts']}, {b and b['error_counts']})")
        # the folded instructions are counted: 3 per philosopher, once
        check(b and b["stats"]["instructions"] > 0
              and b["stats"]["invisible_instructions"] >= 3 * n,
              f"philosophers N={n}: folded instructions counted")
    # issue 15's target: at most the hand-reduced SPIN model's 279,936 = 6^7
    code, b = run_json("--por", "--race=off", "--all-errors", "--store=exact", "-D", "N=7", phil)
    check(code == 1 and b and 0 < b["stats"]["states_stored"] <= 279936,
          f"philosophers N=7 with --por: at most 279936 states ({b and b['stats']['states_stored']})")
    # the default search is untouched: its figure with LD' on
    _, a = run_json("--all-errors", "--store=exact", phil)
    check(a and a["stats"]["states_stored"] == 729, "philosophers without --por: 729 states")


def kinds(js):
    """The kinds of error a search past errors found."""
    return sorted(k for k, n in js.get("error_counts", {}).items() if n)


def test_bundled_models():
    """Verdict, exit status and error kinds as without --por; no more states;
    with --race=off, only states the search without --por stores."""
    paths = [os.path.join(MODELS, f) for f in sorted(os.listdir(MODELS)) if f.endswith(".bc")]
    sem = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "semantics")
    paths += [os.path.join(sem, f) for f in sorted(os.listdir(sem)) if f.endswith(".bc")]
    fewer = 0
    for path in paths:
        name = os.path.basename(path)
        opts = header(path).get("options", "").split()
        for race in ("ld",) if "--adapt" in opts else ("ld", "off", "goldilocks"):
            o = opts + ["--all-errors", "--store=exact", f"--race={race}", path]
            ca, a = run_json(*o)
            cb, b = run_json("--por", *o)
            if not check(a and b, f"{name} --race={race}: both searches report"):
                continue
            sa, sb = a["stats"]["states_stored"], b["stats"]["states_stored"]
            ka, kb = kinds(a), kinds(b)
            check(ca == cb and a["verdict"] == b["verdict"] and ka == kb,
                  f"{name} --race={race}: --por gives verdict {b['verdict']} exit {cb} "
                  f"kinds {kb}, without {a['verdict']} exit {ca} {ka}")
            check(sb <= sa, f"{name} --race={race}: {sb} states with --por, {sa} without")
            fewer += sb < sa
            for e in b.get("errors", [b.get("error")]):
                if e:
                    check(e["replayed"], f"{name} --race={race}: the trace replays with --por")
        if "--adapt" not in opts:
            a = states(*opts, "--all-errors", "--race=off", path)
            b = states(*opts, "--all-errors", "--race=off", "--por", path)
            check(b <= a, f"{name}: every state of --por is one of the search without it "
                          f"({len(b - a)} are not)")
    check(fewer >= 10, f"--por stores fewer states on many models ({fewer} runs)")


PREFIX_ASSERT = """lock m
shared x
thread a
    reg v
    mov v, 0
    assert v, "a starts wrong"
    acquire m
    release m
thread b
    reg w
    mov w, 1
    add w, w, 1
    acquire m
    store x, w
    release m
"""


def test_prefix_assertion():
    path = model("prefix_assert.bc", PREFIX_ASSERT)
    code, out, _ = run("--por", "--search=bfs", path)
    check(code == 1 and "error: assertion violated: a starts wrong" in out
          and "did not replay" not in out,
          f"an assertion in a thread's start is found with --por, exit 1 ({code}, {out[:400]})")
    first, rows = trace_rows(out)
    # b's start is folded, a's is not: a stands at pc 0, its step meets the error
    check(first == START and rows == [("", "b", "mov w, 1"), ("", "b", "add w, w, 1"),
                                      ("1", "a", "mov v, 0"),
                                      ("2", "a", 'assert v, "a starts wrong"')],
          f"the start section has b's instructions only, a's step meets the error: {first} {rows}")
    for opt in ([], ["--race=off"]):
        ca, a = run_json("--all-errors", "--store=exact", *opt, path)
        cb, b = run_json("--por", "--all-errors", "--store=exact", *opt, path)
        check(ca == cb == 1 and a["verdict"] == b["verdict"] == "assertion"
              and b["stats"]["states_stored"] <= a["stats"]["states_stored"],
              f"prefix assertion {opt}: same verdict, no more states "
              f"({a['stats']['states_stored']} -> {b['stats']['states_stored']})")
    code, js = run_json("--por", "--search=bfs", path)
    tr = js["error"]["trace"]
    starts = [e for e in tr if e["step"] == 0]
    check(js["error"]["replayed"] and starts and all(e.get("start") is True for e in starts)
          and all(e["thread"] == "b" for e in starts)
          and all("start" not in e for e in tr if e["step"] > 0),
          f"JSON trace: the start's entries are step 0 with \"start\": true ({tr})")


def test_prefix_division_by_zero():
    path = model("prefix_div.bc", PREFIX_ASSERT.replace('assert v, "a starts wrong"', "div v, 7, v"))
    for opt in ([], ["--search=bfs"], ["--race=off"]):
        ca, a = run_json("--all-errors", *opt, path)
        cb, b = run_json("--por", "--all-errors", *opt, path)
        check(ca == cb == 1 and a["verdict"] == b["verdict"] == "runtime_error"
              and "by zero" in b["error"]["message"] and b["error"]["replayed"]
              and b["error"]["instruction"] == "div v, 7, v",
              f"a division by zero in a thread's start is found with --por {opt} "
              f"({b and b['error']})")


def test_prefix_bounded_invisible():
    path = model("prefix_spin.bc", "lock m\nthread t\n    mov r0, 1\nloop:\n    add r0, r0, 1\n"
                                   "    jmp loop\nthread u\n    mov r1, 2\n    acquire m\n")
    for opt in ([], ["--por"]):
        code, js = run_json("--max-invisible", "50", *opt, path)
        check(code == 1 and js["verdict"] == "runtime_error"
              and js["error"]["message"] == "no visible operation within 50 steps"
              and js["error"]["thread"] == "t",
              f"BoundedInvis in a thread's start {opt}: still an error of t ({js and js['error']})")


SPAWN = """const K = 2
lock m
shared total
thread main
    reg i, id
    mov i, 0
next:
    spawn id, worker, i
    add i, i, 1
    lt r1, i, K
    jnz r1, next
    join id
proc worker max K
    reg t
    mov t, self
    add t, t, 10
    acquire m
    load r1, total
    add r1, r1, t
    store total, r1
    eq r2, r1, 21
    assert r2, "not both"
    release m
"""


def test_spawned_prefix():
    ok = model("spawn_ok.bc", SPAWN.replace('assert r2, "not both"', "nop"))
    bad = model("spawn_bad.bc", SPAWN)
    for path, verdict in ((ok, "ok"), (bad, "assertion")):
        for opt in ([], ["--race=off"], ["--search=bfs"]):
            ca, a = run_json("--all-errors", "--store=exact", *opt, path)
            cb, b = run_json("--por", "--all-errors", "--store=exact", *opt, path)
            check(ca == cb and a["verdict"] == b["verdict"] == verdict
                  and b["stats"]["states_stored"] < a["stats"]["states_stored"],
                  f"{os.path.basename(path)} {opt}: a spawned thread's start folded: "
                  f"{verdict}, {a['stats']['states_stored']} -> {b['stats']['states_stored']} states")
    code, out, _ = run("--por", "--search=bfs", bad)
    first, rows = trace_rows(out)
    # the spawn step: the spawn, the spawner's tail, then the child's start,
    # shown under the child's name without a step number of its own
    want = [("", "main", "mov i, 0"), ("1", "main", "spawn id, worker, i"),
            ("", "main", "add i, i, 1"), ("", "main", "lt r1, i, K"), ("", "main", "jnz r1, next"),
            ("", "worker[0]", "mov t, self"), ("", "worker[0]", "add t, t, 10"),
            ("2", "worker[0]", "acquire m")]
    check(code == 1 and first == START and rows[:len(want)] == want
          and "did not replay" not in out,
          f"a spawned thread's start is listed in its spawn step: {rows}")


# Starts that read a shared variable: folded when no `store` names it (it
# reads the initial value whatever the others do; issue 28), not when some
# thread writes it, nor under `init T` (the first access decides LD').
READS = """shared cfg[2] = {3, 4}
lock m
shared x
thread t[3]
    reg a, b
    load a, cfg[0]
    load b, cfg[1]
    add a, a, b
    acquire m
    store x, a
    release m
"""


def test_read_only_start():
    ro = model("reads_ro.bc", READS)
    written = model("reads_written.bc", READS.replace("    release m\n",
                                                      "    store cfg[0], 5\n    release m\n"))
    # `init t`, and u reads it too: the first access must be a t's
    init = model("reads_init.bc", READS.replace("shared cfg[2] = {3, 4}",
                                                "shared cfg[2] = {3, 4} init t")
                 + "thread u\n    reg a\n    load a, cfg[0]\n")
    got = {}
    for name, path in (("ro", ro), ("written", written), ("init", init)):
        _, a = run_json("--all-errors", "--store=exact", path)
        _, b = run_json("--por", "--all-errors", "--store=exact", path)
        code, out, _ = run("--por", "--search=bfs", "--race=off", "--all-errors", path)
        first, rows = trace_rows(out) if "step  thread" in out else (None, [])
        got[name] = (a["verdict"], b["verdict"], a["stats"]["states_stored"],
                     b["stats"]["states_stored"])
    check(got["ro"][:2] == ("ok", "ok") and got["ro"][3] == 8 and got["ro"][2] == 27,
          f"a start that reads a variable nobody writes is folded: 27 -> 8 states ({got['ro']})")
    check(got["written"][3] > 8 and got["init"][3] > 8,
          f"a start that reads a written or `init T` variable is not ({got})")
    code, out, _ = run("--dump", ro)
    check("cfg[0..1]      discharged: never written (no `store` names it)" in out,
          f"--dump: cfg discharged as never written ({out[-400:]})")
    code, out, _ = run("--dump", init)
    check("cfg[0..1]      discharged: never written" not in out,
          f"--dump: an `init t` cfg that u reads too is kept for LD' ({out[-400:]})")


def test_init_violation_kept():
    # main's start is `store cfg, 5`: folded, it would always run before the
    # reader's first access and hide the violation; a start that touches a
    # global is not folded
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "semantics", "init_violation.bc")
    for race in ("ld", "eraser"):
        code, js = run_json("--por", "--all-errors", f"--race={race}", path)
        check(code == 1 and js["verdict"] == "lock_discipline",
              f"init_violation --race={race}: the violation is found with --por "
              f"({js and js['verdict']})")


def test_default_unchanged():
    code, out, _ = run("--search=bfs", os.path.join(MODELS, "philosophers.bc"))
    check(code == 1 and "start:" not in out and "trace (3 steps, 12 instructions)" not in out,
          "without --por the trace has no start section")
    code, out, _ = run("--por", "--search=bfs", "--race=off", os.path.join(MODELS, "philosophers.bc"))
    first, rows = trace_rows(out)
    check(code == 1 and first == START and "trace (3 steps, 12 instructions)" in out
          and [r[2] for r in rows[:3]] == ["mov left, self", "add right, self, 1",
                                           "mod right, right, N"]
          and [r[0] for r in rows] == [""] * 9 + ["1", "2", "3"],
          f"--por: the philosophers' starts, then three steps to the deadlock: {rows}")


# A ring of ten workers with ordered locking (each also passes a common lock
# g), then two threads x and y that take a and b in opposite orders: the
# deadlock needs y to move while x holds a. Composition's depth-first search
# runs the workers first and meets it after 166 states. --por took the
# smallest persistent set, {x, y}, ran them first, and walked the whole ring
# below each of their steps before trying the other order (millions of
# states, no deadlock). Its seed is now the lowest enabled thread, so its
# first path is composition's (issue 28).
RING = """const N = 10
const K = 5
lock l[N]
lock a, b, g
shared c[N]
thread w[N]
    reg lo, hi, t, v, k
    mov lo, self
    add hi, self, 1
    mod hi, hi, N
    lt t, lo, hi
    jnz t, loop
    mov t, lo
    mov lo, hi
    mov hi, t
loop:
    acquire g
    release g
    acquire l[lo]
    acquire l[hi]
    load v, c[self]
    add v, v, 1
    mod v, v, 2
    store c[self], v
    release l[hi]
    release l[lo]
    add k, k, 1
    lt t, k, K
    jnz t, loop
thread x
    acquire a
    acquire b
    release b
    release a
thread y
    acquire b
    acquire a
    release a
    release b
"""


def test_ring_first_error():
    """The default search meets the ring's deadlock no later than
    composition (first error, depth-first; a search stuck in the ring stops
    at its 20 s limit, incomplete)."""
    ring = model("ring.bc", RING)
    got = {}
    for name, opts in (("compose", ["--por=off"]), ("por", ["--por"])):
        code, js = run_json("--timelimit", "20", "--shorten=off", *opts, ring)
        got[name] = (code, js and js["verdict"], js and js["stats"]["states_stored"])
    c, p = got["compose"], got["por"]
    check(c[:2] == (1, "deadlock") and p[:2] == (1, "deadlock") and p[2] <= c[2],
          f"ring: --por meets the deadlock in no more states than composition ({got})")


def main():
    global MCHECK, MODELS
    MCHECK, MODELS = sys.argv[1], sys.argv[2]
    for t in (test_philosophers, test_bundled_models, test_prefix_assertion,
              test_prefix_division_by_zero, test_prefix_bounded_invisible, test_spawned_prefix,
              test_init_violation_kept, test_default_unchanged, test_ring_first_error,
              test_read_only_start):
        t()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
