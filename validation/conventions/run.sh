#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: what NVIDIA's tools do that ptxray follows (docs/conventions.md).
#  - the stack-size limit: the deepest recursion stack_depth.cu completes under each limit;
#  - compute-sanitizer: leak check of cudaMalloc (leak.cu), exit statuses, --print-limit, kernel
#    filters, --log-file and name demangling (oob.cu), initcheck's exit status (uninit.cu);
#  - ncu: --csv, --metrics, -k and --launch-skip/--launch-count (oob.cu).
# Writes $OUT/conventions.tar.gz (one text file per case, the command and its exit status in it).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$here/build/out}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
cs="${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}"
ncu="${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}"
work="$(mktemp -d)"
res="$work/conventions"
mkdir -p "$out" "$res"
cd "$work"

# One case: NAME then the command; its output, and the exit status last, in $res/NAME.txt.
case_() {
  local name="$1"; shift
  { echo "\$ $*"; timeout 300 "$@" 2>&1; echo "exit=$?"; } >"$res/$name.txt"
}

{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  "$nvcc" --version | tail -n 2
  "$cs" --version | tail -n 1
  "$ncu" --version | tail -n 1
  date -u +%Y-%m-%dT%H:%M:%SZ
} >"$res/ENV" 2>&1

# leak.cu is also a test program of tests/programs (its expected output there is what this measures).
for src in "$here/stack_depth.cu" "$here/../../tests/programs/src/leak.cu" "$here/oob.cu" "$here/uninit.cu"; do
  p="$(basename "$src" .cu)"
  "$nvcc" -O2 -arch=sm_90 -lineinfo -Xptxas -v "$src" -o "$p" >"$res/build.$p.txt" 2>&1 || echo "build $p failed" >>"$res/ENV"
done

# The stack: the deepest completing recursion, by bisection, for each limit (0: the default).
for limit in 0 512 1024 2048 4096 16384 65536; do
  lo=0 hi=200000
  ./stack_depth "$limit" 0 >/dev/null 2>&1 || { echo "limit=$limit depth 0 fails" >>"$res/stack.txt"; continue; }
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    if ./stack_depth "$limit" "$mid" >/dev/null 2>&1; then lo=$mid; else hi=$mid; fi
  done
  { echo "limit=$limit deepest=$lo"; ./stack_depth "$limit" "$lo"; ./stack_depth "$limit" "$hi"; } >>"$res/stack.txt" 2>&1
done
case_ stack.one-thread ./stack_depth 0 100000 1
case_ stack.sanitizer "$cs" ./stack_depth 0 5000

case_ cs.help "$cs" --help
case_ leak.default "$cs" ./leak
case_ leak.full "$cs" --leak-check full ./leak
case_ leak.full-reset "$cs" --leak-check full ./leak reset
case_ leak.full-exitcode "$cs" --leak-check full --error-exitcode 9 ./leak
case_ oob.default "$cs" ./oob
case_ oob.app-status "$cs" ./oob 5
case_ oob.exitcode "$cs" --error-exitcode 7 ./oob
case_ oob.exitcode-app-status "$cs" --error-exitcode 7 ./oob 5
case_ oob.print-limit "$cs" --print-limit 1 ./oob
case_ oob.kns "$cs" --kernel-name kns=shift ./oob
case_ oob.kne "$cs" --kernel-name kne=_Z5shiftPii ./oob
case_ oob.regex "$cs" --kernel-name regex=sc.le ./oob
case_ oob.exclude "$cs" --kernel-name-exclude kns=scale ./oob
case_ oob.launch-skip "$cs" --launch-skip 1 --launch-count 2 ./oob
case_ oob.demangle-no "$cs" --demangle no ./oob
case_ oob.demangle-simple "$cs" --demangle simple ./oob
case_ oob.log-file "$cs" --log-file "$work/cs-log.txt" ./oob
cp "$work/cs-log.txt" "$res/oob.log-file.contents.txt" 2>/dev/null
case_ oob.log-file-pattern "$cs" --log-file "$work/cs-%p.txt" ./oob
ls "$work"/cs-*.txt >"$res/oob.log-file-pattern.files.txt" 2>&1
case_ oob.check-exit "$cs" --check-exit-code no ./oob 5
case_ uninit.initcheck "$cs" --tool initcheck ./uninit
case_ uninit.initcheck-exitcode "$cs" --tool initcheck --error-exitcode 3 ./uninit

case_ ncu.help "$ncu" --help
case_ ncu.csv "$ncu" --clock-control none --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum ./oob
case_ ncu.csv-k "$ncu" --clock-control none --csv -k regex:sc --metrics gpu__time_duration.sum ./oob
case_ ncu.csv-skip "$ncu" --clock-control none --csv --launch-skip 1 --launch-count 2 --metrics gpu__time_duration.sum ./oob
case_ ncu.csv-kernel-name-base "$ncu" --clock-control none --csv --kernel-name-base mangled --metrics gpu__time_duration.sum -k _Z5shiftPii ./oob
case_ ncu.csv-page-raw "$ncu" --clock-control none --csv --page raw --launch-count 1 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg ./oob
case_ ncu.csv-section "$ncu" --clock-control none --csv --section SpeedOfLight --launch-count 1 ./oob
case_ ncu.text "$ncu" --clock-control none --launch-count 1 --metrics gpu__time_duration.sum ./oob
case_ ncu.list-sets "$ncu" --list-sets
case_ ncu.print-units "$ncu" --clock-control none --csv --print-units base --launch-count 1 --metrics gpu__time_duration.sum,dram__bytes_read.sum ./oob

tar czf "$out/conventions.tar.gz" -C "$work" conventions
echo "run.sh: $(ls "$res" | wc -l) files in $out/conventions.tar.gz"
