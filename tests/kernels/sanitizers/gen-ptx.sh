#!/usr/bin/env bash
# Regenerates the PTX of the sanitizer test kernels: every tests/kernels/sanitizers/NAME.cu becomes
# ptx/NAME.ptx (nvcc -ptx -lineinfo -arch=compute_90), committed so that ptxray builds and tests
# where nvcc is absent; the nvcc version is recorded in ptx/VERSION.
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
mkdir -p "$stage" "$out"
cp "$here"/*.cu "$stage/"

failed=0
count=0
for src in "$stage"/*.cu; do
  name="$(basename "$src" .cu)"
  args=(-ptx -std=c++17 -lineinfo -arch=compute_90 "$name.cu" -o "$out/$name.ptx")
  if (cd "$stage" && "$nvcc" "${args[@]}"); then
    count=$((count + 1))
  else
    echo "gen-ptx: FAILED: $name.cu" >&2
    failed=1
  fi
done
"$nvcc" --version | tail -n 2 >"$out/VERSION"

ptxas="$(dirname "$nvcc")/ptxas"
if [ -x "$ptxas" ]; then
  for f in "$out"/*.ptx; do
    check=(-arch=sm_90 "$f" -o /dev/null)
    if ! "$ptxas" "${check[@]}"; then
      echo "gen-ptx: ptxas rejected $f" >&2
      failed=1
    fi
  done
fi

rm -rf "$stage"
echo "gen-ptx: wrote $count PTX files with $("$nvcc" --version | tail -n 1)"
exit "$failed"
