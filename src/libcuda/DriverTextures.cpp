// The driver API's CUDA arrays, 2D/3D copies and texture and surface objects (what NVIDIA's static
// runtime turns cudaMallocArray, cudaMemcpy2DToArray and cudaCreateTextureObject into), translated to
// the runtime's own (Textures.cpp): a driver descriptor names a format and a channel count where the
// runtime's names bits per channel.
#include "libcuda/DriverTextures.h"
#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <cstring>
#include <mutex>

using namespace ptxray::runtime;
using cuda::Error;

namespace {

using namespace ptxray::runtime::driverabi;

/// The runtime's channel descriptor for a driver format and channel count; f = 3 (none) when invalid.
cuda::ChannelFormatDesc channelDesc(int format, unsigned channels) {
  int bits = 0, kind = 3;
  switch (format) {
  case kUint8: bits = 8, kind = 1; break;
  case kUint16: bits = 16, kind = 1; break;
  case kUint32: bits = 32, kind = 1; break;
  case kInt8: bits = 8, kind = 0; break;
  case kInt16: bits = 16, kind = 0; break;
  case kInt32: bits = 32, kind = 0; break;
  case kHalf: bits = 16, kind = 2; break;
  case kFloat: bits = 32, kind = 2; break;
  default: break;
  }
  if (channels != 1 && channels != 2 && channels != 4)
    kind = 3;
  return {bits, channels >= 2 ? bits : 0, channels >= 4 ? bits : 0, channels >= 4 ? bits : 0, kind};
}

bool normalizable(int format) {
  return format == kUint8 || format == kUint16 || format == kInt8 || format == kInt16;
}

/// One endpoint of a copy: the address of (x bytes, row y, slice z), and whether it is host memory.
struct Endpoint {
  int type;
  const void *host;
  CUdeviceptr device;
  void *array;
  size_t x, y, z, pitch, height;
};

template <typename F> CUresult locked(F &&call) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  return call(rt);
}

/// cuMemcpy2D/3D: row by row, then recorded in the session as one copy of height x depth rows on
/// `stream` (nullptr and `synchronous` for the calls without Async).
CUresult copy3D(Runtime &rt, const Endpoint &src, const Endpoint &dst, size_t width, size_t height, size_t depth,
                void *stream = nullptr, bool synchronous = true) {
  if (!rt.validStream(stream))
    return 400; // CUDA_ERROR_INVALID_HANDLE
  auto base = [&](const Endpoint &e, uint64_t &address, uint64_t &pitch, uint64_t &slice) -> Error {
    switch (e.type) {
    case kHost:
      address = reinterpret_cast<uintptr_t>(e.host);
      pitch = e.pitch;
      slice = e.pitch * e.height;
      return cuda::kSuccess;
    case kDevice:
    case kUnified:
      address = e.device;
      pitch = e.pitch;
      slice = e.pitch * e.height;
      return cuda::kSuccess;
    case kArray: {
      size_t rowBytes = 0, rows = 0;
      if (Error err = rt.arrayLayout(e.array, address, rowBytes, rows))
        return err;
      pitch = rowBytes;
      slice = rowBytes * rows;
      return cuda::kSuccess;
    }
    default: return cuda::kErrorInvalidValue;
    }
  };
  uint64_t sAddress = 0, sPitch = 0, sSlice = 0, dAddress = 0, dPitch = 0, dSlice = 0;
  if (Error e = base(src, sAddress, sPitch, sSlice))
    return e;
  if (Error e = base(dst, dAddress, dPitch, dSlice))
    return e;
  if ((height > 1 && (width > sPitch || width > dPitch)) || height > SIZE_MAX / std::max<size_t>(depth, 1))
    return 1; // CUDA_ERROR_INVALID_VALUE
  // The last byte each side reaches must be an address: a pitch of SIZE_MAX wraps around otherwise.
  auto reachable = [&](const Endpoint &e, uint64_t address, uint64_t pitch, uint64_t slice) {
    uint64_t end = 0, rowOffset = 0, sliceOffset = 0;
    return !__builtin_mul_overflow(e.y + std::max<size_t>(height, 1) - 1, pitch, &rowOffset) &&
           !__builtin_mul_overflow(e.z + std::max<size_t>(depth, 1) - 1, slice, &sliceOffset) &&
           !__builtin_add_overflow(address, rowOffset, &end) && !__builtin_add_overflow(end, sliceOffset, &end) &&
           !__builtin_add_overflow(end, e.x, &end) && !__builtin_add_overflow(end, width, &end);
  };
  if (!reachable(src, sAddress, sPitch, sSlice) || !reachable(dst, dAddress, dPitch, dSlice))
    return 1;
  // The memory types say where each side is: a device row outside every allocation is an error, not
  // host memory (only CU_MEMORYTYPE_UNIFIED lets the address decide).
  auto onDevice = [](const Endpoint &e) { return e.type == kDevice || e.type == kArray; };
  int kind = cuda::Default;
  if (src.type != kUnified && dst.type != kUnified)
    kind = onDevice(src) ? (onDevice(dst) ? cuda::DeviceToDevice : cuda::DeviceToHost)
                         : (onDevice(dst) ? cuda::HostToDevice : cuda::HostToHost);
  for (size_t z = 0; z < std::max<size_t>(depth, 1); ++z)
    for (size_t y = 0; y < std::max<size_t>(height, 1); ++y) {
      const uint64_t s = sAddress + (src.z + z) * sSlice + (src.y + y) * sPitch + src.x;
      const uint64_t d = dAddress + (dst.z + z) * dSlice + (dst.y + y) * dPitch + dst.x;
      if ((onDevice(src) && !rt.isDeviceRange(reinterpret_cast<const void *>(s), width)) ||
          (onDevice(dst) && !rt.isDeviceRange(reinterpret_cast<const void *>(d), width)))
        return 1;
      if (Error e = rt.memcpy(reinterpret_cast<void *>(d), reinterpret_cast<const void *>(s), width, kind))
        return e;
    }
  const uint64_t s = sAddress + src.z * sSlice + src.y * sPitch + src.x;
  const uint64_t d = dAddress + dst.z * dSlice + dst.y * dPitch + dst.x;
  rt.recordCopy(reinterpret_cast<void *>(d), dPitch, reinterpret_cast<const void *>(s), sPitch, width,
                std::max<size_t>(height, 1) * std::max<size_t>(depth, 1), stream, synchronous);
  return 0;
}

CUresult copy3DOn(const Memcpy3D *c, void *stream, bool synchronous) {
  if (!c)
    return 1;
  return locked([&](Runtime &rt) {
    return copy3D(rt,
                  {c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes, c->srcY, c->srcZ,
                   c->srcPitch, c->srcHeight},
                  {c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY, c->dstZ,
                   c->dstPitch, c->dstHeight},
                  c->WidthInBytes, c->Height, c->Depth, stream, synchronous);
  });
}

CUresult copy2DOn(const Memcpy2D *c, void *stream, bool synchronous) {
  if (!c)
    return 1;
  return locked([&](Runtime &rt) {
    return copy3D(
        rt,
        {c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes, c->srcY, 0, c->srcPitch, c->Height},
        {c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY, 0, c->dstPitch, c->Height},
        c->WidthInBytes, c->Height, 1, stream, synchronous);
  });
}

} // namespace

extern "C" {

CUresult cuArray3DCreate_v2(void **array, const Array3DDescriptor *d) {
  return locked([&](Runtime &rt) {
    if (!array || !d)
      return cuda::kErrorInvalidValue;
    const cuda::ChannelFormatDesc desc = channelDesc(d->Format, d->NumChannels);
    return rt.mallocArray(array, &desc, d->Width, d->Height, d->Depth, d->Flags);
  });
}

CUresult cuArrayCreate_v2(void **array, const ArrayDescriptor *d) {
  if (!d)
    return 1;
  const Array3DDescriptor d3{d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
  return cuArray3DCreate_v2(array, &d3);
}

/// The driver's CUarray_format of a VM element type.
static int driverFormat(ptxray::vm::ChannelType t) {
  switch (t) {
  case ptxray::vm::ChannelType::U8: return kUint8;
  case ptxray::vm::ChannelType::U16: return kUint16;
  case ptxray::vm::ChannelType::U32: return kUint32;
  case ptxray::vm::ChannelType::S8: return kInt8;
  case ptxray::vm::ChannelType::S16: return kInt16;
  case ptxray::vm::ChannelType::S32: return kInt32;
  case ptxray::vm::ChannelType::F16: return kHalf;
  case ptxray::vm::ChannelType::F32: return kFloat;
  }
  return kFloat;
}

CUresult cuArray3DGetDescriptor_v2(Array3DDescriptor *d, void *array) {
  if (!d)
    return 1;
  return locked([&](Runtime &rt) {
    ptxray::vm::ChannelFormat format;
    unsigned flags = 0;
    if (Error e = rt.arrayDescriptor(array, d->Width, d->Height, d->Depth, format, flags))
      return e;
    d->Format = driverFormat(format.type);
    d->NumChannels = format.channels;
    d->Flags = flags;
    return cuda::kSuccess;
  });
}

CUresult cuArrayGetDescriptor_v2(ArrayDescriptor *d, void *array) {
  if (!d)
    return 1;
  Array3DDescriptor d3{};
  CUresult r = cuArray3DGetDescriptor_v2(&d3, array);
  if (r == 0)
    *d = {d3.Width, d3.Height, d3.Format, d3.NumChannels};
  return r;
}

CUresult cuArrayDestroy(void *array) {
  return locked([&](Runtime &rt) { return rt.freeArray(array); });
}

CUresult cuMemcpy3D_v2(const Memcpy3D *c) {
  return copy3DOn(c, nullptr, true);
}
CUresult cuMemcpy2D_v2(const Memcpy2D *c) {
  return copy2DOn(c, nullptr, true);
}
CUresult cuMemcpy2DUnaligned_v2(const Memcpy2D *c) {
  return cuMemcpy2D_v2(c);
}
CUresult cuMemcpy2DAsync_v2(const Memcpy2D *c, void *stream) {
  return copy2DOn(c, stream, false);
}
CUresult cuMemcpy3DAsync_v2(const Memcpy3D *c, void *stream) {
  return copy3DOn(c, stream, false);
}
CUresult cuMemcpy2D_v2_ptds(const Memcpy2D *c) {
  return cuMemcpy2D_v2(c);
}
CUresult cuMemcpy2DUnaligned_v2_ptds(const Memcpy2D *c) {
  return cuMemcpy2D_v2(c);
}
CUresult cuMemcpy3D_v2_ptds(const Memcpy3D *c) {
  return cuMemcpy3D_v2(c);
}
CUresult cuMemcpy2DAsync_v2_ptsz(const Memcpy2D *c, void *stream) {
  return cuMemcpy2DAsync_v2(c, stream);
}
CUresult cuMemcpy3DAsync_v2_ptsz(const Memcpy3D *c, void *stream) {
  return cuMemcpy3DAsync_v2(c, stream);
}

/// The runtime's resource descriptor for a driver one; false when the format is not one the VM reads.
static bool runtimeResource(const ResourceDescriptor &r, cuda::ResourceDesc &out, int &format) {
  std::memset(&out, 0, sizeof out);
  out.resType = r.resType;
  format = kFloat;
  switch (r.resType) {
  case cuda::ResourceArray: out.res.array.array = r.res.array.hArray; return true;
  case cuda::ResourceLinear:
    format = r.res.linear.format;
    out.res.linear.devPtr = reinterpret_cast<void *>(static_cast<uintptr_t>(r.res.linear.devPtr));
    out.res.linear.desc = channelDesc(r.res.linear.format, r.res.linear.numChannels);
    out.res.linear.sizeInBytes = r.res.linear.sizeInBytes;
    return true;
  case cuda::ResourcePitch2D:
    format = r.res.pitch2D.format;
    out.res.pitch2D.devPtr = reinterpret_cast<void *>(static_cast<uintptr_t>(r.res.pitch2D.devPtr));
    out.res.pitch2D.desc = channelDesc(r.res.pitch2D.format, r.res.pitch2D.numChannels);
    out.res.pitch2D.width = r.res.pitch2D.width;
    out.res.pitch2D.height = r.res.pitch2D.height;
    out.res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
    return true;
  default: return false;
  }
}

CUresult cuTexObjectCreate(unsigned long long *object, const ResourceDescriptor *resource,
                           const TextureDescriptor *texture, const void * /*view*/) {
  if (!object || !resource || !texture)
    return 1;
  return locked([&](Runtime &rt) {
    cuda::ResourceDesc r;
    int format = kFloat;
    if (!runtimeResource(*resource, r, format))
      return cuda::kErrorNotSupported;
    if (r.resType == cuda::ResourceArray) {
      size_t rowBytes = 0, rows = 0;
      uint64_t address = 0;
      if (Error e = rt.arrayLayout(r.res.array.array, address, rowBytes, rows))
        return e;
      format = rt.arrayIsNormalizable(r.res.array.array) ? kUint8 : kFloat;
    }
    cuda::TextureDesc t;
    std::memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; ++i)
      t.addressMode[i] = texture->addressMode[i];
    t.filterMode = texture->filterMode;
    // 8- and 16-bit integers read as normalized floats unless CU_TRSF_READ_AS_INTEGER.
    t.readMode = normalizable(format) && !(texture->flags & 1) ? 1 : 0;
    t.normalizedCoords = (texture->flags & 2) ? 1 : 0;
    for (int i = 0; i < 4; ++i)
      t.borderColor[i] = texture->borderColor[i];
    return rt.createTextureObject(object, &r, &t);
  });
}

CUresult cuTexObjectDestroy(unsigned long long object) {
  return locked([&](Runtime &rt) { return rt.destroyTextureObject(object, false); });
}

CUresult cuSurfObjectCreate(unsigned long long *object, const ResourceDescriptor *resource) {
  if (!object || !resource)
    return 1;
  return locked([&](Runtime &rt) {
    cuda::ResourceDesc r;
    int format = kFloat;
    if (!runtimeResource(*resource, r, format))
      return cuda::kErrorNotSupported;
    return rt.createSurfaceObject(object, &r);
  });
}

CUresult cuSurfObjectDestroy(unsigned long long object) {
  return locked([&](Runtime &rt) { return rt.destroyTextureObject(object, true); });
}

} // extern "C"
