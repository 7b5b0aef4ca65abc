#!/usr/bin/env bash
# Regenerates the ABI layout fixtures in tests/abi/fixtures/ (see its README.md):
# random struct/union types (fixed seed), the PTX nvcc emits for kernels that take
# them by value, and the parameter alignment/size nvcc chose next to the host
# compiler's sizeof/alignof.
#
#   scripts/gen-abi-fixtures.sh
#   NVCC=/path/to/nvcc CXX=g++ CC=gcc scripts/gen-abi-fixtures.sh
#
# The generator is scripts/gen-abi-fixtures.py (python3, standard library only).
# Reruns with the same nvcc give byte-identical files. Without nvcc the script
# leaves the committed fixtures as they are and exits 0.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then
    nvcc="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "gen-abi-fixtures: nvcc not found (set NVCC=...); leaving the committed fixtures as they are"
  exit 0
fi
ptxas="${PTXAS:-$(dirname "$nvcc")/ptxas}"
cxx="${CXX:-g++}"
cc="${CC:-gcc}"
python="${PYTHON:-python3}"

out="$repo/tests/abi/fixtures"
# A fixed staging directory, so that nothing in the outputs depends on where the
# repository is checked out.
stage=/tmp/ptxray-abi-fixtures
rm -rf "$stage"
mkdir -p "$stage" "$out"

"$python" "$repo/scripts/gen-abi-fixtures.py" gen "$out" "$stage"

# 1. The PTX, compiled from a copy in the staging directory.
cp "$out/abi_structs.h" "$out/abi_structs.cu" "$out/cuda_vector_shim.h" "$stage/"
(cd "$stage" && "$nvcc" -ptx -arch=compute_90 -std=c++17 -Wno-deprecated-gpu-targets -diag-suppress 108,1160 \
  abi_structs.cu -o abi_structs_compute_90.ptx)
cp "$stage/abi_structs_compute_90.ptx" "$out/abi_structs_compute_90.ptx"

# 2. The PTX must assemble.
if [ -x "$ptxas" ]; then
  "$ptxas" -arch=sm_90 "$out/abi_structs_compute_90.ptx" -o /dev/null
  echo "gen-abi-fixtures: ptxas -arch=sm_90 accepts abi_structs_compute_90.ptx"
else
  echo "gen-abi-fixtures: warning: no ptxas at $ptxas; PTX not assembled"
fi

# 3. The header must be plain C11 (what a C parser of these features reads).
"$cc" -std=c11 -fsyntax-only -Wall -Wno-unused "$stage/c_check.c"

# 4. Host layout: sizeof/alignof/offsetof and bit-field positions from the host compiler.
"$cxx" -std=c++17 -w -I"$stage" "$stage/host_layout.cpp" -o "$stage/host_layout"
"$stage/host_layout" >"$stage/host_layout.txt"

# 5. The expected values, and the list of nvcc-vs-host differences.
version="$("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*' || true)"
"$python" "$repo/scripts/gen-abi-fixtures.py" extract "$out" "$stage" \
  "$out/abi_structs_compute_90.ptx" "$stage/host_layout.txt" "nvcc ${version:-unknown}"

# 6. nvcc's device pass must lay out the members as the host does (static_asserts).
if (cd "$stage" && "$nvcc" -ptx -arch=compute_90 -std=c++17 -Wno-deprecated-gpu-targets -diag-suppress 108,1160 \
  device_check.cu -o device_check.ptx); then
  echo "gen-abi-fixtures: nvcc device-side sizeof/alignof/offsetof == host for every member"
else
  echo "gen-abi-fixtures: warning: nvcc device-side layout differs from the host (see above)"
fi

echo "gen-abi-fixtures: wrote $(cd "$out" && echo abi_structs.h cuda_vector_shim.h abi_structs.cu abi_structs_compute_90.ptx expected_params.txt expected_layout.txt) in tests/abi/fixtures/"
