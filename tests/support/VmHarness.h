// Test helper around vm::Device: load PTX, move typed arrays in and out, launch with typed arguments.
#pragma once

#include "arch/GpuDatabase.h"
#include "support/SanitizerWatch.h"
#include "vm/Device.h"

#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace ptxray::test {

inline const arch::ComputeCapability &computeCapability(const char *name) {
  auto found = arch::findArch(name);
  if (!found)
    throw std::runtime_error(found.error);
  return *found.target->computeCapability;
}

template <class T> std::vector<std::byte> argBytes(T value) {
  std::vector<std::byte> b(sizeof(T));
  std::memcpy(b.data(), &value, sizeof(T));
  return b;
}

class VmHarness {
public:
  explicit VmHarness(const char *arch = "sm_90")
      : sanitizerWatch(
            SanitizerWatch::fromEnvironment(computeCapability(arch).major * 10 + computeCapability(arch).minor)),
        device(computeCapability(arch), 4) {
    if (sanitizerWatch) {
      device.setListener(sanitizerWatch->listener());
    }
  }
  ~VmHarness() {
    if (sanitizerWatch)
      sanitizerWatch->expectClean();
  }
  VmHarness(const VmHarness &) = delete;
  VmHarness &operator=(const VmHarness &) = delete;

  vm::LoadedModule &load(const std::string &ptx, const std::string &name = "test.ptx") {
    return device.loadModule(name, ptx);
  }

  template <class T> uint64_t upload(const std::vector<T> &data) {
    uint64_t a = device.allocate(data.size() * sizeof(T));
    device.copyToDevice(a, std::as_bytes(std::span(data)));
    return a;
  }
  template <class T> uint64_t zeros(size_t count) {
    uint64_t a = device.allocate(count * sizeof(T));
    return a;
  }
  template <class T> std::vector<T> download(uint64_t address, size_t count) {
    std::vector<T> out(count);
    device.copyFromDevice(std::as_writable_bytes(std::span(out)), address);
    return out;
  }

  template <class... Args>
  vm::LaunchResult launch(const vm::LoadedModule &module, const std::string &kernel, vm::Dim3 grid, vm::Dim3 block,
                          Args... args) {
    std::vector<std::vector<std::byte>> bytes{argBytes(args)...};
    return device.launch(module, kernel, {grid, block, dynamicShared, cooperative}, bytes, options);
  }

  /// With PTXRAY_TEST_SANITIZERS set: every tool listens to the launches made with `options`
  /// (declared before the device, which holds a pointer to it until it is destroyed).
  std::unique_ptr<SanitizerWatch> sanitizerWatch;
  vm::Device device;
  vm::LaunchOptions options = [] {
    vm::LaunchOptions o;
    o.threads = 1;
    return o;
  }();
  uint32_t dynamicShared = 0;
  bool cooperative = false; ///< launches are cudaLaunchCooperativeKernel's
};

/// `body` (kernels, functions, variables) as a PTX 8.0 module for sm_90 with 64-bit addresses.
inline std::string sm90Module(const std::string &body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n" + body;
}

/// `s` with every occurrence of `from` replaced by `to` (PTX templates instantiated per type).
inline std::string replaceAll(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// Every fault of a launch, for test failure messages.
inline std::string describe(const vm::LaunchResult &r) {
  std::string s = r.error + "\n";
  for (const vm::Fault &f : r.faults)
    s += f.describe();
  return s;
}

} // namespace ptxray::test
