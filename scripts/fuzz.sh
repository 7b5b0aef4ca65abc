#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs the parser fuzzer for SECONDS (default 60) and the
# VM fuzzer (load and run every kernel) for half as long, on the seed corpus: every PTX file of the
# test corpora and fuzz/regressions/; then the fatbinary reader's fuzzer for a quarter as long, on
# the test programs nvcc built (tests/programs/bin); then the C declaration parser of `ptxray abi` and
# the run-spec reader for a sixth as long each, on the tests' headers and specs. Exits non-zero on a
# crash, leak or hang; the input that caused it is left in build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

# -O1 with line tables, as the sanitizer build: quick to build, file:line in every report.
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER=clang++ -DPTXRAY_FUZZ=ON -DPTXRAY_TESTS=OFF -DPTXRAY_BENCH=OFF -DPTXRAY_WERROR=ON >/dev/null
cmake --build build/fuzz --target ptx_parser_fuzzer vm_fuzzer fatbin_fuzzer cdecl_fuzzer run_spec_fuzzer
fuzzer=build/fuzz/fuzz/ptx_parser_fuzzer
vm_fuzzer=build/fuzz/fuzz/vm_fuzzer

# libFuzzer reads flat directories: copy the seeds under unique names.
seeds=build/fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds" build/fuzz/corpus build/fuzz/artifacts
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  cp "$f" "$seeds/$n-$(basename "$f")"
done < <(find tests/corpus tests/negative examples fuzz/regressions -type f \( -name '*.ptx' -o -name '*.txt' \) -print0 | sort -z)

export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Known crashers first: they must all pass before we look for new ones.
regressions=(fuzz/regressions/*)
if [ -e "${regressions[0]}" ]; then
  "$fuzzer" "${regressions[@]}" >/dev/null 2>&1 || { "$fuzzer" "${regressions[@]}"; exit 1; }
  "$vm_fuzzer" "${regressions[@]}" >/dev/null 2>&1 || { "$vm_fuzzer" "${regressions[@]}"; exit 1; }
fi
"$fuzzer" build/fuzz/corpus "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 2>&1 | tail -n 25
mkdir -p build/fuzz/vm-corpus
"$vm_fuzzer" build/fuzz/vm-corpus "$seeds" -max_total_time="$((seconds / 2))" -timeout=20 -rss_limit_mb=4096 \
  -max_len=65536 -artifact_prefix=build/fuzz/artifacts/vm- -print_final_stats=1 2>&1 | tail -n 25
mkdir -p build/fuzz/fatbin-corpus
build/fuzz/fuzz/fatbin_fuzzer build/fuzz/fatbin-corpus tests/programs/bin -max_total_time="$((seconds / 4))" -timeout=10 \
  -rss_limit_mb=2048 -max_len=1048576 -artifact_prefix=build/fuzz/artifacts/fatbin- -print_final_stats=1 2>&1 | tail -n 12
# The text formats users write: C declarations (`ptxray abi`) and run specs, a sixth as long each.
text_fuzz() { # NAME FIND-PATTERN...: seeds are the tests' and examples' files matching a pattern
  local name=$1 seeds_dir=build/fuzz/$1-seeds m=0
  shift
  rm -rf "$seeds_dir"
  mkdir -p "$seeds_dir" "build/fuzz/$name-corpus"
  while IFS= read -r -d '' f; do
    m=$((m + 1))
    cp "$f" "$seeds_dir/$m-$(basename "$f")"
  done < <(find tests examples -type f \( "$@" \) -size -64k -print0 | sort -z)
  "build/fuzz/fuzz/${name}_fuzzer" "build/fuzz/$name-corpus" "$seeds_dir" -max_total_time="$((seconds / 6))" \
    -timeout=10 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="build/fuzz/artifacts/$name-" \
    -print_final_stats=1 2>&1 | tail -n 12
}
text_fuzz cdecl -name '*.h' -o -name '*.cl'
text_fuzz run_spec -name '*.json'
echo "fuzz: parser ${seconds}s, VM $((seconds / 2))s over $n seeds, fatbinary reader $((seconds / 4))s," \
  "C declarations and run specs $((seconds / 6))s each: no crash, leak or hang"
