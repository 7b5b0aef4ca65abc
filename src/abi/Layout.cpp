#include "abi/Layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace ptxray::abi {
namespace {

std::uint64_t roundUp(std::uint64_t value, std::uint64_t to) {
  return to == 0 ? value : (value + to - 1) / to * to;
}

struct Placed {
  std::uint64_t size = 0;
  unsigned align = 1;
  std::vector<MemberLayout> members; // offsets relative to this aggregate
};

Placed place(const TypeRef &type, unsigned addressSize);

std::string memberLabel(const Field &field) {
  return field.name.empty() ? "<unnamed>" : "'" + field.name + "'";
}

// A bit field's declared type: an integral scalar or an enum (whose type is int).
Scalar bitFieldScalar(const Field &field) {
  const Type &t = *field.type;
  if (t.kind == TypeKind::Enum)
    return t.scalar;
  if (t.kind != TypeKind::Scalar || !isIntegral(t.scalar))
    throw AbiError(fmt::format("bit field {} has non-integral type '{}' (§1.3 allows only integral types)",
                               memberLabel(field), typeName(t)));
  return t.scalar;
}

MemberLayout bitFieldMember(const Field &field, std::uint64_t bitOffset, unsigned unitSize, unsigned align) {
  MemberLayout m;
  m.name = field.name;
  m.type = field.type;
  m.bitOffset = bitOffset;
  m.byteOffset = bitOffset / 8;
  m.bitWidth = *field.bitWidth;
  m.isBitField = true;
  m.size = unitSize;
  m.align = align;
  return m;
}

MemberLayout ordinaryMember(const Field &field, std::uint64_t byteOffset, Placed inner) {
  MemberLayout m;
  m.name = field.name;
  m.type = field.type;
  m.byteOffset = byteOffset;
  m.bitOffset = byteOffset * 8;
  m.size = inner.size;
  m.bitWidth = inner.size * 8;
  m.align = inner.align;
  m.members = std::move(inner.members);
  return m;
}

void shift(std::vector<MemberLayout> &members, std::uint64_t bits) {
  for (MemberLayout &m : members) {
    m.bitOffset += bits;
    m.byteOffset = m.bitOffset / 8;
    shift(m.members, bits);
  }
}

Placed placeRecord(const Type &type, unsigned addressSize) {
  Placed out;
  std::uint64_t bit = 0;     // next free bit (struct)
  std::uint64_t maxBits = 0; // largest member (union)
  for (const Field &field : type.fields) {
    if (field.isBitField()) {
      Scalar s = bitFieldScalar(field);
      unsigned unit = scalarSize(s, addressSize);
      unsigned align = std::max(unit, field.alignOverride);
      std::uint64_t width = *field.bitWidth;
      if (width > unit * 8ull)
        throw AbiError(fmt::format("bit field {} is {} bits wide, wider than its type '{}' ({} bits, §1.3)",
                                   memberLabel(field), width, typeName(*field.type), unit * 8));
      if (s == Scalar::Bool && width > 1)
        throw AbiError(fmt::format("bit field {} of type _Bool is wider than 1 bit", memberLabel(field)));
      if (width == 0) {
        if (!field.name.empty())
          throw AbiError(fmt::format("zero-width bit field '{}' must be unnamed", field.name));
        // Forces the next member to the type's boundary; never the aggregate's alignment (§1.3).
        if (!type.isUnion)
          bit = roundUp(bit, align * 8ull);
        out.members.push_back(bitFieldMember(field, bit, unit, 1));
        continue;
      }
      std::uint64_t start = type.isUnion ? 0 : bit;
      // Never cross a storage unit of the declared type (§1.3): move to the next unit when it would.
      if (start / (unit * 8ull) != (start + width - 1) / (unit * 8ull))
        start = roundUp(start, align * 8ull);
      if (field.alignOverride != 0)
        start = roundUp(start, field.alignOverride * 8ull);
      // Unnamed bit fields do not affect the alignment of the aggregate (§1.3).
      if (!field.name.empty())
        out.align = std::max(out.align, align);
      out.members.push_back(bitFieldMember(field, start, unit, field.name.empty() ? 1 : align));
      bit = start + width;
      maxBits = std::max(maxBits, width);
      continue;
    }
    Placed inner = place(field.type, addressSize);
    unsigned align = std::max(inner.align, field.alignOverride);
    inner.align = align;
    std::uint64_t offset = type.isUnion ? 0 : roundUp((bit + 7) / 8, align);
    out.align = std::max(out.align, align);
    shift(inner.members, offset * 8);
    std::uint64_t size = inner.size;
    out.members.push_back(ordinaryMember(field, offset, std::move(inner)));
    bit = (offset + size) * 8;
    maxBits = std::max(maxBits, size * 8);
  }
  out.align = std::max(out.align, type.alignOverride);
  std::uint64_t bytes = type.isUnion ? (maxBits + 7) / 8 : (bit + 7) / 8;
  out.size = roundUp(bytes, out.align); // tail padding (§1.2)
  return out;
}

unsigned vectorAlign(const Type &type, unsigned elementSize, std::uint64_t size) {
  if (type.openclVector)
    return static_cast<unsigned>(size); // OpenCL: aligned to the vector's size (§1.2)
  // Native vectors (§1.2): odd element counts align like the element, even counts n*alignof(t).
  // CUDA caps the 4-element 64-bit vectors (double4, longlong4...) at 16 (vector_types.h).
  if (type.count % 2 == 1)
    return elementSize;
  return static_cast<unsigned>(std::min<std::uint64_t>(type.count * elementSize, 16));
}

Placed place(const TypeRef &typeRef, unsigned addressSize) {
  const Type &type = *typeRef;
  Placed out;
  switch (type.kind) {
  case TypeKind::Void: throw AbiError("void has no size");
  case TypeKind::Scalar:
  case TypeKind::Enum: out.size = out.align = scalarSize(type.scalar, addressSize); break;
  case TypeKind::Pointer: out.size = out.align = addressSize / 8; break;
  case TypeKind::Opaque: out.size = out.align = 8; break; // a .b64 handle (§1.4)
  case TypeKind::Array: {
    Placed element = place(type.element, addressSize);
    out.size = element.size * type.count;
    out.align = element.align;
    break;
  }
  case TypeKind::Vector: {
    unsigned element = scalarSize(type.scalar, addressSize);
    // CUDA has 1-4 elements of every scalar (the 3/4-element 64-bit ones are not native vectors, §1.2).
    bool native = type.count >= 1 && type.count <= 4;
    bool opencl = type.count == 2 || type.count == 3 || type.count == 4 || type.count == 8 || type.count == 16;
    if (type.openclVector ? !opencl : !native)
      throw AbiError(fmt::format("no {} vector type with {} elements of '{}'", type.openclVector ? "OpenCL" : "CUDA",
                                 type.count, scalarName(type.scalar)));
    out.size = element * (type.openclVector && type.count == 3 ? 4 : type.count);
    out.align = vectorAlign(type, element, out.size);
    break;
  }
  case TypeKind::Record:
    if (type.incomplete)
      throw AbiError(fmt::format("'{}' is incomplete (declared but never defined)", typeName(type)));
    out = placeRecord(type, addressSize);
    break;
  }
  if (type.alignOverride > out.align) {
    out.align = type.alignOverride;
    if (type.kind == TypeKind::Record)
      out.size = roundUp(out.size, out.align);
  }
  return out;
}

void collectRanges(const std::vector<MemberLayout> &members,
                   std::vector<std::pair<std::uint64_t, std::uint64_t>> &out) {
  for (const MemberLayout &m : members) {
    if (m.isBitField && (m.name.empty() || m.bitWidth == 0))
      continue; // unnamed bit fields are padding
    if (!m.members.empty() || (m.type->kind == TypeKind::Record && !m.isBitField))
      collectRanges(m.members, out);
    else
      out.emplace_back(m.bitOffset, m.bitOffset + m.bitWidth);
  }
}

} // namespace

Layout layoutOf(const TypeRef &type, unsigned addressSize) {
  if (addressSize != 32 && addressSize != 64)
    throw AbiError(fmt::format("address size must be 32 or 64, not {}", addressSize));
  Placed placed = place(type, addressSize);
  Layout out;
  out.type = type;
  out.size = placed.size;
  out.align = placed.align;
  out.members = std::move(placed.members);
  if (type->kind == TypeKind::Record) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    collectRanges(out.members, ranges);
    std::sort(ranges.begin(), ranges.end());
    std::uint64_t covered = 0;
    for (auto [begin, end] : ranges) {
      if (begin > covered)
        out.holes.push_back(Hole{covered, begin - covered, false});
      covered = std::max(covered, end);
    }
    if (covered < out.size * 8)
      out.holes.push_back(Hole{covered, out.size * 8 - covered, true});
  }
  return out;
}

std::uint64_t sizeOf(const TypeRef &type, unsigned addressSize) {
  return layoutOf(type, addressSize).size;
}
unsigned alignOf(const TypeRef &type, unsigned addressSize) {
  return layoutOf(type, addressSize).align;
}

} // namespace ptxray::abi
