#!/usr/bin/env bash
# Regenerates the nvcc PTX fixtures in tests/corpus/nvcc/ from tests/kernels/*.cu
# and examples/saxpy.ptx, examples/guide/*.ptx, bench/kernels/real_kernels.ptx from their .cu files.
#
#   scripts/gen-corpus.sh            # all targets
#   NVCC=/path/to/nvcc scripts/gen-corpus.sh
#
# Layout (see tests/corpus/README.md):
#   tests/corpus/nvcc/compute_75/NAME.ptx    nvcc -ptx -arch=compute_75  -lineinfo
#   tests/corpus/nvcc/compute_90/NAME.ptx    nvcc -ptx -arch=compute_90  -lineinfo
#   tests/corpus/nvcc/compute_100/NAME.ptx   nvcc -ptx -arch=compute_100 -lineinfo
#   tests/corpus/nvcc/debug/compute_90/NAME.ptx   -G (full DWARF in .section .debug_*)
#   tests/corpus/nvcc/debug/compute_100/NAME.ptx  -G
#
# Per-file extra flags come from a line "// corpus-flags: ..." in the source.
# The sources are compiled from a fixed staging directory so that the absolute
# paths nvcc records (.file directives, DWARF strings, the hash in internal
# names of static symbols) do not depend on where the repository is checked
# out; regenerating on another machine gives byte-identical files as long as
# the nvcc version is the same. The nvcc version used is recorded in
# tests/corpus/nvcc/VERSION.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then
    nvcc="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "gen-corpus: nvcc not found (set NVCC=...); leaving the committed fixtures as they are"
  exit 0
fi

archs=(75 90 100)
# Files that also get a -G (full debug information) version. Kept to a few
# mid-sized files: -G output is roughly 5-10x larger than -lineinfo output.
debug_files=(calls control_flow int_arith printf_malloc sm90_cluster state_spaces warp_sync)
debug_archs=(90 100)

stage=/tmp/ptxray-corpus
out="$repo/tests/corpus/nvcc"

rm -rf "$stage"
mkdir -p "$stage/kernels" "$stage/examples" "$stage/bench"
cp "$repo"/tests/kernels/*.cu "$stage/kernels/"
cp "$repo"/bench/kernels/real_kernels.cu "$stage/bench/"
cp "$repo"/examples/saxpy.cu "$repo"/examples/guide/aat.cu "$repo"/examples/guide/copy.cu "$repo"/examples/guide/hypot.cu "$stage/examples/"

rm -rf "$out"
for a in "${archs[@]}"; do mkdir -p "$out/compute_$a"; done
for a in "${debug_archs[@]}"; do mkdir -p "$out/debug/compute_$a"; done

common=(-ptx -std=c++17 -Wno-deprecated-gpu-targets)
failed=0

compile() {  # compile SRC_BASENAME OUT_FILE FLAGS...
  local src="$1" dst="$2"
  shift 2
  if ! (cd "$stage/kernels" && "$nvcc" "${common[@]}" "$@" "$src" -o "$dst"); then
    echo "gen-corpus: FAILED: nvcc $* $src" >&2
    failed=1
  fi
}

count=0
for src in "$stage"/kernels/*.cu; do
  name="$(basename "$src" .cu)"
  extra=()
  flags_line="$(grep -m1 -E '^// corpus-flags:' "$src" || true)"
  if [ -n "$flags_line" ]; then
    read -r -a extra <<<"${flags_line#// corpus-flags:}"
  fi
  for a in "${archs[@]}"; do
    compile "$name.cu" "$out/compute_$a/$name.ptx" -arch="compute_$a" -lineinfo "${extra[@]}"
    count=$((count + 1))
  done
  for d in "${debug_files[@]}"; do
    if [ "$d" = "$name" ]; then
      for a in "${debug_archs[@]}"; do
        compile "$name.cu" "$out/debug/compute_$a/$name.ptx" -arch="compute_$a" -G "${extra[@]}"
        count=$((count + 1))
      done
    fi
  done
done

# The README quick-start example.
if (cd "$stage/examples" && "$nvcc" "${common[@]}" -arch=compute_90 -lineinfo saxpy.cu \
  -o "$repo/examples/saxpy.ptx"); then
  # nvcc names the staged copy; the bundled PTX names the source where a user of the repository has it.
  sed -i "s#\"$stage/examples/saxpy.cu\"#\"examples/saxpy.cu\"#" "$repo/examples/saxpy.ptx"
  count=$((count + 1))
else
  echo "gen-corpus: FAILED: examples/saxpy.cu" >&2
  failed=1
fi
# The guide's examples: C = A A^T (the README's analysis) and the coalescing copies (guide-charts).
for name in aat copy hypot; do
  if (cd "$stage/examples" && "$nvcc" "${common[@]}" -arch=compute_90 -lineinfo "$name.cu" \
    -o "$repo/examples/guide/$name.ptx"); then
    sed -i "s#\"$stage/examples/$name.cu\"#\"examples/guide/$name.cu\"#" "$repo/examples/guide/$name.ptx"
    count=$((count + 1))
  else
    echo "gen-corpus: FAILED: examples/guide/$name.cu" >&2
    failed=1
  fi
done

# The real-kernel benchmark set (bench/RealKernelBench.cpp, tests/vm/RealKernelsTest.cpp).
if (cd "$stage/bench" && "$nvcc" "${common[@]}" -arch=compute_90 -lineinfo real_kernels.cu \
  -o "$repo/bench/kernels/real_kernels.ptx"); then
  count=$((count + 1))
else
  echo "gen-corpus: FAILED: bench/kernels/real_kernels.cu" >&2
  failed=1
fi

"$nvcc" --version | tail -n 2 >"$out/VERSION"

# Optional sanity check: every generated file must assemble with ptxas.
ptxas="$(dirname "$nvcc")/ptxas"
if [ -x "$ptxas" ] && [ "${PTXAS_CHECK:-1}" = 1 ]; then
  for f in "$out"/compute_*/*.ptx "$out"/debug/compute_*/*.ptx "$repo/examples/saxpy.ptx" "$repo"/examples/guide/*.ptx \
    "$repo/bench/kernels/real_kernels.ptx"; do
    dir="$(basename "$(dirname "$f")")"
    sm="sm_${dir#compute_}"
    case "$f" in "$repo"/examples/* | "$repo"/bench/*) sm=sm_90 ;; esac
    opt=()
    grep -q 'corpus-flags:.*-rdc=true' "$stage/kernels/$(basename "$f" .ptx).cu" 2>/dev/null && opt=(-c)
    if ! "$ptxas" -suppress-stack-size-warning "${opt[@]}" -arch="$sm" "$f" -o /dev/null; then
      echo "gen-corpus: ptxas rejected $f" >&2
      failed=1
    fi
  done
fi

rm -rf "$stage"
size="$(du -sh "$out" | cut -f1)"
echo "gen-corpus: wrote $count PTX files ($size in tests/corpus/nvcc) with $("$nvcc" --version | tail -n 1)"
exit "$failed"
