#!/usr/bin/env bash
# Runs every prebuilt binary of tests/programs/bin/ (built by tests/programs/build.sh; this script
# builds nothing) on this machine's GPU with NVIDIA's real CUDA runtime, and compares each one's
# stdout and exit status with tests/programs/expected/NAME.out and NAME.status (and its stderr with
# NAME.err where that exists: the device assert message).
# Writes validation/programs/results/ (or $RESULTS):
#   NAME.out     stdout            NAME.status  exit status      NAME.err  stderr
#   NAME.diff    for a failing program: unified diffs of expected and actual stdout (and stderr)
#   ENV          GPU, driver, the libcudart.so.13 the binaries resolved to
#   summary.txt  the table printed at the end
# With $OUT set (the device tool), also $OUT/summary.txt and $OUT/programs-results.tar.gz.
# The real runtime: $CUDART_DIR, else /usr/local/cuda/lib64, is put first on LD_LIBRARY_PATH.
# Exit status: 0 if every program with expected files matches, 1 otherwise.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="$repo/tests/programs/bin"
expected="$repo/tests/programs/expected"
results="${RESULTS:-$here/results}"
cudart_dir="${CUDART_DIR:-/usr/local/cuda/lib64}"
export LD_LIBRARY_PATH="$cudart_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

ls "$bin"/* >/dev/null 2>&1 || { echo "run.sh: no binaries in $bin (run tests/programs/build.sh first)" >&2; exit 2; }
mkdir -p "$results"
rm -f "$results"/*.out "$results"/*.status "$results"/*.err "$results"/*.diff
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 || echo "nvidia-smi failed"
  echo "libcudart: $(ldd "$bin/vector_add" 2>/dev/null | awk '/libcudart/ {print $3}')"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  date -u +%Y-%m-%dT%H:%M:%SZ
} >"$results/ENV"

pass=0 fail=0 recorded=0
table="$(printf '%-20s %-5s %-9s %-8s %-8s %s\n' program exit expected stdout stderr result)"
for exe in "$bin"/* "$bin"/static/*; do
  [ -x "$exe" ] && [ -f "$exe" ] || continue
  # bin/static/NAME (the static-runtime build) is recorded as static-NAME, checked against NAME.
  name="$(basename "$exe")"
  expect="$name"
  case "$exe" in */static/*) name="static-$name" ;; esac
  (cd "$results" && timeout 120 "$exe" >"$results/$name.out" 2>"$results/$name.err")
  rc=$?
  echo "$rc" >"$results/$name.status"
  if [ ! -f "$expected/$expect.out" ] || [ ! -f "$expected/$expect.status" ]; then
    row="$(printf '%-20s %-5s %-9s %-8s %-8s %s' "$name" "$rc" - - - "recorded (no expected files)")"
    recorded=$((recorded + 1))
  else
    want="$(tr -d '[:space:]' <"$expected/$expect.status")"
    if diff -q "$expected/$expect.out" "$results/$name.out" >/dev/null; then same=same; else same=DIFFERS; fi
    err_same=-
    if [ -f "$expected/$expect.err" ]; then
      if diff -q "$expected/$expect.err" "$results/$name.err" >/dev/null; then err_same=same; else err_same=DIFFERS; fi
    fi
    if [ "$rc" = "$want" ] && [ "$same" = same ] && [ "$err_same" != DIFFERS ]; then
      verdict=PASS; pass=$((pass + 1))
    else
      verdict=FAIL; fail=$((fail + 1))
    fi
    row="$(printf '%-20s %-5s %-9s %-8s %-8s %s' "$name" "$rc" "$want" "$same" "$err_same" "$verdict")"
  fi
  table+=$'\n'"$row"
  if [ "${verdict:-}" = FAIL ]; then
    diff -u --label "expected/$expect.out" --label "results/$name.out" "$expected/$expect.out" "$results/$name.out" \
      >"$results/$name.diff"
    if [ -f "$expected/$expect.err" ]; then
      diff -u --label "expected/$expect.err" --label "results/$name.err" "$expected/$expect.err" "$results/$name.err" \
        >>"$results/$name.diff"
    fi
  fi
  verdict=""
done
table+=$'\n'"$(printf 'pass=%d fail=%d recorded-only=%d' "$pass" "$fail" "$recorded")"
# The PTX cuobjdump extracts from each program: the oracle for ptxray's fatbinary reader
# (tests/programs/ProgramTests.cmake compares `ptxray fatbin --ptx` with these).
cuobjdump="${CUOBJDUMP:-$(command -v cuobjdump || echo "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump")}"
if [ -x "$cuobjdump" ]; then
  mkdir -p "$results/cuobjdump"
  rm -f "$results"/cuobjdump/*.ptx
  for exe in "$bin"/*; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    "$cuobjdump" -ptx "$exe" >"$results/cuobjdump/$(basename "$exe").ptx" 2>&1 || true
  done
  "$cuobjdump" --version | tail -1 >"$results/cuobjdump/VERSION"
fi
echo "$table" | tee "$results/summary.txt"
for d in "$results"/*.diff; do [ -f "$d" ] && { echo; cat "$d"; }; done
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$results/summary.txt" "$OUT/summary.txt"
  tar czf "$OUT/programs-results.tar.gz" -C "$(dirname "$results")" "$(basename "$results")"
fi
[ "$fail" -eq 0 ]
