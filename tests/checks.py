"""checks.py: what every Python test of mcheck shares: a check() that counts
and reports, the closing line "N passed, N failed", and the pattern of a
sanitizer report. Import it from tests/ (tests/fuzz adds its parent to
sys.path)."""
import argparse
import json
import os
import re
import sys

SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: \w+Sanitizer")

passed = failed = 0

# the independent Python enumerator the random-model tests compare against
REFCHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ref", "refcheck.py")


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
                  "detector_seconds", "store_bytes", "bytes_per_state", "omission_probability"}


def steady_report(js):
    """A copy of an mcheck --json report without VOLATILE_STATS and the store
    option: what two searches that differ only in speed must share."""
    js = json.loads(json.dumps(js))
    for k in VOLATILE_STATS:
        js.get("stats", {}).pop(k, None)
    js.get("options", {}).pop("store", None)
    return js


def report_diff(a, b):
    """The top-level keys in which two reports' steady parts differ, sorted
    (empty if they agree)."""
    sa, sb = steady_report(a), steady_report(b)
    return sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))


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
