#!/usr/bin/env bash
# Regenerates main.ptx and lib.ptx: the two translation units of tests/programs/src/rdc_link as
# `nvcc -rdc=true -ptx` writes them, their .file paths made relative to the repository's root.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
cd "$repo"
for unit in main lib; do
  "$nvcc" -ptx -rdc=true -arch=compute_90 -lineinfo "tests/programs/src/rdc_link/$unit.cu" \
    -o "tests/cli/kernels/link/$unit.ptx"
  sed -i "s|\"$repo/|\"|" "tests/cli/kernels/link/$unit.ptx"
done
