#!/usr/bin/env python3
"""Limits hold in trace replay and printing; huge traces are summarized;
loops are shown once (issue 18).

- The fold lines' exact text on a thread spinning on a plain variable
  (--max-invisible 1000), text and JSON ({"repeat": ...}); --trace=all prints
  every line; a long trace that does not fold shows its head and tail; a step
  longer than the replay keeps (2 x 1024 entries) says how much it left out.
- The livelock hint names the variable, its class and the fix, and the fix
  (`volatile x`) makes the model pass; a loop that reads no global says it
  never ends.
- --timelimit hit inside the replay: mcheck --replay of a saved step of
  2,000,000,000 instructions stops at --timelimit 1 (exit 3, outcome
  "stopped"); and after a search (a real case: the search runs one long
  composed step, whose replay with --trace-json writes every entry, tens of
  times slower; the limit, a quarter of the unlimited run on this machine,
  falls in the replay with wide margins): the verdict and the error still
  print, the trace says it is not complete, exit 3, within a few seconds of
  the limit, resident memory and the JSON small; the --trace-json file is
  valid JSON that says it was cut off.
- --timelimit inside the search's own composed step: a thread spinning on a
  plain variable with --max-invisible 2,000,000,000 (minutes of one step)
  stops at the limit, exit 3, "time limit reached", in DFS, BFS, -j 2 and
  the look-ahead's DFS, with the state it was running stored nowhere.
- --trace-json streams: a 300,000-instruction loop gives a file of tens of
  MB (every entry) while the process stays small. (The brief's 10M
  instructions take minutes under ASan; measured by hand on a release build,
  see the commit message.)

usage: test_trace_limits.py MCHECK
The last line is "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish, run_mcheck, write_model  # noqa: E402

TMP = tempfile.mkdtemp(prefix="mcheck-trace-limits-")
MCHECK = None

SPIN = """shared x

thread b
    reg r
    nop
spin:
    load r, x
    jz r, spin

thread a
    store x, 1
"""

LOCAL = """shared x

thread b
    reg r
    nop
spin:
    add r, r, 1
    jmp spin

thread a
    store x, 1
"""

FOLD = ["     1  b                  5  nop",
        "        b                  7  load r, x   ; x = 0 -> r",
        "        b                  8  jz r, spin  ; r = 0: taken",
        "        ... lines 7-8 repeat 498 more times (996 instructions) ...",
        "        b                  7  load r, x   ; x = 0 -> r",
        "        b                  8  jz r, spin  ; r = 0: taken",
        "verdict: runtime_error"]


def timed(*args):
    """(exit status, stdout, stderr, seconds, max RSS in KB) of one run."""
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "RSSKB=%M", MCHECK] + list(args),
                       capture_output=True, text=True, errors="replace", timeout=600)
    secs = time.monotonic() - t
    rss = 0
    for line in p.stderr.splitlines():
        if line.startswith("RSSKB="):
            rss = int(line[6:])
    return p.returncode, p.stdout, p.stderr, secs, rss


def test_fold_text(spin):
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--max-invisible", "1000", spin)
    check(code == 1, f"spin: exit 1, got {code}")
    lines = out.splitlines()
    at = lines.index("  step  thread          line  instruction") if "  step  thread          line  instruction" in lines else -1
    check(at >= 0 and lines[at + 1:at + 1 + len(FOLD)] == FOLD,
          "spin: the loop shown once with its fold line:\n" + "\n".join(lines[at + 1:at + 8]))
    check("trace (1 step, 1001 instructions):" in out, "spin: the header counts every instruction")
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--max-invisible", "1000", "--trace=all", spin)
    n = sum(1 for l in out.splitlines() if l.startswith("        b ") or l.startswith("     1  b"))
    check(code == 1 and n == 1001 and "repeat" not in out, f"--trace=all: 1001 lines, got {n}")
    code, _, err = run_mcheck(MCHECK, "--trace=some", spin)
    check(code == 2 and "--trace: expected 'compact' or 'all', got 'some'" in err,
          f"--trace=some: usage error, got {code} {err!r}")


def test_fold_json(spin):
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--json", "--max-invisible", "1000", spin)
    d = json.loads(out)
    tr = d["error"]["trace"]
    check(len(tr) == 6 and tr[3] == {"repeat": {"lines": [7, 8], "times": 498, "instructions": 996}},
          f"json: the fold object, got {tr[3] if len(tr) > 3 else tr}")
    check(tr[4]["line"] == 7 and tr[5]["line"] == 8, "json: the last iteration follows the fold")
    check(d["error"]["trace_instructions"] == 1001 and d["error"]["trace_complete"] is True
          and d["error"]["trace_stopped"] is None, "json: trace status fields")
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--json", "--trace=all", "--max-invisible", "1000", spin)
    check(len(json.loads(out)["error"]["trace"]) == 1001, "json --trace=all: every entry")


def test_hint(spin):
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--max-invisible", "1000", spin)
    want = ("hint: b spins on 'x' (shared) in its loop at lines 7-8: inside one composed step no "
            "other thread can change it; declare it 'volatile x' so that each read is a "
            "scheduling point")
    check(want in out.splitlines(), "livelock hint text:\n" + out[:600])
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--json", "--max-invisible", "1000", spin)
    check(json.loads(out)["error"]["hint"] == want[len("hint: "):], "livelock hint in JSON")
    fixed = write_model(TMP, "spin_fixed.bc", SPIN.replace("shared x", "volatile x"))
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--max-invisible", "1000", fixed)
    check(code == 0 and "verdict: ok" in out, f"volatile x: the model passes, got {code}")
    local = write_model(TMP, "local.bc", LOCAL)
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--max-invisible", "1000", local)
    check(code == 1 and "hint: b loops on lines 7-8, which read no global variable it does not "
          "write itself: the loop never ends, whatever the other threads do" in out,
          "a loop without a global: it never ends\n" + out[:500])


def test_long_traces():
    # 1500 distinct instructions: nothing folds; the view shows head and tail
    body = "".join(f"    add r, r, {i}\n" for i in range(1500))
    m = write_model(TMP, "long.bc", "thread t\n    reg r\n    nop\n" + body + "    assert 0\n")
    code, out, _ = run_mcheck(MCHECK, "--quiet", m)
    lines = [l for l in out.splitlines() if l.startswith("        ")]
    check(code == 1 and "        ... 502 lines left out (502 instructions); --trace-json FILE "
          "writes it all ..." in out and len(lines) <= 1001,
          f"long trace: head and tail, {len(lines)} lines")
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--json", m)
    tr = json.loads(out)["error"]["trace"]
    check(len(tr) == 1001 and tr[500] == {"left_out": {"lines": 502, "instructions": 502,
                                                       "hint": "--trace-json FILE writes it all"}},
          f"long trace JSON: left_out object, got {tr[500] if len(tr) > 500 else len(tr)}")
    # 3000 instructions in one step: the replay keeps 2 x 1024
    body = "".join(f"    add r, r, {i}\n" for i in range(3000))
    m = write_model(TMP, "longer.bc", "thread t\n    reg r\n    nop\n" + body + "    assert 0\n")
    code, out, _ = run_mcheck(MCHECK, "--quiet", "--trace=all", m)
    check(code == 1 and "        ... 953 instructions not kept by the replay ..." in out,
          "a step longer than the replay keeps says what it left out")
    tj = os.path.join(TMP, "longer.json")
    code, _, _ = run_mcheck(MCHECK, "--quiet", "--trace-json", tj, m)
    d = json.load(open(tj))
    check(code == 1 and len(d["trace"]) == 3002 and d["trace_complete"] is True
          and d["kind"] == "assertion", f"--trace-json writes every entry, got {len(d['trace'])}")


def test_replay_timelimit(spin):
    # 1. mcheck --replay alone, deterministic: a saved trace whose one step
    # runs 2,000,000,000 instructions (its recorded --max-invisible) stops at
    # --timelimit 1, with no search before it to share the time
    small = os.path.join(TMP, "small.json")
    code, _, _, _, _ = timed("--quiet", "--max-invisible", "1000", "--trace-json", small, spin)
    with open(small) as f:
        d = json.load(f)
    d["options"]["max_invisible"] = 2000000000
    d["message"] = "no visible operation within 2000000000 steps"
    big = os.path.join(TMP, "big.json")
    with open(big, "w") as f:
        json.dump(d, f)
    code, out, _, t, rss = timed("--replay", big, "--timelimit", "1", spin)
    check(code == 3 and "trace: not complete: replay stopped by --timelimit after " in out
          and "replay: stopped by --timelimit after " in out
          and ": incomplete, neither reproduced nor refuted" in out,
          f"--replay stopped by --timelimit: exit 3 and says so ({code})\n{out[-600:]}")
    check(t < 1 + 5 and rss < 150 * 1024, f"--replay: within the limit ({t:.1f} s, {rss} KB)")
    code, out, _, _, _ = timed("--json", "--replay", big, "--timelimit", "1", spin)
    dj = json.loads(out) if out.startswith("{") else {}
    check(code == 3 and dj.get("outcome") == "stopped" and dj.get("verdict") == "incomplete"
          and dj.get("stopped") == "time_limit", f"--replay --json: stopped ({out[:300]})")

    # 2. the replay after a search: --trace-json makes the replay write
    # every entry, tens of times slower than the search's own step, so a
    # limit at a quarter of a whole run falls inside the replay, normally
    # with wide margins (calibrated on this machine: ASan or release).  A
    # shared machine's load can move a run by several times between the
    # calibration and the checks, so an attempt whose limit fell outside the
    # replay (the run finished, or stopped in the search) is valid too, and
    # is repeated with a longer step or a later limit, up to 4 times.
    n = 100000
    tj = os.path.join(TMP, "calib.json")
    while True:
        code, out, _, secs, _ = timed("--quiet", "--json", "--max-invisible", str(n),
                                      "--trace-json", tj, spin)
        if secs >= 2 or n >= 1600000:  # a fast (release) build: a longer step
            break
        n *= 2
    os.remove(tj)
    check(code == 1 and json.loads(out)["error"]["trace_complete"] is True,
          f"unlimited: the whole replay, exit {code}")
    limit = secs / 4
    for attempt in range(4):
        where = replay_cut_attempt(spin, n, limit, tj, attempt == 3)
        if where == "replay":
            break
        if where == "finished":
            n *= 2
        else:
            limit *= 2
    check(where == "replay", f"the limit fell inside the replay in one of 4 attempts ({where})")


def replay_cut_attempt(spin, n, limit, tj, last):
    """One attempt of --timelimit LIMIT over a step of N instructions written
    to --trace-json: "replay" when both runs (JSON and text) stopped inside
    the replay, after checking everything; "finished" or "search" when a
    run's limit fell elsewhere (checked to be a valid outcome of that kind)."""
    args = ["--quiet", "--max-invisible", str(n), "--timelimit", f"{limit:.2f}", "--memlimit",
            "100", "--trace-json", tj]
    code, out, _, t, rss = timed(*args, "--json", spin)
    d = json.loads(out) if out.startswith("{") else None
    if not check(d is not None, f"JSON valid (exit {code})\n{out[-600:]}"):
        return "invalid"
    where = outcome_of(code, d, n, out)
    if where != "replay" and not last:
        return where
    check(code == 3, f"replay stopped by --timelimit: exit 3, got {code}")
    check(t < limit + 5, f"stops within a few seconds of the limit: {t:.1f} s, limit {limit:.1f}")
    check(rss < 150 * 1024, f"resident memory stays small: {rss} KB")
    check(len(out) < 20000, f"JSON small: {len(out)} bytes")
    e = d["error"]
    check(d["verdict"] == "runtime_error" and e["message"] ==
          f"no visible operation within {n} steps" and e["line"] == 7,
          "the verdict and the error's message and location")
    check(e["trace_complete"] is False and e["trace_stopped"] == "time_limit"
          and 0 < e["trace_instructions"] < n, f"trace status: {e['trace_stopped']}")
    check(d["stats"]["seconds"] >= limit, "time measured after the replay")
    with open(tj) as f:
        d = json.load(f)
    check(d["trace_complete"] is False and d["trace_stopped"] == "time_limit"
          and len(d["trace"]) == d["trace_instructions"] and d["kind"] == "runtime_error",
          "--trace-json cut off by --timelimit: valid and says so")
    code, out, _, t, rss = timed(*args, spin)
    cut = "trace: not complete: replay stopped by --timelimit after " in out
    if code == 1 and not last:
        check("verdict: runtime_error" in out and not cut, f"text: finished\n{out[-800:]}")
        return "finished"
    if code == 3 and "search incomplete: time limit reached" in out and not last:
        return "search"
    check(code == 3 and "error: no visible operation within" in out and "  in b at " in out
          and cut and "verdict: runtime_error" in out, f"text: verdict, error, the trace cut off\n{out[-800:]}")
    os.remove(tj)
    return "replay"


def outcome_of(code, d, n, out):
    """Where a --json run's --timelimit fell, checking that a run it did not
    cut in the replay is a valid outcome: "finished" (exit 1, the whole
    trace), "search" (exit 3, stopped with no error found), or "replay"."""
    e = d.get("error") or {}
    if code == 1:
        check(e.get("trace_complete") is True, f"finished: the whole trace\n{out[-600:]}")
        return "finished"
    if code == 3 and not e:
        check(d.get("verdict") == "incomplete" and d.get("stop") == "time_limit",
              f"stopped in the search\n{out[-600:]}")
        return "search"
    return "replay"


def test_trace_json_streams(spin):
    tj = os.path.join(TMP, "whole.json")
    n = 300000
    code, out, _, t, rss = timed("--quiet", "--json", "--max-invisible", str(n), "--trace-json", tj, spin)
    size = os.path.getsize(tj)
    check(code == 1 and size > 30 * 1024 * 1024, f"--trace-json: every entry, {size} bytes")
    check(rss < 100 * 1024, f"--trace-json streams: resident {rss} KB")
    check(len(out) < 20000, "the report's own JSON stays small")
    d = json.load(open(tj))
    check(len(d["trace"]) == n + 1 and d["trace_instructions"] == n + 1 and d["trace_complete"]
          and d["trace"][-1]["line"] == 8 and d["hint"].startswith("b spins on 'x'"),
          f"--trace-json: valid, {len(d['trace'])} entries")


def test_search_step_timelimit(spin):
    limit = 2
    for opts in ([], ["--search=bfs"], ["-j", "2"], ["--race=off", "--lookahead=on"],
                 ["-j", "2", "--search=bfs"]):
        what = " ".join(opts) or "dfs"
        code, out, err, secs, _ = timed(*opts, "--max-invisible", "2000000000", "--timelimit",
                                        str(limit), spin)
        check(code == 3 and "search incomplete: time limit reached" in out
              and "verdict: incomplete" in out,
              f"{what}: a long composed step stops at --timelimit (exit {code})\n{out[-600:]}")
        check(secs < limit + 4, f"{what}: within a few seconds of the limit ({secs:.1f} s)")


def main():
    global MCHECK
    MCHECK = sys.argv[1]
    spin = write_model(TMP, "spin.bc", SPIN)
    test_fold_text(spin)
    test_fold_json(spin)
    test_hint(spin)
    test_long_traces()
    test_trace_json_streams(spin)
    test_search_step_timelimit(spin)
    test_replay_timelimit(spin)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
