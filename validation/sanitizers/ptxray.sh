#!/usr/bin/env bash
# The ptxray side of validation/sanitizers: runs every planted-bug spec of
# tests/kernels/sanitizers/specs through `ptxray run --tool TOOL` (memcheck, racecheck, synccheck,
# initcheck, leakcheck) on sm_90, the architecture of the GPU run.sh used, and writes
#   $OUT/ptxray/NAME.TOOL.txt   (default OUT: validation/sanitizers/results)
#   ptxray.sh PTXRAY_BINARY
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
ptxray="${1:?usage: ptxray.sh PTXRAY_BINARY}"
out="${OUT:-$here/results}"
mkdir -p "$out/ptxray"
for spec in "$repo"/tests/kernels/sanitizers/specs/*.json; do
  name="$(basename "$spec" .json)"
  for tool in memcheck racecheck synccheck initcheck leakcheck; do
    "$ptxray" run "$spec" --arch sm_90 --tool "$tool" >"$out/ptxray/$name.$tool.txt" 2>&1
    echo "exit=$?" >>"$out/ptxray/$name.$tool.txt"
  done
done
echo "ptxray.sh: $(ls "$out/ptxray" | wc -l) runs in $out/ptxray"
