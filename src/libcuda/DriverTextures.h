// The driver API's array, copy and texture descriptors as CUDA 13's cuda.h lays them out, and the
// entry points that take them (DriverTextures.cpp), for the driver library's cuGetProcAddress table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptxray::runtime::driverabi {

using CUresult = int;
using CUdeviceptr = unsigned long long;

// CUarray_format
constexpr int kUint8 = 0x01, kUint16 = 0x02, kUint32 = 0x03, kInt8 = 0x08, kInt16 = 0x09, kInt32 = 0x0a, kHalf = 0x10,
              kFloat = 0x20;
// CUmemorytype
constexpr int kHost = 1, kDevice = 2, kArray = 3, kUnified = 4;

struct ArrayDescriptor { // CUDA_ARRAY_DESCRIPTOR_v2
  size_t Width, Height;
  int Format;
  unsigned NumChannels;
};
struct Array3DDescriptor { // CUDA_ARRAY3D_DESCRIPTOR_v2
  size_t Width, Height, Depth;
  int Format;
  unsigned NumChannels;
  unsigned Flags;
};
struct Memcpy2D { // CUDA_MEMCPY2D_v2
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
};
struct Memcpy3D { // CUDA_MEMCPY3D_v2
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  void *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  void *reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
};
struct ResourceDescriptor { // CUDA_RESOURCE_DESC_v1
  int resType;
  union {
    struct {
      void *hArray;
    } array;
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned numChannels;
      size_t width, height, pitchInBytes;
    } pitch2D;
    int reserved[32];
  } res;
  unsigned flags;
};
struct TextureDescriptor { // CUDA_TEXTURE_DESC_v1
  int addressMode[3];
  int filterMode;
  unsigned flags; ///< CU_TRSF_READ_AS_INTEGER 1, CU_TRSF_NORMALIZED_COORDINATES 2
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
};
static_assert(sizeof(Memcpy2D) == 128 && sizeof(Memcpy3D) == 200);
static_assert(sizeof(ResourceDescriptor) == 144 && sizeof(TextureDescriptor) == 104);
static_assert(sizeof(Array3DDescriptor) == 40 && sizeof(ArrayDescriptor) == 24);

} // namespace ptxray::runtime::driverabi

extern "C" {
using ptxray::runtime::driverabi::Array3DDescriptor;
using ptxray::runtime::driverabi::ArrayDescriptor;
using ptxray::runtime::driverabi::Memcpy2D;
using ptxray::runtime::driverabi::Memcpy3D;
using ptxray::runtime::driverabi::ResourceDescriptor;
using ptxray::runtime::driverabi::TextureDescriptor;
int cuArray3DCreate_v2(void **array, const Array3DDescriptor *d);
int cuArrayCreate_v2(void **array, const ArrayDescriptor *d);
int cuArrayDestroy(void *array);
int cuArray3DGetDescriptor_v2(Array3DDescriptor *d, void *array);
int cuArrayGetDescriptor_v2(ArrayDescriptor *d, void *array);
int cuMemcpy3D_v2(const Memcpy3D *c);
int cuMemcpy2D_v2(const Memcpy2D *c);
int cuMemcpy2DUnaligned_v2(const Memcpy2D *c);
int cuMemcpy2DAsync_v2(const Memcpy2D *c, void *stream);
int cuMemcpy3DAsync_v2(const Memcpy3D *c, void *stream);
int cuMemcpy2D_v2_ptds(const Memcpy2D *c);
int cuMemcpy2DUnaligned_v2_ptds(const Memcpy2D *c);
int cuMemcpy3D_v2_ptds(const Memcpy3D *c);
int cuMemcpy2DAsync_v2_ptsz(const Memcpy2D *c, void *stream);
int cuMemcpy3DAsync_v2_ptsz(const Memcpy3D *c, void *stream);
int cuTexObjectCreate(unsigned long long *object, const ResourceDescriptor *resource, const TextureDescriptor *texture,
                      const void *view);
int cuTexObjectDestroy(unsigned long long object);
int cuSurfObjectCreate(unsigned long long *object, const ResourceDescriptor *resource);
int cuSurfObjectDestroy(unsigned long long object);
}
