// Buffer initializers of the run-spec format (`ptxray run SPEC.json`): the `iota` and `random`
// generators, defined here once so that the virtual GPU, the CPU reference implementations of the
// test kernels and the CUDA driver-API runner that checks them on a real GPU fill buffers with the
// same bytes.
//
// Header-only, C++17, standard library only (nvcc-compiled host code includes it).
//
// Common rules
//   - A buffer of N bytes with element type T holds N / sizeof(T) elements, little-endian (the host's
//     byte order; every supported host is little-endian). The N % sizeof(T) trailing bytes are zero.
//   - dtypes: u8 s8 u16 s16 u32 s32 u64 s64 f32 f64 (f16 is not supported).
//
// iota {"iota": {"dtype": T}}
//   Element i is static_cast<T>(uint64_t(i)): integers wrap modulo 2^width, floats round to nearest.
//
// random {"random": {"dtype": T, "seed": S, "min": A, "max": B}}
//   One draw of splitmix64 per element, in element order, from the state `seed`:
//       state += 0x9e3779b97f4a7c15;
//       z = state;
//       z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
//       z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
//       x = z ^ (z >> 31);
//   (seed 0 gives 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, ...).
//   Integer dtypes: uniform on [min, max], both inclusive. With range = max - min + 1 computed in
//     uint64_t on the two's-complement bit patterns (for signed types too), the element is
//     min + (x % range) modulo 2^64, truncated to the width of T; a range of 2^64 (which wraps to
//     0) uses x itself. Plain modulo is biased by at most range / 2^64 relative, which is below
//     2^-32 for every range of a type of 32 bits or less: unbiased enough for test data.
//     min and max must be integers representable in T with min <= max (in T's signedness).
//     Defaults: T's full range.
//   Float dtypes: u = (x >> 11) * 2^-53 (in [0, 1)), then min + (max - min) * u evaluated in double
//     (no fused multiply-add; where max - min overflows, (min + h u) + h u with h = max/2 - min/2),
//     then converted to T by rounding to nearest. Defaults: min 0, max 1. Bounds must be finite
//     values of T.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace ptxray::session {

enum class DType { U8, S8, U16, S16, U32, S32, U64, S64, F32, F64 };

inline std::optional<DType> parseDType(std::string_view name) {
  if (name == "u8")
    return DType::U8;
  if (name == "s8")
    return DType::S8;
  if (name == "u16")
    return DType::U16;
  if (name == "s16")
    return DType::S16;
  if (name == "u32")
    return DType::U32;
  if (name == "s32")
    return DType::S32;
  if (name == "u64")
    return DType::U64;
  if (name == "s64")
    return DType::S64;
  if (name == "f32")
    return DType::F32;
  if (name == "f64")
    return DType::F64;
  return std::nullopt;
}

inline const char *dtypeName(DType t) {
  switch (t) {
  case DType::U8: return "u8";
  case DType::S8: return "s8";
  case DType::U16: return "u16";
  case DType::S16: return "s16";
  case DType::U32: return "u32";
  case DType::S32: return "s32";
  case DType::U64: return "u64";
  case DType::S64: return "s64";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  }
  return "?";
}

inline size_t dtypeSize(DType t) {
  switch (t) {
  case DType::U8:
  case DType::S8: return 1;
  case DType::U16:
  case DType::S16: return 2;
  case DType::U32:
  case DType::S32:
  case DType::F32: return 4;
  case DType::U64:
  case DType::S64:
  case DType::F64: return 8;
  }
  return 0;
}

/// Size in bytes of a dtype named as in the spec ("u8" ... "f64"); nullopt for an unknown name.
inline std::optional<size_t> dtypeSize(std::string_view name) {
  if (auto t = parseDType(name))
    return dtypeSize(*t);
  return std::nullopt;
}

inline bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F64;
}
inline bool isSigned(DType t) {
  return t == DType::S8 || t == DType::S16 || t == DType::S32 || t == DType::S64;
}

/// splitmix64 (Steele, Lea and Flood, 2014): the generator behind `random`.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  /// The generator about to give draw number `index` (0-based) of the sequence seeded with `seed`:
  /// the state only ever advances by the constant, so any position is reached in one step.
  static SplitMix64 at(uint64_t seed, uint64_t index) { return SplitMix64(seed + index * kGamma); }
  uint64_t next() {
    state_ += kGamma;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  static constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;
  uint64_t state_;
};

namespace detail {

/// Stores the low sizeof(T) bytes of `bits` (integers) at element `i`.
inline void storeIntBits(uint8_t *data, size_t i, DType t, uint64_t bits) {
  size_t w = dtypeSize(t);
  for (size_t b = 0; b < w; ++b)
    data[i * w + b] = static_cast<uint8_t>(bits >> (8 * b));
}

inline void storeFloat(uint8_t *data, size_t i, DType t, double v) {
  if (t == DType::F32) {
    float f = static_cast<float>(v);
    std::memcpy(data + i * 4, &f, 4);
  } else {
    std::memcpy(data + i * 8, &v, 8);
  }
}

inline void zeroTail(uint8_t *data, size_t bytes, DType t) {
  size_t w = dtypeSize(t);
  size_t used = bytes / w * w;
  if (bytes > used)
    std::memset(data + used, 0, bytes - used);
}

} // namespace detail

/// Smallest and largest value of an integer dtype as 64-bit two's-complement bit patterns.
inline uint64_t intMinBits(DType t) {
  if (!isSigned(t))
    return 0;
  return ~static_cast<uint64_t>(0) << (8 * dtypeSize(t) - 1); // -2^(bits-1), sign-extended
}
inline uint64_t intMaxBits(DType t) {
  size_t bits = 8 * dtypeSize(t);
  if (isSigned(t))
    return (static_cast<uint64_t>(1) << (bits - 1)) - 1;
  return bits == 64 ? std::numeric_limits<uint64_t>::max() : (static_cast<uint64_t>(1) << bits) - 1;
}

/// Number of whole elements of dtype `t` in a buffer of `bytes` bytes.
inline size_t elementCount(size_t bytes, DType t) {
  return bytes / dtypeSize(t);
}

// Every generator also has a slice form filling elements [first, last) of the buffer at `data` (and
// its zero tail when `last` is the element count): slices filled independently, in any order or in
// parallel, give exactly the bytes of one whole-buffer fill.

/// `iota` on elements [first, last): element i = i converted to the dtype.
inline void fillIotaSlice(uint8_t *data, size_t bytes, DType t, size_t first, size_t last) {
  size_t n = elementCount(bytes, t);
  for (size_t i = first; i < last; ++i) {
    uint64_t v = static_cast<uint64_t>(i);
    switch (t) {
    case DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(data + i * 4, &f, 4);
      break;
    }
    case DType::F64: {
      double d = static_cast<double>(v);
      std::memcpy(data + i * 8, &d, 8);
      break;
    }
    default: detail::storeIntBits(data, i, t, v);
    }
  }
  if (last == n)
    detail::zeroTail(data, bytes, t);
}

/// `iota`: element i = i converted to the dtype.
inline void fillIota(uint8_t *data, size_t bytes, DType t) {
  fillIotaSlice(data, bytes, t, 0, elementCount(bytes, t));
}

/// Checks integer bounds (as 64-bit two's-complement patterns) against the dtype; empty if fine.
inline std::string checkIntBounds(DType t, uint64_t minBits, uint64_t maxBits) {
  if (isFloat(t))
    return "integer bounds given for a float dtype";
  if (isSigned(t)) {
    auto lo = static_cast<int64_t>(minBits), hi = static_cast<int64_t>(maxBits);
    auto tlo = static_cast<int64_t>(intMinBits(t)), thi = static_cast<int64_t>(intMaxBits(t));
    if (lo < tlo || hi > thi)
      return std::string("random bounds out of range for ") + dtypeName(t);
    if (lo > hi)
      return "random min is greater than max";
  } else {
    if (maxBits > intMaxBits(t))
      return std::string("random bounds out of range for ") + dtypeName(t);
    if (minBits > maxBits)
      return "random min is greater than max";
  }
  return {};
}

/// `random` for integer dtypes: uniform on [min, max] (bit patterns of the 64-bit two's-complement
/// values; see the header comment). Returns an error message, empty on success.
inline std::string fillRandomIntSlice(uint8_t *data, size_t bytes, DType t, uint64_t seed, uint64_t minBits,
                                      uint64_t maxBits, size_t first, size_t last) {
  std::string err = checkIntBounds(t, minBits, maxBits);
  if (!err.empty())
    return err;
  uint64_t range = maxBits - minBits + 1; // 0 means all 2^64 values
  SplitMix64 rng = SplitMix64::at(seed, first);
  for (size_t i = first; i < last; ++i) {
    uint64_t x = rng.next();
    uint64_t v = range == 0 ? x : minBits + x % range;
    detail::storeIntBits(data, i, t, v);
  }
  if (last == elementCount(bytes, t))
    detail::zeroTail(data, bytes, t);
  return {};
}
inline std::string fillRandomInt(uint8_t *data, size_t bytes, DType t, uint64_t seed, uint64_t minBits,
                                 uint64_t maxBits) {
  return fillRandomIntSlice(data, bytes, t, seed, minBits, maxBits, 0, elementCount(bytes, t));
}

/// The unit-interval value of one draw: (x >> 11) * 2^-53, in [0, 1).
inline double unitDouble(uint64_t x) {
  return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
}

/// `random` for float dtypes: min + (max - min) * u in double, then converted to the dtype.
/// Returns an error message, empty on success.
inline std::string fillRandomFloatSlice(uint8_t *data, size_t bytes, DType t, uint64_t seed, double min, double max,
                                        size_t first, size_t last) {
  if (!isFloat(t))
    return "float bounds given for an integer dtype";
  if (!(min <= max))
    return "random min is greater than max";
  // Bounds the dtype cannot hold would make every value infinite.
  const double largest =
      t == DType::F32 ? static_cast<double>(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
  if (!(min >= -largest && max <= largest))
    return fmt::format("random bounds must be finite {} values (at most {:g} in magnitude)",
                       t == DType::F32 ? "f32" : "f64", largest);
  SplitMix64 rng = SplitMix64::at(seed, first);
  const double span = max - min;
  // Bounds of opposite signs near the largest double: max - min overflows. Half the span does not,
  // and min + half u + half u stays within [min, max].
  const bool halves = !std::isfinite(span);
  const double half = max * 0.5 - min * 0.5;
  for (size_t i = first; i < last; ++i) {
    double u = unitDouble(rng.next());
    // Two separate roundings, never one fused multiply-add, whatever the compiler's contraction
    // setting: the volatile store forces the product to be rounded to double.
    if (halves) {
      volatile double part = half * u;
      volatile double once = min + part;
      detail::storeFloat(data, i, t, once + part);
      continue;
    }
    volatile double keep = span * u;
    detail::storeFloat(data, i, t, min + keep);
  }
  if (last == elementCount(bytes, t))
    detail::zeroTail(data, bytes, t);
  return {};
}
inline std::string fillRandomFloat(uint8_t *data, size_t bytes, DType t, uint64_t seed, double min, double max) {
  return fillRandomFloatSlice(data, bytes, t, seed, min, max, 0, elementCount(bytes, t));
}

/// Default bounds of `random` when the spec gives none: the full range of an integer dtype.
inline uint64_t defaultRandomMinBits(DType t) {
  return intMinBits(t);
}
inline uint64_t defaultRandomMaxBits(DType t) {
  return intMaxBits(t);
}

} // namespace ptxray::session
