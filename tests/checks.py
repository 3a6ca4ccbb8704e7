"""checks.py: what every Python test of mcheck shares: a check() that counts
and reports, the closing line "N passed, N failed", and the pattern of a
sanitizer report. Import it from tests/ (tests/fuzz adds its parent to
sys.path)."""
import re

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
