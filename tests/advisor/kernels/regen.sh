#!/usr/bin/env bash
# Regenerates the PTX of the advisor test kernels: every tests/advisor/kernels/NAME.cu becomes
# NAME.ptx next to it, compiled by nvcc 13 with
#
#   nvcc -ptx -lineinfo -arch=compute_90 -o NAME.ptx NAME.cu
#
# one explicit argument vector per file (below). The sources are compiled from a fixed staging
# directory (/tmp/ptxray-advisor-kernels) so the paths nvcc records in the .file directives do not
# depend on where the repository is checked out; the committed PTX is exactly this script's output.
#
#   tests/advisor/kernels/regen.sh
#   NVCC=/path/to/nvcc tests/advisor/kernels/regen.sh
#
# Fails when nvcc is missing, when a compile fails or prints anything (the sources must compile
# without a warning), or when ptxas (next to nvcc) rejects a generated file for sm_90.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
if [ ! -x "$nvcc" ]; then
  echo "regen: nvcc not found at $nvcc (set NVCC=...)" >&2
  exit 1
fi
ptxas="$(dirname "$nvcc")/ptxas"
stage=/tmp/ptxray-advisor-kernels

rm -rf "$stage"
mkdir -p "$stage"
cp "$here"/*.cu "$stage/"

# compile NAME ARG...: runs "$nvcc" ARG... in the staging directory, then copies NAME.ptx back.
compile() {
  local name="$1"
  shift
  local log="$stage/$name.log"
  if ! (cd "$stage" && "$nvcc" "$@") >"$log" 2>&1; then
    cat "$log" >&2
    echo "regen: FAILED: $name.cu" >&2
    exit 1
  fi
  if [ -s "$log" ]; then
    cat "$log" >&2
    echo "regen: $name.cu compiled with diagnostics (warnings are not allowed)" >&2
    exit 1
  fi
  if [ -x "$ptxas" ]; then
    "$ptxas" -arch=sm_90 -o /dev/null "$stage/$name.ptx"
  fi
  cp "$stage/$name.ptx" "$here/$name.ptx"
}

compile atomics -ptx -lineinfo -arch=compute_90 -o atomics.ptx atomics.cu
compile bank_conflicts -ptx -lineinfo -arch=compute_90 -o bank_conflicts.ptx bank_conflicts.cu
compile coalescing -ptx -lineinfo -arch=compute_90 -o coalescing.ptx coalescing.cu
compile constant_memory -ptx -lineinfo -arch=compute_90 -o constant_memory.ptx constant_memory.cu
compile control_flow -ptx -lineinfo -arch=compute_90 -o control_flow.ptx control_flow.cu
compile instructions -ptx -lineinfo -arch=compute_90 -o instructions.ptx instructions.cu
compile launch_config -ptx -lineinfo -arch=compute_90 -o launch_config.ptx launch_config.cu
compile local_memory -ptx -lineinfo -arch=compute_90 -o local_memory.ptx local_memory.cu
compile matmul_aat -ptx -lineinfo -arch=compute_90 -o matmul_aat.ptx matmul_aat.cu
compile ilp -ptx -lineinfo -arch=compute_90 -o ilp.ptx ilp.cu
compile kernel_params -ptx -lineinfo -arch=compute_90 -o kernel_params.ptx kernel_params.cu
compile matmul_ab -ptx -lineinfo -arch=compute_90 -o matmul_ab.ptx matmul_ab.cu
compile read_only -ptx -lineinfo -arch=compute_90 -o read_only.ptx read_only.cu

rm -rf "$stage"
echo "regen: wrote $(ls "$here"/*.ptx | wc -l) PTX files with $("$nvcc" --version | tail -n 1)"
