"""benchlib.py: helpers the bench/ scripts share: run mcheck with --json, build
and run SPIN's pan, parse their statistics, format numbers for Markdown tables.

It runs tools and reads their reports; it does not choose what to measure or
print tables (compare.py and reduction.py do). pan is built in a temporary
directory from a Promela model (SPIN 6.5, `spin -a`, gcc -O2) and stopped by
SIGINT at a time limit, which makes it print its statistics so far (SPIN
manual, "pan: run-time options").
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Rejected(Exception):
    """mcheck refused its options (exit 2): e.g. an option this build lacks."""


def header_options(path):
    """The options a bundled model's header asks for (`; options: ...`)."""
    with open(path) as fh:
        for line in fh:
            mo = re.match(r"\s*;\s*options:\s*(.*?)\s*$", line)
            if mo:
                return mo.group(1).split()
    return []


def run_mcheck(mcheck, args, timelimit, memlimit_mb=None):
    """One mcheck search with --json; its statistics as a dict. Raises
    Rejected (message: mcheck's first stderr line) on exit 2."""
    cmd = [mcheck, "--json", "--quiet", "--timelimit", str(timelimit)]
    if memlimit_mb:
        cmd += ["--memlimit", str(memlimit_mb)]
    # read the report as it streams, keeping its head and tail only: with
    # --all-errors a deep search's JSON holds traces of millions of steps
    # (gigabytes); the fields needed are at its start and in "stats", its end
    p = subprocess.Popen(cmd + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head, tail = b"", b""
    while True:
        chunk = p.stdout.read(1 << 20)
        if not chunk:
            break
        if len(head) < 1 << 16:
            head += chunk[:(1 << 16) - len(head)]
        tail = (tail + chunk)[-(1 << 16):]
    err = p.stderr.read().decode(errors="replace")
    p.wait()
    if p.returncode == 2:
        raise Rejected((err.strip().splitlines() or ["exit 2"])[0])
    text = tail.decode(errors="replace")
    i = text.rfind('"error_counts":')
    js = json.loads("{" + text[i:])
    h = head.decode(errors="replace")
    js["verdict"] = re.search(r'"verdict":\s*"([^"]*)"', h).group(1)
    js["complete"] = re.search(r'"complete":\s*(true|false)', h).group(1) == "true"
    mo = re.search(r'"stop":\s*"([^"]*)"', h)
    js["stop"] = mo.group(1) if mo else ""
    st = js["stats"]
    return {"states": st["states_stored"], "transitions": st["transitions"],
            "seconds": st["seconds"], "rate": st["states_per_second"],
            "store_bps": st["bytes_per_state"],
            "rss_bps": st["peak_rss_bytes"] / max(1, st["states_stored"]),
            "vector": st["state_vector_bytes"], "complete": js["complete"],
            "stop": js.get("stop", ""), "verdict": js["verdict"],
            "error_counts": js.get("error_counts", {})}


def build_pan(pml, defines, workdir, cflags=(), memlim_mb=20000):
    """Generate and compile pan for pml with -D defines in a fresh directory
    under workdir; returns that directory. cflags: extra gcc flags such as
    -DNOREDUCE or -DSAFETY."""
    d = tempfile.mkdtemp(dir=workdir)
    shutil.copy(pml, d)
    name = os.path.basename(pml)
    subprocess.run(["spin"] + [f"-D{k}={v}" for k, v in defines.items()] + ["-a", name],
                   cwd=d, check=True, capture_output=True)
    flags = ["-O2", f"-DMEMLIM={memlim_mb}", "-DVECTORSZ=4096"] + list(cflags)
    subprocess.run(["gcc"] + flags + ["-o", "pan", "pan.c"], cwd=d, check=True,
                   capture_output=True)
    return d


def run_pan(d, timelimit, flags):
    """Run the pan built in d with run-time flags (e.g. ["-E", "-m1000000"]),
    stopping it by SIGINT after timelimit seconds; its statistics as a dict.
    "seconds" is pan's own clock (steps of 0.01 s; 0 for shorter runs)."""
    p = subprocess.Popen(["./pan"] + list(flags), cwd=d, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    stopped = False
    try:
        out, _ = p.communicate(timeout=timelimit)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate()
        stopped = True
    def num(pattern, default=0.0):
        m = re.search(pattern, out)
        return float(m.group(1)) if m else default
    states = num(r"(\d+) states, stored")
    secs = num(r"pan: elapsed time ([\d.e+]+) seconds")
    store_mb = num(r"([\d.]+)\s+actual memory usage for states")
    if store_mb == 0:
        store_mb = num(r"([\d.]+)\s+equivalent memory usage for states")
    # SPIN's own per-state figure: the state vector as stored plus its per-state
    # overhead (the preallocated hash table is left out, in SPIN's favour)
    m = re.search(r"state-vector as stored = (\d+) byte \+ (\d+) byte overhead", out)
    per_state = int(m.group(1)) + int(m.group(2)) if m else (store_mb * 2**20 / max(1, states))
    memlim = "reached -DMEMLIM bound" in out or "out of memory" in out
    return {"states": int(states), "seconds": secs,
            "transitions": int(num(r"(\d+) transitions \(= (?:stored|visited)\+matched\)")),
            "errors": int(num(r"errors: (\d+)")),
            "rate": states / secs if secs > 0 else float("nan"),
            "store_bps": per_state,
            "vector": int(num(r"State-vector (\d+) byte")),
            "complete": not stopped and not memlim and "Search not completed" not in out,
            "stopped": stopped, "memlim": memlim,
            "depth_too_small": "max search depth too small" in out}


def fmt(x, digits=0):
    if isinstance(x, float) and x != x:
        return "-"
    return f"{x:,.{digits}f}"


def ratio(a, b):
    """a / b as "1.23x", or "-" when either is not a number (a pan run too
    short for its clock has no rate)."""
    r = a / b if b else float("nan")
    return "-" if r != r else f"{r:.2f}x"
