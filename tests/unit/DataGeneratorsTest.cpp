// The run-spec buffer generators (src/session/DataGenerators.h): iota, and random on splitmix64
// with values pinned from splitmix64's published outputs for seed 0.
#include "session/DataGenerators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace ptxray::session {
namespace {

template <class T> T elementAt(const std::vector<uint8_t> &data, size_t i) {
  T v;
  std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
  return v;
}

TEST(DataGeneratorsTest, DTypeNamesAndSizes) {
  EXPECT_EQ(dtypeSize("u8"), 1u);
  EXPECT_EQ(dtypeSize("s8"), 1u);
  EXPECT_EQ(dtypeSize("u16"), 2u);
  EXPECT_EQ(dtypeSize("s16"), 2u);
  EXPECT_EQ(dtypeSize("u32"), 4u);
  EXPECT_EQ(dtypeSize("s32"), 4u);
  EXPECT_EQ(dtypeSize("f32"), 4u);
  EXPECT_EQ(dtypeSize("u64"), 8u);
  EXPECT_EQ(dtypeSize("s64"), 8u);
  EXPECT_EQ(dtypeSize("f64"), 8u);
  EXPECT_FALSE(dtypeSize("f16").has_value());
  EXPECT_FALSE(dtypeSize("int").has_value());
  EXPECT_FALSE(dtypeSize("").has_value());
  for (DType t : {DType::U8, DType::S8, DType::U16, DType::S16, DType::U32, DType::S32, DType::U64, DType::S64,
                  DType::F32, DType::F64})
    EXPECT_EQ(parseDType(dtypeName(t)), t);
}

TEST(DataGeneratorsTest, SplitMix64PublishedOutputs) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(rng.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(rng.next(), 0x06c45d188009454full);
  EXPECT_EQ(rng.next(), 0xf88bb8a8724c81ecull);
}

TEST(DataGeneratorsTest, IotaIntegersWrapAndTailIsZero) {
  std::vector<uint8_t> data(300 + 3, 0xcc);
  fillIota(data.data(), data.size(), DType::U8);
  for (size_t i = 0; i < data.size(); ++i)
    EXPECT_EQ(data[i], uint8_t(i)) << i;

  std::vector<uint8_t> words(4 * 10 + 3, 0xcc); // 10 elements and 3 trailing bytes
  fillIota(words.data(), words.size(), DType::S32);
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(elementAt<int32_t>(words, i), int32_t(i));
  EXPECT_EQ(words[40], 0);
  EXPECT_EQ(words[41], 0);
  EXPECT_EQ(words[42], 0);

  std::vector<uint8_t> halves(2 * 70000);
  fillIota(halves.data(), halves.size(), DType::U16);
  EXPECT_EQ(elementAt<uint16_t>(halves, 65535), 65535);
  EXPECT_EQ(elementAt<uint16_t>(halves, 65536), 0);
  EXPECT_EQ(elementAt<uint16_t>(halves, 69999), 69999 - 65536);
}

TEST(DataGeneratorsTest, IotaFloats) {
  std::vector<uint8_t> f(4 * 5), d(8 * 5);
  fillIota(f.data(), f.size(), DType::F32);
  fillIota(d.data(), d.size(), DType::F64);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(elementAt<float>(f, i), float(i));
    EXPECT_EQ(elementAt<double>(d, i), double(i));
  }
  std::vector<uint8_t> small(3, 0xcc); // no whole element: all zero
  fillIota(small.data(), small.size(), DType::F32);
  EXPECT_EQ(small, std::vector<uint8_t>(3, 0));
}

TEST(DataGeneratorsTest, RandomIntegersPinnedForSeedZero) {
  std::vector<uint8_t> data(4 * 4);
  ASSERT_EQ(fillRandomInt(data.data(), data.size(), DType::U32, 0, 0, 9), "");
  // x % 10 of the published outputs.
  EXPECT_EQ(elementAt<uint32_t>(data, 0), 5u);
  EXPECT_EQ(elementAt<uint32_t>(data, 1), 0u);
  EXPECT_EQ(elementAt<uint32_t>(data, 2), 9u);
  EXPECT_EQ(elementAt<uint32_t>(data, 3), 4u);

  ASSERT_EQ(fillRandomInt(data.data(), data.size(), DType::S32, 0, uint64_t(int64_t(-5)), 5), "");
  // -5 + x % 11.
  EXPECT_EQ(elementAt<int32_t>(data, 0), -4);
  EXPECT_EQ(elementAt<int32_t>(data, 1), 5);
  EXPECT_EQ(elementAt<int32_t>(data, 2), -4);
  EXPECT_EQ(elementAt<int32_t>(data, 3), -2);

  // The full range of an 8-byte type is the draw itself.
  std::vector<uint8_t> wide(8 * 2);
  ASSERT_EQ(fillRandomInt(wide.data(), wide.size(), DType::U64, 0, 0, ~0ull), "");
  EXPECT_EQ(elementAt<uint64_t>(wide, 0), 0xe220a8397b1dcdafull);
  EXPECT_EQ(elementAt<uint64_t>(wide, 1), 0x6e789e6aa1b965f4ull);
  ASSERT_EQ(fillRandomInt(wide.data(), wide.size(), DType::S64, 0, defaultRandomMinBits(DType::S64),
                          defaultRandomMaxBits(DType::S64)),
            "");
  EXPECT_EQ(elementAt<uint64_t>(wide, 0), 0xe220a8397b1dcdafull); // a range of 2^64: the draw itself

  // Full ranges of narrow types: min + x % 2^width, truncated.
  std::vector<uint8_t> bytes(4);
  ASSERT_EQ(fillRandomInt(bytes.data(), bytes.size(), DType::U8, 0, 0, 255), "");
  EXPECT_EQ(bytes, (std::vector<uint8_t>{175, 244, 79, 236}));
  std::vector<uint8_t> halves(2 * 4);
  ASSERT_EQ(fillRandomInt(halves.data(), halves.size(), DType::S16, 0, defaultRandomMinBits(DType::S16),
                          defaultRandomMaxBits(DType::S16)),
            "");
  EXPECT_EQ(elementAt<uint16_t>(halves, 0), 0x4dafu);
  EXPECT_EQ(elementAt<uint16_t>(halves, 1), 0xe5f4u);
  EXPECT_EQ(elementAt<uint16_t>(halves, 2), 0xc54fu);
  EXPECT_EQ(elementAt<uint16_t>(halves, 3), 0x01ecu);
}

TEST(DataGeneratorsTest, RandomFloatsPinnedForSeedZero) {
  std::vector<uint8_t> d(8 * 3);
  ASSERT_EQ(fillRandomFloat(d.data(), d.size(), DType::F64, 0, 0.0, 1.0), "");
  // (x >> 11) * 2^-53
  EXPECT_EQ(elementAt<double>(d, 0), 0x1.c4415072f63b9p-1);
  EXPECT_EQ(elementAt<double>(d, 1), 0x1.b9e279aa86e58p-2);
  EXPECT_EQ(elementAt<double>(d, 2), 0x1.b117462002500p-6);

  std::vector<uint8_t> f(4 * 4);
  ASSERT_EQ(fillRandomFloat(f.data(), f.size(), DType::F32, 0, -1.0, 1.0), "");
  const uint32_t bits[] = {0x3f444150u, 0xbe0c3b0du, 0xbf727746u, 0x3f711771u};
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(elementAt<uint32_t>(f, i), bits[i]) << i;
}

TEST(DataGeneratorsTest, RandomIsDeterministicAndSeedDependent) {
  std::vector<uint8_t> a(4096), b(4096), c(4096);
  ASSERT_EQ(fillRandomInt(a.data(), a.size(), DType::U32, 1234, 0, 1000), "");
  ASSERT_EQ(fillRandomInt(b.data(), b.size(), DType::U32, 1234, 0, 1000), "");
  ASSERT_EQ(fillRandomInt(c.data(), c.size(), DType::U32, 1235, 0, 1000), "");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  ASSERT_EQ(fillRandomFloat(a.data(), a.size(), DType::F32, 7, -3, 3), "");
  ASSERT_EQ(fillRandomFloat(b.data(), b.size(), DType::F32, 7, -3, 3), "");
  EXPECT_EQ(a, b);
  // A prefix of a longer buffer is the shorter buffer: one draw per element, in order.
  std::vector<uint8_t> shortBuf(400);
  ASSERT_EQ(fillRandomFloat(shortBuf.data(), shortBuf.size(), DType::F32, 7, -3, 3), "");
  EXPECT_TRUE(std::equal(shortBuf.begin(), shortBuf.end(), a.begin()));
}

TEST(DataGeneratorsTest, RandomStaysInRangeAndReachesBothEnds) {
  std::vector<uint8_t> data(8 * 4000);
  ASSERT_EQ(fillRandomInt(data.data(), data.size(), DType::S64, 99, uint64_t(int64_t(-3)), 3), "");
  bool sawMin = false, sawMax = false;
  for (size_t i = 0; i < 4000; ++i) {
    int64_t v = elementAt<int64_t>(data, i);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
    sawMin |= v == -3;
    sawMax |= v == 3;
  }
  EXPECT_TRUE(sawMin && sawMax);

  ASSERT_EQ(fillRandomInt(data.data(), 4000, DType::S8, 5, uint64_t(int64_t(-128)), 127), "");
  ASSERT_EQ(fillRandomInt(data.data(), 2 * 4000, DType::U16, 5, 100, 200), "");
  for (size_t i = 0; i < 4000; ++i) {
    EXPECT_GE(elementAt<uint16_t>(data, i), 100);
    EXPECT_LE(elementAt<uint16_t>(data, i), 200);
  }

  ASSERT_EQ(fillRandomFloat(data.data(), 4 * 4000, DType::F32, 11, 0.5, 2.0), "");
  for (size_t i = 0; i < 4000; ++i) {
    float v = elementAt<float>(data, i);
    EXPECT_GE(v, 0.5f);
    EXPECT_LE(v, 2.0f);
  }
  std::vector<uint8_t> constant(4 * 8);
  ASSERT_EQ(fillRandomInt(constant.data(), constant.size(), DType::U32, 3, 1000, 1000), "");
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(elementAt<uint32_t>(constant, i), 1000u);
}

// Slices filled in any order give the bytes of one whole fill (the run-spec loader fills large
// buffers in parallel slices): cut points inside the sequence, at its ends and before the tail.
// Issue #31: random f64 in +-DBL_MAX came out all +inf (max - min overflows), and f32 bounds past
// FLT_MAX made every value infinite.
TEST(DataGeneratorsTest, RandomFloatsOverTheWholeRangeStayFinite) {
  const double most = std::numeric_limits<double>::max();
  std::vector<uint8_t> d(8 * 1000);
  ASSERT_EQ(fillRandomFloat(d.data(), d.size(), DType::F64, 3, -most, most), "");
  int negative = 0;
  for (size_t i = 0; i < 1000; ++i) {
    double v;
    std::memcpy(&v, d.data() + 8 * i, 8);
    ASSERT_TRUE(std::isfinite(v)) << i;
    negative += v < 0;
  }
  EXPECT_GT(negative, 400); // both signs, about half each
  EXPECT_LT(negative, 600);
  std::vector<uint8_t> f(4 * 4);
  EXPECT_EQ(fillRandomFloat(f.data(), f.size(), DType::F32, 0, -1e300, 1e300),
            "random bounds must be finite f32 values (at most 3.40282e+38 in magnitude)");
  EXPECT_EQ(fillRandomFloat(d.data(), d.size(), DType::F64, 0, 0, std::numeric_limits<double>::infinity()),
            "random bounds must be finite f64 values (at most 1.79769e+308 in magnitude)");
}

TEST(DataGeneratorsTest, SlicesFillTheSameBytesAsOneFill) {
  const size_t bytes = 8 * 1000 + 5; // 5 trailing bytes for every dtype up to 8 bytes
  auto check = [&](DType t, auto &&whole, auto &&slice) {
    std::vector<uint8_t> expect(bytes, 0xcc), got(bytes, 0xcc);
    whole(expect.data());
    size_t n = bytes / dtypeSize(t);
    std::vector<size_t> cuts = {0, 1, 7, n / 3, n / 2 + 1, n - 1, n};
    for (size_t c = cuts.size() - 1; c > 0; --c) // last slice first
      slice(got.data(), cuts[c - 1], cuts[c]);
    EXPECT_EQ(got, expect) << dtypeName(t);
  };
  for (DType t : {DType::U8, DType::S16, DType::U32, DType::F32, DType::F64, DType::U64})
    check(
        t, [&](uint8_t *d) { fillIota(d, bytes, t); },
        [&](uint8_t *d, size_t a, size_t b) { fillIotaSlice(d, bytes, t, a, b); });
  for (DType t : {DType::S16, DType::U32, DType::S64})
    check(
        t,
        [&](uint8_t *d) {
          ASSERT_EQ(fillRandomInt(d, bytes, t, 7, defaultRandomMinBits(t), defaultRandomMaxBits(t)), "");
        },
        [&](uint8_t *d, size_t a, size_t b) {
          ASSERT_EQ(fillRandomIntSlice(d, bytes, t, 7, defaultRandomMinBits(t), defaultRandomMaxBits(t), a, b), "");
        });
  check(
      DType::U8, [&](uint8_t *d) { ASSERT_EQ(fillRandomInt(d, bytes, DType::U8, 3, 10, 20), ""); },
      [&](uint8_t *d, size_t a, size_t b) { ASSERT_EQ(fillRandomIntSlice(d, bytes, DType::U8, 3, 10, 20, a, b), ""); });
  for (DType t : {DType::F32, DType::F64})
    check(
        t, [&](uint8_t *d) { ASSERT_EQ(fillRandomFloat(d, bytes, t, 11, -2.5, 4.0), ""); },
        [&](uint8_t *d, size_t a, size_t b) { ASSERT_EQ(fillRandomFloatSlice(d, bytes, t, 11, -2.5, 4.0, a, b), ""); });
}

TEST(DataGeneratorsTest, SplitMix64JumpsToAnyDraw) {
  SplitMix64 walk(1234);
  for (uint64_t i = 0; i < 100; ++i) {
    uint64_t x = walk.next();
    EXPECT_EQ(SplitMix64::at(1234, i).next(), x) << i;
  }
}

TEST(DataGeneratorsTest, BadBoundsAreRefused) {
  std::vector<uint8_t> data(16);
  EXPECT_NE(fillRandomInt(data.data(), data.size(), DType::U32, 0, 5, 4), "");
  EXPECT_NE(fillRandomInt(data.data(), data.size(), DType::S32, 0, 5, uint64_t(int64_t(-5))), "");
  EXPECT_NE(fillRandomInt(data.data(), data.size(), DType::U8, 0, 0, 256), "");
  EXPECT_NE(fillRandomInt(data.data(), data.size(), DType::S8, 0, uint64_t(int64_t(-129)), 0), "");
  EXPECT_NE(fillRandomInt(data.data(), data.size(), DType::F32, 0, 0, 1), "");
  EXPECT_NE(fillRandomFloat(data.data(), data.size(), DType::U32, 0, 0, 1), "");
  EXPECT_NE(fillRandomFloat(data.data(), data.size(), DType::F64, 0, 2, 1), "");
  EXPECT_EQ(intMinBits(DType::S8), uint64_t(int64_t(-128)));
  EXPECT_EQ(intMaxBits(DType::S8), 127u);
  EXPECT_EQ(intMinBits(DType::S64), 0x8000000000000000ull);
  EXPECT_EQ(intMaxBits(DType::U64), ~0ull);
  EXPECT_EQ(intMaxBits(DType::U32), 0xffffffffull);
}

} // namespace
} // namespace ptxray::session
