#!/usr/bin/env bash
# Builds everything and runs every test, in two builds: the README's quick start (the Release tree a
# user makes, which must compile without a warning) gets the tests added and runs them; a clang build
# with AddressSanitizer + UndefinedBehaviorSanitizer and -Werror (the other compiler, with the tests
# and the fuzzers too) runs them again; then the parser, VM, fatbinary, C-declaration, run-spec and CUDA-call fuzzers for a
# bounded time and the formatting check. Warnings are errors in every build made here (PTXRAY_WERROR,
# or the quick start's build log checked for them). CI runs exactly this script; each stage's time is in the summary.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh --tests
jobs=$(nproc)
summary=()
stage_start=$SECONDS

# Adds a line to the summary with the time since the last stage ended: "LABEL (2m05s)".
stage_done() { # summary-text
  local s=$((SECONDS - stage_start))
  stage_start=$SECONDS
  summary+=("$1 ($((s / 60))m$(printf '%02d' $((s % 60)))s)")
}

run_ctest() { # build-dir label
  local log
  log=$(mktemp)
  ctest --test-dir "$1" --output-on-failure -j"$jobs" 2>&1 | tee "$log"
  local total failed
  total=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2/p' "$log" | tail -n1)
  failed=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\1/p' "$log" | tail -n1)
  rm -f "$log"
  stage_done "$2: $((total - failed)) passed, $failed failed"
  [ "$failed" = 0 ]
}

# Runs a build, failing on any compiler warning in its log (the user's configuration has no -Werror).
build_without_warnings() { # label command...
  local label=$1 log
  shift
  log=$(mktemp)
  "$@" 2>&1 | tee "$log"
  if grep -E '(^|[^-])warning:' "$log"; then
    echo "test: the $label printed compiler warnings (above)"
    exit 1
  fi
  rm -f "$log"
}

echo "== the README's first command: scripts/quickstart.sh (Release, as a user builds it; no warning allowed)"
build_without_warnings "quick-start build" ./scripts/quickstart.sh
stage_done "quickstart: 1 passed, 0 failed"

echo "== the tests, added to the quick start's Release tree (its libraries are not rebuilt) and run"
cmake -S . -B build/release -DPTXRAY_TESTS=ON -DPTXRAY_BENCH=ON -DPTXRAY_PYTHON=ON
build_without_warnings "tests' build" cmake --build build/release
stage_done "test build (Release, gcc): 1 passed, 0 failed"
run_ctest build/release "tests"

echo "== the other compiler: clang, -Werror, AddressSanitizer + UndefinedBehaviorSanitizer; build and test"
# -O1 with line tables: what ASan recommends, several times faster to test than -O0, with file:line
# in every report. Debug keeps assertions on.
# The fuzzers are built here too, on the same libraries (with libFuzzer's edge counters: fuzz/CMakeLists.txt),
# instead of in a third tree of their own.
cmake -S . -B build/asan -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only" \
  -DPTXRAY_SANITIZE=ON -DPTXRAY_FUZZ=ON -DPTXRAY_WERROR=ON
cmake --build build/asan
stage_done "sanitizer build (clang, -Werror): 1 passed, 0 failed"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest build/asan "sanitizer tests"

# A regression pass over the corpora and a short search past them (CI's share of the time limit);
# `scripts/fuzz.sh --campaign` is the long search.
echo "== fuzz the parser (30 s), the VM (20 s), the fatbinary reader (10 s), generated PTX, C declarations, run specs and CUDA call sequences (6 s each)"
FUZZ_BIN=build/asan/fuzz ./scripts/fuzz.sh --no-build 40
stage_done "fuzz: 1 passed, 0 failed"

echo "== formatting"
./scripts/format.sh --check
stage_done "format: 1 passed, 0 failed"

echo
printf '%s\n' "${summary[@]}"
echo "total $((SECONDS / 60))m$((SECONDS % 60))s"
