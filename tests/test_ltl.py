#!/usr/bin/env python3
"""--ltl (vm/props.c, reduce/ltl.c, reduce/ltl_search.c): the props'
syntax and errors, the formula's errors, exact verdicts of small formulas
([] p, <> p, p U q, response, stutter at a valid end) on small models, the
same verdicts with --reduce=none and --store=exact, the refused options, and
the replay check (with --liveness-test-bits, collisions must not invent a
violation).

usage: test_ltl.py MCHECK
The last line is "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile
from checks import check, finish

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def run(mcheck, args):
    p = subprocess.run([mcheck, "--quiet"] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def verdict(mcheck, args):
    code, out, err = run(mcheck, ["--json"] + args)
    try:
        return code, json.loads(out), err
    except ValueError:
        return code, None, err


# x goes 1, 0, then y 1, 0, then x stays 0 forever in a loop (no valid end)
SEQ = """volatile x, y
prop p = x == 1
prop q = y == 1
thread a
    store x, 1
    store x, 0
    store y, 1
    store y, 0
loop:
    store x, 0
    jmp loop
"""
# a toggles x forever; b ends: p infinitely often
TOGGLE = """volatile x
prop p = x == 1
thread a
loop:
    store x, 1
    store x, 0
    jmp loop
"""
# terminates: x = 1 and then every thread ends (stutter-extended)
ENDS = """volatile x
lock m
prop p = x == 1
prop held = owner(m) == t
prop at_cs = t@cs
thread t
    acquire m
cs:
    store x, 1
    release m
"""
# p U q: x = 1 until y = 1 (y set while x still 1)
UNTIL = """volatile x, y
prop p = x == 1
prop q = y == 1
thread a
    store x, 1
    store y, 1
    store x, 0
"""

CASES = [
    (SEQ, "[] (p -> <> q)", "ok"), (SEQ, "<> (p && [] !q)", "ltl_violated"),
    (SEQ, "[] !p", "ltl_violated"), (SEQ, "<> q", "ok"), (SEQ, "<> [] !q", "ok"),
    (SEQ, "[] <> q", "ltl_violated"), (SEQ, "!p U p", "ok"), (SEQ, "q U p", "ltl_violated"),
    (TOGGLE, "[] <> p", "ok"), (TOGGLE, "<> [] p", "ltl_violated"), (TOGGLE, "[] p", "ltl_violated"),
    (TOGGLE, "[] (p -> <> !p)", "ok"), (TOGGLE, "true", "ok"), (TOGGLE, "false", "ltl_violated"),
    (ENDS, "<> [] p", "ok"), (ENDS, "[] <> p", "ok"), (ENDS, "[] p", "ltl_violated"),
    (ENDS, "<> at_cs", "ok"), (ENDS, "<> held && <> !held", "ok"), (ENDS, "[] (at_cs -> held)", "ok"),
    (ENDS, "<> [] held", "ltl_violated"), (ENDS, "[] !at_cs", "ltl_violated"),
    (ENDS, "(p <-> at_cs) || <> p", "ok"), (ENDS, "!p V !held", "ok"),
    (ENDS, "p V !held", "ltl_violated"), (UNTIL, "p U q", "ltl_violated"), (UNTIL, "<> (p U q)", "ok"), (UNTIL, "!q U p", "ok"), (UNTIL, "p U (q && !p)", "ltl_violated"),
    (UNTIL, "[] (q -> [] q)", "ok"), (UNTIL, "<> (q && !p)", "ok"),
]


def exact(mcheck, d):
    for i, (model, formula, want) in enumerate(CASES):
        path = os.path.join(d, f"case{i}.bc")
        with open(path, "w") as f:
            f.write(model)
        bits = [["--liveness-test-bits=3"]] if want == "ok" else []  # collisions: no false violation
        for extra in [[], ["--reduce=none"], ["--store=exact"]] + bits:
            code, js, err = verdict(mcheck, ["--ltl", formula] + extra + [path])
            got = js and js["verdict"]
            check(got == want and code == (1 if want == "ltl_violated" else 0),
                  f"case {i} {formula!r} {extra}: verdict {got} exit {code}, expected {want} {err.strip()[:200]}")
            if js and got == "ltl_violated":
                e = js["error"]
                check(e["cycle_start"] <= e["steps"] and js["options"]["ltl"] == formula,
                      f"case {i}: cycle_start {e['cycle_start']} steps {e['steps']}, options.ltl")


def errors(mcheck, d):
    bad = [
        ("volatile x\nshared s\nprop p = s == 1\nthread t\n    store x, 1\n",
         "3:10: error: a prop may read only volatile variables: 's' is shared"),
        ("volatile x\nprop p = x ==\nthread t\n    store x, 1\n", "2:14: error: expected a value"),
        ("volatile x\nprop p = t@nowhere\nthread t\n    store x, 1\n", "error: thread 't' has no label 'nowhere'"),
        ("volatile x[2]\nprop p = x == 1\nthread t\n    store x[0], 1\n", "error: 'x' is an array"),
        ("volatile x\nprop p = x == 1\nprop p = x == 0\nthread t\n    store x, 1\n", "3:6: error: duplicate prop 'p'"),
        ("volatile x\nprop p = y == 1\nthread t\n    store x, 1\n", "2:10: error: unknown name 'y'"),
    ]
    for i, (text, want) in enumerate(bad):
        path = os.path.join(d, f"bad{i}.bc")
        with open(path, "w") as f:
            f.write(text)
        code, out, err = run(mcheck, ["--ltl", "true", path])
        check(code == 2 and want in err, f"bad prop {i}: exit {code}, expected 2 and {want!r}: {err.strip()[:300]}")
    path = os.path.join(d, "f.bc")
    with open(path, "w") as f:
        f.write(TOGGLE)
    for formula, want in [("X p", "the next operator X (column 1) is not supported"),
                          ("[] (p", "expected ')'"), ("[] r", "unknown prop 'r'"),
                          ("p &&", "unexpected end of the formula"), ("p q", "unexpected 'q'")]:
        code, out, err = run(mcheck, ["--ltl", formula, path])
        check(code == 2 and f"mcheck: error: --ltl: " in err and want in err,
              f"--ltl {formula!r}: exit {code}, expected 2 and {want!r}: {err.strip()[:200]}")
    for opt, want in [("--por", "--por"), ("--search=bfs", "--search=bfs"), ("-j2", "-j"),
                      ("--store=bitstate", "bitstate"), ("--liveness=npc", "--liveness")]:
        code, out, err = run(mcheck, ["--ltl", "[] p", opt, path])
        check(code == 2 and want in err, f"--ltl with {opt}: exit {code}: {err.strip()[:200]}")


def models(mcheck):
    for name, formula, want in [("reqgrant_unfair", "[] (req0 -> <> grant0)", "ltl_violated"),
                                ("reqgrant_unfair", "[] (req1 -> <> grant1)", "ok"),
                                ("reqgrant_fair", "[] (req0 -> <> grant0)", "ok")]:
        path = os.path.join(TOP, "models", name + ".bc")
        code, out, err = run(mcheck, ["--ltl", formula, path])
        check(("verdict: " + want) in out, f"{name} {formula}: {out[-300:]} {err[-300:]}")
        if want == "ltl_violated":
            check("<<<<< cycle starts here" in out and "replayed and compared" in out,
                  f"{name}: the lasso is marked and was replayed")


def replay_check(mcheck):
    """Keys of 1 or 4 bits make the stack set answer yes for states not on
    it: false cycles the replay check must reject (counted), never report."""
    path = os.path.join(TOP, "models", "reqgrant_fair.bc")
    for bits in (1, 4):
        code, js, _ = verdict(mcheck, ["--ltl", "[] (req0 -> <> grant0)", f"--liveness-test-bits={bits}", path])
        check(js and js["verdict"] == "ok" and code == 0 and js["stats"]["cycles_rejected"] > 0,
              f"reqgrant_fair.bc --liveness-test-bits={bits}: ok with false cycles rejected "
              f"({js and (js['verdict'], js['stats']['cycles_rejected'])})")


def main():
    mcheck = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        exact(mcheck, d)
        errors(mcheck, d)
    models(mcheck)
    replay_check(mcheck)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
