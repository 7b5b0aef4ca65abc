#include "abi/CType.h"

#include <fmt/format.h>

namespace ptxray::abi {

Type::~Type() {
  // Children whose last reference is held here are moved to a worklist and released one at a time,
  // after their own children have been moved out, so destruction never nests more than one level.
  std::vector<TypeRef> dying;
  auto detach = [&dying](TypeRef &child) {
    if (child == nullptr || child.use_count() != 1)
      return; // shared: someone else keeps it alive
    try {
      dying.push_back(std::move(child));
    } catch (...) {
      // No memory for the worklist: push_back left `child` alone; it is released recursively as before.
    }
  };
  detach(element);
  for (Field &field : fields)
    detach(field.type);
  while (!dying.empty()) {
    TypeRef type = std::move(dying.back());
    dying.pop_back();
    // `type` is the only reference left, so nothing can observe the type while its links are taken.
    // Types are created non-const (make_shared<Type>) and only referred to through TypeRef's const.
    Type &last = const_cast<Type &>(*type);
    detach(last.element);
    for (Field &field : last.fields)
      detach(field.type);
  }
}

TypeRef voidType() {
  static const TypeRef v = std::make_shared<Type>();
  return v;
}

TypeRef scalarType(Scalar s) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::Scalar;
  t->scalar = s;
  return t;
}

TypeRef pointerTo(TypeRef pointee, AddressSpace space) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::Pointer;
  t->element = std::move(pointee);
  t->space = space;
  return t;
}

TypeRef arrayOf(TypeRef element, std::uint64_t count) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::Array;
  t->element = std::move(element);
  t->count = count;
  return t;
}

TypeRef vectorOf(Scalar element, unsigned count, bool openclVector, std::string spelling) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::Vector;
  t->scalar = element;
  t->count = count;
  t->openclVector = openclVector;
  t->spelling = std::move(spelling);
  return t;
}

TypeRef recordType(bool isUnion, std::string tag, std::vector<Field> fields, unsigned alignOverride) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::Record;
  t->isUnion = isUnion;
  t->tag = std::move(tag);
  t->fields = std::move(fields);
  t->alignOverride = alignOverride;
  return t;
}

TypeRef enumType(std::string tag) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::Enum;
  t->scalar = Scalar::Int;
  t->tag = std::move(tag);
  return t;
}

TypeRef opaqueType(OpaqueKind kind, std::string spelling) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::Opaque;
  t->opaque = kind;
  t->spelling = std::move(spelling);
  return t;
}

TypeRef typedefOf(const TypeRef &type, std::string name, unsigned alignOverride) {
  auto t = std::make_shared<Type>(*type);
  t->typedefName = std::move(name);
  if (alignOverride > t->alignOverride)
    t->alignOverride = alignOverride;
  return t;
}

TypeRef withAlignment(const TypeRef &type, unsigned alignOverride) {
  if (alignOverride == 0)
    return type;
  auto t = std::make_shared<Type>(*type);
  if (alignOverride > t->alignOverride)
    t->alignOverride = alignOverride;
  return t;
}

bool isFloating(Scalar s) {
  return s == Scalar::Half || s == Scalar::Float || s == Scalar::Double || s == Scalar::LongDouble;
}

bool isIntegral(Scalar s) {
  return !isFloating(s);
}

bool isSigned(Scalar s) {
  switch (s) {
  case Scalar::Char:
  case Scalar::SChar:
  case Scalar::Short:
  case Scalar::Int:
  case Scalar::Long:
  case Scalar::LongLong: return true;
  default: return isFloating(s);
  }
}

unsigned scalarSize(Scalar s, unsigned addressSize) {
  switch (s) {
  case Scalar::Bool:
  case Scalar::Char:
  case Scalar::SChar:
  case Scalar::UChar: return 1;
  case Scalar::Short:
  case Scalar::UShort:
  case Scalar::Half: return 2;
  case Scalar::Int:
  case Scalar::UInt:
  case Scalar::Float: return 4;
  case Scalar::Long:
  case Scalar::ULong: return addressSize == 32 ? 4 : 8;
  case Scalar::LongLong:
  case Scalar::ULongLong:
  case Scalar::Double: return 8;
  case Scalar::LongDouble: break;
  }
  throw AbiError("long double has no PTX representation (§1.1 has no floating type wider than .f64)");
}

std::string scalarName(Scalar s) {
  switch (s) {
  case Scalar::Bool: return "_Bool";
  case Scalar::Char: return "char";
  case Scalar::SChar: return "signed char";
  case Scalar::UChar: return "unsigned char";
  case Scalar::Short: return "short";
  case Scalar::UShort: return "unsigned short";
  case Scalar::Int: return "int";
  case Scalar::UInt: return "unsigned int";
  case Scalar::Long: return "long";
  case Scalar::ULong: return "unsigned long";
  case Scalar::LongLong: return "long long";
  case Scalar::ULongLong: return "unsigned long long";
  case Scalar::Half: return "__half";
  case Scalar::Float: return "float";
  case Scalar::Double: return "double";
  case Scalar::LongDouble: return "long double";
  }
  return "?";
}

std::string ptxScalarType(Scalar s, unsigned addressSize) {
  unsigned bits = scalarSize(s, addressSize) * 8;
  char letter = isFloating(s) ? 'f' : isSigned(s) ? 's' : 'u';
  return fmt::format(".{}{}", letter, bits);
}

namespace {

// The spelling of a type that is neither a pointer nor an array (or is one known under a typedef name).
std::string leafName(const Type &type) {
  if (!type.typedefName.empty())
    return type.typedefName;
  switch (type.kind) {
  case TypeKind::Void: return "void";
  case TypeKind::Scalar: return scalarName(type.scalar);
  case TypeKind::Vector:
    if (!type.spelling.empty())
      return type.spelling;
    return fmt::format("{}{}", scalarName(type.scalar), type.count);
  case TypeKind::Record:
    return fmt::format("{} {}", type.isUnion ? "union" : "struct", type.tag.empty() ? "<anonymous>" : type.tag);
  case TypeKind::Enum: return fmt::format("enum {}", type.tag.empty() ? "<anonymous>" : type.tag);
  case TypeKind::Opaque: return type.spelling.empty() ? opaqueName(type.opaque) : type.spelling;
  case TypeKind::Pointer:
  case TypeKind::Array: break;
  }
  return "?";
}

} // namespace

// Pointers and arrays wrap the type they refer to: "__global " before it, " *" or "[2][3]" after it, the
// outermost wrapper's suffix last. Walked in a loop, not recursively: a declarator may have any number of
// '*', and each is one level.
std::string typeName(const Type &type) {
  std::string prefix;
  std::vector<std::string> suffixes; // outermost first
  const Type *t = &type;
  while (t->typedefName.empty() && (t->kind == TypeKind::Pointer || t->kind == TypeKind::Array)) {
    if (t->kind == TypeKind::Pointer) {
      if (t->space != AddressSpace::Generic)
        prefix += fmt::format("__{} ", addressSpaceName(t->space));
      suffixes.emplace_back(" *");
      t = t->element.get();
      continue;
    }
    // int[2][3]: the outermost length comes first.
    std::string dims;
    while (t->kind == TypeKind::Array && t->typedefName.empty()) {
      dims += fmt::format("[{}]", t->count);
      t = t->element.get();
    }
    suffixes.push_back(std::move(dims));
  }
  std::string out = prefix + leafName(*t);
  for (auto s = suffixes.rbegin(); s != suffixes.rend(); ++s)
    out += *s;
  return out;
}

const char *addressSpaceName(AddressSpace space) {
  switch (space) {
  case AddressSpace::Generic: return "generic";
  case AddressSpace::Global: return "global";
  case AddressSpace::Shared: return "shared";
  case AddressSpace::Const: return "const";
  case AddressSpace::Local: return "local";
  }
  return "?";
}

const char *opaqueName(OpaqueKind kind) {
  switch (kind) {
  case OpaqueKind::Texture: return ".texref";
  case OpaqueKind::Sampler: return ".samplerref";
  case OpaqueKind::Surface: return ".surfref";
  }
  return "?";
}

} // namespace ptxray::abi
