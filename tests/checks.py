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
