#!/usr/bin/env bash
# Runs every spec of tests/kernels/vm/specs in ptxray (`ptxray run`) and compares each output file
# byte for byte, and the device printf lines as a set, with what an NVIDIA H200 produced for the same
# spec (validation/vm/results/h200-gpu.tar.gz, recorded by run.sh). Exit status 0 when every run
# matches; the ctest `vm.matches_h200_outputs` runs it.
#
#   validation/vm/compare-vm.sh PTXRAY_BINARY
set -euo pipefail
ptxray="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar xzf "$here/results/h200-gpu.tar.gz" -C "$work"

pass=0
fail=0
for spec in "$repo"/tests/kernels/vm/specs/*.json; do
  name="$(basename "$spec" .json)"
  gpu="$work/gpu/$name"
  run="$work/vm/$name"
  mkdir -p "$run/out"
  # The spec with its module path made absolute and its outputs sent to this run's folder.
  python3 - "$spec" "$run" >"$run/spec.json" <<'PY'
import json, os, sys
spec_path, run = sys.argv[1], sys.argv[2]
spec = json.load(open(spec_path))
spec["module"] = os.path.normpath(os.path.join(os.path.dirname(spec_path), spec["module"]))
for o in spec.get("outputs", []):
    o["file"] = os.path.join(run, "out", os.path.basename(o["file"]))
print(json.dumps(spec))
PY
  set +e
  "$ptxray" run "$run/spec.json" --threads 2 >"$run/stdout.txt" 2>"$run/stderr.txt"
  rc=$?
  set -e
  gpu_rc="$(cat "$gpu/rc")"
  problems=""
  if [ "$gpu_rc" = 0 ] && [ "$rc" != 0 ]; then problems+=" exit status $rc (GPU: 0);"; fi
  if [ "$gpu_rc" != 0 ] && [ "$rc" = 0 ]; then problems+=" succeeded where the GPU failed;"; fi
  if [ "$gpu_rc" = 0 ]; then
    for f in "$gpu"/out/*.bin; do
      [ -e "$f" ] || continue
      if ! cmp -s "$f" "$run/out/$(basename "$f")"; then problems+=" $(basename "$f") differs;"; fi
    done
    if ! diff -q <(sort "$gpu/stdout.txt") <(sort "$run/stdout.txt") >/dev/null; then
      problems+=" printf output differs;"
    fi
  fi
  if [ -z "$problems" ]; then
    echo "PASS $name"
    pass=$((pass + 1))
  else
    echo "FAIL $name:$problems"
    sed 's/^/    /' "$run/stderr.txt" | head -20
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
