// Host conversions the tests use as references, written to be correct in every rounding direction
// whichever compiler builds them.
#pragma once

#include <cstdint>

namespace ptxray::test {

/// An unsigned 64-bit integer as a float type in the current rounding direction, through the signed
/// conversion the CPU rounds correctly in every direction: a value of 2^63 or more halved with its
/// lost bit kept as a sticky bit (still correctly rounded: the target has fewer than 63 bits), then
/// doubled exactly. (clang's own unsigned conversion gives -0.0 for 0 when rounding down.)
template <class T> T fromUnsigned(uint64_t u) {
  if (u >> 63 == 0) {
    volatile int64_t s = static_cast<int64_t>(u);
    return static_cast<T>(s);
  }
  volatile int64_t half = static_cast<int64_t>((u >> 1) | (u & 1));
  return static_cast<T>(half) * T(2);
}

} // namespace ptxray::test
