// The CUDA runtime's numbers that both its host API (src/runtime) and the device runtime a kernel
// calls (dynamic parallelism, src/vm) answer with: cudaError_t with its names and texts, cudaDeviceAttr
// and cudaLimit, as CUDA 13's driver_types.h numbers them.
#pragma once

#include <span>

namespace ptxray::abi::cuda {

using Error = int; ///< cudaError_t

// cudaError_t values.
inline constexpr Error kSuccess = 0;
inline constexpr Error kErrorInvalidValue = 1;
inline constexpr Error kErrorMemoryAllocation = 2;
inline constexpr Error kErrorInitializationError = 3;
inline constexpr Error kErrorInvalidConfiguration = 9;
inline constexpr Error kErrorInvalidPitchValue = 12;
inline constexpr Error kErrorInvalidSymbol = 13;
inline constexpr Error kErrorInvalidHostPointer = 16;
inline constexpr Error kErrorInvalidDevicePointer = 17;
inline constexpr Error kErrorInvalidTexture = 18;
inline constexpr Error kErrorInvalidChannelDescriptor = 20;
inline constexpr Error kErrorInvalidMemcpyDirection = 21;
inline constexpr Error kErrorMissingConfiguration = 52;
inline constexpr Error kErrorLaunchMaxDepthExceeded = 65;
inline constexpr Error kErrorLaunchPendingCountExceeded = 69;
inline constexpr Error kErrorInvalidDeviceFunction = 98;
inline constexpr Error kErrorNoDevice = 100;
inline constexpr Error kErrorInvalidDevice = 101;
inline constexpr Error kErrorInvalidKernelImage = 200;
inline constexpr Error kErrorNoKernelImageForDevice = 209;
inline constexpr Error kErrorUnsupportedLimit = 215;
inline constexpr Error kErrorInvalidPtx = 218;
inline constexpr Error kErrorFileNotFound = 301;
inline constexpr Error kErrorInvalidSource = 300;
inline constexpr Error kErrorInvalidResourceHandle = 400;
inline constexpr Error kErrorSymbolNotFound = 500;
inline constexpr Error kErrorNotReady = 600;
inline constexpr Error kErrorIllegalAddress = 700;
inline constexpr Error kErrorPeerAccessAlreadyEnabled = 704;
inline constexpr Error kErrorPeerAccessNotEnabled = 705;
inline constexpr Error kErrorLaunchOutOfResources = 701;
inline constexpr Error kErrorLaunchTimeout = 702;
inline constexpr Error kErrorAssert = 710;
inline constexpr Error kErrorHardwareStackError = 714;
inline constexpr Error kErrorIllegalInstruction = 715;
inline constexpr Error kErrorMisalignedAddress = 716;
inline constexpr Error kErrorInvalidAddressSpace = 717;
inline constexpr Error kErrorInvalidPc = 718;
inline constexpr Error kErrorLaunchFailure = 719;
inline constexpr Error kErrorHostMemoryAlreadyRegistered = 712;
inline constexpr Error kErrorHostMemoryNotRegistered = 713;
inline constexpr Error kErrorCooperativeLaunchTooLarge = 720;
inline constexpr Error kErrorNotSupported = 801;
inline constexpr Error kErrorUnknown = 999;

/// One cudaError_t with what cudaGetErrorName and cudaGetErrorString say of it.
struct ErrorText {
  Error error;
  const char *name;
  const char *text;
};
/// Every error the table names, cudaSuccess first.
std::span<const ErrorText> errorTexts();
/// cudaGetErrorName / cudaGetErrorString: for a value the table lacks, what CUDA says of those.
const char *errorName(Error error);
const char *errorString(Error error);
inline constexpr const char *kUnknownErrorName = "cudaErrorUnknown";
inline constexpr const char *kUnknownErrorText = "unrecognized error code";

// cudaDeviceAttr values the database answers (arch/DeviceAttributes.h); the others read 0.
enum DeviceAttr : int {
  AttrMaxThreadsPerBlock = 1,
  AttrMaxBlockDimX = 2,
  AttrMaxBlockDimY = 3,
  AttrMaxBlockDimZ = 4,
  AttrMaxGridDimX = 5,
  AttrMaxGridDimY = 6,
  AttrMaxGridDimZ = 7,
  AttrMaxSharedMemoryPerBlock = 8,
  AttrTotalConstantMemory = 9,
  AttrWarpSize = 10,
  AttrMaxPitch = 11,
  AttrMaxRegistersPerBlock = 12,
  AttrClockRate = 13,
  AttrTextureAlignment = 14,
  AttrGpuOverlap = 15,
  AttrMultiProcessorCount = 16,
  AttrKernelExecTimeout = 17,
  AttrIntegrated = 18,
  AttrCanMapHostMemory = 19,
  AttrComputeMode = 20,
  AttrConcurrentKernels = 31,
  AttrEccEnabled = 32,
  AttrPciBusId = 33,
  AttrPciDeviceId = 34,
  AttrTccDriver = 35,
  AttrMemoryClockRate = 36,
  AttrGlobalMemoryBusWidth = 37,
  AttrL2CacheSize = 38,
  AttrMaxThreadsPerMultiProcessor = 39,
  AttrAsyncEngineCount = 40,
  AttrUnifiedAddressing = 41,
  AttrPciDomainId = 50,
  AttrComputeCapabilityMajor = 75,
  AttrComputeCapabilityMinor = 76,
  AttrStreamPrioritiesSupported = 78,
  AttrGlobalL1CacheSupported = 79,
  AttrLocalL1CacheSupported = 80,
  AttrMaxSharedMemoryPerMultiprocessor = 81,
  AttrMaxRegistersPerMultiprocessor = 82,
  AttrManagedMemory = 83,
  AttrIsMultiGpuBoard = 84,
  AttrPageableMemoryAccess = 88,
  AttrConcurrentManagedAccess = 89,
  AttrComputePreemptionSupported = 90,
  AttrCanUseHostPointerForRegisteredMem = 91,
  AttrCooperativeLaunch = 95,
  AttrMaxSharedMemoryPerBlockOptin = 97,
  AttrDirectManagedMemAccessFromHost = 101,
  AttrMaxBlocksPerMultiprocessor = 106,
  AttrReservedSharedMemoryPerBlock = 111,
};

// cudaLimit values.
enum Limit : int {
  LimitStackSize = 0,
  LimitPrintfFifoSize = 1,
  LimitMallocHeapSize = 2,
  LimitDevRuntimeSyncDepth = 3,
  LimitDevRuntimePendingLaunchCount = 4,
  LimitMaxL2FetchGranularity = 5,
  LimitPersistingL2CacheSize = 6,
};

} // namespace ptxray::abi::cuda
