// Images and samplers: 1D, 2D and 3D images, 1D and 2D image arrays and 1D image buffers, of the R,
// RG and RGBA orders in every channel type the texture unit has (BGRA in the 8-bit ones), read by kernels through it
// (tex) and written through surfaces (sust); samplers as their CLK_* bits (vm::TextureTable::openclSamplerHandle). The
// host's transfers, fills, copies and maps address the image's packed rows.
#include "opencl/Api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ptxray::opencl {
namespace {

constexpr cl_channel_order kOrders[] = {CL_R, CL_RG, CL_RGBA};
constexpr cl_channel_type kTypes[] = {CL_SNORM_INT8,     CL_SNORM_INT16,    CL_UNORM_INT8,   CL_UNORM_INT16,
                                      CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32, CL_UNSIGNED_INT8,
                                      CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,   CL_FLOAT};

/// The image limits of NVIDIA's OpenCL driver for the compute capability: 2D images of 16384 x 16384
/// (32768 from Maxwell on), 3D of 2048 per side (4096 from Kepler on); 1D as 2D's width.
size_t max2D(const arch::ComputeCapability &cc) {
  return cc.major >= 5 ? 32768 : 16384;
}
size_t max3D(const arch::ComputeCapability &cc) {
  return cc.major >= 3 ? 4096 : 2048;
}

bool supportedType(cl_mem_object_type type) {
  // 2D, 3D, 2D array, 1D, 1D array and 1D buffer: every image type of OpenCL 1.2.
  return type >= CL_MEM_OBJECT_IMAGE2D && type <= CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

cl_mem newImage(Platform &p, cl_context context, cl_mem_flags flags, const cl_image_format *format,
                const cl_image_desc *desc, void *hostPtr, cl_int &e) {
  if (!p.valid(context)) {
    e = CL_INVALID_CONTEXT;
    return nullptr;
  }
  if (flags == 0)
    flags = CL_MEM_READ_WRITE;
  if (!validMemFlags(flags)) {
    e = CL_INVALID_VALUE;
    return nullptr;
  }
  if (!format) {
    e = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
    return nullptr;
  }
  const bool knownOrder = format->image_channel_order >= CL_R && format->image_channel_order <= CL_DEPTH_STENCIL;
  const bool knownType =
      format->image_channel_data_type >= CL_SNORM_INT8 && format->image_channel_data_type <= CL_UNORM_INT24;
  if (!knownOrder || !knownType) {
    e = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
    return nullptr;
  }
  if (!desc || desc->num_mip_levels || desc->num_samples || !supportedType(desc->image_type) ||
      (desc->buffer != nullptr) != (desc->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER)) {
    e = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  cl_mem buffer = desc->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? desc->buffer : nullptr;
  if (buffer && (!p.valid(buffer) || buffer->isImage() || buffer->context != context)) {
    e = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  const std::optional<size_t> element = imageElementBytes(*format);
  if (!element) {
    e = CL_IMAGE_FORMAT_NOT_SUPPORTED;
    return nullptr;
  }
  const arch::ComputeCapability &cc = p.cc();
  const cl_mem_object_type type = desc->image_type;
  const size_t w = desc->image_width, h = desc->image_height, d = desc->image_depth, n = desc->image_array_size;
  const size_t limit = type == CL_MEM_OBJECT_IMAGE3D          ? max3D(cc)
                       : type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? size_t{1} << 27
                                                              : max2D(cc);
  const bool hasHeight =
      type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE3D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  const bool hasDepth = type == CL_MEM_OBJECT_IMAGE3D;
  const bool isArray = type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  if (w == 0 || w > limit || (hasHeight && (h == 0 || h > limit)) || (hasDepth && (d == 0 || d > limit)) ||
      (isArray && (n == 0 || n > 2048)) || (buffer && w * *element > buffer->size)) {
    e = CL_INVALID_IMAGE_SIZE;
    return nullptr;
  }
  const bool needsHostPtr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (needsHostPtr != (hostPtr != nullptr) || (buffer && hostPtr)) {
    e = CL_INVALID_HOST_PTR; // (a 1D image buffer is its buffer's bytes)
    return nullptr;
  }
  const size_t rowBytes = w * *element;
  size_t rowPitch = desc->image_row_pitch, slicePitch = desc->image_slice_pitch;
  if ((!hostPtr && (rowPitch || slicePitch)) || (rowPitch && (rowPitch < rowBytes || rowPitch % *element))) {
    e = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  rowPitch = rowPitch ? rowPitch : rowBytes;
  const size_t rows = hasHeight ? h : 1;
  if (slicePitch && (!(hasDepth || isArray) || slicePitch < rowPitch * rows || slicePitch % rowPitch)) {
    e = CL_INVALID_IMAGE_DESCRIPTOR;
    return nullptr;
  }
  slicePitch = slicePitch ? slicePitch : rowPitch * rows;
  auto *m = new _cl_mem;
  m->context = context;
  m->flags = flags;
  m->type = desc->image_type;
  m->format = *format;
  m->desc = *desc;
  m->desc.image_row_pitch = 0;
  m->desc.image_slice_pitch = 0;
  if (flags & CL_MEM_USE_HOST_PTR)
    m->hostPtr = hostPtr;
  if (buffer) {
    m->parent = buffer;
    p.retain(buffer);
  }
  // A 1D array's layers are rows apart in the host's memory (its slice pitch, OpenCL 1.2 5.3.1).
  if (!p.allocateImage(m, hostPtr, type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slicePitch : rowPitch, slicePitch)) {
    delete m;
    e = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return nullptr;
  }
  p.retain(context);
  p.adopt(m);
  return m;
}

cl_int checkImage(Platform &p, cl_command_queue queue, cl_mem image) {
  if (!p.valid(image) || !image->isImage())
    return CL_INVALID_MEM_OBJECT;
  if (image->context != queue->context)
    return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

/// A region of an image: CL_INVALID_VALUE unless it lies inside it and its unused dimensions are
/// (0 origin, 1 extent).
cl_int checkRegion(cl_mem image, const size_t *origin, const size_t *region) {
  if (!origin || !region)
    return CL_INVALID_VALUE;
  const size_t extent[3] = {image->width(), image->height(), image->depth()};
  for (int i = 0; i < 3; ++i)
    if (region[i] == 0 || origin[i] > extent[i] || region[i] > extent[i] - origin[i])
      return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

/// Byte offset of pixel (x, y, z) of an image.
size_t pixelOffset(cl_mem image, size_t x, size_t y, size_t z) {
  return z * image->slicePitch + y * image->rowPitch + x * image->elementBytes;
}

/// Copies a region's rows between an image and packed (or pitched) host or buffer memory.
void copyRegion(std::byte *image, cl_mem m, const size_t *origin, const size_t *region, std::byte *other,
                size_t otherRow, size_t otherSlice, bool toImage) {
  const size_t rowBytes = region[0] * m->elementBytes;
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y) {
      std::byte *at = image + pixelOffset(m, origin[0], origin[1] + y, origin[2] + z);
      std::byte *there = other + z * otherSlice + y * otherRow;
      if (toImage)
        std::memmove(at, there, rowBytes);
      else
        std::memmove(there, at, rowBytes);
    }
}

uint16_t halfBits(float f) {
  // IEEE binary16, rounded to nearest even.
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000, abs = x & 0x7fffffff;
  if (abs >= 0x7f800000)
    return static_cast<uint16_t>(sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0));
  if (abs >= 0x477ff000)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (abs < 0x38800000) {                            // subnormal or zero
    const float scaled = std::fabs(f) * 16777216.0f; // 2^24: units of the smallest subnormal
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  const uint32_t mantissa = abs & 0x7fffff, exponent = (abs >> 23) - 112;
  uint32_t h = (exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return static_cast<uint16_t>(sign | h);
}

/// clEnqueueFillImage's colour as one pixel of the image's format: float4 for normalized and float
/// formats, int4 or uint4 for the integer ones, converted with saturation and round to nearest even.
std::vector<std::byte> pixel(const cl_image_format &format, const void *color) {
  const size_t channels = format.image_channel_order == CL_R ? 1 : format.image_channel_order == CL_RG ? 2 : 4;
  float f[4];
  int32_t i[4];
  uint32_t u[4];
  std::memcpy(f, color, 16);
  std::memcpy(i, color, 16);
  std::memcpy(u, color, 16);
  if (format.image_channel_order == CL_BGRA) {
    std::swap(f[0], f[2]);
    std::swap(i[0], i[2]);
    std::swap(u[0], u[2]);
  }
  std::vector<std::byte> out;
  auto put = [&](auto v) {
    const auto *b = reinterpret_cast<const std::byte *>(&v);
    out.insert(out.end(), b, b + sizeof v);
  };
  auto norm = [](float v, float scale, float lo, float hi) { return std::nearbyint(std::clamp(v * scale, lo, hi)); };
  for (size_t c = 0; c < channels; ++c)
    switch (format.image_channel_data_type) {
    case CL_SNORM_INT8: put(static_cast<int8_t>(norm(f[c], 127.f, -128.f, 127.f))); break;
    case CL_SNORM_INT16: put(static_cast<int16_t>(norm(f[c], 32767.f, -32768.f, 32767.f))); break;
    case CL_UNORM_INT8: put(static_cast<uint8_t>(norm(f[c], 255.f, 0.f, 255.f))); break;
    case CL_UNORM_INT16: put(static_cast<uint16_t>(norm(f[c], 65535.f, 0.f, 65535.f))); break;
    case CL_SIGNED_INT8: put(static_cast<int8_t>(std::clamp(i[c], -128, 127))); break;
    case CL_SIGNED_INT16: put(static_cast<int16_t>(std::clamp(i[c], -32768, 32767))); break;
    case CL_SIGNED_INT32: put(i[c]); break;
    case CL_UNSIGNED_INT8: put(static_cast<uint8_t>(std::min<uint32_t>(u[c], 255))); break;
    case CL_UNSIGNED_INT16: put(static_cast<uint16_t>(std::min<uint32_t>(u[c], 65535))); break;
    case CL_UNSIGNED_INT32: put(u[c]); break;
    case CL_HALF_FLOAT: put(halfBits(f[c])); break;
    default: put(f[c]); break;
    }
  return out;
}

/// clEnqueueRead/WriteImage: a region of the image from or to host memory whose rows and slices
/// are `rowPitch` and `slicePitch` apart (0: packed); `toDevice` for a write.
cl_int enqueueImageTransfer(Platform &p, std::unique_lock<std::mutex> &lock, cl_command_queue queue, cl_mem image,
                            bool toDevice, cl_bool blocking, const size_t *origin, const size_t *region,
                            size_t rowPitch, size_t slicePitch, void *ptr, cl_uint waitCount, const cl_event *waitList,
                            cl_event *event) {
  if (cl_int e = checkQueue(p, queue))
    return e;
  if (cl_int e = checkImage(p, queue, image))
    return e;
  if (cl_int e = checkRegion(image, origin, region))
    return e;
  const size_t rowBytes = region[0] * image->elementBytes;
  rowPitch = rowPitch ? rowPitch : rowBytes;
  // A 1D array's layers are its rows here, slice_pitch apart in the host's memory.
  if (image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY)
    rowPitch = slicePitch = slicePitch ? slicePitch : rowPitch;
  slicePitch = slicePitch ? slicePitch : rowPitch * region[1];
  if (!ptr || rowPitch < rowBytes || (image->type != CL_MEM_OBJECT_IMAGE1D_ARRAY && slicePitch < rowPitch * region[1]))
    return CL_INVALID_VALUE;
  if (image->flags & (CL_MEM_HOST_NO_ACCESS | (toDevice ? CL_MEM_HOST_READ_ONLY : CL_MEM_HOST_WRITE_ONLY)))
    return CL_INVALID_OPERATION;
  if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
    return e;
  Command c;
  c.type = toDevice ? CL_COMMAND_WRITE_IMAGE : CL_COMMAND_READ_IMAGE;
  c.holds = {image};
  const std::array<size_t, 3> o{origin[0], origin[1], origin[2]}, r{region[0], region[1], region[2]};
  c.run = [&p, queue, image, o, r, rowPitch, slicePitch, ptr, toDevice, blocking](double &seconds) {
    copyRegion(p.bytes(image->address, image->size), image, o.data(), r.data(), static_cast<std::byte *>(ptr), rowPitch,
               slicePitch, toDevice);
    if (toDevice)
      p.wrote(image->address, image->size);
    const size_t bytes = r[0] * r[1] * r[2] * image->elementBytes;
    const bool pinned = p.pinnedHostMemory(ptr, 1);
    seconds = p.hostCopySeconds(bytes, toDevice, pinned);
    recordTransfer(p, queue, toDevice ? system::OpKind::CopyH2D : system::OpKind::CopyD2H, bytes, pinned, blocking,
                   r[1] * r[2], rowPitch);
    return CL_SUCCESS;
  };
  return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event, blocking);
}

/// clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage: a region of `image` and packed bytes of
/// `buffer` from `offset`, copied on the device; `toImage` says which way.
cl_int enqueueImageBufferCopy(Platform &p, std::unique_lock<std::mutex> &lock, cl_command_queue queue, cl_mem image,
                              cl_mem buffer, bool toImage, const size_t *origin, const size_t *region, size_t offset,
                              cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  if (cl_int e = checkQueue(p, queue))
    return e;
  if (cl_int e = checkImage(p, queue, image))
    return e;
  if (!p.valid(buffer) || buffer->isImage())
    return CL_INVALID_MEM_OBJECT;
  if (buffer->context != queue->context)
    return CL_INVALID_CONTEXT;
  if (cl_int e = checkRegion(image, origin, region))
    return e;
  const size_t bytes = region[0] * region[1] * region[2] * image->elementBytes;
  if (offset > buffer->size || bytes > buffer->size - offset)
    return CL_INVALID_VALUE;
  if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
    return e;
  Command c;
  c.type = toImage ? CL_COMMAND_COPY_BUFFER_TO_IMAGE : CL_COMMAND_COPY_IMAGE_TO_BUFFER;
  c.holds = {image, buffer};
  const std::array<size_t, 3> o{origin[0], origin[1], origin[2]}, r{region[0], region[1], region[2]};
  c.run = [&p, queue, image, buffer, toImage, o, r, offset, bytes](double &seconds) {
    const size_t row = r[0] * image->elementBytes;
    copyRegion(p.bytes(image->address, image->size), image, o.data(), r.data(),
               p.bytes(buffer->address + offset, bytes), row, row * r[1], toImage);
    if (toImage)
      p.wrote(image->address, image->size);
    else
      p.wrote(buffer->address + offset, bytes);
    seconds = p.deviceCopySeconds(bytes, false);
    recordTransfer(p, queue, system::OpKind::CopyD2D, bytes, false, false);
    return CL_SUCCESS;
  };
  return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
}

} // namespace

namespace api {

cl_int clGetSupportedImageFormats(cl_context context, cl_mem_flags flags, cl_mem_object_type type, cl_uint entries,
                                  cl_image_format *formats, cl_uint *count) {
  return call("clGetSupportedImageFormats", PTXRAY_CL_ARGS(context, flags, type, entries, formats, count),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(context))
                  return CL_INVALID_CONTEXT;
                if ((entries == 0 && formats) || !validMemFlags(flags ? flags : CL_MEM_READ_WRITE))
                  return CL_INVALID_VALUE;
                if (!supportedType(type))
                  return CL_INVALID_VALUE;
                cl_uint n = 0;
                auto add = [&](cl_channel_order order, cl_channel_type t) {
                  if (formats && n < entries)
                    formats[n] = {order, t};
                  ++n;
                };
                for (cl_channel_order order : kOrders)
                  for (cl_channel_type t : kTypes)
                    add(order, t);
                for (cl_channel_type t : {CL_UNORM_INT8, CL_SNORM_INT8, CL_UNSIGNED_INT8, CL_SIGNED_INT8})
                  add(CL_BGRA, t);
                if (count)
                  *count = n;
                return CL_SUCCESS;
              });
}

cl_mem clCreateImage(cl_context context, cl_mem_flags flags, const cl_image_format *format, const cl_image_desc *desc,
                     void *hostPtr, cl_int *errcodeRet) {
  return create<cl_mem>(
      "clCreateImage", PTXRAY_CL_ARGS(context, flags, format, desc, hostPtr, errcodeRet), errcodeRet,
      [&](Platform &p, auto &, cl_int &e) { return newImage(p, context, flags, format, desc, hostPtr, e); });
}

cl_mem clCreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format *format, size_t width,
                       size_t height, size_t rowPitch, void *hostPtr, cl_int *errcodeRet) {
  return create<cl_mem>("clCreateImage2D",
                        PTXRAY_CL_ARGS(context, flags, format, width, height, rowPitch, hostPtr, errcodeRet),
                        errcodeRet, [&](Platform &p, auto &, cl_int &e) {
                          cl_image_desc desc{};
                          desc.image_type = CL_MEM_OBJECT_IMAGE2D;
                          desc.image_width = width;
                          desc.image_height = height;
                          desc.image_row_pitch = rowPitch;
                          return newImage(p, context, flags, format, &desc, hostPtr, e);
                        });
}

cl_mem clCreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format *format, size_t width,
                       size_t height, size_t depth, size_t rowPitch, size_t slicePitch, void *hostPtr,
                       cl_int *errcodeRet) {
  return create<cl_mem>(
      "clCreateImage3D",
      PTXRAY_CL_ARGS(context, flags, format, width, height, depth, rowPitch, slicePitch, hostPtr, errcodeRet),
      errcodeRet, [&](Platform &p, auto &, cl_int &e) -> cl_mem {
        if (depth < 2) {
          e = CL_INVALID_IMAGE_SIZE; // a 3D image has at least two slices (OpenCL 1.0)
          return nullptr;
        }
        cl_image_desc desc{};
        desc.image_type = CL_MEM_OBJECT_IMAGE3D;
        desc.image_width = width;
        desc.image_height = height;
        desc.image_depth = depth;
        desc.image_row_pitch = rowPitch;
        desc.image_slice_pitch = slicePitch;
        return newImage(p, context, flags, format, &desc, hostPtr, e);
      });
}

cl_int clGetImageInfo(cl_mem image, cl_image_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetImageInfo", PTXRAY_CL_ARGS(image, name, size, value, sizeRet), [&](Platform &p, auto &) -> cl_int {
    if (!p.valid(image) || !image->isImage())
      return CL_INVALID_MEM_OBJECT;
    switch (name) {
    case CL_IMAGE_FORMAT: return info(size, value, sizeRet, image->format);
    case CL_IMAGE_ELEMENT_SIZE: return info(size, value, sizeRet, image->elementBytes);
    case CL_IMAGE_ROW_PITCH: return info(size, value, sizeRet, image->rowPitch);
    case CL_IMAGE_SLICE_PITCH:
      // A 1D array's layers are a row apart, a 2D array's and a 3D image's a slice.
      return info(size, value, sizeRet,
                  image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? image->rowPitch
                  : image->type == CL_MEM_OBJECT_IMAGE3D || image->type == CL_MEM_OBJECT_IMAGE2D_ARRAY
                      ? image->slicePitch
                      : size_t{0});
    case CL_IMAGE_WIDTH: return info(size, value, sizeRet, image->width());
    case CL_IMAGE_HEIGHT: return info(size, value, sizeRet, image->desc.image_height);
    case CL_IMAGE_DEPTH: return info(size, value, sizeRet, image->desc.image_depth);
    case CL_IMAGE_ARRAY_SIZE:
      return info(size, value, sizeRet, image->isArray() ? image->desc.image_array_size : size_t{0});
    case CL_IMAGE_BUFFER: return info(size, value, sizeRet, image->parent);
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES: return info(size, value, sizeRet, cl_uint{0});
    default: return CL_INVALID_VALUE;
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// Samplers

cl_sampler clCreateSampler(cl_context context, cl_bool normalized, cl_addressing_mode addressing, cl_filter_mode filter,
                           cl_int *errcodeRet) {
  return create<cl_sampler>(
      "clCreateSampler", PTXRAY_CL_ARGS(context, normalized, addressing, filter, errcodeRet), errcodeRet,
      [&](Platform &p, auto &, cl_int &e) -> cl_sampler {
        if (!p.valid(context)) {
          e = CL_INVALID_CONTEXT;
          return nullptr;
        }
        const bool addressOk = addressing == CL_ADDRESS_NONE || addressing == CL_ADDRESS_CLAMP_TO_EDGE ||
                               addressing == CL_ADDRESS_CLAMP || addressing == CL_ADDRESS_REPEAT ||
                               addressing == CL_ADDRESS_MIRRORED_REPEAT;
        if (!addressOk || (filter != CL_FILTER_NEAREST && filter != CL_FILTER_LINEAR) ||
            (normalized != CL_TRUE && normalized != CL_FALSE) ||
            // repeat and mirrored repeat need normalized coordinates
            (!normalized && (addressing == CL_ADDRESS_REPEAT || addressing == CL_ADDRESS_MIRRORED_REPEAT))) {
          e = CL_INVALID_VALUE;
          return nullptr;
        }
        auto *s = new _cl_sampler;
        s->context = context;
        p.retain(context);
        s->normalized = normalized;
        s->addressing = addressing;
        s->filter = filter;
        p.adopt(s);
        return s;
      });
}

cl_int clRetainSampler(cl_sampler sampler) {
  return retainObject("clRetainSampler", sampler, CL_INVALID_SAMPLER);
}

cl_int clReleaseSampler(cl_sampler sampler) {
  return releaseObject("clReleaseSampler", sampler, CL_INVALID_SAMPLER);
}

cl_int clGetSamplerInfo(cl_sampler sampler, cl_sampler_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetSamplerInfo", PTXRAY_CL_ARGS(sampler, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(sampler))
                  return CL_INVALID_SAMPLER;
                switch (name) {
                case CL_SAMPLER_REFERENCE_COUNT: return info(size, value, sizeRet, sampler->refs);
                case CL_SAMPLER_CONTEXT: return info(size, value, sizeRet, sampler->context);
                case CL_SAMPLER_NORMALIZED_COORDS: return info(size, value, sizeRet, sampler->normalized);
                case CL_SAMPLER_ADDRESSING_MODE: return info(size, value, sizeRet, sampler->addressing);
                case CL_SAMPLER_FILTER_MODE: return info(size, value, sizeRet, sampler->filter);
                default: return CL_INVALID_VALUE;
                }
              });
}

// ---------------------------------------------------------------------------------------------------
// Image commands

cl_int clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t *origin,
                          const size_t *region, size_t rowPitch, size_t slicePitch, void *ptr, cl_uint waitCount,
                          const cl_event *waitList, cl_event *event) {
  return call(
      "clEnqueueReadImage",
      PTXRAY_CL_ARGS(queue, image, blocking, origin, region, rowPitch, slicePitch, ptr, waitCount, waitList, event),
      [&](Platform &p, auto &lock) -> cl_int {
        return enqueueImageTransfer(p, lock, queue, image, false, blocking, origin, region, rowPitch, slicePitch, ptr,
                                    waitCount, waitList, event);
      });
}

cl_int clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t *origin,
                           const size_t *region, size_t rowPitch, size_t slicePitch, const void *ptr, cl_uint waitCount,
                           const cl_event *waitList, cl_event *event) {
  return call(
      "clEnqueueWriteImage",
      PTXRAY_CL_ARGS(queue, image, blocking, origin, region, rowPitch, slicePitch, ptr, waitCount, waitList, event),
      [&](Platform &p, auto &lock) -> cl_int {
        return enqueueImageTransfer(p, lock, queue, image, true, blocking, origin, region, rowPitch, slicePitch,
                                    const_cast<void *>(ptr), waitCount, waitList, event);
      });
}

cl_int clEnqueueFillImage(cl_command_queue queue, cl_mem image, const void *color, const size_t *origin,
                          const size_t *region, cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  return call("clEnqueueFillImage", PTXRAY_CL_ARGS(queue, image, color, origin, region, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (cl_int e = checkImage(p, queue, image))
                  return e;
                if (!color)
                  return CL_INVALID_VALUE;
                if (cl_int e = checkRegion(image, origin, region))
                  return e;
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                Command c;
                c.type = CL_COMMAND_FILL_IMAGE;
                c.holds = {image};
                const std::vector<std::byte> value = pixel(image->format, color);
                const std::array<size_t, 3> o{origin[0], origin[1], origin[2]}, r{region[0], region[1], region[2]};
                c.run = [&p, queue, image, o, r, value](double &seconds) {
                  std::byte *base = p.bytes(image->address, image->size);
                  for (size_t z = 0; z < r[2]; ++z)
                    for (size_t y = 0; y < r[1]; ++y)
                      for (size_t x = 0; x < r[0]; ++x)
                        std::memcpy(base + pixelOffset(image, o[0] + x, o[1] + y, o[2] + z), value.data(),
                                    value.size());
                  p.wrote(image->address, image->size);
                  const size_t bytes = r[0] * r[1] * r[2] * image->elementBytes;
                  seconds = p.deviceCopySeconds(bytes, true);
                  recordTransfer(p, queue, system::OpKind::Memset, bytes, false, false);
                  return CL_SUCCESS;
                };
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

cl_int clEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *srcOrigin,
                          const size_t *dstOrigin, const size_t *region, cl_uint waitCount, const cl_event *waitList,
                          cl_event *event) {
  return call(
      "clEnqueueCopyImage", PTXRAY_CL_ARGS(queue, src, dst, srcOrigin, dstOrigin, region, waitCount, waitList, event),
      [&](Platform &p, auto &lock) -> cl_int {
        if (cl_int e = checkQueue(p, queue))
          return e;
        if (cl_int e = checkImage(p, queue, src))
          return e;
        if (cl_int e = checkImage(p, queue, dst))
          return e;
        if (src->format.image_channel_order != dst->format.image_channel_order ||
            src->format.image_channel_data_type != dst->format.image_channel_data_type)
          return CL_IMAGE_FORMAT_MISMATCH;
        if (cl_int e = checkRegion(src, srcOrigin, region))
          return e;
        if (cl_int e = checkRegion(dst, dstOrigin, region))
          return e;
        if (src == dst) {
          bool disjoint = false;
          for (int i = 0; i < 3; ++i)
            disjoint |= srcOrigin[i] + region[i] <= dstOrigin[i] || dstOrigin[i] + region[i] <= srcOrigin[i];
          if (!disjoint)
            return CL_MEM_COPY_OVERLAP;
        }
        if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
          return e;
        Command c;
        c.type = CL_COMMAND_COPY_IMAGE;
        c.holds = {src, dst};
        const std::array<size_t, 3> so{srcOrigin[0], srcOrigin[1], srcOrigin[2]},
            dO{dstOrigin[0], dstOrigin[1], dstOrigin[2]}, r{region[0], region[1], region[2]};
        c.run = [&p, queue, src, dst, so, dO, r](double &seconds) {
          // Through a packed copy: the two regions may be of one image (disjoint, checked above).
          std::vector<std::byte> staging(r[0] * r[1] * r[2] * src->elementBytes);
          const size_t row = r[0] * src->elementBytes;
          copyRegion(p.bytes(src->address, src->size), src, so.data(), r.data(), staging.data(), row, row * r[1],
                     false);
          copyRegion(p.bytes(dst->address, dst->size), dst, dO.data(), r.data(), staging.data(), row, row * r[1], true);
          p.wrote(dst->address, dst->size);
          seconds = p.deviceCopySeconds(staging.size(), false);
          recordTransfer(p, queue, system::OpKind::CopyD2D, staging.size(), false, false);
          return CL_SUCCESS;
        };
        return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
      });
}

cl_int clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *srcOrigin,
                                  const size_t *region, size_t dstOffset, cl_uint waitCount, const cl_event *waitList,
                                  cl_event *event) {
  return call("clEnqueueCopyImageToBuffer",
              PTXRAY_CL_ARGS(queue, src, dst, srcOrigin, region, dstOffset, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                return enqueueImageBufferCopy(p, lock, queue, src, dst, false, srcOrigin, region, dstOffset, waitCount,
                                              waitList, event);
              });
}

cl_int clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst, size_t srcOffset,
                                  const size_t *dstOrigin, const size_t *region, cl_uint waitCount,
                                  const cl_event *waitList, cl_event *event) {
  return call("clEnqueueCopyBufferToImage",
              PTXRAY_CL_ARGS(queue, src, dst, srcOffset, dstOrigin, region, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                return enqueueImageBufferCopy(p, lock, queue, dst, src, true, dstOrigin, region, srcOffset, waitCount,
                                              waitList, event);
              });
}

void *clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking, cl_map_flags flags,
                        const size_t *origin, const size_t *region, size_t *rowPitch, size_t *slicePitch,
                        cl_uint waitCount, const cl_event *waitList, cl_event *event, cl_int *errcodeRet) {
  void *mapped = nullptr;
  const cl_int error =
      call("clEnqueueMapImage",
           PTXRAY_CL_ARGS(queue, image, blocking, flags, origin, region, rowPitch, slicePitch, waitCount, waitList,
                          event, errcodeRet),
           [&](Platform &p, auto &lock) -> cl_int {
             if (cl_int e = checkQueue(p, queue))
               return e;
             if (cl_int e = checkImage(p, queue, image))
               return e;
             if (cl_int e = checkRegion(image, origin, region))
               return e;
             constexpr cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
             if (!rowPitch || ((image->type == CL_MEM_OBJECT_IMAGE3D || image->isArray()) && !slicePitch) ||
                 (flags & ~known))
               return CL_INVALID_VALUE;
             if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
               return e;
             // The image's own bytes, which the host reaches directly (its rows keep their pitch).
             const size_t first = pixelOffset(image, origin[0], origin[1], origin[2]);
             const size_t last =
                 pixelOffset(image, origin[0] + region[0] - 1, origin[1] + region[1] - 1, origin[2] + region[2] - 1) +
                 image->elementBytes;
             mapped = p.bytes(image->address + first, last - first);
             *rowPitch = image->rowPitch;
             if (slicePitch)
               *slicePitch = image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? image->rowPitch
                             : image->type == CL_MEM_OBJECT_IMAGE3D || image->type == CL_MEM_OBJECT_IMAGE2D_ARRAY
                                 ? image->slicePitch
                                 : 0;
             const bool write = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
             image->maps.emplace(mapped, _cl_mem::Mapping{first, last - first, write});
             ++image->mapCount;
             Command c;
             c.type = CL_COMMAND_MAP_IMAGE;
             c.holds = {image};
             const bool read = !(flags & CL_MAP_WRITE_INVALIDATE_REGION);
             const size_t bytes = region[0] * region[1] * region[2] * image->elementBytes;
             c.run = [&p, queue, bytes, read, blocking](double &seconds) {
               if (read) {
                 seconds = p.hostCopySeconds(bytes, false, true);
                 recordTransfer(p, queue, system::OpKind::CopyD2H, bytes, true, blocking);
               }
               return CL_SUCCESS;
             };
             return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event, blocking);
           });
  if (errcodeRet)
    *errcodeRet = error;
  return error == CL_SUCCESS ? mapped : nullptr;
}

} // namespace api
} // namespace ptxray::opencl
