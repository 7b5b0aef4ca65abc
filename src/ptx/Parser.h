// The PTX parser: text -> typed IR with every name resolved, every problem reported.
#pragma once

#include "ptx/Diagnostics.h"
#include "ptx/Ir.h"

#include <memory>
#include <string>

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

} // namespace ptxray::ptx
