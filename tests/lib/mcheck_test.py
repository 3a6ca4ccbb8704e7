"""mcheck_test.py: what the random-model and liveness tests share beyond
checks.py (issue 29: each script had its own copy). Random models:
the spawn-heavy share of the seeds (--spawns-every), a search's --json
report against composition, a seed's model from gen_model with its checks
and the line that reproduces a failure, the command line and the closing
lines of test_stateless.py and test_races.py. Liveness: the --count
argument, a random model with progress labels, SPIN's pan -l. And the
usage-error check of every script. Only helpers: each script keeps its own
checks and samples. Import it like checks.py, from tests/lib on sys.path.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

import checks
from checks import check

# the bundled models, the default of --models
MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")

TIMELIMIT = 20  # seconds per stateful run; a model past it is skipped


# ---- random models (differential.py, theorem9.py, test_stateless.py,
# test_races.py)

def add_spawns_every(ap, what="model is"):
    """The --spawns-every K option: every K-th seed's model is spawn-heavy."""
    ap.add_argument("--spawns-every", type=int, default=4, metavar="K",
                    help=f"every K-th seed's {what} spawn-heavy (gen_model --spawns; "
                         "default 4; 0: never)")


def spawns_opt(opts, seed):
    """['--spawns'] on every --spawns-every-th seed (a spawn-heavy model), else []."""
    return ["--spawns"] if opts.spawns_every > 0 and seed % opts.spawns_every == 0 else []


def add_calls_every(ap):
    """The --calls-every K option: every K-th seed's model has subroutines."""
    ap.add_argument("--calls-every", type=int, default=3, metavar="K",
                    help="every K-th seed's model has subroutines called from several sites "
                         "(gen_model --calls; default 3; 0: never)")


def calls_opt(opts, seed):
    """['--calls'] on every --calls-every-th seed (seed % K == 1, so that it
    is not always a spawn-heavy or monitor-heavy one), else []."""
    k = getattr(opts, "calls_every", 0)
    return ["--calls"] if k > 0 and seed % k == 1 % k else []


def random_seed_args(doc, spawns_what="model is"):
    """The command line of test_stateless.py and test_races.py: checks'
    seed_parser, --models (default the bundled ones) and --spawns-every."""
    ap = checks.seed_parser(doc)
    ap.add_argument("--models", default=MODELS)
    add_spawns_every(ap, spawns_what)
    return checks.parse_seed_args(ap)


def search_json(mcheck, args, model, timelimit=TIMELIMIT):
    """(exit status, the --json report or None, stderr) of one quiet search
    within `timelimit` seconds. Composition (--por=off) unless `args` name
    --por: the stateful searches compared with are composition, whose
    error counts are per composed state. A sanitizer report gives None."""
    if not any(a.startswith("--por") for a in args):
        args = ["--por=off"] + args
    cmd = [mcheck, "--json", "--quiet", "--timelimit", str(timelimit)] + args + [model]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMELIMIT * 3)
    if checks.SANITIZER.search(p.stderr):
        return p.returncode, None, p.stderr
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except json.JSONDecodeError:
        return p.returncode, None, p.stderr


def error_counts(js):
    """A report's error counts without the zero ones: {kind: count}."""
    return {k: n for k, n in js["error_counts"].items() if n}


class SeedRun:
    """One random model (gen_model SEED GEN_ARGS) and the checks on it, each
    failure tagged with the seed. Subclasses add the comparisons."""

    def __init__(self, opts, seed, gen_args):
        self.opts, self.seed, self.gen_args = opts, seed, gen_args
        self.tag = f"seed {seed}{''.join(' ' + a for a in gen_args)}"
        self.timeouts = 0  # runs past their time limit (comparison not made)

    def ok(self, cond, what):
        return check(cond, f"{self.tag}: {what}")

    def get(self, args, model, label, timelimit=TIMELIMIT):
        """search_json's report, or None after a failed check."""
        rc, js, err = search_json(self.opts.mcheck, args, model, timelimit)
        if not self.ok(js is not None, f"{label}: no JSON (exit {rc}): {err.strip()[:300]}"):
            return None
        return js

    def generate(self):
        """The model's text, or None after a failed check on gen_model's exit."""
        gen = subprocess.run([self.opts.gen_model, str(self.seed)] + self.gen_args,
                             capture_output=True, text=True)
        if not self.ok(gen.returncode == 0, f"gen_model exited {gen.returncode}"):
            return None
        return gen.stdout

    def reproduce(self, failed0, text, options):
        """When a check failed since checks.failed was failed0: the commands
        that reproduce the seed (mcheck OPTIONS on its model) and the model."""
        if checks.failed > failed0:
            print(f"  reproduce: {self.opts.gen_model} {self.seed}"
                  f"{''.join(' ' + a for a in self.gen_args)} > m.bc && "
                  f"{self.opts.mcheck} {options} m.bc")
            checks.show_model(text, self.seed, None)


def finish_random(compared, runs, what, skipped, percent=10.0):
    """The closing checks of a random sample: at least half its `runs`
    models `compared` exactly, no more than `percent`% skipped; the exit
    status."""
    check(compared >= runs // 2, f"only {compared} of {runs} models {what}")
    line = checks.too_many_skips(skipped, runs, percent)
    if line:
        print(line)
        return 1
    return checks.finish()


# ---- usage errors (every script that tests the command line)

def check_usage(mcheck, args, expect="", label=None):
    """`mcheck ARGS` is a usage error: exit 2, stderr starting with
    "mcheck: error: " and containing `expect`."""
    p = subprocess.run([mcheck] + list(args), capture_output=True, text=True, timeout=300)
    return check(p.returncode == 2 and p.stderr.startswith("mcheck: error: ") and expect in p.stderr,
                 f"{label or ' '.join(args)}: usage error (exit {p.returncode}, "
                 f"{p.stderr.strip()[:160]})")


# ---- liveness (test_liveness.py, test_starvation.py)

def count_args(argv, default):
    """(the positional arguments, --count N or `default`) of a liveness test."""
    args = list(argv)
    count = default
    if "--count" in args:
        i = args.index("--count")
        count = int(args[i + 1])
        del args[i:i + 2]
    return args, count


def progress_model(gen, seed):
    """gen_model SEED's model with every second label (the first, third,
    ...) renamed progress_*."""
    src = subprocess.run([gen, str(seed)], capture_output=True, text=True).stdout
    labels = re.findall(r"^(L\d+):", src, re.M)
    for k, lab in enumerate(labels):
        if k % 2 == 0:
            src = re.sub(r"\b%s\b" % lab, "progress_" + lab, src)
    return src


def have_spin():
    """Whether spin and gcc are installed; prints that the SPIN comparison is
    skipped when not."""
    if not shutil.which("spin") or not shutil.which("gcc"):
        print("spin or gcc not found: the SPIN comparison is skipped")
        return False
    return True


def spin_non_progress(pml, cflags=(), pan_args=()):
    """Whether SPIN's pan -l (built with -DNP and `cflags`, run with
    `pan_args`) finds a non-progress cycle in the Promela model `pml`."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["spin", "-a", pml], cwd=d, capture_output=True, check=True)
        subprocess.run(["gcc", "-O1", "-DNP"] + list(cflags) + ["-o", "pan", "pan.c"], cwd=d,
                       check=True, capture_output=True)
        out = subprocess.run(["./pan", "-l"] + list(pan_args), cwd=d, capture_output=True,
                             text=True).stdout
    return "non-progress cycle" in out and "errors: 1" in out
