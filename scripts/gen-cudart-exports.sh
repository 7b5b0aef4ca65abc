#!/usr/bin/env bash
# Lists the functions NVIDIA's libcudart.so.13 exports into src/libcudart/cudart_exports.txt (the names
# ptxray's runtime library must define). Needs the CUDA toolkit: $CUDA_HOME or /usr/local/cuda.
set -euo pipefail
cd "$(dirname "$0")/.."
lib="${CUDA_HOME:-/usr/local/cuda}/lib64/libcudart.so.13"
out=src/libcudart/cudart_exports.txt
{
  sed -n '/^#/p' "$out"
  nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u
} >"$out.new"
mv "$out.new" "$out"
echo "$(grep -vc '^#' "$out") functions in $out"
