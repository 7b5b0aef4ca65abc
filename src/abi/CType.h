// The C type model the ABI works on (ptx-interoperability.md §1): fundamental types, pointers with an
// optional address space, arrays, CUDA/OpenCL vector types, structs and unions with bit fields, enums,
// alignment overrides and the opaque texture/sampler/surface handles of §1.4.
//
// Sizes that the guide leaves to the host (long, pointers) follow the address size: ILP32 for 32-bit,
// LP64 for 64-bit (the Linux hosts nvcc targets). `long double` has no PTX representation (§1.1 lists no
// floating type wider than 64 bits): it can be modeled and printed, but laying it out or passing it is
// an error.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxray::abi {

/// Any ABI rule violation or unsupported construct found while laying out or passing a type.
class AbiError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class Scalar {
  Bool,
  Char, ///< plain char: signed, as on x86-64 (and as §1.3 treats plain bit fields)
  SChar,
  UChar,
  Short,
  UShort,
  Int,
  UInt,
  Long,
  ULong,
  LongLong,
  ULongLong,
  Half, ///< __half / OpenCL half: .f16, storage only (§2.3 note C)
  Float,
  Double,
  LongDouble, ///< no PTX type
};

enum class TypeKind { Void, Scalar, Pointer, Array, Vector, Record, Enum, Opaque };
enum class OpaqueKind { Texture, Sampler, Surface };
/// Address space named in a pointer declaration (OpenCL __global..., or none: generic, §2.3 note B).
enum class AddressSpace { Generic, Global, Shared, Const, Local };

struct Type;
using TypeRef = std::shared_ptr<const Type>;

struct Field {
  std::string name;                 ///< empty: unnamed bit field or anonymous struct/union member
  TypeRef type;                     ///< declared type (for a bit field: its declared integral type)
  std::optional<unsigned> bitWidth; ///< set for bit fields (0 allowed only unnamed)
  unsigned alignOverride = 0;       ///< aligned(N)/alignas(N) on the member; 0 = none
  bool isBitField() const { return bitWidth.has_value(); }
};

struct Type {
  TypeKind kind = TypeKind::Void;
  Scalar scalar = Scalar::Int;                ///< Scalar, Vector element, Enum underlying type
  TypeRef element;                            ///< Pointer pointee, Array element
  std::uint64_t count = 0;                    ///< Array length, Vector element count
  AddressSpace space = AddressSpace::Generic; ///< Pointer
  bool isUnion = false;                       ///< Record
  bool incomplete = false;                    ///< Record: declared (struct S;) but not defined
  bool openclVector = false;                  ///< Vector: OpenCL built-in (aligned to its size, 3 counts as 4)
  OpaqueKind opaque = OpaqueKind::Texture;
  std::string tag;            ///< struct/union/enum tag, empty when anonymous
  std::string typedefName;    ///< set when this type was reached through a typedef
  std::string spelling;       ///< the source name of builtin vector/opaque types ("float4")
  std::vector<Field> fields;  ///< Record
  unsigned alignOverride = 0; ///< aligned(N) on the type or typedef; 0 = none

  Type() = default;
  Type(const Type &) = default;
  Type(Type &&) = default;
  Type &operator=(const Type &) = default;
  Type &operator=(Type &&) = default;
  /// Releases the types only this one refers to without one nested destructor call per link: chains
  /// such as `int ***...`, `int x[1][1]...` or structs holding structs are as long as the input. It
  /// takes the links of types it holds the last reference to, so a Type must be created non-const
  /// (make_shared<Type>, as every constructor here does), even though it is shared as `const`.
  ~Type();
};

// Constructors.
TypeRef voidType();
TypeRef scalarType(Scalar s);
TypeRef pointerTo(TypeRef pointee, AddressSpace space = AddressSpace::Generic);
TypeRef arrayOf(TypeRef element, std::uint64_t count);
/// A CUDA (openclVector = false) or OpenCL built-in vector of `count` elements.
TypeRef vectorOf(Scalar element, unsigned count, bool openclVector = false, std::string spelling = {});
TypeRef recordType(bool isUnion, std::string tag, std::vector<Field> fields, unsigned alignOverride = 0);
TypeRef enumType(std::string tag);
TypeRef opaqueType(OpaqueKind kind, std::string spelling = {});
/// A copy of `type` known under a typedef name, optionally with a stricter alignment.
TypeRef typedefOf(const TypeRef &type, std::string name, unsigned alignOverride = 0);
TypeRef withAlignment(const TypeRef &type, unsigned alignOverride);

// Scalar facts.
bool isIntegral(Scalar s); ///< every scalar except the floating ones
bool isSigned(Scalar s);   ///< plain char counts as signed
bool isFloating(Scalar s);
/// Size in bytes for the given address size (32 or 64); throws AbiError for LongDouble.
unsigned scalarSize(Scalar s, unsigned addressSize);
std::string scalarName(Scalar s); ///< "unsigned long long", "_Bool", "__half"...
/// The PTX fundamental type of §1.1 with this size/signedness (".s32", ".u8", ".f64"...).
std::string ptxScalarType(Scalar s, unsigned addressSize);

/// C spelling of a type: "struct S", "int *", "float4", "int[3]", "union <anonymous>".
std::string typeName(const Type &type);
inline std::string typeName(const TypeRef &type) {
  return typeName(*type);
}

const char *addressSpaceName(AddressSpace space); ///< "generic", "global", ...
const char *opaqueName(OpaqueKind kind);          ///< ".texref", ".samplerref", ".surfref"

} // namespace ptxray::abi
