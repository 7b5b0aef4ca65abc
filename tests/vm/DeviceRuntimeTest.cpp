// The device runtime's queries and copies, called by a kernel (dynamic parallelism): what it refuses
// and with which error, as an H200 answers (tests/kernels/cdp/device_runtime.cu, measured with
// CUDA 13 and driver 580), copies that run in order with the grids of their stream, and a copy of
// memory that is not the device's, a fault located at the call. tests/programs/cdp_runtime_api runs
// the rest (attributes, limits, error texts, 2D and 3D copies) against an H200's output.
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

const std::string &kernels() {
  static const std::string text = readFile(sourceDir() / "tests/kernels/cdp/device_runtime.ptx");
  return text;
}

TEST(DeviceRuntime, RefusesWhatAnH200Refuses) {
  VmHarness vm("sm_90");
  auto &m = vm.load(kernels());
  const uint64_t out = vm.zeros<int>(64);
  vm::LaunchResult r = vm.launch(m, "_Z8refusalsPi", {1, 1, 1}, {1, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  const std::vector<int> got = vm.download<int>(out, 10);
  // Device 1 of a one-GPU machine: answered all the same; a 2D copy wider than its pitch:
  // cudaErrorInvalidPitchValue; device to host: cudaErrorInvalidMemcpyDirection; a block of 0
  // threads: cudaErrorInvalidValue; attributes of a pointer that is no kernel: success; an unknown
  // limit: cudaErrorInvalidValue; a 2D set wider than its pitch: cudaErrorInvalidValue; an empty
  // copy: success; then the last error (the 2D set's), and none once it was read.
  const std::vector<int> h200 = {0, 12, 21, 1, 0, 1, 1, 0, 1, 0};
  EXPECT_EQ(got, h200);
}

TEST(DeviceRuntime, CopiesRunInOrderWithTheGridsOfTheirStream) {
  for (unsigned workers : {1u, 4u}) {
    VmHarness vm("sm_90");
    vm.options.threads = workers;
    auto &m = vm.load(kernels());
    std::vector<int> src(64);
    for (int i = 0; i < 64; ++i)
      src[i] = 10 + i;
    const uint64_t data = vm.zeros<int>(128), from = vm.upload(src);
    vm::LaunchResult r = vm.launch(m, "_Z7orderedPiPKi", {1, 1, 1}, {32, 1, 1}, data, from);
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.childGrids, 32u); // the copies are not grids
    const std::vector<int> got = vm.download<int>(data, 128);
    for (int t = 0; t < 32; ++t) {
      EXPECT_EQ(got[t], 11 + t) << t;      // copied, then the thread's grid added 1
      EXPECT_EQ(got[64 + t], 11 + t) << t; // copied after that grid
    }
  }
}

TEST(DeviceRuntime, ACopyOfMemoryThatIsNotTheDevicesFaultsAtTheCall) {
  VmHarness vm("sm_90");
  auto &m = vm.load(kernels());
  const uint64_t data = vm.zeros<int>(16);
  vm::LaunchResult r = vm.launch(m, "_Z9badSourcePi", {1, 1, 1}, {1, 1, 1}, data);
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  ASSERT_EQ(r.faults.size(), 1u);
  const vm::Fault &f = r.faults[0];
  EXPECT_EQ(f.kind, vm::FaultKind::OutOfBounds);
  EXPECT_EQ(f.address, 0x1000u);
  // The call is in cuda_device_runtime_api.h's inline cudaMemcpyAsync, inlined into the kernel's line.
  EXPECT_TRUE(f.sourceLine.ends_with("inlined into /tmp/ptxray-cdp-kernels/device_runtime.cu:42")) << f.sourceLine;
  EXPECT_NE(f.detail.find("__cudaCDP2MemcpyAsync: the source at 0x1000 (1 row of 16 bytes): the address is not in "
                          "any allocation"),
            std::string::npos)
      << f.detail;
}

TEST(DeviceRuntime, CopiesOfCountlessRowsAreRefusedAtOnce) {
  VmHarness vm("sm_90");
  auto &m = vm.load(kernels());
  const uint64_t out = vm.zeros<int>(64);
  vm::LaunchResult r = vm.launch(m, "_Z13hostileCopiesPi", {1, 1, 1}, {1, 1, 1}, out);
  // 2^60 slices of no rows each: they would overlap, cudaErrorInvalidValue.
  EXPECT_EQ(vm.download<int>(out, 1)[0], 1);
  // 2^40 rows 4 bytes apart from a 256-byte buffer: a fault at the call, found without visiting them.
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_NE(r.faults[0].detail.find("__cudaCDP2Memcpy2DAsync: the destination at 0x"), std::string::npos)
      << r.faults[0].detail;
  EXPECT_NE(r.faults[0].detail.find("(1099511627776 rows of 4 bytes, 4 bytes apart): the access of 4398046511104 "
                                    "bytes at offset 32 runs past the end of allocation of 256 bytes"),
            std::string::npos)
      << r.faults[0].detail;
}

} // namespace
} // namespace ptxray::test
