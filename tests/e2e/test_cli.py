#!/usr/bin/env python3
"""End-to-end tests of the mcheck command line: usage and input errors (exit 2),
--simulate (determinism and endings), the JSON report's fields, --trace-json,
and the limits that stop a search cleanly with exit 3 and statistics (max depth,
time, memory, SIGINT, SIGTERM).

usage: test_cli.py MCHECK
The last line is "N passed, N failed".
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish, run_mcheck, steady_report, write_model  # noqa: E402

MCHECK = None
TMP = tempfile.mkdtemp(prefix="mcheck-cli-")




def model(name, text):
    return write_model(TMP, name, text)


def run(*args, timeout=120):
    return run_mcheck(MCHECK, *args, timeout=timeout)


# A model with a state space far too large to finish quickly: ordered dining
# philosophers, fully interleaved.
BIG = """const N = 8
const LAST = 7
lock fork[N]
shared meals[N]
thread phil[N]
    reg left, right, m, t
    mov left, self
    add right, self, 1
    mod right, right, N
    eq t, self, LAST
    jz t, loop
    mov t, left
    mov left, right
    mov right, t
loop:
    acquire fork[left]
    acquire fork[right]
    load m, meals[self]
    add m, m, 1
    mod m, m, 2
    store meals[self], m
    release fork[right]
    release fork[left]
    jmp loop
"""

DEADLOCK = """lock a
lock b
thread t1
    acquire a
    acquire b
    release b
    release a
thread t2
    acquire b
    acquire a
    release a
    release b
"""

OK = """const K = 2
lock m
shared x
thread w[K]
    reg v
    acquire m
    load v, x
    add v, v, 1
    store x, v
    release m
"""

JSON_STATS = ["states_stored", "transitions", "states_matched", "max_depth", "instructions",
              "state_vector_bytes", "store_bytes", "bytes_per_state", "peak_rss_bytes",
              "omission_probability", "seconds", "states_per_second", "shortening"]


def test_usage():
    code, out, err = run("--help")
    check(code == 0 and "usage: mcheck" in out, "--help prints usage, exit 0")
    code, out, err = run("--version")
    check(code == 0 and out.startswith("mcheck "), "--version")
    code, out, err = run("--bogus", "x.bc")
    check(code == 2 and "unknown option '--bogus'" in err, f"unknown option: exit 2 ({err!r})")
    code, out, err = run()
    check(code == 2 and "no model file given" in err, "no model: exit 2")
    code, out, err = run(os.path.join(TMP, "missing.bc"))
    check(code == 2 and "cannot read" in err, "missing file: exit 2")
    ok = model("ok.bc", OK)
    code, out, err = run("--reduce=maybe", ok)
    check(code == 2 and "--reduce" in err, "bad --reduce value: exit 2")
    code, out, err = run("--lookahead=always", ok)
    check(code == 2 and "--lookahead: expected 'auto', 'on', 'child', 'sibling' or 'off'" in err,
          f"bad --lookahead value: exit 2 ({err!r})")
    for la in ("auto", "on", "child", "sibling", "off"):
        code, out, err = run(f"--lookahead={la}", "--race=off", ok)
        check(code == 0 and "verdict: ok" in out, f"--lookahead={la} runs")
    code, out, err = run("-D", "NOPE=3", ok)
    check(code == 2 and "NOPE" in err, f"-D of an undeclared const: exit 2 ({err!r})")
    for opt in ("--seed", "--steps"):  # the search runs every interleaving: not ignored silently
        code, out, err = run(opt, "3", ok)
        check(code == 2 and f"mcheck: error: {opt} applies to --simulate" in err,
              f"{opt} without --simulate: exit 2 ({err!r})")
    code, out, err = run("-D", "K=x", ok)
    check(code == 2, "-D with a bad value: exit 2")
    bad = model("bad.bc", "lock m\nthread t\n    acquire l3\n")
    code, out, err = run(bad)
    check(code == 2 and f"{bad}:3:13: error: unknown lock 'l3'" in err,
          f"model error with FILE:LINE:COL ({err!r})")
    garbage = os.path.join(TMP, "garbage.bc")
    with open(garbage, "wb") as f:
        f.write(bytes(range(256)) * 8)
    code, out, err = run(garbage)
    check(code == 2 and "error:" in err, "binary garbage: exit 2, no crash")


def test_diagnostics_teach():
    """A misspelling gets a "did you mean" note; an error caused by -D names it."""
    typo = model("typo.bc", "lock fork[2]\nthread t\nagain:\n    aquire fork[0]\n    jmp agian\n")
    code, out, err = run(typo)
    check(code == 2 and f"{typo}:4:5: error: unknown instruction 'aquire'" in err
          and f"{typo}:4:5: note: did you mean 'acquire'?" in err
          and f"{typo}:5:9: note: did you mean 'again'?" in err,
          f"did you mean: exit 2, notes on stderr ({err!r})")
    sized = model("sized.bc", "const N = 5\nlock fork[N]\nthread t\n")
    code, out, err = run("-D", "N=0", sized)
    check(code == 2 and f"{sized}:2:11: error: array size must be positive, got 0" in err
          and f"{sized}:1:7: note: 'N' is 0 from the command line (-D N=0)" in err,
          f"-D named in the error it caused: exit 2 ({err!r})")


def test_define_changes_the_model():
    ok = model("ok.bc", OK)
    _, out2, _ = run("--json", ok)
    _, out3, _ = run("--json", "-D", "K=3", ok)
    s2, s3 = json.loads(out2)["stats"], json.loads(out3)["stats"]
    check(s3["states_stored"] > s2["states_stored"], "-D K=3 gives more states than K=2")


def test_simulate():
    dl = model("dl.bc", DEADLOCK)
    outs = set()
    endings = set()
    for seed in range(1, 13):
        code, out, _ = run("--simulate", "--seed", str(seed), dl)
        again = run("--simulate", "--seed", str(seed), dl)[1]
        check(out == again, f"--simulate --seed {seed} is deterministic")
        last = out.strip().splitlines()[-1] if out.strip() else ""
        if "deadlock" in out:
            endings.add("deadlock")
            check(code == 1 and "acquire of" in out, "a simulated deadlock lists what threads wait for")
        elif "all threads ended" in last:
            endings.add("ended")
            check(code == 0, "a simulated run that ends exits 0")
        outs.add(out)
    check(len(outs) > 1, "different seeds give different runs")
    check(endings == {"deadlock", "ended"}, f"some seeds deadlock and some end ({endings})")
    code, out, _ = run("--simulate", "--seed", "3", "--steps", "5", model("big.bc", BIG))
    check(code == 3 and "step limit 5 reached" in out, "--steps limit: exit 3")
    lines = [l for l in out.splitlines() if l.strip() and l.strip()[0].isdigit()]
    check(len(lines) == 5, f"one line per step ({len(lines)} lines)")
    check("phil[" in out and "mov left, self" in out, "simulation lines name thread and instruction")


def test_json_report():
    dl = model("dl.bc", DEADLOCK)
    tj = os.path.join(TMP, "trace.json")
    code, out, _ = run("--json", "--trace-json", tj, dl)
    js = json.loads(out)
    check(code == 1 and js["verdict"] == "deadlock", "deadlock verdict in JSON")
    for f in JSON_STATS:
        check(f in js["stats"], f"stats.{f} present")
    for f in ("reduce", "race", "store", "search"):
        check(f in js["options"], f"options.{f} present")
    err = js["error"]
    check(err["kind"] == "deadlock" and len(err["trace"]) > 0, "error with a trace")
    check(len(err["blocked"]) == 2 and all("held by" in b["waits_for"] for b in err["blocked"]),
          "deadlock lists what each blocked thread waits for")
    with open(tj) as f:
        check(json.load(f)["trace"] == err["trace"], "--trace-json writes the same trace")
    code, out, _ = run("--json", model("ok.bc", OK))
    js = json.loads(out)
    check(code == 0 and js["verdict"] == "ok" and js["error"] is None and js["complete"],
          "ok verdict in JSON")


def test_limits():
    big = model("big.bc", BIG)
    code, out, _ = run("--json", "--reduce=none", "--max-depth", "50", model("ok.bc", OK))
    js = json.loads(out)
    check(code == 0 and js["verdict"] == "ok", "a max depth the search never reaches is no limit")
    code, out, _ = run("--json", "--reduce=none", "--max-depth", "10", big)
    js = json.loads(out)
    check(code == 3 and js["verdict"] == "incomplete" and js["stop"] == "depth_limit",
          f"--max-depth truncation is incomplete, exit 3 (got {code}, {js['verdict']})")
    check(js["stats"]["max_depth"] <= 10, "no path deeper than --max-depth")
    code, out, _ = run("--reduce=none", "--max-depth", "10", big)
    check("incomplete" in out and "no error found" not in out, "text says incomplete")

    code, out, _ = run("--json", "--reduce=none", "--timelimit", "1", big)
    js = json.loads(out)
    check(code == 3 and js["stop"] == "time_limit" and js["stats"]["states_stored"] > 0,
          "--timelimit: exit 3 with statistics")
    check(js["stats"]["seconds"] < 5, "--timelimit stops promptly")

    code, out, _ = run("--json", "--reduce=none", "--memlimit", "8", big)
    js = json.loads(out)
    check(code == 3 and js["stop"] == "memory_limit" and js["stats"]["states_stored"] > 0,
          f"--memlimit: exit 3 with statistics (got {code}, {js.get('stop')})")
    used = js["stats"]["store_bytes"] + js["stats"]["search_bytes"]
    check(used < 8 * 2**20 * 1.5, f"--memlimit 8 keeps store+stack near 8 MB ({used} bytes)")

    for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
        p = subprocess.Popen([MCHECK, "--json", "--reduce=none", big], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        p.send_signal(sig)
        out, _ = p.communicate(timeout=60)
        js = json.loads(out)
        check(p.returncode == 3 and js["stop"] == "interrupted" and js["stats"]["states_stored"] > 0,
              f"{name}: exit 3, interrupted, statistics")


def test_stateless_loop_note():
    """--search=stateless and --scheduling=races on a model that loops say
    at the start (stderr) that it may run very long and what bounds it; not
    with --max-depth, --quiet or a model without a loop, nor for the
    stateful search."""
    loop = model("loop.bc", "thread t\n    reg i\nL:\n    add i, i, 1\n    jmp L\n")
    note = "mcheck: note: --search=stateless stores no state, and this model has a loop"
    for opts in (["--search=stateless"], ["--scheduling=races"]):
        code, _, err = run(*opts, "--timelimit", "2", loop)
        check(code == 3 and note in err and "--max-depth N" in err, f"{opts}: the note ({err!r})")
        for quiet in (["--max-depth", "50"], ["--quiet"]):
            code, _, err = run(*opts, *quiet, "--timelimit", "2", loop)
            check(note not in err, f"{opts} {quiet}: no note ({err!r})")
        code, _, err = run(*opts, model("ok.bc", OK))
        check(code == 0 and note not in err, f"{opts} without a loop: no note ({err!r})")
    code, _, err = run("--timelimit", "2", loop)
    check(note not in err, f"the stateful search: no note ({err!r})")


def test_por_counts_are_a_subset():
    """The persistent-set statistics: the states the proviso expanded fully
    are some of the states whose set left a thread out (a state explored
    again for threads woken from the sleep set is not counted again)."""
    for name, n in (("philosophers_ordered.bc", "6"), ("philosophers.bc", "5")):
        code, out, _ = run("--json", "--all-errors", "-D", f"N={n}", os.path.join(MODELS, name))
        st = json.loads(out)["stats"]
        check(0 < st["por_proviso_states"] <= st["por_reduced_states"],
              f"{name}: {st['por_proviso_states']} expanded fully of "
              f"{st['por_reduced_states']} reduced")


def test_bounded_invisible():
    spin = model("spin.bc", "shared x\nlock m\nthread t\n    acquire m\nloop:\n    add r0, r0, 1\n"
                            "    jmp loop\n")
    code, out, _ = run("--json", "--max-invisible", "500", spin)
    js = json.loads(out)
    err = js["error"]
    check(code == 1 and js["verdict"] == "runtime_error"
          and err["message"] == "no visible operation within 500 steps",
          f"BoundedInvis: a composed step past --max-invisible is an error ({err})")
    check(err["thread"] == "t" and err["line"] in (6, 7), "BoundedInvis names the thread and line")
    code, out, _ = run("--json", "--reduce=none", "--max-depth", "100", spin)
    check(code == 3, "without composition the same loop is only a long path")


def test_composed_trace_lists_every_instruction():
    code, out, _ = run("--search=bfs", model("dl.bc", DEADLOCK))
    body = out.split("trace (")[1].split("blocked threads:")[0]
    check("acquire a" in body and "acquire b" in body, "trace shows the visible steps")
    code, out, _ = run("--search=bfs", model("ok.bc", OK.replace("release m", "assert 0, \"stop\"")))
    body = out.split("instruction\n")[1].split("verdict:")[0]
    want = ["acquire m", "load v, x", "add v, v, 1", "store x, v", 'assert 0, "stop"']
    got = [(l.split(None, 3)[-1] if l[:6].strip() else l.split(None, 2)[-1]).split("  ; ")[0].strip()
           for l in body.splitlines()]
    # the assert that fails in the step's invisible tail is a step of its own
    steps = [l[:6].strip() for l in body.splitlines()]
    check(got == want and "trace (2 steps, 5 instructions)" in out
          and steps == ["1", "", "", "", "2"],
          f"a composed step expands into every instruction it ran, and the failing "
          f"assert is the next step: {got} {steps}")


def test_race_option():
    racy = model("racy.bc", "shared x\nthread t[2]\n    reg v\n    load v, x\n    add v, v, 1\n"
                            "    store x, v\n")
    code, out, _ = run("--json", racy)
    js = json.loads(out)
    check(code == 1 and js["options"]["race"] == "ld" and js["verdict"] == "lock_discipline",
          f"--race=ld is the default ({js['options']['race']}, {js['verdict']})")
    code, out, _ = run("--json", "--race=off", racy)
    js = json.loads(out)
    check(code == 0 and js["options"]["race"] == "off" and js["verdict"] == "ok"
          and js["stats"]["detector_seconds"] == 0 and js["stats"]["locksets"] == 0,
          "--race=off checks nothing")
    code, out, _ = run(racy)
    check("locksets interned" in out and re.search(r"detector time +[0-9.]+ s \(\d+% of the search", out),
          "the statistics name the detector's locksets and time")
    code, out, _ = run("--race=off", racy)
    check("detector time" not in out, "no detector line with --race=off")
    for race, verdict in (("ld", "lock_discipline"), ("eraser", "lock_discipline"),
                          ("goldilocks", "race")):
        for reduce in ("compose", "none"):
            code, out, _ = run("--json", f"--race={race}", f"--reduce={reduce}", racy)
            js = json.loads(out)
            check(code == 1 and js["verdict"] == verdict and js["options"]["race"] == race
                  and js["error"]["thread"].startswith("t[") and "'x'" in js["error"]["message"],
                  f"--race={race} --reduce={reduce}: {verdict} on 'x' ({js['verdict']})")
            check(js["stats"]["locksets"] >= 1, f"--race={race}: locksets interned are counted")
            check(0 <= js["stats"]["detector_seconds"] <= js["stats"]["seconds"] + 0.01,
                  f"--race={race}: the detector's time is part of the search's")
    code, out, err = run("--race=maybe", racy)
    check(code == 2 and "--race" in err, "bad --race value: exit 2")


ERASER_NOTE = ("the reduced search keeps every LD' violation, not every Eraser report; "
               "--reduce=none finds them all")


def test_eraser_note():
    """--race=eraser under the reduction says that it may miss Eraser reports
    (text: a note line after the options line; JSON: "notes"); no other
    combination has the note (tests/semantics/eraser_reduced.bc is a model
    whose Eraser report only --reduce=none finds)."""
    racy = model("racy_note.bc", "shared x\nthread t[2]\n    reg v\n    load v, x\n"
                                 "    add v, v, 1\n    store x, v\n")
    code, out, _ = run("--race=eraser", racy)
    lines = out.splitlines()
    check(code == 1 and len(lines) > 1 and lines[1] == "note: " + ERASER_NOTE
          and out.count("note: the reduced search") == 1,
          f"--race=eraser: the note follows the options line\n{out[:400]}")
    for extra in ([], ["--por"], ["--search=bfs"]):
        code, out, _ = run("--json", "--race=eraser", *extra, racy)
        js = json.loads(out)
        check(js["notes"] == [ERASER_NOTE], f"--race=eraser {extra}: JSON notes {js['notes']}")
    for args in (["--race=eraser", "--reduce=none"], ["--race=ld"], ["--race=goldilocks"],
                 ["--race=off", "--reduce=none"]):
        code, out, _ = run(*args, racy)
        check("note: the reduced search" not in out, f"{args}: no Eraser note")
        code, out, _ = run("--json", *args, racy)
        check(json.loads(out)["notes"] == [], f"{args}: JSON notes is []")
    # --race=off under the reduction: the header says so, and a note that the
    # reduction then trusts the model (a missed error is possible)
    for args in (["--race=off"], ["--race=off", "--por=off"], ["--race=off", "--scheduling=races"]):
        code, out, _ = run(*args, racy)
        lines = out.splitlines()
        check("race=off" in lines[0] and lines[1].startswith("note: --race=off: nothing checks "
              "the locking discipline"), f"{args}: header and note\n{out[:400]}")
        code, out, _ = run("--json", *args, racy)
        notes = json.loads(out)["notes"]
        check(len(notes) == 1 and notes[0].startswith("--race=off: nothing checks"),
              f"{args}: JSON notes {notes}")


PHIL2_STATE_4 = """        state after step 4:
          meals = {0, 0}
          fork[0]: held by phil[0], depth 1
          fork[1]: held by phil[1], depth 1
          phil[0]: blocked at line 19: acquire fork[right]; left = 0, right = 1, m = 0
          phil[1]: blocked at line 19: acquire fork[right]; left = 1, right = 0, m = 0
"""

STATES_MODEL = """lock m, l[3]
shared x, a[2] = 5
chan c[2]
thread main
    reg k
    acquire m
    acquire m
    send c, 7
    spawn k, w, 1
    wait m
proc w max 2
    reg q
    acquire l[self]
    acquire m
    notify m
    release m
    assert q, "q"
"""


def test_trace_states():
    """--trace-states: the whole state after each step, in text (a block
    after the step's last line) and JSON ("states", one object per step);
    without it the report is unchanged."""
    phil = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "philosophers.bc")
    args = ["--por=off", "--search=bfs", "-D", "N=2", phil]
    code, plain, _ = run(*args)
    code2, out, _ = run("--trace-states", *args)
    check(code == code2 == 1 and out.count("state after step") == 4,
          f"--trace-states: one state block per step (4)\n{out[:1500]}")
    check(PHIL2_STATE_4 + "blocked threads:\n" in out,
          f"--trace-states: the deadlock's last state, exactly\n{out[:3000]}")
    strip = "".join(l for l in out.splitlines(True) if not l.startswith("        state after")
                    and not l.startswith("          "))
    check(strip.split("statistics:")[0] == plain.split("statistics:")[0],
          "--trace-states adds the state blocks and nothing else")
    check("state after" not in plain, "without --trace-states: no state blocks")
    code, out, _ = run("--json", *args)
    check("states" not in json.loads(out)["error"], "without --trace-states: no JSON \"states\"")
    # JSON: globals, locks (held or waited for), channels, threads by name
    path = model("states.bc", STATES_MODEL)
    # the depth-first search's own 10-step path (--shorten=off), pinned below
    code, out, _ = run("--json", "--trace-states", "--shorten=off", path)
    er = json.loads(out)["error"]
    st = er.get("states", [])
    check(er["kind"] == "assertion" and len(st) == er["steps"] == 10
          and [s["step"] for s in st] == list(range(1, 11)),
          f"JSON: one state per step ({len(st)} for {er['steps']})")
    if len(st) == 10:
        check(st[6] == {"step": 7, "globals": {"x": 0, "a": [5, 5]},
                        "locks": [{"name": "m", "owner": "w[0]", "depth": 1, "waiting": ["main"]},
                                  {"name": "l[1]", "owner": "w[0]", "depth": 1, "waiting": []}],
                        "locks_free": 2, "channels": {"c": [7]},
                        "threads": [{"name": "main", "tid": 0, "status": "waiting", "pc": 4,
                                     "line": 10, "instruction": "wait m", "registers": {"k": 1}},
                                    {"name": "w[0]", "tid": 1, "status": "running", "pc": 2,
                                     "line": 15, "instruction": "notify m",
                                     "registers": {"q": 0}}]},
              f"JSON: the state after step 7 exactly: {st[6]}")
        check(st[8]["threads"][0] == {"name": "main", "tid": 0, "status": "ended"}
              and st[8]["locks"][0] == {"name": "m", "owner": "main", "depth": 2, "waiting": []},
              f"JSON: main ended holding m at depth 2 after its re-acquire: {st[8]}")
    with tempfile.TemporaryDirectory() as d:
        tj = os.path.join(d, "t.json")
        run("--quiet", "--trace-states", "--shorten=off", "--trace-json", tj, path)
        with open(tj) as f:
            check(len(json.load(f).get("states", [])) == 10, "--trace-json carries the states")
    code, out, _ = run("--trace-states", path)
    check("          chan c = [7] (1 of 2)\n" in out and "          m: free; wait set: main\n" in out,
          f"text: channel contents and a wait set\n{out[:2000]}")
    code, _, err = run("--trace-states", "--simulate", path)
    check(code == 2 and "--trace-states" in err, "--trace-states --simulate: usage error")


def test_race_reports_earlier_accesses():
    # a reads and writes x under m; b then reads it under n: the candidate set
    # {m} (set by a's load; a's store leaves it) is emptied by b's load
    two = model("twolocks.bc", "lock m\nlock n\nshared x\nthread a\n    reg v\n    acquire m\n"
                               "    load v, x\n    store x, 1\n    release m\nthread b\n    reg v\n"
                               "    acquire n\n    load v, x\n    release n\n")
    code, out, _ = run("--por=off", "--json", two)
    e = json.loads(out)["error"]
    check(e["element"] == "x" and e["thread"] == "b" and e["line"] == 13 and e["locks_held"] == "{n}",
          f"ld: the reported access is b's load of x holding {{n}} ({e.get('element')}, "
          f"{e.get('thread')}, {e.get('line')}, {e.get('locks_held')})")
    acc = e.get("earlier_accesses")
    check(acc == [{"step": 1, "thread": "a", "line": 7, "instruction": "load v, x", "access": "read",
                   "locks_held": "{m}", "candidates_after": "{m}"}],
          f"ld: the earlier access that narrowed the candidates is a's load ({acc})")
    code, out, _ = run(two)
    check("earlier accesses to 'x' that narrowed its candidate locks:" in out
          and re.search(r"step 1  a  line 7  load v, x +holding \{m\}  -> candidates \{m\}", out),
          f"ld: the text report lists them ({out[:600]})")
    # goldilocks: the racing access is the other thread's write
    racy = model("racy2.bc", "shared x\nthread t[2]\n    reg v\n    load v, x\n    add v, v, 1\n"
                             "    store x, v\n")
    code, out, _ = run("--json", "--race=goldilocks", racy)
    e = json.loads(out)["error"]
    acc = e.get("earlier_accesses") or [{}]
    check(e["thread"] == "t[1]" and len(acc) == 1 and acc[0].get("thread") == "t[0]"
          and acc[0].get("access") == "write" and acc[0].get("line") == 6,
          f"goldilocks: the racing access is t[0]'s store ({e['thread']}, {acc})")
    code, out, _ = run("--race=goldilocks", racy)
    check("it races with this earlier access to 'x':" in out, "goldilocks: the text names it")


def test_metadata_does_not_split_states():
    # only read after the start, never written: the candidate set (or the
    # read slots) can never be read by a later check, so the states of the
    # loop are those of --race=off (without resetting it: 2 to 5 states)
    ro = model("readonly.bc", "lock m\nshared x = 5\nthread a\n    reg v\nloop:\n    acquire m\n"
                              "    load v, x\n    release m\n    mov v, 0\n    jmp loop\n"
                              "thread b\n    reg v\nloop:\n    acquire m\n    load v, x\n"
                              "    release m\n    mov v, 0\n    jmp loop\n")
    # x is dead once a has ended: both branches end in one state
    dead = model("dead.bc", "lock m\nshared x\nthread a\n    reg c, v\n    choose c, 0, 1\n"
                            "    jz c, skip\n    acquire m\n    load v, x\n    store x, v\n"
                            "    release m\n    mov v, 0\n    mov c, 0\nskip:\n    end\n")
    for path, states in ((ro, 1), (dead, 3)):
        for race in ("off", "ld", "eraser", "goldilocks"):
            code, out, _ = run("--json", f"--race={race}", path)
            js = json.loads(out)
            check(code == 0 and js["stats"]["states_stored"] == states,
                  f"{os.path.basename(path)} --race={race}: {states} states "
                  f"({js['stats']['states_stored']})")


def test_progress_line():
    p = subprocess.run([MCHECK, "--progress", "--reduce=none", "--timelimit", "4.5",
                        model("big.bc", BIG)], capture_output=True, text=True, timeout=60)
    check("states/s" in p.stderr and "states" in p.stderr, f"--progress prints progress ({p.stderr!r})")
    p = subprocess.run([MCHECK, "--reduce=none", "--timelimit", "2.5", model("big.bc", BIG)],
                       capture_output=True, text=True, timeout=60)
    check(p.stderr == "", "no progress when stderr is not a terminal")


# --adapt. Two variables whose LD' violations are found one after the other
# (`done` is written only after `slot`, and an error state has no successors)
# and a lock-protected one that must stay shared; the watcher spins on `done`,
# which is only safe to check once `done` is visible (a spin on an invisible
# flag never reaches a visible point: BoundedInvis).
ADAPT_TWO = """lock m
shared total
shared slot[2]
shared done
thread w[2]
    reg v
    acquire m
    load v, total
    add v, v, 1
    store total, v
    release m
    store slot[self], v
    eq v, self, 1
    jz v, out
    store done, 1
out:
thread watcher
    reg d
    mov d, 0
spin:
    load d, done
    jz d, spin
    load d, slot[1]
    ge d, d, 1
    assert d, "slot[1] is set before done"
"""

# Two independent violations, both reachable from the initial state.
ADAPT_INDEP = """shared x
shared y
thread a
    store x, 1
thread b
    store y, 1
"""

# A lost update that the reduction hides while `count` is invisible.
ADAPT_LOST = """shared count
thread inc[2]
    reg r
    load r, count
    add r, r, 1
    store count, r
thread main
    reg r
    join 0
    join 1
    load r, count
    eq r, r, 2
    assert r, "count == 2"
"""

# A shared violation first, then an unshared variable touched by two threads.
ADAPT_UNSHARED = """shared x
unshared u
thread t[2]
    store x, 1
    store u, 1
"""

# `init main` and an initial value: adapted, it must be the program declared
# volatile (the assembler allows `init` only on shared variables).
ADAPT_INIT = """shared x = 3 init main
lock m
thread main
    reg v
    store x, 1
    acquire m
    load v, x
    release m
thread t
    reg v
    load v, x
    add v, v, 1
    store x, v
"""


def adapt_json(*args):
    code, out, err = run("--json", "--adapt", *args, timeout=60)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, None, err + out


def test_adapt():
    two = model("adapt_two.bc", ADAPT_TWO)
    # without --adapt the model violates LD' (else the tests below prove nothing)
    code, out, _ = run("--json", "--race=ld", two)
    js = json.loads(out)
    check(code == 1 and js["verdict"] == "lock_discipline" and "adapted" not in js,
          f"the two-variable model violates LD' without --adapt ({js['verdict']})")
    code, out, _ = run("--json", "--race=off", two)
    check(code == 1 and json.loads(out)["error"]["message"].startswith("no visible operation"),
          "without a detector the spin on the invisible flag is cut off (BoundedInvis)")
    # breadth-first, the watcher spins on the invisible `done` (BoundedInvis)
    # before the violation on it is reached: a search past errors finds it
    for extra, runs in (([], 3), (["--reduce=none"], 3), (["--store=exact"], 3),
                        (["--search=bfs"], 5)):
        code, js, err = adapt_json(*extra, two)
        check(js is not None and code == 0 and js["verdict"] == "ok" and js["complete"]
              and js["adapted"] == ["slot", "done"] and js["adapt_runs"] == runs
              and js["options"]["race"] == "ld",
              f"--adapt {' '.join(extra)}: 'slot' then 'done' made volatile in {runs} runs, then "
              f"ok ({code}, {js and (js['verdict'], js['adapted'], js['adapt_runs'])}, {err.strip()})")
    # the same with the watcher declared first: depth-first meets its spin first
    i, j = ADAPT_TWO.index("thread w[2]"), ADAPT_TWO.index("thread watcher")
    wfirst = model("adapt_wfirst.bc", ADAPT_TWO[:i] + ADAPT_TWO[j:] + ADAPT_TWO[i:j])
    code, out, _ = run("--json", "--race=ld", wfirst)
    check(json.loads(out)["error"]["message"].startswith("no visible operation"),
          "watcher first: --race=ld stops at the spin on the invisible flag")
    code, js, _ = adapt_json(wfirst)
    check(code == 0 and js["verdict"] == "ok" and js["adapted"] == ["slot", "done"]
          and js["adapt_runs"] == 5,
          f"watcher first: --adapt looks past the BoundedInvis error for the violations "
          f"({code}, {js['verdict']}, {js['adapted']}, {js['adapt_runs']} runs)")
    # a spin that no thread ends is a real BoundedInvis error: nothing to adapt
    stuck = model("adapt_stuck.bc", "shared f\nthread t\n    mov r0, 0\nspin:\n    load r0, f\n"
                                    "    jz r0, spin\n")
    code, js, _ = adapt_json(stuck)
    check(code == 1 and js["verdict"] == "runtime_error" and js["adapted"] == []
          and js["adapt_runs"] == 2 and js["error"]["message"].startswith("no visible operation"),
          f"--adapt on a real BoundedInvis error: reported after one search past errors "
          f"({js['verdict']}, {js['adapted']}, {js['adapt_runs']} runs)")
    code, out, err = run("--adapt", two)
    lines = out.splitlines()
    check(code == 0 and len(lines) > 3
          and lines[0].startswith("adapt: 'slot' treated as volatile (lock discipline violated on "
                                  "'slot[")
          and lines[1].startswith("adapt: 'done' treated as volatile (lock discipline violated on "
                                  "'done'")
          and ", adapt, " in lines[2]
          and "adapted: 'slot', 'done' (treated as volatile)\nwarning: a variable --adapt made "
              "volatile is no longer checked" in out and "\nverdict: ok" in out
          and "3 searches" in out,
          f"--adapt text: one line per variable, then the last run's report ({out[:600]!r})")

    # --all-errors adapts every variable of one run at once
    indep = model("adapt_indep.bc", ADAPT_INDEP)
    code, js, _ = adapt_json(indep)
    check(code == 0 and js["adapted"] == ["x", "y"] and js["adapt_runs"] == 3,
          f"--adapt: one variable per run ({js['adapted']}, {js['adapt_runs']} runs)")
    code, js, _ = adapt_json("--all-errors", indep)
    check(code == 0 and js["verdict"] == "ok" and sorted(js["adapted"]) == ["x", "y"]
          and js["adapt_runs"] == 2,
          f"--adapt --all-errors: both variables after one run ({js['adapted']}, "
          f"{js['adapt_runs']} runs)")

    # what adaptation uncovers is reported: the lost update the reduction hid
    lost = model("adapt_lost.bc", ADAPT_LOST)
    code, out, _ = run("--json", "--race=off", lost)
    check(json.loads(out)["verdict"] == "ok", "the unsound search (no detector) misses the lost update")
    code, js, _ = adapt_json(lost)
    check(code == 1 and js["verdict"] == "assertion" and js["adapted"] == ["count"]
          and js["error"]["message"] == "assertion violated: count == 2",
          f"--adapt: 'count' made volatile, then the lost update is found ({js['verdict']})")

    # an unshared variable touched by two threads is an error, not adapted
    unsh = model("adapt_unshared.bc", ADAPT_UNSHARED)
    code, js, _ = adapt_json(unsh)
    check(code == 1 and js["verdict"] == "runtime_error" and js["adapted"] == ["x"]
          and js["adapt_runs"] == 2 and "unshared variable 'u'" in js["error"]["message"],
          f"--adapt stops at an unshared variable's runtime_error ({js['verdict']}, "
          f"{js['adapted']}, {js['adapt_runs']} runs)")
    code, js, _ = adapt_json("--all-errors", unsh)
    check(code == 1 and js["verdict"] == "runtime_error" and "u" not in js["adapted"]
          and js["error_counts"]["lock_discipline"] == 0,
          f"--adapt --all-errors never adapts the unshared variable ({js['adapted']})")

    # no violation: one run, the same search as without --adapt, "adapted":[]
    ok = model("ok.bc", OK)
    code, js, _ = adapt_json(ok)
    _, plain, _ = run("--json", "--race=ld", ok)
    plain = json.loads(plain)
    check(code == 0 and js["verdict"] == "ok" and js["adapted"] == [] and js["adapt_runs"] == 1
          and js["stats"]["states_stored"] == plain["stats"]["states_stored"]
          and js["stats"]["transitions"] == plain["stats"]["transitions"],
          f"--adapt without a violation: one run, nothing adapted ({js['adapted']})")
    code, out, _ = run("--adapt", ok)
    check(code == 0 and "adapt:" not in out and "adapted: none\nverdict: ok" in out
          and "1 search," in out, "--adapt without a violation says so in text")
    check("adapted" not in plain, "no 'adapted' field without --adapt")

    # an adapted variable is exactly a declared volatile one: same counts, same states
    for text, name in ((ADAPT_TWO, "two"), (ADAPT_INIT, "init")):
        vol = text.replace("shared slot[2]", "volatile slot[2]").replace("shared done", "volatile done")
        vol = vol.replace("shared x = 3 init main", "volatile x = 3")
        sh, vo = model(f"eq_{name}.bc", text), model(f"eq_{name}_vol.bc", vol)
        for reduce in ("compose", "none"):
            da, db = os.path.join(TMP, "da.txt"), os.path.join(TMP, "db.txt")
            ca, oa, _ = run("--json", "--adapt", "--store=exact", f"--reduce={reduce}",
                            "--dump-states", da, sh)
            cb, ob, _ = run("--json", "--race=ld", "--store=exact", f"--reduce={reduce}",
                            "--dump-states", db, vo)
            a, b = json.loads(oa), json.loads(ob)
            keys = ("states_stored", "transitions", "states_matched", "instructions",
                    "invisible_instructions", "state_vector_bytes")
            with open(da) as f1, open(db) as f2:
                sa, sb = f1.read(), f2.read()
            check(a["adapted"] and ca == cb and a["verdict"] == b["verdict"]
                  and all(a["stats"][k] == b["stats"][k] for k in keys) and sa == sb and sa,
                  f"{name} --reduce={reduce}: adapted == declared volatile "
                  f"({[(k, a['stats'][k], b['stats'][k]) for k in keys]}, "
                  f"{len(sa.splitlines())} vs {len(sb.splitlines())} dumped states)")

    # usage
    for bad in (["--race=off"], ["--race=eraser"], ["--race=goldilocks"], ["--dump"],
                ["--simulate"]):
        code, out, err = run("--adapt", *bad, two)
        check(code == 2 and "--adapt" in err and out == "",
              f"--adapt {' '.join(bad)}: usage error, exit 2 ({code}, {err.strip()!r})")
    code, js, _ = adapt_json("--race=ld", ok)
    check(code == 0 and js["adapted"] == [], "--adapt --race=ld is accepted")
    code, out, _ = run("--help")
    check("--adapt" in out, "--help documents --adapt")

    # --timelimit bounds all the runs together
    big = model("big_adapt.bc", BIG.replace("lock fork[N]", "lock fork[N]\nshared flag")
                .replace("    mov left, self\n", "    store flag, 1\n    mov left, self\n", 1))
    t0 = time.time()
    code, js, _ = adapt_json("--reduce=none", "--timelimit", "1.5", big)
    check(code == 3 and js["stop"] == "time_limit" and js["adapted"] == ["flag"]
          and time.time() - t0 < 10,
          f"--adapt --timelimit: the re-run stops at the limit, exit 3 ({code}, {js and js['stop']})")


MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")


def test_lookahead_changes_no_answer():
    # The random models of differential.py are small; these bundled ones
    # are big enough for the odds to guess (--lookahead=on) over thousands of
    # lookups, with paths of several steps, pops and errors (--all-errors).
    for name, defs in (("philosophers.bc", ["-D", "N=4", "--all-errors"]),
                       ("prodcons_monitor.bc", ["-D", "ITEMS=60", "-D", "CAP=4"])):
        path = os.path.join(MODELS, name)
        res = {}
        for la in ("on", "child", "sibling", "off"):
            code, out, _ = run("--json", "--quiet", "--reduce=none", "--race=off",
                               f"--lookahead={la}", *defs, path)
            js = json.loads(out) if out.strip() else None
            res[la] = (code, js and steady_report(js))
        off = res["off"]
        check(off[1] is not None and off[1]["stats"]["states_stored"] > 1000,
              f"{name}: a search of over a thousand states ({off[1] and off[1]['stats']['states_stored']})")
        for la in ("on", "child", "sibling"):
            check(res[la] == off, f"{name}: --lookahead={la} gives the same report as off")


def test_por_ahead_changes_no_answer():
    # The default search (--por) builds each level's next step ahead
    # (dfs_por.c), from a 4 MB store on; MCHECK_AHEAD_STORE_BYTES=0 starts it
    # at once. The same report as --lookahead=off, searching past errors
    # (LD' on, with no metadata left: every element discharged), to the
    # first error, and on a model without errors.
    for name, defs in (("philosophers.bc", ["-D", "N=5", "--all-errors"]),
                       ("philosophers.bc", ["-D", "N=5"]),
                       ("prodcons_monitor.bc", ["-D", "ITEMS=60", "-D", "CAP=4"])):
        path = os.path.join(MODELS, name)
        res = {}
        for la in ("ahead", "off"):
            env = dict(os.environ, MCHECK_AHEAD_STORE_BYTES="0") if la == "ahead" else None
            off_opt = [] if la == "ahead" else ["--lookahead=off"]
            p = subprocess.run([MCHECK, "--json", "--quiet", *defs, *off_opt, path],
                               capture_output=True, text=True, timeout=120, env=env)
            js = json.loads(p.stdout) if p.stdout.strip() else None
            res[la] = (p.returncode, js and steady_report(js))
        off = res["off"]
        check(off[1] is not None and off[1]["stats"]["transitions"] > 1000,
              f"{name} {' '.join(defs)}: over a thousand transitions "
              f"({off[1] and off[1]['stats']['transitions']})")
        check(res["ahead"] == off,
              f"{name} {' '.join(defs)}: --por's steps built ahead give the same report as "
              "--lookahead=off")


def test_bfs_batches_change_no_answer():
    # BFS builds and prefetches the successors of several states at a time
    # (unless --lookahead=off) and inserts them in the plain order: the same
    # report, also when the search stops inside a batch (the first error, a
    # depth limit) and with more threads enabled than a batch holds (the
    # plain loop then takes the state).
    cases = [("philosophers.bc", ["-D", "N=4", "--all-errors"]),
             ("philosophers.bc", ["-D", "N=4"]),
             ("philosophers.bc", ["-D", "N=4", "--max-depth", "17"]),
             ("prodcons_monitor.bc", ["-D", "ITEMS=60", "-D", "CAP=4"]),
             ("prodcons_monitor.bc", ["-D", "ITEMS=60", "-D", "CAP=4", "--reduce=compose"]),
             ("philosophers.bc", ["-D", "N=40", "--max-depth", "3", "--reduce=compose"])]
    for name, defs in cases:
        path = os.path.join(MODELS, name)
        res = {}
        for la in ("auto", "off"):
            code, out, _ = run("--json", "--quiet", "--reduce=none", "--race=off", "--search=bfs",
                               f"--lookahead={la}", *defs, path)
            js = json.loads(out) if out.strip() else None
            res[la] = (code, js and steady_report(js))
        off = res["off"]
        check(off[1] is not None and off[1]["stats"]["states_stored"] > 40,
              f"{name} {' '.join(defs)}: a BFS of more than 40 states "
              f"({off[1] and off[1]['stats']['states_stored']})")
        check(res["auto"] == off, f"{name} {' '.join(defs)}: BFS in batches gives the same "
              f"report as --lookahead=off")


def test_bfs_keeps_two_levels_of_vectors():
    # The BFS keeps every state's parent link and step (24 bytes) for traces,
    # but the vectors only of the level it expands and the next one: its queue
    # must take well under a vector per state (it took 31 MB here, 1.6 vectors
    # a state, while it kept them all; 8.1 MB after).
    path = os.path.join(MODELS, "philosophers.bc")
    code, out, _ = run("--json", "--quiet", "--reduce=none", "--race=off", "--all-errors",
                       "--search=bfs", "-D", "N=4", path)
    st = json.loads(out)["stats"]
    check(code == 1 and st["states_stored"] == 208494,
          f"BFS philosophers N=4: 208494 states ({st['states_stored']}, exit {code})")
    per_state = st["search_bytes"] / st["states_stored"]
    check(per_state < st["state_vector_bytes"] / 2,
          f"BFS queue {per_state:.1f} bytes a state, under half a "
          f"{st['state_vector_bytes']}-byte vector")


def test_language_contract():
    # LANGUAGE.md's declarations and details, as the command line shows them
    code, out, _ = run("--help")
    check("--spurious-wakeups" in out, "--help lists --spurious-wakeups")
    exprs = model("exprs.bc", "const M = 2*N+1, N = 3\nshared a[M] = {N-1, -N}, b\n"
                              "lock l, k[N - 1]\nthread main\n    sub r0, M, 11\n"
                              "    assert r0, \"M is 11\"\n")
    code, out, err = run("--json", exprs)
    check(code == 0 and json.loads(out)["verdict"] == "ok", f"comma lists and expressions: ok ({err})")
    code, out, _ = run("--json", "-D", "N=5", exprs)
    js = json.loads(out)
    check(code == 1 and js["verdict"] == "assertion", "-D N=5 changes M = 2*N+1 to 11")
    code, out, _ = run("--json", "-D", "N=3", exprs)
    check(code == 0 and json.loads(out)["verdict"] == "ok", "-D N=3 keeps M = 7")
    bad = model("divzero.bc", "const N = 0\nshared a[4 / N]\nthread main\n")
    code, _, err = run(bad)
    check(code == 2 and f"{bad}:2:12: error: division by zero in a constant expression\n"
          "shared a[4 / N]\n           ^\n" in err, f"a constant division by zero: exit 2 ({err!r})")
    code, _, err = run("-D", "N=-4", exprs)
    check(code == 2 and "array size must be positive, got -7" in err,
          f"a non-positive array size from -D: exit 2 ({err!r})")
    cyc = model("cycle.bc", "const A = B + 1\nconst B = 2 * A\nthread main\n")
    code, _, err = run(cyc)
    check(code == 2 and f"{cyc}:1:7: error: const 'A' is defined in terms of itself" in err
          and f"{cyc}:2:7: note: through 'B'" in err, f"a const cycle: exit 2 ({err!r})")

    # an unshared variable touched by two threads: an error in every detector mode
    unsh = model("unshared.bc", "unshared seen[4]\nthread a\n    store seen[0], 1\n"
                                "thread b\n    load r0, seen[2]\n")
    for race in ("off", "ld", "eraser", "goldilocks"):
        code, out, _ = run("--json", f"--race={race}", unsh)
        js = json.loads(out)
        check(code == 1 and js["verdict"] == "runtime_error"
              and "unshared variable 'seen[" in js["error"]["message"],
              f"--race={race}: unshared touched by two threads ({js['verdict']})")
    code, out, _ = run("--race=off", "--search=bfs", unsh)
    check("'seen' was first touched by:" in out and "store seen[0], 1" in out,
          "--race=off: the report names the first thread's access too")
    one = model("unshared_ok.bc", "unshared u\nlock m\nthread a\n    store u, 1\n"
                                  "    acquire m\n    release m\nthread b\n    acquire m\n"
                                  "    release m\n")
    counts = {}
    for race in ("off", "ld"):
        code, out, _ = run("--json", f"--race={race}", "--store=exact", one)
        js = json.loads(out)
        counts[race] = (code, js["stats"]["states_stored"], js["stats"]["transitions"])
    check(counts["off"] == counts["ld"] and counts["off"][0] == 0,
          f"--race=off forgets an unshared owner as ld does: same counts ({counts})")

    # --spurious-wakeups: off by default; `if` around wait breaks, `while` holds
    for name, want in (("spurious_if_wait.bc", "assertion"), ("spurious_while_wait.bc", "ok")):
        path = os.path.join(MODELS, name)
        code, out, _ = run("--json", path)
        js = json.loads(out)
        check(code == 0 and js["options"]["spurious_wakeups"] is False,
              f"{name}: ok without --spurious-wakeups, and JSON says it is off")
        for extra in ([], ["--reduce=none"], ["--search=bfs"]):
            code, out, _ = run("--json", "--spurious-wakeups", *extra, path)
            js = json.loads(out)
            check(js["verdict"] == want and js["options"]["spurious_wakeups"] is True,
                  f"{name} --spurious-wakeups {' '.join(extra)}: {want} ({js['verdict']})")
    path = os.path.join(MODELS, "spurious_if_wait.bc")
    code, out, _ = run("--spurious-wakeups", "--search=bfs", path)
    check(code == 1 and re.search(r"wait m +; spurious wakeup: re-acquire without a notify", out)
          and "spurious-wakeups" in out.splitlines()[0],
          "the trace marks the spurious wakeup and the header names the option")
    seen_spurious = False
    for seed in range(1, 40):
        code, out, _ = run("--simulate", "--spurious-wakeups", "--seed", str(seed), path)
        seen_spurious |= "spurious wakeup" in out
    check(seen_spurious, "--simulate takes spurious wakeups too")


def test_constant_expressions_match_refcheck():
    # random constant expressions: mcheck's values (--dump) against the
    # independent evaluator of tests/ref/refcheck.py (same tokens, C division,
    # 32-bit wrap), a `-` glued to digits included
    import random
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ref"))
    import refcheck
    rng = random.Random(14)
    env = {"A": 7, "B": -3, "N": 16}

    def lit():
        return rng.choice([str(rng.randint(-5, 5)), "2147483647", "-2147483648", "0x80000000",
                           "0xffffffff", "65536", "A", "B", "N", str(rng.randint(-99999, 99999))])

    def expr(d=0):
        r = rng.random()
        if d > 4 or r < 0.3:
            return lit()
        if r < 0.45:
            return "-" + rng.choice(["", " "]) + expr(d + 1)
        if r < 0.6:
            return "(" + expr(d + 1) + ")"
        sp = rng.choice(["", " "])
        return expr(d + 1) + sp + rng.choice("+-*/%") + sp + expr(d + 1)

    want, lines = {}, ["const A = 7, B = -3", "const N = 0x10"]
    while len(want) < 200:
        e = expr()
        try:
            v = refcheck.cx_eval(e, lambda n: env[n])
        except refcheck.AsmError:
            continue  # division by zero: an assembly error, tested elsewhere
        want[f"E{len(want)}"] = v
        lines.append(f"const E{len(want) - 1} = {e}")
    path = model("exprs_random.bc", "\n".join(lines) + "\nthread main\n")
    code, out, err = run("--dump", path)
    got = {k: int(v) for k, v in re.findall(r"^const (E\d+) = (-?\d+)$", out, re.M)}
    diff = [k for k in want if got.get(k) != want[k]]
    check(code == 0 and not diff, f"200 random constant expressions agree with refcheck "
          f"(exit {code}, differ: {[(k, got.get(k), want[k]) for k in diff[:3]]})")


def test_por_discharges_metadata():
    # --por: shared elements the static analysis discharges (lockset/discharge.c)
    # get no detector metadata, so LD' no longer splits the philosophers' states
    phil = os.path.join(MODELS, "philosophers.bc")
    base = ["--all-errors", "-D", "N=3", "--json", phil]
    res = {}
    for name, opts in (("por", ["--por"]), ("por-off", ["--por", "--race=off"]),
                       ("compose", ["--por=off"]), ("default", [])):
        code, out, _ = run(*(opts + base))
        res[name] = json.loads(out)
    st = {k: v["stats"]["states_stored"] for k, v in res.items()}
    check(st["por"] == st["por-off"] == st["default"] and st["por"] < st["compose"],
          f"philosophers N=3 --por (the default): as many states with LD' as with --race=off, "
          f"fewer than with --por=off ({st})")
    check(res["por"]["stats"].get("discharged_elements") == 3
          and res["por"]["stats"].get("shared_elements") == 3,
          f"--por JSON: 3 of 3 shared elements discharged ({res['por']['stats']})")
    check("discharged_elements" not in res["compose"]["stats"],
          "with --por=off the JSON stats are as they were")
    code, out, _ = run("--por", "--all-errors", "-D", "N=3", phil)
    check("  discharged           3 of 3 shared elements (static analysis" in out,
          f"--por text statistics: the discharged line ({out[-900:]})")
    code, out, _ = run("--por=off", "--all-errors", "-D", "N=3", phil)
    check("discharged" not in out, "with --por=off the text statistics are as they were")
    # the discipline's violations are still found
    for name in ("race_counter.bc", "semaphore_stoller.bc"):
        code, out, _ = run("--por", "--json", os.path.join(MODELS, name))
        js = json.loads(out)
        check(code == 1 and js["verdict"] == "lock_discipline",
              f"{name} --por: lock_discipline ({js['verdict']})")
    # every bundled model: the same error kinds with and without --por, per detector
    for name in sorted(os.listdir(MODELS)):
        if not name.endswith(".bc"):
            continue
        path = os.path.join(MODELS, name)
        with open(path) as f:
            opts = next((l.split(":", 1)[1].split() for l in f if l.startswith("; options:")), [])
        opts = [o for o in opts if o != "--adapt"]
        for race in ("ld", "eraser", "goldilocks"):
            kinds = []
            for por in ([], ["--por"]):
                code, out, _ = run(*(opts + por + [f"--race={race}", "--all-errors", "--json",
                                                   "--quiet", path]))
                js = json.loads(out)
                kinds.append(sorted(k for k, v in js["error_counts"].items() if v))
            check(kinds[0] == kinds[1],
                  f"{name} --race={race}: the same error kinds with --por ({kinds})")
    # --dump says which elements are discharged and why, and which are not
    code, out, _ = run("--dump", "-D", "N=3", phil)
    check(code == 0 and "static discharge for --race=ld: 3 of 3 shared elements discharged"
          in out and "  meals[0..2]    discharged: one thread each (phil[0] .. phil[2]), "
          "each always under an element of fork" in out,
          f"--dump: the philosophers' meals are discharged ({out[-400:]})")
    code, out, _ = run("--dump", os.path.join(MODELS, "race_counter.bc"))
    check("  count          kept: 2+ threads, no lock held at every access" in out,
          f"--dump: race_counter's count is kept ({out[-300:]})")
    code, out, _ = run("--dump", os.path.join(MODELS, "counters_locked.bc"))
    check("  total          discharged: 2+ threads, always under m" in out,
          f"--dump: counters_locked's total is always under m ({out[-400:]})")
    lone = model("lone.bc", "shared x\nthread a\n    store x, 1\n")
    code, out, _ = run("--dump", lone)
    check("  x              kept: one thread (a), no lock held at every access (LD' checks "
          "a lone thread's accesses too)" in out, f"--dump: LD' keeps a lone thread's "
          f"unlocked element ({out[-300:]})")
    code, out, _ = run("--dump", "--race=eraser", lone)
    check("  x              discharged: one thread (a)" in out,
          f"--dump --race=eraser: a lone thread's element is discharged ({out[-300:]})")
    code, out, _ = run("--por", "--json", lone)
    check(code == 1 and json.loads(out)["verdict"] == "lock_discipline",
          "--por: a lone thread's unlocked write still violates LD'")

# Goldilocks's happens-before discharge (lockset/discharge_hb.c): data a
# spawn or a join hands over needs no metadata; a write after the spawn, a
# join of another child or a read before the join keeps it.
HB_SPAWN = """shared x
thread main
    reg c
    store x, 1
    spawn c, child, 0
proc child
    reg v
    load v, x
"""
HB_JOIN = """; the child computes x and hands it over by join; both also use lock m
lock m
shared x, y
thread main
    reg c, v
    spawn c, child, 0
    acquire m
    store y, 1
    release m
    acquire m
    load v, y
    release m
    join c
    load v, x
    assert v, "x handed over"
proc child
    reg w
    store x, 1
    acquire m
    load w, y
    release m
    acquire m
    store y, 2
    release m
"""
HB_KEPT = {
    "write_after": ("""shared x
thread main
    reg c
    store x, 1
    spawn c, child, 0
    store x, 2
proc child
    reg v
    load v, x
""", "read by child[0], not ordered after the last write"),
    "join_other": ("""shared x
thread main
    reg c, d, v
    spawn c, child, 0
    spawn d, other, 0
    join d
    load v, x
proc child
    store x, 2
proc other
    nop
""", "written by child[0], not ordered after the read by main"),
    "before_join": ("""shared x
thread main
    reg c, v
    spawn c, child, 0
    load v, x
    join c
proc child
    store x, 2
""", "written by child[0], not ordered after the read by main"),
}


def test_hb_discharge():
    ordered = ": every two accesses by different threads, one a write, happen one before the other"
    for name, text, edge, counts in (("hb_spawn", HB_SPAWN, "spawn", (4, 8)),
                                     ("hb_join", HB_JOIN, "join", (20, 86))):
        path = model(name + ".bc", text)
        code, out, _ = run("--dump", "--race=goldilocks", path)
        check(code == 0 and "  x              discharged: 2+ threads, no lock held at every "
              "access, ordered by " + edge + ordered in out,
              f"--dump --race=goldilocks: {name}'s x discharged, ordered by {edge} ({out[-400:]})")
        # LD' and Eraser report a hand-over without a lock by design: kept
        for race in ("ld", "eraser"):
            code, out, _ = run("--dump", f"--race={race}", path)
            check("  x              kept: 2+ threads" in out,
                  f"--dump --race={race}: {name}'s x kept ({out[-300:]})")
        # the verdict is unchanged, and the metadata no longer splits states
        # (hb_join: 23 states before; 86 without the reduction)
        got = []
        for opts in ([], ["--reduce=none"]):
            code, out, _ = run("--race=goldilocks", "--all-errors", "--json", "--quiet",
                               *opts, path)
            js = json.loads(out)
            check(code == 0 and js["verdict"] == "ok",
                  f"{name} {opts}: no race ({js['verdict']})")
            got.append(js["stats"]["states_stored"])
        check(tuple(got) == counts, f"{name}: states {got}, expected {counts}")
    for name, (text, msg) in sorted(HB_KEPT.items()):
        path = model(name + ".bc", text)
        code, out, _ = run("--dump", "--race=goldilocks", path)
        check("  x              kept: 2+ threads, no lock held at every access\n" in out,
              f"--dump --race=goldilocks: {name}'s x kept ({out[-300:]})")
        for opts in ([], ["--reduce=none"]):
            code, out, _ = run("--race=goldilocks", *opts, path)
            check(code == 1 and "error: data race on 'x': " + (msg if not opts else "") in out,
                  f"{name} {opts}: the race is reported ({out[:300]})")


DEAD_BRANCH = """shared x
lock m
thread main
    reg r
    acquire m
    load r, x
    add r, r, 1
    store x, r
    release m
    jz r, never
    end
never:
    assert r, "never"
thread other
    reg r
    acquire m
    load r, x
    release m
"""

# a server that waits for good at an end label (a valid end), a lock that
# two threads take in opposite order (a deadlock), a loop with no way out
# (its implicit trailing `end` is never reached and never listed), a proc
# never spawned (all of it unreached)
STUCK = """lock a
lock b
chan c[1]
shared y
thread server
    reg v
end_wait:
    recv v, c
    assert v, "no one sends"
thread t1
    acquire a
    acquire b
    release b
    release a
thread t2
    acquire b
    acquire a
    release a
    release b
thread spin
    reg i
loop:
    add i, i, 1
    mod i, i, 2
    jmp loop
proc idle max 1
    nop
"""


def unreached_lines(out):
    """The lines of the text report's unreached-code section."""
    return out.split("statistics:\n")[-1].split("unreached code", 1)[-1].splitlines()


def test_unreached_code():
    # a dead branch: exactly its line, with every search order and reduction
    dead = model("dead.bc", DEAD_BRANCH)
    want = [{"body": "main", "line": 13, "instruction": 'assert r, "never"', "pc": 7}]
    for opts in ([], ["--search=bfs"], ["--search=bfs", "--store=exact"], ["--por"],
                 ["--reduce=none"], ["--race=off", "--lookahead=on"],
                 ["--race=goldilocks"], ["--por", "--search=bfs"]):
        code, out, _ = run("--json", *opts, dead)
        js = json.loads(out)
        check(code == 0 and js["unreached"] == want,
              f"dead branch {' '.join(opts)}: unreached is exactly line 13 ({js['unreached']})")
    code, out, _ = run(dead)
    lines = unreached_lines(out)
    check(code == 0 and lines == [" (never reached in the complete search):",
                                  '  main  line 13  assert r, "never"',
                                  "  (every instruction of other was reached)"],
          f"dead branch: the text section lists line 13, then the bodies fully reached: {lines}")

    # everything reached
    code, out, _ = run(model("ok.bc", OK))
    check(code == 0 and "unreached code: none (every instruction was reached)\n" in out,
          "a model that runs every instruction says so")
    code, out, _ = run("--json", model("ok.bc", OK))
    check(json.loads(out)["unreached"] == [], "... and JSON has an empty list")

    # partial searches cannot tell: the first error, a depth limit, bitstate
    dl = model("dl.bc", DEADLOCK)
    for opts in ([], ["--max-depth", "2", "--all-errors"], ["--store=bitstate", "--all-errors"]):
        code, out, _ = run(*opts, dl)
        tail = out.split("statistics:\n")[-1]
        check(tail.count("unreached code") == 1 and "unreached code: not reported (" in tail,
              f"deadlock {' '.join(opts)}: one line says unreached code is not reported")
        code, out, _ = run("--json", *opts, dl)
        check(json.loads(out)["unreached"] is None, f"deadlock {' '.join(opts)}: unreached is null")
    # past every error the search is complete: the deadlocked acquires are
    # reached (the threads stand at them), what follows them is not
    code, out, _ = run("--json", "--all-errors", dl)
    js = json.loads(out)
    check(code == 1 and js["complete"] and js["unreached"] == [],
          f"deadlock --all-errors: complete, every instruction reached ({js['unreached']})")

    # blocked for good, at a valid end or in a deadlock: reached; a loop's
    # implicit end: not listed; a proc never spawned: all unreached
    code, out, _ = run("--json", "--all-errors", model("stuck.bc", STUCK))
    js = json.loads(out)
    got = [(u["body"], u["instruction"]) for u in js["unreached"] or []]
    check(js["complete"] and got == [("server", 'assert v, "no one sends"'), ("idle", "nop")],
          f"stuck: only the assert after the recv and the unspawned proc are unreached ({got})")


def test_unreached_same_in_every_search():
    # the unreached code of a complete search (past every error) does not
    # depend on the order, the reduction or the store
    for name in sorted(f for f in os.listdir(MODELS) if f.endswith(".bc")):
        path = os.path.join(MODELS, name)
        lists = {}
        for opts in ([], ["--search=bfs"], ["--search=bfs", "--store=exact"], ["--por"],
                     ["--reduce=none"]):
            code, out, _ = run("--json", "--quiet", "--all-errors", *opts, path)
            js = json.loads(out)
            if js["complete"]:
                lists[" ".join(opts) or "default"] = js["unreached"]
        check(len(set(json.dumps(v) for v in lists.values())) <= 1,
              f"{name}: the same unreached code in every complete search ({lists})")


def trace_lines(out):
    """The text trace's lines, without its header."""
    return out.split("  step  thread          line  instruction\n")[1].split("verdict:")[0].splitlines()


def test_trace_effects():
    """Each trace line says what its instruction did with values (issue 18)."""
    sem = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "semantics")
    # the depth-first traces these pin (--shorten=off), where phil[0] eats
    code, out, _ = run("--por=off", "--shorten=off", os.path.join(MODELS, "philosophers.bc"))
    lines = trace_lines(out)
    check(code == 1 and "    18  acquire fork[left]    ; fork[0]" in lines[3]
          and "    20  load m, meals[self]   ; meals[0] = 0 -> m" in lines[5]
          and "    23  store meals[self], m  ; meals[0]: 0 -> 1" in lines[8]
          and lines[11].endswith("    26  jmp loop"),
          f"philosophers: forks and meals resolved, values read and written ({lines[:12]})")
    # every note starts in one column; a line's beginning is as before
    cols = {l.index("  ; ") for l in lines if "  ; " in l and len(l.split("  ; ")[0]) < 60}
    check(len(cols) == 1, f"the notes are aligned ({cols})")
    check(any("acquire fork[left]    ; fork[2]" in l and "phil[2]" in l for l in lines),
          "an index the thread computed is resolved")
    code, out, _ = run("--json", "--shorten=off", os.path.join(MODELS, "philosophers.bc"))
    tr = json.loads(out)["error"]["trace"]
    st = next(e for e in tr if e["instruction"] == "store meals[self], m")
    check(st["effect"] == "meals[0]: 0 -> 1" and st["object"] == "meals[0]"
          and st["writes"] == [{"name": "meals[0]", "old": 0, "new": 1}],
          f"JSON: a store's effect and writes ({st})")
    ld = next(e for e in tr if e["instruction"] == "load m, meals[self]")
    check(ld["reads"] == [{"name": "meals[0]", "value": 0}]
          and ld["writes"] == [{"name": "m", "old": 0, "new": 0}], f"JSON: a load's reads ({ld})")
    aq = next(e for e in tr if e["instruction"] == "acquire fork[left]")
    check(aq["object"] == "fork[0]" and aq["depth"] == 1 and aq["effect"] == "fork[0]",
          f"JSON: an acquire's lock and depth ({aq})")
    # a failing assert shows its operand
    code, out, _ = run(os.path.join(MODELS, "assert_fail.bc"))
    last = trace_lines(out)[-1]
    check(code == 1 and re.search(r'assert c, "[^"]*"  ; c = 0$', last),
          f"assert_fail: the failing assert shows its operand ({last})")
    code, out, _ = run("--json", "--shorten=off", os.path.join(MODELS, "assert_fail.bc"))
    a = json.loads(out)["error"]["trace"][-1]
    check(a["reads"] == [{"name": "c", "value": 0}] and a["effect"] == "c = 0",
          f"JSON: the failing assert's operand ({a})")
    br = next(e for e in json.loads(out)["error"]["trace"] if e["instruction"] == "jnz d, check")
    check(br["taken"] is False and br["effect"] == "d = 0: not taken", f"JSON: a branch ({br})")
    # channels: the value sent and received
    code, out, _ = run(os.path.join(MODELS, "channel_handoff.bc"))
    text = "\n".join(trace_lines(out))
    check(re.search(r"send c, 1 +; 1 -> c$", text, re.M)
          and re.search(r"recv i, c +; 1 from c -> i$", text, re.M)
          and re.search(r"load v, buf\[i\] +; buf\[1\] = 8 -> v$", text, re.M),
          f"channel_handoff: sent and received values ({text})")
    code, out, _ = run("--json", os.path.join(MODELS, "channel_handoff.bc"))
    tr = json.loads(out)["error"]["trace"]
    sd = next(e for e in tr if e["instruction"] == "send c, 1")
    rv = next(e for e in tr if e["instruction"] == "recv i, c")
    check(sd["sent"] == 1 and sd["object"] == "c" and rv["reads"] == [{"name": "c", "value": 1}]
          and rv["writes"] == [{"name": "i", "old": 0, "new": 1}], f"JSON: send and recv ({sd} {rv})")
    # notifyall names whom it woke; a re-acquire says so; recursion shows the depth
    code, out, _ = run("--shorten=off", os.path.join(sem, "notify_lost.bc"))
    text = "\n".join(trace_lines(out))
    check("notifyall m      ; wakes waiter[0], waiter[1]" in text
          and "wait m           ; re-acquire after notify" in text,
          f"notify_lost: the threads a notifyall woke ({text})")
    code, out, _ = run(os.path.join(sem, "recursive_overrelease.bc"))
    text = "\n".join(trace_lines(out))
    check("acquire m    ; depth 2" in text and "release m    ; still held, depth 1" in text,
          f"recursive_overrelease: the lock depth when recursive ({text})")
    code, out, _ = run(os.path.join(sem, "spawn_beyond_max.bc"))
    text = "\n".join(trace_lines(out))
    check("spawn k, a, 0  ; k = 1 (a[0])" in text, f"spawn names the child ({text})")
    code, out, _ = run("--json", os.path.join(sem, "spawn_beyond_max.bc"))
    sp = json.loads(out)["error"]["trace"][0]
    check(sp["spawned"] == "a[0]", f"JSON: spawned ({sp})")
    # join names the joined thread
    jm = model("join.bc", "proc w max 1\n    nop\nthread main\n    reg k\n    spawn k, w, 0\n"
                          "    join k\n    assert 0, \"after join\"\n")
    code, out, _ = run(jm)
    check(re.search(r"join k +; joined w\[0\]", out), f"join names the joined thread ({out})")
    # --simulate keeps its notes, --por and --reduce=none traces carry effects too
    code, out, _ = run("--por", os.path.join(MODELS, "assert_fail.bc"))
    check(code == 1 and trace_lines(out)[-1].endswith("; c = 0"), "--por: the assert's operand")
    code, out, _ = run("--reduce=none", "--search=bfs", os.path.join(MODELS, "philosophers.bc"))
    check(code == 1 and re.search(r"acquire fork\[left\] +; fork\[0\]", out),
          "--reduce=none: resolved forks")


def test_shorten():
    """Issue 18: a depth-first search's first error trace is shortened by a
    breadth-first search to the same error (--shorten, on by default)."""
    phil = os.path.join(MODELS, "philosophers.bc")
    for bad in ("bogus", "0", "-3", ""):
        code, _, err = run(f"--shorten={bad}", phil)
        check(code == 2 and "mcheck: error: --shorten: expected on, off or a number of states"
              in err, f"--shorten={bad}: a usage error ({code}, {err.strip()})")
    code, out, _ = run("--help")
    check("--shorten=on|off|STATES" in out, "--help documents --shorten")
    # composition (--por=off): 66 depth-first steps become 6
    code, out, _ = run("--por=off", phil)
    check(code == 1 and "trace (6 steps, 12 instructions; shortened from 66 steps by a "
          "breadth-first search of 69 states):" in out
          and re.search(r"^  shortening           69 states, [0-9.]+ s ", out, re.M)
          and "note: depth-first traces can be long" not in out and "not shortened" not in out,
          f"philosophers: shortened from 66 steps to 6 ({out[:400]})")
    for args in (["--shorten=off"], ["--shorten=on", "--shorten=off"]):
        code, out, _ = run("--por=off", *args, phil)
        check(code == 1 and "trace (66 steps, 282 instructions):\n" in out
              and "note: depth-first traces can be long" in out and "shortening" not in out,
              f"{' '.join(args)}: the depth-first path, as before")
    # a safety error of the nested searches (--liveness=npc, --ltl) is shortened too,
    # and replays; a lasso is not (its cycle is no error state)
    prog = model("phil_prog.bc", open(phil).read().replace(
        "    load  m, meals[self]", "progress_eat:\n    load  m, meals[self]"))
    for opts in (["--liveness=npc"], ["--ltl", "false"]):
        tj = os.path.join(TMP, "nested_short.json")
        code, out, _ = run(*opts, "-D", "N=4", "--trace-json", tj, prog)
        check(code == 1 and "error: deadlock" in out and re.search(
              r"trace \(4 steps, 16 instructions; shortened from \d+ steps by a breadth-first", out),
              f"{opts}: the deadlock's trace shortened ({out[:300]})")
        code, out, _ = run("--replay", tj, prog)
        check(code == 1 and "replay: reproduced (deadlock" in out, f"{opts}: it replays ({code})")
    # a lasso: the shortest stem to the nested search's seed and the shortest
    # cycle back (reduce/liveness/lasso_bfs.c), replayed; --shorten=off keeps it
    tj = os.path.join(TMP, "lasso_short.json")
    code, out, _ = run("--liveness=npc", "-D", "N=4", "--trace-json", tj, phil)
    check(code == 1 and "the cycle is steps 16-21)" in out and
          "trace (21 steps, 96 instructions; shortened from 76 steps by a breadth-first search"
          in out, f"npc: the lasso shortened ({out[:300]})")
    code, out, _ = run("--replay", tj, phil)
    check(code == 1 and "replay: reproduced (non-progress cycle" in out,
          f"the shortened lasso replays ({code}, {out[-300:]})")
    code, out, _ = run("--liveness=npc", "--shorten=off", "-D", "N=4", phil)
    check(code == 1 and "trace (76 steps, 347 instructions):" in out,
          f"--shorten=off: the nested search's lasso ({out[:300]})")
    rg = os.path.join(MODELS, "reqgrant_unfair.bc")
    for opts, want in ((["--shorten=off"], "trace (25 steps,"), ([], "trace (15 steps, 19 instructions; "
                                                                      "shortened from 25 steps")):
        code, out, _ = run("--ltl", "[] (req0 -> <> grant0)", *opts, rg)
        check(code == 1 and want in out, f"--ltl {opts}: {want!r} ({out[:300]})")
    # over the budget: the depth-first path, and one line saying why
    code, out, _ = run("--por=off", "--shorten=10", phil)
    check(code == 1 and "trace (66 steps, 282 instructions):\n" in out
          and "\nnot shortened: the breadth-first search for a shorter path reached its budget "
          "of 10 states (--shorten=STATES sets it)\n" in out,
          f"--shorten=10: not shortened, over budget ({out[:300]})")
    code, out, _ = run("--por=off", "--json", "--shorten=10", phil)
    js = json.loads(out)
    e, sh = js["error"], js["stats"]["shortening"]
    check(e["steps"] == 66 and e["shortened_from"] is None and "budget of 10 states"
          in e["not_shortened"] and sh["stop"] == "state_limit" and not sh["shortened"]
          and 10 <= sh["states_stored"] <= 10 + 32,
          f"--json --shorten=10: over budget ({e['steps']}, {e['not_shortened']}, {sh})")
    tj = os.path.join(TMP, "short.json")
    code, out, _ = run("--por=off", "--json", "--trace-json", tj, phil)
    js = json.loads(out)
    with open(tj) as f:
        tjs = json.load(f)
    check(js["error"]["steps"] == 6 and js["error"]["shortened_from"] == 66
          and tjs["shortened_from"] == 66 and tjs["trace"] == js["error"]["trace"]
          and js["stats"]["shortening"]["states_stored"] == 69
          and js["stats"]["states_stored"] == 67,
          f"--json: shortened_from 66, the search's own counts kept ({js['stats']})")
    # breadth-first traces are shortest already; --simulate has no search
    code, out, _ = run("--por=off", "--json", "--search=bfs", phil)
    js = json.loads(out)
    check(js["error"]["steps"] == 6 and js["error"]["shortened_from"] is None
          and js["error"]["not_shortened"] is None and js["stats"]["shortening"] is None,
          "--search=bfs: nothing shortened")
    # -j 2: the parallel depth-first trace is shortened too, and the note says what it is
    code, out, _ = run("--por=off", "-j", "2", "-D", "N=5", phil)
    # (its depth-first path may be a shortest one already)
    check(code == 1 and (re.search(r"trace \(10 steps, 20 instructions; shortened from \d+ steps", out)
                         or "trace (10 steps, 20 instructions):\n" in out
                         and "not shortened: a breadth-first search of" in out)
          and "note: the trace is a shortest one to this error (a sequential breadth-first "
          "search after the parallel depth-first one)" in out,
          f"-j 2: shortened to 10 steps ({out[:300]})")
    # the shortening matches the error's place: b's shallow assertion is
    # searched past, a's deep one is the error (its 3 steps are a shortest path)
    two = model("two_asserts.bc", "lock m\nthread a\n    acquire m\n    release m\n"
                "    acquire m\n    release m\n    assert 0, \"deep\"\n"
                "thread b\n    assert 0, \"shallow\"\n")
    code, out, _ = run("--por=off", "--json", two)
    js = json.loads(out)
    e = js["error"]
    check(code == 1 and e["message"] == "assertion violated: deep" and e["line"] == 7
          and e["steps"] == 3 and e["shortened_from"] is None
          and e["not_shortened"].endswith("found no shorter path to this error")
          and js["stats"]["shortening"]["states_stored"] > 3,
          f"two asserts: the deep one kept, the shallow one searched past ({e['message']}, "
          f"{e['steps']} steps, {e['not_shortened']}, {js['stats']['shortening']})")
    code, out, _ = run("--por=off", "--json", "--search=bfs", two)
    check(json.loads(out)["error"]["message"] == "assertion violated: shallow",
          "two asserts: --search=bfs meets the shallow one first")
    # --all-errors: the first error only (two deadlocks could become one path);
    # --shorten=off keeps them all as the search found them
    sem = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "semantics")
    code, out, _ = run("--por=off", "--json", "--all-errors", "--shorten=off",
                       os.path.join(sem, "notify_lost.bc"))
    errs = json.loads(out)["errors"]
    check(len(errs) == 2 and errs[0]["shortened_from"] is None and errs[0]["steps"] == 8
          and json.loads(out)["stats"]["shortening"] is None,
          f"--all-errors --shorten=off: nothing shortened "
          f"({[(x['steps'], x['shortened_from']) for x in errs]})")
    code, out, _ = run("--por=off", "--json", "--all-errors",
                       os.path.join(sem, "notify_lost.bc"))
    errs = json.loads(out)["errors"]
    check(len(errs) == 2 and errs[0]["shortened_from"] == 8 and errs[0]["steps"] == 4
          and errs[1]["shortened_from"] is None and errs[1]["not_shortened"] is None
          and errs[1]["steps"] == 8,
          f"--all-errors: the first error shortened, the second kept "
          f"({[(x['steps'], x['shortened_from']) for x in errs]})")


def test_errors_alike_are_deterministic():
    # three races on cfg, two of them at one access: the text report prints
    # the first of errors alike, comparing their fields; the first error's
    # path comes from the shortening BFS, whose outcome once left `fault`
    # unset for a detector's report, so the count of traces varied from run
    # to run with the stack's garbage
    sem = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "semantics")
    seen = set()
    for _ in range(8):
        code, out, _ = run("--por=off", "--all-errors", "--race=goldilocks",
                           os.path.join(sem, "init_violation.bc"))
        shown = re.findall(r"--- error 1 of (\d+) ---", out)
        found = re.search(r"errors found: .*", out)
        seen.add((code, tuple(shown), found.group(0) if found else None))
    check(seen == {(1, ("2",), "errors found: 3, race 3 (a trace shown for the first of errors "
                               "alike: 2 of the 3 kept; --json lists them all, --replay-error K "
                               "replays one)")},
          f"--all-errors: the same traces shown in every run ({seen})")


def main():
    global MCHECK
    MCHECK = sys.argv[1]
    for t in (test_usage, test_diagnostics_teach, test_define_changes_the_model, test_simulate, test_json_report,
              test_limits, test_stateless_loop_note, test_por_counts_are_a_subset,
              test_bounded_invisible,
              test_composed_trace_lists_every_instruction,
              test_race_option, test_eraser_note, test_trace_states, test_race_reports_earlier_accesses,
              test_metadata_does_not_split_states, test_progress_line, test_adapt,
              test_lookahead_changes_no_answer, test_por_ahead_changes_no_answer,
              test_bfs_batches_change_no_answer,
              test_bfs_keeps_two_levels_of_vectors, test_language_contract,
              test_constant_expressions_match_refcheck, test_por_discharges_metadata,
              test_hb_discharge,
              test_unreached_code, test_unreached_same_in_every_search, test_trace_effects,
              test_shorten, test_errors_alike_are_deterministic):
        t()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
