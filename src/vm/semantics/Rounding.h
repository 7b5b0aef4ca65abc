// Rounding modifiers of PTX floating-point and conversion instructions.
#pragma once

#include <cstdint>

namespace ptxray::vm::sem {

// Floating-point rounding (.rn .rz .rm .rp, and .rna which only cvt accepts) and the integer-rounding
// flavours of cvt (.rni .rzi .rmi .rpi). An integer rounding is the matching float rounding with
// kIntegerRoundingFlag set, so `base(r)` gives the direction and `isInteger(r)` says "round to an
// integral value".
enum class Rounding : uint8_t {
  Rn = 0,  // to nearest, ties to even
  Rz = 1,  // toward zero
  Rm = 2,  // toward -inf
  Rp = 3,  // toward +inf
  Rna = 4, // to nearest, ties away from zero (cvt only)
  Rni = 0x10 | Rn,
  Rzi = 0x10 | Rz,
  Rmi = 0x10 | Rm,
  Rpi = 0x10 | Rp,
};

inline constexpr uint8_t kIntegerRoundingFlag = 0x10;

constexpr bool isInteger(Rounding r) {
  return (static_cast<uint8_t>(r) & kIntegerRoundingFlag) != 0;
}
constexpr Rounding base(Rounding r) {
  return static_cast<Rounding>(static_cast<uint8_t>(r) & static_cast<uint8_t>(~kIntegerRoundingFlag));
}
constexpr Rounding toInteger(Rounding r) {
  return static_cast<Rounding>(static_cast<uint8_t>(base(r)) | kIntegerRoundingFlag);
}

} // namespace ptxray::vm::sem
