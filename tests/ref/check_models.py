#!/usr/bin/env python3
"""check_models.py: run refcheck.py over models/*.bc and compare with their headers.

Each model states in its header comments:
    ; expect: ok|deadlock|assertion|runtime_error|lock_discipline
    ; options: -D N=3 ...                        (optional)
    ; expect-states: N          ; expect-transitions: N               (reduced search)
    ; expect-states-reduce-none: N ; expect-transitions-reduce-none: N (full search)
    ; expect-reduce-none: VERDICT                 (optional, if the full search differs)
    ; expect-spurious-wakeups: VERDICT            (optional: with --spurious-wakeups, both
    ;   modes; its counts as expect-states-spurious-wakeups[-reduce-none] ...)
The LD' check (refcheck --ld) runs on every model, as mcheck's default
detector does, and the counts include its metadata (canonicalized as mcheck
does: what no later check can read is reset). Prints one line per model and `N passed, N failed`; exit 1 on any
failure. Usage: check_models.py [models-dir]
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import refcheck as R  # noqa: E402


def header(path):
    h = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*;\s*([a-z-]+):\s*(.*?)\s*$", line)
            if m:
                h.setdefault(m.group(1), m.group(2))
    return h


def defines(opts):
    d = {}
    for k, v in re.findall(r"-D\s*([A-Za-z_][A-Za-z0-9_]*)=(\S+)", opts or ""):
        d[k] = R.parse_int(v)
    return d


def verdict(errors):
    return ",".join(sorted(errors)) or "ok"


def check(path):
    h = header(path)
    problems = []
    if "expect" not in h:
        return ["no '; expect:' line"]
    with open(path) as f:
        P = R.assemble(f.read(), defines(h.get("options")))
    if "--adapt" in (h.get("options") or ""):
        return None  # --adapt re-runs the search with variables reclassified
    want = h["expect"]
    want_none = h.get("expect-reduce-none", want)
    # mcheck's default detector is LD'; its counts include the metadata
    # (`--race=off` in the options: none)
    ld = "--race=off" not in (h.get("options") or "").split()
    got = {}
    for mode, red in (("reduced", True), ("none", False)):
        n, t, errs, _ = R.explore(P, red, ld=ld)
        got[mode] = (n, t, verdict(errs))
    if got["reduced"][2] != want:
        problems.append(f"reduced verdict {got['reduced'][2]}, expected {want}")
    if got["none"][2] != want_none:
        problems.append(f"full verdict {got['none'][2]}, expected {want_none}")
    for key, mode, i in (("expect-states", "reduced", 0), ("expect-transitions", "reduced", 1),
                         ("expect-states-reduce-none", "none", 0),
                         ("expect-transitions-reduce-none", "none", 1)):
        if key in h and int(h[key]) != got[mode][i]:
            problems.append(f"{key}: {h[key]}, refcheck says {got[mode][i]}")
    want_sp = h.get("expect-spurious-wakeups")
    if want_sp is not None:  # the same model with --spurious-wakeups
        for mode, red in (("reduced", True), ("none", False)):
            n, t, errs, _ = R.explore(P, red, ld=ld, spurious=True)
            if verdict(errs) != want_sp:
                problems.append(f"--spurious-wakeups {mode} verdict {verdict(errs)}, expected {want_sp}")
            suffix = "" if red else "-reduce-none"
            for key, i in (("expect-states-spurious-wakeups" + suffix, 0),
                           ("expect-transitions-spurious-wakeups" + suffix, 1)):
                if key in h and int(h[key]) != (n, t)[i]:
                    problems.append(f"{key}: {h[key]}, refcheck says {(n, t)[i]}")
    return problems, got


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "models")
    passed = failed = 0
    for name in sorted(os.listdir(d)):
        if not name.endswith(".bc"):
            continue
        res = check(os.path.join(d, name))
        if res is None:
            print(f"skip {name}: --adapt (refcheck does not re-run searches)")
            continue
        if isinstance(res, list):
            problems, got = res, None
        else:
            problems, got = res
        if problems:
            failed += 1
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            passed += 1
            r, n = got["reduced"], got["none"]
            print(f"ok   {name}: reduced {r[0]}/{r[1]} {r[2]}, full {n[0]}/{n[1]} {n[2]}")
    if passed + failed == 0:  # an empty or wrong directory checks nothing
        print(f"FAIL no model checked in {d}")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
