#!/usr/bin/env bash
# The two named-only modes of system_bench.cu: `pitch2d_near` (host pitches a little wider than the
# row) and `multigpu` (host copies to two GPUs alone and at once, peer copies). Run from the
# repository root on a machine with sm_90 GPUs, two of them for `multigpu` (see README.md):
#
#   OUT=/some/dir bash validation/system/run-extra.sh        (default OUT: /tmp/system-extra-out)
#
# $OUT gets: pitch2d-near.json and multigpu.json (first runs), pitch2d-near-rep2.json and
# multigpu-rep2.json (the same again, to see the run-to-run spread), pitch2d-same-machine.json
# (`system_bench pitch2d` on this machine, the baseline for pitch2d_near), topo.txt
# (nvidia-smi topo -m), nvidia-smi.txt (nvidia-smi -q and nvlink --status) and log.txt (stderr).
# The binary goes to $BIN (default /tmp/system_bench-extra), not $OUT.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/system-extra-out}"
bin="${BIN:-/tmp/system_bench-extra}"
mkdir -p "$out"

nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
build=("$nvcc" -O2 -arch=sm_90 -std=c++17 "$here/system_bench.cu" -o "$bin")
echo "+ ${build[*]}"
"${build[@]}"

nvidia-smi topo -m > "$out/topo.txt" 2>&1 || echo "nvidia-smi topo -m failed: $?" >> "$out/topo.txt"
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# nvcc: $("$nvcc" --version | tail -n 1)"
  nvidia-smi -q
  echo "# nvidia-smi nvlink --status"
  nvidia-smi nvlink --status || echo "nvidia-smi nvlink --status failed: $?"
} > "$out/nvidia-smi.txt" 2>&1

: > "$out/log.txt"
run_one() {
  local mode=$1 name=$2
  local json="$out/$name.json"
  echo "== $mode -> $name.json" | tee -a "$out/log.txt"
  local start=$SECONDS
  timeout 200 "$bin" "$mode" > "$json.tmp" 2>> "$out/log.txt"
  mv "$json.tmp" "$json"
  if command -v python3 > /dev/null; then python3 -m json.tool "$json" > /dev/null; fi
  echo "   done in $((SECONDS - start)) s" | tee -a "$out/log.txt"
}

run_one pitch2d_near pitch2d-near
run_one multigpu multigpu
run_one pitch2d pitch2d-same-machine
run_one pitch2d_near pitch2d-near-rep2
run_one multigpu multigpu-rep2
cat "$out/topo.txt"
if command -v python3 > /dev/null; then
  python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("pitch2d-near", "pitch2d-near-rep2"):
    d = json.load(open(f"{out}/{name}.json"))
    print(name, d["device"]["name"], d["device"]["pcie_current_link_speed"], d["device"]["pcie_current_link_width"])
    rows = {}
    for c in d["pitch2d_near"]["cases"]:
        rows.setdefault((c["width"], c["host_pitch"]), {})[c["direction"]] = c["gbps"]
    for (w, hp), v in sorted(rows.items()):
        print(f"  w {w:6d} hp {hp:7d}  h2d {v['h2d']:6.1f}  d2h {v['d2h']:6.1f}")
    for part in ("ratio_sweep", "rows_sweep"):
        print(" ", part, "(GB/s, extra ns per row over 1D)")
        for c in d["pitch2d_near"][part]:
            print(f"    {c['direction']} w {c['width']:5d} hp {c['host_pitch']:6d} rows {c['height']:6d} "
                  f"span {c['host_span_bytes'] / 2**20:7.1f} MiB  {c['gbps']:5.1f}  "
                  f"{c['extra_s_per_row_vs_1d'] * 1e9:6.2f}")
for name in ("multigpu", "multigpu-rep2"):
    m = json.load(open(f"{out}/{name}.json"))["multigpu"]
    print(name, "devices", m["device_count"], m.get("note", ""))
    for sec in ("host_copies",):
        for k, v in m.get(sec, {}).items():
            print(f"  {k:28s} agg {v['aggregate_gbps']:7.1f}  per", [round(p["gbps"], 1) for p in v["per_copy"]])
    p = m.get("peer", {})
    for k in ("peer_access_not_enabled", "peer_access_enabled"):
        for c, v in p.get(k, {}).items():
            print(f"  {k} {c:18s} agg {v['aggregate_gbps']:7.1f}")
PY
fi
ls -l "$out"
