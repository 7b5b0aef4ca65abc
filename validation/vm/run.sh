#!/usr/bin/env bash
# Runs every run spec in tests/kernels/vm/specs on this machine's GPU through the CUDA driver API
# (spec_runner), each against the PTX its spec names and, where the kernel file was also compiled for
# the other target, against that PTX too; then checks every result with the CPU references
# (compare). Writes to $OUT (default: validation/vm/build/out):
#   $OUT/gpu.tar.gz   gpu/NAME[@ARCH]/{rc,stdout.txt,stderr.txt,out/*.bin} for each run, gpu/ENV
#   $OUT/summary.txt  one PASS/FAIL line per run (and the details of each failure)
# Exits 0 when every run matches its reference.
#
# Needs nvcc, g++ and nlohmann/json.hpp: from validation/vm/build/include (carry it: see README.md),
# else /usr/include.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-$here/build/out}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
mkdir -p "$out"

inc=""
for d in "$here/build/include" /usr/include /usr/local/include; do
  if [ -f "$d/nlohmann/json.hpp" ]; then inc="$d"; break; fi
done
if [ -z "$inc" ]; then
  echo "run.sh: nlohmann/json.hpp not found; copy /usr/include/nlohmann into validation/vm/build/include/" >&2
  exit 2
fi

bin="$(mktemp -d)"
"$nvcc" -std=c++17 -O2 -I"$repo/src" -I"$inc" "$here/spec_runner.cpp" -lcuda -o "$bin/spec_runner" || exit 2
g++ -std=c++17 -O2 -I"$repo/src" -I"$repo/tests" -I"$inc" "$here/compare.cpp" -o "$bin/compare" || exit 2

stage="$(mktemp -d)"
work="$stage/gpu"
mkdir -p "$work/variants"
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  "$nvcc" --version | tail -n 2
  date -u +%Y-%m-%dT%H:%M:%SZ
} >"$work/ENV" 2>&1

summary="$out/summary.txt"
: >"$summary"
pass=0
fail=0
run_one() { # SPEC LABEL
  local spec="$1" label="$2" dir="$work/$2"
  mkdir -p "$dir"
  (cd "$dir" && timeout 120 "$bin/spec_runner" "$spec" --out-dir "$dir" >stdout.txt 2>stderr.txt)
  echo $? >"$dir/rc"
  if "$bin/compare" "$spec" "$dir" "$label" >>"$summary"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
  fi
}

specs_dir="$repo/tests/kernels/vm/specs"
for spec in "$specs_dir"/*.json; do
  name="$(basename "$spec" .json)"
  run_one "$spec" "$name"
  # The same spec against the kernel file's other PTX target, where there is one.
  module="$(grep -oE '"\.\./ptx/compute_[0-9]+/[^"]+\.ptx"' "$spec" | tr -d '"')"
  arch="$(echo "$module" | sed -E 's#.*/compute_([0-9]+)/.*#\1#')"
  for other in 75 90; do
    [ "$other" = "$arch" ] && continue
    alt="$repo/tests/kernels/vm/ptx/compute_$other/$(basename "$module")"
    [ -f "$alt" ] || continue
    sed "s#\"\\.\\./ptx/compute_$arch/#\"$repo/tests/kernels/vm/ptx/compute_$other/#" "$spec" \
      >"$work/variants/$name@$other.json"
    run_one "$work/variants/$name@$other.json" "$name@$other"
  done
done

echo "$pass passed, $fail failed" >>"$summary"
tar czf "$out/gpu.tar.gz" -C "$stage" gpu
cat "$summary"
rm -rf "$bin" "$stage"
[ "$fail" = 0 ]
