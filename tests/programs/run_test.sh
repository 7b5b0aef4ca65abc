#!/usr/bin/env bash
# One CUDA program of tests/programs run as a user runs it on ptxray:
#   run_test.sh PTXRAY NAME [EXEC OPTIONS...]
# runs `PTXRAY exec [OPTIONS] -- bin/NAME` from tests/programs and checks what a GPU gives
# (NAME may be static/PROGRAM: the program built with nvcc's default static runtime, same expectations)
# (expected/, measured on an H100 by validation/programs/): the same stdout, the same exit status,
# and the lines of expected/NAME.err (device assert messages) among the stderr lines (ptxray adds its
# own report of a fault there).
set -uo pipefail
ptxray="$1"; name="$2"; shift 2
expect="$(basename "$name")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
out="$(mktemp)"; err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
"$ptxray" exec "$@" -- "bin/$name" >"$out" 2>"$err"
status=$?
fail=0
want_status="$(cat "expected/$expect.status")"
if [ "$status" != "$want_status" ]; then
  echo "FAIL: exit status $status, a GPU exits with $want_status"; fail=1
fi
if ! diff -u "expected/$expect.out" "$out"; then
  echo "FAIL: stdout differs from a GPU's (above: - GPU, + ptxray)"; fail=1
fi
if [ -f "expected/$expect.err" ]; then
  while IFS= read -r line; do
    grep -qxF -- "$line" "$err" || { echo "FAIL: stderr lacks the GPU's line: $line"; fail=1; }
  done <"expected/$expect.err"
fi
if [ $fail -ne 0 ]; then
  echo "--- stderr:"; cat "$err"; exit 1
fi
echo "PASS: $name (exit $status, stdout as on a GPU)"
