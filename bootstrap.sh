#!/usr/bin/env bash
# bootstrap.sh: set up a fresh Debian machine, build mcheck, and run it.
#   ./bootstrap.sh demo   install what is missing, build, install mcheck
#                         (cmake --install: /usr/local/bin/mcheck), check a
#                         bundled model with the mcheck on the PATH
#   ./bootstrap.sh test   install what is missing, build with ASan+UBSan, run the
#                         parallel search's tests under ThreadSanitizer, fuzz each
#                         libFuzzer target for 30 s (clang), run ctest (with
#                         Open MPI installed: mcheck-mpi's tests too)
#   ./bootstrap.sh build  install what is missing and build (release) only
# Needs root or sudo only when packages are missing, and (demo) to install
# mcheck; test and build install nothing outside the work tree but packages.
# PREFIX=DIR ./bootstrap.sh demo installs into DIR/bin instead of /usr/local/bin.
set -euo pipefail
cd "$(dirname "$0")"

mode=${1:-demo}
pkgs=(cmake gcc make pkg-config libjudy-dev libxxhash-dev libcjson-dev python3)
[ "$mode" = test ] && pkgs+=(spin clang libclang-rt-14-dev chromium)
# Open MPI: mcheck-mpi and its ctest (tests/differential/test_mpi.py); optional for the
# other modes (CMake builds mcheck-mpi only when it finds MPI)
[ "$mode" = test ] && pkgs+=(libopenmpi-dev openmpi-bin)

missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
case "$mode" in
  demo|build)
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build -j "$jobs" >/dev/null
    echo "bootstrap: built build/tools/mcheck"
    if [ "$mode" = demo ]; then
      prefix=${PREFIX:-/usr/local}
      $sudo cmake --install build --prefix "$prefix" >/dev/null
      echo "bootstrap: installed $prefix/bin/mcheck"
      if [ "$(command -v mcheck)" != "$prefix/bin/mcheck" ]; then
        echo "bootstrap: warning: $prefix/bin is not first on your PATH; running $prefix/bin/mcheck" >&2
        export PATH="$prefix/bin:$PATH"
      fi
      echo "\$ mcheck models/philosophers.bc"
      mcheck models/philosophers.bc || [ $? -eq 1 ]  # exit 1: an error was found
    fi
    ;;
  test)
    cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DMCHECK_SANITIZE=ON >/dev/null
    cmake --build build-test -j "$jobs" >/dev/null
    # the parallel search under ThreadSanitizer: the store's and the
    # detectors' concurrent unit tests, and a sample of tests/differential/test_parallel.py
    cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCHECK_TSAN=ON >/dev/null
    cmake --build build-tsan -j "$jobs" --target mcheck gen_model test_store test_lockset >/dev/null
    echo "bootstrap: ThreadSanitizer: test_store, test_lockset, tests/differential/test_parallel.py"
    build-tsan/tests/test_store | tail -1
    build-tsan/tests/test_lockset | tail -1
    python3 tests/differential/test_parallel.py build-tsan/tools/mcheck build-tsan/tests/gen_model \
      --count 12 --seed 1000 | tail -1
    # half a minute of each libFuzzer target (tests/fuzz/run.sh; needs clang), then
    # every test, so that ctest's summary closes the output
    if command -v clang >/dev/null; then
      tests/fuzz/run.sh 30
    else
      echo "bootstrap: clang not found, fuzzing skipped"
    fi
    # --no-tests=error: an empty or unconfigured suite fails rather than
    # passing; CI set: tests/semantics/run_models.py refuses MCHECK_UPDATE_GOLDEN=1
    (cd build-test && CI=${CI:-1} ctest --no-tests=error --output-on-failure -j "$jobs")
    ;;
  *)
    echo "usage: $0 demo|test|build" >&2
    exit 2
    ;;
esac
