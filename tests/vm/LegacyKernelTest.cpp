// The old-target PTX of the front-end corpus (clang 14 for sm_30/sm_35, PTX 3.2-6.0, 32- and 64-bit
// addressing, tests/corpus/clang) run end to end in the VM and checked element by element against host
// references written from tests/kernels/legacy. Where the C source and the PTX could differ (fma
// contraction, approximate division, the order of float additions), the references follow the PTX.
//
// Exactly rounded outputs are compared bit for bit. Approximate instructions are compared with the
// maximum error the PTX ISA states for them (shared/reference/ptx-isa-instructions.md):
//   div.approx.f32  2 ulp for |b| in [2^-126, 2^126]
//   rsqrt.approx    2^-22.4 absolute over 1.0-4.0 (results in [0.5, 1]), i.e. 2^-21.4 relative
//   sin/cos.approx  2^-20.9 absolute (checked for |x| <= pi)
//   ex2.approx      2^-22.5 absolute for the fraction in the primary range, i.e. 2^-22.5 relative
//   lg2.approx      2^-22.6 absolute
// plus one ulp of the result for the add.rn that combines two of them.
//
// The OpenCL modules call work-item built-ins that the NVIDIA OpenCL driver supplies (there is no
// definition in the PTX); the tests turn each declaration into a small PTX definition before loading.
// extern_calls does the same for its .extern functions and its .extern .global table.
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace ptxray::test {
namespace {

// ---------------------------------------------------------------------------------------------
// Helpers

std::string corpusFile(const std::string &name) {
  std::string text = readFile(sourceDir() / "tests/corpus/clang" / name);
  if (text.empty())
    ADD_FAILURE() << "missing corpus file " << name;
  return text;
}

bool is32Bit(const std::string &ptx) {
  return ptx.find(".address_size 32") != std::string::npos;
}

/// Kernel arguments in the byte layout of the PTX parameter list.
class Args {
public:
  explicit Args(bool ptr32) : ptr32_(ptr32) {}
  /// A pointer parameter: 4 bytes in a 32-bit module, 8 in a 64-bit one.
  Args &ptr(uint64_t address) {
    if (ptr32_) {
      EXPECT_LE(address, uint64_t{UINT32_MAX});
      return value(static_cast<uint32_t>(address));
    }
    return value(address);
  }
  template <class T> Args &value(T v) {
    list.push_back(argBytes(v));
    return *this;
  }
  Args &bytes(std::vector<std::byte> b) {
    list.push_back(std::move(b));
    return *this;
  }
  std::vector<std::vector<std::byte>> list;

private:
  bool ptr32_;
};

template <class T> void put(std::vector<std::byte> &buffer, size_t offset, T v) {
  ASSERT_LE(offset + sizeof(T), buffer.size());
  std::memcpy(buffer.data() + offset, &v, sizeof(T));
}

class LegacyRun {
public:
  explicit LegacyRun(const char *arch) : h(arch) {}

  vm::LoadedModule &load(const std::string &ptx, const std::string &name) {
    ptr32 = is32Bit(ptx);
    return h.load(ptx, name);
  }
  Args args() const { return Args(ptr32); }
  vm::LaunchResult launch(const vm::LoadedModule &m, const std::string &kernel, uint32_t grid, uint32_t block,
                          const Args &a, uint32_t dynamicShared = 0) {
    vm::LaunchConfig config{{grid, 1, 1}, {block, 1, 1}, dynamicShared};
    return h.device.launch(m, kernel, config, a.list, h.options);
  }
  template <class T> uint64_t upload(const std::vector<T> &data) { return h.upload(data); }
  template <class T> uint64_t filled(size_t count, T value) { return h.upload(std::vector<T>(count, value)); }
  template <class T> std::vector<T> download(uint64_t address, size_t count) { return h.download<T>(address, count); }

  VmHarness h;
  bool ptr32 = false;
};

uint32_t bitsOf(float f) {
  return std::bit_cast<uint32_t>(f);
}
float ulpOf(double v) {
  float f = std::fabs(static_cast<float>(v));
  if (!std::isfinite(f))
    return 0;
  return std::nextafter(f, std::numeric_limits<float>::infinity()) - f;
}

/// Bit-exact float comparison (any NaN matches any NaN).
::testing::AssertionResult sameFloat(float expected, float actual) {
  if (std::isnan(expected) && std::isnan(actual))
    return ::testing::AssertionSuccess();
  if (bitsOf(expected) == bitsOf(actual))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected << " (0x" << std::hex << bitsOf(expected) << "), got "
                                       << std::dec << actual << " (0x" << std::hex << bitsOf(actual) << ")";
}

::testing::AssertionResult sameDouble(double expected, double actual) {
  if (std::isnan(expected) && std::isnan(actual))
    return ::testing::AssertionSuccess();
  if (std::bit_cast<uint64_t>(expected) == std::bit_cast<uint64_t>(actual))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected << ", got " << actual;
}

/// |actual - reference| <= tolerance; NaN and infinite references must match exactly.
::testing::AssertionResult near(double reference, float actual, double tolerance) {
  if (std::isnan(reference))
    return std::isnan(actual) ? ::testing::AssertionSuccess()
                              : ::testing::AssertionFailure() << "expected NaN, got " << actual;
  if (std::isinf(reference))
    return static_cast<double>(actual) == reference
               ? ::testing::AssertionSuccess()
               : ::testing::AssertionFailure() << "expected " << reference << ", got " << actual;
  double err = std::fabs(static_cast<double>(actual) - reference);
  if (err <= tolerance)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << reference << " +- " << tolerance << ", got " << actual
                                       << " (error " << err << ")";
}

/// add.rz.f32: the round-to-nearest sum corrected with its exact error (TwoSum).
float addRz(float a, float b) {
  float r = a + b;
  if (!std::isfinite(a) || !std::isfinite(b))
    return r;
  if (std::isinf(r)) // overflow rounds to the largest finite value
    return std::copysign(std::numeric_limits<float>::max(), r);
  float bv = r - a;
  float e = (a - (r - bv)) + (b - bv);
  if (e != 0 && (e > 0) != (r > 0))
    r = std::nextafter(r, 0.0f);
  return r;
}
/// mul.rp.f32: the product of two floats is exact in double; round that up to float.
float mulRp(float a, float b) {
  double p = static_cast<double>(a) * static_cast<double>(b);
  float f = static_cast<float>(p);
  if (!std::isnan(p) && static_cast<double>(f) < p)
    f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

/// cvt.rzi.s32.f32: truncate, saturate, NaN -> 0.
int32_t cvtRziS32(float x) {
  if (std::isnan(x))
    return 0;
  double t = std::trunc(static_cast<double>(x));
  if (t >= 2147483647.0)
    return INT32_MAX;
  if (t <= -2147483648.0)
    return INT32_MIN;
  return static_cast<int32_t>(t);
}
/// cvt.rmi.u32.f32: floor, saturate to [0, 2^32-1], NaN -> 0.
uint32_t cvtRmiU32(float x) {
  if (std::isnan(x))
    return 0;
  double t = std::floor(static_cast<double>(x));
  if (t <= 0)
    return 0;
  if (t >= 4294967295.0)
    return UINT32_MAX;
  return static_cast<uint32_t>(t);
}
/// cvt.sat.f32.f32: clamp to [0, 1], NaN -> +0.
float saturate(float x) {
  if (std::isnan(x))
    return 0.0f;
  return std::min(std::max(x, 0.0f), 1.0f);
}
/// min.f32 / max.f32: a NaN operand yields the other operand.
float ptxMin(float a, float b) {
  return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b);
}
float ptxMax(float a, float b) {
  return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
}

/// Random float with a uniformly random value in [lo, hi) rounded to float.
float randomIn(std::mt19937 &rng, double lo, double hi) {
  double u = static_cast<double>(rng()) / 4294967296.0;
  return static_cast<float>(lo + (hi - lo) * u);
}

/// Turns the declaration of function `name` (`[.extern] .func ... name\n(...)\n;`) into a definition
/// with `body`; `@P0@`, `@P1@` in the body name its parameters.
std::string defineFunction(std::string ptx, const std::string &name, std::string body) {
  size_t at = ptx.find(" " + name + "\n(");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no declaration of " << name;
    return ptx;
  }
  size_t lineStart = ptx.rfind('\n', at) + 1;
  size_t end = ptx.find("\n;\n", at);
  if (end == std::string::npos) {
    ADD_FAILURE() << "declaration of " << name << " has no ';'";
    return ptx;
  }
  std::string head = ptx.substr(lineStart, end + 1 - lineStart);
  if (head.starts_with(".extern "))
    head.erase(0, 8);
  body = replaceAll(body, "@P0@", name + "_param_0");
  body = replaceAll(body, "@P1@", name + "_param_1");
  ptx.replace(lineStart, end + 3 - lineStart, head + "{\n" + body + "}\n");
  return ptx;
}

// ---------------------------------------------------------------------------------------------
// math_sm30.cu: float_ops, int_ops, shared_local under four headers (PTX 3.2 sm_30, PTX 4.2 sm_35,
// PTX 4.3 with line info, PTX 5.0 -O0 -g with full DWARF).

struct MathVariant {
  const char *file;
  const char *arch;
};

class LegacyKernelMath : public ::testing::TestWithParam<MathVariant> {};

const MathVariant kMathVariants[] = {
    {"math_sm30_ptx32.ptx", "sm_30"},
    {"math_sm35_ptx42.ptx", "sm_35"},
    {"math_sm35_ptx43_lineinfo.ptx", "sm_35"},
    {"math_sm35_ptx50_debug.ptx", "sm_35"},
};

/// Params {float scale; int stride; double bias; char tag[4];}: .param .align 8 .b8 [24].
std::vector<std::byte> paramsBytes(float scale, int32_t stride, double bias, const std::array<int8_t, 4> &tag) {
  std::vector<std::byte> b(24);
  put(b, 0, scale);
  put(b, 4, stride);
  put(b, 8, bias);
  for (int i = 0; i < 4; ++i)
    put(b, 16 + i, tag[i]);
  return b;
}

TEST_P(LegacyKernelMath, FloatOps) {
  LegacyRun run(GetParam().arch);
  auto &m = run.load(corpusFile(GetParam().file), GetParam().file);
  const uint32_t grid = 3, block = 64, n = grid * block;
  const int32_t stride = 2;
  const float scale = 0.3f;
  const double bias = 0.1;
  const std::array<int8_t, 4> tag{5, -7, 100, -128};
  std::mt19937 rng(1234);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.5f,   1.5f, -1.5f, 2.5f,  -2.5f,  1.0f,
                            -1.0f,  3.0f, 0.75f, 1e-3f, 1e-40f, 3e9f,
                            -3e9f,  5e9f, 6e10f, inf,   -inf,   std::numeric_limits<float>::quiet_NaN(),
                            100.0f, 0.1f};
  std::vector<float> in(n * stride, -999.0f);
  for (uint32_t t = 0; t < n; ++t) {
    float x;
    if (t < std::size(specials))
      x = specials[t];
    else if (t % 3 == 0)
      x = randomIn(rng, 0.001, 100.0);
    else
      x = randomIn(rng, -6.0, 6.0);
    in[t * stride] = x;
  }
  uint64_t dIn = run.upload(in);
  uint64_t dOut = run.filled<float>(n * 12, -12345.0f);
  auto a = run.args();
  a.ptr(dIn).ptr(dOut).bytes(paramsBytes(scale, stride, bias, tag));
  auto r = run.launch(m, "float_ops", grid, block, a);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<float>(dOut, n * 12);

  const double kPi = std::numbers::pi;
  for (uint32_t t = 0; t < n; ++t) {
    const float x = in[t * stride];
    const float *o = &out[t * 12];
    SCOPED_TRACE("thread " + std::to_string(t) + " x=" + std::to_string(x));
    const double xd = x;
    EXPECT_TRUE(sameFloat(addRz(x, scale), o[0])) << "add.rz";
    EXPECT_TRUE(sameFloat(mulRp(x, x), o[1])) << "mul.rp";
    {
      // div.approx flushes subnormal inputs and results to sign-preserving zero.
      const double minNormal = std::numeric_limits<float>::min();
      double q = (std::fabs(xd) < minNormal ? std::copysign(0.0, xd) : xd) / 3.0;
      if (std::fabs(q) < minNormal * (1 - std::exp2(-20)))
        EXPECT_TRUE(sameFloat(static_cast<float>(std::copysign(0.0, q)), o[2])) << "div.approx (flushed)";
      else
        EXPECT_TRUE(near(q, o[2], 2.0 * ulpOf(q))) << "div.approx";
    }
    {
      float s = std::sqrt(x); // sqrt.rn
      double rs = 1.0 / std::sqrt(xd);
      double ref = static_cast<double>(s) + rs;
      if (x == 0 || std::isnan(ref) || std::isinf(ref))
        EXPECT_TRUE(near(ref, o[3], 0)) << "sqrt.rn + rsqrt.approx";
      else
        EXPECT_TRUE(near(ref, o[3], rs * std::exp2(-21.4) + ulpOf(ref))) << "sqrt.rn + rsqrt.approx";
    }
    if (std::isnan(x) || std::isinf(x)) {
      EXPECT_TRUE(std::isnan(o[4])) << "sin.approx + cos.approx of " << x << ": " << o[4];
    } else if (std::fabs(xd) <= kPi) {
      double ref = std::sin(xd) + std::cos(xd);
      EXPECT_TRUE(near(ref, o[4], 2 * std::exp2(-20.9) + ulpOf(ref))) << "sin.approx + cos.approx";
    }
    {
      double e = std::exp2(xd), l = std::log2(xd);
      double ref = e + l;
      if (x > 0 && std::isfinite(ref) && !std::isinf(static_cast<float>(ref))) {
        EXPECT_TRUE(near(ref, o[5], e * std::exp2(-22.5) + std::exp2(-22.6) + ulpOf(ref))) << "ex2 + lg2";
      } else if (x <= 0 || std::isnan(x)) {
        EXPECT_TRUE(std::isnan(o[5])) << "ex2 + lg2 of " << x << ": " << o[5];
      } else if (!std::isnan(ref)) {
        EXPECT_EQ(o[5], inf) << "ex2 + lg2 overflows";
      }
    }
    {
      float f18 = saturate(x) + ptxMin(x, 1.0f);
      float f20 = ptxMax(x, -1.0f) + f18;
      EXPECT_TRUE(sameFloat(f20, o[6])) << "cvt.sat + min + max";
    }
    EXPECT_TRUE(sameFloat(1.0f / x, o[7])) << "rcp.rn.f32";
    {
      float ref = static_cast<float>(cvtRziS32(x)) + static_cast<float>(cvtRmiU32(x));
      EXPECT_TRUE(sameFloat(ref, o[8])) << "cvt.rzi.s32 + cvt.rmi.u32";
    }
    {
      float h = std::fma(std::fma(std::fma(0.125f, x, 0.25f), x, 0.5f), x, 1.0f);
      float ref = h + static_cast<float>(tag[t & 3]);
      EXPECT_TRUE(sameFloat(ref, o[9])) << "horner (fma.rn) + param byte";
    }
    {
      double d = std::fma(xd, bias, 1.0) + 1.0 / xd;
      EXPECT_TRUE(sameFloat(static_cast<float>(d), o[10])) << "fma.rn.f64 + rcp.rn.f64";
    }
    {
      float f32 = std::fabs(x) + std::floor(x);
      float ref = std::ceil(x) + f32;
      EXPECT_TRUE(sameFloat(ref, o[11])) << "abs + cvt.rmi + cvt.rpi";
    }
  }
}

TEST_P(LegacyKernelMath, IntOps) {
  LegacyRun run(GetParam().arch);
  auto &m = run.load(corpusFile(GetParam().file), GetParam().file);
  const uint32_t grid = 4, block = 64, n = grid * block;
  std::mt19937 rng(99);
  const int32_t specials[] = {0,          1,           -1, INT32_MAX, INT32_MIN,  0x00800000,
                              0x007fffff, -0x00800000, 7,  -7,        0x12345678, -2};
  std::vector<int32_t> in(n + 1);
  for (uint32_t i = 0; i <= n; ++i) {
    if (i < std::size(specials))
      in[i] = specials[i];
    else if (i % 4 == 0)
      in[i] = static_cast<int32_t>(rng() % 2001) - 1000;
    else
      in[i] = static_cast<int32_t>(rng());
  }
  uint64_t dIn = run.upload(in);
  uint64_t dOut = run.filled<int32_t>(n * 10, 0x5a5a5a5a);
  auto a = run.args();
  a.ptr(dIn).ptr(dOut);
  auto r = run.launch(m, "int_ops", grid, block, a);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<int32_t>(dOut, n * 10);

  auto prmt = [](uint32_t a, uint32_t b, uint32_t sel) {
    uint64_t bytes = (uint64_t{b} << 32) | a;
    uint32_t d = 0;
    for (int k = 0; k < 4; ++k) {
      uint32_t nib = (sel >> (4 * k)) & 0xf;
      uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (nib & 7))) & 0xff;
      if (nib & 8)
        byte = (byte & 0x80) ? 0xff : 0;
      d |= byte << (8 * k);
    }
    return d;
  };
  auto sext24 = [](int32_t v) {
    return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v) << 8) >> 8);
  };
  for (uint32_t t = 0; t < n; ++t) {
    const int32_t v = in[t], w = in[t + 1];
    const uint32_t uv = static_cast<uint32_t>(v), uw = static_cast<uint32_t>(w);
    const int32_t *o = &out[t * 10];
    SCOPED_TRACE("thread " + std::to_string(t) + " v=" + std::to_string(v) + " w=" + std::to_string(w));
    EXPECT_EQ(o[0], std::popcount(uv)) << "popc";
    EXPECT_EQ(o[1], std::countl_zero(uv | 1u)) << "clz";
    uint32_t rev = 0;
    for (int k = 0; k < 32; ++k)
      rev |= ((uv >> k) & 1u) << (31 - k);
    EXPECT_EQ(static_cast<uint32_t>(o[2]), rev) << "brev";
    EXPECT_EQ(static_cast<uint32_t>(o[3]), prmt(uv, uw, t ^ 0x3210u)) << "prmt";
    EXPECT_EQ(o[4], static_cast<int32_t>(static_cast<uint32_t>(sext24(v) * sext24(w)))) << "mul24.lo.s32";
    EXPECT_EQ(o[5], static_cast<int32_t>((int64_t{v} * int64_t{w}) >> 32)) << "mul.hi.s32";
    EXPECT_EQ(static_cast<uint32_t>(o[6]), (uv > uw ? uv - uw : uw - uv) + 1u) << "sad.u32";
    {
      uint32_t mn = static_cast<uint32_t>(std::min(v, w)), mx = static_cast<uint32_t>(std::max(v, w));
      uint32_t ab = v < 0 ? 0u - uv : uv;
      EXPECT_EQ(static_cast<uint32_t>(o[7]), mx + ab + mn) << "min + max + abs";
    }
    {
      __int128 p = static_cast<__int128>(int64_t{v} * 1048576) * static_cast<__int128>(int64_t{w} * 1048576);
      uint64_t hi = static_cast<uint64_t>(p >> 64);
      EXPECT_EQ(static_cast<uint32_t>(o[8]), static_cast<uint32_t>(hi >> 8)) << "mul.hi.s64 >> 8";
    }
    if (!(v == INT32_MIN && (w | 1) == -1)) {
      int32_t ref = static_cast<int32_t>(static_cast<uint32_t>(v / (w | 1)) + static_cast<uint32_t>(v % 7));
      EXPECT_EQ(o[9], ref) << "div.s32 + rem by 7";
    }
  }
}

TEST_P(LegacyKernelMath, SharedLocal) {
  LegacyRun run(GetParam().arch);
  auto &m = run.load(corpusFile(GetParam().file), GetParam().file);
  // The kernel reads tile[255 - t]: every CTA has 256 threads so that the whole tile is written.
  // It also fills scratch[k] = tile[(t + k) & 255] *before* its __syncthreads(): a read of an element
  // another warp writes races with that write (the value is unspecified on hardware). Only threads
  // whose sums use elements written by their own warp (lanes run in lock-step) are compared.
  const uint32_t grid = 2, block = 256, n = grid * block;
  std::mt19937 rng(7);
  std::vector<float> in(n);
  for (float &x : in)
    x = randomIn(rng, -100.0, 100.0);
  uint64_t dIn = run.upload(in);
  for (int32_t count : {0, 1, 13, 40}) {
    SCOPED_TRACE("n=" + std::to_string(count));
    uint64_t dOut = run.filled<float>(n, -1.0f);
    auto a = run.args();
    a.ptr(dIn).ptr(dOut).value(count);
    auto r = run.launch(m, "shared_local", grid, block, a);
    ASSERT_TRUE(r.ok()) << describe(r);
    auto out = run.download<float>(dOut, n);
    uint32_t checked = 0;
    for (uint32_t c = 0; c < grid; ++c)
      for (uint32_t t = 0; t < block; ++t) {
        const float *tile = &in[c * block];
        float acc = 0.0f;
        bool raceFree = true;
        for (int32_t k = 0; k < count; ++k) {
          uint32_t element = (t + ((static_cast<uint32_t>(k) * 7 + t) & 15)) & 255; // scratch[(k*7+t)&15]
          raceFree = raceFree && element / 32 == t / 32;
          acc += tile[element];
        }
        if (!raceFree)
          continue;
        ++checked;
        float ref = acc + tile[255 - t]; // read after the barrier
        ASSERT_TRUE(sameFloat(ref, out[c * block + t])) << "block " << c << " thread " << t;
      }
    EXPECT_GE(checked, n / 2);
  }
}

INSTANTIATE_TEST_SUITE_P(LegacyKernel, LegacyKernelMath, ::testing::ValuesIn(kMathVariants),
                         [](const ::testing::TestParamInfo<MathVariant> &info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

// ---------------------------------------------------------------------------------------------
// opencl_kernels.cl through three driver interfaces: nvcl 32-bit, nvcl 64-bit, CUDA 32-bit.

struct OpenClVariant {
  const char *file;
  const char *arch;
};

const OpenClVariant kOpenClVariants[] = {
    {"opencl_nvcl32_sm30.ptx", "sm_30"},
    {"opencl_nvcl64_sm35.ptx", "sm_35"},
    {"opencl_cuda32_sm30.ptx", "sm_30"},
};

/// Definitions of the OpenCL built-ins the kernels call, in the module's address size (what the
/// NVIDIA OpenCL driver links in). images' read_imagef / write_imagef stay undefined.
std::string linkOpenClBuiltins(std::string ptx) {
  const bool b32 = is32Bit(ptx);
  const std::string addr = b32 ? "b32" : "b64";
  const std::string decl = "\t.reg .b32 %v<4>;\n\t.reg .b32 %d<4>;\n\t.reg .b32 %g<4>;\n\t.reg .b64 %w<4>;\n"
                           "\t.reg .f32 %f<4>;\n\t.reg .pred %q<2>;\n";
  // %d1/%d2/%d3 hold the x/y/z values; the result is the one the dimension argument selects, as size_t.
  auto perDimension = [&](const std::string &computeXyz) {
    std::string s = decl + "\tld.param.b32 %d0, [@P0@];\n" + computeXyz +
                    "\tsetp.eq.u32 %q0, %d0, 1;\n\tselp.b32 %v0, %d2, %d3, %q0;\n"
                    "\tsetp.eq.u32 %q1, %d0, 0;\n\tselp.b32 %v0, %d1, %v0, %q1;\n";
    if (b32)
      s += "\tst.param.b32 [func_retval0+0], %v0;\n";
    else
      s += "\tcvt.u64.u32 %w0, %v0;\n\tst.param.b64 [func_retval0+0], %w0;\n";
    return s + "\tret;\n";
  };
  auto special = [&](const std::string &reg) {
    std::string s;
    int slot = 1;
    for (const char *c : {"x", "y", "z"})
      s += "\tmov.u32 %d" + std::to_string(slot++) + ", " + reg + "." + c + ";\n";
    return s;
  };
  std::string globalId;
  int slot = 1;
  for (const char *c : {"x", "y", "z"})
    globalId += std::string("\tmov.u32 %g1, %ctaid.") + c + ";\n\tmov.u32 %g2, %ntid." + c + ";\n\tmov.u32 %g3, %tid." +
                c + ";\n\tmad.lo.u32 %d" + std::to_string(slot++) + ", %g1, %g2, %g3;\n";
  ptx = defineFunction(ptx, "_Z13get_global_idj", perDimension(globalId));
  ptx = defineFunction(ptx, "_Z12get_local_idj", perDimension(special("%tid")));
  ptx = defineFunction(ptx, "_Z14get_local_sizej", perDimension(special("%ntid")));
  ptx = defineFunction(ptx, "_Z12get_group_idj", perDimension(special("%ctaid")));
  ptx = defineFunction(ptx, "_Z7barrierj", "\tbar.sync 0;\n\tret;\n");
  // vload4(offset, p): p[4 * offset .. 4 * offset + 3] (only 4-byte alignment is required).
  std::string vload = decl;
  if (b32)
    vload += "\tld.param.b32 %v1, [@P0@];\n\tld.param.b32 %v2, [@P1@];\n\tmad.lo.u32 %v3, %v1, 16, %v2;\n"
             "\tcvt.u64.u32 %w1, %v3;\n";
  else
    vload += "\tld.param.b64 %w2, [@P0@];\n\tld.param.b64 %w3, [@P1@];\n\tmad.lo.u64 %w1, %w2, 16, %w3;\n";
  vload += "\tld.global.f32 %f0, [%w1];\n\tld.global.f32 %f1, [%w1+4];\n\tld.global.f32 %f2, [%w1+8];\n"
           "\tld.global.f32 %f3, [%w1+12];\n"
           "\tst.param.f32 [func_retval0+0], %f0;\n\tst.param.f32 [func_retval0+4], %f1;\n"
           "\tst.param.f32 [func_retval0+8], %f2;\n\tst.param.f32 [func_retval0+12], %f3;\n\tret;\n";
  ptx = defineFunction(ptx, b32 ? "_Z6vload4jPU3AS1Kf" : "_Z6vload4mPU3AS1Kf", vload);
  auto atomic = [&](const std::string &op) {
    std::string s = decl + "\tld.param.b32 %v1, [@P1@];\n";
    if (b32)
      s += "\tld.param.b32 %v2, [@P0@];\n\tatom.global." + op + " %v0, [%v2], %v1;\n";
    else
      s += "\tld.param.b64 %w1, [@P0@];\n\tatom.global." + op + " %v0, [%w1], %v1;\n";
    return s + "\tst.param.b32 [func_retval0+0], %v0;\n\tret;\n";
  };
  ptx = defineFunction(ptx, "_Z10atomic_addPU3AS1Vii", atomic("add.u32"));
  ptx = defineFunction(ptx, "_Z10atomic_maxPU3AS1Vii", atomic("max.s32"));
  return ptx;
}

class LegacyKernelOpenCl : public ::testing::TestWithParam<OpenClVariant> {
protected:
  vm::LoadedModule &load(LegacyRun &run) {
    std::string ptx = linkOpenClBuiltins(corpusFile(GetParam().file));
    return run.load(ptx, GetParam().file);
  }
};

TEST_P(LegacyKernelOpenCl, VecAdd) {
  LegacyRun run(GetParam().arch);
  auto &m = load(run);
  const uint32_t grid = 3, block = 64, total = grid * block;
  const int32_t n = 150; // threads beyond n must not write
  std::mt19937 rng(21);
  std::vector<float> a(total), b(total);
  for (uint32_t i = 0; i < total; ++i) {
    a[i] = randomIn(rng, -50, 50);
    b[i] = randomIn(rng, -1, 1);
  }
  uint64_t dA = run.upload(a), dB = run.upload(b), dC = run.filled<float>(total, -777.0f);
  auto args = run.args();
  args.ptr(dA).ptr(dB).ptr(dC).value(n);
  auto r = run.launch(m, "vec_add", grid, block, args);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto c = run.download<float>(dC, total);
  const float bias[4] = {0.5f, -0.5f, 0.25f, -0.25f};
  for (uint32_t i = 0; i < total; ++i) {
    float ref = static_cast<int32_t>(i) < n ? (a[i] + b[i]) + bias[i & 3] : -777.0f;
    ASSERT_TRUE(sameFloat(ref, c[i])) << "element " << i;
  }
}

TEST_P(LegacyKernelOpenCl, LocalReduce) {
  LegacyRun run(GetParam().arch);
  auto &m = load(run);
  for (uint32_t block : {64u, 128u, 1u}) {
    SCOPED_TRACE("local size " + std::to_string(block));
    const uint32_t grid = 4, total = grid * block;
    std::mt19937 rng(block);
    std::vector<float> in(total);
    for (float &x : in)
      x = randomIn(rng, -10, 10);
    uint64_t dIn = run.upload(in), dOut = run.filled<float>(grid, -1.0f);
    // The __local pointer: dynamic shared memory, which starts after the kernel's static shared
    // variables (none here), aligned to 16.
    const vm::DecodedFunction *kernel = m.findKernel("local_reduce");
    ASSERT_NE(kernel, nullptr);
    uint64_t scratch = (kernel->staticSharedBytes + 15) & ~uint64_t{15};
    auto args = run.args();
    args.ptr(dIn).ptr(dOut).ptr(scratch);
    auto r = run.launch(m, "local_reduce", grid, block, args, block * 4);
    ASSERT_TRUE(r.ok()) << describe(r);
    auto out = run.download<float>(dOut, grid);
    for (uint32_t g = 0; g < grid; ++g) {
      std::vector<float> s(in.begin() + g * block, in.begin() + (g + 1) * block);
      for (uint32_t half = block / 2; half > 0; half >>= 1)
        for (uint32_t l = 0; l < half; ++l)
          s[l] = s[l + half] + s[l];
      EXPECT_TRUE(sameFloat(s[0], out[g])) << "group " << g;
    }
  }
}

TEST_P(LegacyKernelOpenCl, ByValueStruct) {
  LegacyRun run(GetParam().arch);
  auto &m = load(run);
  // Config {float4 origin; int count; float weights[3];}: .param .align 16 .b8 [32]; the PTX reads
  // origin with ld.param.v4.f32 [+0] and {count, weights} with ld.param.v4.u32 [+16].
  const float origin[4] = {1.25f, -0.7f, 3.1f, 100.0f};
  const int32_t count = -17;
  const float weights[3] = {0.3f, 0.45f, 2.5f};
  std::vector<std::byte> cfg(32);
  for (int k = 0; k < 4; ++k)
    put(cfg, 4 * k, origin[k]);
  put(cfg, 16, count);
  for (int k = 0; k < 3; ++k)
    put(cfg, 20 + 4 * k, weights[k]);
  const uint32_t grid = 2, block = 96, total = grid * block;
  uint64_t dOut = run.filled<float>(total * 4, -1.0f);
  auto args = run.args();
  args.ptr(dOut).bytes(cfg);
  auto r = run.launch(m, "by_value_struct", grid, block, args);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<float>(dOut, total * 4);
  for (uint32_t i = 0; i < total; ++i) {
    float fi = static_cast<float>(static_cast<int32_t>(i));
    float vx = origin[0] * fi;
    float blend = std::fma(weights[0] - vx, weights[1], vx); // a + (b - a) * t, contracted
    const float ref[4] = {blend, origin[1] * fi, origin[2] * fi, weights[2] + static_cast<float>(count)};
    for (int k = 0; k < 4; ++k)
      ASSERT_TRUE(sameFloat(ref[k], out[i * 4 + k])) << "element " << i << "." << k;
  }
}

TEST_P(LegacyKernelOpenCl, VectorsAndAtomics) {
  LegacyRun run(GetParam().arch);
  auto &m = load(run);
  const uint32_t grid = 3, block = 64, total = grid * block;
  std::mt19937 rng(5);
  std::vector<float> in(total * 4);
  for (float &x : in)
    x = randomIn(rng, -1000, 1000);
  uint64_t dIn = run.upload(in), dOut = run.filled<float>(total * 4, 0.0f);
  uint64_t dCounter = run.upload(std::vector<int32_t>{40, -5});
  auto args = run.args();
  args.ptr(dIn).ptr(dOut).ptr(dCounter);
  auto r = run.launch(m, "vectors_and_atomics", grid, block, args);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<float>(dOut, total * 4);
  for (uint32_t i = 0; i < total; ++i) {
    const float *v = &in[i * 4];
    const float ref[4] = {v[3] + 1.0f, v[2] + 2.0f, v[1] + 3.0f, v[0] + 4.0f};
    for (int k = 0; k < 4; ++k)
      ASSERT_TRUE(sameFloat(ref[k], out[i * 4 + k])) << "element " << i << "." << k;
  }
  auto counter = run.download<int32_t>(dCounter, 2);
  EXPECT_EQ(counter[0], 40 + static_cast<int32_t>(total));
  EXPECT_EQ(counter[1], static_cast<int32_t>(total - 1));
}

INSTANTIATE_TEST_SUITE_P(LegacyKernel, LegacyKernelOpenCl, ::testing::ValuesIn(kOpenClVariants),
                         [](const ::testing::TestParamInfo<OpenClVariant> &info) {
                           std::string name = info.param.file;
                           return name.substr(0, name.find('.'));
                         });

// ---------------------------------------------------------------------------------------------
// warp_sm35.cu (PTX 6.0, sm_35): shfl and vote without .sync, ld.global.nc, bar.red, atomics.

class LegacyKernelWarp : public ::testing::Test {
protected:
  LegacyRun run{"sm_35"};
  vm::LoadedModule &m = run.load(corpusFile("warp_sm35_ptx60.ptx"), "warp_sm35_ptx60.ptx");
};

/// shfl (pre-Volta form): c packs the clamp value (bits 4:0) and the segment mask (bits 12:8).
template <class T> T shflRef(const T *warp, int lane, int mode, uint32_t b, uint32_t c) {
  uint32_t cval = c & 31, segMask = (c >> 8) & 31;
  int maxLane = static_cast<int>((lane & segMask) | (cval & ~segMask));
  int minLane = static_cast<int>(lane & segMask);
  int j = lane;
  bool ok = false;
  switch (mode) {
  case 0: // up
    j = lane - static_cast<int>(b);
    ok = j >= maxLane;
    break;
  case 1: // down
    j = lane + static_cast<int>(b);
    ok = j <= maxLane;
    break;
  case 2: // bfly
    j = lane ^ static_cast<int>(b);
    ok = j <= maxLane;
    break;
  default: // idx
    j = minLane | static_cast<int>(b & ~segMask & 31);
    ok = j <= maxLane;
    break;
  }
  return warp[ok ? j : lane];
}

TEST_F(LegacyKernelWarp, Shuffles) {
  const uint32_t grid = 2, block = 96, total = grid * block;
  std::mt19937 rng(31);
  std::vector<float> in(total);
  for (float &x : in)
    x = randomIn(rng, -10, 10);
  uint64_t dIn = run.upload(in), dOut = run.filled<float>(total, 0.0f), dI = run.filled<int32_t>(total, 0);
  auto a = run.args();
  a.ptr(dIn).ptr(dOut).ptr(dI);
  auto r = run.launch(m, "shuffles", grid, block, a);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<float>(dOut, total);
  auto iout = run.download<int32_t>(dI, total);
  for (uint32_t w = 0; w < total / 32; ++w) {
    const float *v = &in[w * 32];
    int32_t gid[32];
    for (int l = 0; l < 32; ++l)
      gid[l] = static_cast<int32_t>(w * 32 + l);
    // The butterfly sum, step by step as the PTX does it.
    float s[32];
    std::copy(v, v + 32, s);
    for (uint32_t off : {16u, 8u, 4u, 2u, 1u}) {
      float next[32];
      for (int l = 0; l < 32; ++l)
        next[l] = s[l] + shflRef(s, l, 2, off, 31);
      std::copy(next, next + 32, s);
    }
    for (int l = 0; l < 32; ++l) {
      float up = shflRef(v, l, 0, 1, 0), down = shflRef(v, l, 1, 2, 31), bcast = shflRef(v, l, 3, 0, 31);
      float ref = ((s[l] + up) + down) + bcast;
      ASSERT_TRUE(sameFloat(ref, out[w * 32 + l])) << "warp " << w << " lane " << l;
      int32_t iref = shflRef(gid, l, 2, 4, 31) + shflRef(gid, l, 3, 3, 0x181f);
      ASSERT_EQ(iout[w * 32 + l], iref) << "warp " << w << " lane " << l;
    }
  }
}

TEST_F(LegacyKernelWarp, Votes) {
  const uint32_t grid = 4, block = 64, total = grid * block;
  std::mt19937 rng(41);
  std::vector<int32_t> in(total);
  for (uint32_t i = 0; i < total; ++i) {
    switch ((i / 32) % 8) {
    case 0: in[i] = 3; break;                                       // all 3: all>0, uni
    case 1: in[i] = static_cast<int32_t>(rng() % 100) + 1; break;   // all positive
    case 2: in[i] = static_cast<int32_t>(rng() % 21) - 10; break;   // mixed signs
    case 3: in[i] = 0; break;                                       // all zero
    case 4: in[i] = (i % 32 == 17) ? -1 : 5; break;                 // one negative lane
    case 5: in[i] = (i % 32 == 0) ? 3 : 4; break;                   // not uniform for v==3
    case 6: in[i] = -static_cast<int32_t>(rng() % 1000) - 1; break; // all negative
    default: in[i] = static_cast<int32_t>(rng()); break;
    }
  }
  uint64_t dIn = run.upload(in), dOut = run.filled<uint32_t>(total, 0xdeadbeef);
  auto a = run.args();
  a.ptr(dIn).ptr(dOut);
  auto r = run.launch(m, "votes", grid, block, a);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<uint32_t>(dOut, total);
  for (uint32_t w = 0; w < total / 32; ++w) {
    const int32_t *v = &in[w * 32];
    bool all = std::all_of(v, v + 32, [](int32_t x) { return x > 0; });
    bool any = std::any_of(v, v + 32, [](int32_t x) { return x < 0; });
    bool uni = std::all_of(v, v + 32, [&](int32_t x) { return (x == 3) == (v[0] == 3); });
    uint32_t ballot = 0;
    for (int l = 0; l < 32; ++l)
      ballot |= static_cast<uint32_t>(v[l] & 1) << l;
    uint32_t ref = ((all ? 1u : 0u) | (any ? 2u : 0u) | (uni ? 4u : 0u)) + ballot;
    for (int l = 0; l < 32; ++l)
      ASSERT_EQ(out[w * 32 + l], ref) << "warp " << w << " lane " << l;
  }
}

TEST_F(LegacyKernelWarp, NcLoads) {
  const uint32_t grid = 2, block = 64, total = grid * block;
  std::mt19937 rng(51);
  std::vector<float> v4(total * 4);
  std::vector<double> d(total);
  std::vector<int64_t> ll(total);
  std::vector<uint8_t> uc(total);
  std::vector<int16_t> sh(total);
  for (float &x : v4)
    x = randomIn(rng, -100, 100);
  for (uint32_t i = 0; i < total; ++i) {
    d[i] = static_cast<double>(rng()) / 7.0 - 3e8;
    ll[i] = static_cast<int64_t>((uint64_t{rng()} << 32) | rng());
    uc[i] = static_cast<uint8_t>(rng());
    sh[i] = static_cast<int16_t>(rng());
  }
  ll[0] = -1;
  ll[1] = INT64_MIN;
  uc[0] = 255;
  sh[0] = -32768;
  uint64_t dV4 = run.upload(v4), dD = run.upload(d), dLl = run.upload(ll), dUc = run.upload(uc), dS = run.upload(sh),
           dOut = run.filled<double>(total, 0.0);
  auto a = run.args();
  a.ptr(dV4).ptr(dD).ptr(dLl).ptr(dUc).ptr(dS).ptr(dOut);
  auto r = run.launch(m, "nc_loads", grid, block, a);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<double>(dOut, total);
  for (uint32_t t = 0; t < total; ++t) {
    const float *f = &v4[t * 4];
    float fsum = f[3] + (f[2] + (f[0] + f[1]));
    uint64_t bits = static_cast<uint64_t>(ll[t]);
    int32_t gx = static_cast<int32_t>(static_cast<uint32_t>(bits)), gy = static_cast<int32_t>(bits >> 32);
    double ref = d[t] + static_cast<double>(fsum);
    ref += static_cast<double>(ll[t]);
    ref += static_cast<double>(uc[t]);
    ref += static_cast<double>(sh[t]);
    ref += static_cast<double>(gx);
    ref += static_cast<double>(gy);
    ASSERT_TRUE(sameDouble(ref, out[t])) << "thread " << t;
  }
}

TEST_F(LegacyKernelWarp, BarriersAndAtomics) {
  // s_buf has 128 entries indexed by tid & 127: 128 threads per CTA. Only CTA 0 reads data[0..5]
  // (before its own atomics); with one worker, CTAs run in order, so the other CTAs' atomics on
  // those words come later.
  const uint32_t grid = 3, block = 128, total = grid * block;
  std::mt19937 rng(61);
  std::vector<int32_t> data(total);
  for (uint32_t i = 0; i < total; ++i) {
    uint32_t cta = i / block;
    if (cta == 0)
      data[i] = static_cast<int32_t>(rng() % 201) - 100; // mixed signs, some zeros likely
    else if (cta == 1)
      data[i] = static_cast<int32_t>(rng() % 50) + 1; // all positive: all nonzero, none negative
    else
      data[i] = (i % 5 == 0) ? 0 : static_cast<int32_t>(rng() % 9) + 1; // zeros, no negatives
  }
  data[0] = 7;
  data[1] = -3;
  data[2] = 0; // cas(0 -> tid) succeeds once
  data[3] = 0;
  const std::vector<int32_t> init = data;
  uint64_t dData = run.upload(data);
  std::vector<uint32_t> countsInit(total + 1, 0u);
  countsInit[0] = 95;
  uint64_t dCounts = run.upload(countsInit);
  uint64_t dSum = run.upload(std::vector<float>{0.5f});
  auto a = run.args();
  a.ptr(dData).ptr(dCounts).ptr(dSum);
  auto r = run.launch(m, "barriers_atomics", grid, block, a);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto got = run.download<int32_t>(dData, total);
  auto counts = run.download<uint32_t>(dCounts, total + 1);
  auto fsum = run.download<float>(dSum, 1);

  int64_t add = 0;
  int32_t maxAllAny = INT32_MIN;
  for (uint32_t c = 0; c < grid; ++c) {
    const int32_t *v = &init[c * block];
    int cnt = static_cast<int>(std::count_if(v, v + block, [](int32_t x) { return x > 0; }));
    int all = std::all_of(v, v + block, [](int32_t x) { return x != 0; }) ? 1 : 0;
    int any = std::any_of(v, v + block, [](int32_t x) { return x < 0; }) ? 1 : 0;
    add += int64_t{cnt} * block;
    maxAllAny = std::max(maxAllAny, all + any);
  }
  EXPECT_EQ(got[0], static_cast<int32_t>(init[0] + add)) << "atom.add of bar.red.popc";
  EXPECT_EQ(got[1], std::max(init[1], maxAllAny)) << "atom.max of bar.red.and + bar.red.or";
  EXPECT_GE(got[2], 0) << "atom.cas";
  EXPECT_LT(got[2], static_cast<int32_t>(block)) << "atom.cas";
  EXPECT_EQ(got[3], init[3]);
  EXPECT_GE(got[4], 0) << "atom.exch.b64";
  EXPECT_LT(got[4], static_cast<int32_t>(block)) << "atom.exch.b64";
  EXPECT_EQ(got[5], 0) << "atom.exch.b64 high word";
  for (uint32_t i = 6; i < total; ++i)
    ASSERT_EQ(got[i], init[i]) << i;
  EXPECT_EQ(counts[0], (95 + total) % 101) << "atom.inc.u32 with bound 100";
  EXPECT_EQ(fsum[0], 0.5f + static_cast<float>(total)) << "atom.add.f32";
  // counts[i + 1] = %laneid + %warpid + low(%clock64) + %smid: the clock makes it run-dependent;
  // every thread wrote something no smaller than its lane id.
  for (uint32_t i = 0; i < total; ++i)
    EXPECT_GE(counts[i + 1], (i % block) % 32) << i;
}

// ---------------------------------------------------------------------------------------------
// extern_calls.cu (PTX 4.0, sm_30): extern functions and an extern global resolved by definitions
// added to the module, a weak function, vprintf, and calls through a table of function pointers.

TEST(LegacyKernelExternCalls, IndirectCallsThroughFunctionTable) {
  // Runs the module as it is: the unresolved externs are not reached by calls_indirect.
  LegacyRun run("sm_30");
  auto &m = run.load(corpusFile("extern_calls_sm30_ptx40.ptx"), "extern_calls_sm30_ptx40.ptx");
  const uint32_t grid = 2, block = 64, total = grid * block;
  std::mt19937 rng(71);
  std::vector<float> data(total);
  for (float &x : data)
    x = randomIn(rng, -20, 20);
  for (int32_t sel : {0, 1, 6}) {
    SCOPED_TRACE("sel " + std::to_string(sel));
    uint64_t dData = run.upload(data);
    auto a = run.args();
    a.ptr(dData).value(sel);
    auto r = run.launch(m, "calls_indirect", grid, block, a);
    ASSERT_TRUE(r.ok()) << describe(r);
    auto out = run.download<float>(dData, total);
    for (uint32_t t = 0; t < total; ++t) {
      float x = data[t];
      float ref = ((static_cast<uint32_t>(sel) + t) & 1) ? x * x : x + x;
      ASSERT_TRUE(sameFloat(ref, out[t])) << "thread " << t;
    }
  }
}

TEST(LegacyKernelExternCalls, ExternFunctionsGlobalsAndPrintf) {
  std::string ptx = corpusFile("extern_calls_sm30_ptx40.ptx");
  // ext_transform(v, s) = v * 5 - trunc(s); ext_log(what, v) counts calls and sums v and what[0].
  ptx = defineFunction(ptx, "ext_transform",
                       "\t.reg .b32 %e<4>;\n\t.reg .f32 %s;\n\tld.param.b32 %e0, [@P0@];\n"
                       "\tld.param.f32 %s, [@P1@];\n\tcvt.rzi.s32.f32 %e1, %s;\n\tmul.lo.s32 %e2, %e0, 5;\n"
                       "\tsub.s32 %e3, %e2, %e1;\n\tst.param.b32 [func_retval0+0], %e3;\n\tret;\n");
  ptx = defineFunction(ptx, "ext_log",
                       "\t.reg .b32 %e<4>;\n\t.reg .b64 %a<2>;\n\t.reg .b16 %c;\n"
                       "\tld.param.b64 %a0, [@P0@];\n\tld.param.b32 %e0, [@P1@];\n"
                       "\tatom.global.add.u32 %e1, [log_state], 1;\n"
                       "\tatom.global.add.u32 %e1, [log_state+4], %e0;\n"
                       "\tld.u8 %c, [%a0];\n\tcvt.u32.u16 %e2, %c;\n"
                       "\tatom.global.add.u32 %e1, [log_state+8], %e2;\n\tret;\n");
  const std::string externTable = ".extern .global .align 4 .b8 ext_table[256];";
  ASSERT_NE(ptx.find(externTable), std::string::npos);
  ptx = replaceAll(ptx, externTable,
                   ".visible .global .align 4 .b8 ext_table[256];\n.visible .global .align 4 .u32 log_state[3];");
  LegacyRun run("sm_30");
  auto &m = run.load(ptx, "extern_calls_linked.ptx");
  std::vector<int32_t> table(64);
  for (int i = 0; i < 64; ++i)
    table[i] = (i % 3 == 0) ? -1000 : i * 11;
  run.h.device.writeVariable(m, "ext_table", std::as_bytes(std::span(table)));
  const uint32_t grid = 2, block = 64, total = grid * block;
  const float s = 7.75f;
  uint64_t dOut = run.filled<int32_t>(total, 0);
  auto a = run.args();
  a.ptr(dOut).value(s);
  auto r = run.launch(m, "calls_externs", grid, block, a);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = run.download<int32_t>(dOut, total);
  std::vector<std::string> expectedLines;
  uint32_t negatives = 0, negativeSum = 0;
  for (uint32_t t = 0; t < total; ++t) {
    int32_t ti = static_cast<int32_t>(t);
    int32_t v = (ti * 5 - 7) + table[t & 63] + (ti * 3 + 1);
    EXPECT_EQ(out[t], v) << "thread " << t;
    if (v < 0) {
      ++negatives;
      negativeSum += static_cast<uint32_t>(v);
    }
    char line[64];
    std::snprintf(line, sizeof line, "v=%d s=%f", v, static_cast<double>(s));
    expectedLines.push_back(line);
  }
  std::array<uint32_t, 3> state{};
  run.h.device.readVariable(m, "log_state", std::as_writable_bytes(std::span(state)));
  EXPECT_EQ(state[0], negatives) << "ext_log calls";
  EXPECT_EQ(state[1], negativeSum) << "ext_log values";
  EXPECT_EQ(state[2], negatives * uint32_t{'n'}) << "ext_log reads \"negative\"";
  std::vector<std::string> lines;
  std::istringstream printed(r.printfOutput);
  for (std::string line; std::getline(printed, line);)
    lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  std::sort(expectedLines.begin(), expectedLines.end());
  EXPECT_EQ(lines, expectedLines);
}

} // namespace
} // namespace ptxray::test
