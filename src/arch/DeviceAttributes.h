// cudaDeviceGetAttribute for a modeled GPU: what the CUDA runtime's host API (src/runtime) and the
// device runtime a kernel calls (dynamic parallelism, src/vm) answer, from the database.
#pragma once

#include "arch/GpuDatabase.h"

#include <optional>

namespace ptxray::arch {

/// The value of cudaDeviceAttr `attribute` (abi::cuda::DeviceAttr numbers) for device `device` of
/// `cc` on `board` (nullptr: a compute capability alone: one SM, no memory or clock figures); nullopt
/// for a number outside CUDA's range (cudaErrorInvalidValue). Attributes the database has no value for
/// (texture limits, NUMA, memory pools...) read 0, as for a GPU without the feature.
std::optional<int> cudaDeviceAttribute(const ComputeCapability &cc, const Gpu *board, int attribute, int device = 0);

} // namespace ptxray::arch
