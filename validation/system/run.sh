#!/usr/bin/env bash
# Real-GPU ground truth for ptxray's system timeline model (issue #14): builds system_bench.cu and
# runs it three times, with CUDA_DEVICE_MAX_CONNECTIONS unset (the driver's default), =1 and =32.
# Run from the repository root on a machine with an sm_90 GPU (see README.md):
#
#   OUT=/some/dir bash validation/system/run.sh        (default OUT: /tmp/system-out)
#
# $OUT gets: system_bench (the binary), results-default.json, results-conn1.json,
# results-conn32.json, nvidia-smi.txt (nvidia-smi -q) and log.txt (the program's stderr).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/system-out}"
mkdir -p "$out"

nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
build=("$nvcc" -O2 -arch=sm_90 -std=c++17 "$here/system_bench.cu" -o "$out/system_bench")
echo "+ ${build[*]}"
"${build[@]}"

{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# nvcc: $("$nvcc" --version | tail -n 1)"
  nvidia-smi -q
} > "$out/nvidia-smi.txt"

: > "$out/log.txt"
run_one() {
  local tag=$1 conn=$2
  local json="$out/results-$tag.json"
  echo "== $tag (CUDA_DEVICE_MAX_CONNECTIONS=${conn:-unset})" | tee -a "$out/log.txt"
  local start=$SECONDS
  if [ -z "$conn" ]; then
    env -u CUDA_DEVICE_MAX_CONNECTIONS timeout 200 "$out/system_bench" > "$json.tmp" 2>> "$out/log.txt"
  else
    CUDA_DEVICE_MAX_CONNECTIONS="$conn" timeout 200 "$out/system_bench" > "$json.tmp" 2>> "$out/log.txt"
  fi
  mv "$json.tmp" "$json"
  if command -v python3 > /dev/null; then python3 -m json.tool "$json" > /dev/null; fi
  echo "   done in $((SECONDS - start)) s" | tee -a "$out/log.txt"
}

run_one default ""
run_one conn1 1
run_one conn32 32
ls -l "$out"
