// Data layout (ptx-interoperability.md §1): size and alignment of every type, and for structs and unions
// the position of every member, bit fields included (§1.3), and the padding holes.
//
// Bit offsets count from the least significant bit of the aggregate's first byte (little endian, §1.3):
// bit b lives in byte b/8 at bit b%8. An ordinary member at byte offset o has bit offset o*8 and bit width
// size*8.
#pragma once

#include "abi/CType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxray::abi {

struct MemberLayout {
  std::string name; ///< empty for unnamed bit fields and anonymous struct/union members
  TypeRef type;
  std::uint64_t byteOffset = 0; ///< from the start of the outermost aggregate (bitOffset / 8)
  std::uint64_t bitOffset = 0;  ///< from the start of the outermost aggregate
  std::uint64_t bitWidth = 0;   ///< field width for bit fields, size*8 otherwise
  bool isBitField = false;
  std::uint64_t size = 0;            ///< size of the declared type in bytes
  unsigned align = 1;                ///< alignment the member was placed with (1 for unnamed bit fields)
  std::vector<MemberLayout> members; ///< for struct/union-typed members: their members, same origin
};

/// Bits of an aggregate that no member occupies. `tail` marks the padding after the last member.
struct Hole {
  std::uint64_t bitOffset = 0;
  std::uint64_t bitCount = 0;
  bool tail = false;
  bool byteAligned() const { return bitOffset % 8 == 0 && bitCount % 8 == 0; }
};

struct Layout {
  TypeRef type;
  std::uint64_t size = 0;
  unsigned align = 1;
  std::vector<MemberLayout> members; ///< declaration order; empty for non-aggregates
  std::vector<Hole> holes;           ///< ascending, including holes inside nested aggregates
};

/// Lays out `type` for `.address_size` 32 or 64. Throws AbiError for what has no layout (void, long
/// double, a bit field wider than its type or of a non-integral type, a named zero-width bit field...).
Layout layoutOf(const TypeRef &type, unsigned addressSize = 64);
std::uint64_t sizeOf(const TypeRef &type, unsigned addressSize = 64);
unsigned alignOf(const TypeRef &type, unsigned addressSize = 64);

} // namespace ptxray::abi
