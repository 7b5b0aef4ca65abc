// Source-line table: which CUDA/OpenCL source line each instruction came from, with the chain of
// call sites it was inlined into, so later stages can blame a line the user wrote.
#pragma once

#include "ptx/Ir.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxray::ptx {

struct SourcePosition {
  std::string_view file; ///< as named by .file, empty when the index is undeclared
  uint32_t fileIndex = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  /// The function whose body this position is in when it was inlined (from .debug_str), else empty.
  std::string inlinedFunction;
};

class LineTable {
public:
  explicit LineTable(const Module &module) : m_(module) {}

  /// Position of an instruction, or nullopt when no .loc precedes it.
  std::optional<SourcePosition> position(const Instruction &inst) const;
  /// Innermost first: the instruction's own position, then each call site it was inlined at.
  std::vector<SourcePosition> chain(const Instruction &inst) const;
  std::vector<SourcePosition> chain(uint32_t lineIndex) const;

  /// The NUL-terminated string a .debug_str label (plus offset) points at.
  std::string debugString(uint32_t symbol, int64_t offset) const;

private:
  SourcePosition positionOf(uint32_t fileIndex, uint32_t line, uint32_t column) const;
  const Module &m_;
};

} // namespace ptxray::ptx
