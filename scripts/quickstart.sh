#!/usr/bin/env bash
# From a fresh clone: install the build dependencies, build ptxray, and run it on the bundled example:
# the module summary, then both kernels on a modeled Tesla K40 with the performance model's report.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTXRAY_TESTS=OFF
cmake --build build/release
echo
echo "\$ ptxray parse examples/saxpy.ptx"
./build/release/src/cli/ptxray parse examples/saxpy.ptx
echo
echo "\$ ptxray run examples/saxpy.json --arch k40 --metrics"
./build/release/src/cli/ptxray run examples/saxpy.json --arch k40 --metrics
