// The CUDA runtime API's types as programs built by nvcc 13 see them: the same sizes, field order and
// enumerator values (CUDA 13's driver_types.h and vector_types.h), declared here so that ptxray builds
// without the CUDA toolkit. Only what libcudart.so.13 (CudartExports.cpp) takes or fills is declared;
// the layout checks at the end (offsets measured with nvcc 13 on x86-64) pin what a mistake would
// silently corrupt.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi/CudaRuntimeAbi.h"

namespace ptxray::runtime::cuda {

// cudaError_t, its names and texts, cudaDeviceAttr and cudaLimit: shared with the device runtime.
using namespace ::ptxray::abi::cuda;

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// cudaMemcpyKind
enum MemcpyKind : int { HostToHost = 0, HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3, Default = 4 };

// cudaMemoryType (cudaPointerAttributes::type)
enum MemoryType : int { Unregistered = 0, Host = 1, DeviceMemory = 2, Managed = 3 };

struct PointerAttributes {
  MemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  long reserved[8];
};

struct FuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

// cudaFuncAttribute
enum FuncAttribute : int { MaxDynamicSharedMemorySize = 8, PreferredSharedMemoryCarveout = 9 };

struct Uuid {
  char bytes[16];
};

/// cudaDeviceProp of CUDA 13 (fields removed in 13.0, such as clockRate, are gone from it).
struct DeviceProp {
  char name[256];
  Uuid uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};

struct ChannelFormatDesc { // cudaChannelFormatDesc
  int x, y, z, w;          ///< bits per channel
  int f;                   ///< cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float
};

struct Extent { // cudaExtent
  size_t width, height, depth;
};

// cudaResourceType
enum ResourceType : int { ResourceArray = 0, ResourceMipmappedArray = 1, ResourceLinear = 2, ResourcePitch2D = 3 };

struct ResourceDesc { // cudaResourceDesc
  int resType;
  union {
    struct {
      void *array;
    } array;
    struct {
      void *mipmap;
    } mipmap;
    struct {
      void *devPtr;
      ChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      ChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned flags;
};

struct TextureDesc {  // cudaTextureDesc
  int addressMode[3]; ///< cudaTextureAddressMode: 0 wrap, 1 clamp, 2 mirror, 3 border
  int filterMode;     ///< 0 point, 1 linear
  int readMode;       ///< 0 element type, 1 normalized float
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

/// cudaLaunchAttribute and the driver's CUlaunchAttribute: an id, padding, a 64-byte value.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    int cooperative;
    struct {
      unsigned x, y, z;
    } clusterDim;
    char bytes[64];
  } value;
};
inline constexpr int kLaunchAttributeCooperative = 2;
inline constexpr int kLaunchAttributeClusterDimension = 4;

/// What a launch's attribute list asks for that changes how it runs.
struct LaunchRequest {
  bool cooperative = false;
  bool cluster = false; ///< clusters of more than one CTA (not modelled)
};
inline LaunchRequest readLaunchAttributes(const void *attrs, unsigned count) {
  LaunchRequest r;
  const auto *a = static_cast<const LaunchAttribute *>(attrs);
  for (unsigned i = 0; a && i < count; ++i) {
    r.cooperative |= a[i].id == kLaunchAttributeCooperative && a[i].value.cooperative != 0;
    const auto &c = a[i].value.clusterDim;
    r.cluster |= a[i].id == kLaunchAttributeClusterDimension && uint64_t{c.x} * c.y * c.z > 1;
  }
  return r;
}

static_assert(sizeof(LaunchAttribute) == 72);
static_assert(sizeof(Dim3) == 12);
static_assert(sizeof(ChannelFormatDesc) == 20 && sizeof(Extent) == 24);
static_assert(offsetof(ResourceDesc, res) == 8 && sizeof(ResourceDesc) == 144);
static_assert(sizeof(TextureDesc) == 72 && offsetof(ResourceDesc, res.pitch2D.pitchInBytes) == 56);
static_assert(offsetof(DeviceProp, totalGlobalMem) == 288);
static_assert(offsetof(DeviceProp, multiProcessorCount) == 384);
static_assert(offsetof(DeviceProp, hostNumaMultinodeIpcSupported) == 780 && sizeof(DeviceProp) == 1008);
static_assert(sizeof(FuncAttributes) == 144);
static_assert(sizeof(PointerAttributes) == 88);

} // namespace ptxray::runtime::cuda
