// libFuzzer target for the virtual GPU: any PTX that verifies must load, and every kernel must run to
// completion or stop with a reported fault (bad address, budget, deadlock...), never crash, hang or
// leak. Kernels get small launches, zero scalars and pointers to a small valid buffer.
#include "arch/GpuDatabase.h"
#include "ptx/Parser.h"
#include "vm/Device.h"

#include <cstring>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace ptxray;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!ptx::parseModule("fuzz.ptx", text).ok())
    return 0;
  static const arch::ComputeCapability &cc = *arch::findArch("sm_90").target->computeCapability;
  vm::Device device(cc, 2);
  device.setHeapBytes(64 * 1024);
  vm::LoadedModule *module = nullptr;
  try {
    module = &device.loadModule("fuzz.ptx", text);
  } catch (const vm::VmError &) {
    return 0;
  }
  uint64_t buffer = device.allocate(4096, "fuzz buffer");
  vm::LaunchOptions options;
  options.threads = 1;
  options.maxInstructions = 200'000;
  options.stackBytesPerThread = 16 * 1024;
  options.maxCallDepth = 64;
  for (const vm::DecodedFunction &f : module->program().functions) {
    if (!f.isEntry)
      continue;
    std::vector<std::vector<std::byte>> args;
    for (uint64_t bytes : f.paramSizes) {
      std::vector<std::byte> a(static_cast<size_t>(std::min<uint64_t>(bytes, 1 << 16)));
      if (bytes == 8 || bytes == 4) {
        uint64_t p = buffer + 256;
        std::memcpy(a.data(), &p, static_cast<size_t>(bytes));
      }
      args.push_back(std::move(a));
    }
    try {
      (void)device.launch(*module, f.name, {{2, 1, 1}, {64, 1, 1}, 0}, args, options);
    } catch (const vm::VmError &) {
    }
  }
  return 0;
}
