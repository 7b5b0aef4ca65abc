#!/usr/bin/env bash
# Unpacks what run.sh sent back from the GPU machine into validation/model/results/:
#
#   validation/model/import-results.sh FILES_AT [DEST]   (the device tool's files_at folder, or $OUT;
#                                                        DEST: default validation/model/results)
#
# Copies results/ncu/*.csv, ENV, empty_kernel.txt, summary.txt, sass/*.sass and nvidia-smi-q.txt
# (serial numbers and UUIDs redacted); the logs stay out of the tree.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="${1:?usage: import-results.sh FILES_AT [DEST]}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tar xzf "$src/results.tar.gz" -C "$tmp"
dst="${2:-$here/results}"
mkdir -p "$dst/ncu" "$dst/sass"
cp "$tmp"/results/ncu/*.csv "$dst/ncu/"
cp "$tmp"/results/sass/*.sass "$dst/sass/" 2>/dev/null || true
cp "$tmp"/results/{ENV,empty_kernel.txt,summary.txt} "$dst/"
sed -E 's/^( *(Serial Number|GPU UUID|GPU PDI|Chassis Serial Number|ClusterUUID|Module Id)[^:]*: ).*/\1(redacted)/' \
  "$tmp/results/nvidia-smi-q.txt" >"$dst/nvidia-smi-q.txt"
echo "import-results: $(ls "$dst"/ncu/*.csv | wc -l) CSVs into $dst ($(grep -m1 '^NVIDIA' "$dst/ENV" | cut -d, -f1))"
