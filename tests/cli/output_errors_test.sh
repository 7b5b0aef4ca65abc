#!/usr/bin/env bash
# Outputs are checked before the work starts, and written whole or reported: an output that cannot be
# written (a missing folder, a folder given as the file, a full disk: /dev/full) is an error that names
# the option and the file, with exit status 1, for every command; a command whose result is what it
# prints fails the same way when standard output is full.
#   output_errors_test.sh PTXRAY SOURCE_DIR
set -uo pipefail
ptxray="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0

# expect STATUS STDERR -- ARGS...: exactly this standard error and status.
expect() {
  local status="$1" message="$2"
  shift 3
  local err got
  timeout 120 "$ptxray" "$@" >/dev/null 2>"$work/stderr"
  got=$?
  err="$(cat "$work/stderr")"
  if [ "$got" != "$status" ] || [ "$err" != "$message" ]; then
    echo "FAIL: ptxray $*"
    echo "  expected status $status, stderr: $message"
    echo "  got      status $got, stderr: $err"
    failed=1
  fi
}

cp "$src/examples/saxpy.ptx" k.ptx
launch=(k.ptx --kernel saxpy --grid 4 --block 256 --buffer x=4K:iota:f32 --buffer y=4K --arg s32:1024 --arg f32:2
  --arg buf:x --arg buf:y)
mkdir folder
nodir="ptxray: error: OPT: cannot write 'gone/out': no such file or directory (nothing was run)"
isdir="ptxray: error: OPT: cannot write 'folder': is a directory (nothing was run)"

# Checked before anything runs: nothing is written, the marker output never appears.
for opt in --metrics-json --sanitizer-json; do
  expect 1 "${nodir/OPT/$opt}" -- run "${launch[@]}" --tool memcheck $opt gone/out --output y=ran.bin
  expect 1 "${isdir/OPT/$opt}" -- run "${launch[@]}" --tool memcheck $opt folder --output y=ran.bin
done
for opt in --json --html; do
  expect 1 "${nodir/OPT/$opt}" -- analyze "${launch[@]}" $opt gone/out --output y=ran.bin
  expect 1 "${isdir/OPT/$opt}" -- analyze k.ptx $opt folder
  expect 1 "${nodir/OPT/$opt}" -- compare "${launch[@]}" --arch sm_90,sm_80 $opt gone/out
done
expect 1 "ptxray: error: --output 'y=folder': cannot write 'folder': is a directory (nothing was run)" -- \
  run "${launch[@]}" --output y=folder --metrics-json ran.json
[ -e ran.bin ] || [ -e ran.json ] && { echo "FAIL: a run whose output was unwritable ran"; failed=1; }
# A spec's outputs make their folders; a folder in the way is still an error, named by its JSON path.
printf '{"module": "k.ptx", "buffers": [{"name": "b", "bytes": 8}], "launches": [],
  "outputs": [{"buffer": "b", "file": "new/dir/b.bin"}, {"buffer": "b", "file": "folder"}]}' >spec.json
expect 1 "ptxray: error: spec.json: outputs[1]: cannot write 'folder': is a directory (nothing was run)" -- \
  run spec.json
[ -e new ] && { echo "FAIL: a spec with an unwritable output wrote another"; failed=1; }
printf '{"module": "k.ptx", "buffers": [{"name": "b", "bytes": 8}], "launches": [],
  "outputs": [{"buffer": "b", "file": "new/dir/b.bin"}]}' >spec-ok.json
expect 0 "" -- run spec-ok.json
[ "$(stat -c %s new/dir/b.bin 2>/dev/null)" = 8 ] || { echo "FAIL: the spec's output folder was not made"; failed=1; }

# A full disk: the write fails, and says so.
full="ptxray: error: cannot write '/dev/full': no space left on device"
expect 1 "$full" -- occupancy --arch sm_90 --threads 128 --regs 32 --chart /dev/full
expect 1 "$full" -- run "${launch[@]}" --metrics-json /dev/full
expect 1 "$full" -- run "${launch[@]}" --output y=/dev/full
expect 1 "$full" -- analyze k.ptx --json /dev/full
for command in "archs" "arch sm_90" "parse k.ptx" "parse k.ptx --json" "fmt k.ptx" "abi param int" \
  "occupancy --arch sm_90 --threads 128 --regs 32 --json"; do
  # shellcheck disable=SC2086
  timeout 60 "$ptxray" $command >/dev/full 2>"$work/stderr"
  got=$?
  if [ $got != 1 ] || ! grep -q "^ptxray: error: cannot write standard output: " "$work/stderr"; then
    echo "FAIL: ptxray $command >/dev/full: status $got, stderr: $(cat "$work/stderr")"
    failed=1
  fi
done

exit $failed
