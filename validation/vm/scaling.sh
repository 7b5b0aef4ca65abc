#!/usr/bin/env bash
# VM throughput against worker count (issue #16): the bench suite's ALU, FMA and memory loops and the
# real-kernel set (bench/RealKernels.h) with 1, 2, 4, 8 and 16 workers, on a machine with that many
# cores (the device tool's GPU machines have 16; the GPU is not used).
#
#   here:    validation/vm/scaling.sh --pack        # build/scaling/: the Release bench + its libraries
#   there:   validation/vm/scaling.sh               # (build/scaling carried) -> $OUT or validation/vm/results
#   here:    python3 validation/vm/scaling-table.py validation/vm/results/scaling.json
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pack="$repo/build/scaling"

if [ "${1:-}" = --pack ]; then
  cmake -S "$repo" -B "$repo/build/release" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTXRAY_TESTS=OFF >/dev/null
  cmake --build "$repo/build/release" --target ptxray_bench
  rm -rf "$pack" && mkdir -p "$pack/lib"
  cp "$repo/build/release/bench/ptxray_bench" "$pack/"
  # The libraries a bare machine may lack (or have older): fmt, Google Benchmark, the C++ runtime.
  ldd "$pack/ptxray_bench" | awk '/libfmt|libbenchmark|libstdc\+\+|libgcc_s/ {print $3}' | xargs -r cp -L -t "$pack/lib"
  du -sh "$pack"
  exit 0
fi

[ -x "$pack/ptxray_bench" ] || { echo "scaling.sh: no $pack/ptxray_bench (run with --pack first, carry build/scaling)" >&2; exit 2; }
out="${OUT:-$repo/validation/vm/results}"
mkdir -p "$out"
{
  echo "cores: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo || true
  date -u +%Y-%m-%dT%H:%M:%SZ
} >"$out/scaling-env.txt"
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PTXRAY_SOURCE_DIR="$repo" PTXRAY_BENCH_WORKERS="${WORKERS:-1,2,4,8,16}"
"$pack/ptxray_bench" --benchmark_filter='^BM_Vm(Alu|Fma|Memory)/|^BM_Real/|^BM_RealGeomean/[0-9]+/0/' \
  --benchmark_min_time="${MIN_TIME:-0.5}" --benchmark_format=json --benchmark_out="$out/scaling.json" \
  --benchmark_out_format=json >/dev/null
cat "$out/scaling-env.txt"
