#!/usr/bin/env bash
# Regenerates the old-target PTX fixtures in tests/corpus/clang/ from
# tests/kernels/legacy/ with clang 14 / llc 14 (sm_30 / sm_35, PTX 3.2 - 6.0).
#
#   scripts/gen-legacy-corpus.sh
#   CLANG=clang-14 LLC=llc-14 scripts/gen-legacy-corpus.sh
#
# No CUDA installation is needed: the .cu files use clang's __nvvm_* builtins
# (-nocudainc -nocudalib), the .cl files are OpenCL C, and the .ll files are
# LLVM IR for intrinsics clang 14 has no front-end builtin for (textures).
# The PTX version is chosen with the NVPTX "+ptxNN" target feature. Sources
# are compiled from a fixed staging directory so the paths recorded in .file
# directives do not depend on the checkout location. See tests/corpus/README.md
# for what each output covers.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

find_tool() {  # find_tool VAR_VALUE NAME...
  local given="$1"
  shift
  if [ -n "$given" ]; then
    command -v "$given" || true
    return
  fi
  for n in "$@"; do
    if command -v "$n" >/dev/null 2>&1; then
      command -v "$n"
      return
    fi
  done
}

clang="$(find_tool "${CLANG:-}" clang-14 clang)"
llc="$(find_tool "${LLC:-}" llc-14 llc)"
if [ -z "$clang" ]; then
  echo "gen-legacy-corpus: clang not found (set CLANG=...); leaving tests/corpus/clang as it is"
  exit 0
fi
major="$("$clang" --version | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1)"
if [ "$major" != 14 ]; then
  echo "gen-legacy-corpus: warning: $clang is clang $major, the fixtures were made with clang 14" >&2
fi

src="$repo/tests/kernels/legacy"
out="$repo/tests/corpus/clang"
stage=/tmp/ptxray-corpus/legacy
rm -rf "$stage"
mkdir -p "$stage" "$out"
cp "$src"/* "$stage/"
rm -f "$out"/*.ptx

failed=0
count=0
run() {  # run OUTPUT_NAME COMMAND...
  local name="$1"
  shift
  if (cd "$stage" && "$@" -o "$out/$name.ptx"); then
    count=$((count + 1))
  else
    echo "gen-legacy-corpus: FAILED: $*" >&2
    failed=1
  fi
}

cuda=("$clang" -x cuda -nocudainc -nocudalib --cuda-device-only -Wno-unknown-cuda-version -S)
ptx() { echo -Xclang -target-feature -Xclang "+ptx$1"; }
ocl=("$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -O2 -S)

# CUDA through NVVM builtins.
# shellcheck disable=SC2046
run warp_sm35_ptx60 "${cuda[@]}" -O2 --cuda-gpu-arch=sm_35 $(ptx 60) warp_sm35.cu
run math_sm30_ptx32 "${cuda[@]}" -O2 --cuda-gpu-arch=sm_30 math_sm30.cu
# shellcheck disable=SC2046
run math_sm35_ptx42 "${cuda[@]}" -O2 --cuda-gpu-arch=sm_35 $(ptx 42) math_sm30.cu
# shellcheck disable=SC2046
run math_sm35_ptx43_lineinfo "${cuda[@]}" -O2 -gline-tables-only --cuda-gpu-arch=sm_35 $(ptx 43) math_sm30.cu
# shellcheck disable=SC2046
run math_sm35_ptx50_debug "${cuda[@]}" -O0 -g --cuda-gpu-arch=sm_35 $(ptx 50) math_sm30.cu
# shellcheck disable=SC2046
run extern_calls_sm30_ptx40 "${cuda[@]}" -O2 --cuda-gpu-arch=sm_30 $(ptx 40) extern_calls.cu

# OpenCL C: the two NVIDIA OpenCL driver interfaces and the CUDA one, 32/64-bit.
run opencl_nvcl32_sm30 "${ocl[@]}" -target nvptx-nvidia-nvcl -march=sm_30 opencl_kernels.cl
run opencl_nvcl64_sm35 "${ocl[@]}" -target nvptx64-nvidia-nvcl -march=sm_35 opencl_kernels.cl
run opencl_cuda32_sm30 "${ocl[@]}" -target nvptx-nvidia-cuda -march=sm_30 opencl_kernels.cl

# LLVM IR with texture / surface intrinsics.
if [ -n "$llc" ]; then
  run texrefs_sm35_ptx50 "$llc" -march=nvptx64 -mcpu=sm_35 -mattr=+ptx50 texrefs_sm35.ll
  run images_nvcl32_sm30 "$llc" -march=nvptx -mcpu=sm_30 images_nvcl.ll
else
  echo "gen-legacy-corpus: llc not found (set LLC=...); skipping the .ll inputs" >&2
fi

"$clang" --version | head -n 1 >"$out/VERSION"
rm -rf "$stage"
echo "gen-legacy-corpus: wrote $count PTX files to tests/corpus/clang with $(head -n 1 "$out/VERSION")"
exit "$failed"
