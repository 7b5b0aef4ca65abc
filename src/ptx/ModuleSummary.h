// What `ptxray parse` reports about a module: one pass over the IR, no formatting.
#pragma once

#include "ptx/Ir.h"

#include <map>
#include <string>
#include <vector>

namespace ptxray::ptx {

struct ParamSummary {
  std::string name;
  std::string type; ///< PTX spelling, e.g. ".u64", ".b8[32]", ".v4 .f32"
  uint64_t size = 0;
  uint32_t align = 0;
  bool isPointer = false;
  std::string pointeeSpace;
  uint32_t pointeeAlign = 0;
};

struct FunctionSummary {
  std::string name;
  std::string demangled;
  bool isEntry = false;
  bool defined = false;
  std::string linkage;
  std::vector<ParamSummary> params;
  std::vector<ParamSummary> returns;
  std::map<std::string, uint64_t> registers; ///< declared registers per type, e.g. ".b32" -> 61
  uint64_t sharedBytes = 0;                  ///< static .shared of its CTA as ptxas lays it out (SharedLayout.h)
  uint64_t localBytes = 0;                   ///< .local declared in the body
  uint64_t instructions = 0;
  std::vector<std::pair<std::string, std::vector<uint32_t>>> directives; ///< .maxntid 256,1,1 ...
};

struct ModuleSummary {
  std::string version;
  std::vector<std::string> target;
  uint32_t addressSize = 0;
  std::vector<std::pair<uint32_t, std::string>> files;
  uint64_t globalBytes = 0; ///< module-scope .global variables
  uint64_t constBytes = 0;  ///< module-scope .const variables
  uint64_t sharedBytes = 0; ///< module-scope .shared variables
  uint64_t instructions = 0;
  std::vector<FunctionSummary> functions;
};

ModuleSummary summarize(const Module &module);

} // namespace ptxray::ptx
