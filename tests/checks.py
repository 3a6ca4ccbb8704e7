"""checks.py: what every Python test of mcheck shares: a check() that counts
and reports, the closing line "N passed, N failed", and the pattern of a
sanitizer report. Import it from tests/ (tests/fuzz adds its parent to
sys.path)."""
import argparse
import os
import re
import sys

SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: \w+Sanitizer")

passed = failed = 0


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


def seed_parser(doc):
    """The command line of the random-model tests (differential.py,
    theorem9.py): MCHECK GEN_MODEL, --count, --seed, --size, --jobs; the
    caller adds its own options."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mcheck")
    ap.add_argument("gen_model")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--size", choices=["small", "medium"], default="small")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    return ap


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
