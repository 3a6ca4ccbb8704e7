#!/usr/bin/env python3
"""The distributed search (mcheck-mpi, issue 17): -np 1, 2, 4 against the
sequential BFS on a 10^7-state model, measured in one run.

Model: prodcons_monitor ITEMS=3500 CAP=6, fully interleaved (--reduce=none
--race=off), about 10^7 states; --quick: ITEMS=200 (about 6 * 10^5). Each
configuration runs once with --store=exact (the counts must equal the
sequential BFS's: a row that does not is marked), and the sequential BFS and
-np 2 also with the compact store (its bytes per state). Prints one Markdown
table: search time (mcheck's own figure) and mpirun's wall time, states/s
per rank, batches and bytes sent per state and per transition, the bytes of
store and of search queue (links and frontiers) per state per rank, the
seconds each rank spent in the exchanges; then the ratios to the sequential
BFS. The machine is shared: take ratios from one run of this script.

usage: bench/mpi.py [--build rel] [--quick] [--np 1,2,4]
"""
import argparse
import json
import os
import subprocess
import sys
import time

from benchlib import TOP, fmt

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(cmd):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    wall = time.time() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    return json.loads(p.stdout), wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "rel"))
    ap.add_argument("--quick", action="store_true", help="ITEMS=200")
    ap.add_argument("--np", default="1,2,4")
    o = ap.parse_args()
    mcheck = os.path.join(o.build, "tools", "mcheck")
    mpi = os.path.join(o.build, "tools", "mcheck-mpi")
    model = os.path.join(TOP, "models", "prodcons_monitor.bc")
    items = 200 if o.quick else 3500
    args = ["-D", f"ITEMS={items}", "-D", "CAP=6", "--reduce=none", "--race=off"]
    print(f"prodcons_monitor ITEMS={items} CAP=6 {' '.join(args[4:])}; cores: "
          f"{os.cpu_count()}\n")
    rows = []
    for store in ("exact", "compact"):
        seq, wall = run([mcheck, "--json", "--quiet", "--search=bfs", f"--store={store}"] +
                        args + [model])
        rows.append(("sequential BFS", store, seq, wall))
        for np in [int(x) for x in o.np.split(",")]:
            if store == "compact" and np != 2:
                continue
            js, wall = run(["mpirun", "--oversubscribe", "-np", str(np), mpi, "--json",
                            "--quiet", f"--store={store}"] + args + [model])
            rows.append((f"-np {np}", store, js, wall))
    base = {s: js["stats"] for name, s, js, _ in rows if name == "sequential BFS"}
    print("| search | store | states | search s | wall s | states/s per rank | batches "
          "| bytes sent | B sent/state | B sent/transition | store B/state/rank "
          "| queue B/state/rank | wait s per rank | time / sequential |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, store, js, wall in rows:
        s = js["stats"]
        ranks = s.get("ranks") or [{"states_stored": s["states_stored"], "messages": 0,
                                    "bytes_sent": 0, "store_bytes": s["store_bytes"],
                                    "wait_seconds": 0}]
        k = len(ranks)
        same = s["states_stored"] == base[store]["states_stored"] and \
            s["transitions"] == base[store]["transitions"]
        msgs = sum(r["messages"] for r in ranks)
        sent = sum(r["bytes_sent"] for r in ranks)
        st = s["states_stored"]
        store_ps = max(r["store_bytes"] / max(r["states_stored"], 1) for r in ranks)
        queue_ps = s["search_bytes_reserved"] / st
        waits = [r["wait_seconds"] for r in ranks]
        wait = "" if name.startswith("seq") else f"{min(waits):.2f}-{max(waits):.2f}"
        print(f"| {name} | {store} | {st:,}{'' if same else ' (DIFFERS)'} | "
              f"{s['seconds']:.2f} | {wall:.1f} | {fmt(st / s['seconds'] / k)} | {msgs} | "
              f"{sent / 1e6:.1f} MB | {sent / st:.1f} | {sent / s['transitions']:.1f} | "
              f"{store_ps:.1f} | {queue_ps:.1f} | {wait} | "
              f"{s['seconds'] / base[store]['seconds']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
