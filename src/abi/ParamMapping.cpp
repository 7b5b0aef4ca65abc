#include "abi/ParamMapping.h"

#include "abi/Layout.h"

#include <fmt/format.h>

namespace ptxray::abi {

ParamMapping mapParam(const TypeRef &typeRef, unsigned addressSize, std::string_view name, ParamRole role) {
  LayoutCache cache;
  return mapParam(typeRef, addressSize, name, role, cache);
}

ParamMapping mapParam(const TypeRef &typeRef, unsigned addressSize, std::string_view name, ParamRole role,
                      LayoutCache &cache) {
  if (addressSize != 32 && addressSize != 64)
    throw AbiError(fmt::format("address size must be 32 or 64, not {}", addressSize));
  const char *what = role == ParamRole::Parameter ? "parameter" : "return value";
  const Type &type = *typeRef;
  ParamMapping m;
  switch (type.kind) {
  case TypeKind::Void:
    if (role == ParamRole::Parameter)
      throw AbiError("void cannot be a parameter type");
    m.note = "void return: no return .param";
    return m;
  case TypeKind::Scalar:
  case TypeKind::Enum: {
    Scalar s = type.scalar;
    if (s == Scalar::Half)
      throw AbiError(fmt::format("'{}' (.f16) cannot be a {}: 16-bit floating-point types are only used for "
                                 "storage (§2.3 C)",
                                 typeName(type), what));
    if (s == Scalar::LongDouble)
      throw AbiError(fmt::format("long double cannot be a {}: it has no PTX type (§1.1, §2.3 C)", what));
    unsigned bytes = scalarSize(s, addressSize);
    m.sourceSize = bytes;
    if (isFloating(s)) {
      m.paramClass = ParamClass::Floating;
      m.ptxType = bytes == 4 ? ".f32" : ".f64";
      m.size = m.align = bytes;
      m.note = fmt::format("{}-bit floating point → {} (§2.3 C)", bytes * 8, m.ptxType);
      break;
    }
    bool sign = isSigned(s);
    m.paramClass = ParamClass::Integral;
    unsigned bits = bytes <= 4 ? 32 : 64;
    m.ptxType = fmt::format(".{}{}", sign ? 's' : 'u', bits);
    m.size = m.align = bits / 8;
    if (bytes < 4) {
      m.extension = sign ? Extension::Sign : Extension::Zero;
      m.note = fmt::format("{}-bit {} integral widened to {}, {}-extended (§2.3 A)", bytes * 8,
                           sign ? "signed" : "unsigned", m.ptxType, sign ? "sign" : "zero");
    } else {
      m.note = fmt::format("{}-bit {} integral → {} (§2.3)", bits, sign ? "signed" : "unsigned", m.ptxType);
    }
    break;
  }
  case TypeKind::Pointer:
  case TypeKind::Array: {
    m.paramClass = ParamClass::Pointer;
    m.ptxType = addressSize == 32 ? ".u32" : ".u64";
    m.size = m.align = m.sourceSize = addressSize / 8;
    m.space = type.kind == TypeKind::Pointer ? type.space : AddressSpace::Generic;
    if (type.kind == TypeKind::Array && role == ParamRole::ReturnValue)
      throw AbiError("an array cannot be a return value");
    std::string how = type.kind == TypeKind::Array ? "array parameter decays to a pointer; " : "";
    m.note = m.space == AddressSpace::Generic
                 ? fmt::format("{}{}-bit pointer, generic address (§2.3 B)", how, addressSize)
                 : fmt::format("{}{}-bit pointer, {} address as the declaration names it (§2.3 B)", how, addressSize,
                               addressSpaceName(m.space));
    break;
  }
  case TypeKind::Opaque:
    m.paramClass = ParamClass::Handle;
    m.ptxType = ".b64";
    m.size = m.align = m.sourceSize = 8;
    m.note = fmt::format("{} handle → .b64 (§2.3 E, §1.4)", opaqueName(type.opaque));
    break;
  case TypeKind::Vector:
  case TypeKind::Record: {
    // Size and alignment are all a .param needs; the member tree would be as large as the nesting is deep.
    SizeAndAlign layout = sizeAndAlignOf(typeRef, addressSize, cache);
    if (layout.align > 128 || (layout.align & (layout.align - 1)) != 0)
      throw AbiError(fmt::format("'{}' is {}-byte aligned; a {} must be aligned to 1, 2, 4, 8, 16, 32, 64 or 128 "
                                 "bytes (§2.3 D)",
                                 typeName(type), layout.align, what));
    m.paramClass = ParamClass::Aggregate;
    m.ptxType = ".b8";
    m.size = m.sourceSize = layout.size;
    m.align = layout.align;
    m.text = fmt::format(".param .align {} .b8 {}[{}]", m.align, name, m.size);
    m.note = fmt::format("{} passed as a byte array aligned to {} (§2.3 D)",
                         type.kind == TypeKind::Vector ? "vector"
                         : type.isUnion                ? "union"
                                                       : "aggregate",
                         m.align);
    return m;
  }
  }
  m.text = fmt::format(".param {} {}", m.ptxType, name);
  return m;
}

} // namespace ptxray::abi
