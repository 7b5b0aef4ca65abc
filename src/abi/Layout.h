// Data layout (ptx-interoperability.md §1): size and alignment of every type, and for structs and unions
// the position of every member, bit fields included (§1.3), and the padding holes.
//
// Bit offsets count from the least significant bit of the aggregate's first byte (little endian, §1.3):
// bit b lives in byte b/8 at bit b%8. An ordinary member at byte offset o has bit offset o*8 and bit width
// size*8.
#pragma once

#include "abi/CType.h"

#include <cstdint>
#include <memory>
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

/// Deepest struct/union nesting that is laid out (a member of a member of ... ; arrays do not add a
/// level). Deeper types are an AbiError (and the C declaration parser refuses to define them): the
/// member tree is as deep as the nesting, and whoever walks it recursively (the printers, the destructor
/// of MemberLayout) would otherwise run out of stack. 1024 keeps the deepest walk within 1 MiB of the
/// default 8 MiB stack even in sanitizer builds (about 4x the frames of a release build); C itself
/// only promises 63 levels (C11 §5.2.4.1).
inline constexpr unsigned kMaxNestingDepth = 1024;
/// Most entries a member tree may hold, nested members included. Each nested struct is listed in full
/// wherever it appears, so a struct holding two of the previous one, 30 times over, would need billions;
/// this turns that into an AbiError instead of exhausting memory.
inline constexpr std::uint64_t kMaxLayoutMembers = std::uint64_t{1} << 22;
/// Largest size a type may have, in bytes: bit offsets (size * 8) must fit in 64 bits with room to spare.
inline constexpr std::uint64_t kMaxTypeSize = std::uint64_t{1} << 60;

/// The work done through a LayoutCache, so that tests can check it grows with the input and not faster.
struct LayoutStats {
  std::uint64_t recordsPlaced = 0; ///< structs/unions whose members were placed (each distinct one once)
  std::uint64_t fieldsPlaced = 0;  ///< their fields, each placed once however often the struct is used
  std::uint64_t membersBuilt = 0;  ///< MemberLayout entries written into results, each written once
};

/// Remembers the placement (size, alignment, field offsets) of every struct/union laid out through it,
/// per address size, so that laying out all the types of a header with one cache places each record
/// once in all, instead of once for every type that contains it. It holds a reference to every record
/// it has placed; like any TypeRef holder it relies on types not changing once created.
class LayoutCache {
public:
  LayoutCache();
  ~LayoutCache();
  LayoutCache(const LayoutCache &) = delete;
  LayoutCache &operator=(const LayoutCache &) = delete;

  /// Totals over every call made with this cache.
  const LayoutStats &stats() const { return stats_; }

private:
  friend struct LayoutCacheAccess; // the layout code
  struct Tables;
  std::unique_ptr<Tables> tables_;
  LayoutStats stats_;
};

/// Lays out `type` for `.address_size` 32 or 64. Throws AbiError for what has no layout (void, long
/// double, a bit field wider than its type or of a non-integral type, a named zero-width bit field...)
/// and for types beyond the limits above. Each distinct struct/union is placed once (once per cache when
/// one is given) and the member tree is built in one pass: the work is the size of the declarations
/// plus the size of the returned tree.
Layout layoutOf(const TypeRef &type, unsigned addressSize = 64);
Layout layoutOf(const TypeRef &type, unsigned addressSize, LayoutCache &cache);

struct SizeAndAlign {
  std::uint64_t size = 0;
  unsigned align = 1;
};
/// What layoutOf reports as size and align (and the same errors, except kMaxLayoutMembers), without
/// building the member tree: linear in the size of the declarations even where the tree is not.
SizeAndAlign sizeAndAlignOf(const TypeRef &type, unsigned addressSize = 64);
SizeAndAlign sizeAndAlignOf(const TypeRef &type, unsigned addressSize, LayoutCache &cache);
std::uint64_t sizeOf(const TypeRef &type, unsigned addressSize = 64);
unsigned alignOf(const TypeRef &type, unsigned addressSize = 64);

} // namespace ptxray::abi
