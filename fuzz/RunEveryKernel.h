// What the VM fuzzers do with a module that parses (VmFuzzer.cpp, PtxGeneratorFuzzer.cpp): load it on
// an sm_90 device and run every kernel on a small grid, one worker, under an instruction budget and a
// small stack, with pointer parameters aimed into a valid buffer. Every outcome is fine but a crash, a
// hang or a leak: a refused load or launch, a fault, the memory budget.
#pragma once

#include "arch/GpuDatabase.h"
#include "support/MemoryBudget.h"
#include "vm/Device.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace ptxray::fuzz {

/// `pointerBytes`: the parameter sizes that get the buffer's address (4 and 8, or 8 alone).
inline void runEveryKernel(const std::string &text, std::vector<uint64_t> pointerBytes) {
  static const arch::ComputeCapability &cc = *arch::findArch("sm_90").target->computeCapability;
  vm::Device device(cc, 2);
  device.setHeapBytes(64 * 1024);
  vm::LoadedModule *module = nullptr;
  try {
    module = &device.loadModule("fuzz.ptx", text);
  } catch (const vm::VmError &) {
    return;
  } catch (const support::MemoryBudgetExceeded &) {
    return;
  }
  const uint64_t buffer = device.allocate(1 << 16, "fuzz buffer");
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
      if (std::find(pointerBytes.begin(), pointerBytes.end(), bytes) != pointerBytes.end()) {
        const uint64_t p = buffer + 1024;
        std::memcpy(a.data(), &p, static_cast<size_t>(bytes));
      }
      args.push_back(std::move(a));
    }
    try {
      (void)device.launch(*module, f.name, {{2, 1, 1}, {64, 1, 1}, 0}, args, options);
    } catch (const vm::VmError &) {
    }
  }
}

} // namespace ptxray::fuzz
