#!/usr/bin/env python3
"""No silent wrong answers, and --memlimit counts everything the search holds.

- A bitstate search is labelled as partial coverage: in text (the stop line
  and the coverage estimate) and in JSON (stats.coverage, the estimated
  fraction of states covered; null for the stores that cover every state).
- The hash-compaction warning (omission probability above 1e-6) needs about
  6 million states with 64-bit fingerprints: too slow under ASan. The formula
  is tested in test_store (test_compact_omission_formula); here only that a
  small run prints the probability and no warning.
- --memlimit: a model with a 1 MB state vector stops with "memory_limit"
  (exit 3, verdict incomplete, statistics) under DFS and BFS, with the store
  and the stack/queue within the limit (before this was checked ahead of
  growth, BFS allocated 1024 vectors at once); a bitstate array bigger than
  the limit stops the search at once (the store is counted too).
- Memory figures (issue 18): on a tiny model, for DFS, BFS, --por and -j 2,
  the stack/queue's used bytes are at most its reserved bytes and at least
  what the search provably held (the deepest stack's frames, every queued
  state's link); the store plus the used bytes fit in the peak RSS;
  search_bytes is reserved + buffers and counted_bytes the sum --memlimit
  compares; the text block shows the same figures.
- A --memlimit stop names the part that filled it and a suggestion, in text
  and in JSON (memlimit_part): the DFS stack and the BFS queue of a deep
  search, the store of a wide and shallow one (and of a bitstate array
  bigger than the limit), -j 2's stack and queue; the counted line's figures
  are the JSON statistics' (a sequential search is deterministic, so the
  text and the JSON run agree), and the counted total stays near the limit.
- The lock-depth limit: a recursive lock's depth is a u16 (LANGUAGE.md's
  layout), so 65535 nested acquires are allowed and the 65536th is the
  runtime error "lock 'm' acquired more than 65535 times", at that acquire,
  in both --reduce modes; the counts are those of the reference enumerator
  (tests/ref/refcheck.py -D DEPTH=65536 --ld: 65537/65536 reduced,
  262142/262141 full; too slow to rerun here). Its trace is 65536 steps
  long, so it is not a tests/semantics model (its golden would be megabytes).
- The default --memlimit (3/4 of the memory, or of the memory cgroup's
  limit): --help states it ("the default here: N MB"), at most 3/4 of the
  physical memory; in a child memory cgroup of 512 MB it is 384 MB; and
  (not under AddressSanitizer, whose copies on realloc and shadow memory
  need more than the quarter left) a model whose registers make every state
  new stops there with exit 3, the report saying the limit is the default,
  before the kernel would kill it. The cgroup parts need root and a
  writable cgroup file system (v1 or v2); without them they are skipped,
  with the reason printed.
- The counter hint (tools/report/hint_counter.c): a thread whose register
  counts up for ever (`loop: add i, i, 1 / jmp loop`) stopped by
  --timelimit (DFS, BFS, --por=off) or --memlimit ends with a `hint:` line
  naming the thread, the register, its value and the instruction, and
  JSON's "stop_hint" the same; a counter kept small by `mod` (the search
  ends) has none ("stop_hint": null), and a model stopped with small
  registers (the philosophers at N=9) the hunt's hint instead.
- The hunt hint (tools/report/hint_hunt.c): the ring of
  models/ring_opposite.bc stopped at 1 s with no error found, under eight
  option sets, ends with a hint whose suggestions (--swarm 0, --search=stateless
  --delay-bound 0..2, with the options to leave out), followed to the letter,
  find its deadlock (so none is a usage error); --liveness=npc gets none.
- Signals: SIGTERM or SIGINT sent three times, 0.02 s apart, to a search
  that runs for minutes, and to its process group as GNU timeout does,
  stop it with its report (exit 3, stop "interrupted"), never kill it.
(--max-depth reporting "incomplete" is tested in test_cli.py.)

usage: test_limits.py MCHECK MODELS_DIR
The last line is "N passed, N failed".
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, finish  # noqa: E402

MCHECK = None




def run(*args):
    p = subprocess.run([MCHECK, "--quiet"] + list(args), capture_output=True, text=True,
                       errors="replace", timeout=300)
    return p.returncode, p.stdout, p.stderr


def run_json(*args):
    code, out, err = run("--json", *args)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, None, err + out


# 250000 shared words: a 1 MB state vector; each choice is a new state
BIG_VECTOR = """shared a[250000]
volatile v
thread t[2]
    reg i
loop:
    choose i, 0, 1000
    store v, i
    jmp loop
"""


def test_bitstate_labels(models):
    model = os.path.join(models, "spawn_join.bc")
    code, out, _ = run("--store=bitstate", "--bitstate-mb", "1", model)
    check(code == 0, f"bitstate run of spawn_join exits 0 (got {code})")
    check("search complete (bitstate: partial coverage" in out,
          "bitstate: the stop line says partial coverage:\n" + out)
    check("coverage (estimate)" in out and "bitstate: partial search" in out,
          "bitstate: the statistics show the coverage estimate")
    code, js, _ = run_json("--store=bitstate", "--bitstate-mb", "1", model)
    cov = js and js["stats"].get("coverage")
    check(js is not None and js["options"]["store"] == "bitstate"
          and isinstance(cov, (int, float)) and 0 < cov <= 1,
          f"bitstate JSON: stats.coverage is a fraction (got {cov!r})")
    for store in ("compact", "exact"):
        code, js, _ = run_json("--store=" + store, model)
        check(js is not None and "coverage" in js["stats"] and js["stats"]["coverage"] is None,
              f"{store} JSON: stats.coverage is null")
        code, out, _ = run("--store=" + store, model)
        check("partial" not in out, f"{store}: not labelled partial")


def test_omission_reported(models):
    model = os.path.join(models, "spawn_join.bc")
    code, out, _ = run(model)
    check("omission probability" in out and "warning:" not in out,
          "compact: omission probability printed, no warning on a small run")


def test_memlimit_counts_everything(tmp):
    path = os.path.join(tmp, "big_vector.bc")
    with open(path, "w") as f:
        f.write(BIG_VECTOR)
    # 5 MB: a few of these 1 MB vectors. The DFS holds two vectors and per
    # level a frame and an undo record (tens of bytes), so with hash
    # compaction a much bigger limit would take millions of states to reach.
    limit = 5
    for search in ("dfs", "bfs"):
        for store in ("compact", "exact"):
            # --race=off: 1 MB vectors (LD' metadata would add 5 bytes per
            # element, and three such vectors alone are past 5 MB)
            code, js, err = run_json("--race=off", "--search=" + search, "--store=" + store,
                                     "--memlimit", str(limit), path)
            what = f"--memlimit {limit} --search={search} --store={store}"
            if js is None:
                check(False, f"{what}: JSON report\n{err[-2000:]}")
                continue
            st = js["stats"]
            used = st["store_bytes"] + st["search_bytes"]
            check(code == 3 and js["stop"] == "memory_limit" and js["verdict"] == "incomplete",
                  f"{what}: exit 3, memory_limit (got {code}, {js['stop']})")
            check(st["states_stored"] > 1, f"{what}: searched before stopping")
            check(used <= (limit << 20) + 2 * st["state_vector_bytes"],
                  f"{what}: store + stack/queue {used} bytes within the limit")
    code, js, _ = run_json("--store=bitstate", "--bitstate-mb", "16", "--memlimit", "8", path)
    check(code == 3 and js is not None and js["stop"] == "memory_limit",
          "a 16 MB bit array under --memlimit 8 stops with memory_limit")


# one thread choosing among 5 million values: a shallow search whose store
# fills any small limit (the DFS stack stays 2 levels deep)
WIDE = """volatile v
thread t[1]
    reg i
    choose i, 0, 5000000
    store v, i
"""


def human(b):
    """tools/report/stats_text.c's human_bytes()."""
    units = ["B", "KB", "MB", "GB", "TB"]
    u = 0
    b = float(b)
    while b >= 1024 and u < 4:
        b /= 1024
        u += 1
    return f"{b:.1f} {units[u]}" if u else f"{b:.0f} B"


def test_memory_figures(models):
    model = os.path.join(models, "philosophers_ordered.bc")
    for opts in ([], ["--search=bfs"], ["--por"], ["-j", "2"], ["-j", "2", "--search=bfs"]):
        what = " ".join(opts) or "dfs"
        code, js, err = run_json(*opts, model)
        if js is None:
            check(False, f"{what}: JSON report\n{err[-2000:]}")
            continue
        st = js["stats"]
        used, res = st["search_bytes_used"], st["search_bytes_reserved"]
        check(code == 0 and js["memlimit_part"] is None and st["refused_bytes"] == 0,
              f"{what}: complete, memlimit_part null, refused_bytes 0")
        check(0 < used <= res, f"{what}: stack/queue used {used} <= reserved {res}")
        check(st["search_bytes"] == res + st["search_buffer_bytes"],
              f"{what}: search_bytes is reserved + buffers ({st})")
        check(st["counted_bytes"] == st["store_bytes"] + st["search_bytes"] + st["error_bytes"],
              f"{what}: counted_bytes is store + search + errors")
        check(st["store_bytes"] + used <= st["peak_rss_bytes"],
              f"{what}: store {st['store_bytes']} + used {used} within the peak RSS "
              f"{st['peak_rss_bytes']}")
        if not opts:  # frames of 24 bytes down to the deepest level, and undo records
            check(used >= (st["max_depth"] + 1) * 24,
                  f"dfs: used {used} holds {st['max_depth'] + 1} frames")
        if opts == ["--search=bfs"]:  # a parent link and a step for every queued state
            check(used >= st["states_stored"] * 24,
                  f"bfs: used {used} holds {st['states_stored']} links")
        code, out, _ = run(*opts, model)
        frontier = "queue" if "--search=bfs" in opts else "stack"
        line = f"  search {frontier}         "
        check(line in out and "used at most" in out and "reserved" in out
              and "search buffers" in out and "resident (the whole process" in out,
              f"{what}: text names used, reserved and resident:\n{out}")
        if "-j" not in opts:  # deterministic: the text and the JSON run agree
            check(f"{line}{human(used)} used at most, {human(res)} reserved" in out,
                  f"{what}: the text's stack/queue figures are the JSON's")


def memlimit_stop(what, opts, part, hint, limit, exact_text=True):
    """A --memlimit stop: exit 3, the part in JSON and text, the hint, the
    counted figures; returns the JSON report."""
    code, js, err = run_json("--memlimit", str(limit), *opts)
    if js is None:
        check(False, f"{what}: JSON report\n{err[-2000:]}")
        return None
    st = js["stats"]
    check(code == 3 and js["stop"] == "memory_limit" and js["memlimit_part"] == part,
          f"{what}: exit 3, memory_limit, memlimit_part {part!r} (got {code}, {js['stop']}, "
          f"{js['memlimit_part']!r})")
    check(st["counted_bytes"] == st["store_bytes"] + st["search_bytes"] + st["error_bytes"],
          f"{what}: counted_bytes is the sum of the parts")
    check(st["search_bytes_used"] <= st["search_bytes_reserved"],
          f"{what}: used <= reserved")
    code, out, _ = run("--memlimit", str(limit), *opts)
    check(code == 3 and "search incomplete: memory limit reached" in out,
          f"{what}: the stop line\n{out}")
    check(f"memory limit {human(limit << 20)}: " in out, f"{what}: the limit\n{out}")
    check(f"hint: try {hint}" in out and ", or more memory\n" in out,
          f"{what}: hint 'try {hint}'\n{out}")
    frontier = "queue" if "--search=bfs" in opts else "stack"
    if exact_text:
        st = js["stats"]
        counted = (f"  counted (reserved bytes): store {human(st['store_bytes'])} + {frontier} "
                   f"{human(st['search_bytes_reserved'])} + buffers "
                   f"{human(st['search_buffer_bytes'])} + errors {human(st['error_bytes'])} = "
                   f"{human(st['counted_bytes'])}")
        check(counted in out, f"{what}: the counted line is the statistics'\n{counted}\n{out}")
    else:
        check("  counted (reserved bytes): store " in out, f"{what}: the counted line\n{out}")
    return js


def test_memlimit_names_the_part(models, tmp):
    wide = os.path.join(tmp, "wide.bc")
    with open(wide, "w") as f:
        f.write(WIDE)
    phil = ["--reduce=none", "-D", "N=6", os.path.join(models, "philosophers.bc")]
    js = memlimit_stop("dfs, deep", phil, "stack", "--max-depth N or --search=bfs", 8)
    if js:
        check(f"the DFS stack holds {human(js['stats']['search_bytes_reserved'])} reserved "
              f"({human(js['stats']['search_bytes_used'])} of it used at most)"
              in run("--memlimit", "8", *phil)[1], "dfs: the stack's figures in the stop line")
    js = memlimit_stop("bfs, deep", ["--search=bfs"] + phil, "queue",
                       "--search=dfs (keeps only the path)", 8)
    # with --por=off the hint names --por; with the default (--por on) it does not
    memlimit_stop("dfs, wide, --por=off", ["--por=off", wide], "store",
                  "--store=bitstate (incomplete), --por (fewer states)", 4)
    js = memlimit_stop("dfs, wide", [wide], "store", "--store=bitstate (incomplete), or more memory", 4)
    if js:
        st = js["stats"]
        check(st["counted_bytes"] <= (4 << 20) + (64 << 10),
              f"dfs, wide: counted {st['counted_bytes']} near the 4 MB limit")
        check(f"the state store holds {human(st['store_bytes'])} ({st['states_stored']} states)"
              in run("--memlimit", "4", wide)[1], "dfs, wide: the store's figures")
    memlimit_stop("exact, wide", ["--store=exact", wide], "store",
                  "--store=compact (a fingerprint a state)", 4)
    memlimit_stop("bitstate bigger than the limit",
                  ["--store=bitstate", "--bitstate-mb", "16", wide], "store",
                  "a smaller --bitstate-mb, or more memory", 8)
    memlimit_stop("-j 2 dfs, wide", ["-j", "2", wide], "stack",
                  "without -j (the sequential DFS keeps only the path)", 4, exact_text=False)
    memlimit_stop("-j 2 bfs, deep", ["-j", "2", "--search=bfs"] + phil, "queue",
                  "--search=dfs without -j (keeps only the path)", 8, exact_text=False)
# acquire m DEPTH times (every acquire of a held lock nests), then release it
# as often; the release loop is one invisible run of 4 * DEPTH instructions
LOCK_DEPTH = """const DEPTH = 65535
lock m
shared x
thread t
    reg n, c
more:
    acquire m
    add n, n, 1
    lt c, n, DEPTH
    jnz c, more
    store x, n
less:
    release m
    sub n, n, 1
    jnz n, less
"""


def test_lock_depth_limit(tmp):
    path = os.path.join(tmp, "lock_depth.bc")
    with open(path, "w") as f:
        f.write(LOCK_DEPTH)
    code, js, err = run_json("--max-invisible", "300000", path)
    check(code == 0 and js is not None and js["verdict"] == "ok"
          and js["stats"]["states_stored"] == 65536,
          f"65535 nested acquires of m are allowed (got {code}, "
          f"{js and js['verdict']}, {js and js['stats']['states_stored']})\n{err[-500:]}")
    # text, not JSON: the 65536-step trace is 15 MB of text, 74 MB of JSON
    for mode, states, transitions in (("compose", 65537, 65536), ("none", 262142, 262141)):
        code, out, err = run("-D", "DEPTH=65536", "--reduce=" + mode, path)
        head = out[:400].splitlines()
        check(code == 1 and len(head) > 2
              and head[1] == "error: lock 'm' acquired more than 65535 times"
              and head[2] == f"  in t at {path}:7: acquire m"
              and "\nverdict: runtime_error\n" in out,
              f"--reduce={mode}: the 65536th acquire is a runtime error at line 7 (got {code}, "
              f"{head[:3]})\n{err[-500:]}")
        got = re.findall(r"^  (states stored|transitions) +(\d+)", out, re.M)
        check(got == [("states stored", str(states)), ("transitions", str(transitions))],
              f"--reduce={mode}: refcheck's counts {states}/{transitions} (got {got})")


def test_repeated_signals(models):
    phil = os.path.join(models, "philosophers_ordered.bc")
    for sig in (signal.SIGTERM, signal.SIGINT):
        for group in (False, True):
            what = f"{signal.Signals(sig).name} x3{' to the group' if group else ''}"
            p = subprocess.Popen([MCHECK, "--json", "--quiet", "--por=off", "-D", "N=9", phil],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=group)
            time.sleep(0.5)
            for _ in range(3):
                if group:
                    os.killpg(p.pid, sig)
                else:
                    p.send_signal(sig)
                time.sleep(0.02)
            out, err = p.communicate(timeout=60)
            try:
                js = json.loads(out)
            except ValueError:
                js = None
            check(p.returncode == 3 and js and js["stop"] == "interrupted"
                  and js["stats"]["states_stored"] > 0,
                  f"{what}: exit {p.returncode} (-{signal.Signals(sig).name}: killed), "
                  f"report {js and js['stop']}, stderr {err.strip()[:200]!r}")


def child_cgroup(limit):
    """A new memory cgroup below this process's, limited to `limit` bytes:
    the path of its cgroup.procs (a process that writes its pid there moves
    in) and its directory, or (None, why)."""
    try:
        lines = open("/proc/self/cgroup").read().splitlines()
    except OSError as e:
        return None, str(e)
    for line in lines:
        _, ctl, path = line.split(":", 2)
        if "memory" in ctl.split(","):
            base, limit_file = f"/sys/fs/cgroup/memory{path}", "memory.limit_in_bytes"
            break
    else:
        path = next((l.split(":", 2)[2] for l in lines if l.startswith("0::")), None)
        if path is None:
            return None, "no memory cgroup in /proc/self/cgroup"
        base, limit_file = f"/sys/fs/cgroup{path.rstrip('/')}", "memory.max"
    d = os.path.join(base, f"mcheck-test-{os.getpid()}")
    try:
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, limit_file), "w") as f:
            f.write(str(limit))
    except OSError as e:
        return None, f"cannot make a memory cgroup under {base}: {e}"
    return os.path.join(d, "cgroup.procs"), d


def in_cgroup(procs, args, env=None):
    """Run mcheck with args inside the cgroup whose cgroup.procs is `procs`."""
    def enter():
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    return subprocess.run([MCHECK] + args, capture_output=True, text=True, preexec_fn=enter,
                          env=env, timeout=300)


def test_default_memlimit(tmp):
    out = run("--help")[1]
    m = re.search(r"\(the default here: (\d+) MB\)", out)
    phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    check(m and 0 < int(m.group(1)) <= phys * 3 // 4 >> 20,
          f"--help states the default memory limit, at most 3/4 of {phys >> 20} MB "
          f"({m and m.group(0)})")
    procs, d = child_cgroup(512 << 20)
    if procs is None:
        print(f"skip: the default --memlimit in a cgroup ({d})")
        return
    try:
        p = in_cgroup(procs, ["--help"])
        check("(the default here: 384 MB)" in p.stdout,
              f"in a 512 MB cgroup the default is 384 MB ({p.stdout[-300:]!r})")
        asan = "asan" in subprocess.run(["ldd", MCHECK], capture_output=True, text=True).stdout
        if asan:
            print("skip: a search stopped by the default --memlimit (AddressSanitizer build)")
            return
        runaway = os.path.join(tmp, "runaway.bc")
        with open(runaway, "w") as f:
            f.write("thread t\n    reg a, b, c, d\nloop:\n    add a, a, 1\n    add b, b, 3\n"
                    "    add c, c, 5\n    add d, d, 7\n    jmp loop\n")
        p = in_cgroup(procs, [runaway])
        check(p.returncode == 3 and "search incomplete: memory limit reached" in p.stdout and
              "memory limit 384.0 MB (the default, 3/4 of the memory; --memlimit MB sets "
              "another, --memlimit 0 none)" in p.stdout,
              f"a runaway search stops at the default limit: exit {p.returncode}\n{p.stdout[-800:]}")
    finally:
        try:
            os.rmdir(d)
        except OSError:
            pass


COUNTER = """thread t
    reg i
loop:
    add i, i, 1
    jmp loop
"""


def test_counter_hint(tmp, models):
    path = os.path.join(tmp, "counter.bc")
    with open(path, "w") as f:
        f.write(COUNTER)
    want = "hint: in the last state searched, t's register i is "
    for opts in ([], ["--search=bfs"], ["--por=off"]):
        code, out, err = run("--timelimit", "1", *opts, path)
        line = [l for l in out.splitlines() if l.startswith(want)]
        check(code == 3 and len(line) == 1 and "updated from itself at line 4 (add i, i, 1)" in
              line[0] and "bound it (a loop limit, or `mod`)" in line[0],
              f"counter {opts}: the hint names t's i and its add ({out[:500]!r})")
        value = int(line[0][len(want):].split(",")[0]) if line else 0
        check(value >= 1000, f"counter {opts}: its value is large ({value})")
    code, js, err = run_json("--memlimit", "40", path)
    check(code == 3 and js and js["stop"] == "memory_limit" and js["stop_hint"]
          and js["stop_hint"].startswith("in the last state searched, t's register i is "),
          f"counter --memlimit: JSON stop_hint ({js and js.get('stop_hint')!r})")
    small = os.path.join(tmp, "counter_mod.bc")
    with open(small, "w") as f:
        f.write(COUNTER.replace("    jmp loop", "    mod i, i, 5000\n    jmp loop"))
    code, js, err = run_json(small)
    check(code == 0 and js and js["stop_hint"] is None,
          f"counter kept below 5000 by mod: the search ends, no hint ({js and js.get('stop_hint')!r})")
    code, js, err = run_json("--timelimit", "1", "-D", "N=9",
                             os.path.join(models, "philosophers_ordered.bc"))
    check(code == 3 and js and js["stop"] == "time_limit" and js["stop_hint"]
          and js["stop_hint"].startswith(HUNT),
          f"philosophers stopped by the time limit: the hunt's hint, not the counter's "
          f"({js and js.get('stop_hint')!r})")


HUNT = "no error found before the search stopped; to hunt for errors in a model too big to finish, try "


def follow(opts, suggestion):
    """The command line a hint's suggestion gives: opts without what it says
    to leave out (an option's value too), with its options."""
    what, _, without = suggestion.partition(", without ")
    gone = [w.strip() for w in without.split(",")] if without else []
    out, skip = [], False
    for o in opts:
        if skip:
            skip = False
            continue
        name = o.split("=")[0]
        if o in gone or name in gone:
            skip = o in ("-j", "--preemption-bound")  # their value follows
            continue
        out.append(o)
    return out + what.split(" (")[0].split()


def test_hunt_hint(models):
    """A search a limit stopped with no error found ends with the bug-hunting
    hint (hint_hunt.c): its suggestions are ones mcheck takes with the run's
    other options (less those it names), and on the ring followed to the
    letter they find its deadlock; none after liveness (no hunting search
    takes it) or a counter (hint_counter.c's comes first)."""
    ring = ["-D", "N=10", "-D", "ITER=3", os.path.join(models, "ring_opposite.bc")]
    runs = ([], ["--search=bfs"], ["-j", "2"], ["--all-errors"], ["--por=off"],
            ["--store=exact"], ["--reduce=none"],
            ["--search=stateless", "--preemption-bound", "1"])
    for opts in runs:
        code, out, err = run("--timelimit", "1", *opts, *ring)
        hint = [l[len("hint: " + HUNT):] for l in out.splitlines() if l.startswith("hint: " + HUNT)]
        check(code == 3 and len(hint) == 1, f"ring {opts} stopped at 1 s: the hunt's hint ({out[-600:]!r})")
        if not hint:
            continue
        sugg = hint[0].split("; or ")
        want = 1 if "--reduce=none" in opts or "--preemption-bound" in opts else 2
        check(len(sugg) == want, f"ring {opts}: {want} suggestion(s) ({hint[0]!r})")
        for s in sugg:
            cmd = follow(opts, s)
            code, out, err = run("--timelimit", "20", *cmd, *ring)
            check(code == 1 and "verdict: deadlock" in out,
                  f"ring {opts}: following {s!r} ({cmd}) finds the deadlock (exit {code}: {err[:300]!r})")
    code, out, err = run("--timelimit", "1", "--liveness=npc", *ring)
    check(code == 3 and HUNT not in out, f"--liveness=npc stopped: no hunt hint ({out[-300:]!r})")


def main():
    global MCHECK
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    MCHECK, models = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="mcheck-limits-") as tmp:
        test_bitstate_labels(models)
        test_omission_reported(models)
        test_memlimit_counts_everything(tmp)
        test_memory_figures(models)
        test_memlimit_names_the_part(models, tmp)
        test_lock_depth_limit(tmp)
        test_default_memlimit(tmp)
        test_counter_hint(tmp, models)
        test_hunt_hint(models)
    test_repeated_signals(models)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
