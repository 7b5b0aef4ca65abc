#!/usr/bin/env bash
# The libFuzzer targets (fuzz/README.md), built with clang, ASan and UBSan.
#
#   scripts/fuzz.sh [SECONDS]                 the quick pass (the test command runs it with 60): one
#       target after another on each core, the PTX parser for 3/4 of SECONDS, the VM for half, the fatbinary reader
#       for a quarter, generated PTX, C declarations, run specs and CUDA API call sequences for a sixth
#       each.
#   scripts/fuzz.sh --jobs N [SECONDS]        the long campaign: every target at once for SECONDS,
#       N processes in all (libFuzzer's fork mode), N x SECONDS of CPU time: `--jobs 16 240` is over
#       one CPU-hour. Corpora grow in build/fuzz/*-corpus; `--keep-corpus` then merges each into
#       fuzz/corpus/NAME/ (minimized), where the next campaign and the quick pass start from.
#   --no-build: use the fuzzers already in build/fuzz/fuzz (a machine without clang, FUZZ_BIN=DIR for
#       another folder).
#
# Seeds: every PTX file of the test corpora and fuzz/regressions/, the test programs nvcc built, the
# tests' headers, OpenCL sources and specs, and fuzz/corpus/. Known crashers (fuzz/regressions/) are
# replayed first. Exits non-zero on a crash, a leak, a hang or an input past the memory limit; the
# input that caused it is left in build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=1
build=1
keep=0
while [ $# -gt 0 ]; do
  case $1 in
  --jobs) jobs=$2; shift 2 ;;
  --no-build) build=0; shift ;;
  --keep-corpus) keep=1; shift ;;
  *) break ;;
  esac
done
seconds=${1:-60}
bin=${FUZZ_BIN:-build/fuzz/fuzz}
targets=(ptx_parser ptx_generator vm fatbin cdecl run_spec runtime)

if [ "$build" = 1 ]; then
  # -O1 with line tables, as the sanitizer build: quick to build, file:line in every report.
  cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" \
    -DCMAKE_CXX_COMPILER=clang++ -DPTXRAY_FUZZ=ON -DPTXRAY_TESTS=OFF -DPTXRAY_BENCH=OFF -DPTXRAY_WERROR=ON >/dev/null
  cmake --build build/fuzz --target "${targets[@]/%/_fuzzer}"
fi

# libFuzzer reads flat directories: copy each target's seeds under unique names.
seed() { # NAME FIND-ARGS...: build/fuzz/NAME-seeds from the files `find FIND-ARGS` lists, and fuzz/corpus/NAME
  local dir=build/fuzz/$1-seeds m=0
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  while IFS= read -r -d '' f; do
    m=$((m + 1))
    cp "$f" "$dir/$m-$(basename "$f")"
  done < <(find "$@" -print0 | sort -z)
}
ptx_seeds=(tests/corpus tests/negative examples fuzz/regressions -type f \( -name '*.ptx' -o -name '*.txt' \))
seed ptx_parser "${ptx_seeds[@]}"
seed vm "${ptx_seeds[@]}"
seed fatbin tests/programs/bin -type f
seed cdecl tests examples -type f \( -name '*.h' -o -name '*.cl' \) -size -64k
seed run_spec tests examples -type f -name '*.json' -size -64k
mkdir -p build/fuzz/runtime-seeds build/fuzz/ptx_generator-seeds # generated inputs: from nothing and fuzz/corpus/
mkdir -p build/fuzz/artifacts

# Per target: extra libFuzzer options (time per input, memory) and its share of the quick pass.
options() {
  case $1 in
  vm | ptx_generator) echo "-timeout=20 -rss_limit_mb=4096 -max_len=65536" ;;
  fatbin) echo "-timeout=10 -rss_limit_mb=2048 -max_len=1048576" ;;
  runtime) echo "-timeout=20 -rss_limit_mb=2048 -max_len=4096" ;;
  *) echo "-timeout=10 -rss_limit_mb=2048 -max_len=65536" ;;
  esac
}
share() { # NAME: seconds of the quick pass
  case $1 in
  ptx_parser) echo $((seconds * 3 / 4)) ;;
  vm) echo $((seconds / 2)) ;;
  fatbin) echo $((seconds / 4)) ;;
  *) echo $((seconds / 6)) ;;
  esac
}
# Processes per target in the campaign, out of 16 (scaled to --jobs): the VM and the parser find most.
weight() {
  case $1 in
  vm | ptx_generator | runtime) echo 3 ;;
  *) echo 2 ;;
  esac
}

# verify_asan_link_order=0: the sanitizer tree's fuzzers (FUZZ_BIN=build/asan/fuzz) use the shared
# ASan runtime, which libFuzzer's link puts after libstdc++ in the executable's needed libraries;
# libstdc++ replaces no allocation function, so the order is harmless (the static runtime of this
# script's own build ignores the option).
export ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Known crashers first: they must all pass before we look for new ones.
regressions=(fuzz/regressions/*)
if [ -e "${regressions[0]}" ]; then
  for t in ptx_parser vm; do
    "$bin/${t}_fuzzer" "${regressions[@]}" >/dev/null 2>&1 || { "$bin/${t}_fuzzer" "${regressions[@]}"; exit 1; }
  done
fi

run() { # NAME SECONDS [LIBFUZZER-OPTIONS...]
  local name=$1 time=$2
  shift 2
  local corpora=("build/fuzz/$name-corpus" "build/fuzz/$name-seeds")
  mkdir -p "build/fuzz/$name-corpus"
  [ -d "fuzz/corpus/$name" ] && corpora+=("fuzz/corpus/$name")
  # shellcheck disable=SC2046 # the options are words
  "$bin/${name}_fuzzer" "${corpora[@]}" -max_total_time="$time" $(options "$name") \
    -artifact_prefix="build/fuzz/artifacts/$name-" -print_final_stats=1 "$@"
}

if [ "$jobs" -le 1 ]; then
  # One target at a time per core: the targets go, longest share first, to the lane with the least
  # time so far (on 2 cores: 70 s and 60 s of the 130). Each target's log is shown when all are done.
  lanes=$(nproc)
  [ "$lanes" -gt "${#targets[@]}" ] && lanes=${#targets[@]}
  declare -a lane_time lane_targets
  for ((l = 0; l < lanes; l++)); do lane_time[l]=0; lane_targets[l]=""; done
  while read -r secs t; do
    best=0
    for ((l = 1; l < lanes; l++)); do [ "${lane_time[l]}" -lt "${lane_time[best]}" ] && best=$l; done
    lane_time[best]=$((lane_time[best] + secs))
    lane_targets[best]+="$t "
  done < <(for t in "${targets[@]}"; do echo "$(share "$t") $t"; done | sort -rn -s -k1,1)
  pids=()
  rm -f build/fuzz/*-quick.failed
  for ((l = 0; l < lanes; l++)); do
    (
      for t in ${lane_targets[l]}; do
        run "$t" "$(share "$t")" >"build/fuzz/$t-quick.log" 2>&1 || { echo "$t" >"build/fuzz/$t-quick.failed"; exit 1; }
      done
    ) &
    pids+=($!)
  done
  status=0
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for t in "${targets[@]}"; do
    if [ -e "build/fuzz/$t-quick.failed" ]; then
      echo "fuzz: $t FAILED:"
      tail -n 60 "build/fuzz/$t-quick.log"
    elif [ -e "build/fuzz/$t-quick.log" ]; then
      tail -n 12 "build/fuzz/$t-quick.log"
    fi
  done
  [ "$status" = 0 ] || { echo "fuzz: FAILED (the inputs are in build/fuzz/artifacts/)"; exit 1; }
  echo "fuzz: parser $((seconds * 3 / 4))s, VM $((seconds / 2))s, fatbinary reader $((seconds / 4))s, generated PTX," \
    "C declarations, run specs and CUDA call sequences $((seconds / 6))s each: no crash, leak or hang"
  exit 0
fi

# The campaign: every target at once, each with its share of the processes.
pids=()
for t in "${targets[@]}"; do
  forks=$(((jobs * $(weight "$t") + 15) / 16))
  run "$t" "$seconds" -fork="$forks" >"build/fuzz/$t-campaign.log" 2>&1 &
  pids+=($!)
  echo "fuzz: $t: $forks processes for ${seconds}s (log: build/fuzz/$t-campaign.log)"
done
status=0
for i in "${!targets[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "fuzz: ${targets[$i]} FAILED:"
    tail -n 40 "build/fuzz/${targets[$i]}-campaign.log"
    status=1
  fi
done
for t in "${targets[@]}"; do
  grep -h -E '^#[0-9]+: cov|INFO: fuzzed for|stat::number_of_executed_units' "build/fuzz/$t-campaign.log" | tail -n 2 |
    sed "s/^/fuzz: $t: /"
done
if [ "$keep" = 1 ]; then
  for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    # shellcheck disable=SC2046
    "$bin/${t}_fuzzer" -merge=1 "fuzz/corpus/$t" "build/fuzz/$t-corpus" $(options "$t") >/dev/null 2>&1 || true
  done
  du -sh fuzz/corpus/* | sed 's/^/fuzz: corpus /'
fi
echo "fuzz: campaign of $jobs processes x ${seconds}s: $([ $status = 0 ] && echo 'no crash, leak, hang or memory-limit breach' || echo 'FAILED')"
exit $status
