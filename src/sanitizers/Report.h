// What the sanitizers report, and how: compute-sanitizer's style (the lines memcheck faults print,
// vm/Fault.h), one report per distinct problem and instruction (or pair of instructions) with how
// often it occurred, and a summary line per tool. Shared by racecheck, synccheck, initcheck and the
// leak check.
#pragma once

#include "vm/Events.h"
#include "vm/Program.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace ptxray::sanitizers {

enum class Severity : uint8_t { Error, Warning };

/// One PTX instruction of a launch's program, as reports name it. Ordered by PTX function and
/// instruction index, which makes report order independent of the order events arrived in.
struct Site {
  const vm::DecodedFunction *function = nullptr;
  uint32_t instruction = 0;
  auto key() const { return std::tuple(function ? function->index : 0u, instruction, function); }
  bool operator<(const Site &other) const { return key() < other.key(); }
  bool operator==(const Site &other) const = default;
};

/// Where a site is, in words: "kernel.cu:12 (file.ptx:40:3  st.shared.u32 [%r5], %r4;)".
struct SiteText {
  std::string sourceLine;  ///< CUDA file:line, with " inlined into file:line" links; empty without .loc
  std::string file;        ///< the innermost source position's file (empty without .loc)
  uint32_t line = 0;       ///< and its line (0 without .loc)
  std::string ptxLocation; ///< file:line:col of the PTX instruction
  std::string ptxText;
  std::string function; ///< PTX name of the function it is in
  /// The CUDA line when there is one, else the PTX position.
  std::string shortPlace() const { return sourceLine.empty() ? ptxLocation : sourceLine; }
};
SiteText describeSite(const Site &site);

/// One report: a distinct problem (kind and instructions), with the first occurrence's details.
struct Hazard {
  Severity severity = Severity::Error;
  std::string kernel;               ///< PTX name of the kernel it happened in (for a leak: the one that allocated)
  std::string headline;             ///< after "Error: " / "Warning: "
  std::vector<std::string> details; ///< one line each
  uint64_t occurrences = 0;
  /// The instructions the report is about, the reporting one first (for the advisor's findings).
  std::vector<SiteText> sites;

  /// The report in compute-sanitizer style, every line prefixed by "========= ".
  std::string describe() const;
};

/// "RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)".
std::string summaryLine(const char *tool, uint64_t errors, uint64_t warnings);
/// For tools whose reports are all errors: "INITCHECK SUMMARY: 2 errors".
std::string errorSummaryLine(const char *tool, uint64_t errors);

/// The kernel's shared variable at a shared-memory offset: "tile", "tile+8", "dyn+4 (dynamic)";
/// empty when no variable covers it.
std::string sharedVariableAt(const vm::DecodedFunction &kernel, uint64_t offset);

/// The thread a linear thread index of a CTA of `block` threads is.
vm::Dim3 threadOf(uint64_t linear, vm::Dim3 block);
/// A CTA's linear index in `grid` (x fastest), for choosing the first occurrence independently of
/// which worker ran what.
uint64_t ctaLinear(vm::Dim3 cta, vm::Dim3 grid);
std::string dimText(vm::Dim3 d);
/// Lane list of a mask, "0-15,20" style.
std::string laneList(uint32_t mask);

} // namespace ptxray::sanitizers
