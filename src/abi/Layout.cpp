#include "abi/Layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <utility>

// Layout runs in two passes so that its work grows with the input and the result, never faster:
//
//  1. Placer computes, for every distinct struct/union reachable from the type, its size, alignment and
//     the offset of each field relative to the record itself, once: later uses of the same record (the
//     member of a member, an array element, a struct used by many others, and with a shared LayoutCache
//     the other types of the same header) find it in a table.
//  2. buildMembers writes the member tree top-down, each entry once, at its final offset from the start
//     of the outermost aggregate.
//
// Placing nested members relative to their own struct and then shifting the whole subtree at every
// enclosing level made one layout quadratic in the nesting depth, and laying out every type of a header
// (as `ptxray abi layout` does) cubic; placing arrays' elements again for each use made shared structs
// exponential.

namespace ptxray::abi {
namespace {

std::uint64_t roundUp(std::uint64_t value, std::uint64_t to) {
  return to == 0 ? value : (value + to - 1) / to * to;
}

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

[[noreturn]] void tooLarge(const Type &type) {
  static_assert(kMaxTypeSize == std::uint64_t{1} << 60, "the message names the limit");
  throw AbiError(fmt::format("'{}' is larger than 2^60 bytes, the largest size that can be laid out", typeName(type)));
}

struct RecordPlacement;

// Where one field of a record goes, relative to the start of that record.
struct FieldPlacement {
  std::uint64_t bitOffset = 0;
  std::uint64_t size = 0;                  // declared type's size (bit fields: their storage unit)
  unsigned align = 1;                      // alignment the member was placed with
  const RecordPlacement *record = nullptr; // the field's own placement when its type is a struct/union
};

struct RecordPlacement {
  TypeRef type; // keeps the record alive, so that its address (the table's key) cannot be reused
  std::uint64_t size = 0;
  unsigned align = 1;
  unsigned height = 1;                // levels of struct/union nesting, this record included
  std::uint64_t memberCount = 0;      // entries of its member tree (nested members included), saturated
  std::vector<FieldPlacement> fields; // parallel to Type::fields
};

} // namespace

struct LayoutCache::Tables {
  // Per address size (32, 64). Keyed by address; elements of an unordered_map keep theirs, so
  // FieldPlacement::record stays valid as the table grows.
  std::unordered_map<const Type *, RecordPlacement> records[2];
};

LayoutCache::LayoutCache() : tables_(std::make_unique<Tables>()) {}
LayoutCache::~LayoutCache() = default;

struct LayoutCacheAccess {
  static std::unordered_map<const Type *, RecordPlacement> &records(LayoutCache &cache, unsigned addressSize) {
    return cache.tables_->records[addressSize == 64 ? 1 : 0];
  }
  static LayoutStats &stats(LayoutCache &cache) { return cache.stats_; }
};

namespace {

class Placer {
public:
  Placer(const Type &root, unsigned addressSize, LayoutCache &cache)
      : root_(root), addressSize_(addressSize), stats_(LayoutCacheAccess::stats(cache)),
        records_(LayoutCacheAccess::records(cache, addressSize)) {}

  // Size and alignment of `typeRef`, found `depth` levels of struct/union nesting below the root.
  SizeAndAlign place(const TypeRef &typeRef, unsigned depth) {
    const Type &type = *typeRef;
    SizeAndAlign out;
    switch (type.kind) {
    case TypeKind::Void: throw AbiError("void has no size");
    case TypeKind::Scalar:
    case TypeKind::Enum: out.size = out.align = scalarSize(type.scalar, addressSize_); break;
    case TypeKind::Pointer: out.size = out.align = addressSize_ / 8; break;
    case TypeKind::Opaque: out.size = out.align = 8; break; // a .b64 handle (§1.4)
    case TypeKind::Array: out = placeArray(typeRef, depth); break;
    case TypeKind::Vector: out = placeVector(type); break;
    case TypeKind::Record: {
      const RecordPlacement &r = record(typeRef, depth);
      out.size = r.size;
      out.align = r.align;
      break;
    }
    }
    if (type.alignOverride > out.align) {
      out.align = type.alignOverride;
      if (type.kind == TypeKind::Record)
        out.size = roundUp(out.size, out.align);
    }
    return out;
  }

  // The placement of a struct/union, computed on first use and shared by every later one.
  const RecordPlacement &record(const TypeRef &typeRef, unsigned depth) {
    const Type &type = *typeRef;
    if (auto it = records_.find(&type); it != records_.end()) {
      if (depth - 1 + it->second.height > kMaxNestingDepth)
        tooDeep();
      return it->second;
    }
    // Checked on the way down, before recursing further: a chain of structs (or a cycle built through
    // the API) must end in an error, not in a stack overflow.
    if (depth > kMaxNestingDepth)
      tooDeep();
    if (type.incomplete)
      throw AbiError(fmt::format("'{}' is incomplete (declared but never defined)", typeName(type)));
    RecordPlacement r = placeRecord(type, depth);
    r.type = typeRef;
    ++stats_.recordsPlaced;
    stats_.fieldsPlaced += type.fields.size();
    return records_.emplace(&type, std::move(r)).first->second;
  }

private:
  [[noreturn]] void tooDeep() const {
    throw AbiError(fmt::format("'{}' nests structs and unions more than {} levels deep, the most that can be laid out",
                               typeName(root_), kMaxNestingDepth));
  }

  // `int x[1][1]...[1]` is as deep as the input is long, so array levels are walked in a loop.
  SizeAndAlign placeArray(const TypeRef &type, unsigned depth) {
    std::vector<const Type *> levels; // outermost first
    const TypeRef *element = &type;
    while ((*element)->kind == TypeKind::Array) {
      levels.push_back(element->get());
      element = &(*element)->element;
    }
    SizeAndAlign out = place(*element, depth);
    for (auto level = levels.rbegin(); level != levels.rend(); ++level) {
      const Type &array = **level;
      if (array.count != 0 && out.size > kMaxTypeSize / array.count)
        tooLarge(array);
      out.size *= array.count;
      out.align = std::max(out.align, array.alignOverride);
    }
    return out;
  }

  SizeAndAlign placeVector(const Type &type) const {
    unsigned element = scalarSize(type.scalar, addressSize_);
    // CUDA has 1-4 elements of every scalar (the 3/4-element 64-bit ones are not native vectors, §1.2).
    bool native = type.count >= 1 && type.count <= 4;
    bool opencl = type.count == 2 || type.count == 3 || type.count == 4 || type.count == 8 || type.count == 16;
    if (type.openclVector ? !opencl : !native)
      throw AbiError(fmt::format("no {} vector type with {} elements of '{}'", type.openclVector ? "OpenCL" : "CUDA",
                                 type.count, scalarName(type.scalar)));
    SizeAndAlign out;
    out.size = element * (type.openclVector && type.count == 3 ? 4 : type.count);
    if (type.openclVector)
      out.align = static_cast<unsigned>(out.size); // OpenCL: aligned to the vector's size (§1.2)
    else if (type.count % 2 == 1)
      out.align = element; // native vectors (§1.2): odd element counts align like the element
    else // even counts n*alignof(t); CUDA caps the 4-element 64-bit vectors (double4...) at 16 (vector_types.h)
      out.align = static_cast<unsigned>(std::min<std::uint64_t>(type.count * element, 16));
    return out;
  }

  RecordPlacement placeRecord(const Type &type, unsigned depth) {
    RecordPlacement out;
    out.fields.reserve(type.fields.size());
    std::uint64_t bit = 0;     // next free bit (struct)
    std::uint64_t maxBits = 0; // largest member (union)
    for (const Field &field : type.fields) {
      FieldPlacement f;
      if (field.isBitField()) {
        Scalar s = bitFieldScalar(field);
        unsigned unit = scalarSize(s, addressSize_);
        unsigned align = std::max(unit, field.alignOverride);
        std::uint64_t width = *field.bitWidth;
        if (width > unit * 8ull)
          throw AbiError(fmt::format("bit field {} is {} bits wide, wider than its type '{}' ({} bits, §1.3)",
                                     memberLabel(field), width, typeName(*field.type), unit * 8));
        if (s == Scalar::Bool && width > 1)
          throw AbiError(fmt::format("bit field {} of type _Bool is wider than 1 bit", memberLabel(field)));
        f.size = unit;
        ++out.memberCount;
        if (width == 0) {
          if (!field.name.empty())
            throw AbiError(fmt::format("zero-width bit field '{}' must be unnamed", field.name));
          // Forces the next member to the type's boundary; never the aggregate's alignment (§1.3).
          if (!type.isUnion)
            bit = roundUp(bit, align * 8ull);
          f.bitOffset = bit;
          f.align = 1;
          out.fields.push_back(f);
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
        f.bitOffset = start;
        f.align = field.name.empty() ? 1 : align;
        out.fields.push_back(f);
        bit = start + width;
        if (bit > kMaxTypeSize * 8)
          tooLarge(type);
        maxBits = std::max(maxBits, width);
        continue;
      }
      SizeAndAlign inner = place(field.type, depth + 1);
      if (field.type->kind == TypeKind::Record) {
        f.record = &records_.at(field.type.get());
        out.height = std::max(out.height, f.record->height + 1);
        out.memberCount += f.record->memberCount;
      } else if (const RecordPlacement *element = arrayElementRecord(*field.type)) {
        out.height = std::max(out.height, element->height + 1); // arrays are not expanded into members
      }
      out.memberCount = std::min(out.memberCount + 1, kMaxLayoutMembers + 1);
      unsigned align = std::max(inner.align, field.alignOverride);
      std::uint64_t offset = type.isUnion ? 0 : roundUp((bit + 7) / 8, align);
      if (offset + inner.size > kMaxTypeSize)
        tooLarge(type);
      out.align = std::max(out.align, align);
      f.bitOffset = offset * 8;
      f.size = inner.size;
      f.align = align;
      out.fields.push_back(f);
      bit = (offset + inner.size) * 8;
      maxBits = std::max(maxBits, inner.size * 8);
    }
    out.align = std::max(out.align, type.alignOverride);
    std::uint64_t bytes = type.isUnion ? (maxBits + 7) / 8 : (bit + 7) / 8;
    out.size = roundUp(bytes, out.align); // tail padding (§1.2)
    if (out.size > kMaxTypeSize)
      tooLarge(type);
    return out;
  }

  // The placement of the struct/union an array (of arrays...) holds, if any; it was placed just before.
  const RecordPlacement *arrayElementRecord(const Type &type) const {
    const Type *t = &type;
    while (t->kind == TypeKind::Array)
      t = t->element.get();
    if (t->kind != TypeKind::Record)
      return nullptr;
    auto it = records_.find(t);
    return it == records_.end() ? nullptr : &it->second;
  }

  const Type &root_;
  unsigned addressSize_;
  LayoutStats &stats_;
  std::unordered_map<const Type *, RecordPlacement> &records_;
};

// Writes the members of a record placed at `baseBit` of the outermost aggregate, nested members included.
// Recursion is as deep as the struct nesting, which Placer has bounded by kMaxNestingDepth.
void buildMembers(const Type &type, const RecordPlacement &placement, std::uint64_t baseBit,
                  std::vector<MemberLayout> &out, LayoutStats &stats) {
  out.reserve(type.fields.size());
  for (std::size_t i = 0; i < type.fields.size(); ++i) {
    const Field &field = type.fields[i];
    const FieldPlacement &f = placement.fields[i];
    MemberLayout m;
    m.name = field.name;
    m.type = field.type;
    m.bitOffset = baseBit + f.bitOffset;
    m.byteOffset = m.bitOffset / 8;
    m.size = f.size;
    m.align = f.align;
    if (field.isBitField()) {
      m.bitWidth = *field.bitWidth;
      m.isBitField = true;
    } else {
      m.bitWidth = f.size * 8;
      if (f.record != nullptr)
        buildMembers(*field.type, *f.record, m.bitOffset, m.members, stats);
    }
    out.push_back(std::move(m));
    ++stats.membersBuilt;
  }
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

void checkAddressSize(unsigned addressSize) {
  if (addressSize != 32 && addressSize != 64)
    throw AbiError(fmt::format("address size must be 32 or 64, not {}", addressSize));
}

} // namespace

Layout layoutOf(const TypeRef &type, unsigned addressSize, LayoutCache &cache) {
  checkAddressSize(addressSize);
  Placer placer(*type, addressSize, cache);
  SizeAndAlign placed = placer.place(type, 1);
  Layout out;
  out.type = type;
  out.size = placed.size;
  out.align = placed.align;
  if (type->kind == TypeKind::Record) {
    const RecordPlacement &record = placer.record(type, 1);
    if (record.memberCount > kMaxLayoutMembers)
      throw AbiError(fmt::format("'{}' has more than {} members counting those of nested structs and unions, the "
                                 "most that can be listed",
                                 typeName(*type), kMaxLayoutMembers));
    buildMembers(*type, record, 0, out.members, LayoutCacheAccess::stats(cache));
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

Layout layoutOf(const TypeRef &type, unsigned addressSize) {
  LayoutCache cache;
  return layoutOf(type, addressSize, cache);
}

SizeAndAlign sizeAndAlignOf(const TypeRef &type, unsigned addressSize, LayoutCache &cache) {
  checkAddressSize(addressSize);
  Placer placer(*type, addressSize, cache);
  return placer.place(type, 1);
}

SizeAndAlign sizeAndAlignOf(const TypeRef &type, unsigned addressSize) {
  LayoutCache cache;
  return sizeAndAlignOf(type, addressSize, cache);
}

std::uint64_t sizeOf(const TypeRef &type, unsigned addressSize) {
  return sizeAndAlignOf(type, addressSize).size;
}
unsigned alignOf(const TypeRef &type, unsigned addressSize) {
  return sizeAndAlignOf(type, addressSize).align;
}

} // namespace ptxray::abi
