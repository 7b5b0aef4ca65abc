#!/usr/bin/env bash
# Installs the Debian 12 packages ptxray needs: to build and use it (the quick start), or, with
# --tests, also to test, fuzz and benchmark it (scripts/test.sh). Idempotent: packages already present
# are skipped, so a second run does nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # toolchain (g++ 12, CMake >= 3.25)
  libcli11-dev nlohmann-json3-dev libfmt-dev     # CLI, JSON output, formatting
  libzstd-dev                                    # nvcc 13 compresses the PTX it embeds in programs
  clang libclc-14                                # OpenCL C -> PTX: clang 14 and libclc's nvptx64 library
  opencl-headers ocl-icd-opencl-dev              # ptxray's OpenCL platform (ICD) and the OpenCL programs
  ocl-icd-libopencl1                             # the ICD loader OpenCL programs link
  pybind11-dev python3-dev python3-numpy         # the Python module (src/python, docs/python.md)
  python3-distributed                            # `ptxray sweep` on Dask (docs/sweep.md)
)
if [ "${1:-}" = --tests ]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev   # tests and benchmarks
    librapidcheck-dev                            # property tests
    python3-pytest                               # the Python module's tests (tests/python)
    libclang-rt-14-dev                           # libFuzzer targets, the sanitizer build (clang 14)
    pocl-opencl-icd                              # PoCL, the reference the OpenCL tests compare with
    clang-format                                 # the code style in .clang-format
    chromium fonts-dejavu-core python3           # HTML report screenshot test (tests/report)
    libxml2-utils                                # xmllint: SVG/HTML well-formedness in tests
  )
elif [ $# -gt 0 ]; then
  echo "usage: scripts/install-deps.sh [--tests]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
