// Source-level parameter and return types → their PTX `.param` declarations
// (ptx-interoperability.md §2.3 and its notes A-E).
#pragma once

#include "abi/CType.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ptxray::abi {

class LayoutCache;

enum class ParamRole { Parameter, ReturnValue };

enum class ParamClass {
  Integral,  ///< .u32/.s32 (8-32 bits, note A) or .u64/.s64
  Pointer,   ///< .u32/.u64 by address size (note B)
  Floating,  ///< .f32/.f64 (note C: .f16 is not allowed)
  Aggregate, ///< .align A .b8 name[S] (note D), structs, unions and vector types
  Handle,    ///< .b64 texture/sampler/surface handle (note E)
};

/// What a value narrower than its `.param` register becomes (note A).
enum class Extension { None, Sign, Zero };

struct ParamMapping {
  ParamClass paramClass = ParamClass::Integral;
  std::string ptxType;          ///< ".u32", ".s64", ".f32", ".b64", or ".b8" for aggregates
  std::uint64_t size = 0;       ///< bytes of the .param (4 for a widened char)
  unsigned align = 0;           ///< .align of the .param (aggregates: the type's alignment, note D)
  std::uint64_t sourceSize = 0; ///< bytes of the source-level type
  Extension extension = Extension::None;
  AddressSpace space = AddressSpace::Generic; ///< pointers: the space the pointer is in (note B)
  std::string text;                           ///< ".param .u32 name" / ".param .align 8 .b8 name[16]"
  std::string note; ///< which rule applied, in words ("char widened to 32 bits, sign-extended (§2.3 A)")
};

/// Maps `type` for `.address_size` 32 or 64. `name` is the parameter name used in `text`. Arrays decay to
/// pointers, as C parameters do. Throws AbiError for what cannot be passed: .f16 and long double
/// (note C), void as a parameter, an aggregate alignment outside 1..128 (note D), incomplete types.
/// `void` as a return value maps to an empty result (`text` empty, size 0).
ParamMapping mapParam(const TypeRef &type, unsigned addressSize = 64, std::string_view name = "param",
                      ParamRole role = ParamRole::Parameter);
/// The same, placing structs and unions through `cache` (see LayoutCache): for mapping many types of one
/// header, or a type that was just laid out with the same cache, without placing their records again.
ParamMapping mapParam(const TypeRef &type, unsigned addressSize, std::string_view name, ParamRole role,
                      LayoutCache &cache);

} // namespace ptxray::abi
