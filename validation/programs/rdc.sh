#!/usr/bin/env bash
# Device code in several files on this machine's GPU with NVIDIA's runtime and driver: the nvcc
# -rdc=true programs (tests/programs/bin/rdc_link with SASS and PTX, rdc_link_ptx with PTX alone, which
# the driver's JIT linker links at load) and the driver's JIT linker called by a program (jit_link:
# cuLink* on rdc_link's units; what it refuses, and the driver's error logs, kept in jit_link.err), and
# dynamic parallelism (cdp_launches: a recursive quicksort, nested printf, tail and fire-and-forget
# launches, a refused launch, the nesting depth; cdp_mandelbrot: the Mandelbrot set by recursive
# subdivision, 4 x 4 child grids per level; cdp_quadtree: a quadtree built by recursive launches, with
# device-side streams, events, cudaMalloc/cudaFree and a tail launch; cdp_runtime_api: the device
# runtime's queries, error texts, copies and sets).
# Each program's stdout and exit status are checked against tests/programs/expected/. Writes
# validation/programs/results/rdc/ (or $RESULTS), and $OUT/rdc when $OUT is set (the device tool).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
results="${RESULTS:-$here/results/rdc}"
mkdir -p "$results"
export LD_LIBRARY_PATH="${CUDART_DIR:-/usr/local/cuda/lib64}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cd "$repo/tests/programs"
for program in rdc_link rdc_link_ptx jit_link cdp_launches cdp_mandelbrot cdp_quadtree cdp_runtime_api; do
  expected="$program"
  [ "$program" = rdc_link_ptx ] && expected=rdc_link
  JIT_LINK_SHOW_LOGS=1 "bin/$program" >"$results/$program.out" 2>"$results/$program.err"
  echo $? >"$results/$program.status"
  if diff "expected/$expected.out" "$results/$program.out" >"$results/$program.diff" &&
    [ "$(cat "expected/$expected.status")" = "$(cat "$results/$program.status")" ]; then
    echo "$program: stdout and status as expected"
    rm -f "$results/$program.diff"
  else
    echo "$program: DIFFERS (status $(cat "$results/$program.status"); $results/$program.diff)"
  fi
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$results/ENV" 2>&1
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/rdc" && cp "$results"/* "$OUT/rdc/"; fi
