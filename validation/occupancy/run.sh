#!/usr/bin/env bash
# Runs the occupancy probe on the GPU of this machine for a range of register caps and writes
# $OUT/occupancy-<gpu>.jsonl (device properties first, then one line per query).
set -euo pipefail
cd "$(dirname "$0")"
out=${OUT:-.}
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
file="$out/occupancy-$name.jsonl"
: > "$file"
first=1
for cap in 16 24 32 40 48 56 64 72 80 96 128 168 200 255; do
  nvcc -O3 -arch=sm_$arch -maxrregcount=$cap -DREG_CAP=$cap occupancy_probe.cu -o /tmp/probe_$cap
  if [ $first = 1 ]; then /tmp/probe_$cap >> "$file"; first=0; else /tmp/probe_$cap | tail -n +2 >> "$file"; fi
done
wc -l "$file"
