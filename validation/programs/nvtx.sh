#!/usr/bin/env bash
# tests/programs/bin/nvtx_ranges on this machine's GPU with NVIDIA's runtime: its stdout and exit status
# (checked against tests/programs/expected/nvtx_ranges.*); the NVTX push/pop stack Nsight Compute sees
# at each launch (`ncu --nvtx`: each launch inside the "solver" domain's green "iteration" range, as
# tests/programs/check_nvtx.py requires of ptxray's timeline); and, where Nsight Systems is installed,
# `nsys stats`' nvtx_sum and nvtx_pushpop_trace. Writes validation/programs/results/nvtx/ (or
# $RESULTS), and $OUT/nvtx when $OUT is set (the device tool).
# Last run (results/nvtx): an H200, stdout and status as expected, ncu's stacks as above; no nsys there.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
results="${RESULTS:-$here/results/nvtx}"
mkdir -p "$results"
export LD_LIBRARY_PATH="${CUDART_DIR:-/usr/local/cuda/lib64}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exe="$repo/tests/programs/bin/nvtx_ranges"
"$exe" >"$results/nvtx_ranges.out" 2>"$results/nvtx_ranges.err"
echo $? >"$results/nvtx_ranges.status"
nsys="$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)"
if [ -n "$nsys" ]; then
  tmp="$(mktemp -d)"
  "$nsys" profile --trace=cuda,nvtx -o "$tmp/r" "$exe" >"$results/nsys-profile.log" 2>&1
  "$nsys" stats --report nvtx_sum --format csv "$tmp/r.nsys-rep" >"$results/nvtx_sum.csv" 2>"$results/nsys-stats.err"
  "$nsys" stats --report nvtx_pushpop_trace --format csv "$tmp/r.nsys-rep" >"$results/nvtx_pushpop_trace.csv" 2>>"$results/nsys-stats.err"
  "$nsys" stats --report nvtx_startend_sum --format csv "$tmp/r.nsys-rep" >"$results/nvtx_startend_sum.csv" 2>>"$results/nsys-stats.err"
  "$nsys" --version >"$results/nsys-version.txt" 2>&1
  rm -rf "$tmp"
else
  echo "nsys not found" >"$results/nsys-version.txt"
fi
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
[ -x "$ncu" ] && (cd "$(dirname "$exe")" && "$ncu" --nvtx --metrics gpu__time_duration.sum ./nvtx_ranges) >"$results/ncu-nvtx.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$results/ENV" 2>&1
diff "$repo/tests/programs/expected/nvtx_ranges.out" "$results/nvtx_ranges.out" && echo "stdout: as expected"
echo "status: $(cat "$results/nvtx_ranges.status")"
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/nvtx" && cp "$results"/* "$OUT/nvtx/"; fi
