#!/usr/bin/env bash
# A whole run with large host-initialized buffers against worker count (issue #16): the bench's
# BM_SpecLargeBuffers (bench/RunSpecBench.cpp: saxpy over 4M floats whose 16 MiB inputs the spec
# fills with iota and random, all timed) with 1-16 workers, for the current build and, when packed,
# a build from before the buffers were filled in parallel; and the model-listener path of the
# real-kernel set (BM_RealGeomean/<workers>/1 against /0) on 2 cores and on all.
#
#   here:    validation/vm/init-scaling.sh --pack [BEFORE_BENCH]   # build/scaling/: bench(es) + libraries
#   there:   validation/vm/init-scaling.sh                         # (build/scaling carried) -> $OUT
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pack="$repo/build/scaling"

if [ "${1:-}" = --pack ]; then
  cmake --build "$repo/build/release" --target ptxray_bench
  rm -rf "$pack" && mkdir -p "$pack/lib"
  cp "$repo/build/release/bench/ptxray_bench" "$pack/"
  if [ -n "${2:-}" ]; then
    mkdir -p "$pack/before" && cp "$2" "$pack/before/ptxray_bench"
  fi
  ldd "$pack/ptxray_bench" | awk '/libfmt|libbenchmark|libstdc\+\+|libgcc_s/ {print $3}' | xargs -r cp -L -t "$pack/lib"
  du -sh "$pack"
  exit 0
fi

out="${OUT:-$repo/validation/vm/results}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PTXRAY_SOURCE_DIR="$repo"
{ echo "cores: $(nproc)"; grep -m1 'model name' /proc/cpuinfo || true; date -u +%Y-%m-%dT%H:%M:%SZ; } >"$out/init-scaling-env.txt"
run() { # NAME BINARY CPUS WORKERS FILTER
  PTXRAY_BENCH_WORKERS="$4" taskset -c "$3" "$2" --benchmark_filter="$5" --benchmark_min_time="${MIN_TIME:-0.5}" \
    --benchmark_repetitions="${REPS:-3}" --benchmark_format=json --benchmark_out="$out/$1.json" \
    --benchmark_out_format=json >/dev/null
  echo "done: $1"
}
all="0-$(($(nproc) - 1))"
run init-after-16core "$pack/ptxray_bench" "$all" 1,2,4,8,16 '^BM_SpecLargeBuffers/'
[ -x "$pack/before/ptxray_bench" ] && run init-before-16core "$pack/before/ptxray_bench" "$all" 1,2,4,8,16 '^BM_SpecLargeBuffers/'
run init-after-2cores "$pack/ptxray_bench" 0,1 1,2 '^BM_SpecLargeBuffers/'
[ -x "$pack/before/ptxray_bench" ] && run init-before-2cores "$pack/before/ptxray_bench" 0,1 1,2 '^BM_SpecLargeBuffers/'
run listeners-2cores "$pack/ptxray_bench" 0,1 1,2 '^BM_RealGeomean/[0-9]+/[01]/'
run listeners-16core "$pack/ptxray_bench" "$all" 16 '^BM_RealGeomean/[0-9]+/[01]/'
cat "$out/init-scaling-env.txt"
