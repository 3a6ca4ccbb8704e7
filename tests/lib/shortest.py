"""shortest.py: the length of a shortest path to each kind of error, by a
breadth-first search over tests/ref/refcheck.py's independent successor
function, to check that mcheck's --search=bfs counterexamples are shortest
(issue 21). A trace's length is its number of (composed) steps, mcheck's
`steps`: an error state is one step after the state it is reached from, a
deadlock is the deadlocked state itself. Not a checker of its own: no LD'
metadata by default, no limits; the models it is given are small.
"""
import os
import sys
from collections import deque

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ref"))
import refcheck as R  # noqa: E402


def error_depths(model_text, reduced, ld=False, defines=None, max_invis=100000,
                 spurious=False):
    """{kind: length of a shortest trace to an error of that kind}."""
    P = R.assemble(model_text, defines or {})
    P.check_ld = ld  # what refcheck.explore() sets before it searches
    P.spurious = spurious
    init = R.initial_state(P, ld)
    depth = {init: 0}
    q = deque([init])
    best = {}
    while q:
        s = q.popleft()
        d = depth[s]
        nsucc = 0
        for _, _, ns in R.successors(P, s, reduced, max_invis):
            nsucc += 1
            if isinstance(ns, tuple) and len(ns) == 5 and ns[0] == "ERROR":
                best.setdefault(ns[1], d + 1)
            elif ns not in depth:
                depth[ns] = d + 1
                q.append(ns)
        if nsucc == 0 and R.end_verdict(P, s) == "deadlock":
            best.setdefault("deadlock", d)
    return best


def check_bfs_report(js, depths, first_error):
    """Problems (a list of strings) with an mcheck --search=bfs --json
    report given the shortest lengths: a first-error search's trace is as
    short as the shortest of its kind (and at most one step longer than any
    other kind's); with --all-errors, the shortest trace
    listed for each kind is as short as that kind's shortest."""
    problems = []
    if first_error:
        if js["verdict"] == "ok" or not js.get("error"):
            return problems
        # errors of one level are met in the order of that level's states:
        # the first is a shortest of its kind, and at most one step longer
        # than a deadlock (met when its state is expanded, a level later
        # than the error states it is generated with)
        got, kind = js["error"]["steps"], js["error"]["kind"]
        want = depths.get(kind)
        if want is None or got != want or got > min(depths.values()) + 1:
            problems.append(f"first error ({kind}) after {got} steps; a shortest trace "
                            f"to one has {want} (refcheck, by kind: {depths})")
        return problems
    listed = {}
    for e in js["errors"]:
        listed[e["kind"]] = min(listed.get(e["kind"], 1 << 30), e["steps"])
    for kind, got in sorted(listed.items()):
        want = depths.get(kind)
        if want is None or got != want:
            problems.append(f"shortest {kind} trace listed has {got} steps; refcheck's "
                            f"shortest has {want}")
    return problems
