// Memory that host code and kernels reach at the same address, as unified addressing gives managed
// memory (cudaMallocManaged) and page-locked host memory (cudaMallocHost): pages mapped at a fixed
// address inside the VM's global range and adopted by its DeviceMemory, so the pointer the program
// gets is both a host pointer and a device address. Ranges are taken from the top of the global range
// downwards and never reused, like every other device address.
#pragma once

#include "vm/Memory.h"

#include <cstdint>
#include <string>

namespace ptxray::runtime {

/// Maps `bytes` below `top` (lowering it) and adopts them; null when no room is left.
void *mapHostMemory(vm::DeviceMemory &memory, uint64_t &top, uint64_t bytes, vm::AllocationKind kind,
                    std::string label);
/// Releases and unmaps an adopted allocation; false when `base` is not one.
bool unmapHostMemory(vm::DeviceMemory &memory, uint64_t base);

} // namespace ptxray::runtime
