// cudaGetDeviceProperties and cudaDeviceGetAttribute for the modeled GPU: every value from the
// architecture database (arch::cudaDeviceAttribute, which the device runtime answers a kernel with
// too: its compute capability's limits, the named GPU's SM count, memory and clocks). Without a named
// GPU (PTXRAY_ARCH=sm_XX), board values are those of one SM with no memory figures.
#include "runtime/Runtime.h"

#include "arch/DeviceAttributes.h"

#include <algorithm>
#include <cstring>

namespace ptxray::runtime {

cuda::Error Runtime::properties(cuda::DeviceProp *p, int device) const {
  if (!p)
    return cuda::kErrorInvalidValue;
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  const arch::ComputeCapability &cc = *target_.computeCapability;
  const arch::Gpu *gpu = target_.board(); // a compute capability alone: its reference board
  auto a = [&](int attribute) { return arch::cudaDeviceAttribute(cc, gpu, attribute, device).value_or(0); };
  std::memset(p, 0, sizeof *p);
  const std::string name = gpu ? gpu->name : cc.smName();
  std::strncpy(p->name, name.c_str(), sizeof p->name - 1);
  std::memcpy(p->uuid.bytes, "ptxray-virtualgp", 16);
  p->totalGlobalMem = gpu ? gpu->memoryBytes : 0;
  p->sharedMemPerBlock = static_cast<size_t>(a(cuda::AttrMaxSharedMemoryPerBlock));
  p->regsPerBlock = a(cuda::AttrMaxRegistersPerBlock);
  p->warpSize = a(cuda::AttrWarpSize);
  p->memPitch = static_cast<size_t>(a(cuda::AttrMaxPitch));
  p->maxThreadsPerBlock = a(cuda::AttrMaxThreadsPerBlock);
  for (int i = 0; i < 3; ++i) {
    p->maxThreadsDim[i] = a(cuda::AttrMaxBlockDimX + i);
    p->maxGridSize[i] = a(cuda::AttrMaxGridDimX + i);
  }
  p->totalConstMem = static_cast<size_t>(a(cuda::AttrTotalConstantMemory));
  p->major = a(cuda::AttrComputeCapabilityMajor);
  p->minor = a(cuda::AttrComputeCapabilityMinor);
  p->textureAlignment = static_cast<size_t>(a(cuda::AttrTextureAlignment));
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = a(cuda::AttrMultiProcessorCount);
  p->integrated = a(cuda::AttrIntegrated);
  p->canMapHostMemory = a(cuda::AttrCanMapHostMemory);
  p->concurrentKernels = a(cuda::AttrConcurrentKernels);
  p->ECCEnabled = a(cuda::AttrEccEnabled);
  p->asyncEngineCount = a(cuda::AttrAsyncEngineCount);
  p->unifiedAddressing = a(cuda::AttrUnifiedAddressing);
  p->memoryBusWidth = a(cuda::AttrGlobalMemoryBusWidth);
  p->l2CacheSize = a(cuda::AttrL2CacheSize);
  p->maxThreadsPerMultiProcessor = a(cuda::AttrMaxThreadsPerMultiProcessor);
  p->streamPrioritiesSupported = a(cuda::AttrStreamPrioritiesSupported);
  p->globalL1CacheSupported = a(cuda::AttrGlobalL1CacheSupported);
  p->localL1CacheSupported = a(cuda::AttrLocalL1CacheSupported);
  p->sharedMemPerMultiprocessor = static_cast<size_t>(a(cuda::AttrMaxSharedMemoryPerMultiprocessor));
  p->regsPerMultiprocessor = a(cuda::AttrMaxRegistersPerMultiprocessor);
  p->managedMemory = a(cuda::AttrManagedMemory);
  p->isMultiGpuBoard = a(cuda::AttrIsMultiGpuBoard);
  // The GPUs of one board share a group ID; each device its own bus (as separate PCIe devices).
  p->multiGpuBoardGroupID = gpu ? device / std::max(1, gpu->gpusPerBoard) : 0;
  p->pciBusID = a(cuda::AttrPciBusId);
  p->pageableMemoryAccess = a(cuda::AttrPageableMemoryAccess);
  p->concurrentManagedAccess = a(cuda::AttrConcurrentManagedAccess);
  p->computePreemptionSupported = a(cuda::AttrComputePreemptionSupported);
  p->canUseHostPointerForRegisteredMem = a(cuda::AttrCanUseHostPointerForRegisteredMem);
  p->cooperativeLaunch = a(cuda::AttrCooperativeLaunch);
  p->sharedMemPerBlockOptin = static_cast<size_t>(a(cuda::AttrMaxSharedMemoryPerBlockOptin));
  p->directManagedMemAccessFromHost = a(cuda::AttrDirectManagedMemAccessFromHost);
  p->maxBlocksPerMultiProcessor = a(cuda::AttrMaxBlocksPerMultiprocessor);
  p->reservedSharedMemPerBlock = static_cast<size_t>(a(cuda::AttrReservedSharedMemoryPerBlock));
  p->deviceNumaId = -1;
  p->hostNumaId = -1;
  return cuda::kSuccess;
}

cuda::Error Runtime::attribute(int *value, int attribute, int device) const {
  if (!value)
    return cuda::kErrorInvalidValue;
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  const std::optional<int> v =
      arch::cudaDeviceAttribute(*target_.computeCapability, target_.board(), attribute, device);
  if (!v)
    return cuda::kErrorInvalidValue;
  *value = *v;
  return cuda::kSuccess;
}

} // namespace ptxray::runtime
