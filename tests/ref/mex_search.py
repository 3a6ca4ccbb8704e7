#!/usr/bin/env python3
"""mex_search.py: how models/stoller_mex.bc was reconstructed (see its header).

Stoller's M_ex (two threads, locks l1 and l2) could not be read from the paper,
but an independent reference implementation of LANGUAGE.md gave its counts:
9 states / 11 transitions reduced, 103 / 157 with --reduce=none. This script
enumerates candidate transcriptions of the only lock shape that gives 9 / 11
(one thread nests l2 inside l1, the other takes l1 and l2 one after the other,
in either order) with x guarded by l1 and y by l2, fills each critical section
with 0..2 statements (v = K, v = v + 1, v = w, v = w + 1, r = v, through r0 or
r1), and prints those with exactly the four counts.

    python3 tests/ref/mex_search.py MAXSTMTS [MINSTMTS [ORDER]]
    ORDER: 0 = t2 takes l1 then l2, 1 = l2 then l1 (default both)

MAXSTMTS=4 finds nothing (~290,000 candidates); MAXSTMTS=5 finds the family of
models/stoller_mex.bc (a few million candidates: about half an hour per order).
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refcheck as R  # noqa: E402

HDR = "lock l1\nlock l2\nshared x\nshared y\n"
GUARD = {"x": "l1", "y": "l2"}
TARGET = ((9, 11), (103, 157))


def blk(lines):
    return "".join(" " + line + "\n" for line in lines)


def stmts(vars_, k, regs=("r0", "r1")):
    out = []
    for v in vars_:
        out.append((f"{v}={k}", [f"store {v}, {k}"]))
        for r in regs:
            out.append((f"{v}++[{r}]", [f"load {r}, {v}", f"add {r}, {r}, 1", f"store {v}, {r}"]))
            out.append((f"{r}={v}", [f"load {r}, {v}"]))
            for w in vars_:
                if w != v:
                    out.append((f"{v}={w}[{r}]", [f"load {r}, {w}", f"store {v}, {r}"]))
                    out.append((f"{v}={w}+1[{r}]", [f"load {r}, {w}", f"add {r}, {r}, 1", f"store {v}, {r}"]))
    return out


def seqs_of_len(vars_, k, n):
    s = stmts(vars_, k)
    return [(tuple(a for a, _ in c), sum((b for _, b in c), [])) for c in itertools.product(s, repeat=n)]


def main():
    maxtot = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    mintot = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    orders = [("l1", "l2"), ("l2", "l1")]
    if len(sys.argv) > 3:
        orders = [orders[int(sys.argv[3])]]
    tested = hits = 0
    for order in orders:
        v_e = [v for v in GUARD if GUARD[v] == order[0]]
        v_g = [v for v in GUARD if GUARD[v] == order[1]]
        # t1: acquire l1; A; acquire l2; B; release l2; C; release l1
        # t2: acquire P; E; release P; acquire Q; G; release Q
        spec = [(["x"], 1), (["x", "y"], 1), (["x"], 1), (v_e, 2), (v_g, 2)]
        for tot in range(mintot, maxtot + 1):
            for dist in itertools.product(range(3), repeat=5):
                if sum(dist) != tot:
                    continue
                lists = [seqs_of_len(v, k, n) for (v, k), n in zip(spec, dist)]
                for a, b, c, e, g in itertools.product(*lists):
                    src = HDR + "thread t1\n acquire l1\n" + blk(a[1]) + " acquire l2\n" + blk(b[1])
                    src += " release l2\n" + blk(c[1]) + " release l1\n"
                    src += f"thread t2\n acquire {order[0]}\n" + blk(e[1]) + f" release {order[0]}\n"
                    src += f" acquire {order[1]}\n" + blk(g[1]) + f" release {order[1]}\n"
                    prog = R.assemble(src, {})
                    tested += 1
                    n, t, errs, _ = R.explore(prog, True)
                    if (n, t) != TARGET[0] or errs:
                        continue
                    n2, t2, _, _ = R.explore(prog, False)
                    if (n2, t2) == TARGET[1]:
                        hits += 1
                        print("t2 order", order, "A", a[0], "B", b[0], "C", c[0], "E", e[0], "G", g[0], flush=True)
    print(f"tested {tested} candidates, {hits} with 9/11 and 103/157")


if __name__ == "__main__":
    main()
