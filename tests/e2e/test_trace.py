#!/usr/bin/env python3
"""End-to-end tests of `mcheck trace` and `mcheck --simulate --record` (issue 32,
ZipTrack): every exit status and error message form of the command line, RAPID's
format and the grammar file format; round trips (RAPID -> compress -> expand is
the input); the paper's sigma1 and sigma2 written by hand as grammar files
(sigma1: the race e10/e13 and lockset violations; sigma2: neither), on the grammar
and on the expanded stream (Goldilocks, vector clocks, Eraser); the recorder: its
file reads back, a second joiner is refused, and every data race that
`--race=goldilocks` reports on a bundled model is found again in a recorded run
("agreement with the model checker").

usage: test_trace.py MCHECK MODELS [MCHECK_FAILALLOC]
(with MCHECK_FAILALLOC: every allocation failing in turn, exit 3 or the answer)
The last line is "N passed, N failed".
"""
import json
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import SANITIZER, check, finish, run_mcheck, write_model  # noqa: E402

MCHECK = None
MODELS = None
TMP = tempfile.mkdtemp(prefix="mcheck-trace-")


def run(*args, timeout=120):
    code, out, err = run_mcheck(MCHECK, *args, timeout=timeout)
    check(not SANITIZER.search(err), f"{' '.join(args)}: no sanitizer report ({err[-300:]!r})")
    return code, out, err


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def read(path):
    with open(path) as f:
        return f.read()


# sigma1 (ZipTrack, Fig. 2; notes A2): S -> A B, A -> C D, C -> E F, B -> F G
SIGMA1 = """mcheck-slp 1
# sigma1 of Kini, Mathur and Viswanathan (Fig. 2), by hand
thread 1
thread 2
lock l
var x
var y
event 0 w 0       # e0  1:w(x)
event 0 fork 1    # e1  1:fork(2)
event 1 r 0       # e2  2:r(x)
event 1 acq 0     # e3  2:acq(l)
event 1 w 1       # e4  2:w(y)
event 1 rel 0     # e5  2:rel(l)
event 0 r 0       # e6  1:r(x)
event 0 acq 0     # e7  1:acq(l)
event 0 rel 0     # e8  1:rel(l)
event 0 w 1       # e9  1:w(y)
event 0 join 1    # e10 1:join(2)
rule r1 r2        # r0 = S
rule r3 r4        # r1 = A
rule r5 r6        # r2 = B
rule r7 r5        # r3 = C
rule e6 e7 e8 e9  # r4 = D
rule e2 e3 e4 e5  # r5 = F (twice: e3-e6 and e11-e14)
rule e10 e9       # r6 = G
rule e0 e1        # r7 = E
"""

SIGMA1_RAPID = """1|w(x)
1|fork(2)
2|r(x)
2|acq(l)
2|w(y)
2|rel(l)
1|r(x)
1|acq(l)
1|rel(l)
1|w(y)
2|r(x)
2|acq(l)
2|w(y)
2|rel(l)
1|join(2)
1|w(y)
"""

# sigma2 (Fig. 3): S -> U V, U -> W X, V -> Y Z
SIGMA2 = """mcheck-slp 1
thread 1
thread 2
lock l
var x
var y
var z
event 0 r 0     # e0 1:r(x)
event 0 acq 0   # e1 1:acq(l)
event 0 w 1     # e2 1:w(y)
event 0 rel 0   # e3 1:rel(l)
event 1 acq 0   # e4 2:acq(l)
event 1 r 0     # e5 2:r(x)
event 1 w 1     # e6 2:w(y)
event 1 rel 0   # e7 2:rel(l)
event 0 w 2     # e8 1:w(z)
rule r1 r2      # S
rule r3 r4      # U
rule r5 r6      # V
rule e0 e1      # W
rule e2 e3 e4   # X
rule e5 e6      # Y
rule e7 e5 e8   # Z
"""

SIGMA2_RAPID = """1|r(x)
1|acq(l)
1|w(y)
1|rel(l)
2|acq(l)
2|r(x)
2|w(y)
2|rel(l)
2|r(x)
1|w(z)
"""


def test_usage():
    code, out, err = run("trace", "--help")
    check(code == 0 and "usage: mcheck trace race" in out, f"trace --help: exit 0 ({code})")
    code, out, err = run("--help")
    check(code == 0 and "mcheck trace" in out and "--record FILE" in out,
          "mcheck --help names mcheck trace and --record")
    s1 = write("s1.slp", SIGMA1)
    for args, msg in [
        ((), "no subcommand given"),
        (("bogus", s1), "unknown subcommand 'bogus'"),
        (("race",), "no file given"),
        (("race", s1, s1), "too many files given"),
        (("compress", s1), "expected IN and OUT"),
        (("race", "--bogus", s1), "unknown option '--bogus'"),
        (("stats", "--uncompressed", s1), "--uncompressed applies to race and lockset"),
        (("race", "--vc", s1), "--vc applies to race --uncompressed"),
        (("lockset", "--uncompressed", "--vc", s1), "--vc applies to race --uncompressed"),
        (("expand", "--json", s1), "--json does not apply to expand"),
        (("race", os.path.join(TMP, "missing.slp")), "cannot read"),
    ]:
        code, out, err = run("trace", *args)
        check(code == 2 and err.startswith("mcheck: error: ") and msg in err,
              f"trace {' '.join(args)}: exit 2 with '{msg}' ({code}, {err.strip()[:200]!r})")
    ok = write_model(TMP, "ok.bc", "shared x\nthread t\n    store x, 1\n")
    code, out, err = run("--record", os.path.join(TMP, "r.slp"), ok)
    check(code == 2 and "--record applies to --simulate" in err, f"--record without --simulate ({err!r})")


def check_race(path, first, second, var, args=(), label=""):
    code, out, err = run("trace", "race", *args, path)
    want = (f"verdict: race\nrace on '{var}' between\n"
            f"  event {first[0]}: {first[1]}\n  event {second[0]}: {second[1]}\n")
    check(code == 1 and out.startswith(want), f"{label or path} race {' '.join(args)}: "
          f"exit 1, events {first[0]} and {second[0]} ({code}, {out[:300]!r}, {err[:200]!r})")
    return out


def test_sigma1_sigma2():
    s1 = write("sigma1.slp", SIGMA1)
    s2 = write("sigma2.slp", SIGMA2)
    r1 = write("sigma1.rapid", SIGMA1_RAPID)
    r2 = write("sigma2.rapid", SIGMA2_RAPID)
    # the grammar file expands to the paper's sequence
    code, out, err = run("trace", "expand", s1)
    check(code == 0 and out == SIGMA1_RAPID, f"sigma1 expands to its 16 events ({code}, {out!r})")
    code, out, err = run("trace", "expand", s2)
    check(code == 0 and out == SIGMA2_RAPID, f"sigma2 expands to its 10 events ({code}, {out!r})")
    # sigma1: e10 1:w(y) races with e13 2:w(y), on the grammar and on the stream
    for f in (s1, r1):
        for args in ((), ("--uncompressed",), ("--uncompressed", "--vc")):
            check_race(f, (10, "1|w(y)"), (13, "2|w(y)"), "y", args)
        # the lockset pair, the same on the grammar and on the stream: the
        # common lockset of x empties at e3 2:r(x) ({Λ1} ∩ {Λ,Λ2}), and
        # e1 1:w(x) alone shares nothing with it
        for args in ((), ("--uncompressed",)):
            code, out, err = run("trace", "lockset", *args, f)
            check(code == 1 and out.startswith(
                "verdict: lockset violation\nviolation on 'x': its accesses share no lock "
                "(nor read-only or thread-local use);\nthe common lockset became empty at\n"
                "  event 3: 2|r(x)") and "already share none with it\n  event 1: 1|w(x)" in out,
                f"{f} lockset {' '.join(args)}: the pair e3, e1 on x ({code}, {out!r})")
            code, out, err = run("trace", "lockset", "--json", *args, f)
            v = json.loads(out).get("violation", {}) if code == 1 else {}
            check(v.get("variable") == "x" and v.get("first", {}).get("event") == 1 and
                  v.get("second", {}).get("event") == 3 and v["second"].get("op") == "r",
                  f"{f} lockset --json {' '.join(args)}: the pair ({code}, {out!r})")
    # sigma2: neither
    for f in (s2, r2):
        for args in ((), ("--uncompressed",), ("--uncompressed", "--vc")):
            code, out, err = run("trace", "race", *args, f)
            check(code == 0 and out.startswith("verdict: no race\n"),
                  f"{f} race {' '.join(args)}: no race ({code}, {out[:200]!r}, {err[:200]!r})")
        for args in ((), ("--uncompressed",)):
            code, out, err = run("trace", "lockset", *args, f)
            check(code == 0 and out.startswith("verdict: no lockset violation\n"),
                  f"{f} lockset {' '.join(args)}: none ({code}, {out[:200]!r})")
    # JSON: the pair with threads, ops, variable, locations; the timings
    code, out, err = run("trace", "race", "--json", s1)
    try:
        js = json.loads(out)
    except json.JSONDecodeError:
        js = None
    check(code == 1 and js is not None and js["verdict"] == "race" and
          js["race"]["variable"] == "y" and js["race"]["first"] ==
          {"event": 10, "thread": "1", "op": "w", "object": "y", "loc": None} and
          js["race"]["second"]["event"] == 13 and js["events"] == 16 and
          js["grammar"]["rules"] == 8 and js["grammar"]["terminals"] == 11 and
          set(js["seconds"]) == {"read", "compress", "analysis"},
          f"race --json on sigma1 ({code}, {out[:400]!r})")
    # stats: the figures of the hand-written grammar
    code, out, err = run("trace", "stats", s1)
    check(code == 0 and "events: 16\nthreads: 2\nlocks: 1\nvariables: 2\n" in out and
          "grammar: 11 terminals, 8 rules, 20 symbols in the rule bodies (size 19)\n" in out and
          "compression ratio: 0.80" in out and "depth: 4\n" in out and
          re.search(r"^time: read [0-9.]+ s, compress [0-9.]+ s$", out, re.M),
          f"stats of sigma1 ({code}, {out!r})")
    code, out, err = run("trace", "stats", "--json", s2)
    js = json.loads(out) if code == 0 else None
    check(js is not None and js["events"] == 10 and js["variables"] == 3 and
          js["grammar"]["depth"] == 3 and js["input"] == "grammar", f"stats --json sigma2 ({out!r})")


def test_round_trips():
    # locations, names with brackets and parentheses, a repetitive stretch
    body = ["main|fork(w[1])|m.bc:3", "w[1]|acq((atomic))|m.bc:9", "w[1]|w(count)|m.bc:10",
            "w[1]|rel((atomic))|m.bc:11"]
    for i in range(200):
        body += [f"main|acq(m)|m.bc:{20 + i % 3}", "main|r(a[2])|m.bc:21", "main|w(a[2])|m.bc:22",
                 "main|rel(m)|m.bc:23"]
    body += ["main|join(w[1])|m.bc:40", "main|r(count)"]
    text = "\n".join(body) + "\n"
    src = write("long.rapid", text)
    slp = os.path.join(TMP, "long.slp")
    code, out, err = run("trace", "compress", src, slp)
    check(code == 0 and out.startswith(f"wrote {slp}\nevents: {len(body)}\n"),
          f"compress: exit 0 ({code}, {out[:200]!r}, {err[:200]!r})")
    code, out, err = run("trace", "expand", slp)
    check(code == 0 and out == text, f"expand(compress(t)) == t ({code}, {len(out)} vs {len(text)} bytes)")
    code, out, err = run("trace", "stats", slp)
    m = re.search(r"compression ratio: ([0-9.]+)", out)
    check(code == 0 and m and float(m.group(1)) > 4, f"the repetitive trace compresses ({out!r})")
    # the grammar file written is read back and rewritten identically
    again = os.path.join(TMP, "again.slp")
    code, out, err = run("trace", "compress", slp, again)
    check(code == 0 and read(again) == read(slp), "a grammar file rewritten is the same file")
    # comments, blank lines, CRLF and a missing LOC are taken; expand normalizes
    src2 = write("loose.rapid", "# a comment\n\nT1|w(x)|\r\nT2|r(x)\n  # indented comment\n")
    code, out, err = run("trace", "expand", src2)
    check(code == 0 and out == "T1|w(x)\nT2|r(x)\n", f"comments, blank lines, CRLF ({out!r})")
    code, out, err = run("trace", "race", src2)
    check(code == 1 and "event 1: T1|w(x)\n  event 2: T2|r(x)\n" in out, f"a two-event race ({out!r})")
    # the empty trace: a grammar with an empty r0, no race
    empty = write("empty.rapid", "")
    eslp = os.path.join(TMP, "empty.slp")
    code, out, err = run("trace", "compress", empty, eslp)
    check(code == 0 and "events: 0\n" in out, f"the empty trace compresses ({code}, {err!r})")
    code, out, err = run("trace", "race", eslp)
    check(code == 0 and out.startswith("verdict: no race\n"), f"the empty trace has no race ({out!r})")
    code, out, err = run("trace", "expand", eslp)
    check(code == 0 and out == "", "the empty trace expands to nothing")


RAPID_ERRORS = [
    ("T1 w(x)\n", "1: error: expected THREAD|OP(ARG)|LOC, got 'T1 w(x)'"),
    ("T1|w(x)|3|4\n", "1: error: too many fields in 'T1|w(x)|3|4'"),
    ("|w(x)|3\n", "1: error: empty thread name"),
    ("T1|w|3\n", "1: error: expected OP(ARG) after the thread, got 'w'"),
    ("T1|begin(x)|3\n", "1: error: unknown op 'begin' (expected r, w, acq, rel, fork or join)"),
    ("T1|w(x|3\n", "1: error: missing ')' at the end of 'w(x'"),
    ("T1|acq()|3\n", "1: error: missing argument of 'acq'"),
    ("T1|w(a b)|3\n", "1: error: white space in 'T1|w(a b)' (names have none)"),
    ("T1|fork(T1)\n", "1: error: thread 'T1' cannot fork itself"),
    ("T1|w(x)\n\nT2|rd(x)\n", "3: error: unknown op 'rd'"),
]

SLP_ERRORS = [
    ("mcheck-slp 2\nrule\n", "1: error: grammar file version '2' (this mcheck reads 'mcheck-slp 1')"),
    ("mcheck-slpx 1\n", "1: error: expected THREAD|OP(ARG)|LOC"),  # not one: read as RAPID
    ("mcheck-slp 1\nthread\nrule\n", "2: error: empty thread name"),
    ("mcheck-slp 1\nthread a\nthread a\nrule\n", "3: error: duplicate thread name 'a' (thread 0)"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\nlock l\nrule e0\n",
     "5: error: 'lock' after the first event: the name tables come first"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 1\nrule e0\n",
     "4: error: '1' is not a variable id (1 variable declared)"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 1 w 0\nrule e0\n", "4: error: '1' is not a thread id"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 rd 0\nrule e0\n", "4: error: unknown op 'rd'"),
    ("mcheck-slp 1\nthread a\nevent 0 fork 0\nrule e0\n", "3: error: thread 0 cannot fork itself"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0 0\nrule e0\n", "4: error: '0' is not a loc id (0 declared)"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\nrule e1\n", "5: error: no event e1 (1 declared)"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\nrule x0\n",
     "5: error: expected eK (event K) or rK (rule K), got 'x0'"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\nrule r1\n", "5: error: no rule r1 (1 rules)"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\nrule r1 r1\nrule e0\n",
     "6: error: rule r1 has 1 symbol (every rule but r0 has two or more)"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\nrule r1\nrule r2 e0\nrule r1 e0\n",
     "error: rule r2 names r1, which generates r2: a cycle"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\nrule e0\nrule e0 e0\n",
     "6: error: rule r1 is not reachable from r0"),
    ("mcheck-slp 1\nthread a\nvar x\nevent 0 w 0\n", "error: no rule: a grammar has at least r0"),
    ("mcheck-slp 1\nthread a\nvar x\nrule\nevent 0 w 0\n",
     "5: error: an event after the first rule: the events come before the rules"),
    ("mcheck-slp 1\nthread a\nbogus line\n", "3: error: unknown line 'bogus'"),
]


def test_bad_input():
    for i, (text, msg) in enumerate(RAPID_ERRORS + SLP_ERRORS):
        path = write(f"bad{i}.txt", text)
        for sub in ("race", "expand"):  # one reader for every subcommand
            code, out, err = run("trace", sub, path)
            check(code == 2 and f"{path}:" in err and msg in err and out == "",
                  f"{sub} of {text!r}: exit 2 with '{msg}' ({code}, {err.strip()[:300]!r})")
        code, out, err = run("trace", "compress", path, os.path.join(TMP, f"bad{i}.slp"))
        check(code == 2 and not os.path.exists(os.path.join(TMP, f"bad{i}.slp")),
              f"compress of {text!r}: exit 2, nothing written")
    # every error of a file is said (up to 20), each with its line
    path = write("many.rapid", "T1|w(x)\nbad\nT2|q(x)\nT3|w()\n")
    code, out, err = run("trace", "race", path)
    check(code == 2 and f"{path}:2: error:" in err and f"{path}:3: error:" in err and
          f"{path}:4: error:" in err, f"several errors, one a line ({err!r})")
    path = write("lots.rapid", "bad\n" * 30)
    code, out, err = run("trace", "race", path)
    check(code == 2 and err.count("error: expected THREAD") == 20 and "too many errors, stopped" in err,
          f"at most 20 errors ({err.count(chr(10))} lines)")
    # ill-formed traces (trace.h's rules): exit 2 from the analyses, naming the
    # event; stats, expand and compress take them
    for i, (text, n) in enumerate([("T1|rel(l)\n", 1),
                                   ("T1|w(x)\nT2|join(T1)\nT3|join(T1)\n", 3),
                                   ("T1|acq(l)\nT2|acq(l)\n", 2)]):
        path = write(f"illformed{i}.rapid", text)
        for sub in ("race", "lockset"):
            code, out, err = run("trace", sub, path)
            check(code == 2 and f"{path}: error: event {n}: " in err and
                  "(the analyses need a well-formed trace)" in err and out == "",
                  f"{sub} of ill-formed {text!r}: exit 2 at event {n} ({code}, {err.strip()!r})")
        code, out, err = run("trace", "stats", path)
        check(code == 0, f"stats of ill-formed {text!r}: exit 0 ({code}, {err!r})")
        slp = os.path.join(TMP, f"illformed{i}.slp")
        code, out, err = run("trace", "compress", path, slp)
        code, out, err = run("trace", "race", slp)
        check(code == 2 and f"{slp}: error: event {n}: " in err,
              f"race of the ill-formed grammar {i}: exit 2 at event {n} ({code}, {err.strip()!r})")
    code, out, err = run("trace", "compress", write("ok.rapid", "T|w(x)\n"),
                         os.path.join(TMP, "no-such-dir", "out.slp"))
    check(code == 2 and "cannot write" in err, f"compress to an unwritable path: exit 2 ({err!r})")


def exponential(k, racy):
    """A(i+1) -> A(i) A(i), i up to k: 2^k copies of a disciplined block of t1
    and t2 (racy: 2^(k-1) copies, then an unprotected write by t3)."""
    lines = ["mcheck-slp 1", "thread t1", "thread t2", "thread t3", "lock l", "var x",
             "event 0 acq 0", "event 0 w 0", "event 0 rel 0",
             "event 1 acq 0", "event 1 w 0", "event 1 rel 0", "event 2 w 0"]
    lines.append("rule r1 e6" if racy else "rule r1 r1")
    for i in range(1, k):
        lines.append(f"rule r{i + 1} r{i + 1}")
    lines.append("rule e0 e1 e2 e3 e4 e5")
    return "\n".join(lines) + "\n"


def test_exponential():
    for racy in (False, True):
        k = 60
        path = write(f"exp{int(racy)}.slp", exponential(k, racy))
        code, out, err = run("trace", "stats", path)
        n = 6 * 2 ** (k - 1) * (1 if racy else 2) + (1 if racy else 0)
        check(code == 0 and f"events: {n}\n" in out, f"2^{k}-ish events counted ({out[:200]!r})")
        code, out, err = run("trace", "race", path)
        if racy:
            # the last write of x in r1 (t2's, the 5th of the last block: n - 2)
            # and t3's (Lemma 3.2: the extremal events)
            check(code == 1 and f"race on 'x' between\n  event {n - 2}: t2|w(x)\n"
                  f"  event {n}: t3|w(x)\n" in out,
                  f"the racy write found at event {n} ({code}, {out[:300]!r})")
        else:
            check(code == 0 and out.startswith("verdict: no race\n"),
                  f"2^{k} disciplined blocks: no race ({code}, {out[:200]!r})")
        code, out, err = run("trace", "race", "--uncompressed", path)
        check(code == 3 and "too many to walk one by one" in err,
              f"--uncompressed on 2^{k} events: exit 3 ({code}, {err!r})")


def search_races(model):
    """The variables --race=goldilocks reports a data race on, or None if the
    search did not complete."""
    p = subprocess.run([MCHECK, "--json", "--quiet", "--race=goldilocks", "--all-errors",
                        "--timelimit", "30", model], capture_output=True, text=True, timeout=120)
    try:
        js = json.loads(p.stdout)
    except json.JSONDecodeError:
        return None
    races = set()
    for e in js.get("errors", []):
        m = re.search(r"data race on '([^']+)'", e.get("message", ""))
        if m:
            races.add(m.group(1))
    return races if p.returncode in (0, 1) else None


def test_recorder():
    rc = os.path.join(MODELS, "race_counter.bc")
    slp = os.path.join(TMP, "rc.slp")
    code, out, err = run("--simulate", "--seed", "3", "--record", slp, rc)
    check(code == 0 and re.search(r"^recorded \d+ events \(2 threads, 0 locks, 1 variables\) into ",
                                  out, re.M) and "inc[0]" not in out.split("recorded")[0],
          f"--record: summary, no per-step lines ({code}, {out!r}, {err!r})")
    check(os.path.exists(slp) and read(slp).startswith("mcheck-slp 1\n"), "the grammar file is written")
    code, out, err = run("trace", "race", slp)
    check(code == 1 and "race on 'count' between" in out and "race_counter.bc:" in out,
          f"the recorded run has the race, with source lines ({code}, {out!r})")
    code, out, err = run("trace", "expand", slp)
    ev = out.splitlines()
    check(code == 0 and len(ev) == 4 and all(re.match(r"inc\[[01]\]\|[rw]\(count\)\|.*race_counter\.bc:\d+$", e)
                                               for e in ev), f"four accesses recorded ({out!r})")
    # the same seed records the same file
    slp2 = os.path.join(TMP, "rc2.slp")
    run("--simulate", "--seed", "3", "--record", slp2, rc)
    check(read(slp) == read(slp2), "--record is deterministic")
    # a second joiner is refused (the grammar's join needs one joiner a thread)
    two = write_model(TMP, "two_joiners.bc", "shared x\nthread t\n    store x, 1\n"
                      "thread j[2]\n    reg v\n    join 0\n    load v, x\n")
    bad = os.path.join(TMP, "two.slp")
    code, out, err = run("--simulate", "--seed", "1", "--record", bad, two)
    check(code == 2 and "is joined by j[" in err and "one joiner per thread" in err and
          not os.path.exists(bad), f"a second joiner: exit 2, no file ({code}, {err!r})")
    other = write_model(TMP, "other_joiner.bc", "shared id\nproc w\n    nop\n"
                        "thread main\n    reg t\n    spawn t, w, 0\n    store id, t\n"
                        "thread other\n    reg t\nloop:\n    load t, id\n    jz t, loop\n"
                        "    join t\n")
    bad = os.path.join(TMP, "other.slp")
    code, out, err = run("--simulate", "--seed", "1", "--record", bad, other)
    check(code == 2 and "spawned by main, is joined by other" in err and not os.path.exists(bad),
          f"a join by another than the spawner: exit 2, no file ({code}, {err!r})")
    code, out, err = run("--simulate", "--record", os.path.join(TMP, "nodir", "x.slp"), rc)
    check(code == 2 and "cannot write" in err, f"--record to an unwritable path ({code}, {err!r})")
    # agreement with the model checker: every variable --race=goldilocks
    # reports a race on is found racing in some recorded run (seeds 1..8)
    compared = norace = 0
    for name in sorted(os.listdir(MODELS)):
        if not name.endswith(".bc"):
            continue
        model = os.path.join(MODELS, name)
        races = search_races(model)
        if races is not None and not races and not re.search(r"^\s*volatile\b", read(model), re.M):
            # the converse, where the encodings are exact (no volatile): no
            # race in the whole search, none in a recorded run (channels,
            # spawns, joins, waits, atomic blocks on the way)
            for seed in (1,):
                f = os.path.join(TMP, f"{name}.norace.{seed}.slp")
                run("--simulate", "--seed", str(seed), "--steps", "20000", "--record", f, model)
                if os.path.exists(f):
                    code, out, err = run("trace", "race", f)
                    check(code == 0, f"{name} seed {seed}: no Goldilocks race in the search, none "
                                     f"in the recorded run ({code}, {out[:300]!r}, {err[:200]!r})")
                    norace += 1
            continue
        if not races:
            continue
        found = set()
        for seed in range(1, 9):
            f = os.path.join(TMP, f"{name}.{seed}.slp")
            code, out, err = run("--simulate", "--seed", str(seed), "--steps", "20000", "--record",
                                 f, model)
            if not os.path.exists(f):
                # a join the recorder refuses (docs/usage.md) is said and
                # skipped; anything else fails
                check(code == 2 and "--record:" in err and "joined by" in err,
                      f"{name} seed {seed}: recorded ({code}, {err!r})")
                print(f"{name} seed {seed}: not recordable: {err.strip()}")
                continue
            code, out, err = run("trace", "race", f)
            m = re.search(r"race on '([^']+)'", out)
            if code == 1 and m:
                found.add(m.group(1))
            code2, out2, err2 = run("trace", "race", "--uncompressed", f)
            check(code2 == code, f"{name} seed {seed}: the grammar and Goldilocks agree ({code}, {code2})")
            if races <= found:
                break
        if not found and not any(os.path.exists(os.path.join(TMP, f"{name}.{k}.slp"))
                                 for k in range(1, 9)):
            continue
        compared += 1
        check(found & races, f"{name}: --race=goldilocks races on {sorted(races)}, found in the "
                             f"recorded runs: {sorted(found)}")
    check(compared >= 2, f"at least two bundled models with a Goldilocks race ({compared})")
    check(norace >= 15, f"at least 15 race-free recorded runs compared ({norace})")
    print(f"{compared} bundled models with a Goldilocks race, each found again in a recorded run; "
          f"{norace} recorded runs of race-free models without a race")


def test_failalloc(exe):
    """mcheck_failalloc (tests/e2e/failalloc.c): allocations failing in turn
    (the first 12, then 6 spaced evenly; each alone, and all from it on) in the trace commands and the
    recorder: the normal answer, or exit 3 with 'out of memory' on stderr; no
    sanitizer report (leaks included). CI's sample; MCHECK_TRACE_FAILALLOC_ALL=1
    (offline) runs every command below and the first 40, then 20 spaced."""
    full = os.environ.get("MCHECK_TRACE_FAILALLOC_ALL") == "1"
    first, spread = (40, 20) if full else (12, 6)
    s1 = write("fa.rapid", SIGMA1_RAPID)
    s1g = write("fa.slp", SIGMA1)
    rc = os.path.join(MODELS, "race_counter.bc")
    cases = [["trace", "race", s1], ["trace", "lockset", s1g], ["trace", "race", "--json", s1g],
             ["trace", "race", "--uncompressed", s1g], ["trace", "lockset", "--uncompressed", s1],
             ["trace", "stats", s1], ["trace", "expand", s1g],
             ["trace", "compress", s1, os.path.join(TMP, "fa-out.slp")],
             ["--simulate", "--seed", "3", "--record", os.path.join(TMP, "fa-rec.slp"), rc]]
    if not full:  # one command for each reader, analysis and writer
        cases = [c for c in cases if "--json" not in c and c[1] not in ("stats", "expand")]
    for args in cases:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MCHECK_FAIL_ALLOC")}
        base = subprocess.run([exe] + args, capture_output=True, text=True, env=dict(
            env, MCHECK_FAIL_ALLOC_REPORT="1"), timeout=120)
        m = re.search(r"failalloc: (\d+) allocations", base.stderr)
        total = int(m.group(1)) if m else 0
        bad = []
        points = list(range(0, min(total, first) + 1))  # then `spread` more, evenly spaced
        points += list(range(first + 1, total + 1, max(1, (total - first) // spread)))
        for n in points:
            for once in (False, True):
                e = dict(env, MCHECK_FAIL_ALLOC_AFTER=str(n))
                if once:
                    e["MCHECK_FAIL_ALLOC_ONCE"] = "1"
                p = subprocess.run([exe] + args, capture_output=True, text=True, env=e, timeout=120)
                if SANITIZER.search(p.stderr):
                    bad.append(f"{n}{' once' if once else ''}: sanitizer report {p.stderr[-600:]!r}")
                elif p.returncode != base.returncode and not (
                        p.returncode == 3 and "out of memory" in p.stderr):
                    bad.append(f"{n}{' once' if once else ''}: exit {p.returncode} "
                               f"({p.stderr.strip()[-200:]!r})")
        check(total > 0 and not bad, f"failalloc {' '.join(args)}: {total} allocations, "
                                     f"{len(bad)} bad: {bad[:3]}")


def test_generated(gen):
    """bench/ziptrack.py's program-like traces: well-formed and race-free,
    or (--race) with the one unprotected write after 90% of the events; the
    same verdicts streamed into Sequitur and on the stored stream."""
    for race in (False, True):
        path = os.path.join(TMP, f"gen{int(race)}.txt")
        with open(path, "w") as f:
            subprocess.run([gen, "--events", "20000", "--seed", "4"] + (["--race"] if race else []),
                           stdout=f, check=True)
        for sub, found in (("race", "race"), ("lockset", "violation")):
            for args in ((), ("--uncompressed",)):
                code, out, err = run("trace", sub, "--json", *args, path)
                js = json.loads(out) if code in (0, 1) else {}
                pair = js.get("race" if sub == "race" else "violation", {})
                where = pair.get("second", {}).get("event", 0)
                check(code == int(race) and 20000 <= js.get("events", 0) < 20100 and
                      (not race or (where > 17800 and js["verdict"] == found)),
                      f"generated{' racy' if race else ''} trace, {sub} {' '.join(args)}: "
                      f"({code}, {out[:300]!r}, {err[-300:]!r})")
    code, out, err = run("trace", "stats", "--json", os.path.join(TMP, "gen0.txt"))
    js = json.loads(out) if code == 0 else {}
    check(code == 0 and js["grammar"]["ratio"] > 5,
          f"a program-like trace compresses ({code}, {out[:300]!r})")


def main():
    global MCHECK, MODELS
    MCHECK, MODELS = sys.argv[1], sys.argv[2]
    for t in (test_usage, test_sigma1_sigma2, test_round_trips, test_bad_input, test_exponential,
              test_recorder):
        t()
    if os.environ.get("MCHECK_GEN_TRACE"):
        test_generated(os.environ["MCHECK_GEN_TRACE"])
    if len(sys.argv) > 3:
        test_failalloc(sys.argv[3])
    else:
        print("mcheck_failalloc not given (no static libJudy.a): allocation failures not tested")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
