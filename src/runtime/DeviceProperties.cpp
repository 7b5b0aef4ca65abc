// cudaGetDeviceProperties and cudaDeviceGetAttribute for the modeled GPU: every value from the
// architecture database (its compute capability's limits, the named GPU's SM count, memory and
// clocks). Without a named GPU (PTXRAY_ARCH=sm_XX), board values are those of one SM with no
// memory figures.
#include "runtime/Runtime.h"

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
  std::memset(p, 0, sizeof *p);
  const std::string name = gpu ? gpu->name : cc.smName();
  std::strncpy(p->name, name.c_str(), sizeof p->name - 1);
  std::memcpy(p->uuid.bytes, "ptxray-virtualgp", 16);
  p->totalGlobalMem = gpu ? gpu->memoryBytes : 0;
  p->sharedMemPerBlock = static_cast<size_t>(cc.sharedPerBlock);
  p->regsPerBlock = cc.maxRegistersPerBlock;
  p->warpSize = cc.warpSize;
  p->memPitch = 2147483647; // cudaMallocPitch's limit on every GPU since CC 1.0
  p->maxThreadsPerBlock = cc.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    p->maxThreadsDim[i] = cc.maxBlockDim[i];
    p->maxGridSize[i] = static_cast<int>(std::min<int64_t>(cc.maxGridDim[i], 2147483647));
  }
  p->totalConstMem = static_cast<size_t>(cc.constantMemoryBytes);
  p->major = cc.major;
  p->minor = cc.minor;
  p->textureAlignment = 512; // what every CUDA GPU since CC 2.0 reports
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = gpu ? gpu->smCount : 1;
  p->integrated = gpu && !gpu->pcieGeneration ? 1 : 0;
  p->canMapHostMemory = 1;
  p->concurrentKernels = cc.maxResidentGrids > 1 ? 1 : 0;
  p->ECCEnabled = gpu && gpu->ecc ? 1 : 0;
  p->asyncEngineCount = gpu ? gpu->copyEngines : 1;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = gpu ? gpu->memoryBusWidthBits : 0;
  p->l2CacheSize = gpu ? gpu->l2CacheBytes : 0;
  p->maxThreadsPerMultiProcessor = cc.maxThreadsPerSm;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = cc.global.l1LineBytes > 0 ? 1 : 0;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = static_cast<size_t>(cc.sharedPerSm);
  p->regsPerMultiprocessor = cc.registersPerSm;
  p->managedMemory = 1;
  p->isMultiGpuBoard = gpu && gpu->gpusPerBoard > 1 ? 1 : 0;
  // The GPUs of one board share a group ID; each device its own bus (as separate PCIe devices).
  p->multiGpuBoardGroupID = gpu ? device / std::max(1, gpu->gpusPerBoard) : 0;
  p->pciBusID = device;
  p->concurrentManagedAccess = 1;
  p->computePreemptionSupported = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = static_cast<size_t>(cc.sharedPerBlockOptIn);
  p->directManagedMemAccessFromHost = 1;
  p->maxBlocksPerMultiProcessor = cc.maxBlocksPerSm;
  p->reservedSharedMemPerBlock = static_cast<size_t>(cc.sharedReservedPerBlock);
  p->deviceNumaId = -1;
  p->hostNumaId = -1;
  return cuda::kSuccess;
}

cuda::Error Runtime::attribute(int *value, int attribute, int device) const {
  if (!value)
    return cuda::kErrorInvalidValue;
  cuda::DeviceProp p;
  if (cuda::Error e = properties(&p, device))
    return e;
  const arch::Gpu *gpu = target_.board(); // a compute capability alone: its reference board
  switch (attribute) {
  case cuda::AttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
  case cuda::AttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
  case cuda::AttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
  case cuda::AttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
  case cuda::AttrMaxGridDimX: *value = p.maxGridSize[0]; break;
  case cuda::AttrMaxGridDimY: *value = p.maxGridSize[1]; break;
  case cuda::AttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
  case cuda::AttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
  case cuda::AttrTotalConstantMemory: *value = static_cast<int>(p.totalConstMem); break;
  case cuda::AttrWarpSize: *value = p.warpSize; break;
  case cuda::AttrMaxPitch: *value = static_cast<int>(p.memPitch); break;
  case cuda::AttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
  case cuda::AttrClockRate: *value = gpu ? gpu->maxBoostClockMHz() * 1000 : 0; break;
  case cuda::AttrTextureAlignment: *value = static_cast<int>(p.textureAlignment); break;
  case cuda::AttrGpuOverlap: *value = p.asyncEngineCount > 0; break;
  case cuda::AttrMultiProcessorCount: *value = p.multiProcessorCount; break;
  case cuda::AttrKernelExecTimeout: *value = 0; break;
  case cuda::AttrIntegrated: *value = p.integrated; break;
  case cuda::AttrCanMapHostMemory: *value = p.canMapHostMemory; break;
  case cuda::AttrComputeMode: *value = 0; break;
  case cuda::AttrConcurrentKernels: *value = p.concurrentKernels; break;
  case cuda::AttrEccEnabled: *value = p.ECCEnabled; break;
  case cuda::AttrPciBusId: *value = p.pciBusID; break;
  case cuda::AttrPciDeviceId:
  case cuda::AttrTccDriver: *value = 0; break;
  case cuda::AttrMemoryClockRate: *value = gpu ? gpu->memoryClockMHz * 1000 : 0; break;
  case cuda::AttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
  case cuda::AttrL2CacheSize: *value = p.l2CacheSize; break;
  case cuda::AttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
  case cuda::AttrAsyncEngineCount: *value = p.asyncEngineCount; break;
  case cuda::AttrUnifiedAddressing: *value = p.unifiedAddressing; break;
  case cuda::AttrComputeCapabilityMajor: *value = p.major; break;
  case cuda::AttrComputeCapabilityMinor: *value = p.minor; break;
  case cuda::AttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
  case cuda::AttrGlobalL1CacheSupported: *value = p.globalL1CacheSupported; break;
  case cuda::AttrLocalL1CacheSupported: *value = p.localL1CacheSupported; break;
  case cuda::AttrMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(p.sharedMemPerMultiprocessor); break;
  case cuda::AttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
  case cuda::AttrManagedMemory: *value = p.managedMemory; break;
  case cuda::AttrIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
  case cuda::AttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
  case cuda::AttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); break;
  case cuda::AttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
  case cuda::AttrReservedSharedMemoryPerBlock: *value = static_cast<int>(p.reservedSharedMemPerBlock); break;
  case 50: *value = 0; break; // PCI domain
  case 88: *value = p.pageableMemoryAccess; break;
  case 89: *value = p.concurrentManagedAccess; break;
  case 90: *value = p.computePreemptionSupported; break;
  case 91: *value = p.canUseHostPointerForRegisteredMem; break;
  case 101: *value = p.directManagedMemAccessFromHost; break;
  default:
    // Attributes the architecture database has no value for (texture limits, NUMA, memory pools...)
    // read 0, as for a GPU without the feature; only numbers outside CUDA's range are refused.
    if (attribute <= 0 || attribute >= 256)
      return cuda::kErrorInvalidValue;
    *value = 0;
    break;
  }
  return cuda::kSuccess;
}

} // namespace ptxray::runtime
