"""checks.py: what every Python test of mcheck shares: a check() that counts
and reports, the closing line "N passed, N failed", and the pattern of a
sanitizer report. Import it from tests/ (tests/fuzz adds its parent to
sys.path)."""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: \w+Sanitizer")

passed = failed = 0

# the independent Python enumerator the random-model tests compare against
REFCHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ref", "refcheck.py")


def check(cond, what):
    """Count one assertion; print "FAIL what" when it does not hold."""
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, flush=True)
    return cond


def finish():
    """Print the closing line and return the exit status."""
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


# Statistics that vary between runs of one search (time, memory) or with
# the store's layout; steady_report() drops them.
VOLATILE_STATS = {"seconds", "states_per_second", "peak_rss_bytes", "search_bytes",
                  "detector_seconds", "store_bytes", "bytes_per_state", "omission_probability",
                  "search_bytes_used", "search_bytes_reserved", "search_buffer_bytes",
                  "error_bytes", "counted_bytes", "refused_bytes"}


def steady_report(js):
    """A copy of an mcheck --json report without VOLATILE_STATS and the store
    option: what two searches that differ only in speed must share."""
    js = json.loads(json.dumps(js))
    for k in VOLATILE_STATS:
        js.get("stats", {}).pop(k, None)
    if isinstance(js.get("stats", {}).get("shortening"), dict):  # --shorten's time
        js["stats"]["shortening"].pop("seconds", None)
    js.get("options", {}).pop("store", None)
    return js


def report_diff(a, b):
    """The top-level keys in which two reports' steady parts differ, sorted
    (empty if they agree)."""
    sa, sb = steady_report(a), steady_report(b)
    return sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))


# A random model is skipped only when a search hits the time limit (it is too
# big to say anything about); more than this share of skipped seeds fails the
# test, so a bug that makes searches slow or cut short cannot pass as skips.
MAX_SKIP_PERCENT = 3.0


def too_many_skips(skipped, count, percent):
    """The failure line when `skipped` of `count` seeds exceeds `percent`%,
    else None."""
    allowed = int(count * percent / 100)
    if skipped > allowed:
        return (f"FAIL {skipped} of {count} seeds skipped, more than the {percent:g}% "
                f"({allowed}) allowed: the searches are cut short (see the skip lines)")
    return None


def need_refcheck(opts):
    """A test that compares against the reference checker fails, rather than
    skipping the comparison, when the checker is missing (--no-ref turns the
    comparison off on purpose). Returns False (after printing why) when missing."""
    if opts.ref and not os.path.exists(opts.refcheck):
        print(f"FAIL the reference checker {opts.refcheck} does not exist "
              f"(pass --no-ref to run without it)", flush=True)
        return False
    return True


def seed_parser(doc):
    """The command line of the random-model tests (differential.py,
    theorem9.py): MCHECK GEN_MODEL, --count, --seed, --size, --jobs,
    --no-ref, --refcheck, --keep, --verbose; the caller adds its own."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mcheck")
    ap.add_argument("gen_model")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--size", choices=["small", "medium"], default="small")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-ref", dest="ref", action="store_false",
                    help="do not run the reference enumerator")
    ap.add_argument("--refcheck", default=REFCHECK, metavar="PATH",
                    help="the reference enumerator (default tests/ref/refcheck.py)")
    ap.add_argument("--keep", metavar="DIR", help="also write each failing model to DIR")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per model")
    ap.add_argument("--max-skip-percent", type=float, default=MAX_SKIP_PERCENT, metavar="P",
                    help="fail when more than P%% of the seeds are skipped (a search cut "
                         f"short by the time limit; default {MAX_SKIP_PERCENT})")
    return ap


def parse_seed_args(ap):
    """ap.parse_args(), with the two programs' paths made absolute (the
    searches run in temporary directories)."""
    opts = ap.parse_args()
    opts.mcheck = os.path.abspath(opts.mcheck)
    opts.gen_model = os.path.abspath(opts.gen_model)
    return opts


def show_model(text, seed, keep):
    """A failing random model: printed, and with --keep DIR also written to
    DIR/seedN.bc."""
    if keep:
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, f"seed{seed}.bc"), "w") as f:
            f.write(text)
    print("  model:")
    for line in text.splitlines():
        print("    | " + line)
    sys.stdout.flush()


# ---- generator coverage (tests/lib/gen_model.c; tests/README.md says how to add
# a construct): which constructs a model text uses, read from the text itself
# so that a generator that stops writing one shows up as a gap.
OPS = ("add sub mul div mod and or xor shl shr eq ne lt le gt ge not neg choose assert "
       "acquire release wait notify notifyall send recv spawn join end call ret").split()


ARITH_OPS = set("add sub mul div mod and or xor shl shr eq ne lt le gt ge not neg mov".split())


def _bodies(text):
    """[(kind, name, count, lines)] of the thread and proc bodies."""
    out = []
    for line in text.splitlines():
        code = line.split(";")[0].rstrip()
        m = re.match(r"(thread|proc)\s+(\w+)(?:\[(\w+)\])?(?:\s+max\s+(\w+))?", code)
        if m:
            out.append((m.group(1), m.group(2), m.group(3), []))
        elif out and code.strip():
            out[-1][3].append(re.sub(r"^\s*\w+:\s*", "", code).strip())
    return out


def constructs(text):
    """The set of construct names (see COVERAGE) the model text uses."""
    got = set()
    bodies = _bodies(text)
    decls = [ln.split(";")[0].rstrip() for ln in text.splitlines()
             if re.match(r"(const|shared|volatile|unshared|lock|chan|cond)\s", ln)]
    for d in decls:
        if d.startswith("chan ") and any(int(c) > 2 for c in re.findall(r"\w\[(\d+)\]", d)):
            got.add("channel capacity > 2")
        if "," in re.sub(r"\{[^}]*\}", "", d):
            got.add("comma list")
        if any(not re.fullmatch(r"\s*(0x[0-9a-fA-F]+|\d+)\s*", e)
               for e in re.findall(r"\w\[([^\]]+)\]", d)):
            got.add("size expression")
        if d.startswith("const ") and any(re.search(r"[A-Za-z_(*/%+]|\d\s*-", v)
                                          for v in re.findall(r"=([^,]+)", d)):
            got.add("const expression")
    # a const used on a line before its declaration (LANGUAGE.md: names may
    # be used before they are declared)
    lines = [ln.split(";")[0] for ln in text.splitlines()]
    for i, ln in enumerate(lines):
        if ln.startswith("const "):
            for name in re.findall(r"(\w+)\s*=", ln):
                if any(re.search(rf"\b{name}\b", x) for x in lines[:i]):
                    got.add("const declared after its use")
    consts = set()
    for ln in lines:
        if ln.startswith("const "):
            consts.update(re.findall(r"(\w+)\s*=", ln))
    for kind, name, count, lines in bodies:
        ops = [ln.split()[0] for ln in lines if ln]
        for ln in lines:  # an operand written as a constant expression
            w = ln.split(None, 1)
            if len(w) == 2 and w[0] in OPS and '"' not in w[1]:
                for o in w[1].split(","):
                    o = o.strip()
                    if re.search(r"[+*/%(]|\w-", o) or o in consts:
                        got.add("expression operand")
        for op in ops:
            if op in OPS:
                got.add("op " + op)
        if "assume" in ops:
            got.add("op assume")
        if "atomic" in ops:
            got.add("atomic block")
            blocks = re.findall(r"^atomic$(.*?)^end_atomic$", "\n".join(lines), re.M | re.S)
            if any(re.search(r"^assume\b", b, re.M) for b in blocks):
                got.add("guarded atomic block")
        if kind == "proc" and "spawn" in ops:
            got.add("proc that spawns")
        if kind == "thread" and count and count.isdigit() and int(count) > 2:
            got.add("thread array > 2")
        # recursive acquire: a lock acquired again before its release
        held = []
        for ln in lines:
            w = ln.split(None, 1)
            if not w:
                continue
            if w[0] == "acquire":
                if w[1] in held:
                    got.add("recursive acquire")
                    if any(x.split(None, 1)[:1] == ["wait"] and x.split(None, 1)[1] == w[1]
                           for x in lines):
                        got.add("wait at depth 2")
                held.append(w[1])
            elif w[0] == "release" and w[1] in held:
                held.remove(w[1])
        # pthread conds (gen_model --conds): a cwait re-checked in a loop
        # (a jmp back to the label of the check right after it)
        for i, ln in enumerate(lines[:-1]):
            if ln.startswith("cwait ") and lines[i + 1].startswith("jmp "):
                got.add("cwait in a while loop")
            if ln.startswith("cwait ") and not lines[i + 1].startswith("jmp "):
                got.add("cwait checked once")
        for ln in lines:
            w = ln.split(None, 1)
            if w and w[0] in ("cwait", "csignal", "cbroadcast"):
                got.add("op " + w[0])
        # a wait/notify chain: a body that waits on one lock, then notifies another
        waited = None
        for ln in lines:
            w = ln.split(None, 1)
            if w and w[0] == "wait":
                waited = w[1]
            elif w and w[0] in ("notify", "notifyall") and waited and w[1] != waited:
                got.add("wait/notify chain")
    # spawns (gen_model --spawns): two static threads each spawning a proc
    # the other does not spawn (thread ids come from one counter, so the
    # order of the two decides who gets which id); a spawner testing the id
    # a spawn returned
    spawned = []
    for kind, name, count, lines in bodies:
        kids, procs = set(), set()
        for ln in lines:
            m = re.match(r"spawn\s+(\w+)\s*,\s*(\w+)", ln)
            if m:
                kids.add(m.group(1))
                procs.add(m.group(2))
            w = ln.split(None, 1)
            if (kids and len(w) == 2 and w[0] in ("eq", "ne", "lt", "le", "gt", "ge")
                    and kids & {o.strip() for o in w[1].split(",")[1:]}):
                got.add("spawn id tested")
        if kind == "thread" and procs:
            spawned.append(procs)
    if any(p != q for i, a in enumerate(spawned) for b in spawned[i + 1:]
           for p in a for q in b):
        got.add("spawns by two threads")
    if sum(1 for b in bodies if b[0] == "proc") >= 2:
        got.add("two or more procs")
    if len(bodies) >= 3:
        got.add("three or more bodies")
    for cls in ("volatile", "unshared"):
        if re.search(rf"^{cls}\s", text, re.M):
            got.add(cls)
    for m in re.finditer(r"^shared\s[^;]*\binit\s+(\w+)", text, re.M):
        got.add("init main" if m.group(1) == "main" else "init T (a thread)")
    if re.search(r"^lock\s[^;\n]*\w\[", text, re.M):
        got.add("lock array")
    if re.search(r"^\s*end\w*:", text, re.M):
        got.add("end label")
    if re.search(r"^\s*jmp Lforever\b", text, re.M):
        got.add("forever loop")
    if re.search(r"^const\s", text, re.M):
        got.add("const")
    # subroutines (gen_model --calls): a label called from two sites of a
    # body, a call inside a subroutine (nesting), `stack N`
    for kind, name, count, lines in bodies:
        targets = collections.Counter(ln.split()[1] for ln in lines
                                      if ln.split()[:1] == ["call"] and len(ln.split()) > 1)
        if any(n >= 2 for n in targets.values()):
            got.add("subroutine called from two sites")
        if lines and lines[0].split()[:1] == ["stack"]:
            got.add("stack N")
    sub = None  # the subroutine being read (a label `fnK:` up to its `ret`)
    for ln in text.splitlines():
        code = ln.split(";")[0].strip()
        m = re.match(r"(fn\d+):", code)
        if m:
            sub = m.group(1)
        elif code == "ret":
            sub = None
        elif sub and re.match(r"call\s+\w+", code):
            got.add("nested call")
    # rendezvous channels (gen_model --rendezvous): `chan c[0]`, a server
    # receiving on one at an end label, one body both sending and receiving
    # on one (its instances meet), a recv followed by invisible arithmetic
    # (the receiver's tail runs in the rendezvous step)
    rv = set()
    for d in decls:
        if d.startswith("chan "):
            rv.update(re.findall(r"(\w+)\s*\[\s*0\s*\]", d))
    if rv:
        got.add("rendezvous channel")
    for m in re.finditer(r"^\s*end\w*:\s*\n?\s*recv\s+\w+\s*,\s*(\w+)", text, re.M):
        if m.group(1) in rv:
            got.add("rendezvous server at an end label")
    for kind, name, count, lines in bodies:
        sent = {ln.split(",")[0].split()[1] for ln in lines if ln.startswith("send ")}
        got_ = {ln.split(",")[1].strip() for ln in lines if ln.startswith("recv ")}
        if sent & got_ & rv:
            got.add("rendezvous within one body")
        for i, ln in enumerate(lines[:-1]):
            if (ln.startswith("recv ") and ln.split(",")[1].strip() in rv
                    and (lines[i + 1].split() or [""])[0] in ARITH_OPS):
                got.add("rendezvous receiver tail")
    if re.search(r"^\s*\w+ [^;\n]*; touched by a second body", text, re.M):
        got.add("unshared touched by a second body")
    return got


# every construct the random models must keep using (zero in a run of at
# least COVERAGE_MIN_SEEDS seeds fails the test)
COVERAGE = sorted(["op " + o for o in OPS] + [
    "proc that spawns", "two or more procs", "three or more bodies", "thread array > 2",
    "channel capacity > 2", "recursive acquire", "wait at depth 2", "wait/notify chain",
    "volatile", "unshared", "init main", "init T (a thread)", "lock array", "end label", "const",
    "comma list", "size expression", "const expression", "const declared after its use",
    "expression operand", "forever loop", "spawns by two threads", "spawn id tested",
    "subroutine called from two sites", "nested call", "stack N"])
# constructs only the --atomic models have (tests/differential/differential.py)
ATOMIC_COVERAGE = ["atomic block", "guarded atomic block", "op assume"]
# constructs only the --conds models have (tests/differential/differential.py
# passes them to coverage_report() while it runs --conds seeds)
COVERAGE_CONDS = ["op cwait", "op csignal", "op cbroadcast", "cwait in a while loop",
                  "cwait checked once"]
# constructs only the --rendezvous models have (tests/differential/differential.py
# passes them to coverage_report() while it runs --rendezvous seeds)
COVERAGE_RENDEZVOUS = ["rendezvous channel", "rendezvous server at an end label",
                       "rendezvous within one body", "rendezvous receiver tail"]
# constructs only the --undisciplined models have (tests/differential/theorem9.py)
COVERAGE_UNDISC = ["unshared touched by a second body"]
COVERAGE_MIN_SEEDS = 200


def coverage_report(counts, nseeds, label, extra=()):
    """Print the constructs per 1000 seeds (COVERAGE and `extra`); returns
    the constructs never seen (a gap) when nseeds >= COVERAGE_MIN_SEEDS, else []."""
    names = sorted(COVERAGE + list(extra))
    per = {c: round(1000 * counts.get(c, 0) / max(1, nseeds)) for c in names}
    print(f"generator coverage ({label}; models per 1000 seeds using each construct):")
    items = [f"{c} {per[c]}" for c in names]
    for i in range(0, len(items), 6):
        print("  " + ", ".join(items[i:i + 6]))
    gaps = [c for c in names if not counts.get(c)]
    if gaps:
        print(f"  never used: {', '.join(gaps)}")
    return gaps if nseeds >= COVERAGE_MIN_SEEDS else []


def header(path):
    """A model's header comment lines `; key: value` (the first of each key)."""
    h = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"\s*[;#]\s*([a-z-]+):\s*(.*?)\s*$", line)
            if m and m.group(1) not in h:
                h[m.group(1)] = m.group(2)
    return h


def write_model(directory, name, text):
    """Write a model's text to directory/name; returns the path."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run_mcheck(mcheck, *args, timeout=120):
    """(exit status, stdout, stderr) of one mcheck run."""
    p = subprocess.run([mcheck] + list(args), capture_output=True, text=True, errors="replace",
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr



def run_quiet(mcheck, args, timeout=300):
    """(exit status, stdout, stderr) of `mcheck --quiet ARGS...`."""
    p = subprocess.run([mcheck, "--quiet"] + list(args), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_quiet_json(mcheck, args, timeout=300):
    """(exit status, the --json report or None if stdout is not JSON, stderr)."""
    code, out, err = run_quiet(mcheck, ["--json"] + list(args), timeout)
    try:
        return code, json.loads(out), err
    except ValueError:
        return code, None, err
