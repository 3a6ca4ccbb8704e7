#!/usr/bin/env python3
"""liveness_por.py: what --por saves in the liveness searches (issue 20):
--liveness=npc and --ltl with and without --por on the bundled livelock and
request/grant models and on the philosophers with a progress label, one run
each, in one process so the ratios share the machine's load. Prints a
Markdown table (docs/benchmarks.md, section 15) and the ratios.

With SPIN installed it then runs pan -l (-DNP) on the Promela peers of the
philosophers, bench/spin/phil_prog.pml (one statement per step, SPIN's own
partial-order reduction) and phil_prog_dstep.pml (the composition applied by
hand, one d_step per composed step), beside mcheck --liveness=npc with and
without --por: the same program, time to a complete answer.

usage: bench/liveness_por.py [--mcheck rel/tools/mcheck] [--max-n 6]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def phil(d, props):
    """models/philosophers_ordered.bc with `progress_eat:` before the meal
    (and, with props, e0/e1: philosopher 0/1 at that label)."""
    src = open(os.path.join(TOP, "models", "philosophers_ordered.bc")).read()
    src = re.sub(r"^    load  *m, meals\[self\]", "progress_eat:\n    load m, meals[self]",
                 src, flags=re.M)
    if props:
        src += "prop e0 = phil[0]@progress_eat\nprop e1 = phil[1]@progress_eat\n"
    path = os.path.join(d, "phil_props.bc" if props else "phil_prog.bc")
    open(path, "w").write(src)
    return path


def run(mcheck, args):
    p = subprocess.run([mcheck, "--json", "--quiet", "--timelimit", "600"] + args,
                       capture_output=True, text=True)
    js = json.loads(p.stdout)
    st = js["stats"]
    nested = (st.get("nested_states", 0), st.get("nested_transitions", 0))
    return {"verdict": js["verdict"], "states": st["states_stored"] + st.get("np_states", 0),
            "transitions": st["transitions"] + st.get("np_transitions", 0),
            "nested": nested, "seconds": st["seconds"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcheck", default=os.path.join(TOP, "rel", "tools", "mcheck"))
    ap.add_argument("--max-n", type=int, default=6)
    a = ap.parse_args()
    m = lambda name: os.path.join(TOP, "models", name)
    with tempfile.TemporaryDirectory() as d:
        pp, pr = phil(d, False), phil(d, True)
        cases = [("livelock_backoff", ["--liveness=npc", m("livelock_backoff.bc")]),
                 ("livelock_ordered", ["--liveness=npc", m("livelock_ordered.bc")]),
                 ("reqgrant_unfair `[] (req0 -> <> grant0)`",
                  ["--ltl", "[] (req0 -> <> grant0)", m("reqgrant_unfair.bc")]),
                 ("reqgrant_unfair `[] (req1 -> <> grant1)`",
                  ["--ltl", "[] (req1 -> <> grant1)", m("reqgrant_unfair.bc")]),
                 ("reqgrant_fair `[] (req0 -> <> grant0)`",
                  ["--ltl", "[] (req0 -> <> grant0)", m("reqgrant_fair.bc")])]
        for n in range(4, a.max_n + 1):
            cases.append((f"phil_prog N={n} npc", ["--liveness=npc", "-D", f"N={n}", pp]))
            cases.append((f"phil_props N={n} `[] !(e0 && e1)`",
                          ["--ltl", "[] !(e0 && e1)", "-D", f"N={n}", pr]))
        print("| model | search | verdict | states (outer + copy 1) | transitions | "
              "nested states / transitions | s | states with --por | s with --por |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name, args in cases:
            base, por = run(a.mcheck, args), run(a.mcheck, ["--por"] + args)
            kind = "npc" if "--liveness=npc" in args else "ltl"
            assert base["verdict"] == por["verdict"], (name, base, por)
            print(f"| {name} | {kind} | {base['verdict']} | {base['states']:,} | "
                  f"{base['transitions']:,} | {base['nested'][0]:,} / {base['nested'][1]:,} | "
                  f"{base['seconds']:.3f} | {por['states']:,} ({por['states'] / base['states']:.2f}x) | "
                  f"{por['seconds']:.3f} ({por['seconds'] / max(base['seconds'], 1e-6):.2f}x) |")

        if shutil.which("spin") and shutil.which("gcc"):
            spin_rows(a.mcheck, pp, a.max_n, d)


def spin_rows(mcheck, pp, max_n, d):
    print()
    print("| N | checker | states stored | transitions | s |")
    print("|---|---|---|---|---|")
    for n in range(4, max_n + 1):
        rows = []
        for what, extra in (("mcheck --liveness=npc", []), ("mcheck --liveness=npc --por", ["--por"])):
            r = run(mcheck, extra + ["--liveness=npc", "-D", f"N={n}", pp])
            assert r["verdict"] == "ok", r
            rows.append((what, r["states"], r["transitions"], r["seconds"]))
        for what, pml in (("SPIN pan -l (its POR)", "phil_prog.pml"),
                          ("SPIN pan -l, composition by hand (d_step)", "phil_prog_dstep.pml")):
            w = benchlib.build_pan(os.path.join(TOP, "bench", "spin", pml), {"N": n}, d,
                                   cflags=["-DNP"], memlim_mb=8000)
            r = benchlib.run_pan(w, 600, ["-l", "-m10000000"])
            assert r["complete"] and r["errors"] == 0, r
            rows.append((what, r["states"], r["transitions"], r["seconds"]))
        for what, st, tr, sec in rows:
            print(f"| {n} | {what} | {st:,} | {tr:,} | {sec:.2f} |")


if __name__ == "__main__":
    main()
