// The real-kernel set (issue #16): tiled SGEMM, transpose, bitonic sorts, histogram, stencil, scan,
// reductions, a grid-stride loop and a divergent loop, from bench/kernels/real_kernels.cu. Each case
// sets up its inputs on a device, names its launches, and checks the results against a CPU
// reference, so that the benchmark (RealKernelBench.cpp) and the test (tests/vm/RealKernelsTest.cpp)
// run exactly the same work.
#pragma once

#include "vm/Device.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxray::bench {

/// One kernel launch of a case.
struct RealLaunch {
  std::string entry;
  vm::LaunchConfig config;
  std::vector<std::vector<std::byte>> args;
};

class RealKernel {
public:
  virtual ~RealKernel() = default;
  virtual std::string name() const = 0;
  /// Allocates the buffers on `device` and fills the inputs (deterministic pseudo-random data).
  virtual void setUp(vm::Device &device) = 0;
  /// The launches of one run, in order.
  virtual std::vector<RealLaunch> launches() const = 0;
  /// After one run: the results against a CPU reference; empty when they agree.
  virtual std::string check(vm::Device &device) const = 0;
};

/// Every case, in a fixed order.
std::vector<std::unique_ptr<RealKernel>> realKernels();

/// Worker counts the benchmarks run with: 1 and 2, or $PTXRAY_BENCH_WORKERS ("1,2,4,8,16", as
/// validation/vm/scaling.sh sets it).
std::vector<int64_t> workerCounts();

/// The path of bench/kernels/real_kernels.ptx in the source tree (or under $PTXRAY_SOURCE_DIR).
std::string realKernelsPtxPath();

} // namespace ptxray::bench
