#include "arch/DeviceAttributes.h"

#include "abi/CudaRuntimeAbi.h"

#include <algorithm>
#include <cstdint>

namespace ptxray::arch {

std::optional<int> cudaDeviceAttribute(const ComputeCapability &cc, const Gpu *gpu, int attribute, int device) {
  namespace cuda = abi::cuda;
  auto gridLimit = [&](int i) { return static_cast<int>(std::min<int64_t>(cc.maxGridDim[i], 2147483647)); };
  switch (attribute) {
  case cuda::AttrMaxThreadsPerBlock: return cc.maxThreadsPerBlock;
  case cuda::AttrMaxBlockDimX: return cc.maxBlockDim[0];
  case cuda::AttrMaxBlockDimY: return cc.maxBlockDim[1];
  case cuda::AttrMaxBlockDimZ: return cc.maxBlockDim[2];
  case cuda::AttrMaxGridDimX: return gridLimit(0);
  case cuda::AttrMaxGridDimY: return gridLimit(1);
  case cuda::AttrMaxGridDimZ: return gridLimit(2);
  case cuda::AttrMaxSharedMemoryPerBlock: return cc.sharedPerBlock;
  case cuda::AttrTotalConstantMemory: return static_cast<int>(cc.constantMemoryBytes);
  case cuda::AttrWarpSize: return cc.warpSize;
  case cuda::AttrMaxPitch: return 2147483647; // cudaMallocPitch's limit on every GPU since CC 1.0
  case cuda::AttrMaxRegistersPerBlock: return cc.maxRegistersPerBlock;
  case cuda::AttrClockRate: return gpu ? gpu->maxBoostClockMHz() * 1000 : 0;
  case cuda::AttrTextureAlignment: return 512; // what every CUDA GPU since CC 2.0 reports
  case cuda::AttrGpuOverlap: return gpu ? (gpu->copyEngines > 0 ? 1 : 0) : 1;
  case cuda::AttrMultiProcessorCount: return gpu ? gpu->smCount : 1;
  case cuda::AttrKernelExecTimeout: return 0;
  case cuda::AttrIntegrated: return gpu && !gpu->pcieGeneration ? 1 : 0;
  case cuda::AttrCanMapHostMemory: return 1;
  case cuda::AttrComputeMode: return 0;
  case cuda::AttrConcurrentKernels: return cc.maxResidentGrids > 1 ? 1 : 0;
  case cuda::AttrEccEnabled: return gpu && gpu->ecc ? 1 : 0;
  case cuda::AttrPciBusId: return device; // each device a bus of its own, as separate PCIe devices
  case cuda::AttrPciDeviceId:
  case cuda::AttrTccDriver: return 0;
  case cuda::AttrMemoryClockRate: return gpu ? gpu->memoryClockMHz * 1000 : 0;
  case cuda::AttrGlobalMemoryBusWidth: return gpu ? gpu->memoryBusWidthBits : 0;
  case cuda::AttrL2CacheSize: return gpu ? static_cast<int>(gpu->l2CacheBytes) : 0;
  case cuda::AttrMaxThreadsPerMultiProcessor: return cc.maxThreadsPerSm;
  case cuda::AttrAsyncEngineCount: return gpu ? gpu->copyEngines : 1;
  case cuda::AttrUnifiedAddressing: return 1;
  case cuda::AttrComputeCapabilityMajor: return cc.major;
  case cuda::AttrComputeCapabilityMinor: return cc.minor;
  case cuda::AttrStreamPrioritiesSupported: return 1;
  case cuda::AttrGlobalL1CacheSupported: return cc.global.l1LineBytes > 0 ? 1 : 0;
  case cuda::AttrLocalL1CacheSupported: return 1;
  case cuda::AttrMaxSharedMemoryPerMultiprocessor: return cc.sharedPerSm;
  case cuda::AttrMaxRegistersPerMultiprocessor: return cc.registersPerSm;
  case cuda::AttrManagedMemory: return 1;
  case cuda::AttrIsMultiGpuBoard: return gpu && gpu->gpusPerBoard > 1 ? 1 : 0;
  case cuda::AttrCooperativeLaunch: return 1;
  case cuda::AttrMaxSharedMemoryPerBlockOptin: return cc.sharedPerBlockOptIn;
  case cuda::AttrMaxBlocksPerMultiprocessor: return cc.maxBlocksPerSm;
  case cuda::AttrReservedSharedMemoryPerBlock: return cc.sharedReservedPerBlock;
  case cuda::AttrConcurrentManagedAccess:
  case cuda::AttrComputePreemptionSupported:
  case cuda::AttrDirectManagedMemAccessFromHost: return 1;
  default:
    if (attribute <= 0 || attribute >= 256)
      return std::nullopt;
    return 0;
  }
}

} // namespace ptxray::arch
