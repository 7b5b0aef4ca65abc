// A small parser for the C declarations found in headers that describe data shared with a kernel:
// struct/union definitions (named, nested, anonymous), typedefs, enums, arrays (multi-dimensional),
// pointers (with OpenCL address-space qualifiers), bit fields, every spelling of the C integer and
// floating types, CUDA/OpenCL vector type names, alignment attributes (`__attribute__((aligned(N)))`,
// `alignas(N)`/`_Alignas(N)`, `__align__(N)`, `__builtin_align__(N)`) and the opaque handle types.
//
// No preprocessor: `#pragma`, include guards (`#ifndef`/`#define NAME`/`#endif`) and comments are
// skipped; `#include`, macros with a body and everything else it does not understand (function
// declarators, `packed`, `sizeof` in constant expressions...) are errors with line:column. In OpenCL C,
// a source language (a .cl file holds kernels beside its types), function declarations and definitions
// at the top level are skipped, bodies and all.
#pragma once

#include "abi/CType.h"

#include <string>
#include <string_view>
#include <vector>

namespace ptxray::abi {

/// CUDA C++ (vector_types.h names, `long` per address size) or OpenCL C (`uchar`..`ulong`, `long` is
/// always 64-bit, `size_t`/`ptrdiff_t`/`intptr_t`/`uintptr_t` as wide as an address, `half`, vectors of
/// 2/3/4/8/16 elements aligned to their size, `__global`... qualifiers).
enum class SourceLanguage { Cuda, OpenCL };

struct CDeclError {
  unsigned line = 0;   ///< 1-based
  unsigned column = 0; ///< 1-based
  std::string message;
};

/// "file:line:col: error: message".
std::string formatError(std::string_view file, const CDeclError &error);

struct NamedType {
  std::string name;       ///< tag (struct/union/enum) or typedef name
  bool isTypedef = false; ///< otherwise a tagged struct/union/enum definition
  TypeRef type;
  unsigned line = 0;
};

struct CHeader {
  std::vector<NamedType> types; ///< definitions in source order (nested tagged definitions too)
  /// By "S", "struct S", "union U", "enum E" or a typedef name; typedefs win over tags for a bare name.
  const NamedType *find(std::string_view name) const;
};

struct CDeclResult {
  CHeader header;                 ///< everything understood, even when there are errors
  std::vector<CDeclError> errors; ///< source order
  bool ok() const { return errors.empty(); }
};

CDeclResult parseCDecls(std::string_view text, SourceLanguage language = SourceLanguage::Cuda);

struct CTypeResult {
  TypeRef type; ///< null on error
  std::vector<CDeclError> errors;
  bool ok() const { return type != nullptr && errors.empty(); }
};

/// One type name: "short", "unsigned long long int", "float4", "struct {char c; double d;}",
/// "int *", "double[2][3]", "__global float *", or a name defined in `context`.
CTypeResult parseCType(std::string_view text, const CHeader *context = nullptr,
                       SourceLanguage language = SourceLanguage::Cuda);

} // namespace ptxray::abi
