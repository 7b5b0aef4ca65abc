// Texture and surface instructions: host-created texture objects over device arrays, fetched by PTX
// kernels shaped like nvcc's output with every filter, address mode and coordinate normalization, and
// compared against a host model of the sampling rules written here from the OpenCL best-practices
// guide (clamp / repeat) and CUDA's texture-fetching rules (texel centres, 9-bit linear weights) —
// not from ptxray's sampler. Surfaces are written and read back.
#include "vm/Texture.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ptxray::test {
namespace {

using vm::AddressMode;
using vm::ChannelType;
using vm::FilterMode;
using vm::ReadMode;
using vm::TextureResource;

const char *kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

// ---------------------------------------------------------------------------------------------
// The host model.

struct RefTexture {
  int dims = 1;
  int n[3] = {1, 1, 1};
  std::vector<std::array<float, 4>> texels; ///< x + n0 * (y + n1 * z)
  AddressMode mode[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  bool linear = false;
  bool normalized = false;
  std::array<float, 4> border{0, 0, 0, 0};
};

/// Texel index j of an axis of n texels after addressing, or -1 for the border colour.
long refIndex(long j, int n, AddressMode m) {
  switch (m) {
  case AddressMode::Clamp: return j < 0 ? 0 : j >= n ? n - 1 : j;
  case AddressMode::Wrap: return ((j % n) + n) % n;
  case AddressMode::Mirror: {
    long k = ((j % (2 * n)) + 2 * n) % (2 * n);
    return k < n ? k : 2 * n - 1 - k;
  }
  case AddressMode::Border: return j < 0 || j >= n ? -1 : j;
  }
  return 0;
}

/// Point sampling of one axis, by the guide's definitions: with normalized coordinates, clamp
/// replaces x by 0 below 0 and by 1 - 1/N from 1 on, repeat replaces x by frac(x); the texel is then
/// floor(x * N). Unnormalized coordinates only clamp (or use the border).
long refPointAxis(double x, int n, bool normalized, AddressMode m) {
  if (!normalized) {
    long i = static_cast<long>(std::floor(x));
    if (m == AddressMode::Border)
      return i < 0 || i >= n ? -1 : i;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  }
  switch (m) {
  case AddressMode::Clamp:
    if (x < 0)
      x = 0;
    if (x >= 1)
      x = 1.0 - 1.0 / n;
    break;
  case AddressMode::Wrap: x = x - std::floor(x); break;
  case AddressMode::Mirror: {
    double f = std::floor(x);
    x = static_cast<long>(f) % 2 == 0 ? x - f : 1.0 - (x - f);
    break;
  }
  case AddressMode::Border:
    if (x < 0 || x >= 1)
      return -1;
    break;
  }
  return std::min<long>(static_cast<long>(std::floor(x * n)), n - 1);
}

std::array<float, 4> refTexel(const RefTexture &t, const long idx[3]) {
  for (int d = 0; d < t.dims; ++d)
    if (idx[d] < 0)
      return t.border;
  return t.texels[idx[0] + t.n[0] * (idx[1] + t.n[1] * idx[2])];
}

/// CUDA's linear filtering: xB = x * N - 0.5 (or x - 0.5), i = floor(xB), alpha = frac(xB) held in
/// 9-bit fixed point with 8 fractional bits, tex = (1 - alpha) T[i] + alpha T[i + 1] per axis.
std::array<float, 4> refSample(const RefTexture &t, const double c[3]) {
  if (!t.linear) {
    long idx[3] = {0, 0, 0};
    for (int d = 0; d < t.dims; ++d)
      idx[d] = refPointAxis(c[d], t.n[d], t.normalized, t.mode[d]);
    return refTexel(t, idx);
  }
  long base[3] = {0, 0, 0};
  double alpha[3] = {0, 0, 0};
  AddressMode mode[3];
  for (int d = 0; d < t.dims; ++d) {
    double xb = (t.normalized ? c[d] * t.n[d] : c[d]) - 0.5;
    base[d] = static_cast<long>(std::floor(xb));
    alpha[d] = std::round((xb - std::floor(xb)) * 256.0) / 256.0;
    mode[d] = t.mode[d];
    if (!t.normalized && (mode[d] == AddressMode::Wrap || mode[d] == AddressMode::Mirror))
      mode[d] = AddressMode::Clamp;
  }
  std::array<double, 4> acc{0, 0, 0, 0};
  for (int corner = 0; corner < (1 << t.dims); ++corner) {
    long idx[3] = {0, 0, 0};
    double w = 1;
    for (int d = 0; d < t.dims; ++d) {
      int up = (corner >> d) & 1;
      idx[d] = refIndex(base[d] + up, t.n[d], mode[d]);
      w *= up ? alpha[d] : 1 - alpha[d];
    }
    auto texel = refTexel(t, idx);
    for (int k = 0; k < 4; ++k)
      acc[k] += w * texel[k];
  }
  return {static_cast<float>(acc[0]), static_cast<float>(acc[1]), static_cast<float>(acc[2]),
          static_cast<float>(acc[3])};
}

// ---------------------------------------------------------------------------------------------
// Kernels: out[i] = tex(t, coords[i]) — as nvcc writes a bindless tex1D/tex2D/tex3D.

/// `instr` is the full tex instruction prefix, `coordType` f32 or s32, `ncoords` the coordinates
/// per thread (1, 2 or 4: the 3D vector is padded to four).
std::string texKernel(const std::string &instr, const char *coordType, int ncoords, const char *resultType = "f32") {
  std::ostringstream s;
  s << kHeader << ".visible .entry k(.param .u64 tex, .param .u64 coords, .param .u64 out, .param .u32 n)\n{\n"
    << "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg ." << coordType << " %c<5>;\n  .reg ." << resultType
    << " %v<5>;\n  .reg .b64 %rd<12>;\n"
    << "  ld.param.u64 %rd1, [tex];\n  ld.param.u64 %rd2, [coords];\n  ld.param.u64 %rd3, [out];\n"
    << "  ld.param.u32 %r1, [n];\n  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n"
    << "  mad.lo.s32 %r5, %r3, %r4, %r2;\n  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
    << "  cvta.to.global.u64 %rd4, %rd2;\n  mul.wide.s32 %rd5, %r5, " << 4 * ncoords << ";\n"
    << "  add.s64 %rd6, %rd4, %rd5;\n";
  std::string list;
  if (ncoords == 1) {
    s << "  ld.global." << coordType << " %c1, [%rd6];\n";
    list = "{%c1}";
  } else if (ncoords == 2) {
    s << "  ld.global.v2." << coordType << " {%c1, %c2}, [%rd6];\n";
    list = "{%c1, %c2}";
  } else {
    s << "  ld.global.v4." << coordType << " {%c1, %c2, %c3, %c4}, [%rd6];\n";
    list = "{%c1, %c2, %c3, %c4}";
  }
  s << "  " << instr << " {%v1, %v2, %v3, %v4}, [%rd1, " << list << "];\n"
    << "  cvta.to.global.u64 %rd7, %rd3;\n  mul.wide.s32 %rd8, %r5, 16;\n  add.s64 %rd9, %rd7, %rd8;\n"
    << "  st.global.v4." << resultType << " [%rd9], {%v1, %v2, %v3, %v4};\nDONE:\n  ret;\n}\n";
  return s.str();
}

template <class Coord, class Out = float>
std::vector<Out> runTex(VmHarness &h, const std::string &ptx, uint64_t tex, const std::vector<Coord> &coords,
                        int ncoords) {
  auto &m = h.load(ptx);
  const uint32_t n = static_cast<uint32_t>(coords.size() / ncoords);
  uint64_t c = h.upload(coords);
  uint64_t out = h.zeros<Out>(4 * n);
  auto r = h.launch(m, "k", {(n + 63) / 64, 1, 1}, {64, 1, 1}, tex, c, out, n);
  EXPECT_TRUE(r.ok()) << describe(r);
  return h.download<Out>(out, 4 * n);
}

const char *modeName(AddressMode m) {
  switch (m) {
  case AddressMode::Clamp: return "clamp";
  case AddressMode::Wrap: return "wrap";
  case AddressMode::Mirror: return "mirror";
  case AddressMode::Border: return "border";
  }
  return "?";
}

void expectNear(const std::vector<float> &got, size_t i, const std::array<float, 4> &want, const std::string &what) {
  for (int k = 0; k < 4; ++k)
    ASSERT_NEAR(got[4 * i + k], want[k], 1e-4 * (1 + std::fabs(want[k]))) << what << " lane " << i << " channel " << k;
}

// ---------------------------------------------------------------------------------------------

TEST(Texture, Fetch1DLinearMemoryWithIntegerCoordinates) {
  // tex1Dfetch<float>(t, i): no filtering; outside the buffer reads zero.
  VmHarness h;
  const int n = 100;
  std::vector<float> data(n);
  for (int i = 0; i < n; ++i)
    data[i] = 0.5f * i - 7;
  uint64_t buf = h.upload(data);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::F32, 1}, .width = n};
  uint64_t tex = h.device.textures().createTextureObject(d);
  ASSERT_NE(tex, 0u);
  std::vector<int32_t> coords;
  for (int i = -5; i < n + 5; ++i)
    coords.push_back(i);
  auto out = runTex<int32_t>(h, texKernel("tex.1d.v4.f32.s32", "s32", 1), tex, coords, 1);
  for (size_t k = 0; k < coords.size(); ++k) {
    int i = coords[k];
    bool in = i >= 0 && i < n;
    EXPECT_EQ(out[4 * k], in ? data[i] : 0.0f) << i;
    EXPECT_EQ(out[4 * k + 1], 0.0f);
    EXPECT_EQ(out[4 * k + 3], in ? 1.0f : 0.0f) << "missing alpha reads as 1";
  }
}

TEST(Texture, Fetch1DInt4AndSignExtension) {
  // tex1Dfetch<int4> over a 4-channel s8 buffer read as element type: sign-extended integers.
  VmHarness h;
  std::vector<int8_t> data;
  for (int i = 0; i < 64; ++i)
    data.push_back(static_cast<int8_t>(i * 7 - 100));
  uint64_t buf = h.upload(data);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::S8, 4}, .width = 16};
  uint64_t tex = h.device.textures().createTextureObject(d);
  std::vector<int32_t> coords;
  for (int i = 0; i < 16; ++i)
    coords.push_back(i);
  auto out = runTex<int32_t, int32_t>(h, texKernel("tex.1d.v4.s32.s32", "s32", 1, "s32"), tex, coords, 1);
  for (int i = 0; i < 16; ++i)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(out[4 * i + c], data[4 * i + c]) << i << "," << c;
}

struct ModeCase {
  FilterMode filter;
  AddressMode mode;
  bool normalized;
};

std::vector<ModeCase> allModes() {
  std::vector<ModeCase> v;
  for (FilterMode f : {FilterMode::Point, FilterMode::Linear})
    for (AddressMode m : {AddressMode::Clamp, AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border})
      for (bool norm : {false, true})
        v.push_back({f, m, norm});
  return v;
}

std::string caseName(const ModeCase &c) {
  return std::string(c.filter == FilterMode::Linear ? "linear" : "point") + "/" + modeName(c.mode) + "/" +
         (c.normalized ? "normalized" : "unnormalized");
}

TEST(Texture, Sample1DEveryFilterAddressModeAndNormalization) {
  VmHarness h;
  const int n = 8;
  std::vector<float> data(2 * n);
  RefTexture ref;
  ref.dims = 1;
  ref.n[0] = n;
  for (int i = 0; i < n; ++i) {
    data[2 * i] = static_cast<float>(3 * i * i + 1);
    data[2 * i + 1] = static_cast<float>(-5 * i);
    ref.texels.push_back({data[2 * i], data[2 * i + 1], 0.0f, 1.0f});
  }
  uint64_t buf = h.upload(data);
  for (const ModeCase &mc : allModes()) {
    vm::TextureDesc d;
    d.resource = {.kind = TextureResource::Kind::Pitch2D,
                  .address = buf,
                  .format = {ChannelType::F32, 2},
                  .width = n,
                  .height = 1};
    d.sampler.filter = mc.filter;
    d.sampler.address = {mc.mode, mc.mode, mc.mode};
    d.sampler.normalizedCoords = mc.normalized;
    d.sampler.borderColor = {-1.5f, 2.5f, 0.25f, 0.75f};
    uint64_t tex = h.device.textures().createTextureObject(d);
    ref.linear = mc.filter == FilterMode::Linear;
    ref.normalized = mc.normalized;
    ref.mode[0] = mc.mode;
    ref.border = d.sampler.borderColor;
    // Dyadic coordinates (exact in float) across the edges, and a few that are not.
    std::vector<float> coords;
    if (mc.normalized) {
      for (int k = -40; k <= 56; ++k)
        coords.push_back(k / 16.0f);
      for (int k = -7; k <= 17; ++k)
        coords.push_back(0.1f * k + 0.013f);
    } else {
      for (int k = -12; k <= 44; ++k)
        coords.push_back(k / 4.0f);
      for (int k = -7; k <= 17; ++k)
        coords.push_back(0.7f * k + 0.013f);
    }
    // A 1D lookup of a one-row pitch-2D texture: tex.2d with y at the row's centre.
    std::vector<float> xy;
    for (float x : coords) {
      xy.push_back(x);
      xy.push_back(mc.normalized ? 0.5f : 0.5f);
    }
    auto out = runTex<float>(h, texKernel("tex.2d.v4.f32.f32", "f32", 2), tex, xy, 2);
    for (size_t i = 0; i < coords.size(); ++i) {
      double c[3] = {coords[i], 0, 0};
      auto want = refSample(ref, c);
      expectNear(out, i, want, caseName(mc) + " x=" + std::to_string(coords[i]));
    }
    h.device.textures().destroyTextureObject(tex);
  }
}

TEST(Texture, Sample1DArrayWithTex1D) {
  // tex1D<float> on a 1D array texture (tex.1d.v4.f32.f32): linear + wrap + normalized.
  VmHarness h;
  const int n = 16;
  std::vector<float> data(n);
  RefTexture ref;
  ref.n[0] = n;
  for (int i = 0; i < n; ++i) {
    data[i] = static_cast<float>((i * 37) % 23);
    ref.texels.push_back({data[i], 0, 0, 1});
  }
  uint64_t buf = h.upload(data);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Array, .address = buf, .format = {ChannelType::F32, 1}, .width = n};
  d.sampler = {.filter = FilterMode::Linear,
               .address = {AddressMode::Wrap, AddressMode::Wrap, AddressMode::Wrap},
               .normalizedCoords = true};
  uint64_t tex = h.device.textures().createTextureObject(d);
  ref.linear = true;
  ref.normalized = true;
  ref.mode[0] = AddressMode::Wrap;
  std::vector<float> coords;
  for (int k = -50; k < 150; ++k)
    coords.push_back(k * 0.0173f);
  auto out = runTex<float>(h, texKernel("tex.1d.v4.f32.f32", "f32", 1), tex, coords, 1);
  for (size_t i = 0; i < coords.size(); ++i) {
    double c[3] = {coords[i], 0, 0};
    expectNear(out, i, refSample(ref, c), "x=" + std::to_string(coords[i]));
  }
}

TEST(Texture, LinearFilterWeightsHaveEightFractionalBits) {
  // Halfway-free fractions that 8 bits cannot hold: 0.3 of the way from 0 to 1000 gives 300 with exact
  // weights, 1000 * round(0.3 * 256) / 256 = 300.78125 on the texture unit.
  VmHarness h;
  std::vector<float> data{0.0f, 1000.0f};
  uint64_t buf = h.upload(data);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Array, .address = buf, .format = {ChannelType::F32, 1}, .width = 2};
  d.sampler.filter = FilterMode::Linear;
  uint64_t tex = h.device.textures().createTextureObject(d);
  std::vector<float> coords{0.5f + 0.3f, 0.5f + 0.001f, 0.5f + 0.999f, 1.0f};
  auto out = runTex<float>(h, texKernel("tex.1d.v4.f32.f32", "f32", 1), tex, coords, 1);
  EXPECT_FLOAT_EQ(out[0], 1000.0f * 77 / 256);
  EXPECT_FLOAT_EQ(out[4], 0.0f);    // 0.256 rounds to 0
  EXPECT_FLOAT_EQ(out[8], 1000.0f); // 255.744 rounds to 256
  EXPECT_FLOAT_EQ(out[12], 500.0f);
}

TEST(Texture, Sample2DPitchEveryFilterAddressModeAndNormalization) {
  VmHarness h;
  const int w = 5, hgt = 4;
  const uint64_t pitch = 32; // bytes, wider than a row of 5 floats
  std::vector<float> mem(pitch / 4 * hgt, -999.0f);
  RefTexture ref;
  ref.dims = 2;
  ref.n[0] = w;
  ref.n[1] = hgt;
  ref.texels.resize(w * hgt);
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < w; ++x) {
      float v = static_cast<float>(x * x * 3 + y * 17 + x * y);
      mem[y * pitch / 4 + x] = v;
      ref.texels[x + w * y] = {v, 0, 0, 1};
    }
  uint64_t buf = h.upload(mem);
  for (const ModeCase &mc : allModes()) {
    vm::TextureDesc d;
    d.resource = {.kind = TextureResource::Kind::Pitch2D,
                  .address = buf,
                  .format = {ChannelType::F32, 1},
                  .width = w,
                  .height = hgt,
                  .pitch = pitch};
    d.sampler.filter = mc.filter;
    d.sampler.address = {mc.mode, mc.mode, mc.mode};
    d.sampler.normalizedCoords = mc.normalized;
    d.sampler.borderColor = {42.0f, 0, 0, 0};
    uint64_t tex = h.device.textures().createTextureObject(d);
    ref.linear = mc.filter == FilterMode::Linear;
    ref.normalized = mc.normalized;
    ref.mode[0] = ref.mode[1] = mc.mode;
    ref.border = d.sampler.borderColor;
    std::vector<float> xy;
    for (int j = -6; j <= 22; j += 2)
      for (int i = -6; i <= 26; i += 3) {
        xy.push_back(mc.normalized ? i / 20.0f + 0.0031f : i / 4.0f);
        xy.push_back(mc.normalized ? j / 16.0f : j / 4.0f + 0.0625f);
      }
    auto out = runTex<float>(h, texKernel("tex.2d.v4.f32.f32", "f32", 2), tex, xy, 2);
    for (size_t i = 0; i < xy.size() / 2; ++i) {
      double c[3] = {xy[2 * i], xy[2 * i + 1], 0};
      expectNear(out, i, refSample(ref, c),
                 caseName(mc) + " at " + std::to_string(xy[2 * i]) + "," + std::to_string(xy[2 * i + 1]));
    }
  }
}

TEST(Texture, Sample3DArrayLinearClamp) {
  VmHarness h;
  const int n0 = 4, n1 = 3, n2 = 5;
  std::vector<float> data(n0 * n1 * n2);
  RefTexture ref;
  ref.dims = 3;
  ref.n[0] = n0;
  ref.n[1] = n1;
  ref.n[2] = n2;
  for (int i = 0; i < n0 * n1 * n2; ++i) {
    data[i] = static_cast<float>((i * 13) % 29);
    ref.texels.push_back({data[i], 0, 0, 1});
  }
  uint64_t buf = h.upload(data);
  for (FilterMode f : {FilterMode::Point, FilterMode::Linear}) {
    vm::TextureDesc d;
    d.resource = {.kind = TextureResource::Kind::Array,
                  .address = buf,
                  .format = {ChannelType::F32, 1},
                  .width = n0,
                  .height = n1,
                  .depth = n2};
    d.sampler.filter = f;
    uint64_t tex = h.device.textures().createTextureObject(d);
    ref.linear = f == FilterMode::Linear;
    std::vector<float> c;
    for (int k = 0; k < 120; ++k) {
      c.push_back(-1.0f + (k % 7) * 0.83f);
      c.push_back(-0.5f + (k % 5) * 0.91f);
      c.push_back(-1.0f + (k % 11) * 0.67f);
      c.push_back(0.0f);
    }
    auto out = runTex<float>(h, texKernel("tex.3d.v4.f32.f32", "f32", 4), tex, c, 4);
    for (size_t i = 0; i < c.size() / 4; ++i) {
      double cc[3] = {c[4 * i], c[4 * i + 1], c[4 * i + 2]};
      expectNear(out, i, refSample(ref, cc), ref.linear ? "linear" : "point");
    }
  }
}

TEST(Texture, NormalizedFloatReadMode) {
  // uchar4 read as normalized float: v / 255; short2 as max(v / 32767, -1).
  VmHarness h;
  std::vector<uint8_t> u8{0, 1, 128, 255, 7, 200, 3, 99};
  std::vector<int16_t> s16{-32768, -32767, 0, 32767, 1000, -1000, 5, -5};
  uint64_t a = h.upload(u8), b = h.upload(s16);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear, .address = a, .format = {ChannelType::U8, 4}, .width = 2};
  d.readMode = ReadMode::NormalizedFloat;
  uint64_t ta = h.device.textures().createTextureObject(d);
  d.resource = {.kind = TextureResource::Kind::Linear, .address = b, .format = {ChannelType::S16, 2}, .width = 4};
  uint64_t tb = h.device.textures().createTextureObject(d);
  auto oa = runTex<int32_t>(h, texKernel("tex.1d.v4.f32.s32", "s32", 1), ta, {0, 1}, 1);
  for (int i = 0; i < 8; ++i)
    EXPECT_FLOAT_EQ(oa[i], u8[i] / 255.0f) << i;
  auto ob = runTex<int32_t>(h, texKernel("tex.1d.v4.f32.s32", "s32", 1), tb, {0, 1, 2, 3}, 1);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(ob[4 * i], std::max(s16[2 * i] / 32767.0f, -1.0f)) << i;
    EXPECT_FLOAT_EQ(ob[4 * i + 1], std::max(s16[2 * i + 1] / 32767.0f, -1.0f)) << i;
    EXPECT_EQ(ob[4 * i + 2], 0.0f);
    EXPECT_EQ(ob[4 * i + 3], 1.0f);
  }
}

TEST(Texture, LinearFilteringOfNormalizedBytes) {
  // Linear filtering works on normalized reads: blend of 0 and 255 at 1/4.
  VmHarness h;
  std::vector<uint8_t> u8{0, 255};
  uint64_t a = h.upload(u8);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Array, .address = a, .format = {ChannelType::U8, 1}, .width = 2};
  d.readMode = ReadMode::NormalizedFloat;
  d.sampler.filter = FilterMode::Linear;
  uint64_t t = h.device.textures().createTextureObject(d);
  auto o = runTex<float>(h, texKernel("tex.1d.v4.f32.f32", "f32", 1), t, {0.75f, 0.0f, 5.0f}, 1);
  EXPECT_FLOAT_EQ(o[0], 0.25f);
  EXPECT_FLOAT_EQ(o[4], 0.0f);
  EXPECT_FLOAT_EQ(o[8], 1.0f);
}

TEST(Texture, HostApiRejectsInvalidDescriptions) {
  VmHarness h;
  uint64_t buf = h.zeros<float>(64);
  auto &t = h.device.textures();
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::S32, 1}, .width = 8};
  d.sampler.filter = FilterMode::Linear;
  EXPECT_THROW(t.createTextureObject(d), vm::VmError); // linear filtering of integers
  d.sampler.filter = FilterMode::Point;
  d.readMode = ReadMode::NormalizedFloat;
  EXPECT_THROW(t.createTextureObject(d), vm::VmError); // normalized read of 32-bit integers
  d.readMode = ReadMode::ElementType;
  d.resource.format.channels = 3;
  EXPECT_THROW(t.createTextureObject(d), vm::VmError);
  d.resource.format.channels = 1;
  d.resource.height = 4;
  EXPECT_THROW(t.createTextureObject(d), vm::VmError); // linear memory is 1D
  d.resource.height = 0;
  uint64_t tex = t.createTextureObject(d);
  EXPECT_NE(tex, 0u);
  EXPECT_THROW(t.destroySurfaceObject(tex), vm::VmError);
  t.destroyTextureObject(tex);
  EXPECT_THROW(t.destroyTextureObject(tex), vm::VmError);
  EXPECT_EQ(t.find(tex), nullptr);
}

TEST(Texture, InvalidHandleFaults) {
  VmHarness h;
  uint64_t buf = h.zeros<float>(16);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::F32, 1}, .width = 16};
  uint64_t tex = h.device.textures().createTextureObject(d);
  h.device.textures().destroyTextureObject(tex);
  auto &m = h.load(texKernel("tex.1d.v4.f32.s32", "s32", 1));
  uint64_t c = h.upload(std::vector<int32_t>{0});
  uint64_t out = h.zeros<float>(4);
  for (uint64_t bad : {uint64_t{0}, uint64_t{12345}, tex}) {
    auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, bad, c, out, 1u);
    ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
    EXPECT_EQ(r.faults.at(0).kind, vm::FaultKind::IllegalInstruction);
    EXPECT_NE(r.faults[0].detail.find("not a live texture handle"), std::string::npos) << r.faults[0].detail;
  }
}

TEST(Texture, GatherFootprint) {
  // tld4.r / .g: the 2x2 footprint counter-clockwise from the lower left: (i0,j1) (i1,j1) (i1,j0) (i0,j0).
  VmHarness h;
  const int w = 4, hh = 4;
  std::vector<float> data(2 * w * hh);
  for (int i = 0; i < w * hh; ++i) {
    data[2 * i] = static_cast<float>(i);
    data[2 * i + 1] = static_cast<float>(100 + i);
  }
  uint64_t buf = h.upload(data);
  vm::TextureDesc d;
  d.resource = {
      .kind = TextureResource::Kind::Array, .address = buf, .format = {ChannelType::F32, 2}, .width = w, .height = hh};
  uint64_t tex = h.device.textures().createTextureObject(d);
  std::vector<float> xy{1.7f, 2.2f, 0.1f, 0.1f};
  auto r = runTex<float>(h, texKernel("tld4.r.2d.v4.f32.f32", "f32", 2), tex, xy, 2);
  // (1.7, 2.2): i0 = floor(1.2) = 1, j0 = floor(1.7) = 1.
  EXPECT_EQ(r[0], 1 + 2 * w);
  EXPECT_EQ(r[1], 2 + 2 * w);
  EXPECT_EQ(r[2], 2 + 1 * w);
  EXPECT_EQ(r[3], 1 + 1 * w);
  // (0.1, 0.1) with clamp: every index clamps to 0 except none — i0 = -1 -> 0, i1 = 0.
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(r[4 + k], 0.0f);
  auto g = runTex<float>(h, texKernel("tld4.g.2d.v4.f32.f32", "f32", 2), tex, xy, 2);
  EXPECT_EQ(g[0], 100 + 1 + 2 * w);
}

TEST(Texture, QueriesTxqAndSuq) {
  VmHarness h;
  uint64_t buf = h.zeros<uint8_t>(64 * 32 * 4);
  auto &t = h.device.textures();
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Pitch2D,
                .address = buf,
                .format = {ChannelType::U8, 4},
                .width = 60,
                .height = 32,
                .pitch = 256};
  d.readMode = ReadMode::NormalizedFloat;
  d.sampler = {.filter = FilterMode::Linear,
               .address = {AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border},
               .normalizedCoords = true};
  uint64_t tex = t.createTextureObject(d);
  uint64_t surf = t.createSurfaceObject({.kind = TextureResource::Kind::Array,
                                         .address = buf,
                                         .format = {ChannelType::F32, 1},
                                         .width = 16,
                                         .height = 8,
                                         .layers = 3});
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 t, .param .u64 s, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [out];
  txq.width.b32 %r1, [%rd1];
  txq.height.b32 %r2, [%rd1];
  txq.depth.b32 %r3, [%rd1];
  txq.channel_data_type.b32 %r4, [%rd1];
  txq.channel_order.b32 %r5, [%rd1];
  txq.normalized_coords.b32 %r6, [%rd1];
  txq.filter_mode.b32 %r7, [%rd1];
  txq.addr_mode_0.b32 %r8, [%rd1];
  txq.addr_mode_1.b32 %r9, [%rd1];
  txq.addr_mode_2.b32 %r10, [%rd1];
  txq.level.width.b32 %r11, [%rd1], 2;
  suq.width.b32 %r12, [%rd2];
  suq.height.b32 %r13, [%rd2];
  suq.array_size.b32 %r14, [%rd2];
  suq.channel_data_type.b32 %r15, [%rd2];
  suq.memory_layout.b32 %r16, [%rd2];
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd3+48], {%r13, %r14, %r15, %r16};
  ret;
}
)");
  uint64_t out = h.zeros<uint32_t>(16);
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, tex, surf, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 16);
  std::vector<uint32_t> want{60,
                             32,
                             0,
                             0x10D2 /*CL_UNORM_INT8*/,
                             0x10B5 /*CL_RGBA*/,
                             1,
                             1,
                             0 /*wrap*/,
                             1 /*mirror*/,
                             4 /*clamp_to_border*/,
                             15,
                             16,
                             8,
                             3,
                             0x10DE /*CL_FLOAT*/,
                             0};
  EXPECT_EQ(v, want);
}

// ---------------------------------------------------------------------------------------------
// Surfaces

TEST(Texture, SurfaceWriteThenReadBack2D) {
  // Kernel 1 writes (x, y, x*y, 7) as a float4-sized .v4.b32 element; kernel 2 reads each back and
  // writes it to global memory; a third pass stores bytes with .b8.v4.
  VmHarness h;
  const int w = 12, hh = 5;
  uint64_t mem = h.zeros<uint32_t>(4 * w * hh);
  uint64_t surf = h.device.textures().createSurfaceObject({.kind = TextureResource::Kind::Array,
                                                           .address = mem,
                                                           .format = {ChannelType::U32, 4},
                                                           .width = w,
                                                           .height = hh});
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry write(.param .u64 s)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [s];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mul.lo.s32 %r3, %r1, %r2;
  shl.b32 %r4, %r1, 4;
  sust.b.2d.v4.b32.trap [%rd1, {%r4, %r2}], {%r1, %r2, %r3, 7};
  ret;
}
.visible .entry read(.param .u64 s, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r9, %ntid.x;
  shl.b32 %r4, %r1, 4;
  suld.b.2d.v4.b32.trap {%r5, %r6, %r7, %r8}, [%rd1, {%r4, %r2}];
  mad.lo.s32 %r10, %r2, %r9, %r1;
  mul.wide.u32 %rd3, %r10, 16;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v4.u32 [%rd4], {%r5, %r6, %r7, %r8};
  ret;
}
.visible .entry bytes(.param .u64 s)
{
  .reg .b16 %rs<5>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [s];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  shl.b32 %r4, %r1, 4;
  mov.u16 %rs1, 1;
  mov.u16 %rs2, 2;
  mov.u16 %rs3, 3;
  mov.u16 %rs4, 4;
  sust.b.2d.v4.b8.zero [%rd1, {%r4, %r2}], {%rs1, %rs2, %rs3, %rs4};
  ret;
}
)");
  auto r = h.launch(m, "write", {1, 1, 1}, {w, hh, 1}, surf);
  ASSERT_TRUE(r.ok()) << describe(r);
  uint64_t out = h.zeros<uint32_t>(4 * w * hh);
  r = h.launch(m, "read", {1, 1, 1}, {w, hh, 1}, surf, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 4 * w * hh);
  auto raw = h.download<uint32_t>(mem, 4 * w * hh);
  EXPECT_EQ(v, raw);
  for (int y = 0; y < hh; ++y)
    for (int x = 0; x < w; ++x) {
      const uint32_t *e = &v[4 * (y * w + x)];
      EXPECT_EQ(e[0], uint32_t(x));
      EXPECT_EQ(e[1], uint32_t(y));
      EXPECT_EQ(e[2], uint32_t(x * y));
      EXPECT_EQ(e[3], 7u);
    }
  r = h.launch(m, "bytes", {1, 1, 1}, {w, hh, 1}, surf);
  ASSERT_TRUE(r.ok()) << describe(r);
  raw = h.download<uint32_t>(mem, 4 * w * hh);
  EXPECT_EQ(raw[0], 0x04030201u);
  EXPECT_EQ(raw[1], 0u); // y of (0, 0)
  EXPECT_EQ(raw[4 * (2 * w + 3)], 0x04030201u);
  EXPECT_EQ(raw[4 * (2 * w + 3) + 1], 2u);
}

TEST(Texture, SurfaceOutOfRangeModes1D) {
  // suld.b.1d.b32 with x in bytes: .clamp reads the nearest element, .zero reads 0, .trap faults;
  // sust .zero drops the store; .b64 and .v2 forms.
  VmHarness h;
  const int n = 8;
  std::vector<uint32_t> init(n);
  for (int i = 0; i < n; ++i)
    init[i] = 100 + i;
  uint64_t mem = h.upload(init);
  uint64_t surf = h.device.textures().createSurfaceObject(
      {.kind = TextureResource::Kind::Linear, .address = mem, .format = {ChannelType::U32, 1}, .width = n});
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 s, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  sub.s32 %r2, %r1, 4;
  shl.b32 %r3, %r2, 2;
  suld.b.1d.b32.clamp {%r4}, [%rd1, {%r3}];
  suld.b.1d.b32.zero {%r5}, [%rd1, {%r3}];
  sust.b.1d.b32.zero [%rd1, {%r3}], %r1;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v2.u32 [%rd4], {%r4, %r5};
  ret;
}
.visible .entry wide(.param .u64 s, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [out];
  suld.b.1d.b64.trap {%rd3}, [%rd1, {8}];
  suld.b.1d.v2.b32.trap {%r1, %r2}, [%rd1, {24}];
  st.global.u64 [%rd2], %rd3;
  st.global.v2.u32 [%rd2+8], {%r1, %r2};
  ret;
}
.visible .entry trap(.param .u64 s)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [s];
  suld.b.1d.b32.trap {%r1}, [%rd1, {32}];
  ret;
}
)");
  const int threads = 16; // x from -4 to 11 elements
  uint64_t out = h.zeros<uint32_t>(2 * threads);
  auto r = h.launch(m, "k", {1, 1, 1}, {threads, 1, 1}, surf, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 2 * threads);
  for (int t = 0; t < threads; ++t) {
    int x = t - 4;
    bool in = x >= 0 && x < n;
    EXPECT_EQ(v[2 * t], 100u + std::clamp(x, 0, n - 1)) << x;
    EXPECT_EQ(v[2 * t + 1], in ? 100u + x : 0u) << x;
  }
  auto after = h.download<uint32_t>(mem, n);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(after[i], uint32_t(i + 4)) << "in-range stores land, out-of-range ones are dropped";
  uint64_t out2 = h.zeros<uint32_t>(4);
  r = h.launch(m, "wide", {1, 1, 1}, {1, 1, 1}, surf, out2);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto w = h.download<uint32_t>(out2, 4);
  EXPECT_EQ(w, (std::vector<uint32_t>{6, 7, 10, 11}));
  r = h.launch(m, "trap", {1, 1, 1}, {1, 1, 1}, surf);
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  EXPECT_EQ(r.faults.at(0).kind, vm::FaultKind::OutOfBounds);
}

// ---------------------------------------------------------------------------------------------
// Module references (.texref / .samplerref / .surfref) and opaque kernel parameters

TEST(Texture, ModuleTexrefBoundByNameUnifiedMode) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.global .texref tref;
.global .surfref sref;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [tref, {%r1}];
  shl.b32 %r6, %r1, 2;
  sust.b.1d.b32.trap [sref, {%r6}], %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)");
  std::vector<int32_t> data{5, -6, 7, -8, 9, -10, 11, -12};
  uint64_t buf = h.upload(data);
  uint64_t copy = h.zeros<int32_t>(8);
  auto &t = h.device.textures();
  t.bindTexture(m.ptx(), "tref",
                {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::S32, 1}, .width = 8});
  t.bindSurface(m.ptx(), "sref",
                {.kind = TextureResource::Kind::Linear, .address = copy, .format = {ChannelType::S32, 1}, .width = 8});
  EXPECT_NE(t.moduleReference(m.ptx(), "tref"), 0u);
  EXPECT_THROW(t.bindSurface(m.ptx(), "tref", {}), vm::VmError);
  uint64_t out = h.zeros<int32_t>(8);
  auto r = h.launch(m, "k", {1, 1, 1}, {8, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<int32_t>(out, 8), data);
  EXPECT_EQ(h.download<int32_t>(copy, 8), data);
}

TEST(Texture, ModuleSamplerrefIndependentModeAndInitializer) {
  // tex.1d [tex, sampler, {x}]: the .samplerref's initializer gives linear filtering and wrap.
  VmHarness h;
  auto &m = h.load(R"(.version 8.0
.target sm_80, texmode_independent
.address_size 64
.global .texref tref;
.global .samplerref smp = { filter_mode = linear, addr_mode_0 = wrap };
.visible .entry k(.param .u64 coords, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [coords];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [tref, smp, {%f1}];
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f2;
  txq.filter_mode.b32 %r2, [smp];
  txq.addr_mode_0.b32 %r3, [smp];
  st.global.v2.u32 [%rd2+64], {%r2, %r3};
  ret;
}
)");
  std::vector<float> data{0, 10, 20, 30};
  uint64_t buf = h.upload(data);
  auto &t = h.device.textures();
  t.registerModuleReferences(m.ptx()); // what the module loader does for opaque variables
  vm::TextureResource res{
      .kind = TextureResource::Kind::Array, .address = buf, .format = {ChannelType::F32, 1}, .width = 4};
  t.bindTexture(m.ptx(), "tref", res);
  vm::SamplerState texSampler;
  texSampler.normalizedCoords = true;
  t.setSampler(m.ptx(), "tref", texSampler);
  std::vector<float> coords{0.125f, 0.25f, 0.5f, 0.9375f, 1.125f, -0.125f};
  uint64_t c = h.upload(coords);
  uint64_t out = h.zeros<float>(18);
  auto r = h.launch(m, "k", {1, 1, 1}, {static_cast<unsigned>(coords.size()), 1, 1}, c, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<float>(out, 18);
  RefTexture ref;
  ref.n[0] = 4;
  for (float f : data)
    ref.texels.push_back({f, 0, 0, 1});
  ref.linear = true;
  ref.normalized = true;
  ref.mode[0] = AddressMode::Wrap;
  for (size_t i = 0; i < coords.size(); ++i) {
    double cc[3] = {coords[i], 0, 0};
    EXPECT_NEAR(v[i], refSample(ref, cc)[0], 1e-4) << coords[i];
  }
  uint32_t q[2];
  std::memcpy(q, &v[16], 8);
  EXPECT_EQ(q[0], 1u); // linear
  EXPECT_EQ(q[1], 0u); // wrap
}

TEST(Texture, OpaqueKernelParameter) {
  // `.param .texref t` passed by value: the argument's 8 bytes are the handle.
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .texref t, .param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  tex.1d.v4.u32.s32 {%r2, %r3, %r4, %r5}, [t, {%r1}];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)");
  std::vector<uint16_t> data{1, 65535, 3, 40000};
  uint64_t buf = h.upload(data);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::U16, 1}, .width = 4};
  uint64_t tex = h.device.textures().createTextureObject(d);
  uint64_t out = h.zeros<uint32_t>(4);
  auto r = h.launch(m, "k", {1, 1, 1}, {4, 1, 1}, tex, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(out, 4), (std::vector<uint32_t>{1, 65535, 3, 40000}));
}

TEST(Texture, IsTypep) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 a, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  istypep.texref %p1, %rd1;
  istypep.surfref %p2, %rd1;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 1, 0, %p2;
  st.global.v2.u32 [%rd2], {%r1, %r2};
  ret;
}
)");
  uint64_t buf = h.zeros<float>(16);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::F32, 1}, .width = 16};
  uint64_t tex = h.device.textures().createTextureObject(d);
  uint64_t surf = h.device.textures().createSurfaceObject(d.resource);
  uint64_t out = h.zeros<uint32_t>(2);
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, tex, out);
  if (!r.ok() && r.error.find("llegal") != std::string::npos &&
      r.faults.at(0).detail.find("not supported") != std::string::npos)
    GTEST_SKIP() << "istypep is not routed to the texture family yet: " << r.faults[0].detail;
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(out, 2), (std::vector<uint32_t>{1, 0}));
  r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, surf, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(out, 2), (std::vector<uint32_t>{0, 1}));
}

// ---------------------------------------------------------------------------------------------
// nvcc's own output (tests/kernels/textures.cu compiled for compute_90)

std::string corpusText() {
  std::ifstream in(std::string(PTXRAY_SOURCE_DIR) + "/tests/corpus/nvcc/compute_90/textures.ptx");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A launch that stopped at an instruction another family does not implement yet.
bool blockedElsewhere(const vm::LaunchResult &r) {
  return !r.ok() && !r.faults.empty() && r.faults[0].detail.find("not supported") != std::string::npos &&
         r.faults[0].instructionText.find("tex") == std::string::npos && r.faults[0].instructionText.find("su") != 0 &&
         r.faults[0].instructionText.find("tld4") == std::string::npos;
}

TEST(Texture, NvccTexQueries) {
  VmHarness h;
  auto &m = h.load(corpusText(), "textures.ptx");
  uint64_t buf = h.zeros<float>(64 * 16);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Pitch2D,
                .address = buf,
                .format = {ChannelType::F32, 1},
                .width = 48,
                .height = 16,
                .pitch = 256};
  uint64_t tex = h.device.textures().createTextureObject(d);
  uint64_t surf = h.device.textures().createSurfaceObject(
      {.kind = TextureResource::Kind::Linear, .address = buf, .format = {ChannelType::F32, 1}, .width = 100});
  uint64_t out = h.zeros<int32_t>(32);
  auto r = h.launch(m, "tex_queries", {1, 1, 1}, {32, 1, 1}, tex, surf, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  for (int32_t v : h.download<int32_t>(out, 32))
    EXPECT_EQ(v, 48 + 16 + 0x10DE + 100);
}

TEST(Texture, NvccSurfaceReadWrite) {
  VmHarness h;
  auto &m = h.load(corpusText(), "textures.ptx");
  const int w = 8, hh = 4;
  std::vector<float> s2data(4 * w * hh), s1data(w, 0.5f);
  for (size_t i = 0; i < s2data.size(); ++i)
    s2data[i] = static_cast<float>(i);
  uint64_t m1 = h.upload(s1data), m2 = h.upload(s2data), m3 = h.zeros<float>(w * hh);
  auto &t = h.device.textures();
  uint64_t s1 = t.createSurfaceObject(
      {.kind = TextureResource::Kind::Array, .address = m1, .format = {ChannelType::F32, 1}, .width = w});
  uint64_t s2 = t.createSurfaceObject(
      {.kind = TextureResource::Kind::Array, .address = m2, .format = {ChannelType::F32, 4}, .width = w, .height = hh});
  uint64_t s3 = t.createSurfaceObject({.kind = TextureResource::Kind::Array,
                                       .address = m3,
                                       .format = {ChannelType::F32, 1},
                                       .width = w,
                                       .height = hh,
                                       .depth = 1});
  auto r = h.launch(m, "surf_rw", {1, 1, 1}, {w, hh, 1}, s1, s2, s3, int32_t{w}, int32_t{hh});
  if (blockedElsewhere(r))
    GTEST_SKIP() << "needs an instruction another family has not landed: " << r.faults[0].instructionText;
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v3 = h.download<float>(m3, w * hh);
  for (int y = 0; y < hh; ++y)
    for (int x = 0; x < w; ++x)
      EXPECT_EQ(v3[y * w + x], s2data[4 * (y * w + x) + 1]) << "surf3Dwrite(v.y)";
}

} // namespace
} // namespace ptxray::test

namespace ptxray::test {
namespace {

/// A float4 Array resource of `texels` copies of `v`.
uint64_t constantTexels(VmHarness &h, size_t texels, std::array<float, 4> v) {
  std::vector<float> data;
  for (size_t i = 0; i < texels; ++i)
    data.insert(data.end(), v.begin(), v.end());
  return h.upload(data);
}

TEST(Texture, NvccTexFetchesEveryGeometry) {
  // tex_fetches: tex1Dfetch, tex1D, tex2D, tex3D, tex2DLayered, texCubemap, tex2DLod, tex2DGrad,
  // tex2Dgather and a uchar4 read. Constant textures make every result independent of the
  // coordinates, so the sums the kernel stores are known exactly.
  VmHarness h;
  auto &m = h.load(corpusText(), "textures.ptx");
  auto &t = h.device.textures();
  const uint32_t n = 64;
  auto make = [&](TextureResource r, std::array<float, 4> v, FilterMode f) {
    size_t count = size_t{r.width} * std::max(r.height, 1u) * r.slices();
    r.address = constantTexels(h, count, v);
    r.format = {ChannelType::F32, 4};
    vm::TextureDesc d;
    d.resource = r;
    d.sampler.filter = f;
    d.sampler.normalizedCoords = r.kind != TextureResource::Kind::Linear;
    return t.createTextureObject(d);
  };
  using K = TextureResource::Kind;
  uint64_t lin = make({.kind = K::Linear, .address = 0, .format = {ChannelType::F32, 4}, .width = n + 1}, {0, 0, 0, 0},
                      FilterMode::Point);
  uint64_t t1 = make({.kind = K::Array, .address = 0, .format = {ChannelType::F32, 4}, .width = 16}, {5, 0, 0, 0},
                     FilterMode::Linear);
  uint64_t t2 = make({.kind = K::Array, .address = 0, .format = {ChannelType::F32, 4}, .width = 8, .height = 8},
                     {2, 7, 0, 0}, FilterMode::Linear);
  uint64_t t3 =
      make({.kind = K::Array, .address = 0, .format = {ChannelType::F32, 4}, .width = 4, .height = 4, .depth = 4},
           {0, 0, 11, 0}, FilterMode::Point);
  uint64_t layered =
      make({.kind = K::Array, .address = 0, .format = {ChannelType::F32, 4}, .width = 4, .height = 4, .layers = 4},
           {13, 0, 0, 0}, FilterMode::Point);
  uint64_t cube =
      make({.kind = K::Array, .address = 0, .format = {ChannelType::F32, 4}, .width = 4, .height = 4, .cubemap = true},
           {0, 0, 0, 17}, FilterMode::Linear);
  uint64_t out = h.zeros<float>(4 * n);
  auto r = h.launch(m, "tex_fetches", {1, 1, 1}, {n, 1, 1}, lin, t1, t2, t3, layered, cube, out, int32_t{n});
  if (blockedElsewhere(r))
    GTEST_SKIP() << "needs an instruction another family has not landed: " << r.faults[0].instructionText;
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<float>(out, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(v[4 * i], 5.0f) << i;               // a + b + ai.x + uc.x (2.0f has a zero low byte)
    EXPECT_EQ(v[4 * i + 1], 7.0f + 11 + 13) << i; // c.y + d.z + e
    EXPECT_EQ(v[4 * i + 2], 17.0f + 2 + 7) << i;  // f.w + g.x + h.y
    EXPECT_EQ(v[4 * i + 3], 7.0f) << i;           // tld4.g: q.x
  }
}

TEST(Texture, NvccTexInline) {
  // tex.2d.v4.f32.f32 at (tid/4, tid/4) and tex.1d.v4.s32.s32 at tid on one 2D float texture.
  VmHarness h;
  auto &m = h.load(corpusText(), "textures.ptx");
  const int w = 8;
  std::vector<float> data(w * w);
  for (int i = 0; i < w * w; ++i)
    data[i] = static_cast<float>(i);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Array,
                .address = h.upload(data),
                .format = {ChannelType::F32, 1},
                .width = w,
                .height = w};
  uint64_t tex = h.device.textures().createTextureObject(d);
  uint64_t out = h.zeros<float>(4 * 32);
  auto r = h.launch(m, "tex_inline", {1, 1, 1}, {32, 1, 1}, tex, out);
  if (blockedElsewhere(r))
    GTEST_SKIP() << "needs an instruction another family has not landed: " << r.faults[0].instructionText;
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<float>(out, 4 * 32);
  for (int i = 0; i < 32; ++i) {
    int texel = (i / 4) * w + i / 4;                                // point sampling at (i/4, i/4)
    int fetched = std::bit_cast<int32_t>(data[std::min(i, w - 1)]); // integer fetch of row 0, clamped
    EXPECT_EQ(v[4 * i], data[texel] + static_cast<float>(fetched)) << i;
    EXPECT_EQ(v[4 * i + 3], 1.0f) << i;
  }
}

// ---------------------------------------------------------------------------------------------
// Texture and surface accesses as the execution listener's memory events.

struct TextureEvents : vm::Listener {
  std::vector<vm::MemoryEvent> events; ///< texture and surface events, in order (one worker)
  void onMemory(const vm::WarpRef &, const vm::MemoryEvent &e) override {
    if (e.path != vm::MemoryPath::LoadStore)
      events.push_back(e);
  }
};

TEST(Texture, FetchesAreMemoryEventsWithTheirFootprint) {
  VmHarness h;
  uint64_t buf = h.zeros<float>(64);
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Array, .address = buf, .format = {ChannelType::F32, 1}, .width = 64};
  d.sampler.filter = FilterMode::Linear;
  uint64_t tex = h.device.textures().createTextureObject(d);
  TextureEvents listener;
  h.device.setListener(&listener);
  // Lane i samples x = i + 1 (3 lanes): linear filtering blends texels i and i + 1.
  runTex<float>(h, texKernel("tex.1d.v4.f32.f32", "f32", 1), tex, std::vector<float>{1, 2, 3}, 1);
  ASSERT_EQ(listener.events.size(), 2u);
  for (int part = 0; part < 2; ++part) {
    const vm::MemoryEvent &e = listener.events[part];
    EXPECT_EQ(e.path, vm::MemoryPath::Texture);
    EXPECT_EQ(e.op, vm::MemoryOp::Load);
    EXPECT_EQ(e.space, vm::Space::Global);
    EXPECT_EQ(e.width, 4);
    EXPECT_EQ(e.footprintPart, part);
    EXPECT_EQ(e.footprintParts, 2);
    EXPECT_EQ(e.mask, 0x7u);
    for (int lane = 0; lane < 3; ++lane)
      EXPECT_EQ(e.addresses[lane], buf + 4 * (lane + part)) << part << " " << lane;
  }

  // Border addressing: a texel outside the texture reads the border colour, not memory. Lane 0 at
  // x = 0.25 (x - 0.5 = -0.25: texels -1 and 0), lane 1 at x = 64 (texels 63 and 64): one texel each.
  d.sampler.address = {vm::AddressMode::Border, vm::AddressMode::Border, vm::AddressMode::Border};
  uint64_t bordered = h.device.textures().createTextureObject(d);
  listener.events.clear();
  runTex<float>(h, texKernel("tex.1d.v4.f32.f32", "f32", 1), bordered, std::vector<float>{0.25f, 64.0f}, 1);
  ASSERT_EQ(listener.events.size(), 1u);
  EXPECT_EQ(listener.events[0].mask, 0x3u);
  EXPECT_EQ(listener.events[0].footprintParts, 1);
  EXPECT_EQ(listener.events[0].addresses[0], buf + 0);
  EXPECT_EQ(listener.events[0].addresses[1], buf + 4 * 63);
}

TEST(Texture, SurfaceAccessesAreMemoryEvents) {
  VmHarness h;
  uint64_t mem = h.zeros<uint32_t>(16);
  uint64_t surf = h.device.textures().createSurfaceObject(
      {.kind = TextureResource::Kind::Array, .address = mem, .format = {ChannelType::U32, 1}, .width = 16});
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 s)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [s];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 3;
  sust.b.1d.b32.zero [%rd1, {%r2}], {%r1};
  suld.b.1d.b32.zero {%r3}, [%rd1, {%r2}];
  ret;
}
)");
  TextureEvents listener;
  h.device.setListener(&listener);
  // 12 threads write word 2 * tid: lanes 0..7 are inside the 16 words; .zero skips the rest.
  auto r = h.launch(m, "k", {1, 1, 1}, {12, 1, 1}, surf);
  ASSERT_TRUE(r.ok()) << describe(r);
  ASSERT_EQ(listener.events.size(), 2u);
  EXPECT_EQ(listener.events[0].op, vm::MemoryOp::Store);
  EXPECT_EQ(listener.events[1].op, vm::MemoryOp::Load);
  for (const vm::MemoryEvent &e : listener.events) {
    EXPECT_EQ(e.path, vm::MemoryPath::Surface);
    EXPECT_EQ(e.width, 4);
    EXPECT_EQ(e.mask, 0xffu);
    for (int lane = 0; lane < 8; ++lane)
      EXPECT_EQ(e.addresses[lane], mem + 8 * lane);
  }
}

} // namespace
} // namespace ptxray::test
