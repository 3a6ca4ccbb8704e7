#!/usr/bin/env python3
"""test_soundness.py: RATCOP's Theorem 4 / Corollary 2 as an executable
theorem for mcheck --analyze (issue 33).

For random models (tests/lib/gen_model) whose race freedom the search
confirms (--race=goldilocks --reduce=none: no race in any execution; models
with a race are skipped, the premise does not hold for them), every
reachable state of `mcheck --reduce=none --store=exact --race=off` lies
within the analysis's fact at each thread's pc: the registers, self and tid
always, and the shared element the instruction at pc accesses (the one the
thread owns there). And no assert the analysis proves fails in the search.
Then the same for written models: widen_thresholds.bc and ratcop/*.bc.
The same with regions (RegRel) where gen_model's comments give two scalars
one lock and the analysis proves the region race-free statically.

usage: test_soundness.py MCHECK GEN_MODEL [--count N] [--first SEED]
       [--domain octagon|interval|both] [--tids on|off|both]
Ends with "N passed, N failed"; exit 1 on a failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# gen_model's feature flags, one per seed in turn: spawn/join, volatile
# hand-overs, init phases published racily or not, atomic blocks, call/ret,
# condition variables, rendezvous channels, Java monitors
FLAVOURS = [[], ["--spawns"], ["--volatile"], ["--handoff"], ["--atomic"], ["--calls"],
            ["--conds"], ["--rendezvous"], ["--waiters"]]


def s32(b, off):
    v = int.from_bytes(b[off:off + 4], "little")
    return v - (1 << 32) if v & 0x80000000 else v


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


class Checker:
    def __init__(self, facts):
        self.layout = facts["layout"]
        self.units = facts["units"]
        self.nstatic = sum(1 for u in self.units if u["tid"] >= 0)
        self.proc_unit = {u["body"]: k for k, u in enumerate(self.units) if u["tid"] < 0}

    def check_state(self, b):
        """The first violated constraint in state b, or None."""
        g0 = self.layout["globals_off"]
        for t, sl in enumerate(self.layout["threads"]):
            off = sl["offset"]
            status = b[off]
            if status not in (1, 2, 3):  # running, waiting, notified
                continue
            pc = int.from_bytes(b[off + 1:off + 3], "little")
            if sl["body"] >= 0:
                unit = t
                selfv = sl["self"]
            else:
                unit = self.proc_unit[b[off + 3]]
                selfv = s32(b, off + sl["self_off"])
            u = self.units[unit]
            nregs = u["nregs"]
            regs = [s32(b, off + sl["regs_off"] + 4 * k) for k in range(nregs)]
            point = u["pcs"][pc]
            fact = point["fact"]
            if fact["bottom"]:
                return f"thread {t} ({u['name']}) at pc {pc}: the fact is false"
            owned = {}
            for k in range(nregs):
                owned[k] = regs[k]
            owned[nregs] = selfv
            owned[nregs + 1] = t
            acc = point.get("access")
            if acc:
                first, size, kind, val = acc
                idx = {0: val, 1: regs[val] if kind == 1 else 0, 2: selfv, 3: t}[kind]
                if 0 <= idx < size:
                    e = first + idx
                    owned[nregs + 2 + e] = s32(b, g0 + 4 * e)
            for a, i, bb, j, c in fact["cons"]:
                if i not in owned or (bb and j not in owned):
                    continue
                lhs = a * owned[i] + (bb * owned[j] if bb else 0)
                if lhs > c:
                    return (f"thread {t} ({u['name']}) at pc {pc}: {a}*v{i} + {bb}*v{j} <= {c} "
                            f"fails (values {owned.get(i)}, {owned.get(j)})")
        return None


def first_outside(aj, states):
    """Why the first of `states` (reachable vectors) lies outside the facts of
    --analyze --facts --json's report aj; None if every one is inside."""
    ch = Checker(aj)
    return next((why for why in map(ch.check_state, states) if why), None)


GUARD = re.compile(r"(\w+) guarded by (\w+(?:\[\d+\])?)")


def with_regions(src):
    """The model with regions: scalars gen_model's comments say one lock
    element guards, grouped by that lock (two or more a group), so that
    RegRel's block mix runs too. Their premise is checked like the
    variables': the analysis must find each region race-free statically
    (regions_unconfirmed empty), else the test drops them."""
    groups = {}
    for line in src.split("\n"):
        if not line.startswith("shared") or ";" not in line:
            continue
        decl, comment = line.split(";", 1)
        for name, lock in GUARD.findall(comment):
            if re.search(r"\b%s\s*\[" % name, decl):
                continue  # an array: its comment's lock depends on the index
            groups.setdefault(lock, []).append(name)
    regions = [names for names in groups.values() if len(names) >= 2]
    if not regions:
        return None
    return src + "".join(f"region rg{k} = {', '.join(names)}\n" for k, names in enumerate(regions))


# Written models checked the same way after the random ones: the ported
# SV-COMP programs and the widening's thresholds, where a threshold taken
# for a bound that still grows would leave reachable states outside a fact.
HERE = os.path.dirname(os.path.abspath(__file__))
FIXED = [os.path.join(HERE, "widen_thresholds.bc")] + sorted(
    os.path.join(HERE, "ratcop", f) for f in os.listdir(os.path.join(HERE, "ratcop"))
    if f.endswith(".bc"))


def fixed_model(mcheck, model, tmp, domains, tids):
    """Every reachable state of a race-free written model within the
    facts, and no proved assert failing; the number of state x fact checks,
    0 on a failure (said)."""
    name = os.path.relpath(model, HERE)
    race = run([mcheck, "--race=goldilocks", "--reduce=none", "--store=exact", "--all-errors",
                "--json", "--quiet", model])
    rj = json.loads(race.stdout)
    if not rj.get("complete") or any(e["kind"] == "race" for e in rj.get("errors", [])):
        print(f"FAIL {name}: the search is incomplete or finds a race")
        return 0
    failing = {e["line"] for e in rj.get("errors", []) if e["kind"] == "assertion"}
    dump = os.path.join(tmp, "fixed_states")
    run([mcheck, "--race=off", "--reduce=none", "--store=exact", "--quiet", "--all-errors",
         "--dump-states", dump, model])
    with open(dump) as f:
        states = [bytes.fromhex(line.split()[0]) for line in f if line.strip()]
    checks = 0
    for d in domains:
        for t in tids:
            ar = run([mcheck, "--analyze", "--facts", "--json", f"--domain={d}", f"--tids={t}",
                      model])
            aj = json.loads(ar.stdout)
            why = first_outside(aj, states)
            if why:
                print(f"FAIL {name} {d} tids={t}: a reachable state outside the fact: {why}")
                return 0
            checks += len(states)
            for a in aj["asserts"]:
                if a["status"] == "proved" and a["line"] in failing:
                    print(f"FAIL {name} {d} tids={t}: line {a['line']} proved but fails")
                    return 0
    return checks if states else 0


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    mcheck, gen = args[0], args[1]
    count, first = 12, 1
    domains, tids = ["octagon", "interval"], ["on"]
    i = 2
    while i < len(args):
        if args[i] == "--count":
            count = int(args[i + 1])
        elif args[i] == "--first":
            first = int(args[i + 1])
        elif args[i] == "--domain":
            domains = ["octagon", "interval"] if args[i + 1] == "both" else [args[i + 1]]
        elif args[i] == "--tids":
            tids = ["on", "off"] if args[i + 1] == "both" else [args[i + 1]]
        i += 2
    count = int(os.environ.get("MCHECK_ANALYZE_SOUNDNESS_COUNT", count))
    passed = failed = skipped = 0
    regions_checked = [0]
    states_checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        seed = first
        while passed + failed < count and seed < first + 20 * count:
            model = os.path.join(tmp, f"m{seed}.bc")
            extra = FLAVOURS[seed % len(FLAVOURS)]
            src = run([gen, str(seed), "--size", "small"] + extra).stdout
            seed += 1
            with open(model, "w") as f:
                f.write(src)
            race = run([mcheck, "--race=goldilocks", "--reduce=none", "--store=exact",
                        "--all-errors", "--json", "--quiet", "--timelimit", "20", model])
            try:
                rj = json.loads(race.stdout)
            except ValueError:
                skipped += 1
                continue
            kinds = {e["kind"] for e in rj.get("errors", [])}
            if "race" in kinds or not rj.get("complete", False):
                skipped += 1  # the premise does not hold (or is unknown): nothing promised
                continue
            failing = {e["line"] for e in rj.get("errors", []) if e["kind"] == "assertion"}
            dump = os.path.join(tmp, "states")
            sr = run([mcheck, "--race=off", "--reduce=none", "--store=exact", "--quiet", "--all-errors",
                      "--dump-states", dump, model])
            if sr.returncode not in (0, 1):
                skipped += 1
                continue
            with open(dump) as f:
                states = [bytes.fromhex(line.split()[0]) for line in f if line.strip()]
            ok = True
            models = [(model, "")]
            rsrc = with_regions(src)
            if rsrc:
                rmodel = os.path.join(tmp, f"m{seed - 1}r.bc")
                with open(rmodel, "w") as f:
                    f.write(rsrc)
                models.append((rmodel, " regions"))
            for d, t, (mpath, tag) in [(d, t, m) for d in domains for t in tids for m in models]:
                ar = run([mcheck, "--analyze", "--facts", "--json", f"--domain={d}",
                          f"--tids={t}", mpath])
                if tag and ar.returncode in (0, 1) and \
                        json.loads(ar.stdout)["premise"]["regions_unconfirmed"]:
                    continue  # the regions' premise is not proved: nothing promised
                if not tag:
                    continue  # the plain model: below
                regions_checked[0] += 1
                if ar.returncode not in (0, 1):
                    print(f"FAIL seed {seed - 1} {d} tids={t}{tag}: exit {ar.returncode}")
                    ok = False
                    continue
                aj = json.loads(ar.stdout)
                why = first_outside(aj, states)
                if why:
                    print(f"FAIL seed {seed - 1} {d} tids={t}{tag}: outside the fact: {why}")
                    ok = False
                for a in aj["asserts"]:
                    if a["status"] == "proved" and a["line"] in failing:
                        print(f"FAIL seed {seed - 1} {d} tids={t}{tag}: line {a['line']} proved "
                              f"but fails in the search")
                        ok = False
            for d in domains:
                for t in tids:
                    ar = run([mcheck, "--analyze", "--facts", "--json", f"--domain={d}",
                              f"--tids={t}", model])
                    if ar.returncode not in (0, 1):
                        print(f"FAIL seed {seed - 1} {d} tids={t}: --analyze exited "
                              f"{ar.returncode}: {ar.stderr[-300:]}")
                        ok = False
                        continue
                    aj = json.loads(ar.stdout)
                    why = first_outside(aj, states)
                    if why:
                        print(f"FAIL seed {seed - 1} {d} tids={t}: a reachable state "
                              f"outside the fact: {why}")
                        ok = False
                    states_checked += len(states)
                    for a in aj["asserts"]:
                        if a["status"] == "proved" and a["line"] in failing:
                            print(f"FAIL seed {seed - 1} {d} tids={t}: line {a['line']} proved "
                                  f"but fails in the search")
                            ok = False
            if ok:
                passed += 1
            else:
                failed += 1
        for model in FIXED:
            ok = fixed_model(mcheck, model, tmp, domains, tids)
            states_checked += ok
            if ok:
                passed += 1
            else:
                failed += 1
    print(f"({skipped} models skipped: a race or an incomplete search; "
          f"{states_checked} state x fact checks; {regions_checked[0]} runs with regions)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
