#!/usr/bin/env bash
# Hardware ground truth for ptxray's performance model: runs every run spec of
# validation/model/specs/ on this machine's GPU under Nsight Compute (ncu) through
# validation/vm/spec_runner.cpp, and times an empty kernel (launch overhead). Run it on the device
# tool's GPU (see README.md):
#
#   validation/model/run.sh            (writes to $OUT, default validation/model/build/out)
#   SPECS_DIR=validation/model/holdout validation/model/run.sh   (another folder of specs)
#
# $OUT gets (few files: the device tool brings back at most 8):
#   results.tar.gz  results/ncu/SPEC.csv       ncu --csv --page raw --print-units base, one row a launch
#                   results/ncu/empty_kernel.csv   gpu__time_duration.sum of 20 empty launches
#                   results/empty_kernel.txt   CUDA-event timing of 3 x 1000 back-to-back empty launches
#                   results/ENV                GPU, driver, clocks, ncu and nvcc versions, ncu options
#                   results/nvidia-smi-q.txt   nvidia-smi -q
#                   results/sass/NAME.sass     ptxas -arch=sm_90 + cuobjdump -sass of every module
#                   results/logs/*             spec_runner and ncu stderr
#   ENV, summary.txt                           copies of results/ENV and the per-spec PASS/FAIL lines
#   log.txt                                    everything printed
#
# Needs nvcc, ncu and nlohmann/json.hpp (from validation/vm/build/include: carry it, see
# validation/vm/README.md). Exits 0 when every spec ran under ncu.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-$here/build/out}"
specs="$(cd "${SPECS_DIR:-$here/specs}" && pwd)" || exit 2
mkdir -p "$out"

main() {
t0=$(date +%s)
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ncu="${NCU:-$(command -v ncu || true)}"
if [ -z "$ncu" ]; then
  for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do [ -x "$c" ] && ncu="$c"; done
fi
[ -n "$ncu" ] || { echo "run.sh: ncu not found" >&2; exit 2; }

inc=""
for d in "$repo/validation/vm/build/include" /usr/include /usr/local/include; do
  if [ -f "$d/nlohmann/json.hpp" ]; then inc="$d"; break; fi
done
[ -n "$inc" ] || { echo "run.sh: nlohmann/json.hpp not found (see validation/vm/README.md)" >&2; exit 2; }

bin="$(mktemp -d)"
stage="$(mktemp -d)"
res="$stage/results"
mkdir -p "$res/ncu" "$res/sass" "$res/logs"
"$nvcc" -std=c++17 -O2 -I"$repo/src" -I"$inc" "$repo/validation/vm/spec_runner.cpp" -lcuda -o "$bin/spec_runner" || exit 2
"$nvcc" -O2 -arch=sm_90 -lineinfo "$here/empty_kernel.cu" -o "$bin/empty_kernel" || exit 2
echo "run.sh: built in $(($(date +%s) - t0)) s"

# Counters of the performance model (docs of src/model/Metrics.h name them the same way).
metrics=(
  smsp__inst_executed.sum
  smsp__thread_inst_executed.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  smsp__inst_executed_op_shared_ld.sum
  smsp__inst_executed_op_shared_st.sum
  l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
  sm__warps_active.avg.pct_of_peak_sustained_active
  gpu__time_duration.sum
  dram__bytes_read.sum
  dram__bytes_write.sum
  smsp__sass_average_branch_targets_threads_uniform.pct
)
# Clocks are left as found (the device tool's rule: never change them); caches are flushed before
# every replay pass (ncu's default), so DRAM bytes are those of a cold L2.
ncu_opts=(--clock-control none --cache-control all --replay-mode kernel --csv --page raw --print-units base)

join() { local IFS=,; echo "$*"; }
# Probe options and metrics on an empty kernel: drop a metric this ncu rejects (the brief expects
# that of smsp__sass_average_branch_targets_threads_uniform.pct at most), or base units.
dropped=""
for attempt in 1 2 3 4 5; do
  if timeout 90 "$ncu" "${ncu_opts[@]}" --metrics "$(join "${metrics[@]}")" -c 1 "$bin/empty_kernel" 1 \
    >"$res/logs/probe_$attempt.txt" 2>&1 && ! grep -q '==ERROR==' "$res/logs/probe_$attempt.txt"; then
    break
  fi
  cat "$res/logs/probe_$attempt.txt"
  errors="$(grep -iE 'error|unrecogni[sz]ed|unknown|invalid' "$res/logs/probe_$attempt.txt" | grep -v '^==PROF==')"
  kept=()
  for m in "${metrics[@]}"; do
    if grep -qF "${m%.*}" <<<"$errors"; then dropped="$dropped $m"; else kept+=("$m"); fi
  done
  if [ "${#kept[@]}" != "${#metrics[@]}" ]; then
    metrics=("${kept[@]}")
  elif grep -q 'print-units' <<<"$errors" && [ "${ncu_opts[-1]}" = base ]; then
    dropped="$dropped --print-units base"
    ncu_opts=("${ncu_opts[@]:0:${#ncu_opts[@]}-2}")
  else
    echo "run.sh: the ncu probe failed (see above); going on" >&2
    break
  fi
done
list="$(join "${metrics[@]}")"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -r)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,persistence_mode,ecc.mode.current --format=csv
  nvidia-smi -q | grep -E 'CUDA Version|VBIOS|Product Name|Product Architecture' | sed 's/^ *//'
  echo "nvcc: $("$nvcc" --version | tail -n 1)"
  echo "ncu: $ncu"
  "$ncu" --version | tail -n 2
  echo "ncu options: ${ncu_opts[*]}"
  echo "metrics: $list"
  [ -n "$dropped" ] && echo "dropped (ncu rejected them):$dropped"
  echo "ptx: validation/model/ptx (nvcc $(head -n 1 "$here/ptx/VERSION" 2>/dev/null)), tests/kernels/vm/ptx/compute_90"
} >"$res/ENV" 2>&1
nvidia-smi -q >"$res/nvidia-smi-q.txt" 2>&1
cat "$res/ENV"

# SASS of every module as the GPU runs it (ptxas of the toolkit; the driver JIT may differ slightly).
ptxas="$(dirname "$nvcc")/ptxas"
cuobjdump="$(dirname "$nvcc")/cuobjdump"
for p in "$here"/ptx/*.ptx "$repo"/tests/kernels/vm/ptx/compute_90/{memory_access,transpose,matmul}.ptx; do
  n="$(basename "$p" .ptx)"
  "$ptxas" -arch=sm_90 -v "$p" -o "$bin/$n.cubin" >"$res/logs/ptxas_$n.txt" 2>&1 &&
    "$cuobjdump" -sass "$bin/$n.cubin" >"$res/sass/$n.sass" 2>&1
done

# Launch overhead: CUDA events over 1000 back-to-back launches (3 repetitions), and ncu's
# gpu__time_duration of 20 launches after the 100 warm-up ones.
"$bin/empty_kernel" 1000 | tee "$res/empty_kernel.txt"
timeout 120 "$ncu" "${ncu_opts[@]}" --metrics gpu__time_duration.sum -s 100 -c 20 "$bin/empty_kernel" 20 \
  >"$bin/empty.raw" 2>"$res/logs/ncu_empty_kernel.txt"
grep -v '^==' "$bin/empty.raw" | grep '^"' >"$res/ncu/empty_kernel.csv"
grep '^==' "$bin/empty.raw" >>"$res/logs/ncu_empty_kernel.txt"

summary="$stage/summary.txt"
: >"$summary"
fails=0
for spec in "$specs"/*.json; do
  name="$(basename "$spec" .json)"
  if [ $(($(date +%s) - t0)) -gt 500 ]; then
    echo "$name: SKIPPED (time)" | tee -a "$summary"; fails=$((fails + 1)); continue
  fi
  s=$(date +%s)
  # Plain run first: a failing spec shows its own error rather than ncu's.
  (cd "$bin" && timeout 60 ./spec_runner "$spec" --out-dir "$bin/o" >"$res/logs/run_$name.txt" 2>&1)
  rc=$?
  (cd "$bin" && timeout 200 "$ncu" "${ncu_opts[@]}" --metrics "$list" ./spec_runner "$spec" --out-dir "$bin/o" \
    >"$bin/$name.raw" 2>"$res/logs/ncu_$name.txt")
  nrc=$?
  grep '^==' "$bin/$name.raw" >>"$res/logs/ncu_$name.txt"
  grep -v '^==' "$bin/$name.raw" | grep '^"' >"$res/ncu/$name.csv"
  rows=$(($(wc -l <"$res/ncu/$name.csv") - 2))
  launches=$(grep -c '"kernel"' "$spec")
  status=PASS
  [ "$rc" = 0 ] && [ "$nrc" = 0 ] && [ "$rows" = "$launches" ] || { status=FAIL; fails=$((fails + 1)); }
  echo "$name: $status (run rc $rc, ncu rc $nrc, $rows/$launches launches, $(($(date +%s) - s)) s)" | tee -a "$summary"
done
echo "total $(($(date +%s) - t0)) s, $fails failed" | tee -a "$summary"

cp "$res/ENV" "$out/ENV"
cp "$summary" "$out/summary.txt"
cp "$summary" "$res/summary.txt"
tar czf "$out/results.tar.gz" -C "$stage" results
rm -rf "$bin" "$stage"
[ "$fails" = 0 ]
}

main "$@" 2>&1 | tee "$out/log.txt"
exit "${PIPESTATUS[0]}"
