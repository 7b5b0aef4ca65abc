#!/usr/bin/env bash
# Regenerates the PTX of the virtual-GPU end-to-end test kernels: every tests/kernels/vm/NAME.cu
# becomes ptx/compute_75/NAME.ptx and ptx/compute_90/NAME.ptx (nvcc -ptx -lineinfo -arch=compute_XX).
#
#   tests/kernels/vm/gen-ptx.sh
#   NVCC=/path/to/nvcc tests/kernels/vm/gen-ptx.sh
#
# A source opts out of targets with a line "// vm-targets: 90" (the targets it is compiled for).
# The sources are compiled from a fixed staging directory (/tmp/ptxray-vm-kernels) so that the paths
# nvcc records in .file directives do not depend on where the repository is checked out. The
# generated PTX is committed: ptxray builds and tests where nvcc is absent. The nvcc version is
# recorded in ptx/VERSION. Exits 0 without touching anything when nvcc is not installed.
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

all_targets=(75 90)
stage=/tmp/ptxray-vm-kernels
out="$here/ptx"

rm -rf "$stage"
mkdir -p "$stage"
cp "$here"/*.cu "$stage/"
rm -rf "$out"
for a in "${all_targets[@]}"; do mkdir -p "$out/compute_$a"; done

failed=0
count=0
for src in "$stage"/*.cu; do
  name="$(basename "$src" .cu)"
  targets=("${all_targets[@]}")
  line="$(grep -m1 -E '^// vm-targets:' "$src" || true)"
  if [ -n "$line" ]; then
    read -r -a targets <<<"${line#// vm-targets:}"
  fi
  for a in "${targets[@]}"; do
    if (cd "$stage" && "$nvcc" -ptx -std=c++17 -Wno-deprecated-gpu-targets -lineinfo -arch="compute_$a" \
      "$name.cu" -o "$out/compute_$a/$name.ptx"); then
      count=$((count + 1))
    else
      echo "gen-ptx: FAILED: $name.cu for compute_$a" >&2
      failed=1
    fi
  done
done

"$nvcc" --version | tail -n 2 >"$out/VERSION"

# Every generated file must assemble.
ptxas="$(dirname "$nvcc")/ptxas"
if [ -x "$ptxas" ]; then
  for f in "$out"/compute_*/*.ptx; do
    sm="sm_$(basename "$(dirname "$f")" | sed 's/compute_//')"
    if ! "$ptxas" -suppress-stack-size-warning -arch="$sm" "$f" -o /dev/null; then
      echo "gen-ptx: ptxas rejected $f" >&2
      failed=1
    fi
  done
fi

rm -rf "$stage"
echo "gen-ptx: wrote $count PTX files ($(du -sh "$out" | cut -f1)) with $("$nvcc" --version | tail -n 1)"
exit "$failed"
