#!/usr/bin/env bash
# Runs every planted-bug spec of tests/kernels/sanitizers/specs on this machine's GPU under NVIDIA's
# compute-sanitizer, with each of its tools, through the driver-API spec runner of validation/vm, so
# that what ptxray's sanitizers report (validation/sanitizers/ptxray.sh) can be set next to what
# compute-sanitizer finds on hardware, bug by bug. Writes $OUT (default validation/sanitizers/build/out):
#   $OUT/compute-sanitizer.tar.gz   compute-sanitizer/NAME.TOOL.txt: the tool's output for one spec
#                                   (with the exit status last), and compute-sanitizer/ENV
# (one archive: the device tool brings back a handful of files only).
# Needs nvcc, compute-sanitizer and nlohmann/json.hpp (validation/vm/build/include, see its README).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-$here/build/out}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
sanitizer="${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}"
stage="$(mktemp -d)"
mkdir -p "$out" "$stage/compute-sanitizer"

inc=""
for d in "$repo/validation/vm/build/include" /usr/include /usr/local/include; do
  if [ -f "$d/nlohmann/json.hpp" ]; then inc="$d"; break; fi
done
[ -n "$inc" ] || { echo "run.sh: nlohmann/json.hpp not found (validation/vm/README.md)" >&2; exit 2; }

bin="$(mktemp -d)"
"$nvcc" -std=c++17 -O2 -I"$repo/src" -I"$inc" "$repo/validation/vm/spec_runner.cpp" -lcuda -o "$bin/spec_runner" || exit 2
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  "$nvcc" --version | tail -n 2
  "$sanitizer" --version | tail -n 1
  date -u +%Y-%m-%dT%H:%M:%SZ
} >"$stage/compute-sanitizer/ENV" 2>&1

for spec in "$repo"/tests/kernels/sanitizers/specs/*.json; do
  name="$(basename "$spec" .json)"
  for tool in memcheck racecheck synccheck initcheck; do
    args=(--tool "$tool" --print-limit 100)
    [ "$tool" = memcheck ] && args+=(--leak-check full)
    [ "$tool" = racecheck ] && args+=(--racecheck-report all)
    (cd "$bin" && timeout 120 "$sanitizer" "${args[@]}" ./spec_runner "$spec" --out-dir "$bin/out-$name") \
      >"$stage/compute-sanitizer/$name.$tool.txt" 2>&1
    echo "exit=$?" >>"$stage/compute-sanitizer/$name.$tool.txt"
  done
  echo "ran $name"
done
tar czf "$out/compute-sanitizer.tar.gz" -C "$stage" compute-sanitizer
echo "run.sh: $(ls "$stage/compute-sanitizer" | wc -l) files in $out/compute-sanitizer.tar.gz"
