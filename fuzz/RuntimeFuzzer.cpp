// libFuzzer target for the CUDA runtime and driver libraries (src/libcudart, src/libcuda over
// src/runtime): each input is a sequence of API calls, one per 8-byte record, with fuzzed sizes,
// offsets, pitches, kinds, limits and launch shapes, on pointers that are real (allocations, offsets
// into and past them, freed ones), bogus (null, small integers, the top of the address space) or the
// fuzzer's own host buffer. Every call must return a CUDA error code, never crash, hang, corrupt host
// memory or leak (issue #31: 2-D copies that wrote host memory, SIZE_MAX pitches, limits).
//
// Host pointers the program hands over are always valid host memory of the right size, as in any
// correct program: what a call may write is bounded by the host buffer. Device pointers may be
// anything: the libraries must refuse what is not device memory. Each input ends with every object
// freed and cudaDeviceReset, so inputs do not depend on each other.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
// The runtime and driver API, as the libraries export them (C ABI; handles are pointers).
int cudaMalloc(void **pointer, size_t bytes);
int cudaMallocManaged(void **pointer, size_t bytes, unsigned flags);
int cudaMallocHost(void **pointer, size_t bytes);
int cudaMallocPitch(void **pointer, size_t *pitch, size_t width, size_t height);
int cudaFree(void *pointer);
int cudaFreeHost(void *pointer);
int cudaMemcpy(void *dst, const void *src, size_t bytes, int kind);
int cudaMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, void *stream);
int cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind);
int cudaMemset(void *pointer, int value, size_t bytes);
int cudaMemsetAsync(void *pointer, int value, size_t bytes, void *stream);
int cudaMemGetInfo(size_t *free, size_t *total);
int cudaDeviceSetLimit(int limit, size_t value);
int cudaDeviceGetLimit(size_t *value, int limit);
int cudaDeviceSynchronize();
int cudaDeviceReset();
int cudaGetLastError();
int cudaStreamCreate(void **stream);
int cudaStreamDestroy(void *stream);
int cudaStreamSynchronize(void *stream);
int cudaStreamWaitEvent(void *stream, void *event, unsigned flags);
int cudaEventCreate(void **event);
int cudaEventDestroy(void *event);
int cudaEventRecord(void *event, void *stream);
int cudaEventSynchronize(void *event);
int cudaEventElapsedTime(float *ms, void *start, void *end);
int cuInit(unsigned flags);
int cuModuleLoadData(void **module, const void *image);
int cuModuleUnload(void *module);
int cuModuleGetFunction(void **function, void *module, const char *name);
int cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned sharedBytes, void *stream, void **params, void **extra);
}

namespace {

// A kernel that copies n words from src to dst, one per thread, then reads a word n past the end
// when asked (a fault the launch must report, not the process).
constexpr const char *kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry copy(.param .u64 dst, .param .u64 src, .param .u32 n, .param .u32 overrun)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r6, [overrun];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  add.u32 %r5, %r5, %r6;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.global.u32 %r7, [%rd4];
  add.u64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r7;
DONE:
  ret;
}
)";

constexpr size_t kHostBytes = 1 << 16;

class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  bool more() const { return at_ < size_; }
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(byte() | byte() << 8); }
  /// A size or offset: small ones mostly, sometimes the edges of size_t.
  size_t size() {
    switch (byte() % 8) {
    case 0: return 0;
    case 1: return byte();
    case 2: return u16();
    case 3: return static_cast<size_t>(u16()) << 4;
    case 4: return SIZE_MAX - byte();
    case 5: return size_t{1} << (byte() % 64);
    case 6: return (size_t{1} << (byte() % 64)) + byte() - 128;
    default: return u16() % 4096;
    }
  }

private:
  const uint8_t *data_;
  size_t size_;
  size_t at_ = 0;
};

struct State {
  std::vector<void *> device;  ///< live device allocations
  std::vector<size_t> sizes;   ///< their sizes
  std::vector<void *> freed;   ///< freed device pointers (stale)
  std::vector<void *> pinned;  ///< cudaMallocHost
  std::vector<void *> streams; ///< created streams
  std::vector<void *> events;  ///< created events
  void *module = nullptr, *kernel = nullptr;
  alignas(256) std::array<std::byte, kHostBytes> host{};
};

/// A device-side pointer: an allocation, inside or past it, a freed one, or bogus. With
/// `unifiedKind` (cudaMemcpyDefault), where the runtime tells device from host memory by address, bogus
/// ones stay in the VM's device range: elsewhere they would be host memory, which a correct program
/// only names when it owns it.
void *devicePointer(State &s, Reader &in, bool unifiedKind = false) {
  const uint8_t pick = in.byte();
  if (!s.device.empty() && pick % 4 != 3) {
    const size_t i = in.byte() % s.device.size();
    // Integer arithmetic: an offset past the end of the address space wraps, as a program's bad
    // pointer would, without undefined behavior in the fuzzer itself.
    const auto base = reinterpret_cast<uintptr_t>(s.device[i]);
    switch (pick % 4) {
    case 0: return s.device[i];
    case 1: return reinterpret_cast<void *>(base + in.u16() % (s.sizes[i] + 1));
    default: return reinterpret_cast<void *>(base + in.size());
    }
  }
  if (!s.freed.empty() && pick % 8 == 3)
    return s.freed[in.byte() % s.freed.size()];
  if (unifiedKind)
    return reinterpret_cast<void *>(uintptr_t{0x1000'0000} + (in.byte() % 2 ? in.u16() : in.size() % 0xD000'0000));
  switch (in.byte() % 4) {
  case 0: return nullptr;
  case 1: return reinterpret_cast<void *>(static_cast<uintptr_t>(in.u16()));
  case 2: return reinterpret_cast<void *>(~uintptr_t{0} - in.u16());
  default: return reinterpret_cast<void *>(uintptr_t{0xE000'0000} + in.u16()); // the VM's windows
  }
}

void *stream(State &s, Reader &in) {
  const uint8_t pick = in.byte();
  if (!s.streams.empty() && pick % 2)
    return s.streams[pick / 2 % s.streams.size()];
  return pick % 4 == 2 ? reinterpret_cast<void *>(uintptr_t{2}) /* cudaStreamPerThread */ : nullptr;
}

/// A host range of `bytes` within the fuzzer's buffer, or null when it does not fit.
std::byte *hostRange(State &s, Reader &in, size_t bytes) {
  if (bytes > kHostBytes)
    return nullptr;
  const size_t offset = in.u16() % (kHostBytes - bytes + 1);
  return s.host.data() + offset;
}

void step(State &s, Reader &in) {
  switch (in.byte() % 20) {
  case 0: { // allocate
    void *p = nullptr;
    const size_t bytes = in.size();
    const uint8_t how = in.byte() % 3;
    size_t extent = bytes;
    const int e = how == 0   ? cudaMalloc(&p, bytes)
                  : how == 1 ? cudaMallocManaged(&p, bytes, 1)
                             : [&] {
                                 size_t pitch = 0;
                                 const size_t height = in.byte();
                                 const int r = cudaMallocPitch(&p, &pitch, bytes, height);
                                 extent = pitch * height;
                                 return r;
                               }();
    if (e == 0 && p && s.device.size() < 64) {
      s.device.push_back(p);
      s.sizes.push_back(extent);
    } else if (e == 0 && p) {
      cudaFree(p);
    }
    break;
  }
  case 1: { // free: a live allocation, a stale or a bogus pointer
    if (!s.device.empty() && in.byte() % 2) {
      const size_t i = in.byte() % s.device.size();
      cudaFree(s.device[i]);
      s.freed.push_back(s.device[i]);
      s.device.erase(s.device.begin() + static_cast<std::ptrdiff_t>(i));
      s.sizes.erase(s.sizes.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      cudaFree(devicePointer(s, in));
    }
    break;
  }
  case 2: { // host to device
    const size_t bytes = in.size();
    if (std::byte *h = hostRange(s, in, bytes))
      cudaMemcpy(devicePointer(s, in), h, bytes, 1);
    break;
  }
  case 3: { // device to host
    const size_t bytes = in.size();
    if (std::byte *h = hostRange(s, in, bytes))
      cudaMemcpy(h, devicePointer(s, in), bytes, 2);
    break;
  }
  case 4: { // device to device, or kind Default between device addresses
    const bool unified = in.byte() % 2;
    void *dst = devicePointer(s, in, unified);
    const void *src = devicePointer(s, in, unified);
    cudaMemcpy(dst, src, in.size(), unified ? 4 : 3);
    break;
  }
  case 5: { // 2-D copies: every pitch and kind, host sides inside the host buffer
    const size_t width = in.size(), height = in.size(), dpitch = in.size(), spitch = in.size();
    const int kind = in.byte() % 5;
    // The host side's extent: what a 2-D copy may touch there.
    auto extent = [&](size_t pitch) -> size_t {
      if (height == 0)
        return 0;
      if (width > pitch || height - 1 > (SIZE_MAX - width) / (pitch ? pitch : 1))
        return SIZE_MAX;
      return (height - 1) * pitch + width;
    };
    void *dst = devicePointer(s, in, kind == 4);
    const void *src = devicePointer(s, in, kind == 4);
    if (kind == 0 || kind == 2) { // host destination
      std::byte *h = hostRange(s, in, extent(dpitch));
      if (!h)
        break;
      dst = h;
    }
    if (kind == 0 || kind == 1) { // host source
      std::byte *h = hostRange(s, in, extent(spitch));
      if (!h)
        break;
      src = h;
    }
    cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
    break;
  }
  case 6: cudaMemset(devicePointer(s, in), in.byte(), in.size()); break;
  case 7: cudaMemsetAsync(devicePointer(s, in), in.byte(), in.size(), stream(s, in)); break;
  case 8: { // async copies on streams
    const size_t bytes = in.size();
    if (std::byte *h = hostRange(s, in, bytes))
      cudaMemcpyAsync(devicePointer(s, in), h, bytes, 1, stream(s, in));
    break;
  }
  case 9: { // streams
    void *st = nullptr;
    if (s.streams.size() < 16 && cudaStreamCreate(&st) == 0)
      s.streams.push_back(st);
    else if (!s.streams.empty()) {
      const size_t i = in.byte() % s.streams.size();
      cudaStreamDestroy(s.streams[i]);
      s.streams.erase(s.streams.begin() + static_cast<std::ptrdiff_t>(i));
    }
    break;
  }
  case 10: { // events
    void *ev = nullptr;
    if (s.events.size() < 16 && in.byte() % 2 && cudaEventCreate(&ev) == 0)
      s.events.push_back(ev);
    else if (!s.events.empty()) {
      void *e = s.events[in.byte() % s.events.size()];
      switch (in.byte() % 4) {
      case 0: cudaEventRecord(e, stream(s, in)); break;
      case 1: cudaEventSynchronize(e); break;
      case 2: cudaStreamWaitEvent(stream(s, in), e, 0); break;
      default: {
        float ms = 0;
        cudaEventElapsedTime(&ms, e, s.events[in.byte() % s.events.size()]);
      }
      }
    }
    break;
  }
  case 11: { // limits: stack, printf FIFO, heap, and bogus ones, with any value
    const int limit = in.byte() % 8;
    cudaDeviceSetLimit(limit, in.size());
    size_t value = 0;
    cudaDeviceGetLimit(&value, limit);
    break;
  }
  case 12: { // pinned host memory
    void *p = nullptr;
    if (s.pinned.size() < 8 && in.byte() % 2 && cudaMallocHost(&p, in.size() % (1 << 20)) == 0 && p)
      s.pinned.push_back(p);
    else if (!s.pinned.empty()) {
      cudaFreeHost(s.pinned.back());
      s.pinned.pop_back();
    }
    break;
  }
  case 13: { // a launch of the copy kernel with fuzzed shape and arguments
    if (!s.kernel)
      break;
    void *dst = devicePointer(s, in), *src = devicePointer(s, in);
    uint32_t n = in.u16(), overrun = in.byte() % 4 == 0 ? in.u16() : 0;
    void *params[] = {&dst, &src, &n, &overrun};
    const unsigned gx = in.byte() % 5, bx = in.u16() % 1100, by = in.byte() % 3 + 1;
    cuLaunchKernel(s.kernel, gx, 1, 1, bx, by, 1, in.u16() % 70000, stream(s, in), params, nullptr);
    break;
  }
  case 14: cudaStreamSynchronize(stream(s, in)); break;
  case 15: cudaDeviceSynchronize(); break;
  case 16: cudaGetLastError(); break;
  case 17: {
    size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    break;
  }
  case 18: { // the module: loaded once per input, maybe unloaded early
    if (!s.module) {
      if (cuModuleLoadData(&s.module, kPtx) == 0)
        cuModuleGetFunction(&s.kernel, s.module, "copy");
    } else if (in.byte() % 8 == 0) {
      cuModuleUnload(s.module);
      s.module = s.kernel = nullptr;
    }
    break;
  }
  default: { // device to host of a whole allocation, checked against what the host sent before
    if (s.device.empty())
      break;
    const size_t i = in.byte() % s.device.size();
    const size_t bytes = std::min(s.sizes[i], kHostBytes);
    cudaMemcpy(s.host.data(), s.device[i], bytes, 2);
    break;
  }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A small memory budget: allocations past it must fail cleanly, and the fuzzer's RSS limit is never
  // the first to notice (support/MemoryBudget.h).
  static bool initialized = (setenv("PTXRAY_MAX_MEMORY", "256M", 1), cuInit(0), true);
  (void)initialized;
  State s;
  Reader in(data, size);
  for (int calls = 0; in.more() && calls < 256; ++calls)
    step(s, in);
  cudaDeviceSynchronize();
  for (void *e : s.events)
    cudaEventDestroy(e);
  for (void *st : s.streams)
    cudaStreamDestroy(st);
  for (void *p : s.device)
    cudaFree(p);
  for (void *p : s.pinned)
    cudaFreeHost(p);
  if (s.module)
    cuModuleUnload(s.module);
  cudaDeviceReset();
  return 0;
}
