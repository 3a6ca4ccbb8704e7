#!/usr/bin/env python3
"""End-to-end tests over models/: every bundled model states its expected
verdict (and optionally exact state/transition counts) in header comments:

    ; expect: deadlock            ok | deadlock | assertion | runtime_error | lock_discipline | race
    ; options: -D N=3             extra mcheck options (the default detector is --race=ld)
    ; expect-race-goldilocks: ok  the verdict with another detector (off, ld, eraser,
                                  goldilocks), the rest of the options unchanged
    ; expect-states-race-off: 280 (and expect-transitions-race-DET) its counts
    ; expect-race-eraser-reduce-none: lock_discipline   the verdict with that
                                  detector and --reduce=none (and its counts:
                                  expect-states-race-eraser-reduce-none): Eraser's
                                  reports are not all kept by the reduction
                                  (semantics/eraser_reduced.bc)
    ; expect-spurious-wakeups: ok the verdict with --spurious-wakeups (both --reduce
                                  modes), and expect-states-spurious-wakeups,
                                  expect-transitions-spurious-wakeups (-reduce-none)
    ; expect-liveness-npc: non_progress_cycle   the verdict of --liveness=npc
                                  (composition, --reduce=none, --store=exact)
    ; expect-ltl: FORMULA => ltl_violated   the verdict of --ltl FORMULA (one
                                  line per formula; composition, --reduce=none,
                                  --store=exact)
    ; expect-liveness-starvation: starvation   the verdict of --liveness=starvation
    ; expect-liveness-starvation-fair: ok      and with --fair=weak (same three modes)
    ; expect-liveness-starvation-strong: ok    and with --fair (strong fairness)
    ; expect-states-default: 7    states the default search stores (--all-errors
                                  --store=exact; may fall as the reduction improves)
    ; expect-states: 9            states stored by composition (--por=off)
    ; expect-transitions: 11
    ; expect-states-reduce-none: 103
    ; expect-transitions-reduce-none: 157

For each model this checks the verdict and exit status of composition
(--por=off: LANGUAGE.md fixes its counts, and the `expect-states` lines are
its counts) and of a matrix of variants (--reduce=none, --store=exact, --fingerprint=128,
--search=bfs, --store=bitstate, and --por depth- and breadth-first: the
same verdict, and with --all-errors the same error kinds as composition and
never more states), the exact counts, that the breadth-first
trace of an error model is a shortest one (tests/lib/shortest.py), that a complete search of an
error-free model stores exactly the visible states of the full search, and the
golden text output (NAME.out beside the model: everything before the
statistics block, which holds timings, and the unreached code after it).
The default search (the model's options alone: --por wherever it is sound)
has its own golden, NAME.default.out, and must give composition's verdict,
and with --all-errors its error kinds in no more states. MCHECK_UPDATE_GOLDEN=1 rewrites the
goldens (review them as a diff); it refuses (exit 1) when the environment
variable CI is set, so a CI run can never rewrite what it checks.

usage: run_models.py MCHECK MODELS_DIR [MODEL ...] [--require-counts]
(--require-counts: every model must state its exact counts in both modes, as
tests/semantics/ does.)
The last line is "N passed, N failed".
"""
import json
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish, header  # noqa: E402
from shortest import check_bfs_report, error_depths  # noqa: E402

EXIT = {"ok": 0, "deadlock": 1, "assertion": 1, "runtime_error": 1,
        "lock_discipline": 1, "race": 1}
EXIT_LIVENESS = dict(EXIT, non_progress_cycle=1, starvation=1)
VARIANTS = [
    ["--reduce=none"],
    ["--store=exact"],
    ["--fingerprint=128"],
    ["--search=bfs"],
    ["--store=bitstate", "--bitstate-mb", "16"],
]





# the exact counts of both modes, which --require-counts makes mandatory
COUNT_KEYS = ("expect-states", "expect-transitions", "expect-states-reduce-none",
              "expect-transitions-reduce-none")


def run(mcheck, args, timeout=600):
    p = subprocess.run([mcheck] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_json(mcheck, args):
    code, out, err = run(mcheck, ["--json", "--quiet"] + args)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, None, err + out


def states_of(path):
    with open(path) as f:
        return set(line.strip() for line in f if line.strip())


def same_error(a, b):
    """Do two JSON error objects name the same error, as --shorten matches
    them (explore_error_matches)? Any two deadlocks; a detector's report on
    the same element; else the same instruction (line and text)."""
    if a["kind"] != b["kind"]:
        return False
    if a["kind"] == "deadlock":
        return True
    if "element" in a or "element" in b:
        return a.get("element") == b.get("element")
    return (a.get("line"), a.get("instruction")) == (b.get("line"), b.get("instruction"))


def check_shortened(mcheck, name, path, opts, js, bfs, depths):
    """Issue 18: after a depth-first search the first error's trace is
    shortened by a breadth-first search to the same error (--shorten, on by
    default): it replays to an error of the same kind and place, it is as
    short as --search=bfs's where that finds the same error first (and as
    refcheck's shortest deadlock), -j 2's is shortened too, and
    --shorten=off gives the search's own path, the length it was shortened
    from. With --all-errors too, the first error's trace is shortened."""
    e = js["error"]
    off = run_json(mcheck, opts + ["--shorten=off", path])[1]
    if not check(off is not None and off["error"] is not None and e is not None,
                 f"{name} --shorten=off: an error in both reports"):
        return
    o = off["error"]
    check(o["shortened_from"] is None and o["not_shortened"] is None
          and off["stats"]["shortening"] is None,
          f"{name} --shorten=off: no shortening reported ({o['shortened_from']}, "
          f"{o['not_shortened']}, {off['stats']['shortening']})")
    check(e["replayed"] and same_error(e, o),
          f"{name}: the shortened trace replays ({e['replayed']}) to the same error as the "
          f"depth-first one ({e['kind']} line {e.get('line')} {e.get('element')}; "
          f"{o['kind']} line {o.get('line')} {o.get('element')})")
    sh = js["stats"]["shortening"]
    if e["shortened_from"] is not None:
        check(e["shortened_from"] == o["steps"] and e["steps"] < o["steps"] and sh["shortened"]
              and sh["stop"] == "error",
              f"{name}: shortened from the depth-first path's {o['steps']} steps to "
              f"{e['steps']} (shortened_from {e['shortened_from']}, {sh})")
    else:
        check(e["steps"] == o["steps"] and e["trace"] == o["trace"],
              f"{name}: not shortened, the depth-first trace ({e['steps']}, {o['steps']} steps)")
        check((e["steps"] <= 1) == (e["not_shortened"] is None and sh is None),
              f"{name}: not shortened says why ({e['not_shortened']!r}, {sh})")
    if bfs and bfs.get("error") and same_error(bfs["error"], o):
        check(e["steps"] == bfs["error"]["steps"],
              f"{name}: the shortened trace has {e['steps']} steps, --search=bfs's to the same "
              f"error {bfs['error']['steps']}")
    if depths is not None and e["kind"] == "deadlock":
        check(e["steps"] == depths.get("deadlock"),
              f"{name}: the shortened deadlock trace has {e['steps']} steps, refcheck's "
              f"shortest {depths.get('deadlock')}")
    par = run_json(mcheck, opts + ["-j", "2", path])[1]
    pe = par and par["error"]
    if check(pe is not None and pe["replayed"] and par["stats"]["shortening"] is not None
             or (pe is not None and pe["steps"] <= 1),
             f"{name} -j 2: the trace replays and was shortened or says why not "
             f"({pe and pe['replayed']}, {par and par['stats']['shortening']})"):
        if same_error(pe, o):
            check(pe["steps"] == e["steps"],
                  f"{name} -j 2: shortened to {pe['steps']} steps, the sequential search's "
                  f"to the same error {e['steps']}")


def test_model(mcheck, path):
    h = header(path)
    name = os.path.basename(path)
    expect = h.get("expect")
    check(expect in EXIT, f"{name}: header has a valid 'expect:' line (got {expect!r})")
    if expect not in EXIT:
        return
    # the model's own options; the checks below pin composition's counts
    # (LANGUAGE.md, "Which counts are fixed"), so they name --por=off, and
    # the default search (the strongest sound reduction) is checked against
    # them in check_default()
    user = h.get("options", "").split()
    opts = ["--por=off"] + user
    if expect == "lock_discipline":
        check("--race=off" not in opts, f"{name}: expects {expect}, but its options turn the detector off")
    if expect == "race":
        check("--race=goldilocks" in opts, f"{name}: expects a race, so its options must say --race=goldilocks")
    code, js, err = run_json(mcheck, opts + [path])
    check(js is not None, f"{name}: JSON output parses ({err.strip()[:200]})")
    if js is None:
        return
    check(js["verdict"] == expect, f"{name}: verdict {js['verdict']}, expected {expect}")
    if "--all-errors" in opts:  # it searches past every error
        check(js["stop"] == "complete", f"{name}: --all-errors search stopped: {js['stop']}")
    check(code == EXIT[expect], f"{name}: exit status {code}, expected {EXIT[expect]}")
    st = js["stats"]
    for key, field in (("expect-states", "states_stored"), ("expect-transitions", "transitions")):
        if key in h:
            check(st[field] == int(h[key]), f"{name}: {field} {st[field]}, expected {h[key]}")

    bfs = None
    for v in VARIANTS:
        vcode, vjs, verr = run_json(mcheck, opts + v + [path])
        if v == ["--search=bfs"]:
            bfs = vjs
        ok = vjs is not None and vjs["verdict"] == expect and vcode == EXIT[expect]
        check(ok, f"{name} {' '.join(v)}: verdict {vjs and vjs['verdict']} exit {vcode}, "
                  f"expected {expect}")
        if vjs and v == ["--reduce=none"]:
            for key, field in (("expect-states-reduce-none", "states_stored"),
                               ("expect-transitions-reduce-none", "transitions")):
                if key in h:
                    check(vjs["stats"][field] == int(h[key]),
                          f"{name} --reduce=none: {field} {vjs['stats'][field]}, expected {h[key]}")
        if vjs and v == ["--store=exact"] and expect == "ok":
            check(vjs["stats"]["states_stored"] == st["states_stored"],
                  f"{name}: exact store finds {vjs['stats']['states_stored']} states, "
                  f"compact {st['states_stored']}")

    # --por (issue 15; it needs composition): the same verdict depth- and
    # breadth-first; with --all-errors the same error kinds as composition
    # (the same violations where the discipline breaks) and never more states (a first-error search's count depends on which
    # error it meets first, so the counts are compared searching past them)
    if "--reduce=none" not in opts and not any(o.startswith("--lookahead") for o in opts):
        check_default(mcheck, name, path, user, expect, h)
        for v in (["--por"], ["--por", "--search=bfs"]):
            pcode, pjs, perr = run_json(mcheck, opts + v + [path])
            got = pjs and pjs["verdict"]
            check(got == expect and pcode == EXIT[expect],
                  f"{name} {' '.join(v)}: verdict {got} exit {pcode}, expected {expect} "
                  f"({perr.strip()[:200]})")
        alls = [] if "--all-errors" in opts else ["--all-errors"]
        cjs = run_json(mcheck, opts + alls + ["--store=exact", path])[1]
        for v in (["--por"], ["--por", "--search=bfs"]):
            pjs = run_json(mcheck, opts + alls + ["--store=exact"] + v + [path])[1]
            if not check(pjs is not None and cjs is not None,
                         f"{name} {' '.join(v)} --all-errors: JSON reports"):
                continue
            same_kinds(f"{name} {' '.join(v)} --all-errors", pjs, cjs)
            ps, cs = pjs["stats"]["states_stored"], cjs["stats"]["states_stored"]
            check(ps <= cs, f"{name} {' '.join(v)} --all-errors: {ps} states, more than "
                            f"composition's {cs}")

    # the breadth-first trace is a shortest one (refcheck's successors; it
    # knows the LD' detector, not Goldilocks or Eraser, nor --adapt)
    race = ([o for o in opts if o.startswith("--race=")] or ["--race=ld"])[-1][7:]
    depths = None
    if expect != "ok" and bfs and race in ("ld", "off") and "--adapt" not in opts:
        defs = {k: int(v, 0) for k, v in re.findall(r"-D\s*(\w+)=(\S+)", h.get("options", ""))}
        with open(path) as f:
            depths = error_depths(f.read(), "--reduce=none" not in opts, race == "ld", defs,
                                  spurious="--spurious-wakeups" in opts)
        problems = check_bfs_report(bfs, depths, "--all-errors" not in opts)
        check(not problems, f"{name} --search=bfs: {'; '.join(problems)}")
    if expect != "ok" and "--search=bfs" not in opts:
        check_shortened(mcheck, name, path, opts, js, bfs, depths)

    # the verdict with each other detector the header names
    for det, mode in [(d, m) for d in ("off", "ld", "eraser", "goldilocks") for m in ("", "-reduce-none")]:
        want = h.get("expect-race-" + det + mode)
        if want is None:
            continue
        dopts = [o for o in opts if not o.startswith("--race=")] + ["--race=" + det]
        if mode:
            dopts.append("--reduce=none")
            det += " --reduce=none"
        dcode, djs, derr = run_json(mcheck, dopts + [path])
        got = djs and djs["verdict"]
        check(got == want and dcode == EXIT.get(want),
              f"{name} --race={det}: verdict {got} exit {dcode}, expected {want}")
        for key, field in (("expect-states-race-" + det.split()[0] + mode, "states_stored"),
                           ("expect-transitions-race-" + det.split()[0] + mode, "transitions")):
            if djs and key in h:
                check(djs["stats"][field] == int(h[key]),
                      f"{name} --race={det}: {field} {djs['stats'][field]}, expected {h[key]}")

    # the verdict (and counts) with --spurious-wakeups, if the header names it
    want = h.get("expect-spurious-wakeups")
    for v in ([], ["--reduce=none"]) if want is not None else ():
        sopts = opts + ["--spurious-wakeups"] + v
        scode, sjs, serr = run_json(mcheck, sopts + [path])
        got = sjs and sjs["verdict"]
        check(got == want and scode == EXIT.get(want),
              f"{name} {' '.join(sopts)}: verdict {got} exit {scode}, expected {want}")
        suffix = "-reduce-none" if v else ""
        for key, field in (("expect-states-spurious-wakeups" + suffix, "states_stored"),
                           ("expect-transitions-spurious-wakeups" + suffix, "transitions")):
            if sjs and key in h:
                check(sjs["stats"][field] == int(h[key]),
                      f"{name} {' '.join(sopts)}: {field} {sjs['stats'][field]}, expected {h[key]}")

    # --liveness=npc (reduce/liveness/liveness.c), if the header names its verdict:
    # composition, --reduce=none and an exact store agree
    want = h.get("expect-liveness-npc")
    for v in ([], ["--reduce=none"], ["--store=exact"]) if want is not None else ():
        lopts = opts + ["--liveness=npc"] + v
        lcode, ljs, lerr = run_json(mcheck, lopts + [path])
        got = ljs and ljs["verdict"]
        check(got == want and lcode == EXIT_LIVENESS.get(want),
              f"{name} {' '.join(lopts)}: verdict {got} exit {lcode}, expected {want}")
        if ljs and got == "non_progress_cycle":
            check(isinstance(ljs["error"].get("cycle_start"), int)
                  and ljs["error"]["cycle_start"] < ljs["error"]["steps"],
                  f"{name} {' '.join(lopts)}: the error has a cycle_start inside its path")

    # --ltl (reduce/liveness/ltl_search.c), one `; expect-ltl: FORMULA => VERDICT` line
    # per formula: composition, --reduce=none and an exact store agree
    with open(path, encoding="utf-8", errors="replace") as f:
        ltl_lines = re.findall(r"^\s*;\s*expect-ltl:\s*(.*?)\s*=>\s*(\S+)\s*$", f.read(), re.M)
    for formula, want in ltl_lines:
        for v in ([], ["--reduce=none"], ["--store=exact"]):
            lopts = opts + ["--ltl", formula] + v
            lcode, ljs, lerr = run_json(mcheck, lopts + [path])
            got = ljs and ljs["verdict"]
            check(got == want and lcode == (1 if want == "ltl_violated" else EXIT.get(want)),
                  f"{name} {' '.join(lopts)}: verdict {got} exit {lcode}, expected {want}")
            if ljs and got == "ltl_violated":
                check(isinstance(ljs["error"].get("cycle_start"), int)
                      and ljs["error"]["cycle_start"] <= ljs["error"]["steps"],
                      f"{name} {' '.join(lopts)}: the error has a cycle_start within its path")
    # --liveness=starvation [--fair[=weak]] (reduce/liveness/starvation.c), likewise
    for key, fair in (("expect-liveness-starvation", []),
                      ("expect-liveness-starvation-fair", ["--fair=weak"]),
                      ("expect-liveness-starvation-strong", ["--fair"])):
        want = h.get(key)
        for v in ([], ["--reduce=none"], ["--store=exact"]) if want is not None else ():
            lopts = opts + ["--liveness=starvation"] + fair + v
            lcode, ljs, lerr = run_json(mcheck, lopts + [path])
            got = ljs and ljs["verdict"]
            check(got == want and lcode == EXIT_LIVENESS.get(want),
                  f"{name} {' '.join(lopts)}: verdict {got} exit {lcode}, expected {want}")
            if ljs and got == "starvation":
                check(isinstance(ljs["error"].get("cycle_start"), int)
                      and ljs["error"]["cycle_start"] < ljs["error"]["steps"]
                      and isinstance(ljs["error"].get("starved"), str),
                      f"{name} {' '.join(lopts)}: the error has a cycle_start and a starved thread")

    if expect == "ok":
        with tempfile.TemporaryDirectory() as d:
            full, red = os.path.join(d, "full"), os.path.join(d, "reduced")
            run(mcheck, opts + ["--quiet", "--store=exact", "--reduce=none", "--dump-states", full, path])
            run(mcheck, opts + ["--quiet", "--store=exact", "--dump-states", red, path])
            a, b = states_of(full), states_of(red)
            check(a == b and len(a) > 0,
                  f"{name}: visible states of the full search ({len(a)}) equal the reduced "
                  f"search's stored states ({len(b)}); {len(a - b)} only in full, "
                  f"{len(b - a)} only in reduced")

    # the goldens: composition's output (NAME.out) and the default's, what a
    # user sees (NAME.default.out)
    check_golden(mcheck, name, path, opts, ".out")
    check_golden(mcheck, name, path, user, ".default.out")


def same_kinds(what, js, cjs):
    """A reduced search past errors (js) finds composition's (cjs) error
    kinds; where the discipline breaks, Theorems 9 and 10 promise the
    violation only (other kinds may lie beyond it on some paths)."""
    k = sorted(x for x, n in js["error_counts"].items() if n)
    ck = sorted(x for x, n in cjs["error_counts"].items() if n)
    viol = {"lock_discipline", "race"}
    if viol & set(ck):
        check(viol & set(k) == viol & set(ck), f"{what}: violations {k}, composition's {ck}")
    else:
        check(k == ck, f"{what}: error kinds {k}, composition's {ck}")


def check_default(mcheck, name, path, user, expect, h):
    """The default search (no --por option: the strongest reduction sound
    for the model's options) against composition (--por=off): the same
    verdict and exit status; searching past errors (--all-errors, exact
    store) the same error kinds (the violations where the discipline
    breaks: Theorems 9 and 10) and never more states; exactly
    `expect-states-default` states when the model says (a count the
    reduction may lower as it improves: LANGUAGE.md fixes only
    composition's and --reduce=none's)."""
    dcode, djs, derr = run_json(mcheck, user + [path])
    got = djs and djs["verdict"]
    check(got == expect and dcode == EXIT[expect],
          f"{name} (default): verdict {got} exit {dcode}, expected {expect} ({derr.strip()[:200]})")
    alls = [] if "--all-errors" in user else ["--all-errors"]
    cjs = run_json(mcheck, ["--por=off"] + user + alls + ["--store=exact", path])[1]
    djs = run_json(mcheck, user + alls + ["--store=exact", path])[1]
    if not check(djs is not None and cjs is not None, f"{name} (default) --all-errors: JSON reports"):
        return
    same_kinds(f"{name} (default) --all-errors", djs, cjs)
    ds, cs = djs["stats"]["states_stored"], cjs["stats"]["states_stored"]
    check(ds <= cs, f"{name} (default) --all-errors: {ds} states, more than composition's {cs}")
    if "expect-states-default" in h:
        check(ds == int(h["expect-states-default"]),
              f"{name} (default) --all-errors: {ds} states, expected {h['expect-states-default']}")


def check_golden(mcheck, name, path, opts, suffix):
    # the golden names the model relative to the repository, so it holds on any machine
    top = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    p = subprocess.run([os.path.abspath(mcheck)] + opts + ["--quiet", os.path.relpath(path, top)],
                       capture_output=True, text=True, timeout=600, cwd=top)
    # everything before the statistics, and the unreached code after them
    head, _, tail = p.stdout.partition("statistics:\n")
    unreached = re.search(r"^unreached code.*", tail, re.S | re.M)
    text = head + (unreached.group(0) if unreached else "")
    golden = os.path.splitext(path)[0] + suffix
    if os.environ.get("MCHECK_UPDATE_GOLDEN") == "1":
        with open(golden, "w") as f:
            f.write(text)
    elif os.path.exists(golden):
        with open(golden) as f:
            want = f.read()
        check(text == want, f"{name}: output differs from {os.path.basename(golden)}:\n{text}")
    else:
        check(False, f"{name}: no golden output {os.path.basename(golden)} "
                     "(run with MCHECK_UPDATE_GOLDEN=1 and review)")


def main():
    if len([a for a in sys.argv[1:] if a != "--require-counts"]) < 2:
        print(__doc__)
        return 2
    args = sys.argv[1:]
    require = "--require-counts" in args
    args = [a for a in args if a != "--require-counts"]
    mcheck, models = args[0], args[1]
    if os.environ.get("MCHECK_UPDATE_GOLDEN") == "1" and os.environ.get("CI"):
        # goldens are rewritten by a developer and reviewed as a diff, never
        # by a CI run (which would then pass whatever the output became)
        print("run_models.py: error: MCHECK_UPDATE_GOLDEN=1 refused because CI is set",
              file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    paths = args[2:] or sorted(os.path.join(models, f) for f in os.listdir(models)
                                   if f.endswith(".bc"))
    check(paths, f"models found in {models}")  # an empty set passes nothing
    for path in paths:
        if require:
            h = header(path)
            missing = [k for k in COUNT_KEYS if k not in h]
            check(not missing, f"{os.path.basename(path)}: no {', '.join(missing)} "
                               f"(--require-counts)")
        test_model(mcheck, path)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
