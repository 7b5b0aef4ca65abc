// CUDA arrays, texture objects and surface objects of the runtime API, over the VM's TextureTable:
// an array is a device allocation with an element format and an extent (rows packed), so that
// kernels sample it exactly as the texture unit would.
#include "runtime/Runtime.h"

#include "vm/Texture.h"

#include <fmt/format.h>

#include <cstring>
#include <iostream>

namespace ptxray::runtime {
namespace {

/// The VM's element format for a channel descriptor; nullopt for a format it does not model.
std::optional<vm::ChannelFormat> channelFormat(const cuda::ChannelFormatDesc &d) {
  const int bits[4] = {d.x, d.y, d.z, d.w};
  int channels = 0;
  for (int b : bits)
    channels += b != 0;
  if (channels != 1 && channels != 2 && channels != 4)
    return std::nullopt;
  for (int i = 1; i < channels; ++i)
    if (bits[i] != d.x)
      return std::nullopt;
  vm::ChannelFormat f;
  f.channels = static_cast<uint8_t>(channels);
  switch (d.f) {
  case 0: // signed
    if (d.x == 8)
      f.type = vm::ChannelType::S8;
    else if (d.x == 16)
      f.type = vm::ChannelType::S16;
    else if (d.x == 32)
      f.type = vm::ChannelType::S32;
    else
      return std::nullopt;
    break;
  case 1: // unsigned
    if (d.x == 8)
      f.type = vm::ChannelType::U8;
    else if (d.x == 16)
      f.type = vm::ChannelType::U16;
    else if (d.x == 32)
      f.type = vm::ChannelType::U32;
    else
      return std::nullopt;
    break;
  case 2: // float
    if (d.x == 16)
      f.type = vm::ChannelType::F16;
    else if (d.x == 32)
      f.type = vm::ChannelType::F32;
    else
      return std::nullopt;
    break;
  default: return std::nullopt;
  }
  return f;
}

} // namespace

cuda::Error Runtime::mallocArray(void **array, const cuda::ChannelFormatDesc *desc, size_t width, size_t height,
                                 size_t depth, unsigned flags) {
  if (sticky_)
    return sticky_;
  if (!array || !desc || width == 0)
    return cuda::kErrorInvalidValue;
  std::optional<vm::ChannelFormat> format = channelFormat(*desc);
  if (!format)
    return cuda::kErrorInvalidChannelDescriptor;
  auto a = std::make_unique<CudaArray>();
  a->format = *format;
  a->width = width;
  a->height = height;
  a->depth = depth;
  a->flags = flags;
  const uint64_t bytes = a->rowBytes() * std::max<size_t>(height, 1) * std::max<size_t>(depth, 1);
  auto address = device_->memory().allocate(bytes, vm::AllocationKind::Device,
                                            fmt::format("CUDA array {}x{}x{} ({} bytes)", width, height, depth, bytes));
  if (!address)
    return cuda::kErrorMemoryAllocation;
  a->address = *address;
  *array = a.get();
  arrays_.push_back(std::move(a));
  return cuda::kSuccess;
}

Runtime::CudaArray *Runtime::cudaArray(const void *array) {
  for (const auto &a : arrays_)
    if (a.get() == array)
      return a.get();
  return nullptr;
}

cuda::Error Runtime::arrayLayout(const void *array, uint64_t &address, size_t &rowBytes, size_t &rows) {
  CudaArray *a = cudaArray(array);
  if (!a)
    return cuda::kErrorInvalidResourceHandle;
  address = a->address;
  rowBytes = a->rowBytes();
  rows = std::max<size_t>(a->height, 1);
  return cuda::kSuccess;
}

cuda::Error Runtime::arrayDescriptor(const void *array, size_t &width, size_t &height, size_t &depth,
                                     vm::ChannelFormat &format, unsigned &flags) {
  CudaArray *a = cudaArray(array);
  if (!a)
    return cuda::kErrorInvalidResourceHandle;
  width = a->width;
  height = a->height;
  depth = a->depth;
  format = a->format;
  flags = a->flags;
  return cuda::kSuccess;
}

bool Runtime::arrayIsNormalizable(const void *array) {
  CudaArray *a = cudaArray(array);
  if (!a)
    return false;
  const vm::ChannelType t = a->format.type;
  return t == vm::ChannelType::U8 || t == vm::ChannelType::S8 || t == vm::ChannelType::U16 || t == vm::ChannelType::S16;
}

cuda::Error Runtime::freeArray(void *array) {
  if (!array)
    return cuda::kSuccess;
  for (auto it = arrays_.begin(); it != arrays_.end(); ++it)
    if (it->get() == array) {
      device_->memory().release((*it)->address);
      arrays_.erase(it);
      return cuda::kSuccess;
    }
  return cuda::kErrorInvalidResourceHandle;
}

cuda::Error Runtime::memcpyArray(void *array, size_t xBytes, size_t y, const void *other, size_t otherPitch,
                                 size_t widthBytes, size_t height, int kind, bool toArray) {
  if (sticky_)
    return sticky_;
  CudaArray *a = cudaArray(array);
  if (!a)
    return cuda::kErrorInvalidResourceHandle;
  const size_t rows = std::max<size_t>(a->height, 1) * std::max<size_t>(a->depth, 1);
  if (xBytes > a->rowBytes() || widthBytes > a->rowBytes() - xBytes || y > rows || height > rows - y ||
      (height > 1 && widthBytes > otherPitch))
    return cuda::kErrorInvalidValue;
  // The array is device memory: the copy must go to it (to) or come from it (from).
  const bool direction = toArray ? kind == cuda::HostToDevice || kind == cuda::DeviceToDevice || kind == cuda::Default
                                 : kind == cuda::DeviceToHost || kind == cuda::DeviceToDevice || kind == cuda::Default;
  if (!direction)
    return cuda::kErrorInvalidMemcpyDirection;
  // The array's side is device memory; the other side is whatever `kind` says.
  for (size_t row = 0; row < height; ++row) {
    auto *arrayRow = reinterpret_cast<std::byte *>(a->address + (y + row) * a->rowBytes() + xBytes);
    auto *otherRow = static_cast<const std::byte *>(other) + row * otherPitch;
    const cuda::Error e = toArray ? copy(arrayRow, otherRow, widthBytes, kind)
                                  : copy(const_cast<std::byte *>(otherRow), arrayRow, widthBytes, kind);
    if (e)
      return e;
  }
  return cuda::kSuccess;
}

cuda::Error Runtime::memcpyArrayLinear(void *array, size_t xBytes, size_t y, void *other, size_t bytes, int kind,
                                       bool toArray) {
  if (sticky_)
    return sticky_;
  CudaArray *a = cudaArray(array);
  if (!a)
    return cuda::kErrorInvalidResourceHandle;
  // Rows are packed: the copy runs on from (xBytes, y) across rows.
  const uint64_t rowBytes = std::max<uint64_t>(a->rowBytes(), 1);
  const uint64_t total = a->rowBytes() * std::max<size_t>(a->height, 1) * std::max<size_t>(a->depth, 1);
  if (xBytes > a->rowBytes() || y > total / rowBytes)
    return cuda::kErrorInvalidValue;
  const uint64_t start = y * a->rowBytes() + xBytes;
  if (start > total || bytes > total - start)
    return cuda::kErrorInvalidValue;
  const bool direction = toArray ? kind == cuda::HostToDevice || kind == cuda::DeviceToDevice || kind == cuda::Default
                                 : kind == cuda::DeviceToHost || kind == cuda::DeviceToDevice || kind == cuda::Default;
  if (!direction)
    return cuda::kErrorInvalidMemcpyDirection;
  auto *arrayBytes = reinterpret_cast<std::byte *>(a->address + start);
  return toArray ? copy(arrayBytes, other, bytes, kind) : copy(other, arrayBytes, bytes, kind);
}

cuda::Error Runtime::resource(const cuda::ResourceDesc &r, vm::TextureResource &out) {
  switch (r.resType) {
  case cuda::ResourceArray: {
    CudaArray *a = cudaArray(r.res.array.array);
    if (!a)
      return cuda::kErrorInvalidResourceHandle;
    out.kind = vm::TextureResource::Kind::Array;
    out.address = a->address;
    out.format = a->format;
    out.width = static_cast<uint32_t>(a->width);
    out.height = static_cast<uint32_t>(a->height);
    out.depth = static_cast<uint32_t>(a->depth);
    return cuda::kSuccess;
  }
  case cuda::ResourceLinear: {
    std::optional<vm::ChannelFormat> format = channelFormat(r.res.linear.desc);
    if (!format)
      return cuda::kErrorInvalidChannelDescriptor;
    out.kind = vm::TextureResource::Kind::Linear;
    out.address = reinterpret_cast<uintptr_t>(r.res.linear.devPtr);
    out.format = *format;
    out.width = static_cast<uint32_t>(r.res.linear.sizeInBytes / format->elementBytes());
    return cuda::kSuccess;
  }
  case cuda::ResourcePitch2D: {
    std::optional<vm::ChannelFormat> format = channelFormat(r.res.pitch2D.desc);
    if (!format)
      return cuda::kErrorInvalidChannelDescriptor;
    out.kind = vm::TextureResource::Kind::Pitch2D;
    out.address = reinterpret_cast<uintptr_t>(r.res.pitch2D.devPtr);
    out.format = *format;
    out.width = static_cast<uint32_t>(r.res.pitch2D.width);
    out.height = static_cast<uint32_t>(r.res.pitch2D.height);
    out.pitch = r.res.pitch2D.pitchInBytes;
    return cuda::kSuccess;
  }
  default: return cuda::kErrorNotSupported; // mipmapped arrays
  }
}

cuda::Error Runtime::createTextureObject(unsigned long long *object, const cuda::ResourceDesc *resourceDesc,
                                         const cuda::TextureDesc *textureDesc) {
  if (sticky_)
    return sticky_;
  if (!object || !resourceDesc || !textureDesc)
    return cuda::kErrorInvalidValue;
  vm::TextureDesc d;
  if (cuda::Error e = resource(*resourceDesc, d.resource))
    return e;
  for (int i = 0; i < 3; ++i) {
    if (textureDesc->addressMode[i] < 0 || textureDesc->addressMode[i] > 3)
      return cuda::kErrorInvalidValue;
    d.sampler.address[i] = static_cast<vm::AddressMode>(textureDesc->addressMode[i]);
  }
  d.sampler.filter = textureDesc->filterMode == 1 ? vm::FilterMode::Linear : vm::FilterMode::Point;
  d.sampler.normalizedCoords = textureDesc->normalizedCoords != 0;
  for (int i = 0; i < 4; ++i)
    d.sampler.borderColor[i] = textureDesc->borderColor[i];
  d.readMode = textureDesc->readMode == 1 ? vm::ReadMode::NormalizedFloat : vm::ReadMode::ElementType;
  try {
    *object = device_->textures().createTextureObject(d);
  } catch (const std::exception &e) {
    if (config_.logApi)
      log(fmt::format("cudaCreateTextureObject: {}", e.what()));
    return cuda::kErrorInvalidValue;
  }
  return cuda::kSuccess;
}

cuda::Error Runtime::createSurfaceObject(unsigned long long *object, const cuda::ResourceDesc *resourceDesc) {
  if (sticky_)
    return sticky_;
  if (!object || !resourceDesc || resourceDesc->resType != cuda::ResourceArray)
    return cuda::kErrorInvalidValue;
  vm::TextureResource r;
  if (cuda::Error e = resource(*resourceDesc, r))
    return e;
  try {
    *object = device_->textures().createSurfaceObject(r);
  } catch (const std::exception &e) {
    if (config_.logApi)
      log(fmt::format("cudaCreateSurfaceObject: {}", e.what()));
    return cuda::kErrorInvalidValue;
  }
  return cuda::kSuccess;
}

cuda::Error Runtime::destroyTextureObject(unsigned long long object, bool surface) {
  try {
    if (surface)
      device_->textures().destroySurfaceObject(object);
    else
      device_->textures().destroyTextureObject(object);
  } catch (const std::exception &) {
    return cuda::kErrorInvalidValue;
  }
  return cuda::kSuccess;
}

} // namespace ptxray::runtime
