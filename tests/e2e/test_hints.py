#!/usr/bin/env python3
"""The hints that end a lock_discipline report (tools/report/hint.c, issue 18): one
small model per pattern (one thread only: `unshared`; an unlocked first access:
`init T`, unless another thread that existed then can reach an access
to the variable (models/semaphore_stoller.bc: `volatile` or Goldilocks instead); one writer read by another thread: `volatile` or --race=goldilocks;
`init T` declared but another thread first; none: the generic line), the text
lines and the JSON "hint" field, that the declaration the hint names makes the
model pass, and --adapt's warning. Also the happens-before line after the
report's earlier accesses (tools/report/hb_trace.c): a race (two locks),
all ordered (a hand-over through a channel, a join, a volatile flag), one
thread alone; the JSON "happens_before"
field (mutant hb-join-orders-nothing).
Not checked: the wording beyond key phrases.

usage: test_hints.py MCHECK
The last line is "N passed, N failed".
"""
import json
import os
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish, run_mcheck, write_model  # noqa: E402

TMP = tempfile.mkdtemp(prefix="mcheck-hints-")
MCHECK = None

ONE_THREAD = """lock m
shared count
shared total
thread worker
    reg r
    load r, count
    add r, r, 1
    store count, r
    acquire m
    store total, r
    release m
thread other
    reg r
    acquire m
    load r, total
    release m
"""

INIT = """lock m
shared x
thread main
    reg r, id
    store x, 5
    spawn id, worker, 0
    acquire m
    load r, x
    release m
proc worker max 2
    reg r
    acquire m
    load r, x
    add r, r, 1
    store x, r
    release m
"""

FLAG = """shared flag
thread reader
    reg f
    load f, flag
thread main
    store flag, 1
"""

INIT_LATE = """lock m
shared x init main
thread main
    store x, 5
thread worker
    reg r
    acquire m
    load r, x
    store x, r
    release m
"""

NONE = """shared count
thread inc[2]
    reg r
    load r, count
    add r, r, 1
    store count, r
"""

ADAPT_LINE = ("hint: --adapt makes each variable that violates the discipline volatile and "
              "searches again, but it can hide a real race")


TWO_LOCKS = """lock a, b
shared x
thread t1
    acquire a
    store x, 1
    release a
thread t2
    acquire b
    store x, 2
    release b
"""

CHANNEL = """chan c
lock m
shared x
thread producer
    acquire m
    store x, 7
    release m
    send c, 1
thread consumer
    reg v
    recv v, c
    store x, 0
"""

JOIN = """lock m
shared x
thread main
    reg id
    spawn id, worker, 0
    join id
    store x, 1
proc worker max 1
    acquire m
    store x, 2
    release m
"""

VOLATILE = """volatile ready
lock m
shared x
thread producer
    acquire m
    store x, 7
    release m
    store ready, 1
thread consumer
    reg v
wait:
    load v, ready
    jz v, wait
    store x, 0
"""

def hb_line(out):
    return [l.strip() for l in out.splitlines() if l.strip().startswith("happens-before:")]


def hb_case(name, text, want, js_want, *args):
    path = write_model(TMP, name + ".bc", text)
    code, out, err = run_mcheck(MCHECK, "--shorten=off", *args, path)
    h = hb_line(out)
    check(code == 1 and "verdict: lock_discipline" in out and len(h) == 1 and want in h[0],
          f"{name}: happens-before line has {want!r} ({h!r}, {out[:600]!r})")
    js = json.loads(run_mcheck(MCHECK, "--json", "--shorten=off", *args, path)[1])
    got = js["error"].get("happens_before") or {}
    got = {k: got.get(k) for k in js_want}  # the keys the case pins
    check(got == js_want, f"{name}: JSON happens_before {got!r}, expected {js_want!r}")


def hints(text_out):
    return [l for l in text_out.splitlines() if l.startswith("hint: ")]


def case(name, text, first, *args):
    """Run the model; check the text's hint lines and the JSON field."""
    path = write_model(TMP, name + ".bc", text)
    code, out, err = run_mcheck(MCHECK, *args, path)
    h = hints(out)
    check(code == 1 and "verdict: lock_discipline" in out, f"{name}: lock_discipline ({out!r})")
    check(len(h) == 2 and first in h[0], f"{name}: first hint has {first!r} ({h!r})")
    adapt = ADAPT_LINE if "--race=eraser" not in args else "hint: --race=ld --adapt makes"
    check(len(h) == 2 and h[1].startswith(adapt), f"{name}: the --adapt hint ({h!r})")
    lines = out.splitlines()
    at = lines.index(h[0]) if h else -1
    check(at > 0 and lines[at + 2].startswith("trace ("),
          f"{name}: the hints come right before the trace ({out!r})")
    code, out, err = run_mcheck(MCHECK, "--json", *args, path)
    js = json.loads(out)
    check(js["error"]["hint"] == h[0][6:] + ". " + h[1][6:] if len(h) == 2 else False,
          f"{name}: JSON hint is the two lines ({js['error'].get('hint')!r})")
    return path


def passes(name, text, *args):
    path = write_model(TMP, name + ".bc", text)
    code, out, err = run_mcheck(MCHECK, *args, path)
    check(code == 0 and "verdict: ok" in out, f"{name}: passes after the hinted fix ({out!r})")


def main():
    global MCHECK
    MCHECK = sys.argv[1]
    case("one_thread", ONE_THREAD, "only worker can touch 'count' (no other thread may access "
         "it): declare it `unshared count`")
    passes("one_thread_fixed", ONE_THREAD.replace("shared count", "unshared count"))

    case("init", INIT, "the first access to 'x' (a write by main, holding no lock) looks like "
         "its initialization")
    path = write_model(TMP, "init.bc", INIT)
    out = run_mcheck(MCHECK, path)[1]
    check("declare `shared x init main`" in out and "volatile x" not in out,
          f"init: names `shared x init main` only ({hints(out)!r})")
    passes("init_fixed", INIT.replace("shared x", "shared x init main"))

    # models/semaphore_stoller.bc: t1 writes v first in the trace, but t2 (a
    # thread from the start whose code reaches its load of v) may read it
    # first on another path, so `init t1` is not suggested
    sem = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models",
                       "semaphore_stoller.bc")
    out = run_mcheck(MCHECK, sem)[1]
    h = hints(out)
    check(len(h) == 2 and h[0] == "hint: the first access to 'v' here (a write by t1, holding no "
          "lock) looks like its initialization, but t2 may reach its own access to 'v' first, so "
          "`init t1` would not hold: make it `volatile v` (a flag), or check for real races with "
          "--race=goldilocks" and "init t1`," not in out,
          f"semaphore_stoller: volatile or goldilocks, not `init t1` ({h!r})")

    case("flag", FLAG, "'flag' is written by main only and read by reader without a common "
         "lock, as a flag that hands off other data is: declare it `volatile flag`, or check "
         "for real races with --race=goldilocks", "--shorten=off")
    # (the depth-first trace, in which reader reads first: shortened, the
    # trace is main's write alone, which looks like an initialization)
    passes("flag_fixed", FLAG.replace("shared flag", "volatile flag"))

    case("init_late", INIT_LATE, "`init main` needs main to make the first access to 'x' on "
         "every path, and worker got there first")

    case("flag_init", FLAG.replace("shared flag", "shared flag init main"), "`init main` needs "
         "main to make the first access to 'flag' on every path, and reader got there first: "
         "make reader wait for main (on a `volatile` flag or a lock), declare it `volatile "
         "flag` if it is the flag itself")

    case("no_pattern", NONE, "if the accesses to 'count' without a common lock are intended, "
         "declare it `unshared` (one thread only), add `init T`")
    case("no_pattern_eraser", NONE, "if the accesses to 'count' without a common lock are "
         "intended, declare it `unshared` (one thread only), make it `volatile`",
         "--race=eraser")

    # the happens-before check over the report's own trace
    hb_case("hb_two_locks", TWO_LOCKS, "a data race too: the write of 'x' at step 1 (t1, "
            "line 5) and the write at step 3 (t2, line 9) are not ordered",
            {"race": True, "steps": [1, 3]})
    hb_case("hb_channel", CHANNEL, "the accesses to 'x' in this trace are all ordered",
            {"race": False, "one_thread": False})
    hb_case("hb_join", JOIN, "the accesses to 'x' in this trace are all ordered",
            {"race": False, "one_thread": False}, "--por=off")
    hb_case("hb_volatile", VOLATILE, "the accesses to 'x' in this trace are all ordered",
            {"race": False, "one_thread": False})
    hb_case("hb_one_thread", NONE, "only ",
            {"race": False, "one_thread": True})
    # Eraser reports the third write (t1 again, under a: candidates {b} ^ {a})
    eraser = TWO_LOCKS.replace("    store x, 1\n    release a\n",
                               "    store x, 1\n    release a\n    acquire a\n    store x, 3\n"
                               "    release a\n")
    hb_case("hb_eraser", eraser, "a data race too", {"race": True}, "--race=eraser",
            "--reduce=none")
    path = write_model(TMP, "hb_goldilocks.bc", TWO_LOCKS)
    out = run_mcheck(MCHECK, "--race=goldilocks", path)[1]
    check("data race on 'x'" in out and not hb_line(out),
          f"goldilocks: its own report, no happens-before line ({out[:400]!r})")

    # a data race is no lock_discipline report: no hint, "hint": null
    path = write_model(TMP, "race.bc", NONE)
    code, out, err = run_mcheck(MCHECK, "--race=goldilocks", path)
    check(code == 1 and not hints(out), f"goldilocks race: no hint ({out!r})")
    js = json.loads(run_mcheck(MCHECK, "--json", "--race=goldilocks", path)[1])
    check("hint" in js["error"] and js["error"]["hint"] is None, "goldilocks race: hint null")

    # --adapt: one warning that an adapted variable's races go unreported
    code, out, err = run_mcheck(MCHECK, "--adapt", path)
    warn = [l for l in out.splitlines() if l.startswith("warning: a variable --adapt made volatile")]
    check(code == 0 and len(warn) == 1 and "real race" in warn[0],
          f"--adapt warns once ({out!r})")
    code, out, err = run_mcheck(MCHECK, "--adapt", write_model(TMP, "clean.bc", "shared x\nthread t\n"))
    check(code == 0 and "warning: a variable --adapt" not in out,
          f"--adapt that adapted nothing: no warning ({out!r})")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
