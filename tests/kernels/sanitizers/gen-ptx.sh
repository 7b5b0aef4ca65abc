#!/usr/bin/env bash
# Regenerates the PTX of the sanitizer test kernels: every tests/kernels/sanitizers/NAME.cu becomes
# ptx/NAME.ptx (nvcc -ptx -lineinfo -arch=compute_90) and ptx/compute_75/NAME.ptx (the same for
# compute_75, a pre-Hopper target), committed so that ptxray builds and tests where nvcc is absent;
# the nvcc version is recorded in ptx/VERSION. Where clang (14, with the NVPTX target) is installed,
# they also become ptx/clang_sm35/NAME.ptx (clang -O2 -gline-tables-only for sm_35, PTX 6.0, with
# clang_cuda_prelude.h standing in for the CUDA headers); its version goes to ptx/clang_sm35/VERSION.
#
#   tests/kernels/sanitizers/gen-ptx.sh
#   NVCC=/path/to/nvcc tests/kernels/sanitizers/gen-ptx.sh
#
# Sources are compiled from a fixed staging directory (/tmp/ptxray-sanitizer-kernels) so that the
# file names in .file directives do not depend on where the repository is checked out. Every tool
# runs with an explicit argument vector. Exits 0 without touching anything when nvcc is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then
    nvcc="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "gen-ptx: nvcc not found (set NVCC=...); leaving the committed PTX as it is"
  exit 0
fi

stage=/tmp/ptxray-sanitizer-kernels
out="$here/ptx"
rm -rf "$stage"
mkdir -p "$stage" "$out" "$out/compute_75"
cp "$here"/*.cu "$here/clang_cuda_prelude.h" "$stage/"

failed=0
count=0
for src in "$stage"/*.cu; do
  name="$(basename "$src" .cu)"
  for arch in compute_90 compute_75; do
    target="$out/$name.ptx"
    [ "$arch" = compute_90 ] || target="$out/$arch/$name.ptx"
    args=(-ptx -std=c++17 -lineinfo "-arch=$arch" "$name.cu" -o "$target")
    if (cd "$stage" && "$nvcc" "${args[@]}"); then
      count=$((count + 1))
    else
      echo "gen-ptx: FAILED: $name.cu ($arch)" >&2
      failed=1
    fi
  done
done
"$nvcc" --version | tail -n 2 >"$out/VERSION"

ptxas="$(dirname "$nvcc")/ptxas"
if [ -x "$ptxas" ]; then
  for f in "$out"/*.ptx "$out"/compute_75/*.ptx; do
    sm=sm_90
    [[ "$f" == */compute_75/* ]] && sm=sm_75
    check=("-arch=$sm" "$f" -o /dev/null)
    if ! "$ptxas" "${check[@]}"; then
      echo "gen-ptx: ptxas rejected $f" >&2
      failed=1
    fi
  done
fi

clang="${CLANG:-}"
if [ -z "$clang" ]; then
  for candidate in clang-14 clang; do
    if command -v "$candidate" >/dev/null 2>&1; then
      clang="$(command -v "$candidate")"
      break
    fi
  done
fi
if [ -n "$clang" ] && "$clang" -print-targets 2>/dev/null | grep -q nvptx64; then
  mkdir -p "$out/clang_sm35"
  for src in "$stage"/*.cu; do
    name="$(basename "$src" .cu)"
    args=(-x cuda -nocudainc -nocudalib --cuda-device-only -Wno-unknown-cuda-version -S -O2 -gline-tables-only
      --cuda-gpu-arch=sm_35 -Xclang -target-feature -Xclang +ptx60 -include clang_cuda_prelude.h
      "$name.cu" -o "$out/clang_sm35/$name.ptx")
    if (cd "$stage" && "$clang" "${args[@]}"); then
      count=$((count + 1))
    else
      echo "gen-ptx: FAILED: $name.cu (clang, sm_35)" >&2
      failed=1
    fi
  done
  "$clang" --version | head -n 1 >"$out/clang_sm35/VERSION"
else
  echo "gen-ptx: clang with the NVPTX target not found (set CLANG=...); leaving ptx/clang_sm35 as it is"
fi

rm -rf "$stage"
echo "gen-ptx: wrote $count PTX files with $("$nvcc" --version | tail -n 1)"
exit "$failed"
