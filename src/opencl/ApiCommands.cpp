// Commands (transfers, fills, maps, kernel launches, markers and barriers), events and their
// profiling information, user events and callbacks. Each enqueue checks its arguments as the
// specification orders the errors, then hands the platform a command: what it does when it runs,
// and the modeled time it takes.
#include "opencl/Api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iostream>

namespace ptxray::opencl {

cl_int checkQueue(Platform &p, cl_command_queue queue) {
  if (!p.valid(queue))
    return CL_INVALID_COMMAND_QUEUE;
  return p.stickyError();
}

cl_int checkBuffer(Platform &p, cl_command_queue queue, cl_mem m) {
  if (!p.valid(m) || m->type != CL_MEM_OBJECT_BUFFER)
    return CL_INVALID_MEM_OBJECT;
  if (m->context != queue->context)
    return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

/// The session's record of a transfer or fill (PTXRAY_TIMELINE), once it ran.
void recordTransfer(Platform &p, cl_command_queue queue, system::OpKind kind, size_t bytes, bool pinned, bool blocking,
                    uint64_t rows, uint64_t hostPitch) {
  session::SessionRecorder *s = p.recorder();
  if (!s || bytes == 0)
    return;
  const session::StreamRef on{0, queue->stream};
  if (kind == system::OpKind::Memset)
    s->memset(bytes, on);
  else
    s->copy(kind, bytes, !pinned, on, rows, hostPitch);
  if (blocking)
    s->streamSynchronize(on);
}

namespace {

using toolchain::OpenCLKernelArg;

bool inRange(size_t offset, size_t bytes, size_t size) {
  return offset <= size && bytes <= size - offset;
}

/// A rectangle of a buffer: its byte offsets and its extent in bytes, rows and slices.
struct Rect {
  size_t origin[3];
  size_t region[3];
  size_t rowPitch, slicePitch;
  size_t offset(size_t row, size_t slice) const {
    return (origin[2] + slice) * slicePitch + (origin[1] + row) * rowPitch + origin[0];
  }
  size_t end() const { return offset(region[1] - 1, region[2] - 1) + region[0]; }
  size_t bytes() const { return region[0] * region[1] * region[2]; }
};

/// Fills in default pitches and checks a rectangle (CL_INVALID_VALUE).
cl_int makeRect(Rect &r, const size_t *origin, const size_t *region, size_t rowPitch, size_t slicePitch) {
  if (!origin || !region)
    return CL_INVALID_VALUE;
  for (int i = 0; i < 3; ++i) {
    r.origin[i] = origin[i];
    r.region[i] = region[i];
    if (region[i] == 0)
      return CL_INVALID_VALUE;
  }
  r.rowPitch = rowPitch ? rowPitch : region[0];
  r.slicePitch = slicePitch ? slicePitch : region[1] * r.rowPitch;
  if (r.rowPitch < region[0] || r.slicePitch < region[1] * r.rowPitch || (slicePitch && slicePitch % r.rowPitch))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

/// Whether two rectangles of device memory share a byte: their rows, in address order, walked together.
bool rectsOverlap(uint64_t aBase, const Rect &a, uint64_t bBase, const Rect &b) {
  if (aBase + a.offset(0, 0) >= bBase + b.end() || bBase + b.offset(0, 0) >= aBase + a.end())
    return false;
  const size_t rows = a.region[1] * a.region[2];
  auto start = [](uint64_t base, const Rect &r, size_t i) { return base + r.offset(i % r.region[1], i / r.region[1]); };
  size_t i = 0, j = 0;
  while (i < rows && j < rows) {
    const uint64_t as = start(aBase, a, i), bs = start(bBase, b, j);
    if (as < bs + b.region[0] && bs < as + a.region[0])
      return true;
    if (as < bs)
      ++i;
    else
      ++j;
  }
  return false;
}

void copyRect(std::byte *dst, const Rect &d, const std::byte *src, const Rect &s) {
  for (size_t z = 0; z < d.region[2]; ++z)
    for (size_t y = 0; y < d.region[1]; ++y)
      std::memmove(dst + d.offset(y, z), src + s.offset(y, z), d.region[0]);
}

/// Where a __local argument's bytes start: after the work-group's static local memory and the
/// __local arguments before it, each aligned to the largest power of two (up to 128, OpenCL's
/// largest vector) that divides its size.
uint64_t placeLocal(uint64_t &end, size_t bytes) {
  const uint64_t align = std::min<uint64_t>(bytes & (~bytes + 1), 128);
  const uint64_t at = (end + align - 1) / align * align;
  end = at + bytes;
  return at;
}

/// A work-group size for a dimension the program left to the implementation: the largest divisor of
/// the global size within what is left of the kernel's limit.
size_t chooseLocal(size_t global, size_t limit) {
  for (size_t l = std::min(global, limit); l > 1; --l)
    if (global % l == 0)
      return l;
  return 1;
}

/// A contiguous range of bytes as a rectangle of one row.
Rect range(size_t offset, size_t bytes) {
  Rect r{{offset, 0, 0}, {bytes, 1, 1}, bytes, bytes};
  return r;
}

/// clEnqueueRead/WriteBuffer(Rect): a rectangle `b` of the buffer from or to a rectangle `h` of the
/// host's memory at `ptr` (`toDevice`: a write), timed as a PCIe transfer of its bytes. A null `ptr`
/// (or rectangles that did not check out) is CL_INVALID_VALUE.
cl_int enqueueTransfer(Platform &p, std::unique_lock<std::mutex> &lock, cl_command_queue queue, cl_mem buffer,
                       bool toDevice, cl_bool blocking, const Rect &b, const Rect &h, void *ptr, cl_uint waitCount,
                       const cl_event *waitList, cl_event *event, cl_command_type type) {
  if (cl_int e = checkQueue(p, queue))
    return e;
  if (cl_int e = checkBuffer(p, queue, buffer))
    return e;
  if (!ptr || b.bytes() == 0 || b.end() > buffer->size || b.end() < b.offset(0, 0))
    return CL_INVALID_VALUE;
  if (buffer->flags & (CL_MEM_HOST_NO_ACCESS | (toDevice ? CL_MEM_HOST_READ_ONLY : CL_MEM_HOST_WRITE_ONLY)))
    return CL_INVALID_OPERATION;
  if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
    return e;
  Command c;
  c.type = type;
  c.holds = {buffer};
  c.run = [&p, queue, buffer, b, h, ptr, toDevice, blocking](double &seconds) {
    std::byte *device = p.bytes(buffer->address, buffer->size), *host = static_cast<std::byte *>(ptr);
    if (toDevice) {
      copyRect(device, b, host, h);
      for (size_t z = 0; z < b.region[2]; ++z)
        for (size_t y = 0; y < b.region[1]; ++y)
          p.wrote(buffer->address + b.offset(y, z), b.region[0]);
    } else {
      copyRect(host, h, device, b);
    }
    const bool pinned = p.pinnedHostMemory(ptr, 1);
    seconds = p.hostCopySeconds(b.bytes(), toDevice, pinned);
    recordTransfer(p, queue, toDevice ? system::OpKind::CopyH2D : system::OpKind::CopyD2H, b.bytes(), pinned, blocking,
                   b.region[1] * b.region[2], h.rowPitch);
    return CL_SUCCESS;
  };
  return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event, blocking);
}

cl_int enqueueKernel(Platform &p, std::unique_lock<std::mutex> &lock, cl_command_queue queue, cl_kernel kernel,
                     cl_uint dims, const size_t *offset, const size_t *global, const size_t *local, cl_uint waitCount,
                     const cl_event *waitList, cl_event *event, cl_command_type type) {
  if (cl_int e = checkQueue(p, queue))
    return e;
  if (!p.valid(kernel))
    return CL_INVALID_KERNEL;
  if (kernel->program->context != queue->context)
    return CL_INVALID_CONTEXT;
  if (std::any_of(kernel->args.begin(), kernel->args.end(), [](const KernelArg &a) { return !a.set; }))
    return CL_INVALID_KERNEL_ARGS;
  if (dims < 1 || dims > 3)
    return CL_INVALID_WORK_DIMENSION;
  if (!global)
    return CL_INVALID_GLOBAL_WORK_SIZE;
  const arch::ComputeCapability &cc = p.cc();
  size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1}, o[3] = {0, 0, 0};
  for (cl_uint d = 0; d < dims; ++d) {
    g[d] = global[d];
    if (g[d] == 0)
      return CL_INVALID_GLOBAL_WORK_SIZE; // OpenCL 1.2: every global size is at least 1
    if (offset) {
      o[d] = offset[d];
      // get_global_id is the offset plus a 32-bit index on NVIDIA's GPUs (%envreg3-5).
      if (o[d] > UINT32_MAX || g[d] + o[d] < g[d])
        return CL_INVALID_GLOBAL_OFFSET;
    }
  }
  const size_t limit = p.kernelWorkGroupLimit(kernel);
  const auto &required = kernel->info.requiredWorkGroupSize;
  if (local) {
    size_t product = 1;
    for (cl_uint d = 0; d < dims; ++d) {
      l[d] = local[d];
      if (l[d] == 0 || g[d] % l[d])
        return CL_INVALID_WORK_GROUP_SIZE;
      if (required[0] && l[d] != required[d])
        return CL_INVALID_WORK_GROUP_SIZE;
      product *= l[d];
    }
    if (product > limit)
      return CL_INVALID_WORK_GROUP_SIZE;
    for (cl_uint d = 0; d < dims; ++d)
      if (l[d] > static_cast<size_t>(cc.maxBlockDim[d]))
        return CL_INVALID_WORK_ITEM_SIZE;
  } else if (required[0]) {
    return CL_INVALID_WORK_GROUP_SIZE; // OpenCL 1.2: a kernel with reqd_work_group_size needs its local size
  } else {
    // Up to 256 work-items: whole warps where the sizes allow, and room for several groups per SM.
    size_t left = std::min<size_t>(limit, 256);
    for (cl_uint d = 0; d < dims; ++d) {
      l[d] = chooseLocal(g[d], std::min(left, static_cast<size_t>(cc.maxBlockDim[d])));
      left /= l[d];
    }
  }
  vm::LaunchConfig config;
  config.workDim = dims;
  for (cl_uint d = 0; d < 3; ++d) {
    const size_t groups = g[d] / l[d];
    if (groups > static_cast<size_t>(cc.maxGridDim[d]))
      return CL_INVALID_GLOBAL_WORK_SIZE;
    (d == 0 ? config.grid.x : d == 1 ? config.grid.y : config.grid.z) = static_cast<uint32_t>(groups);
    (d == 0 ? config.block.x : d == 1 ? config.block.y : config.block.z) = static_cast<uint32_t>(l[d]);
    config.globalOffset[d] = static_cast<uint32_t>(o[d]);
  }
  if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
    return e;

  // The parameters, as the kernel's PTX takes them, from the arguments as they are now.
  const vm::LoadedModule &module = *kernel->program->module;
  std::vector<std::vector<std::byte>> arguments;
  std::vector<std::pair<cl_mem, size_t>> constants;
  std::vector<cl_mem> holds;
  uint64_t localEnd = kernel->function->staticSharedBytes;
  uint64_t constantEnd = 0;
  auto pointer = [](uint64_t v) {
    std::vector<std::byte> bytes(8);
    std::memcpy(bytes.data(), &v, 8);
    return bytes;
  };
  for (size_t i = 0; i < kernel->args.size(); ++i) {
    const KernelArg &a = kernel->args[i];
    const OpenCLKernelArg::Space space = a.localBytes ? OpenCLKernelArg::Space::Local
                                         : kernel->info.args[i].space == OpenCLKernelArg::Space::Constant
                                             ? OpenCLKernelArg::Space::Constant
                                         : a.value.empty() ? OpenCLKernelArg::Space::Global
                                                           : OpenCLKernelArg::Space::Private;
    switch (space) {
    case OpenCLKernelArg::Space::Local: arguments.push_back(pointer(placeLocal(localEnd, a.localBytes))); break;
    case OpenCLKernelArg::Space::Global:
      arguments.push_back(pointer(a.memory ? a.memory->address : 0));
      if (a.memory)
        holds.push_back(a.memory);
      break;
    case OpenCLKernelArg::Space::Constant: {
      // In the module's constant bank, where the kernel's ld.const reads it.
      const size_t bytes = a.memory ? a.memory->size : 0;
      const uint64_t at = (constantEnd + 15) / 16 * 16;
      if (at + bytes > module.constantArgumentBytes())
        return CL_OUT_OF_RESOURCES; // more than CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE in all
      constantEnd = at + bytes;
      const uint64_t offset = module.constantArgumentOffset() + at;
      arguments.push_back(pointer(offset));
      if (a.memory) {
        constants.emplace_back(a.memory, offset);
        holds.push_back(a.memory);
      }
      break;
    }
    case OpenCLKernelArg::Space::Private:
      arguments.push_back(a.value);
      if (a.memory) // an image, passed as its texture or surface handle
        holds.push_back(a.memory);
      break;
    }
  }
  // The work-group's local memory within CL_DEVICE_LOCAL_MEM_SIZE (the GPU's default per-block shared
  // memory; CUDA's opt-in to more is not OpenCL's).
  if (localEnd > static_cast<uint64_t>(cc.sharedPerBlock)) {
    std::fflush(stdout);
    std::cerr << fmt::format("ptxray: {}: launch of {} refused: {} bytes of local memory per work-group, more than "
                             "CL_DEVICE_LOCAL_MEM_SIZE ({} bytes)\n",
                             type == CL_COMMAND_TASK ? "clEnqueueTask" : "clEnqueueNDRangeKernel", kernel->info.name,
                             localEnd, cc.sharedPerBlock);
    return CL_OUT_OF_RESOURCES;
  }
  config.dynamicSharedBytes = static_cast<uint32_t>(localEnd - kernel->function->staticSharedBytes);
  if (auto [refusal, why] = p.gpu().checkLaunch(module, *kernel->function, config, arguments);
      refusal != vm::Refusal::None) {
    std::fflush(stdout);
    std::cerr << fmt::format("ptxray: {}: launch of {} refused: {}\n",
                             type == CL_COMMAND_TASK ? "clEnqueueTask" : "clEnqueueNDRangeKernel", kernel->info.name,
                             why);
    return refusal == vm::Refusal::InvalidConfiguration ? CL_INVALID_WORK_GROUP_SIZE : CL_OUT_OF_RESOURCES;
  }
  Command c;
  c.type = type;
  c.holds = holds;
  ++kernel->refs;
  c.run = [&p, queue, kernel, config, arguments = std::move(arguments),
           constants = std::move(constants)](double &seconds) {
    const cl_int result = p.launch(queue, kernel, config, arguments, constants, seconds);
    p.release(kernel);
    return result;
  };
  return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
}

} // namespace

namespace api {

// ---------------------------------------------------------------------------------------------------
// Buffers

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                           void *ptr, cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  return call("clEnqueueReadBuffer",
              PTXRAY_CL_ARGS(queue, buffer, blocking, offset, size, ptr, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                return enqueueTransfer(p, lock, queue, buffer, false, blocking, range(offset, size), range(0, size),
                                       ptr, waitCount, waitList, event, CL_COMMAND_READ_BUFFER);
              });
}

cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                            const void *ptr, cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  return call("clEnqueueWriteBuffer",
              PTXRAY_CL_ARGS(queue, buffer, blocking, offset, size, ptr, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                return enqueueTransfer(p, lock, queue, buffer, true, blocking, range(offset, size), range(0, size),
                                       const_cast<void *>(ptr), waitCount, waitList, event, CL_COMMAND_WRITE_BUFFER);
              });
}

cl_int clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *bufferOrigin,
                               const size_t *hostOrigin, const size_t *region, size_t bufferRowPitch,
                               size_t bufferSlicePitch, size_t hostRowPitch, size_t hostSlicePitch, void *ptr,
                               cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  return call("clEnqueueReadBufferRect",
              PTXRAY_CL_ARGS(queue, buffer, blocking, bufferOrigin, hostOrigin, region, bufferRowPitch,
                             bufferSlicePitch, hostRowPitch, hostSlicePitch, ptr, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                Rect b{}, h{};
                const bool valid = !makeRect(b, bufferOrigin, region, bufferRowPitch, bufferSlicePitch) &&
                                   !makeRect(h, hostOrigin, region, hostRowPitch, hostSlicePitch);
                return enqueueTransfer(p, lock, queue, buffer, false, blocking, b, h, valid ? ptr : nullptr, waitCount,
                                       waitList, event, CL_COMMAND_READ_BUFFER_RECT);
              });
}

cl_int clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *bufferOrigin,
                                const size_t *hostOrigin, const size_t *region, size_t bufferRowPitch,
                                size_t bufferSlicePitch, size_t hostRowPitch, size_t hostSlicePitch, const void *ptr,
                                cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  return call("clEnqueueWriteBufferRect",
              PTXRAY_CL_ARGS(queue, buffer, blocking, bufferOrigin, hostOrigin, region, bufferRowPitch,
                             bufferSlicePitch, hostRowPitch, hostSlicePitch, ptr, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                Rect b{}, h{};
                const bool valid = !makeRect(b, bufferOrigin, region, bufferRowPitch, bufferSlicePitch) &&
                                   !makeRect(h, hostOrigin, region, hostRowPitch, hostSlicePitch);
                return enqueueTransfer(p, lock, queue, buffer, true, blocking, b, h,
                                       valid ? const_cast<void *>(ptr) : nullptr, waitCount, waitList, event,
                                       CL_COMMAND_WRITE_BUFFER_RECT);
              });
}

cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t srcOffset, size_t dstOffset,
                           size_t size, cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  return call("clEnqueueCopyBuffer",
              PTXRAY_CL_ARGS(queue, src, dst, srcOffset, dstOffset, size, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (cl_int e = checkBuffer(p, queue, src))
                  return e;
                if (cl_int e = checkBuffer(p, queue, dst))
                  return e;
                if (size == 0 || !inRange(srcOffset, size, src->size) || !inRange(dstOffset, size, dst->size))
                  return CL_INVALID_VALUE;
                const uint64_t from = src->address + srcOffset, to = dst->address + dstOffset;
                if (from < to + size && to < from + size)
                  return CL_MEM_COPY_OVERLAP;
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                Command c;
                c.type = CL_COMMAND_COPY_BUFFER;
                c.holds = {src, dst};
                c.run = [&p, queue, from, to, size](double &seconds) {
                  std::memcpy(p.bytes(to, size), p.bytes(from, size), size);
                  p.wrote(to, size);
                  seconds = p.deviceCopySeconds(size, false);
                  recordTransfer(p, queue, system::OpKind::CopyD2D, size, false, false);
                  return CL_SUCCESS;
                };
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

cl_int clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *srcOrigin,
                               const size_t *dstOrigin, const size_t *region, size_t srcRowPitch, size_t srcSlicePitch,
                               size_t dstRowPitch, size_t dstSlicePitch, cl_uint waitCount, const cl_event *waitList,
                               cl_event *event) {
  return call("clEnqueueCopyBufferRect",
              PTXRAY_CL_ARGS(queue, src, dst, srcOrigin, dstOrigin, region, srcRowPitch, srcSlicePitch, dstRowPitch,
                             dstSlicePitch, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (cl_int e = checkBuffer(p, queue, src))
                  return e;
                if (cl_int e = checkBuffer(p, queue, dst))
                  return e;
                Rect s{}, d{};
                if (makeRect(s, srcOrigin, region, srcRowPitch, srcSlicePitch) ||
                    makeRect(d, dstOrigin, region, dstRowPitch, dstSlicePitch) || s.end() > src->size ||
                    d.end() > dst->size)
                  return CL_INVALID_VALUE;
                if (src == dst && srcRowPitch != dstRowPitch)
                  return CL_INVALID_VALUE;
                if (rectsOverlap(src->address, s, dst->address, d))
                  return CL_MEM_COPY_OVERLAP;
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                Command c;
                c.type = CL_COMMAND_COPY_BUFFER_RECT;
                c.holds = {src, dst};
                c.run = [&p, queue, src, dst, s, d](double &seconds) {
                  copyRect(p.bytes(dst->address, dst->size), d, p.bytes(src->address, src->size), s);
                  for (size_t z = 0; z < d.region[2]; ++z)
                    for (size_t y = 0; y < d.region[1]; ++y)
                      p.wrote(dst->address + d.offset(y, z), d.region[0]);
                  seconds = p.deviceCopySeconds(d.bytes(), false);
                  recordTransfer(p, queue, system::OpKind::CopyD2D, d.bytes(), false, false);
                  return CL_SUCCESS;
                };
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern, size_t patternSize,
                           size_t offset, size_t size, cl_uint waitCount, const cl_event *waitList, cl_event *event) {
  return call("clEnqueueFillBuffer",
              PTXRAY_CL_ARGS(queue, buffer, pattern, patternSize, offset, size, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (cl_int e = checkBuffer(p, queue, buffer))
                  return e;
                const bool powerOfTwo = patternSize && (patternSize & (patternSize - 1)) == 0;
                if (!pattern || !powerOfTwo || patternSize > 128 || offset % patternSize || size % patternSize ||
                    !inRange(offset, size, buffer->size))
                  return CL_INVALID_VALUE;
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                Command c;
                c.type = CL_COMMAND_FILL_BUFFER;
                c.holds = {buffer};
                const std::vector<std::byte> bytes(static_cast<const std::byte *>(pattern),
                                                   static_cast<const std::byte *>(pattern) + patternSize);
                const uint64_t address = buffer->address + offset;
                c.run = [&p, queue, address, size, bytes](double &seconds) {
                  std::byte *out = p.bytes(address, size);
                  for (size_t at = 0; at < size; at += bytes.size())
                    std::memcpy(out + at, bytes.data(), bytes.size());
                  p.wrote(address, size);
                  seconds = p.deviceCopySeconds(size, true);
                  recordTransfer(p, queue, system::OpKind::Memset, size, false, false);
                  return CL_SUCCESS;
                };
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

void *clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset,
                         size_t size, cl_uint waitCount, const cl_event *waitList, cl_event *event,
                         cl_int *errcodeRet) {
  void *mapped = nullptr;
  const cl_int error =
      call("clEnqueueMapBuffer",
           PTXRAY_CL_ARGS(queue, buffer, blocking, flags, offset, size, waitCount, waitList, event, errcodeRet),
           [&](Platform &p, auto &lock) -> cl_int {
             if (cl_int e = checkQueue(p, queue))
               return e;
             if (cl_int e = checkBuffer(p, queue, buffer))
               return e;
             constexpr cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
             if (size == 0 || !inRange(offset, size, buffer->size) || (flags & ~known) ||
                 ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
               return CL_INVALID_VALUE;
             if (((flags & CL_MAP_READ) && (buffer->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))) ||
                 ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
                  (buffer->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS))))
               return CL_INVALID_OPERATION;
             if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
               return e;
             // A CL_MEM_USE_HOST_PTR buffer maps to its host memory (brought up to date here); any other to
             // the buffer's own bytes, which the host reaches directly (zero copy).
             const bool useHost = buffer->hostPtr != nullptr;
             mapped =
                 useHost ? static_cast<std::byte *>(buffer->hostPtr) + offset : p.bytes(buffer->address + offset, size);
             const bool write = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
             buffer->maps.emplace(mapped, _cl_mem::Mapping{offset, size, write});
             ++buffer->mapCount;
             Command c;
             c.type = CL_COMMAND_MAP_BUFFER;
             c.holds = {buffer};
             const bool read = !(flags & CL_MAP_WRITE_INVALIDATE_REGION);
             c.run = [&p, queue, buffer, offset, size, mapped, useHost, read, blocking](double &seconds) {
               if (useHost && read)
                 std::memcpy(mapped, p.bytes(buffer->address + offset, size), size);
               // Mapping a device buffer moves its bytes to (page-locked) host memory; a buffer in host memory
               // (CL_MEM_ALLOC_HOST_PTR) is already there.
               if (read && !buffer->pinned()) {
                 seconds = p.hostCopySeconds(size, false, true);
                 recordTransfer(p, queue, system::OpKind::CopyD2H, size, true, blocking);
               }
               return CL_SUCCESS;
             };
             return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event, blocking);
           });
  if (errcodeRet)
    *errcodeRet = error;
  return error == CL_SUCCESS ? mapped : nullptr;
}

cl_int clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj, void *mapped, cl_uint waitCount,
                               const cl_event *waitList, cl_event *event) {
  return call("clEnqueueUnmapMemObject", PTXRAY_CL_ARGS(queue, memobj, mapped, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (!p.valid(memobj))
                  return CL_INVALID_MEM_OBJECT;
                if (memobj->context != queue->context)
                  return CL_INVALID_CONTEXT;
                auto it = memobj->maps.find(mapped);
                if (it == memobj->maps.end())
                  return CL_INVALID_VALUE;
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                const _cl_mem::Mapping mapping = it->second;
                memobj->maps.erase(it);
                --memobj->mapCount;
                Command c;
                c.type = CL_COMMAND_UNMAP_MEM_OBJECT;
                c.holds = {memobj};
                c.run = [&p, queue, memobj, mapping, mapped](double &seconds) {
                  if (!mapping.write)
                    return CL_SUCCESS;
                  const uint64_t address = memobj->address + mapping.offset;
                  if (memobj->hostPtr && !memobj->isImage()) // an image maps to its own bytes
                    std::memcpy(p.bytes(address, mapping.bytes), mapped, mapping.bytes);
                  p.wrote(address, mapping.bytes);
                  if (!memobj->pinned()) {
                    seconds = p.hostCopySeconds(mapping.bytes, true, true);
                    recordTransfer(p, queue, system::OpKind::CopyH2D, mapping.bytes, true, false);
                  }
                  return CL_SUCCESS;
                };
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

cl_int clEnqueueMigrateMemObjects(cl_command_queue queue, cl_uint count, const cl_mem *objects,
                                  cl_mem_migration_flags flags, cl_uint waitCount, const cl_event *waitList,
                                  cl_event *event) {
  return call("clEnqueueMigrateMemObjects", PTXRAY_CL_ARGS(queue, count, objects, flags, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (count == 0 || !objects ||
                    (flags & ~static_cast<cl_mem_migration_flags>(CL_MIGRATE_MEM_OBJECT_HOST |
                                                                  CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
                  return CL_INVALID_VALUE;
                for (cl_uint i = 0; i < count; ++i) {
                  if (!p.valid(objects[i]))
                    return CL_INVALID_MEM_OBJECT;
                  if (objects[i]->context != queue->context)
                    return CL_INVALID_CONTEXT;
                }
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                Command c; // one device, whose memory the host reaches: nothing moves
                c.type = CL_COMMAND_MIGRATE_MEM_OBJECTS;
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

// ---------------------------------------------------------------------------------------------------
// Kernels

cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                              const size_t *global, const size_t *local, cl_uint waitCount, const cl_event *waitList,
                              cl_event *event) {
  return call("clEnqueueNDRangeKernel",
              PTXRAY_CL_ARGS(queue, kernel, dims, offset, global, local, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                return enqueueKernel(p, lock, queue, kernel, dims, offset, global, local, waitCount, waitList, event,
                                     CL_COMMAND_NDRANGE_KERNEL);
              });
}

cl_int clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint waitCount, const cl_event *waitList,
                     cl_event *event) {
  return call("clEnqueueTask", PTXRAY_CL_ARGS(queue, kernel, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                const size_t one = 1;
                return enqueueKernel(p, lock, queue, kernel, 1, nullptr, &one, &one, waitCount, waitList, event,
                                     CL_COMMAND_TASK);
              });
}

cl_int clEnqueueNativeKernel(cl_command_queue queue, void(CL_CALLBACK *)(void *), void *, size_t, cl_uint,
                             const cl_mem *, const void **, cl_uint, const cl_event *, cl_event *) {
  return call("clEnqueueNativeKernel", PTXRAY_CL_ARGS(queue), [&](Platform &p, auto &) -> cl_int {
    // CL_DEVICE_EXECUTION_CAPABILITIES has no CL_EXEC_NATIVE_KERNEL, as on every GPU.
    return checkQueue(p, queue) ? checkQueue(p, queue) : CL_INVALID_OPERATION;
  });
}

// ---------------------------------------------------------------------------------------------------
// Markers, barriers, synchronization

cl_int clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint waitCount, const cl_event *waitList,
                                   cl_event *event) {
  return call("clEnqueueMarkerWithWaitList", PTXRAY_CL_ARGS(queue, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                Command c;
                c.type = CL_COMMAND_MARKER;
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

cl_int clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint waitCount, const cl_event *waitList,
                                    cl_event *event) {
  return call("clEnqueueBarrierWithWaitList", PTXRAY_CL_ARGS(queue, waitCount, waitList, event),
              [&](Platform &p, auto &lock) -> cl_int {
                if (cl_int e = checkQueue(p, queue))
                  return e;
                if (cl_int e = p.checkWaitList(queue->context, waitCount, waitList))
                  return e;
                Command c;
                c.type = CL_COMMAND_BARRIER;
                return p.enqueue(lock, queue, std::move(c), waitCount, waitList, event);
              });
}

cl_int clEnqueueMarker(cl_command_queue queue, cl_event *event) {
  return call("clEnqueueMarker", PTXRAY_CL_ARGS(queue, event), [&](Platform &p, auto &lock) -> cl_int {
    if (cl_int e = checkQueue(p, queue))
      return e;
    if (!event)
      return CL_INVALID_VALUE;
    Command c;
    c.type = CL_COMMAND_MARKER;
    return p.enqueue(lock, queue, std::move(c), 0, nullptr, event);
  });
}

cl_int clEnqueueWaitForEvents(cl_command_queue queue, cl_uint count, const cl_event *list) {
  return call("clEnqueueWaitForEvents", PTXRAY_CL_ARGS(queue, count, list), [&](Platform &p, auto &lock) -> cl_int {
    if (cl_int e = checkQueue(p, queue))
      return e;
    if (count == 0 || !list)
      return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < count; ++i)
      if (!p.valid(list[i]))
        return CL_INVALID_EVENT;
    if (cl_int e = p.checkWaitList(queue->context, count, list))
      return e;
    Command c;
    c.type = CL_COMMAND_BARRIER;
    return p.enqueue(lock, queue, std::move(c), count, list, nullptr);
  });
}

cl_int clEnqueueBarrier(cl_command_queue queue) {
  return call("clEnqueueBarrier", PTXRAY_CL_ARGS(queue), [&](Platform &p, auto &lock) -> cl_int {
    if (cl_int e = checkQueue(p, queue))
      return e;
    Command c;
    c.type = CL_COMMAND_BARRIER;
    return p.enqueue(lock, queue, std::move(c), 0, nullptr, nullptr);
  });
}

cl_int clFlush(cl_command_queue queue) {
  return call("clFlush", PTXRAY_CL_ARGS(queue),
              [&](Platform &p, auto &) -> cl_int { return p.valid(queue) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE; });
}

cl_int clFinish(cl_command_queue queue) {
  return call("clFinish", PTXRAY_CL_ARGS(queue), [&](Platform &p, auto &lock) -> cl_int {
    if (!p.valid(queue))
      return CL_INVALID_COMMAND_QUEUE;
    p.finish(lock, queue);
    if (session::SessionRecorder *s = p.recorder())
      s->streamSynchronize({0, queue->stream});
    return p.stickyError();
  });
}

// ---------------------------------------------------------------------------------------------------
// Events

cl_int clWaitForEvents(cl_uint count, const cl_event *list) {
  return call("clWaitForEvents", PTXRAY_CL_ARGS(count, list), [&](Platform &p, auto &lock) -> cl_int {
    if (count == 0 || !list)
      return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < count; ++i) {
      if (!p.valid(list[i]))
        return CL_INVALID_EVENT;
      if (list[i]->context != list[0]->context)
        return CL_INVALID_CONTEXT;
    }
    std::vector<cl_event> events(list, list + count);
    p.wait(lock, events);
    if (session::SessionRecorder *s = p.recorder())
      for (cl_event e : events)
        if (e->queue)
          s->streamSynchronize({0, e->queue->stream});
    for (cl_event e : events)
      if (e->status < 0)
        return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return CL_SUCCESS;
  });
}

cl_int clGetEventInfo(cl_event event, cl_event_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetEventInfo", PTXRAY_CL_ARGS(event, name, size, value, sizeRet), [&](Platform &p, auto &) -> cl_int {
    if (!p.valid(event))
      return CL_INVALID_EVENT;
    switch (name) {
    case CL_EVENT_COMMAND_QUEUE: return info(size, value, sizeRet, event->queue);
    case CL_EVENT_CONTEXT: return info(size, value, sizeRet, event->context);
    case CL_EVENT_COMMAND_TYPE: return info(size, value, sizeRet, event->type);
    case CL_EVENT_COMMAND_EXECUTION_STATUS: return info(size, value, sizeRet, event->status);
    case CL_EVENT_REFERENCE_COUNT: return info(size, value, sizeRet, event->refs);
    default: return CL_INVALID_VALUE;
    }
  });
}

cl_int clGetEventProfilingInfo(cl_event event, cl_profiling_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetEventProfilingInfo", PTXRAY_CL_ARGS(event, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(event))
                  return CL_INVALID_EVENT;
                if (!event->queue || !event->queue->profiling() || event->status != CL_COMPLETE)
                  return CL_PROFILING_INFO_NOT_AVAILABLE;
                // The modeled clock's times when the session places the command, else the serial device clock.
                cl_ulong times[4] = {event->queued, event->submit, event->start, event->end};
                p.modeledProfile(event, times);
                switch (name) {
                case CL_PROFILING_COMMAND_QUEUED: return info(size, value, sizeRet, times[0]);
                case CL_PROFILING_COMMAND_SUBMIT: return info(size, value, sizeRet, times[1]);
                case CL_PROFILING_COMMAND_START: return info(size, value, sizeRet, times[2]);
                case CL_PROFILING_COMMAND_END:
                case CL_PROFILING_COMMAND_COMPLETE: return info(size, value, sizeRet, times[3]);
                default: return CL_INVALID_VALUE;
                }
              });
}

cl_event clCreateUserEvent(cl_context context, cl_int *errcodeRet) {
  return create<cl_event>("clCreateUserEvent", PTXRAY_CL_ARGS(context, errcodeRet), errcodeRet,
                          [&](Platform &p, auto &, cl_int &e) -> cl_event {
                            if (!p.valid(context)) {
                              e = CL_INVALID_CONTEXT;
                              return nullptr;
                            }
                            cl_event event = p.newEvent(context, nullptr, CL_COMMAND_USER);
                            event->status = CL_SUBMITTED;
                            return event;
                          });
}

cl_int clSetUserEventStatus(cl_event event, cl_int status) {
  return call("clSetUserEventStatus", PTXRAY_CL_ARGS(event, status), [&](Platform &p, auto &) -> cl_int {
    if (!p.valid(event) || event->type != CL_COMMAND_USER)
      return CL_INVALID_EVENT;
    if (status > CL_COMPLETE)
      return CL_INVALID_VALUE;
    if (event->complete())
      return CL_INVALID_OPERATION;
    p.setUserEventStatus(event, status);
    return CL_SUCCESS;
  });
}

cl_int clSetEventCallback(cl_event event, cl_int type, void(CL_CALLBACK *notify)(cl_event, cl_int, void *),
                          void *data) {
  return call("clSetEventCallback", PTXRAY_CL_ARGS(event, type, notify, data), [&](Platform &p, auto &) -> cl_int {
    if (!p.valid(event))
      return CL_INVALID_EVENT;
    if (!notify || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
      return CL_INVALID_VALUE;
    if (event->status <= type) {
      // Already there: called now (once the lock is released).
      const cl_int reported = event->status < 0 ? event->status : type;
      p.retain(event);
      p.addCallback([&p, event, notify, data, reported] {
        notify(event, reported, data);
        std::lock_guard lock(p.mutex());
        p.release(event);
      });
    } else {
      event->callbacks.push_back({type, notify, data});
    }
    return CL_SUCCESS;
  });
}

cl_int clRetainEvent(cl_event event) {
  return retainObject("clRetainEvent", event, CL_INVALID_EVENT);
}

cl_int clReleaseEvent(cl_event event) {
  return releaseObject("clReleaseEvent", event, CL_INVALID_EVENT);
}

} // namespace api
} // namespace ptxray::opencl
