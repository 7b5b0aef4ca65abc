#!/usr/bin/env bash
# Every command meets a missing, unreadable or wrong-kind input the same way: one message,
# "ptxray: error: cannot read 'PATH': REASON", exit status 1, nothing on standard output, and never a
# crash or an endless read. `exec` and `timeline --` say "cannot run" with a shell's 127 and 126.
#   input_errors_test.sh PTXRAY SOURCE_DIR
set -uo pipefail
ptxray="$1"
src="$2"
work="$(mktemp -d)"
trap 'chmod -R u+rwx "$work"; rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0

# expect STATUS STDERR -- ARGS...: exactly this standard error and status, and no standard output.
expect() {
  local status="$1" message="$2"
  shift 3
  local out err got
  out="$(timeout 60 "$ptxray" "$@" 2>"$work/stderr")"
  got=$?
  err="$(cat "$work/stderr")"
  if [ "$got" != "$status" ] || [ "$err" != "$message" ] || [ -n "$out" ]; then
    echo "FAIL: ptxray $*"
    echo "  expected status $status, stderr: $message"
    echo "  got      status $got, stderr: $err"
    [ -n "$out" ] && echo "  stdout: $out"
    failed=1
  fi
}

missing() { echo "ptxray: error: cannot read '$1': no such file or directory"; }
folder() { echo "ptxray: error: cannot read '$1': is a directory"; }

mkdir folder
printf '\x7fELF\x02\x01\x01' >program.ptx
cp "$src/examples/saxpy.ptx" unreadable.ptx
chmod 000 unreadable.ptx
elf_note="ptxray: note: to run a CUDA or OpenCL program: ptxray exec -- program.ptx; to see the PTX it embeds: ptxray fatbin program.ptx --ptx"

for f in nosuch.ptx nosuch.cu nosuch.cl; do
  expect 1 "$(missing $f)" -- parse $f
  expect 1 "$(missing $f)" -- fmt $f
  expect 1 "$(missing $f)" -- analyze $f
  expect 1 "$(missing $f)" -- run $f --grid 1 --block 1
  expect 1 "$(missing $f)" -- compare $f --arch sm_90,sm_80 --grid 1 --block 1
  expect 1 "$(missing $f)" -- occupancy --arch sm_90 --kernel $f
done
for command in parse fmt analyze "abi check" "abi layout" fatbin; do
  # shellcheck disable=SC2086
  expect 1 "$(folder folder)" -- $command folder
done
expect 1 "$(folder folder)" -- run folder --grid 1 --block 1
expect 1 "$(folder folder)" -- occupancy --arch sm_90 --kernel folder
expect 1 "$(missing nosuch.json)" -- run nosuch.json
expect 1 "$(missing nosuch.json)" -- analyze nosuch.json
expect 1 "$(missing nosuch.json)" -- timeline nosuch.json
expect 1 "$(missing nosuch.h)" -- abi layout nosuch.h
expect 1 "$(missing nosuch)" -- fatbin nosuch
expect 1 "$(missing "$work/gone/k.ptx")" -- parse "$work/gone/k.ptx"
# A spec whose module or buffer file is missing: the same message, naming the path from the spec's folder.
printf '{"module": "gone.ptx", "launches": []}' >spec-module.json
expect 1 "$(missing gone.ptx)" -- run spec-module.json
cp "$src/examples/saxpy.ptx" k.ptx
printf '{"module": "k.ptx", "buffers": [{"name": "b", "bytes": 8, "init": "gone.bin"}], "launches": []}' >spec-buffer.json
expect 1 "$(missing gone.bin)" -- run spec-buffer.json
# Permission denied (not when running as root, who reads anything).
if [ "$(id -u)" != 0 ]; then
  expect 1 "ptxray: error: cannot read 'unreadable.ptx': permission denied" -- parse unreadable.ptx
  expect 1 "ptxray: error: cannot read 'unreadable.ptx': permission denied" -- analyze unreadable.ptx
fi
# A program where text belongs: a pointer to the commands that take programs.
for command in parse fmt analyze; do
  expect 1 "ptxray: error: cannot read 'program.ptx': an ELF program or object file, not text
$elf_note" -- $command program.ptx
done
# Endless and oversized inputs are refused at the limit, not read until memory runs out.
expect 1 "ptxray: error: cannot read '/dev/zero': larger than the 1 GiB a text input may hold" -- parse /dev/zero
expect 1 "ptxray: error: cannot read '/dev/zero': larger than the 1 GiB a text input may hold" -- run /dev/zero
# Standard input is read the same way.
out="$(printf '\x7fELF' | "$ptxray" parse - 2>&1)"
[ $? = 1 ] && [ "$out" = "ptxray: error: cannot read '<stdin>': an ELF program or object file, not text
ptxray: note: to run a CUDA or OpenCL program: ptxray exec -- <stdin>; to see the PTX it embeds: ptxray fatbin <stdin> --ptx" ] ||
  { echo "FAIL: parse - of an ELF: $out"; failed=1; }

# Programs: found as a shell finds them, never run through /bin/sh.
printf 'touch RAN_BY_SH\n' >script
chmod +x script
expect 127 "ptxray: error: cannot run 'no-such-program': not found on PATH" -- exec -- no-such-program
expect 127 "ptxray: error: cannot run './no-such-program': no such file or directory" -- exec -- ./no-such-program
expect 126 "ptxray: error: cannot run './folder': is a directory" -- exec -- ./folder
expect 126 "ptxray: error: cannot run './k.ptx': permission denied" -- exec -- ./k.ptx
expect 126 "ptxray: error: cannot run './script': not an executable format (a script needs a '#!' line)" -- exec -- ./script
expect 127 "ptxray: error: cannot run './no-such-program': no such file or directory" -- timeline -- ./no-such-program
[ -e RAN_BY_SH ] && { echo "FAIL: a file with no executable format was run by /bin/sh"; failed=1; }

exit $failed
