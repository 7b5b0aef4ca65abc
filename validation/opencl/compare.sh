#!/usr/bin/env bash
# Runs OpenCL host programs under ptxray (`ptxray exec`), PoCL (the reference: native code on the CPU)
# and Oclgrind (an OpenCL simulator with checking plugins), and records for each run its exit status,
# whether its standard output equals PoCL's, its wall time, and what the tool told the user beyond the
# program's own output: ptxray's advisor findings (--report) and sanitizer/fault reports, Oclgrind's
# diagnostics (--check-api --data-races --uninitialized), nothing for PoCL.
#
#   validation/opencl/compare.sh [PTXRAY]
#
# PTXRAY: the ptxray executable (default: build/dev/src/cli/ptxray of this checkout).
#
# The programs (compiled here with gcc into a temporary folder; one that does not compile is skipped):
#   - examples/opencl/guide.c --dir examples/opencl --size small (on ptxray also --arch gtx280 and k20x),
#   - tests/opencl/programs/*.c (on ptxray also with --tool memcheck,racecheck,initcheck),
#   - validation/opencl/programs/buggy.c (on ptxray with no tool, then --tool memcheck, racecheck and
#     initcheck, each on its own).
# PoCL or Oclgrind, when absent, is skipped.
#
# Results: validation/opencl/results/ (replaced): results.json (machine-readable), summary.md (the
# tables of README.md), raw/PROGRAM/LABEL.{cmd,stdout,stderr,status,time} and, per run, ptxray's
# report (.report.json.gz), sanitizer JSON (.sanitizer.json) or Oclgrind's log (.oclgrind.log).
#
# Environment: COMPARE_TIMEOUT (seconds allowed to each run, default 120; a run past it is killed and
# recorded as timed out), POCL_ICD (PoCL's ICD file, default /etc/OpenCL/vendors/pocl.icd),
# OCLGRIND (the oclgrind command, default oclgrind), CC (default gcc), KEEP_BUILD=1 (keep the
# temporary folder of the compiled programs), ONLY="NAME..." (only the programs of these names, e.g.
# ONLY="guide buggy").
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PTXRAY=${1:-$REPO/build/dev/src/cli/ptxray}
RESULTS=$HERE/results
TIMEOUT=${COMPARE_TIMEOUT:-120}
POCL_ICD=${POCL_ICD:-/etc/OpenCL/vendors/pocl.icd}
CC=${CC:-gcc}
EXAMPLES=$REPO/examples/opencl

if [[ ! -x $PTXRAY ]]; then
  echo "compare.sh: no ptxray executable at $PTXRAY (pass its path as the first argument)" >&2
  exit 2
fi
PTXRAY=$(cd "$(dirname "$PTXRAY")" && pwd)/$(basename "$PTXRAY")

have_pocl=0
if [[ -f $POCL_ICD ]]; then # the ICD file names PoCL's library: a path, or a name the loader searches for
  lib=$(head -n1 "$POCL_ICD" | tr -d '[:space:]')
  if [[ $lib == /* ]]; then
    [[ -e $lib ]] && have_pocl=1
  else
    IFS=: read -r -a dirs <<<"${LD_LIBRARY_PATH:-}"
    for dir in "${dirs[@]}" /lib /usr/lib /lib64 /usr/lib64 /usr/local/lib "/usr/lib/$($CC -print-multiarch 2>/dev/null)"; do
      [[ -n $dir && -e $dir/$lib ]] && have_pocl=1
    done
  fi
fi
have_oclgrind=0
OCLGRIND=${OCLGRIND:-oclgrind}
command -v "$OCLGRIND" >/dev/null 2>&1 && have_oclgrind=1
[[ $have_pocl == 1 ]] || echo "compare.sh: PoCL not found ($POCL_ICD): PoCL runs skipped, nothing to compare outputs with" >&2
[[ $have_oclgrind == 1 ]] || echo "compare.sh: $OCLGRIND not found: Oclgrind runs skipped" >&2

BUILD=$(mktemp -d /tmp/ptxray-opencl-validation.XXXXXX)
if [[ ${KEEP_BUILD:-0} == 1 ]]; then
  echo "compare.sh: programs compiled in $BUILD (kept)" >&2
else
  trap 'rm -rf "$BUILD"' EXIT
fi

rm -rf "$RESULTS/raw" "$RESULTS/results.json" "$RESULTS/summary.md"
mkdir -p "$RESULTS/raw"
RUNS=$RESULTS/raw/runs.tsv      # program, label, tool, options: one line per run
PROGRAMS=$RESULTS/raw/programs.tsv  # program, source, compiled (0/1), arguments
: >"$RUNS"
: >"$PROGRAMS"

# The loader variables: PoCL's runs name PoCL's ICD; ptxray's and Oclgrind's runs start without them
# (`ptxray exec` points the loader at ptxray's platform; oclgrind preloads its own runtime).
LOADER_UNSET=(-u OCL_ICD_VENDORS -u OCL_ICD_FILENAMES -u OPENCL_VENDOR_PATH)

# ---- machine and tool versions ----------------------------------------------------------------------
{
  echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host_cpus	$(nproc)"
  echo "host_cpu_model	$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "host_memory_kb	$(grep -m1 MemTotal /proc/meminfo | awk '{print $2}')"
  echo "host_os	$(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown}")"
  echo "host_kernel	$(uname -r)"
  echo "loadavg_start	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "ptxray_path	$PTXRAY"
  echo "ptxray_sha256	$(sha256sum "$PTXRAY" | cut -d' ' -f1)"
  echo "ptxray_mtime	$(date -u -r "$PTXRAY" +%Y-%m-%dT%H:%M:%SZ)"
  # The platform `ptxray exec` loads: beside the executable, in the build tree's layout.
  lib=$(dirname "$PTXRAY")/../../lib/ptxray-opencl/libptxray-opencl.so
  [[ -e $lib ]] || lib=$(dirname "$PTXRAY")/../lib/ptxray-opencl/libptxray-opencl.so
  echo "ptxray_opencl_sha256	$([[ -e $lib ]] && sha256sum "$lib" | cut -d' ' -f1 || echo unknown)"
  echo "repo_commit	$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "repo_dirty_files	$(git -C "$REPO" status --porcelain 2>/dev/null | wc -l)"
  echo "cc	$($CC --version | head -n1)"
  echo "pocl	$([[ $have_pocl == 1 ]] && (dpkg-query -W -f='${Version}' pocl-opencl-icd 2>/dev/null || echo present) || echo absent)"
  echo "oclgrind	$([[ $have_oclgrind == 1 ]] && ("$OCLGRIND" --version 2>&1 | grep -m1 -i oclgrind | sed 's/^ *//') || echo absent)"
  echo "timeout_s	$TIMEOUT"
} >"$RESULTS/raw/meta.tsv"

# ---- compile --------------------------------------------------------------------------------------
compile() { # NAME SOURCE ARGS... : builds $BUILD/NAME; records it in programs.tsv
  local name=$1 source=$2; shift 2
  local ok=1
  if [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]]; then return 1; fi
  mkdir -p "$RESULTS/raw/$name"
  if ! $CC -O2 -std=c11 -Wall -Wextra -DCL_TARGET_OPENCL_VERSION=120 -o "$BUILD/$name" "$source" -lOpenCL -lm \
      >"$RESULTS/raw/$name/compile.log" 2>&1; then
    ok=0
    echo "compare.sh: $source does not compile: skipped (raw/$name/compile.log)" >&2
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$source" "$ok" "$*" >>"$PROGRAMS"
  return $((1 - ok))
}

# ---- one run ------------------------------------------------------------------------------------------
run() { # PROGRAM LABEL TOOL OPTIONS -- COMMAND...: runs COMMAND, stdin from /dev/null, under the timeout
  local program=$1 label=$2 tool=$3 options=$4; shift 5
  local out=$RESULTS/raw/$program/$label
  printf '%q ' "$@" >"$out.cmd"
  echo >>"$out.cmd"
  echo "  $program: $label" >&2
  local TIMEFORMAT='%R %U %S'
  { time timeout -k 5 "$TIMEOUT" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null; echo $? >"$out.status"; } 2>"$out.time"
  printf '%s\t%s\t%s\t%s\n' "$program" "$label" "$tool" "$options" >>"$RUNS"
}

run_pocl() { # PROGRAM ARGS...: twice, with a fresh kernel cache (cold: PoCL compiles), then with it (warm)
  local program=$1; shift
  [[ $have_pocl == 1 ]] || return 0
  local cache=$BUILD/pocl-cache-$program
  rm -rf "$cache"; mkdir -p "$cache"
  run "$program" pocl pocl "cold kernel cache" -- env "${LOADER_UNSET[@]}" OCL_ICD_VENDORS="$POCL_ICD" \
    POCL_CACHE_DIR="$cache" "$BUILD/$program" "$@"
  run "$program" pocl-warm pocl "warm kernel cache" -- env "${LOADER_UNSET[@]}" OCL_ICD_VENDORS="$POCL_ICD" \
    POCL_CACHE_DIR="$cache" "$BUILD/$program" "$@"
}

run_oclgrind() { # PROGRAM ARGS...
  local program=$1; shift
  [[ $have_oclgrind == 1 ]] || return 0
  local out=$RESULTS/raw/$program/oclgrind
  run "$program" oclgrind oclgrind "--check-api --data-races --uninitialized" -- env "${LOADER_UNSET[@]}" \
    "$OCLGRIND" --check-api --data-races --uninitialized --log "$out.oclgrind.log" "$BUILD/$program" "$@"
}

run_ptxray() { # PROGRAM LABEL "EXEC OPTIONS" ARGS...: ptxray exec with --report (and --sanitizer-json with --tool)
  local program=$1 label=$2 options=$3; shift 3
  local out=$RESULTS/raw/$program/$label
  local -a extra=(--report "$out.report.json")
  [[ $options == *--tool* ]] && extra+=(--sanitizer-json "$out.sanitizer.json")
  # shellcheck disable=SC2086 # options are words
  run "$program" "$label" ptxray "$options" -- env "${LOADER_UNSET[@]}" "$PTXRAY" exec $options "${extra[@]}" \
    -- "$BUILD/$program" "$@"
}

# ---- the programs -----------------------------------------------------------------------------------
echo "compare.sh: ptxray $PTXRAY; PoCL $([[ $have_pocl == 1 ]] && echo yes || echo no);" \
  "Oclgrind $([[ $have_oclgrind == 1 ]] && echo yes || echo no); timeout ${TIMEOUT}s per run" >&2

# The guide's host program.
GUIDE_ARGS=(--dir "$EXAMPLES" --size small)
if compile guide "$EXAMPLES/guide.c" "${GUIDE_ARGS[@]}"; then
  run_pocl guide "${GUIDE_ARGS[@]}"
  run_ptxray guide ptxray "" "${GUIDE_ARGS[@]}"
  run_ptxray guide ptxray-gtx280 "--arch gtx280" "${GUIDE_ARGS[@]}"
  run_ptxray guide ptxray-k20x "--arch k20x" "${GUIDE_ARGS[@]}"
  run_oclgrind guide "${GUIDE_ARGS[@]}"
fi

# The API tests' host programs (whatever tests/opencl/programs holds now).
for source in "$REPO"/tests/opencl/programs/*.c; do
  [[ -e $source ]] || continue
  name=$(basename "$source" .c)
  compile "$name" "$source" || continue
  run_pocl "$name"
  run_ptxray "$name" ptxray ""
  run_ptxray "$name" ptxray-sanitizers "--tool memcheck,racecheck,initcheck"
  run_oclgrind "$name"
done

# The deliberately buggy program.
if compile buggy "$HERE/programs/buggy.c"; then
  run_pocl buggy
  run_ptxray buggy ptxray ""
  run_ptxray buggy ptxray-memcheck "--tool memcheck"
  run_ptxray buggy ptxray-racecheck "--tool racecheck"
  run_ptxray buggy ptxray-initcheck "--tool initcheck"
  run_oclgrind buggy
fi

{
  echo "loadavg_end	$(cut -d' ' -f1-3 /proc/loadavg)"
  # Another build may replace the executable during the runs: this says whether it did.
  echo "ptxray_sha256_end	$(sha256sum "$PTXRAY" | cut -d' ' -f1)"
} >>"$RESULTS/raw/meta.tsv"

# ---- results.json and summary.md ------------------------------------------------------------------
python3 "$HERE/summarize.py" "$RESULTS" "$BUILD" || exit 1
echo "compare.sh: results in $RESULTS (results.json, summary.md, raw/)" >&2
