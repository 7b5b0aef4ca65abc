#!/usr/bin/env bash
# Builds every tests/programs/src/NAME.cu into tests/programs/bin/NAME with nvcc, against the shared
# CUDA runtime (libcudart.so.13), so that the binaries run unchanged on the real runtime or on
# ptxray's drop-in libcudart.so.13. Usage: tests/programs/build.sh [NAME...]  (default: all)
# nvcc: $NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc.
# Compiles from tests/programs with relative paths, so __FILE__ (in device assert messages) is
# "src/NAME.cu" wherever the checkout lives.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
[ -x "$nvcc" ] || { echo "build.sh: nvcc not found (set NVCC or put nvcc on PATH)" >&2; exit 2; }
cd "$here"
mkdir -p bin
if [ $# -gt 0 ]; then names=("$@"); else names=(rdc_link); for f in src/*.cu src/*.cpp; do names+=("$(basename "${f%.*}")"); done; fi
for name in "${names[@]}"; do
  case "$name" in
  driver_kernels)
    # PTX that driver_api loads at run time with cuModuleLoadData.
    echo "nvcc -ptx src/$name.cu -> bin/$name.ptx"
    "$nvcc" -arch=sm_90 -lineinfo -ptx -o "bin/$name.ptx" "src/$name.cu" ;;
  cdp_launches | cdp_mandelbrot | cdp_quadtree | cdp_runtime_api)
    # Dynamic parallelism: device-side launches need relocatable device code and the device runtime.
    echo "nvcc -rdc=true src/$name.cu -> bin/$name"
    "$nvcc" -rdc=true -arch=sm_90 -lineinfo -cudart shared -o "bin/$name" "src/$name.cu" ;;
  jit_link)
    # Host code only, the driver API's JIT linker on rdc_link's units as PTX (nvcc -ptx -rdc=true).
    echo "nvcc src/$name.cpp -> bin/$name, bin/${name}_main.ptx, bin/${name}_lib.ptx"
    "$nvcc" -cudart none -o "bin/$name" "src/$name.cpp" -lcuda
    for unit in main lib; do
      "$nvcc" -ptx -rdc=true -arch=sm_90 -lineinfo -o "bin/${name}_$unit.ptx" "src/rdc_link/$unit.cu"
    done ;;
  driver_api)
    # Host code only (a .cpp file), the driver API only: no runtime (-cudart none), libcuda.so.1.
    echo "nvcc src/$name.cu -> bin/$name (driver API)"
    "$nvcc" -cudart none -o "bin/$name" "src/$name.cpp" -lcuda ;;
  rdc_link)
    # Device code in several translation units (src/rdc_link/*.cu), linked: nvcc -rdc=true. Also with
    # PTX alone (rdc_link_ptx), where nvlink links nothing and the driver's JIT linker does it all.
    echo "nvcc -rdc=true src/$name/*.cu -> bin/$name, bin/${name}_ptx"
    "$nvcc" -rdc=true -arch=sm_90 -lineinfo -cudart shared -o "bin/$name" src/$name/main.cu src/$name/lib.cu
    "$nvcc" -rdc=true -gencode arch=compute_90,code=compute_90 -lineinfo -cudart shared -o "bin/${name}_ptx" \
      src/$name/main.cu src/$name/lib.cu ;;
  *)
    echo "nvcc src/$name.cu -> bin/$name"
    "$nvcc" -arch=sm_90 -lineinfo -cudart shared -o "bin/$name" "src/$name.cu" ;;
  esac
done

# Variants of vector_add for the fatbinary reader, built with the full set (no NAME given):
#   _nocompress  the PTX stored as is (nvcc 13 compresses it with zstd by default)
#   _sass        SASS only, no PTX: ptxray must refuse it with a clear error
#   _multi       PTX for compute_75 and compute_90: the runtime picks the newest the GPU can run
# The same programs with nvcc's default static runtime (libcudart_static inside the executable, which
# loads libcuda.so.1, the driver API): bin/static/NAME, stripped.
static_programs=(vector_add matmul_tiled reduction_streams histogram symbols printf managed managed_var textures edge_cases error_oob
  error_launch assert forward_progress multi_gpu graphs runtime_calls)
if [ $# -eq 0 ]; then
  mkdir -p bin/static
  for name in "${static_programs[@]}"; do
    echo "nvcc src/$name.cu -> bin/static/$name (static runtime)"
    "$nvcc" -arch=sm_90 -lineinfo -o "bin/static/$name" "src/$name.cu"
    strip "bin/static/$name"
  done
  # Relocatable device code and dynamic parallelism with the static runtime, which hands the driver
  # the version-2 wrapper of the linked units.
  echo "nvcc -rdc=true src/rdc_link/*.cu, src/cdp_{launches,quadtree,runtime_api}.cu -> bin/static/{rdc_link,cdp_launches,cdp_quadtree,cdp_runtime_api} (static runtime)"
  "$nvcc" -rdc=true -arch=sm_90 -lineinfo -o bin/static/rdc_link src/rdc_link/main.cu src/rdc_link/lib.cu
  "$nvcc" -rdc=true -arch=sm_90 -lineinfo -o bin/static/cdp_launches src/cdp_launches.cu
  "$nvcc" -rdc=true -arch=sm_90 -lineinfo -o bin/static/cdp_quadtree src/cdp_quadtree.cu
  "$nvcc" -rdc=true -arch=sm_90 -lineinfo -o bin/static/cdp_runtime_api src/cdp_runtime_api.cu
  strip bin/static/rdc_link bin/static/cdp_launches bin/static/cdp_quadtree bin/static/cdp_runtime_api
  # The self-timing program with the static runtime (not in bin/static/: no expected output).
  echo "nvcc src/timing.cu -> bin/timing_static (static runtime)"
  "$nvcc" -arch=sm_90 -lineinfo -o bin/timing_static src/timing.cu
  strip bin/timing_static
  echo "nvcc src/vector_add.cu -> bin/vector_add_{nocompress,sass,multi}"
  "$nvcc" -arch=sm_90 -lineinfo -cudart shared --no-compress -o bin/vector_add_nocompress src/vector_add.cu
  "$nvcc" -gencode arch=compute_90,code=sm_90 -lineinfo -cudart shared -o bin/vector_add_sass src/vector_add.cu
  "$nvcc" -gencode arch=compute_75,code=compute_75 -gencode arch=compute_90,code=compute_90 -lineinfo \
    -cudart shared -o bin/vector_add_multi src/vector_add.cu
fi
