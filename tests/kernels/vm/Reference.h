// CPU reference implementations of the virtual-GPU end-to-end test kernels (tests/kernels/vm/*.cu),
// written independently of the CUDA sources as plain C++ over whole grids.
//
// Use: `Expected e = runReference("tests/kernels/vm/specs/matmul.json");` regenerates the spec's
// inputs (DataGenerators.h, through RunSpec.h), runs every launch in order on the CPU and returns the
// bytes each of the spec's outputs must hold, the device printf lines, and whether a launch must
// fail. A test that runs a spec in the virtual GPU (or validation/vm/compare.cpp, which checks the
// outputs of a real GPU) compares against it.
//
// How results compare
//   - Every output buffer must equal the reference BYTE FOR BYTE, floats included. The kernels are
//     written so that their float results are deterministic: the matrix products accumulate
//     `sum += x * y` in a fixed order and nvcc contracts that into fma.rn.f32 (checked in the PTX:
//     the first term is fma.rn.f32 with 0f00000000), so the reference computes sum = fmaf(x, y, sum)
//     from sum = 0.0f; the shuffle reduction replays the same tree of float additions; scaling uses
//     __fmul_rn (one rounding, never contracted); copies and transposes only move bits; the float
//     maximum is order-independent. There are no float atomic additions.
//   - Device printf lines: the order between threads is unspecified, so compare the multiset of
//     lines: sort the actual stdout lines and compare with `stdoutLines` (already sorted).
//   - `error` set: the run must fail (the runner exits nonzero, CUDA_ERROR_ASSERT on a GPU) and the
//     outputs are not compared; `error` names the failing launch and thread.
//   - malloc: pointer values are not outputs (the slots the spec reads back are cleared by the
//     kernel); the reference's heap hands out fake addresses.
//
// Header-only, C++17 (validation/vm/compare.cpp includes it outside the CMake build).
#pragma once

#include "RunSpec.h"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ptxray::vm::ref {

using spec::Bytes;
using spec::Dim3;

/// What running a spec must produce.
struct Expected {
  std::map<std::string, Bytes> outputs; // by output buffer name; compared bit for bit
  std::vector<std::string> stdoutLines; // device printf lines without '\n', sorted
  std::optional<std::string> error;     // set when a launch must fail (outputs then empty)
};

/// A typed view of a byte range (unaligned-safe, bounds-checked loads and stores).
template <class T> class Ptr {
public:
  Ptr(uint8_t *base, size_t bytes, std::string what) : base_(base), count_(bytes / sizeof(T)), what_(std::move(what)) {}
  T operator[](size_t i) const {
    check(i);
    T v;
    std::memcpy(&v, base_ + i * sizeof(T), sizeof(T));
    return v;
  }
  void store(size_t i, T v) const {
    check(i);
    std::memcpy(base_ + i * sizeof(T), &v, sizeof(T));
  }
  size_t size() const { return count_; }

private:
  void check(size_t i) const {
    if (i >= count_)
      throw std::out_of_range("reference: index " + std::to_string(i) + " past the end of " + what_ + " (" +
                              std::to_string(count_) + " elements)");
  }
  uint8_t *base_;
  size_t count_;
  std::string what_;
};

/// Device memory as the references see it: the spec's buffers by name, module variables by their
/// demangled names, and a fake heap for malloc/free.
struct Memory {
  std::map<std::string, Bytes> buffers;
  std::map<std::string, std::string> symbolBuffer; // demangled symbol name -> buffer name
  std::map<uint64_t, Bytes> heap;
  uint64_t nextHeapAddress = 0x7000'0000'0000ull;

  uint64_t malloc(size_t bytes) {
    uint64_t a = nextHeapAddress;
    nextHeapAddress += (bytes + 15) / 16 * 16 + 16;
    heap[a] = Bytes(bytes, 0);
    return a;
  }
  Bytes &heapBlock(uint64_t address) {
    auto it = heap.find(address);
    if (it == heap.end())
      throw std::runtime_error("reference: not a live heap block");
    return it->second;
  }
  void free(uint64_t address) {
    if (heap.erase(address) == 0)
      throw std::runtime_error("reference: free of a pointer malloc did not return");
  }
};

/// One launch, with typed access to its arguments. Kernels use 1-D indexing unless they say so.
struct LaunchContext {
  const spec::Launch &launch;
  Memory &mem;
  std::vector<std::string> &stdoutLines;
  std::optional<std::string> &error;

  Dim3 grid() const { return launch.grid; }
  Dim3 block() const { return launch.block; }
  /// Threads of a 1-D launch (grid.x * block.x); refuses launches with y or z extents.
  uint64_t threads1d() const {
    if (launch.grid.y != 1 || launch.grid.z != 1 || launch.block.y != 1 || launch.block.z != 1)
      throw std::runtime_error("reference: kernel " + launch.kernel + " expects a 1-D launch");
    return uint64_t(launch.grid.x) * launch.block.x;
  }
  const spec::Arg &arg(size_t i) const {
    if (i >= launch.args.size())
      throw std::runtime_error("reference: kernel " + launch.kernel + " needs argument " + std::to_string(i));
    return launch.args[i];
  }
  template <class T> Ptr<T> ptr(size_t i) const {
    const spec::Arg &a = arg(i);
    if (!a.isBuffer)
      throw std::runtime_error("reference: argument " + std::to_string(i) + " of " + launch.kernel +
                               " must be a buffer");
    Bytes &b = mem.buffers.at(a.buffer);
    if (a.offset > b.size())
      throw std::runtime_error("reference: argument offset past the end of " + a.buffer);
    return Ptr<T>(b.data() + a.offset, b.size() - a.offset, a.buffer);
  }
  /// A scalar or by-value argument read as T (the argument must be exactly sizeof(T) bytes).
  template <class T> T scalar(size_t i) const {
    const spec::Arg &a = arg(i);
    if (a.isBuffer || a.bytes.size() != sizeof(T))
      throw std::runtime_error("reference: argument " + std::to_string(i) + " of " + launch.kernel + " must be " +
                               std::to_string(sizeof(T)) + " bytes");
    T v;
    std::memcpy(&v, a.bytes.data(), sizeof(T));
    return v;
  }
  const Bytes &bytesArg(size_t i) const { return arg(i).bytes; }
  template <class T> Ptr<T> symbol(const std::string &name) const {
    auto it = mem.symbolBuffer.find(name);
    if (it == mem.symbolBuffer.end())
      throw std::runtime_error("reference: module variable " + name + " is not a buffer of the spec");
    Bytes &b = mem.buffers.at(it->second);
    return Ptr<T>(b.data(), b.size(), name);
  }
};

using KernelFn = std::function<void(LaunchContext &)>;

/// A mangled name demangled, without its parameter list ("_Z3fooPfi" -> "foo"); others unchanged.
inline std::string plainName(const std::string &name) {
  if (name.rfind("_Z", 0) != 0)
    return name;
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) {
    std::free(d);
    return name;
  }
  std::string s(d);
  std::free(d);
  if (!s.empty() && s.back() == ')') { // strip the parameter list of a function
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')')
        ++depth;
      else if (s[i] == '(' && --depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  return s;
}

/// Sizes of the module-scope variables the test kernels declare (by demangled name).
inline const std::map<std::string, size_t> &moduleVariableSizes() {
  static const std::map<std::string, size_t> sizes = {
      {"c_poly", 32}, {"c_scale", 16}, {"g_bias", 4}, {"g_counter", 4}, {"vmtest::g_sums", 64}, {"g_ops", 32},
  };
  return sizes;
}

// ---------------------------------------------------------------------------------------------
// The kernels. Each takes the arguments in the order of its CUDA declaration.
namespace kernels {

inline void offsetCopy(LaunchContext &c) { // (float *odata, const float *idata, int offset)
  auto out = c.ptr<float>(0);
  auto in = c.ptr<float>(1);
  int32_t offset = c.scalar<int32_t>(2);
  for (uint64_t t = 0; t < c.threads1d(); ++t)
    out.store(t + offset, in[t + offset]);
}

inline void strideCopy(LaunchContext &c) { // (float *odata, const float *idata, int stride)
  auto out = c.ptr<float>(0);
  auto in = c.ptr<float>(1);
  int32_t stride = c.scalar<int32_t>(2);
  for (uint64_t t = 0; t < c.threads1d(); ++t)
    out.store(t * stride, in[t * stride]);
}

constexpr int kTileDim = 16; // matmul.cu's TILE_DIM

/// C (rows x cols) = A (rows x 16) * B (16 x cols), B read as b(i, col); sum = fmaf(a, b, sum) in order.
template <class BAt>
void multiplyTiles(LaunchContext &c, const Ptr<float> &a, BAt bAt, const Ptr<float> &out, int ldc) {
  uint64_t rows = uint64_t(c.grid().y) * c.block().y;
  uint64_t cols = uint64_t(c.grid().x) * c.block().x;
  for (uint64_t row = 0; row < rows; ++row)
    for (uint64_t col = 0; col < cols; ++col) {
      float sum = 0.0f;
      for (int i = 0; i < kTileDim; ++i)
        sum = std::fmaf(a[row * kTileDim + i], bAt(i, col), sum);
      out.store(row * ldc + col, sum);
    }
}

/// simpleMultiply, coalescedMultiply, sharedABMultiply: (const float *a, const float *b, float *c, int N)
inline void multiplyAB(LaunchContext &c) {
  auto a = c.ptr<float>(0);
  auto b = c.ptr<float>(1);
  auto out = c.ptr<float>(2);
  int32_t n = c.scalar<int32_t>(3);
  multiplyTiles(
      c, a, [&](int i, uint64_t col) { return b[i * uint64_t(n) + col]; }, out, n);
}

/// simpleMultiplyAAT, sharedMultiplyAAT: (const float *a, float *c, int M): C = A A^T
inline void multiplyAAT(LaunchContext &c) {
  auto a = c.ptr<float>(0);
  auto out = c.ptr<float>(1);
  int32_t m = c.scalar<int32_t>(2);
  multiplyTiles(
      c, a, [&](int i, uint64_t col) { return a[col * kTileDim + i]; }, out, m);
}

/// transposeNaive, transposeCoalesced, transposeNoBankConflicts: (float *odata, const float *idata,
/// int width, int height); the grid covers (width / 32) x (height / 32) tiles.
inline void transpose(LaunchContext &c) {
  auto out = c.ptr<float>(0);
  auto in = c.ptr<float>(1);
  int32_t width = c.scalar<int32_t>(2), height = c.scalar<int32_t>(3);
  uint64_t w = uint64_t(c.grid().x) * 32, h = uint64_t(c.grid().y) * 32;
  for (uint64_t y = 0; y < h; ++y)
    for (uint64_t x = 0; x < w; ++x)
      out.store(x * height + y, in[y * width + x]);
}

/// One warp's __shfl_down_sync tree (offsets 16..1): every lane adds lane+off's value, or its own
/// value where lane+off is past the warp, all lanes at once. Returns lane 0's result.
inline float warpSumDown(std::vector<float> v) {
  for (int off = 16; off > 0; off >>= 1) {
    std::vector<float> next(32);
    for (int l = 0; l < 32; ++l)
      next[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
    v = next;
  }
  return v[0];
}

inline void blockReduceShfl(LaunchContext &c) { // (const float *in, float *partial, int n)
  auto in = c.ptr<float>(0);
  auto partial = c.ptr<float>(1);
  int32_t n = c.scalar<int32_t>(2);
  uint32_t bs = c.block().x;
  c.threads1d();
  if (bs % 32 != 0)
    throw std::runtime_error("reference: blockReduceShfl needs a multiple of 32 threads");
  for (uint32_t b = 0; b < c.grid().x; ++b) {
    std::vector<float> warpSums;
    for (uint32_t w = 0; w < bs / 32; ++w) {
      std::vector<float> v(32);
      for (uint32_t l = 0; l < 32; ++l) {
        int64_t gid = int64_t(b) * bs + w * 32 + l;
        v[l] = gid < n ? in[gid] : 0.0f;
      }
      warpSums.push_back(warpSumDown(v));
    }
    std::vector<float> v(32);
    for (uint32_t l = 0; l < 32; ++l)
      v[l] = l < warpSums.size() ? warpSums[l] : 0.0f;
    partial.store(b, warpSumDown(v));
  }
}

/// (const unsigned *in, unsigned *sum, unsigned *scan, unsigned *gathered, unsigned *ballot)
inline void warpOpsInt(LaunchContext &c) {
  auto in = c.ptr<uint32_t>(0);
  auto sum = c.ptr<uint32_t>(1), scan = c.ptr<uint32_t>(2), gathered = c.ptr<uint32_t>(3), ballot = c.ptr<uint32_t>(4);
  uint64_t threads = c.threads1d();
  for (uint64_t w = 0; w < threads / 32; ++w) {
    uint32_t v[32], total = 0, run = 0, bits = 0;
    for (int l = 0; l < 32; ++l) {
      v[l] = in[w * 32 + l];
      total += v[l];
      bits |= (v[l] & 1u) << l;
    }
    for (int l = 0; l < 32; ++l) {
      run += v[l];
      sum.store(w * 32 + l, total);
      scan.store(w * 32 + l, run);
      gathered.store(w * 32 + l, v[(v[l] >> 3) & 31]);
      ballot.store(w * 32 + l, bits);
    }
  }
}

inline void warpReduceSync(LaunchContext &c) { // (const unsigned *in, unsigned *out)
  auto in = c.ptr<uint32_t>(0);
  auto out = c.ptr<uint32_t>(1);
  uint64_t threads = c.threads1d();
  for (uint64_t w = 0; w < threads / 32; ++w) {
    uint32_t add = 0, umin = 0xffffffffu, andv = 0xffffffffu, orv = 0, xorv = 0, half = 0;
    int32_t mn = INT32_MAX, mx = INT32_MIN;
    for (int l = 0; l < 32; ++l) {
      uint32_t v = in[w * 32 + l];
      int32_t sv = int32_t(v) - 5000;
      add += v;
      umin = std::min(umin, v);
      andv &= v | 0x80000000u;
      orv |= v;
      xorv ^= v;
      if (l < 16)
        half += v;
      mn = std::min(mn, sv);
      mx = std::max(mx, sv);
    }
    uint32_t r[8] = {add, uint32_t(mn), uint32_t(mx), umin, andv, orv, xorv, half};
    for (int k = 0; k < 8; ++k)
      out.store(w * 8 + k, r[k]);
  }
}

inline void scanHillisSteele(LaunchContext &c) { // (const unsigned *in, unsigned *out): inclusive per block
  auto in = c.ptr<uint32_t>(0);
  auto out = c.ptr<uint32_t>(1);
  uint64_t bs = c.block().x, threads = c.threads1d();
  for (uint64_t b = 0; b < threads / bs; ++b) {
    uint32_t run = 0;
    for (uint64_t t = 0; t < bs; ++t) {
      run += in[b * bs + t];
      out.store(b * bs + t, run);
    }
  }
}

/// (const unsigned *in, unsigned *out, unsigned *blockSums): exclusive per 2 * blockDim.x elements.
inline void scanBlelloch(LaunchContext &c) {
  auto in = c.ptr<uint32_t>(0);
  auto out = c.ptr<uint32_t>(1);
  auto sums = c.ptr<uint32_t>(2);
  uint64_t n = 2 * uint64_t(c.block().x);
  c.threads1d();
  if (c.launch.dynamicSharedBytes < n * 4)
    throw std::runtime_error("reference: scanBlelloch needs 8 * blockDim.x bytes of dynamic shared memory");
  for (uint64_t b = 0; b < c.grid().x; ++b) {
    uint32_t run = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t v = in[b * n + i];
      out.store(b * n + i, run);
      run += v;
    }
    sums.store(b, run);
  }
}

inline void addBlockOffsets(LaunchContext &c) { // (unsigned *data, const unsigned *offsets)
  auto data = c.ptr<uint32_t>(0);
  auto offsets = c.ptr<uint32_t>(1);
  uint64_t n = 2 * uint64_t(c.block().x);
  c.threads1d();
  for (uint64_t b = 0; b < c.grid().x; ++b)
    for (uint64_t i = 0; i < n; ++i)
      data.store(b * n + i, data[b * n + i] + offsets[b]);
}

/// histGlobal, histShared: (const unsigned *in, unsigned *hist, int n)
inline void histogram(LaunchContext &c) {
  auto in = c.ptr<uint32_t>(0);
  auto hist = c.ptr<uint32_t>(1);
  int32_t n = c.scalar<int32_t>(2);
  c.threads1d();
  for (int32_t i = 0; i < n; ++i) {
    uint32_t bin = in[i] & 255u;
    hist.store(bin, hist[bin] + 1);
  }
}

inline void fillFloat(LaunchContext &c) { // (float *p, float v, int n)
  auto p = c.ptr<float>(0);
  float v = c.scalar<float>(1);
  int64_t n = c.scalar<int32_t>(2);
  for (int64_t i = 0; i < std::min<int64_t>(n, c.threads1d()); ++i)
    p.store(i, v);
}

inline void maxFloat(LaunchContext &c) { // (const float *in, float *result, int *intMinMax, int n)
  auto in = c.ptr<float>(0);
  auto result = c.ptr<float>(1);
  auto mm = c.ptr<int32_t>(2);
  int64_t n = c.scalar<int32_t>(3);
  for (int64_t i = 0; i < std::min<int64_t>(n, c.threads1d()); ++i) {
    float v = in[i];
    if (result[0] < v) // the CAS loop replaces the value only while it is smaller
      result.store(0, v);
    int32_t iv = static_cast<int32_t>(v); // cvt.rzi.s32.f32: toward zero
    mm.store(0, std::min(mm[0], iv));
    mm.store(1, std::max(mm[1], iv));
  }
}

inline std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int len = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return std::string(buf, len < 0 ? 0 : std::min<size_t>(size_t(len), sizeof buf - 1));
}

inline void printfFormats(LaunchContext &c) { // (const int *vals, unsigned *out)
  auto vals = c.ptr<int32_t>(0);
  auto out = c.ptr<uint32_t>(1);
  uint64_t threads = c.threads1d();
  for (uint64_t t = 0; t < threads; ++t) {
    int32_t v = vals[t];
    long long big = static_cast<long long>(v) * 1000000007LL;
    float quarter = static_cast<float>(v) * 0.25f;
    if (t == 0)
      c.stdoutLines.push_back(format("header: %5d|%-6s|%.3f|%08x|%%", int(threads), "vm", double(3.14159f), 0xbeefu));
    c.stdoutLines.push_back(format("t=%d u=%u x=%x f=%f s=%s ll=%lld c=%c", int(t), uint32_t(v), uint32_t(v),
                                   double(quarter), (t & 1) ? "odd" : "even", big, char('a' + t % 26)));
    out.store(t, uint32_t(v) * 3u);
  }
}

inline void mallocPerThread(LaunchContext &c) { // (unsigned *out)
  auto out = c.ptr<uint32_t>(0);
  for (uint64_t t = 0; t < c.threads1d(); ++t) {
    uint32_t n = 4 + t % 13, s = 0;
    for (uint32_t k = 0; k < n; ++k)
      s += (k * 2654435761u + uint32_t(t)) ^ (k << 3);
    out.store(t, s);
  }
}

inline void mallocKeep(LaunchContext &c) { // (unsigned long long *slots, const unsigned *seeds)
  auto slots = c.ptr<uint64_t>(0);
  auto seeds = c.ptr<uint32_t>(1);
  for (uint64_t t = 0; t < c.threads1d(); ++t) {
    uint64_t p = c.mem.malloc(32);
    Ptr<uint32_t> block(c.mem.heapBlock(p).data(), 32, "heap block");
    for (uint32_t k = 0; k < 8; ++k)
      block.store(k, seeds[t] + k * 7u);
    slots.store(t, p);
  }
}

inline void mallocConsume(LaunchContext &c) { // (unsigned long long *slots, unsigned *out)
  auto slots = c.ptr<uint64_t>(0);
  auto out = c.ptr<uint32_t>(1);
  for (uint64_t t = 0; t < c.threads1d(); ++t) {
    uint64_t p = slots[t];
    Ptr<uint32_t> block(c.mem.heapBlock(p).data(), 32, "heap block");
    uint32_t s = 0;
    for (uint32_t k = 0; k < 8; ++k)
      s = s * 31u + block[k];
    c.mem.free(p);
    slots.store(t, 0);
    out.store(t, s);
  }
}

inline void assertOneThread(LaunchContext &c) { // (const int *in, int *out, int bad)
  int32_t bad = c.scalar<int32_t>(2);
  if (bad >= 0 && uint64_t(bad) < c.threads1d())
    c.error = "assertion `t != bad` fails in thread " + std::to_string(bad) + " (block " +
              std::to_string(bad / c.block().x) + ", thread " + std::to_string(bad % c.block().x) + ")";
  else
    for (uint64_t t = 0; t < c.threads1d(); ++t)
      c.ptr<int32_t>(1).store(t, c.ptr<int32_t>(0)[t] + 1);
}

inline uint32_t fib(uint32_t n) {
  uint32_t a = 0, b = 1;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t next = a + b;
    a = b;
    b = next;
  }
  return a;
}

inline uint64_t factorialMod(uint32_t n) {
  uint64_t r = 1;
  for (uint64_t k = 2; k <= n; ++k)
    r = (r * k) % 1000000007ull;
  return r;
}

/// (const unsigned *in, unsigned *fibOut, unsigned long long *factOut, int n)
inline void recursiveCalls(LaunchContext &c) {
  auto in = c.ptr<uint32_t>(0);
  auto fibOut = c.ptr<uint32_t>(1);
  auto factOut = c.ptr<uint64_t>(2);
  int64_t n = c.scalar<int32_t>(3);
  for (int64_t i = 0; i < std::min<int64_t>(n, c.threads1d()); ++i) {
    fibOut.store(i, fib(in[i] % 12));
    factOut.store(i, factorialMod(in[i] % 25));
  }
}

inline uint32_t binOp(uint32_t which, uint32_t a, uint32_t b) {
  switch (which & 3u) {
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * b;
  default: return a ^ ((b << 5) | (b >> 27));
  }
}

/// (const unsigned *a, const unsigned *b, const unsigned *sel, unsigned *out, int n)
inline void applyOps(LaunchContext &c) {
  auto a = c.ptr<uint32_t>(0), b = c.ptr<uint32_t>(1), sel = c.ptr<uint32_t>(2), out = c.ptr<uint32_t>(3);
  int64_t n = c.scalar<int32_t>(4);
  for (int64_t i = 0; i < std::min<int64_t>(n, c.threads1d()); ++i) {
    uint32_t s = sel[i];
    out.store(i, binOp(s >> 2, binOp(s, a[i], b[i]), a[i]));
  }
}

/// (const unsigned *in, unsigned *steps, int *cls, int n)
inline void divergentWork(LaunchContext &c) {
  auto in = c.ptr<uint32_t>(0), steps = c.ptr<uint32_t>(1);
  auto cls = c.ptr<int32_t>(2);
  int64_t n = c.scalar<int32_t>(3);
  for (int64_t i = 0; i < std::min<int64_t>(n, c.threads1d()); ++i) {
    uint32_t x = in[i];
    if (x == 0) {
      steps.store(i, 0xffffffffu);
      cls.store(i, -1);
      continue;
    }
    uint32_t s = 0;
    for (; x != 1 && s < 1000; ++s)
      x = (x % 2 == 1) ? 3 * x + 1 : x / 2;
    steps.store(i, s);
    int32_t k;
    if (s < 50)
      k = s % 2 == 1 ? 1 : 2;
    else if (s < 150) {
      int32_t m = int32_t(s % 8); // the loop adds 0 + 1 + ... + (m - 1)
      k = (s % 3 == 0 ? 3 : 4) + m * (m - 1) / 2;
    } else
      k = in[i] % 7 == 0 ? 6 : 5;
    cls.store(i, k);
  }
}

inline void nestedLoops(LaunchContext &c) { // (const unsigned *in, unsigned *out, int n)
  auto in = c.ptr<uint32_t>(0), out = c.ptr<uint32_t>(1);
  int64_t n = c.scalar<int32_t>(2);
  for (int64_t t = 0; t < std::min<int64_t>(n, c.threads1d()); ++t) {
    uint32_t v = in[t], acc = 0;
    uint32_t outer = v % 16, inner = (v / 16) % 8;
    for (uint32_t i = 0; i < outer && acc <= 200; ++i)
      for (uint32_t j = 0; j < inner; ++j)
        if ((i + j) % 2 == 0) // (i ^ j) & 1 is the parity of i + j
          acc += i * j + 1;
    switch ((v / 128) % 4) {
    case 0: acc += 1000; break;
    case 1: acc *= 3; break;
    case 2: acc ^= 0x5555u; break;
    default: acc = ~acc;
    }
    out.store(t, acc);
  }
}

inline void useSymbols(LaunchContext &c) { // (const int *in, int *out, float *fout, int n)
  auto in = c.ptr<int32_t>(0), out = c.ptr<int32_t>(1);
  auto fout = c.ptr<float>(2);
  int64_t n = c.scalar<int32_t>(3);
  auto poly = c.symbol<int32_t>("c_poly");
  auto scale = c.symbol<float>("c_scale");
  auto bias = c.symbol<int32_t>("g_bias");
  auto counter = c.symbol<uint32_t>("g_counter");
  auto sums = c.symbol<uint32_t>("vmtest::g_sums");
  for (int64_t i = 0; i < std::min<int64_t>(n, c.threads1d()); ++i) {
    int32_t x = in[i];
    uint32_t acc = 0, xp = 1; // sum of c_poly[k] * x^k, wrapping
    for (int k = 0; k < 8; ++k) {
      acc += uint32_t(poly[k]) * xp;
      xp *= uint32_t(x);
    }
    out.store(i, int32_t(acc + uint32_t(bias[0])));
    fout.store(i, static_cast<float>(x) * scale[i % 4]);
    counter.store(0, counter[0] + 1);
    sums.store(i % 16, sums[i % 16] + uint32_t(x));
  }
}

/// (Params p, const unsigned *in, long long *out, float *fout, Small q, int n); Params is 24 bytes:
/// int a @0, unsigned mask @4, long long bias @8, float scale @16, unsigned char shift @20.
/// Small is 4 bytes: short s @0, char c @2.
inline void structArg(LaunchContext &c) {
  const Bytes &p = c.bytesArg(0), &q = c.bytesArg(4);
  if (p.size() != 24 || q.size() != 4)
    throw std::runtime_error("reference: structArg takes a 24-byte and a 4-byte struct");
  int32_t a;
  uint32_t mask;
  int64_t bias;
  float scale;
  int16_t s;
  std::memcpy(&a, &p[0], 4);
  std::memcpy(&mask, &p[4], 4);
  std::memcpy(&bias, &p[8], 8);
  std::memcpy(&scale, &p[16], 4);
  uint8_t shift = p[20];
  std::memcpy(&s, &q[0], 2);
  int8_t ch = static_cast<int8_t>(q[2]); // char is signed where nvcc's host compiler is x86-64
  auto in = c.ptr<uint32_t>(1);
  auto out = c.ptr<int64_t>(2);
  auto fout = c.ptr<float>(3);
  int64_t n = c.scalar<int32_t>(5);
  for (int64_t i = 0; i < std::min<int64_t>(n, c.threads1d()); ++i) {
    uint32_t v = in[i];
    uint32_t shifted = (v & mask) << (shift & 31);
    out.store(i, int64_t(shifted) + a + bias + int32_t(s) * int32_t(ch));
    fout.store(i, static_cast<float>(v & 0xffffu) * scale);
  }
}

} // namespace kernels

/// The reference of each kernel, by plain (demangled, parameter-less) name.
inline const std::map<std::string, KernelFn> &kernelTable() {
  using namespace kernels;
  static const std::map<std::string, KernelFn> table = {
      {"offsetCopy", offsetCopy},
      {"strideCopy", strideCopy},
      {"simpleMultiply", multiplyAB},
      {"coalescedMultiply", multiplyAB},
      {"sharedABMultiply", multiplyAB},
      {"simpleMultiplyAAT", multiplyAAT},
      {"sharedMultiplyAAT", multiplyAAT},
      {"transposeNaive", transpose},
      {"transposeCoalesced", transpose},
      {"transposeNoBankConflicts", transpose},
      {"blockReduceShfl", blockReduceShfl},
      {"warpOpsInt", warpOpsInt},
      {"warpReduceSync", warpReduceSync},
      {"scanHillisSteele", scanHillisSteele},
      {"scanBlelloch", scanBlelloch},
      {"addBlockOffsets", addBlockOffsets},
      {"histGlobal", histogram},
      {"histShared", histogram},
      {"fillFloat", fillFloat},
      {"maxFloat", maxFloat},
      {"printfFormats", printfFormats},
      {"mallocPerThread", mallocPerThread},
      {"mallocKeep", mallocKeep},
      {"mallocConsume", mallocConsume},
      {"assertOneThread", assertOneThread},
      {"recursiveCalls", recursiveCalls},
      {"applyOps", applyOps},
      {"divergentWork", divergentWork},
      {"nestedLoops", nestedLoops},
      {"useSymbols", useSymbols},
      {"structArg", structArg},
  };
  return table;
}

/// Sets up memory from the spec's inits (symbol buffers sized by moduleVariableSizes()).
inline Memory initialMemory(const spec::RunSpec &s) {
  Memory mem;
  for (const auto &b : s.buffers) {
    uint64_t bytes = b.bytes;
    if (!b.symbol.empty()) {
      std::string name = plainName(b.symbol);
      auto it = moduleVariableSizes().find(name);
      if (it == moduleVariableSizes().end())
        throw std::runtime_error("reference: unknown module variable " + b.symbol);
      bytes = it->second;
      mem.symbolBuffer[name] = b.name;
    }
    mem.buffers[b.name] = spec::initialContents(b.init, bytes, s.dir);
  }
  return mem;
}

/// Runs the launches of `s` on `mem` (the references), then collects the outputs.
inline Expected runReference(const spec::RunSpec &s, Memory &mem) {
  Expected e;
  for (size_t i = 0; i < s.launches.size() && !e.error; ++i) {
    const auto &launch = s.launches[i];
    auto it = kernelTable().find(plainName(launch.kernel));
    if (it == kernelTable().end())
      throw std::runtime_error("reference: no reference for kernel " + launch.kernel);
    LaunchContext ctx{launch, mem, e.stdoutLines, e.error};
    it->second(ctx);
    if (e.error)
      e.error = "launch " + std::to_string(i) + " (" + launch.kernel + "): " + *e.error;
  }
  std::sort(e.stdoutLines.begin(), e.stdoutLines.end());
  if (!e.error)
    for (const auto &o : s.outputs)
      e.outputs[o.buffer] = mem.buffers.at(o.buffer);
  return e;
}

inline Expected runReference(const spec::RunSpec &s) {
  Memory mem = initialMemory(s);
  return runReference(s, mem);
}

inline Expected runReference(const std::filesystem::path &specFile) {
  return runReference(spec::loadRunSpec(specFile));
}

/// Splits text into lines (without '\n') and sorts them, for comparing device printf output.
inline std::vector<std::string> sortedLines(const std::string &text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

/// Describes the first difference between an expected and an actual output ("" when equal), showing
/// 32-bit words around it.
inline std::string firstDifference(const Bytes &expected, const Bytes &actual) {
  if (expected == actual)
    return {};
  if (expected.size() != actual.size())
    return "size " + std::to_string(actual.size()) + ", expected " + std::to_string(expected.size());
  size_t i = 0;
  while (expected[i] == actual[i])
    ++i;
  size_t word = i / 4 * 4;
  auto hex = [](const Bytes &b, size_t at) {
    uint32_t w = 0;
    for (size_t k = 0; k < 4 && at + k < b.size(); ++k)
      w |= uint32_t(b[at + k]) << (8 * k);
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", w);
    return std::string(buf);
  };
  size_t count = 0;
  for (size_t k = 0; k < expected.size(); ++k)
    count += expected[k] != actual[k];
  return "byte " + std::to_string(i) + " differs (" + std::to_string(count) + " bytes differ); word at " +
         std::to_string(word) + ": " + hex(actual, word) + ", expected " + hex(expected, word);
}

} // namespace ptxray::vm::ref
