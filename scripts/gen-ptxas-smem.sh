#!/usr/bin/env bash
# Records what ptxas says about every kernel of the nvcc corpus (tests/corpus/nvcc) and of the
# shared-memory layout fixtures (tests/corpus/handwritten/shared_*.ptx): the static shared memory
# (`ptxas -v`: "N bytes smem") per entry function, in tests/corpus/nvcc/ptxas-smem.txt. The VM's
# per-kernel shared-memory layout must give the same figure (tests/unit/SharedLayoutTest.cpp).
#
#   scripts/gen-ptxas-smem.sh
#   PTXAS=/path/to/ptxas scripts/gen-ptxas-smem.sh
#
# Without ptxas the committed file is left as it is.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ptxas="${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
if [ ! -x "$ptxas" ]; then
  echo "gen-ptxas-smem: ptxas not found (set PTXAS=...); leaving the committed file as it is"
  exit 0
fi
out="$repo/tests/corpus/nvcc/ptxas-smem.txt"
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
{
  echo "# file kernel smem_bytes -- from $("$ptxas" --version | tail -n 1)"
  cd "$repo/tests/corpus"
  for f in nvcc/compute_*/*.ptx nvcc/debug/compute_*/*.ptx handwritten/shared_*.ptx; do
    [ -e "$f" ] || continue
    sm="sm_$(sed -nE 's/^\.target[[:space:]]+sm_([0-9]+).*/\1/p' "$f" | head -n 1)"
    opt=()
    # Relocatable modules (extern functions) are compiled as ptxas -c would.
    grep -q '^\.extern \.func' "$f" && opt=(-c)
    if ! log="$("$ptxas" -v "${opt[@]}" -arch="$sm" "$f" -o /dev/null 2>&1)"; then
      echo "gen-ptxas-smem: ptxas rejected $f" >&2
      continue
    fi
    awk -v file="$f" '
      /Compiling entry function/ { match($0, /'"'"'[^'"'"']+'"'"'/); kernel = substr($0, RSTART + 1, RLENGTH - 2); next }
      /Used [0-9]+ registers/ && kernel != "" {
        smem = 0
        if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH) + 0
        print file, kernel, smem
        kernel = ""
      }' <<<"$log"
  done
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "gen-ptxas-smem: $(grep -vc '^#' "$out") kernels in tests/corpus/nvcc/ptxas-smem.txt"
