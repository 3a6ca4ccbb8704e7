#!/usr/bin/env python3
"""mcheck --replay (tools/cli/replay_cli.c, issue 18): a saved trace re-executed
through the interpreter. For every bundled model that reports an error (and
semantics models, and small models whose errors need a nonzero `choose` or
`notify` choice), `--trace-json` then `--replay` exits 1 with the very trace
lines of the search's own text report, and the JSON report's first error
replays the same way; the recorded options are applied (a contradicting one
is a usage error naming both); a fixed model says no error (exit 0) or where
the path stops (exit 2, exact step and reason); bad files exit 2 with a
message, never a crash. Not checked: the wording beyond the key sentences.

usage: test_replay.py MCHECK MODELS_DIR
The last line is "N passed, N failed".
"""
import json
import os
import re
import shutil
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish, header, run_mcheck, write_model  # noqa: E402

TMP = tempfile.mkdtemp(prefix="mcheck-replay-")
MCHECK = None

# choose: only the value 2 (choice 2) fails the assertion
CHOOSE = """thread a
    reg v, ok
    choose v, 0, 3
    ne ok, v, 2
    assert ok, "v is 2"
"""

# notify wakes the waiter of the notify's choice; only waking w[1] (choice
# 1) fails the assertion; a waiter never woken waits at an end label
NOTIFY = """lock m
shared ready[2]
thread w[2]
    reg ok
    acquire m
    store ready[self], 1
end_wait:
    wait m
    ne ok, self, 1
    assert ok, "w[1] woke first"
    release m
thread n
    reg a, b
    acquire m
    load a, ready[0]
    load b, ready[1]
    and a, a, b
    jz a, out
    notify m
out:
    release m
"""


# --adapt makes flag volatile, then the assertion fails; the path's steps
# depend on flag being volatile (recorded as "adapted")
ADAPT = """shared flag
thread w
    store flag, 1
thread r
    reg f
    load f, flag
    assert f, "flag not yet set"
"""


def trace_lines(out):
    """The trace of a text report: from "trace (" to the line before what
    follows it (blocked threads, a note, --adapt's lines, the verdict or the
    replay's outcome). The search's header may say how its path was
    shortened (--shorten); the replay's replays that path and does not."""
    lines = [re.sub(r"; shortened from \d+ steps by a breadth-first search of \d+ states\):$",
                    "):", l) for l in out.splitlines()]
    start = next((i for i, l in enumerate(lines) if l.startswith("trace (")), None)
    if start is None:
        return []
    end = start + 1
    stop = r"(blocked threads:|note:|verdict:|replay:|adapted:|warning:|not shortened:|errors found:)"
    while end < len(lines) and not re.match(stop, lines[end]):
        end += 1
    return lines[start:end]


def blocked_lines(out):
    lines = out.splitlines()
    if "blocked threads:" not in lines:
        return []
    i = j = lines.index("blocked threads:")
    while j + 1 < len(lines) and lines[j + 1].startswith("  "):
        j += 1
    return lines[i:j + 1]


def round_trip(path, opts, what):
    """Search with --trace-json, then --replay: exit 1, the same error and
    trace lines, "replay: reproduced"; the JSON report's error replays too."""
    tj = os.path.join(TMP, os.path.basename(path) + ".json")
    code, out, err = run_mcheck(MCHECK, *opts, "--trace-json", tj, path)
    if not check(code == 1, f"{what}: the search finds an error (exit {code}, {err!r})"):
        return None
    rcode, rout, rerr = run_mcheck(MCHECK, "--replay", tj, path)
    check(rcode == 1, f"{what}: --replay exits 1 ({rcode}, {rerr!r})")
    first_error = next(l for l in out.splitlines() if l.startswith("error: "))
    check(first_error in rout.splitlines(), f"{what}: replay reports {first_error!r}")
    check(trace_lines(out) and trace_lines(out) == trace_lines(rout),
          f"{what}: the replay's trace lines are the search's:\n" +
          "\n".join(trace_lines(out)[:5]) + "\n---\n" + "\n".join(trace_lines(rout)[:5]))
    check(blocked_lines(out) == blocked_lines(rout), f"{what}: the same blocked threads")
    msg = first_error[len("error: "):]
    check(f"replay: reproduced ({msg}) after " in rout, f"{what}: reproduced ({rout[-300:]!r})")
    # the --json report: its first error replays the same way
    jr = os.path.join(TMP, os.path.basename(path) + ".report.json")
    code, jout, _ = run_mcheck(MCHECK, *opts, "--json", path)
    with open(jr, "w") as f:
        f.write(jout)
    rcode, rout2, rerr2 = run_mcheck(MCHECK, "--replay", jr, path)
    check(rcode == 1 and trace_lines(rout2) == trace_lines(out),
          f"{what}: the --json report's error replays ({rcode}, {rerr2!r})")
    # --json --replay: the verdict and the replayed error
    rcode, jrep, _ = run_mcheck(MCHECK, "--json", "--replay", tj, path)
    js = json.loads(jrep)
    with open(tj) as f:
        saved = json.load(f)
    check(rcode == 1 and js["outcome"] == "reproduced" and js["verdict"] == saved["kind"]
          and js["error"]["kind"] == saved["kind"] and js["error"]["path"] == saved["path"]
          and js["error"]["trace"] == saved["trace"] and js["divergence"] is None,
          f"{what}: --json --replay ({rcode}, {jrep[:300]!r})")
    return tj


def expect_error(args, code_wanted, pattern, what):
    code, out, err = run_mcheck(MCHECK, *args)
    check(code == code_wanted and re.search(pattern, err) and "Traceback" not in err
          and "AddressSanitizer" not in err and "runtime error" not in err,
          f"{what}: exit {code} (want {code_wanted}), stderr {err!r} !~ {pattern!r}")
    return out, err


def edited(path, subs, what):
    """A copy of the model at `path` with each (old line, new lines) replaced."""
    with open(path) as fh:
        text = fh.read()
    for old, new in subs:
        check(old in text, f"{what}: the model has {old!r}")
        text = text.replace(old, new, 1)
    out = os.path.join(TMP, what + ".bc")
    with open(out, "w") as fh:
        fh.write(text)
    return out


def por_lasso_replays(models):
    """Lassos found with --por (its folded starts are step 0 of the trace:
    the cycle's first state is looked up after them) replay to exit 1 with
    the same trace; a starvation trace claiming --por is refused."""
    for what, name, opts in (("npc --por", "livelock_backoff.bc", ["--liveness=npc", "--por"]),
                             ("ltl --por", "reqgrant_unfair.bc",
                              ["--ltl", "[] (req0 -> <> grant0)", "--por"])):
        path = os.path.join(models, name)
        tj = os.path.join(TMP, what.replace(" ", "_") + ".json")
        code, out, err = run_mcheck(MCHECK, *opts, "--trace-json", tj, path)
        if not check(code == 1, f"{what}: the search finds a lasso (exit {code}, {err!r})"):
            continue
        with open(tj) as fh:
            js = json.load(fh)
        rcode, rout, rerr = run_mcheck(MCHECK, "--replay", tj, path)
        check(rcode == 1 and f"replay: reproduced ({js['message']}) after {len(js['path'])} steps"
              in rout and trace_lines(out) == trace_lines(rout),
              f"{what}: --replay reproduces the lasso, the same trace ({rcode}, {rerr!r}, "
              f"{rout[-200:]!r})")
    path = os.path.join(models, "rw_writer_starves.bc")
    tj = os.path.join(TMP, "starv_por.json")
    code, _, _ = run_mcheck(MCHECK, "--liveness=starvation", "--trace-json", tj, path)
    with open(tj) as fh:
        js = json.load(fh)
    js["options"]["por"] = True
    with open(tj, "w") as fh:
        json.dump(js, fh)
    rcode, _, rerr = run_mcheck(MCHECK, "--replay", tj, path)
    check(code == 1 and rcode == 2 and f'{tj}: "options": por cannot be used with '
          f'liveness=starvation' in rerr, f"a starvation trace with por: exit 2 ({rcode}, {rerr!r})")


def lasso_replays(models):
    """The lassos of --liveness=starvation --fair and --ltl replay (issue 20):
    exit 1 and the same trace with its cycle marked, re-checked by the
    searches' own lasso checks (a thread that does not starve there, a
    formula the cycle satisfies: no error, exit 0); an edited model whose
    cycle no longer closes: no error; malformed fields: exit 2."""
    rw = os.path.join(models, "rw_writer_starves.bc")
    rg = os.path.join(models, "reqgrant_unfair.bc")
    cases = [("starvation", rw, ["--liveness=starvation", "--fair"],
              [("    reg n\n", "    reg n, k\n"),
               ("    nop                         ; reading\n", "    add k, k, 1\n")]),
             ("ltl", rg, ["--ltl", "[] (req0 -> <> grant0)"],
              [("    reg g\nloop:\n    store req[1], 1", "    reg g, k\nloop:\n    store req[1], 1"),
               ("    send done, 1\n    jmp loop\n\nthread server",
                "    send done, 1\n    add k, k, 1\n    jmp loop\n\nthread server")])]
    saved = {}
    for what, path, opts, subs in cases:
        tj = os.path.join(TMP, what + ".json")
        code, out, err = run_mcheck(MCHECK, *opts, "--trace-json", tj, path)
        if not check(code == 1, f"{what}: the search finds a lasso (exit {code}, {err!r})"):
            continue
        with open(tj) as fh:
            js = json.load(fh)
        saved[what] = (tj, js, path)
        rcode, rout, rerr = run_mcheck(MCHECK, "--replay", tj, path)
        msg = js["message"]
        check(rcode == 1 and f"replay: reproduced ({msg}) after {len(js['path'])} steps" in rout,
              f"{what}: --replay reproduces the lasso ({rcode}, {rerr!r}, {rout[-200:]!r})")
        mark = f"<<<<< cycle starts here: steps {js['cycle_start'] + 1}- repeat forever >>>>>"
        check(trace_lines(out) == trace_lines(rout) and mark in "\n".join(trace_lines(rout)),
              f"{what}: the same trace lines, the cycle marked at step {js['cycle_start'] + 1}")
        rcode, jrep, _ = run_mcheck(MCHECK, "--json", "--replay", tj, path)
        rj = json.loads(jrep)
        check(rcode == 1 and rj["outcome"] == "reproduced" and rj["error"]["path"] == js["path"]
              and rj["error"]["cycle_start"] == js["cycle_start"]
              and rj["error"].get("starved_tid") == js.get("starved_tid"),
              f"{what}: --json --replay, the same lasso ({rcode}, {jrep[:200]!r})")
        # an edited model: a counter in a register, so the cycle's last state
        # is no longer its first
        ed = edited(path, subs, what + "_edited")
        rcode, rout, _ = run_mcheck(MCHECK, "--replay", tj, ed)
        check(rcode == 0 and rout.splitlines()[-1] ==
              f"replay: the trace replays to its end ({len(js['path'])} steps), but no error "
              f"occurs: the model no longer has the recorded {js['kind']} ({msg}) on this path",
              f"{what}: the edited model's cycle does not close ({rcode}, {rout[-200:]!r})")

    def variant(what, change, name):
        tj, js, path = saved[what]
        d = json.loads(json.dumps(js))
        change(d)
        f = os.path.join(TMP, name + ".json")
        with open(f, "w") as fh:
            json.dump(d, fh)
        return f, path, js

    if "starvation" in saved:
        tj, js, rw = saved["starvation"]
        check(js["starved"] == "writer" and js["starved_tid"] == 2 and js["options"]["fair"],
              f"starvation: the trace records the starved thread and fair ({js.get('starved')!r})")
        # reader[0] has no progress label: it does not starve on the cycle
        f, _, _ = variant("starvation", lambda d: d.update(starved_tid=0), "st_tid0")
        code, out, _ = run_mcheck(MCHECK, "--replay", f, rw)
        check(code == 0 and "but no error occurs" in out, f"starved_tid 0: no error ({code})")
        # older files: the thread by its name
        f, _, _ = variant("starvation", lambda d: d.pop("starved_tid"), "st_name")
        code, _, _ = run_mcheck(MCHECK, "--replay", f, rw)
        check(code == 1, f"starved by name only: reproduced ({code})")
        for i, (change, pattern) in enumerate([
                (lambda d: (d.pop("starved_tid"), d.update(starved="nobody")),
                 r"\"starved\": no thread 'nobody' on the replayed path$"),
                (lambda d: (d.pop("starved_tid"), d.pop("starved")),
                 r'the starvation error has no "starved_tid" or "starved" \(the starved thread\)$'),
                (lambda d: d.update(starved_tid=-1), r'"starved_tid" is not a thread id'),
                (lambda d: d.update(starved_tid=5),
                 r'"starved_tid": no thread 5 on the replayed path \(the model has \d+ thread slots\)$'),
                (lambda d: d.pop("cycle_start"),
                 r'the starvation error has no "cycle_start" \(its path is a lasso\)$'),
                (lambda d: d.update(cycle_start=len(d["path"])),
                 r"\"cycle_start\" must be a step count below the path's length$"),
                (lambda d: d["options"].pop("liveness"),
                 r'"options"\."liveness" must be "starvation" for a starvation error$'),
                (lambda d: d["options"].update(liveness="fast"),
                 r'"options"\."liveness" must be "npc" or "starvation"$'),
                (lambda d: d["options"].update(fair="yes"), r'"options"\."fair" must be true or false$')]):
            f, _, _ = variant("starvation", change, f"st_bad{i}")
            expect_error(["--replay", f, rw], 2, pattern, f"starvation bad field {i}")
    if "ltl" in saved:
        tj, js, rg = saved["ltl"]
        # a formula the cycle satisfies: no accepting run beside it
        f, _, _ = variant("ltl", lambda d: d["options"].update(ltl="[] (req1 -> <> grant1)"),
                          "ltl_other")
        code, out, _ = run_mcheck(MCHECK, "--replay", f, rg)
        check(code == 0 and "but no error occurs" in out, f"ltl, another formula: no error ({code})")
        for i, (change, pattern) in enumerate([
                (lambda d: d["options"].pop("ltl"),
                 r'"options"\."ltl" is missing: an ltl_violated error is replayed with its '
                 r'formula$'),
                (lambda d: d["options"].update(ltl="[] (req0 -> "),
                 r'"options"\."ltl": unexpected end of the formula$'),
                (lambda d: d["options"].update(ltl="[] nosuch"),
                 r"\"options\"\.\"ltl\": unknown prop 'nosuch' at column 4"),
                (lambda d: d["options"].update(ltl=3), r'"options"\."ltl" must be a formula'),
                (lambda d: d.update(cycle_start=len(d["path"]) + 1),
                 r"\"cycle_start\" must be a step count from 0 to the path's length$"),
                (lambda d: d.pop("cycle_start"),
                 r'the ltl_violated error has no "cycle_start" \(its path is a lasso\)$')]):
            f, _, _ = variant("ltl", change, f"ltl_bad{i}")
            expect_error(["--replay", f, rg], 2, pattern, f"ltl bad field {i}")
    # --ltl on a run that ends: cycle_start is the path's length (the last
    # state repeats forever)
    term = write_model(TMP, "ends.bc", "volatile x\nprop two = x == 2\nthread a\n    store x, 1\n")
    tj = os.path.join(TMP, "ends.json")
    code, _, _ = run_mcheck(MCHECK, "--ltl", "<> two", "--trace-json", tj, term)
    with open(tj) as fh:
        js = json.load(fh)
    check(code == 1 and js["cycle_start"] == len(js["path"]) == 1,
          f"ltl, a run that ends: cycle_start is its length ({code}, {js.get('cycle_start')})")
    code, out, _ = run_mcheck(MCHECK, "--replay", tj, term)
    check(code == 1 and "replay: reproduced (ltl property violated: an execution that ends after "
          "1 steps" in out, f"ltl, a run that ends: reproduced ({code})")


def main():
    global MCHECK
    MCHECK = os.path.abspath(sys.argv[1])
    models = sys.argv[2]
    semantics = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "semantics")

    # 1. every bundled model that reports an error, with its header options
    ran = 0
    for name in sorted(os.listdir(models)):
        if not name.endswith(".bc"):
            continue
        path = os.path.join(models, name)
        h = header(path)
        opts = h.get("options", "").split()
        code, _, _ = run_mcheck(MCHECK, *opts, path)
        if code == 1:
            round_trip(path, opts, name)
            ran += 1
    check(ran >= 7, f"error models replayed: {ran}")
    # options that shape the steps are recorded and applied
    round_trip(os.path.join(models, "spurious_if_wait.bc"), ["--spurious-wakeups"],
               "spurious_if_wait --spurious-wakeups")
    round_trip(os.path.join(models, "philosophers.bc"), ["-D", "N=4", "--por"],
               "philosophers N=4 --por")
    round_trip(os.path.join(models, "philosophers.bc"), ["-D", "N=2", "--reduce=none",
                                                        "--search=bfs"],
               "philosophers N=2 --reduce=none")
    round_trip(os.path.join(models, "race_counter.bc"), ["--race=eraser"], "race_counter eraser")
    for name in ("notify_lost.bc", "recursive_overrelease.bc", "spawn_beyond_max.bc",
                 "init_violation.bc"):
        round_trip(os.path.join(semantics, name), [], name)
    # --adapt's volatile variables are recorded and made volatile again
    path = write_model(TMP, "adapt.bc", ADAPT)
    # the search's own path (--shorten=off): it passes the unlocked access
    # --adapt made volatile before the assertion
    tj = round_trip(path, ["--adapt", "--shorten=off"], "adapt.bc --adapt")
    if tj:
        with open(tj) as f:
            saved = json.load(f)
        check(saved.get("adapted") == ["flag"], f"adapt.bc: \"adapted\" recorded ({saved})")
        del saved["adapted"]
        with open(tj, "w") as f:
            json.dump(saved, f)
        code, out, _ = run_mcheck(MCHECK, "--replay", tj, path)
        check(code == 1 and "replay: a different error: lock_discipline" in out,
              f"adapt.bc without \"adapted\": flag is checked again ({code}, {out[-200:]!r})")
    # choices matter: the path holds a nonzero choice, and replay takes it
    for name, text, msg in (("choose.bc", CHOOSE, "v is 2"), ("notify.bc", NOTIFY, "w[1] woke")):
        path = write_model(TMP, name, text)
        tj = round_trip(path, [], name)
        if tj:
            with open(tj) as f:
                saved = json.load(f)
            check(any(c for _, c in saved["path"]) and msg in saved["message"],
                  f"{name}: a nonzero choice in the path ({saved['path']})")
            # the same path with every choice 0: no longer this error
            saved["path"] = [[t, 0] for t, _ in saved["path"]]
            z = os.path.join(TMP, name + ".zero.json")
            with open(z, "w") as f:
                json.dump(saved, f)
            code, out, err = run_mcheck(MCHECK, "--replay", z, path)
            check(code in (0, 4) and f"({msg}" not in out,
                  f"{name}: choices zeroed, the error is gone ({code}, {out[-200:]!r})")

    # 2. the philosophers' deadlock on the fixed model: the path stops where
    # the ordering keeps phil[0] from its first fork
    phil = os.path.join(models, "philosophers.bc")
    fixed = os.path.join(models, "philosophers_ordered.bc")
    tj = os.path.join(TMP, "phil.json")
    # composition's depth-first path (--por=off --shorten=off), 66 steps,
    # in which phil[0] eats before the others start
    run_mcheck(MCHECK, "--por=off", "-D", "N=3", "--shorten=off", "--trace-json", tj, phil)
    with open(phil) as f:
        src = f.read()
    out, err = expect_error(["--replay", tj, fixed], 4,
                            re.escape(f"mcheck: error: {tj} does not replay on {fixed}: step 66: "
                                      "phil[0] cannot move (acquire of 'fork[0]', held by "
                                      "phil[2])") + "$", "philosophers_ordered")
    check("note: the trace was recorded on " + phil in out and
          "trace (65 steps," in out, f"philosophers_ordered: the followed prefix ({out[:300]!r})")
    code, jrep, _ = run_mcheck(MCHECK, "--json", "--replay", tj, fixed)
    js = json.loads(jrep)
    check(code == 4 and js["outcome"] == "diverged" and js["divergence"]["step"] == 66
          and js["divergence"]["thread"] == "phil[0]" and js["steps_followed"] == 65
          and js["error"] is None, f"philosophers_ordered --json ({jrep[:300]!r})")
    # the deadlock turned into a valid end (an end label before the second
    # acquire): the path runs to its end without an error, exit 0
    ended = write_model(TMP, "phil_endlabel.bc", src.replace("    acquire fork[right]",
                                                             "end_right:\n    acquire fork[right]"))
    code, out, err = run_mcheck(MCHECK, "--replay", tj, ended)
    check(code == 0 and "replay: the trace replays to its end (66 steps), but no error occurs: "
          "the model no longer has the recorded deadlock (deadlock: no thread can move) on "
          "this path" in out and trace_lines(out)[0] == "trace (66 steps, 282 instructions):",
          f"end label: no error, exit 0 ({code}, {out[-300:]!r}, {err!r})")
    code, jrep, _ = run_mcheck(MCHECK, "--json", "--replay", tj, ended)
    js = json.loads(jrep)
    check(code == 0 and js["outcome"] == "no_error" and js["verdict"] == "ok"
          and js["error"] is None and js["steps_followed"] == 66,
          f"end label --json ({jrep[:300]!r})")
    # a different error: the same path, an assertion in the way
    asserted = write_model(TMP, "phil_assert.bc", src.replace(
        "reg left, right, m", "reg left, right, m, ok").replace(
        "    store meals[self], m", "    store meals[self], m\n    ne ok, m, 2\n"
        "    assert ok, \"second meal\"", 1))
    code, out, err = run_mcheck(MCHECK, "--replay", tj, asserted)
    check(code == 1 and "error: assertion violated: second meal" in out and
          re.search(r"replay: a different error: assertion \(assertion violated: second meal\) "
                    r"at step \d+; the trace recorded deadlock \(deadlock: no thread can move\) "
                    r"after 66 steps", out), f"a different error ({code}, {out[-300:]!r})")

    # 3. recorded options against the command line
    expect_error(["--replay", tj, "--race=off", phil], 2,
                 r"--race=off contradicts the trace's race=ld \(recorded in .*\)", "--race=off")
    expect_error(["--replay", tj, "--por", phil], 2, r"--por contradicts the trace's por=false",
                 "--por")
    expect_error(["--replay", tj, "--reduce=none", phil], 2,
                 r"--reduce=none contradicts the trace's reduce=compose", "--reduce")
    expect_error(["--replay", tj, "--spurious-wakeups", phil], 2,
                 r"--spurious-wakeups contradicts the trace's spurious_wakeups=false", "spurious")
    expect_error(["--replay", tj, "--max-invisible", "7", phil], 2,
                 r"--max-invisible 7 contradicts the trace's max_invisible=100000", "max-invisible")
    expect_error(["--replay", tj, "--store=exact", phil], 2,
                 r"--store cannot be used with --replay\n", "--store")
    expect_error(["--replay", tj, "-j", "2", phil], 2, r"-j cannot be used with --replay", "-j")
    expect_error(["--replay-error", "2", phil], 2, r"--replay-error needs --replay", "replay-error")
    # options that agree with the recording are accepted
    code, out, _ = run_mcheck(MCHECK, "--replay", tj, "--race=ld", "--reduce=compose", phil)
    check(code == 1 and "replay: reproduced" in out, f"agreeing options ({code})")
    # -D on the command line overrides the recorded one: N=4 has a 4th
    # philosopher, so the deadlock path of N=3 no longer closes the cycle
    code, out, err = run_mcheck(MCHECK, "--replay", tj, "-D", "N=4", phil)
    check(code == 0 and "no error occurs" in out, f"-D N=4 overrides N=3 ({code}, {err!r})")
    # --replay-error K of a --all-errors report
    rep = os.path.join(TMP, "all.json")
    code, jout, _ = run_mcheck(MCHECK, "--json", "--all-errors",
                               os.path.join(semantics, "notify_lost.bc"))
    with open(rep, "w") as f:
        f.write(jout)
    nerr = len(json.loads(jout)["errors"])
    code, out, _ = run_mcheck(MCHECK, "--replay", rep, "--replay-error", str(nerr),
                              os.path.join(semantics, "notify_lost.bc"))
    check(nerr >= 2 and code == 1 and "replay: reproduced" in out,
          f"--replay-error {nerr} ({code}, {out[-200:]!r})")
    expect_error(["--replay", rep, "--replay-error", str(nerr + 1),
                  os.path.join(semantics, "notify_lost.bc")], 2,
                 rf"--replay-error {nerr + 1}, but the report has {nerr} errors", "K too big")

    # 4. bad files: exit 2 and a message, never a crash
    good = {"kind": "deadlock", "message": "deadlock: no thread can move", "path": [[0, 0]]}
    bad = [
        (None, r"cannot read '.*nonexistent.json': No such file"),
        ("", r"is empty"),
        ("{not json", r"is not JSON: unexpected text at line 1, column \d+$"),
        ('{"path": [[0, 0]', r"is not JSON: unexpected text at line 1, column \d+$"),
        ('{"path":\n [[0, 0]]\n,}', r"is not JSON: unexpected text at line 3, column \d+$"),
        ('{"path": []} trailing', r"is not JSON: text after the value at line 1, column 14"),
        ("null", r"no error to replay \(null"),
        ("[1, 2]", r"expected an object"),
        ("{}", r'no "path", no "errors"'),
        ({"kind": "deadlock", "message": "m"}, r'the error has no "path"'),
        ({"path": [[0, 0]]}, r'no "kind" and "message"'),
        (dict(good, path="x"), r'"path" is not an array'),
        (dict(good, path=[[0]]), r'"path" step 1 is not a \[thread, choice\] pair'),
        (dict(good, path=[[0, 0], [0, 0, 0]]), r'"path" step 2 is not a \[thread, choice\]'),
        (dict(good, path=[[-1, 0]]), r'"path" step 1: the thread is not a thread id'),
        (dict(good, path=[["0", 0]]), r'"path" step 1: the thread is not a thread id'),
        (dict(good, path=[[1e30, 0]]), r'"path" step 1: the thread is not a thread id'),
        (dict(good, path=[[0, 0.5]]), r'"path" step 1: the choice is not an integer'),
        (dict(good, path=[[0, -3]]), r'"path" step 1: the choice is not an integer'),
        (dict(good, path=[[0, 1e300]]), r'"path" step 1: the choice is not an integer'),
        (dict(good, options={"race": "fast"}),
         r'"options"\."race" must be .off., .ld., .eraser. or .goldilocks.'),
        (dict(good, options={"por": "yes"}), r'"options"\."por" must be true or false'),
        (dict(good, options={"max_invisible": 0}), r'"options"\."max_invisible" must be'),
        (dict(good, options={"defines": [{"name": "N", "value": 2**40}]}),
         r'"options"\."defines" item 1 is not'),
        (dict(good, options={"defines": {"N": 3}}), r'"options"\."defines" is not an array'),
        (dict(good, options={"por": True, "reduce": "none"}), r"por needs reduce=compose"),
        (dict(good, adapted=["nosuch"]), r"\"adapted\": 'nosuch' is not a variable of"),
        ({"errors": []}, r"the report has no error to replay"),
        # raw control bytes are not JSON (cJSON would read them as blanks)
        (json.dumps(good).replace(", ", ",\x00 ", 1), r"is not JSON: control byte 0x00 at offset \d+$"),
        (json.dumps(good).replace(", ", ",\x01", 1), r"is not JSON: control byte 0x01 at offset \d+$"),
        ({"errors": [1]}, r"error 1 is not an object"),
        # a trace for another model: thread ids and choices it does not have
        (dict(good, path=[[7, 0]]), r"does not replay on .*: step 1: the model has no thread 7 "
                                    r"\(it has 3 thread slots\)$"),
        (dict(good, path=[[0, 0], [0, 5]]),
         r"does not replay on .*: step 2: phil\[0\] has 1 choice here \(0 to 0\), the trace "
         r"takes choice 5$"),
        (dict(good, path=[[2**31 - 1, 2**53]]), r"step 1: the model has no thread 2147483647"),
        # a million steps, the last one malformed
        (dict(good, path=[[0, 0]] * 999999 + [[0, -1]]), r'"path" step 1000000: the choice'),
        # a million steps that stop following the model at step 4
        (dict(good, path=[[0, 0]] * 3 + [[9, 0]] * 999997), r"step 4: the model has no thread 9"),
    ]
    for i, (content, pattern) in enumerate(bad):
        f = os.path.join(TMP, f"bad{i}.json") if content is not None else \
            os.path.join(TMP, "nonexistent.json")
        if content is not None:
            with open(f, "w") as fh:
                fh.write(content if isinstance(content, str) else json.dumps(content))
        # a path the model cannot follow is exit 4, a file that cannot be read exit 2
        diverges = re.search(r"the model has no thread|choice here", pattern)
        expect_error(["--replay", f, phil], 4 if diverges else 2, pattern,
                     f"bad file {i} ({str(content)[:60]})")
    # --memlimit bounds reading the file too: a million steps are some 200 MB
    # of cJSON's tree
    f = os.path.join(TMP, "million.json")
    with open(f, "w") as fh:
        json.dump(dict(good, path=[[0, 0]] * 3 + [[9, 0]] * 999997), fh)
    expect_error(["--replay", f, "--memlimit", "50", phil], 3,
                 r"memory limit reached reading .*million.json \(--memlimit 50 MB\)$", "memlimit")
    # a -D recorded for a const the model lacks: the assembler's error, exit 2
    f = os.path.join(TMP, "badD.json")
    with open(f, "w") as fh:
        json.dump(dict(good, options={"defines": [{"name": "NOPE", "value": 1}]}), fh)
    expect_error(["--replay", f, phil], 2, r"NOPE", "recorded -D for a missing const")
    # a thread not spawned: spawn_join's workers before main spawns them
    sj = os.path.join(models, "spawn_join.bc")
    f = os.path.join(TMP, "spawn.json")
    with open(f, "w") as fh:
        json.dump(dict(good, path=[[1, 0]]), fh)
    expect_error(["--replay", f, "-D", "K=3", sj], 4,
                 r"step 1: thread 1 was never spawned$", "unspawned thread")
    lasso_replays(models)
    por_lasso_replays(models)
    shutil.rmtree(TMP, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
