#!/usr/bin/env python3
"""--trace-html FILE (tools/report/report_html.c, issue 18): the page of the first
error's trace. For bundled models (a deadlock, an assertion after wait and
notify, a lock_discipline report, a spurious wakeup, spawned threads, a
runtime error) and a few written here (an assert message with `<b>&"`, a
trace longer than the page keeps, --por's start row) the page is parsed with
html.parser and compared with `--json` of the same search: one column per
thread, one row per step with the mover's instructions and notes, the lock
bars of every cell against hold intervals computed from the JSON trace,
waits and blocked acquires, the failing row and instruction, the header, the
escaping, nothing fetched from the network (one inline script); a lasso
(--liveness=npc, --ltl, --liveness=starvation) has its cycle marked and no
failing step. Then Debian's chromium loads some of the pages headless in a
1400x1000 window: --dump-dom must hold the same structure, and a copy of the
page with a measuring script appended records the layout into the DOM: the
failing row (or the cycle's marker and first step) is within the first
screen and not covered (elementFromPoint), with the page's script and, for
error traces, without it; the writes column is in view and the page does
not scroll sideways (four threads: the table fits the width; seven: the
pane scrolls, the writes column sticks). --screenshot: a PNG of 1400x1000
in which the failing row's (or the cycle marker's) colour is painted.
HTML_SHOTS=DIR keeps the screenshots there. Without chromium the browser
checks fail when CI is set and are skipped (with the reason printed)
otherwise. Also: the page of a search without error, write errors,
--trace-html with --simulate. Not checked: how the page looks beyond that
(look at a screenshot).

usage: test_html.py MCHECK MODELS_DIR
The last line is "N passed, N failed".
"""
import json
import os
import re
import shutil
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, run_mcheck, write_model  # noqa: E402
import html_view  # noqa: E402
from html_view import (Node, Tree, chromium, check_first_screen, columns, in_browser,  # noqa: E402
                       layout, page, rows, visible)

TMP = tempfile.mkdtemp(prefix="mcheck-html-")
html_view.TMP = TMP
MCHECK = MODELS = None


def cells(tr):
    """{tid: td} of one row."""
    return {int(td.attrs["data-tid"]): td for td in tr.children
            if isinstance(td, Node) and td.tag == "td" and "data-tid" in td.attrs}


def bars(td):
    """The locks a cell draws as held: {lock name}."""
    out = set()
    for b in td.all(lambda n: n.tag == "i" and "bar" in n.cls()):
        m = re.fullmatch(r"(.+) holds (.+)", b.attrs.get("title", ""))
        out.add(m.group(2) if m else "?")
    return out


def insn_lines(td):
    """(line, instruction, note) of each instruction line of a cell."""
    out = []
    for d in td.all(lambda n: n.tag == "div" and "i" in n.cls()):
        ln = d.all(lambda n: "ln" in n.cls())
        code = d.all(lambda n: n.tag == "code")
        fx = d.all(lambda n: "fx" in n.cls())
        lk = d.all(lambda n: "lk" in n.cls())
        out.append((ln[0].text() if ln else "", code[0].text() if code else "",
                    fx[0].text() if fx else (lk[0].text() if lk else "")))
    return out


NETWORK = ("fetch", "XMLHttpRequest", "import", "WebSocket", "src", "http", "open(", "eval")


def self_contained(name, text, tree, script=True):
    """Nothing the page would fetch: no external reference; one inline
    script (a trace's page: it scrolls the pane) that names no network API,
    none on a page without a trace."""
    scripts = tree.root.all(lambda n: n.tag == "script")
    if script:
        check(len(scripts) == 1 and not scripts[0].attrs and
              not any(w in scripts[0].text() for w in NETWORK),
              f"{name}: one inline <script>, without attributes or a network API")
    else:
        check(not scripts, f"{name}: no <script> in the page")
    check(not any(t in ("link", "img", "iframe", "object", "embed") for t, _ in tree.tags),
          f"{name}: no link, img or iframe")
    check(not any("src" in a for _, a in tree.tags), f"{name}: no src attribute")
    check(all(a["href"].startswith("#") for _, a in tree.tags if "href" in a),
          f"{name}: only links within the page")
    check("url(" not in text and "@import" not in text and "http:" not in text
          and "https:" not in text, f"{name}: no url(), @import or http in the page")


def expected_holds(js):
    """From the JSON trace alone: per step, {thread: locks held at some time
    in the step}, and {thread: locks held} after the last step."""
    held, per_step = {}, {}
    for s in range(0, js["steps"] + 1):
        during = {t: set(h) for t, h in held.items()}
        for e in (x for x in js["trace"] if x["step"] == s):
            t, ins = e["thread"], e["instruction"].split()[0]
            reacq = "re-acquire" in e.get("note", "")
            h = held.setdefault(t, set())
            d = during.setdefault(t, set())
            if (ins == "acquire" or reacq) and "depth" in e:
                h.add(e["object"])
                d.add(e["object"])
            elif ins == "release" and e.get("depth") == 0:
                h.discard(e["object"])
            elif ins == "wait" and not reacq and "object" in e:
                h.discard(e["object"])
        per_step[s] = during
    return per_step, held


def check_page(name, path, js, text_report, expect_threads, cut=False):
    """The page against the --json report of the same search."""
    text = page(path)
    tree = Tree(text)
    self_contained(name, text, tree)
    err = js["errors"][0]
    steps = err["steps"]
    cols = columns(tree)
    check(list(cols.values()) == expect_threads,
          f"{name}: one column per thread {expect_threads}, got {list(cols.values())}")
    names = {v: k for k, v in cols.items()}
    check({e["thread"] for e in err["trace"]} <= set(cols.values()),
          f"{name}: every thread of the trace has a column")
    # header
    v = tree.by_id("verdict")
    check(v is not None and v.text().startswith(js["verdict"] + " ("),
          f"{name}: the verdict {js['verdict']} in the header")
    m = tree.by_id("message")
    check(m is not None and m.text().startswith(err["message"]),
          f"{name}: the error message in the header: {m.text() if m else None!r}")
    st = tree.by_id("steps")
    check(st is not None and st.text() == str(steps), f"{name}: the path length {steps}")
    hints = [n.text() for n in tree.root.all(lambda n: n.attrs.get("id") in ("hint", "hint2"))]
    if err["hint"]:
        check(hints and err["hint"].startswith(hints[0]) and all(h in err["hint"] for h in hints),
              f"{name}: the hint lines {hints} are the JSON hint {err['hint']!r}")
    else:
        check(not hints, f"{name}: no hint line")
    # rows: one per step, the mover's instructions as the JSON trace has them
    trs = rows(tree)
    steprows = [tr for tr in trs if "data-step" in tr.attrs]
    numbers = [int(tr.attrs["data-step"]) for tr in steprows]
    gaps = [tr for tr in trs if "gap" in tr.cls()]
    start = 1 if any(e["step"] == 0 for e in err["trace"]) else 0
    if not cut:
        check(numbers == list(range(1 - start, steps + 1)),
              f"{name}: one row per step 1..{steps}{' and the start row' if start else ''}, "
              f"got {numbers[:5]}...{numbers[-3:]} ({len(numbers)})")
        check(not gaps, f"{name}: no row left out")
    per_step, held_end = expected_holds(err)
    entries = {}
    for e in err["trace"]:
        entries.setdefault(e["step"], []).append(e)
    bad_bars = bad_moves = 0
    for tr in steprows:
        s = int(tr.attrs["data-step"])
        cs = cells(tr)
        if set(cs) != set(cols):
            bad_moves += 1
            continue
        for tid, td in cs.items():
            t = cols[tid]
            mine = [e for e in entries.get(s, []) if e["thread"] == t]
            moved = "mv" in td.cls()
            if moved != bool(mine):
                bad_moves += 1
            elif mine and len(mine) <= 30:
                got = insn_lines(td)
                want = [(str(e["line"]), e["instruction"], e.get("effect", "")) for e in mine]
                # a lock chip stands for a note that only names the lock
                if [(g[0], g[1]) for g in got] != [(w[0], w[1]) for w in want] or \
                        any(w[2] and g[2] != w[2] and not w[2].startswith(g[2])
                            for g, w in zip(got, want)):
                    bad_moves += 1
                    if bad_moves < 3:
                        print(f"  {name} step {s} {t}: {got} != {want}")
            if bars(td) != per_step[s].get(t, set()):
                bad_bars += 1
                if bad_bars < 3:
                    print(f"  {name} step {s} {t}: bars {bars(td)} != {per_step[s].get(t, set())}")
    check(bad_moves == 0, f"{name}: every row's movers, instructions and notes are the JSON "
                          f"trace's ({bad_moves} cells differ)")
    check(bad_bars == 0, f"{name}: every cell's lock bars are the JSON trace's hold intervals "
                         f"({bad_bars} cells differ)")
    # waits: from a wait to its re-acquire, the thread's cells say so
    bad_wait = 0
    for t, tid in names.items():
        waiting = False
        for tr in steprows:
            s = int(tr.attrs["data-step"])
            mine = [e for e in entries.get(s, []) if e["thread"] == t]
            for e in mine:
                if e["instruction"].startswith("wait"):
                    waiting = "re-acquire" not in e.get("note", "") and "depth" not in e
            td = cells(tr).get(tid)
            if td is not None and not mine and (("wt" in td.cls()) != waiting):
                bad_wait += 1
    check(bad_wait == 0, f"{name}: a waiting thread's cells are marked exactly from its wait "
                         f"to its re-acquire ({bad_wait} cells differ)")
    # the failing row and instruction; a lasso's cycle instead
    fails = [tr for tr in trs if "fail" in tr.cls()]
    if "cycle_start" in err:
        check_cycle(name, tree, err)
    else:
        check(len(fails) == 1, f"{name}: one failing row, got {len(fails)}")
        check(tree.by_id("cycle") is None and not [tr for tr in trs if "cyc" in tr.cls()],
              f"{name}: no cycle marked (not a lasso)")
    if "cycle_start" in err:
        pass
    elif err["kind"] == "deadlock":
        check(fails and fails == trs[-1:] and "data-step" not in fails[0].attrs,
              f"{name}: the deadlock's row comes last, after every step")
        if fails:
            cs = cells(fails[0])
            for b in err["blocked"]:
                td = cs.get(names.get(b["thread"], -1))
                check(td is not None and b["waits_for"] in td.text() and b["instruction"] in td.text(),
                      f"{name}: the deadlock row says {b['thread']} {b['waits_for']!r}")
                check(td is not None and bars(td) == held_end.get(b["thread"], set()),
                      f"{name}: the deadlock row draws the locks {b['thread']} holds")
        check(tree.by_id("culprit") is None, f"{name}: a deadlock has no failing instruction")
    else:
        check(fails and fails[0].attrs.get("data-step") == str(steps),
              f"{name}: the failing row is the last step {steps}")
        c = tree.by_id("culprit")
        check(c is not None and c.all(lambda n: n.tag == "code")[0].text() == err["instruction"]
              and err["message"] in c.text(),
              f"{name}: the failing instruction {err['instruction']!r} is marked with the message")
        if c is not None:
            td = c
            while td.tag != "td":
                td = td.parent
            check(cols.get(int(td.attrs["data-tid"])) == err["thread"],
                  f"{name}: the failing instruction is in {err['thread']}'s column")
    # the text report's blocked threads are the deadlock row's (same words)
    if err["kind"] == "deadlock":
        lines = text_report.split("blocked threads:\n", 1)[-1].splitlines()
        whys = [l.split("): ", 1)[1] for l in lines if l.startswith("  ") and "): " in l]
        check(whys and all(w in fails[0].text() for w in whys),
              f"{name}: the text report's blocked threads are in the deadlock row")
    return tree


def check_cycle(name, tree, err):
    """A lasso: no failing row or instruction; the row #cycle right before
    step cycle_start + 1 says where the cycle starts; the rows of steps
    cycle_start + 1 .. steps, and only they, are marked as the cycle's; the
    last one closes it (not a failing step)."""
    trs = rows(tree)
    cs, steps = err["cycle_start"], err["steps"]
    check(not [tr for tr in trs if "fail" in tr.cls()] and tree.by_id("fail") is None,
          f"{name}: a lasso has no failing row")
    check(tree.by_id("culprit") is None and not tree.root.all(lambda n: "errmsg" in n.cls()),
          f"{name}: a lasso has no failing instruction")
    mark = tree.by_id("cycle")
    at = trs.index(mark) if mark in trs else -1
    check(at >= 0 and "cycmark" in mark.cls() and mark.attrs.get("data-cycle-start") == str(cs + 1)
          and at + 1 < len(trs) and trs[at + 1].attrs.get("data-step") == str(cs + 1)
          and f"steps {cs + 1} to {steps} repeat forever" in mark.text()
          and f"state after step {cs}" in mark.text(),
          f"{name}: the cycle marker row comes right before step {cs + 1} and names steps "
          f"{cs + 1} to {steps}")
    steprows = [tr for tr in trs if "data-step" in tr.attrs]
    wrong = [tr.attrs["data-step"] for tr in steprows
             if ("cyc" in tr.cls()) != (int(tr.attrs["data-step"]) > cs)]
    check(not wrong, f"{name}: the rows of steps {cs + 1}-{steps}, and only they, are the "
                     f"cycle's (wrong: {wrong[:5]})")
    first = [tr for tr in steprows if "cs" in tr.cls()]
    last = [tr for tr in steprows if "ce" in tr.cls()]
    check(len(first) == 1 and first[0].attrs["data-step"] == str(cs + 1),
          f"{name}: the cycle's first step {cs + 1} is marked as its start")
    if last:
        sn = [c for c in last[0].children if isinstance(c, Node) and "sn" in c.cls()]
    check(len(last) == 1 and last[0] is steprows[-1] and last[0].attrs["data-step"] == str(steps)
          and sn and "\u2717" not in sn[0].text() and "\u21ba" in sn[0].text()
          and f"state after step {cs}" in sn[0].attrs.get("title", ""),
          f"{name}: the last step {steps} is marked as closing the cycle, not as failing")
    link = [a for a in tree.root.all(lambda n: n.tag == "a") if a.attrs.get("href") == "#cycle"]
    check(len(link) == 1 and f"steps {cs + 1} to {steps}" in link[0].text(),
          f"{name}: the header links to the cycle")


def json_report(*args):
    """The --json report of a run, with its first error's whole trace: the
    report's "trace" is compact (loops folded, long traces cut), so it is
    taken from --trace-json, which holds every instruction. Returns the
    report as text, like run_mcheck's stdout."""
    tj = os.path.join(TMP, "whole-trace.json")
    rc, out, err = run_mcheck(MCHECK, *args[:-1], "--json", "--trace-json", tj, args[-1])
    js = json.loads(out)
    with open(tj) as f:
        whole = json.load(f)
    if whole is not None and js.get("errors"):
        js["errors"][0]["trace"] = whole["trace"]
        if js.get("error"):
            js["error"]["trace"] = whole["trace"]
    return rc, json.dumps(js), err


def run_case(name, model, opts, expect_verdict, expect_threads, cut=False):
    out = os.path.join(TMP, name + ".html")
    rc, so, se = run_mcheck(MCHECK, *opts, "--trace-html", out, model)
    check(rc == 1 and os.path.exists(out), f"{name}: exit 1 and the page written ({rc}, {se!r})")
    check(se == "", f"{name}: nothing on stderr: {se!r}")
    rc, js, _ = json_report(*opts, model)
    js = json.loads(js)
    check(js["verdict"] == expect_verdict, f"{name}: verdict {expect_verdict}, got {js['verdict']}")
    if not os.path.exists(out):
        return None
    tree = check_page(name, out, js, so, expect_threads, cut)
    return out, tree, js


# ---- models written here ---------------------------------------------------

ESCAPE = """lock m
shared x
thread main
    reg r, c
    acquire m
    store x, 1
    load r, x
    release m
    eq c, r, 2
    assert c, "x <b>&\\"y\\"</b> ' done"
"""

# 2600 steps (more than the page keeps) and a last step of 150 instructions
LONG = """const N = 2600
lock m
thread t
    reg i, c
loop:
    acquire m
    release m
    add i, i, 1
    lt c, i, N
    jnz c, loop
    mov i, 0
spin:
    add i, i, 1
    lt c, i, 50
    jnz c, spin
    eq c, i, 0
    assert c, "never"
"""


def spawn_model():
    """spawn_join.bc with a lost update: each worker releases m between its
    load and its store, so the final assertion fails."""
    with open(os.path.join(MODELS, "spawn_join.bc")) as f:
        text = f.read()
    check("    add t, t, self\n" in text, "spawn_join.bc: the worker adds its self")
    return write_model(TMP, "spawn_lost.bc", text.replace(
        "    add t, t, self\n", "    release m\n    add t, t, self\n    acquire m\n"))


def main():
    global MCHECK, MODELS
    MCHECK, MODELS = sys.argv[1], sys.argv[2]
    semantics = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "semantics")
    liveness = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "liveness")
    phils = lambda n: [f"phil[{k}]" for k in range(n)]
    md = lambda n: os.path.join(MODELS, n)
    cases = [
        ("philosophers", md("philosophers.bc"), ["--por=off", "-D", "N=3", "--search=bfs"], "deadlock",
         ["phil[0]", "phil[1]", "phil[2]"]),
        ("philosophers_dfs", md("philosophers.bc"), ["-D", "N=3"], "deadlock",
         ["phil[0]", "phil[1]", "phil[2]"]),
        ("philosophers_por", md("philosophers.bc"), ["-D", "N=3", "--por"], "deadlock",
         ["phil[0]", "phil[1]", "phil[2]"]),
        ("assert_fail", md("assert_fail.bc"), [], "assertion", ["main", "worker[0]", "worker[1]"]),
        ("race_counter", md("race_counter.bc"), ["--race=ld"], "lock_discipline",
         ["inc[0]", "inc[1]"]),
        ("spurious_if_wait", md("spurious_if_wait.bc"), ["--spurious-wakeups"], "assertion",
         ["producer", "consumer"]),
        ("deadlock_locks", md("deadlock_locks.bc"), [], "deadlock", None),
        ("spawn_lost", spawn_model(), ["--search=bfs"], "assertion",
         ["main", "worker[0]", "worker[1]", "worker[2]"]),
        ("spawn_beyond_max", os.path.join(semantics, "spawn_beyond_max.bc"), [],
         "runtime_error", None),
        ("escape", write_model(TMP, "esc.bc", ESCAPE), [], "assertion", ["main"]),
        # four threads and seven: the width
        ("phil4", md("philosophers.bc"), ["-D", "N=4"], "deadlock", phils(4)),
        ("phil7", md("philosophers.bc"), ["-D", "N=7"], "deadlock", phils(7)),
        # lassos: a cycle marked, no failing step
        ("npc_backoff", md("livelock_backoff.bc"), ["--liveness=npc"], "non_progress_cycle",
         ["t[0]", "t[1]"]),
        ("npc_phil4", md("philosophers.bc"), ["--liveness=npc", "--shorten=off", "-D", "N=4"],
         "non_progress_cycle", phils(4)),
        ("ltl_reqgrant", md("reqgrant_unfair.bc"), ["--ltl", "[] (req0 -> <> grant0)"],
         "ltl_violated", ["client0", "client1", "server"]),
        ("starve", os.path.join(liveness, "starvation", "lock_starve.bc"),
         ["--liveness=starvation"], "starvation", ["t[0]", "t[1]"]),
    ]
    pages = {}
    for name, model, opts, verdict, threads in cases:
        if threads is None:  # the threads of the JSON trace and its blocked list
            _, js, _ = json_report(*opts, model)
            e = json.loads(js)["errors"][0]
            seen = {x["tid"]: x["thread"] for x in e["trace"]}
            for x in e["trace"]:  # spawned, perhaps never moved
                if "spawned" in x:
                    seen[int(x["writes"][0]["new"])] = x["spawned"]
            threads = [seen[k] for k in sorted(seen)]
            for b in e.get("blocked", []):
                if b["thread"] not in threads:
                    threads.append(b["thread"])
        r = run_case(name, model, opts, verdict, threads)
        if r:
            pages[name] = r

    # the spawned threads: hatched before their spawn, "spawned" in its row
    if "spawn_lost" in pages:
        _, tree, js = pages["spawn_lost"]
        cols = {v: k for k, v in columns(tree).items()}
        spawn_step = {}
        for e in js["errors"][0]["trace"]:
            if "spawned" in e:
                spawn_step[e["spawned"]] = e["step"]
        check(len(spawn_step) == 3, f"spawn_lost: three spawns in the trace ({spawn_step})")
        for t, s in spawn_step.items():
            cs = [(int(tr.attrs["data-step"]), cells(tr)[cols[t]]) for tr in rows(tree)
                  if "data-step" in tr.attrs]
            check(all(("nb" in td.cls()) == (k < s) for k, td in cs),
                  f"spawn_lost: {t} is marked not spawned exactly before step {s}")
            check(any(k == s and "spawned" in td.text() for k, td in cs),
                  f"spawn_lost: {t} says spawned in step {s}")
    # a blocked acquire is shown in the blocked thread's column
    if "philosophers" in pages:
        _, tree, js = pages["philosophers"]
        blocked = [tr.attrs["data-step"] for tr in rows(tree) if "data-step" in tr.attrs
                   and "blocked: acquire of fork[1], held by phil[1]" in cells(tr)[0].text()]
        check(blocked == ["4", "5", "6"],
              f"philosophers: phil[0] blocked on fork[1] from phil[1]'s acquire on, got {blocked}")
    # the --por trace's start row
    if "philosophers_por" in pages:
        _, tree, js = pages["philosophers_por"]
        check(any(tr.attrs.get("data-step") == "0" for tr in rows(tree)),
              "philosophers_por: the threads' folded starts make a start row")
    # lock_discipline: the hint and the explanation
    if "race_counter" in pages:
        _, tree, js = pages["race_counter"]
        check(tree.by_id("hint") is not None and tree.by_id("hint2") is not None,
              "race_counter: both hint lines in the header")
        ex = tree.by_id("explanation")
        check(ex is not None and "earlier accesses to 'count'" in ex.text(),
              "race_counter: the detector's explanation in the header")
    # escaping: the model's text is text, in the file and in the browser
    if "escape" in pages:
        path, tree, js = pages["escape"]
        raw = page(path)
        check("x &lt;b&gt;&amp;\\&quot;y\\&quot;&lt;/b&gt; &#39; done" in raw,
              "escape: the assert message is escaped in the file")
        check("<b>" not in raw and "</b>" not in raw, "escape: no raw <b> in the file")
        check(not any(t == "b" for t, _ in tree.tags), "escape: no <b> element parsed")
        check(tree.by_id("message").text() == js["errors"][0]["message"],
              "escape: the message reads as written")

    # a long trace: the first and last 1000 rows, a row saying how many were left out
    name = "long"
    out = os.path.join(TMP, "long.html")
    model = write_model(TMP, "long.bc", LONG)
    rc, so, se = run_mcheck(MCHECK, "--trace-html", out, model)
    check(rc == 1, f"long: exit 1 ({rc}, {se!r})")
    _, js, _ = json_report(model)
    js = json.loads(js)
    steps = js["errors"][0]["steps"]
    check(steps == 2601, f"long: 2601 steps, got {steps}")
    tree = check_page(name, out, js, so, ["t"], cut=True)
    steprows = [int(tr.attrs["data-step"]) for tr in rows(tree) if "data-step" in tr.attrs]
    gaps = [tr for tr in rows(tree) if "gap" in tr.cls()]
    check(steprows == list(range(1, 1001)) + list(range(steps - 999, steps + 1)),
          f"long: the first and last 1000 steps are rows ({len(steprows)} rows)")
    check(len(gaps) == 1 and gaps[0].attrs.get("data-omitted") == str(steps - 2000)
          and "--trace-json" in gaps[0].text(),
          "long: one row says how many steps were left out and that --trace-json has them")
    check(os.path.getsize(out) < 4 << 20, f"long: the page stays small ({os.path.getsize(out)} B)")
    count = {}
    for e in js["errors"][0]["trace"]:
        count[e["step"]] = count.get(e["step"], 0) + 1
    spin = max(count, key=count.get)  # the step that spins 50 times
    row = [tr for tr in rows(tree) if tr.attrs.get("data-step") == str(spin)]
    cut = row[0].all(lambda n: "cut" in n.cls()) if row else []
    check(count[spin] > 150 and len(cut) == 1 and f"{count[spin] - 30} more instructions" in cut[0].text()
          and len(insn_lines(cells(row[0])[0])) == 30 and all(
              "cut" not in n.cls() for tr in rows(tree) if tr is not row[0]
              for n in tr.all(lambda n: True)),
          f"long: step {spin}'s {count[spin]} instructions cut to 30 and a line saying so; "
          f"no other step cut")
    pages[name] = (out, tree, js)

    # no error: a small page saying so
    out = os.path.join(TMP, "ok.html")
    rc, so, se = run_mcheck(MCHECK, "-D", "N=3", "--trace-html", out, md("philosophers_ordered.bc"))
    check(rc == 0 and os.path.exists(out), f"ok: exit 0 and a page ({rc}, {se!r})")
    if os.path.exists(out):
        tree = Tree(page(out))
        self_contained("ok", page(out), tree, script=False)
        check(tree.by_id("noerror") is not None and "no error" in tree.by_id("noerror").text()
              and tree.by_id("verdict").text().startswith("ok (search complete"),
              "ok: the page says no error was found and the search was complete")
        check(not tree.root.all(lambda n: n.tag == "table" and n.attrs.get("id") == "trace"),
              "ok: no trace table")
    # --all-errors: the first error's page says there are more
    out = os.path.join(TMP, "all.html")
    rc, so, se = run_mcheck(MCHECK, "--por=off", "--all-errors", "--trace-html", out,
                            os.path.join(semantics, "spawn_beyond_max.bc"))
    _, js, _ = json_report("--por=off", "--all-errors", os.path.join(semantics, "spawn_beyond_max.bc"))
    js = json.loads(js)
    if check(rc == 1 and os.path.exists(out) and len(js["errors"]) > 1,
             f"all-errors: exit 1, a page, more than one error ({rc}, {se!r})"):
        m = Tree(page(out)).by_id("message")
        check(m is not None and m.text() == js["errors"][0]["message"] +
              f" (the first of {len(js['errors'])} errors kept; --json lists them all)",
              f"all-errors: the page shows the first error and says how many were kept")
    # write errors and usage
    rc, so, se = run_mcheck(MCHECK, "--trace-html", "/dev/full", md("assert_fail.bc"))
    check(rc == 1 and "mcheck: error: cannot write '/dev/full': No space left on device" in se
          and "verdict: assertion" in so,
          f"/dev/full: the write error said, the report and the verdict kept ({rc}, {se!r})")
    bad = os.path.join(TMP, "no", "such", "dir.html")
    rc, so, se = run_mcheck(MCHECK, "--trace-html", bad, md("assert_fail.bc"))
    check(rc == 2 and se.startswith(f"mcheck: error: cannot write '{bad}': No such file") and so == "",
          f"a directory that does not exist: exit 2 before the search ({rc}, {se!r})")
    rc, so, se = run_mcheck(MCHECK, "--simulate", "--trace-html", os.path.join(TMP, "s.html"),
                            md("assert_fail.bc"))
    check(rc == 2 and "mcheck: error: --trace-html applies to the search, not to --simulate" in se,
          f"--simulate --trace-html: a usage error ({rc}, {se!r})")
    rc, so, se = run_mcheck(MCHECK, "--help")
    check("--trace-html FILE" in so, "--help lists --trace-html")

    # the browser
    exe = chromium()
    if exe:
        for name, (path, tree, js) in pages.items():
            if name in ("philosophers_dfs", "deadlock_locks", "spawn_beyond_max", "starve"):
                continue  # the structure checks above suffice; the browser is slow
            # seven threads overflow the width: the pane scrolls sideways,
            # the writes column stays in view; the page itself does not
            in_browser(exe, name, path, js,
                       shot=name in ("philosophers", "assert_fail", "spawn_lost", "long", "phil4",
                                     "phil7", "npc_backoff", "npc_phil4", "ltl_reqgrant"),
                       fits=name != "phil7")
        # the style sheet alone (no script) opens the pane at its end: the
        # failing step of an error trace is in view all the same
        for name in ("assert_fail", "spawn_lost", "phil4", "long"):
            if name in pages:
                path, _, js = pages[name]
                check_first_screen(name, layout(exe, name, path, False)[0], js, False)
        # a cycle longer than the window: the pane opens at its end by
        # itself, the script brings its start into view (in_browser above)
        if "npc_phil4" in pages:
            path, _, js = pages["npc_phil4"]
            o = layout(exe, "npc_phil4", path, own_script=False)[0]
            if o:
                check(visible(o, o["ce"]) and o["ce_hit"] and not visible(o, o["cs"]),
                      f"npc_phil4: without the script the pane opens at the cycle's last step, "
                      f"its first one out of view ({o['ce']}, {o['cs']})")
    shutil.rmtree(TMP, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
