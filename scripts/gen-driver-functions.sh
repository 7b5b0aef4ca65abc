#!/usr/bin/env bash
# Lists every driver API function CUDA's headers declare (cuda.h, cudaProfiler.h) into
# src/libcuda/driver_functions.txt: the names NVIDIA's runtime may ask cuGetProcAddress for. ptxray's
# libcuda.so.1 answers a name of the list it does not implement with a stub that says so once and
# returns CUDA_ERROR_NOT_SUPPORTED (src/libcuda/CMakeLists.txt generates them). Needs the CUDA
# toolkit's headers: $CUDA_HOME or /usr/local/cuda.
set -euo pipefail
cd "$(dirname "$0")/.."
include="${CUDA_HOME:-/usr/local/cuda}/include"
out=src/libcuda/driver_functions.txt
{
  sed -n '/^#/p' "$out"
  cat "$include/cuda.h" "$include/cudaProfiler.h" |
    grep -oE 'CUresult[[:space:]]+CUDAAPI[[:space:]]+cu[A-Za-z0-9_]+[[:space:]]*\(' |
    sed -E 's/.*(cu[A-Za-z0-9_]+).*/\1/' | sort -u
} >"$out.new"
mv "$out.new" "$out"
echo "$(grep -vc '^#' "$out") functions in $out"
