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
import signal
import subprocess
import sys
import tempfile
import time
from checks import check, finish

MCHECK = None
TMP = tempfile.mkdtemp(prefix="mcheck-cli-")




def model(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(*args, timeout=120):
    p = subprocess.run([MCHECK] + list(args), capture_output=True, text=True, errors="replace",
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


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
              "omission_probability", "seconds", "states_per_second"]


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
    code, out, err = run("-D", "NOPE=3", ok)
    check(code == 2 and "NOPE" in err, f"-D of an undeclared const: exit 2 ({err!r})")
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
    got = [l.split(None, 3)[-1].strip() if l[:6].strip() else l.split(None, 2)[-1].strip()
           for l in body.splitlines()]
    check(got == want and "trace (1 steps, 5 instructions)" in out,
          f"a composed step expands into every instruction it ran: {got}")


def test_race_option():
    racy = model("racy.bc", "shared x\nthread t[2]\n    reg v\n    load v, x\n    add v, v, 1\n"
                            "    store x, v\n")
    code, out, _ = run("--json", racy)
    js = json.loads(out)
    check(code == 0 and js["options"]["race"] == "off", "--race is off by default (for now)")
    for race, verdict in (("ld", "lock_discipline"), ("eraser", "lock_discipline"),
                          ("goldilocks", "race")):
        for reduce in ("compose", "none"):
            code, out, _ = run("--json", f"--race={race}", f"--reduce={reduce}", racy)
            js = json.loads(out)
            check(code == 1 and js["verdict"] == verdict and js["options"]["race"] == race
                  and js["error"]["thread"].startswith("t[") and "'x'" in js["error"]["message"],
                  f"--race={race} --reduce={reduce}: {verdict} on 'x' ({js['verdict']})")
            check(js["stats"]["locksets"] >= 1, f"--race={race}: locksets interned are counted")
    code, out, err = run("--race=maybe", racy)
    check(code == 2 and "--race" in err, "bad --race value: exit 2")


def test_progress_line():
    p = subprocess.run([MCHECK, "--progress", "--reduce=none", "--timelimit", "4.5",
                        model("big.bc", BIG)], capture_output=True, text=True, timeout=60)
    check("states/s" in p.stderr and "states" in p.stderr, f"--progress prints progress ({p.stderr!r})")
    p = subprocess.run([MCHECK, "--reduce=none", "--timelimit", "2.5", model("big.bc", BIG)],
                       capture_output=True, text=True, timeout=60)
    check(p.stderr == "", "no progress when stderr is not a terminal")


def main():
    global MCHECK
    MCHECK = sys.argv[1]
    for t in (test_usage, test_define_changes_the_model, test_simulate, test_json_report,
              test_limits, test_bounded_invisible, test_composed_trace_lists_every_instruction,
              test_race_option, test_progress_line):
        t()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
