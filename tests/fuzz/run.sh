#!/usr/bin/env bash
# run.sh: build the libFuzzer targets with clang and run each for SECONDS.
#   tests/fuzz/run.sh [SECONDS]     default 60 per target; both run at once
# Environment: MCHECK_FUZZ_BUILD (build dir, default build-fuzz at the top of
# the repository), MCHECK_FUZZ_JOBS (build jobs, default nproc),
# MCHECK_FUZZ_SEED (libFuzzer's -seed, default 1, so a CI run is repeatable).
# The seed corpus is tests/fuzz/corpus plus models/*.bc, copied to a scratch
# directory (the checked-in corpus never changes). Exits non-zero on any
# crash, leak, timeout or sanitizer report; the input that caused it is left
# in the scratch directory (printed) to be minimised and added to
# tests/fuzz/regressions/. docs/usage.md ("Fuzzing") says how to run longer.
set -euo pipefail
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${MCHECK_FUZZ_BUILD:-$top/build-fuzz}
jobs=${MCHECK_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

command -v clang >/dev/null || { echo "run.sh: clang not found" >&2; exit 2; }
# Warnings are the ordinary build's business; this build is about crashes.
cmake -S "$top" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
      -DMCHECK_FUZZ=ON -DMCHECK_WERROR=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_assemble fuzz_search >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/mcheck-fuzz.XXXXXX")
echo "run.sh: fuzzing for ${secs}s per target in $work"
status=0
pids=()
for t in fuzz_assemble fuzz_search; do
  mkdir -p "$work/$t/corpus" "$work/$t/crashes"
  cp "$here"/corpus/* "$work/$t/corpus/"
  cp "$top"/models/*.bc "$work/$t/corpus/" 2>/dev/null || true
  # -timeout: fuzz_search bounds its search at about 0.5 s; 20 s is a hang
  ( cd "$work/$t" &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/$t" -max_total_time="$secs" -max_len=4096 -timeout=20 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/$t/crashes/" \
      -seed="${MCHECK_FUZZ_SEED:-1}" \
      corpus >"$work/$t/log" 2>&1 ) &
  pids+=($!)
done
i=0
for t in fuzz_assemble fuzz_search; do
  rc=0
  wait "${pids[$i]}" || rc=$?
  i=$((i + 1))
  log="$work/$t/log"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if [ "$rc" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$log"; then
    echo "run.sh: $t FAILED (exit $rc) after $runs runs; log: $log" >&2
    grep -E 'ERROR:|runtime error:|SUMMARY:|check failed|Test unit written|^Base64:' "$log" | head -20 >&2 || true
    ls "$work/$t/crashes" >&2
    status=1
  else
    echo "run.sh: $t ok: $runs runs in ${secs}s, no crash"
  fi
done
[ "$status" -eq 0 ] && rm -rf "$work"
exit "$status"
