#!/usr/bin/env bash
# Regenerates validation/model/ptx/NAME.ptx from validation/model/kernels/NAME.cu
# (nvcc -ptx -lineinfo -arch=compute_90), compiled from a fixed staging directory so that the .file
# paths in the PTX do not depend on the checkout. The PTX is committed: ptxray needs no nvcc.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
stage=/tmp/ptxray-model-kernels
rm -rf "$stage" && mkdir -p "$stage" "$here/ptx"
cp "$here"/kernels/*.cu "$stage/"
for src in "$stage"/*.cu; do
  name="$(basename "$src" .cu)"
  (cd "$stage" && "$nvcc" -ptx -std=c++17 -lineinfo -arch=compute_90 "$name.cu" -o "$here/ptx/$name.ptx")
  "$(dirname "$nvcc")/ptxas" -arch=sm_90 "$here/ptx/$name.ptx" -o /dev/null
done
"$nvcc" --version | tail -n 2 >"$here/ptx/VERSION"
rm -rf "$stage"
echo "gen-ptx: wrote $(ls "$here"/ptx/*.ptx | wc -l) PTX files"
