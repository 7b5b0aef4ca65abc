// The tests' independent f16 reference, kept apart from src/vm/semantics: the compiler's _Float16
// where it has one (g++ 12, clang 15 and later), else the CPU's F16C conversions (clang 14 on x86-64,
// the sanitizer build), which take the rounding direction as an operand. Both round correctly in
// every direction. (F16C: every x86-64 CPU since 2012-2013, this workplace's included.)
#pragma once

#include <bit>
#include <cfenv>
#include <cstdint>

#if !defined(__FLT16_MANT_DIG__)
#include <immintrin.h>
#endif

namespace ptxray::test {

#if defined(__FLT16_MANT_DIG__)
inline float halfToFloat(uint16_t h) {
  return static_cast<float>(std::bit_cast<_Float16>(h));
}
/// float -> f16 bits, rounded in the host rounding direction `mode` (FE_TONEAREST, FE_DOWNWARD...).
inline uint16_t floatToHalf(float x, int mode = FE_TONEAREST) {
  volatile float v = x;
  std::fesetround(mode);
  volatile _Float16 h = static_cast<_Float16>(v);
  std::fesetround(FE_TONEAREST);
  return std::bit_cast<uint16_t>(static_cast<_Float16>(h));
}
#else
__attribute__((target("f16c"))) inline float halfToFloat(uint16_t h) {
  return _cvtsh_ss(h);
}
__attribute__((target("f16c"))) inline uint16_t floatToHalf(float x, int mode = FE_TONEAREST) {
  switch (mode) {
  case FE_DOWNWARD: return _cvtss_sh(x, _MM_FROUND_TO_NEG_INF);
  case FE_UPWARD: return _cvtss_sh(x, _MM_FROUND_TO_POS_INF);
  case FE_TOWARDZERO: return _cvtss_sh(x, _MM_FROUND_TO_ZERO);
  default: return _cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT);
  }
}
#endif

} // namespace ptxray::test
