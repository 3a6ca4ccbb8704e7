#!/usr/bin/env python3
"""test_analyze.py: mcheck --analyze's known answers (issue 33).

Every model under tests/analyze/ (and ratcop/, the SV-COMP programs ported
with locks as RATCOP's Table 2) carries its expectations on its assert
lines:  ; expect: interval=S octagon=S interval+tids=S octagon+tids=S search=R
(S proved|unknown|unreachable; the first two with --tids=off, the paper's
variants; R holds|fails, the search's ground truth, `mcheck --all-errors`).
Each configuration given is run with --json and compared; every assert the
analysis proves must hold in the search (soundness on these models). Then
the command line: exit statuses (0 all proved, 1 some unknown, 2 bad model
or usage), the premise lines, --invariants, --facts, --analyze=check on a
racy model, and the bundled models (no crash; a proved assert never fails).

usage: test_analyze.py MCHECK [MODELS_DIR]
Ends with "N passed, N failed"; exit 1 on a failure.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from checks import check, finish  # noqa: E402

CONFIGS = {"interval": ["--domain=interval", "--tids=off"],
           "octagon": ["--domain=octagon", "--tids=off"],
           "interval+tids": ["--domain=interval", "--tids=on"],
           "octagon+tids": ["--domain=octagon", "--tids=on"]}



def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def expectations(path):
    exp = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r";\s*expect:\s*(.*)$", line)
            if m and "assert" in line:
                exp[n] = dict(kv.split("=") for kv in m.group(1).split())
    return exp


SEARCH = ["--race=goldilocks", "--all-errors", "--json", "--quiet"]


def search_json(mcheck, model, extra=()):
    r = run([mcheck] + SEARCH + list(extra) + [model])
    return json.loads(r.stdout)


class Truth:
    """Which asserts fail in the search. On a race-free model the reduced
    search with --race=goldilocks finds every reachable assertion failure
    (docs/usage.md, "Detectors"); it keeps only the first errors' paths, so
    an assert not among them is searched alone: a copy of the model with
    every other assert made a nop (the lines stay where they are)."""

    def __init__(self, mcheck, model, tmp):
        self.mcheck, self.model, self.tmp = mcheck, model, tmp
        j = search_json(mcheck, model)
        self.complete = j.get("complete", False)
        self.races = any(e["kind"] == "race" for e in j.get("errors", []))
        self.known = {e["line"] for e in j.get("errors", []) if e["kind"] == "assertion"}
        # every error kept: the lines not among them hold, no search alone needed
        self.all_kept = sum(j.get("error_counts", {}).values()) == len(j.get("errors", []))
        self.alone = {}

    def fails(self, line):
        if line in self.known:
            return True
        if self.all_kept:
            return False
        if line not in self.alone:
            with open(self.model) as f:
                src = f.read().split("\n")
            out = [l if n == line or not re.match(r"^\s*(\w+:)?\s*assert\b", l)
                   else re.sub(r"assert\b.*", "nop", l) for n, l in enumerate(src, 1)]
            path = os.path.join(self.tmp, "alone.bc")
            with open(path, "w") as f:
                f.write("\n".join(out))
            j = search_json(self.mcheck, path)
            self.alone[line] = any(e["kind"] == "assertion" for e in j.get("errors", []))
        return self.alone[line]


def known_answers(mcheck, tmp):
    for model in sorted(glob.glob(os.path.join(HERE, "*.bc")) +
                        glob.glob(os.path.join(HERE, "ratcop", "*.bc"))):
        name = os.path.relpath(model, HERE)
        exp = expectations(model)
        if not exp:
            continue
        truth = None
        if any("search" in e for e in exp.values()):
            truth = Truth(mcheck, model, tmp)
            check(truth.complete and not truth.races, f"{name}: the search is complete, no race")
            for line, e in exp.items():
                if "search" in e:
                    f = truth.fails(line)
                    check(f == (e["search"] == "fails"),
                          f"{name}:{line}: the search says {'fails' if f else 'holds'},"
                          f" expected {e['search']}")
        for cfg, opts in CONFIGS.items():
            if not any(cfg in e for e in exp.values()):
                continue
            r = run([mcheck, "--analyze", "--json"] + opts + [model])
            check(r.returncode in (0, 1), f"{name} {cfg}: exit {r.returncode} {r.stderr[-200:]}")
            j = json.loads(r.stdout)
            got = {a["line"]: a["status"] for a in j["asserts"]}
            for line, e in exp.items():
                if cfg in e:
                    check(got.get(line) == e[cfg],
                          f"{name}:{line} {cfg}: {got.get(line)}, expected {e[cfg]}")
            for line, st in got.items():
                if truth is not None and st == "proved":
                    check(not truth.fails(line), f"{name}:{line} {cfg}: proved but fails")
            unknown = any(s == "unknown" for s in got.values())
            check(r.returncode == (1 if unknown else 0),
                  f"{name} {cfg}: exit {r.returncode} with unknown={unknown}")


def command_line(mcheck, tmp):
    fig1 = os.path.join(HERE, "fig1.bc")
    r = run([mcheck, "--analyze", "--invariants", "--tids=off", fig1])
    check("x            race-free statically: always under m" in r.stdout,
          f"premise line for x ({r.stdout[:400]})")
    check("z            unshared: thread-local" in r.stdout, "premise line for z")
    check(re.search(r"fig1.bc:22:5: assert \"x==y \(t1\)\": proved\n    fact \(t1\): .*r0 = r1",
                    r.stdout) is not None, f"--invariants shows r0 = r1 ({r.stdout[-600:]})")
    check("3 asserts: 2 proved, 1 unknown, 0 unreachable" in r.stdout, "summary line")
    fig20 = os.path.join(HERE, "fig20.bc")
    r = run([mcheck, "--analyze", fig20])
    check("NOT proved race-free statically" in r.stdout and "--race=goldilocks" in r.stdout,
          f"fig20: the premise asks for the search ({r.stdout[:500]})")
    r = run([mcheck, "--analyze=check", fig20])
    check("search (--race=goldilocks): no data race in any execution" in r.stdout and
          r.returncode == 0, f"fig20 --analyze=check: race-free, exit 0 ({r.returncode})")
    racy = os.path.join(tmp, "racy.bc")
    with open(racy, "w") as f:
        f.write("shared x\nthread a\n    store x, 1\nthread b\n    load r0, x\n"
                "    le r1, r0, 1\n    assert r1, \"x <= 1\"\n")
    r = run([mcheck, "--analyze=check", racy])
    check("THE RESULTS BELOW DO NOT HOLD" in r.stdout and r.returncode == 1,
          f"a racy model: --analyze=check says the premise fails, exit 1 ({r.stdout[-400:]})")
    r = run([mcheck, "--analyze", "--facts", fig1])
    check("facts of t1:" in r.stdout and "facts of t2:" in r.stdout, "--facts prints every thread")
    r = run([mcheck, "--analyze", "--facts=done", fig20])
    check(r.returncode == 0 and "fact at done (line 23, pc 6 `store x, 2`) in t2: r0 = 1, p = 1" in
          r.stdout, f"--facts=LABEL ({r.stdout[-300:]})")
    r = run([mcheck, "--analyze", "--facts=nolabel", fig20])
    check(r.returncode == 2 and "no label 'nolabel'" in r.stderr, f"--facts=unknown ({r.stderr})")
    r = run([mcheck, "--analyze", "--facts", "--json", fig1])
    j = json.loads(r.stdout)
    check(len(j["units"]) == 2 and "layout" in j and j["stats"]["units"] == 2, "--facts --json")
    wide = os.path.join(tmp, "wide.bc")  # 1000 elements under an unknown index: intervals
    with open(wide, "w") as f:
        f.write("shared big[1000] = 7\nthread t[2]\n    choose r0, 0, 999\n"
                "    load r1, big[r0]\n    assert r1, \"all seven\"\n"
                "    store big[r0], 0\n")
    r = run([mcheck, "--analyze", "--json", wide])
    j = json.loads(r.stdout)
    check(j["stats"]["variables_max"] < 64 and j["premise"]["unconfirmed"] == ["big"],
          f"a wide array is not packed; racy, so the premise is unconfirmed ({r.stdout[-300:]})")
    rg = os.path.join(tmp, "rg.bc")  # regions: what the parser refuses
    with open(rg, "w") as f:
        f.write("shared x, y\nvolatile v\nregion a = x, y\nregion b = y\nregion c = v\n"
                "region d = q\nregion a = x\nregion e\nthread t\n    nop\n")
    r = run([mcheck, "--analyze", rg])
    for msg in ("rg.bc:4:12: error: 'y' is in region 'a' already",
                "rg.bc:5:12: error: 'v' is not a shared variable",
                "rg.bc:6:12: error: unknown variable 'q' in region 'd'",
                "rg.bc:7:8: error: duplicate region 'a'", "rg.bc:8:9: error: expected '='"):
        check(r.returncode == 2 and msg in r.stderr, f"region error '{msg}' ({r.stderr})")
    with open(rg, "w") as f:  # x under m, y under n: not race-free as a region statically
        f.write("lock m, n\nshared x, y\nregion a = x, y\nthread t\n    acquire m\n"
                "    store x, 1\n    release m\n    acquire n\n    store y, 1\n    release n\n")
    r = run([mcheck, "--analyze", "--json", rg])
    j = json.loads(r.stdout)
    check(j["premise"]["regions_unconfirmed"] == ["a"], f"a two-lock region is unconfirmed ({r.stdout})")
    r = run([mcheck, "--analyze=check", rg])  # one thread: no region race
    check(r.returncode == 0 and "no data race and no region race" in r.stdout,
          f"--analyze=check: a one-thread region is race-free ({r.stdout[-300:]})")
    with open(rg, "a") as f:  # a second thread reads y under n while x is written under m
        f.write("thread u\nL: acquire n\n    load r0, y\n    release n\n")
    r = run([mcheck, "--analyze=check", rg])
    check(r.returncode == 1 and "a region race on region 'a'" in r.stdout,
          f"--analyze=check finds the region race ({r.stdout[-400:]})")
    r = run([mcheck, "--analyze=check", os.path.join(HERE, "region_sections.bc")])
    check(r.returncode == 1 and "no data race and no region race" in r.stdout,
          f"region_sections: region-race-free, one assert unknown ({r.stdout[-300:]})")
    bad = os.path.join(tmp, "bad.bc")
    with open(bad, "w") as f:
        f.write("thread t\n    frob r0\n")
    r = run([mcheck, "--analyze", bad])
    check(r.returncode == 2 and "bad.bc:2:5: error:" in r.stderr, f"bad model: exit 2 ({r.stderr})")
    for args, what in ((["--domain=poly"], "--domain: expected"), (["--tids=maybe"], "--tids"),
                       (["--analyze=now"], "--analyze: expected"),
                       (["--invariants"], "--invariants applies to --analyze"),
                       (["--analyze", "--dump"], "cannot be used with --dump")):
        a = args if args[0].startswith("--analyze") or args[0] == "--invariants" else \
            ["--analyze"] + args
        if args == ["--invariants"]:
            a = args
        r = run([mcheck] + a + [fig1])
        check(r.returncode == 2 and what in r.stderr, f"usage {args}: exit 2, '{what}' ({r.stderr})")

    search_options(mcheck, fig1)
    facts_json(mcheck, fig1, fig20)
    many_threads(mcheck, tmp)


def many_threads(mcheck, tmp):
    """--analyze alone takes up to 4096 threads (it runs none); the search,
    and so --analyze=check, the language's 255."""
    path = os.path.join(tmp, "many.bc")
    with open(path, "w") as f:
        f.write("const K = 300\nlock m[K]\nshared x[K], y[K]\nthread w[K]\n    reg a, b, ok\n"
                "    acquire m[self]\n    load a, x[self]\n    add a, a, 1\n    store x[self], a\n"
                "    store y[self], a\n    load b, y[self]\n    eq ok, a, b\n"
                "    assert ok, \"x == y\"\n    release m[self]\n")
    r = run([mcheck, "--analyze", "--json", path])
    j = json.loads(r.stdout) if r.returncode in (0, 1) else {}
    check(r.returncode == 0 and j["stats"]["units"] == 300 and j["proved"] == 1,
          f"--analyze: 300 threads analyzed, the assert proved ({r.returncode}, {r.stderr[-300:]})")
    for args in ([], ["--analyze=check"]):
        r = run([mcheck] + args + [path])
        check(r.returncode == 2 and r.stdout == "" and
              "too many threads: 'w' brings the total to 300 (limit 255)" in r.stderr,
              f"{args or 'the search'}: 300 threads is exit 2 ({r.returncode}, {r.stderr[-300:]})")
    r = run([mcheck, "--analyze", "-D", "K=5000", path])
    check(r.returncode == 2 and
          "brings the total to 5000 (limit 4096, for --analyze alone)" in r.stderr,
          f"--analyze: 5000 threads is exit 2 ({r.returncode}, {r.stderr[-300:]})")


def facts_json(mcheck, fig1, fig20):
    """--facts --json: the facts by name, at a label or every instruction."""
    r = run([mcheck, "--analyze", "--json", "--tids=off", "--facts=same", fig1])
    j = json.loads(r.stdout)
    check(r.returncode == 1 and j["facts_at"] == "same" and len(j["facts"]) == 1 and
          "units" not in j, f"--facts=same --json: one point ({r.returncode}, {r.stdout[-300:]})")
    f = j["facts"][0]
    check((f["thread"], f["line"], f["pc"], f["insn"]) == ("t1", 21, 11, "eq r2, r0, r1"),
          f"--facts=same: the point ({f})")
    check(f["fact"] == {"reached": True, "bounds": [{"var": "r2", "min": 0, "max": 0}],
                        "relations": [{"lhs": [[1, "r0"], [-1, "r1"]], "op": "=", "rhs": 0,
                                       "mod_2_32": True}]} and
          f["text"] == "r2 = 0, r0 = r1 (mod 2^32)", f"fig1 at same, octagons: r0 = r1 ({f})")
    r = run([mcheck, "--analyze", "--json", "--domain=interval", "--tids=off", "--facts=21", fig1])
    f = json.loads(r.stdout)["facts"][0]
    check(f["line"] == 21 and f["fact"]["relations"] == [] and
          f["fact"]["bounds"] == [{"var": "r2", "min": 0, "max": 0}],
          f"fig1 at line 21, intervals: no relation ({f})")
    r = run([mcheck, "--analyze", "--json", "--facts=done", fig20])
    f = json.loads(r.stdout)["facts"]
    check(r.returncode == 0 and len(f) == 1 and f[0]["fact"]["bounds"] == [
        {"var": "r0", "min": 1, "max": 1}, {"var": "p", "min": 1, "max": 1},
        {"var": "r1", "min": 0, "max": 0}, {"var": "x", "min": 0, "max": 1}],
        f"fig20 at done: the accessed global x in [0, 1] ({f})")
    r = run([mcheck, "--analyze", "--json", "--facts=nolabel", fig20])
    check(r.returncode == 2 and r.stdout == "" and "no label 'nolabel'" in r.stderr,
          f"--facts=nolabel --json: exit 2, nothing on stdout ({r.stdout[:100]}, {r.stderr})")
    r = run([mcheck, "--analyze", "--json", "--facts", fig1])
    j = json.loads(r.stdout)
    check(j["facts_at"] is None and len(j["facts"]) == j["stats"]["points"] == 28 and
          len(j["units"]) == 2 and all(not f["fact"]["reached"] or f["text"] for f in j["facts"]),
          f"--facts --json: every point ({len(j['facts'])})")


def search_options(mcheck, fig1):
    """--analyze refuses the search's options (exit 2, the option named);
    --analyze=check takes those its race search honours."""
    never = "cannot be used with --analyze: the analysis explores no interleaving"
    search = "applies to the search, not to --analyze, which explores no interleaving"
    for args, name, what in (
            (["--search=dfs"], "--search", search), (["--por"], "--por", search),
            (["--por=off"], "--por", search), (["-j", "2"], "-j", search),
            (["--jobs", "2"], "--jobs", search), (["--store=exact"], "--store", search),
            (["--max-depth", "9"], "--max-depth", search), (["--timelimit", "5"], "--timelimit", search),
            (["--race=goldilocks"], "--race", search), (["--all-errors"], "--all-errors", search),
            (["--ltl", "[] p"], "--ltl", never), (["--swarm", "2"], "--swarm", never),
            (["--liveness=npc"], "--liveness", never), (["--shorten=off"], "--shorten", never),
            (["--trace-json", "t.json"], "--trace-json", never),
            (["--seed", "3"], "--seed", never)):
        for mode in (["--analyze"], ["--analyze=check"]):
            r = run([mcheck] + mode + args + [fig1])
            refused = what == never or mode == ["--analyze"]
            if refused:
                check(r.returncode == 2 and r.stdout == "" and
                      r.stderr.startswith(f"mcheck: error: {name} {what}"),
                      f"{mode[0]} {args}: exit 2 naming {name} ({r.returncode}, {r.stderr})")
            else:  # the race search takes it: fig1 is race-free (one assert unknown: exit 1)
                check(r.returncode == 1 and
                      "search (--race=goldilocks): no data race in any execution" in r.stdout,
                      f"{mode[0]} {args}: the race search takes it ({r.returncode}, {r.stderr})")
    for args, what in ((["--race=ld"], "--race=ld cannot be used with --analyze=check"),
                       (["--store=bitstate"], "--store=bitstate cannot be used with --analyze=check")):
        r = run([mcheck, "--analyze=check"] + args + [fig1])
        check(r.returncode == 2 and what in r.stderr, f"--analyze=check {args}: {r.stderr}")
    for args in (["--quiet"], ["--spurious-wakeups"], ["--json"]):
        r = run([mcheck, "--analyze"] + args + [fig1])
        check(r.returncode == 1, f"--analyze {args} is taken: exit 1 ({r.returncode}, {r.stderr})")


def bundled(mcheck, models, tmp):
    n = proved = 0
    for model in sorted(glob.glob(os.path.join(models, "*.bc"))):
        name = os.path.basename(model)
        with open(model) as f:
            if not re.search(r"^\s*(\w+:)?\s*assert\b", f.read(), re.M):
                continue  # nothing to prove (the others run in the soundness test's models)
        r = run([mcheck, "--analyze", "--json", model])
        check(r.returncode in (0, 1), f"{name}: exit {r.returncode} {r.stderr[-300:]}")
        if r.returncode not in (0, 1):
            continue
        j = json.loads(r.stdout)
        p = [a for a in j["asserts"] if a["status"] == "proved"]
        n += len(j["asserts"])
        proved += len(p)
        if p:
            truth = Truth(mcheck, model, tmp)
            if truth.complete and not truth.races:
                for a in p:
                    check(not truth.fails(a["line"]), f"{name}:{a['line']}: proved but fails")
    print(f"(bundled models: {proved} of {n} asserts proved)")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    mcheck = sys.argv[1]
    models = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "models")
    with tempfile.TemporaryDirectory() as tmp:
        known_answers(mcheck, tmp)
        command_line(mcheck, tmp)
        bundled(mcheck, models, tmp)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
