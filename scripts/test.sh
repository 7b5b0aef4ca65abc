#!/usr/bin/env bash
# Builds everything and runs every test: the README's quick start (the Release build a user makes,
# which must compile without a warning, and the bundled example), a clang Release build, the unit and
# corpus tests (plain and under ASan+UBSan), the parser and VM fuzzers for a bounded time, and the
# formatting check. Warnings are errors in every build made here (PTXRAY_WERROR). CI runs exactly
# this script.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
jobs=$(nproc)
summary=()

run_ctest() { # build-dir label
  local log
  log=$(mktemp)
  ctest --test-dir "$1" --output-on-failure -j"$jobs" 2>&1 | tee "$log"
  local total failed
  total=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2/p' "$log" | tail -n1)
  failed=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\1/p' "$log" | tail -n1)
  rm -f "$log"
  summary+=("$2: $((total - failed)) passed, $failed failed")
  [ "$failed" = 0 ]
}

echo "== the README's first command: scripts/quickstart.sh (Release, as a user builds it; no warning allowed)"
log=$(mktemp)
./scripts/quickstart.sh 2>&1 | tee "$log"
if grep -E '(^|[^-])warning:' "$log"; then
  echo "test: the quick-start build printed compiler warnings (above)"
  exit 1
fi
rm -f "$log"
summary+=("quickstart: 1 passed, 0 failed")

echo "== build (Release, clang, -Werror): the user's configuration with the other compiler"
cmake -S . -B build/clang-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
  -DPTXRAY_WERROR=ON -DPTXRAY_TESTS=OFF
cmake --build build/clang-release
summary+=("clang release build: 1 passed, 0 failed")

echo "== build (RelWithDebInfo, -Werror) and test"
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXRAY_WERROR=ON
cmake --build build/test
run_ctest build/test "tests"

echo "== build and test under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPTXRAY_SANITIZE=ON -DPTXRAY_WERROR=ON
cmake --build build/asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest build/asan "sanitizer tests"

echo "== fuzz the parser (60 s)"
./scripts/fuzz.sh 60
summary+=("fuzz: 1 passed, 0 failed")

echo "== formatting"
./scripts/format.sh --check
summary+=("format: 1 passed, 0 failed")

echo
printf '%s\n' "${summary[@]}"
