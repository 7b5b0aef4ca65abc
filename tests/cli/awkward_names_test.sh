#!/usr/bin/env bash
# External tools run without a shell: PTX and CUDA files whose names hold spaces, quotes, '$(...)' or
# a leading '-' load, compile (nvcc, when installed) and get ptxas's figures (when installed), and no
# name is ever run as a command. A .cu module's PTX is named NAME.cu.ptx in reports.
#   awkward_names_test.sh PTXRAY SOURCE_DIR
set -uo pipefail
ptxray="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

names=("sp ace" "quo'te" "dq\"uote" 'dol$(touch INJECTED)lar' '-lead' 'semi;touch INJECTED2' 'back`touch INJECTED3`tick')
for n in "${names[@]}"; do
  cp -- "$src/examples/saxpy.ptx" "$n.ptx"
  out="$("$ptxray" occupancy --arch sm_90 --kernel="$n.ptx" --entry block_sum --threads 128 2>&1)" ||
    fail "occupancy on '$n.ptx': $out"
  grep -q "kernel block_sum" <<<"$out" || fail "occupancy on '$n.ptx' printed: $out"
  out="$("$ptxray" parse -- "$n.ptx" 2>&1)" || fail "parse '$n.ptx': $out"
done

nvcc_found=0
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc_found=1
  for n in "${names[@]}"; do
    cp -- "$src/tests/cli/oob.cu" "$n.cu"
    # The spec names the module; JSON escapes the quote characters.
    module="$(printf '%s' "$n.cu" | sed 's/\\/\\\\/g; s/"/\\"/g')"
    cat >"spec.json" <<JSON
{"module": "$module", "buffers": [{"name": "out", "bytes": 64}],
 "launches": [{"kernel": "write_all", "grid": [1], "block": [32], "args": [{"buffer": "out"}]}]}
JSON
    out="$("$ptxray" run spec.json 2>&1)"
    status=$?
    [ $status = 1 ] || fail "run '$n.cu': exit $status, expected 1 (the kernel writes out of bounds): $out"
    # The PTX position names the generated PTX, the CUDA position the source.
    grep -qF "$n.cu.ptx:" <<<"$out" || fail "run '$n.cu': no PTX position under '$n.cu.ptx': $out"
    grep -qF "$n.cu:6" <<<"$out" || fail "run '$n.cu': no CUDA line '$n.cu:6': $out"
  done
  # --keep-ptx writes the PTX the reports point into.
  mkdir keep
  cp "$src/tests/cli/oob.cu" "oob.cu"
  printf '{"module": "oob.cu", "buffers": [{"name": "out", "bytes": 64}], "launches": [{"kernel": "write_all", "grid": [1], "block": [32], "args": [{"buffer": "out"}]}]}' >oob.json
  "$ptxray" run oob.json --keep-ptx keep >/dev/null 2>&1
  grep -q "write_all" keep/oob.cu.ptx 2>/dev/null || fail "--keep-ptx did not write keep/oob.cu.ptx"
  # nvcc's diagnostics are reported when it fails.
  printf '__global__ void broken() { undeclared_name = 1; }\n' >"bro ken.cu"
  printf '{"module": "bro ken.cu", "buffers": [], "launches": [{"kernel": "broken", "grid": [1], "block": [1], "args": []}]}' >broken.json
  out="$("$ptxray" run broken.json 2>&1)"
  status=$?
  [ $status != 0 ] || fail "a .cu that does not compile ran"
  grep -q 'nvcc failed on .*bro ken.cu' <<<"$out" || fail "no 'nvcc failed' message: $out"
  grep -q 'undeclared_name' <<<"$out" || fail "nvcc's diagnostic is not shown: $out"
fi

for f in INJECTED INJECTED2 INJECTED3; do
  [ ! -e "$f" ] || fail "a file name was run as a command ($f exists)"
done
if [ $failed = 0 ]; then
  echo "awkward names: ${#names[@]} names passed (nvcc: $([ $nvcc_found = 1 ] && echo yes || echo absent))"
fi
exit $failed
