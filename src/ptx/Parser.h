// The PTX parser: text -> typed IR with every name resolved, every problem reported.
#pragma once

#include "ptx/Diagnostics.h"
#include "ptx/Ir.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::ptx {

struct ParseOptions {
  /// Run the semantic checks (operand types, ISA version and target) after parsing.
  bool verify = true;
};

struct ParseResult {
  std::unique_ptr<Module> module; ///< always present; partial when there were errors
  Diagnostics diagnostics;
  bool ok() const { return !diagnostics.hasErrors(); }
};

ParseResult parseModule(std::string fileName, std::string text, const ParseOptions &options = {});

/// One PTX module to link: what `nvcc -rdc=true -ptx` makes of one translation unit.
struct LinkInput {
  std::string name; ///< the file name diagnostics give
  std::string text;
};

struct LinkOptions {
  /// Functions the driver provides without a definition in any module (vprintf, malloc, the device
  /// runtime's cudaLaunchDeviceV2...): an extern declaration of one of them is not an undefined
  /// reference. Unset: none.
  std::function<bool(std::string_view name)> providedByDriver;
  /// A name used but defined nowhere is an error also when there is one module (cuLinkComplete).
  /// Otherwise one module parses as parseModule does, its unresolved externs found when called.
  bool requireDefinitions = false;
  /// Names defined nowhere are no error (cuLinkAddData checks each added module against the others
  /// for duplicate definitions before the last module is there).
  bool allowUndefined = false;
};

/// Parses several PTX modules into one, resolving the names they share as the device linker
/// (nvlink, or the driver's cuLink* JIT linker) does:
///  - A name declared .visible, .extern, .weak or .common is one symbol across the modules; a name
///    without a linkage directive stays private to its module (two modules may each have their own).
///  - An .extern declaration takes the definition of another module; a .weak definition yields to a
///    .visible one; of several .common variables the largest is kept; of several .weak
///    definitions, the first.
///  - Two .visible definitions of one name, a declaration that does not match its definition (a
///    function's parameters and results, a variable's state space, type and size), and a name used
///    but defined nowhere (unless the driver provides it) are errors at the places that say so.
///  - .file indices are renumbered so the modules' line tables stay apart; the module's .version is
///    the highest of them, its .target the highest architecture; .address_size must agree.
/// One input parses exactly as parseModule (an unresolved extern is then found when it is called).
ParseResult linkModules(std::vector<LinkInput> inputs, const ParseOptions &options = {}, const LinkOptions &link = {});

} // namespace ptxray::ptx
