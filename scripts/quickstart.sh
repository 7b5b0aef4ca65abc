#!/usr/bin/env bash
# From a fresh clone: install the build dependencies, build ptxray, and run it on the bundled examples:
# the module summary, both saxpy kernels on a modeled Tesla K40 with the performance model's report,
# then the main job: `ptxray analyze` of the OpenCL guide's C = AA^T steps on a Tesla K20X, with an
# HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
# What a user needs: the tool and its libraries (the tests and benchmarks come with scripts/test.sh).
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTXRAY_TESTS=OFF -DPTXRAY_BENCH=OFF
cmake --build build/release
echo
echo "ptxray is build/release/src/cli/ptxray; 'cmake --install build/release --prefix ~/.local' puts it in"
echo "~/.local/bin with its CUDA and OpenCL libraries beside it (lib/ptxray-cuda, lib/ptxray-opencl)."
echo
echo "\$ ptxray parse examples/saxpy.ptx"
./build/release/src/cli/ptxray parse examples/saxpy.ptx
echo
echo "\$ ptxray run examples/saxpy.json --arch k40 --metrics"
./build/release/src/cli/ptxray run examples/saxpy.json --arch k40 --metrics
echo
echo "\$ ptxray analyze examples/guide/aat.json --arch k20x --quiet --html build/release/aat-analysis.html"
./build/release/src/cli/ptxray analyze examples/guide/aat.json --arch k20x --quiet --html build/release/aat-analysis.html
echo
echo "The HTML report (summary, findings, annotated source, per-line views, occupancy charts):"
echo "  build/release/aat-analysis.html"
