// The ABI checker: every violation of the PTX Writer's Guide to Interoperability
// (docs: ptx-interoperability.md §1-§3) in function declarations, definitions and call sites of one
// or several PTX modules that are meant to be linked together.
//
// It works on the PTX side only (PTX types, sizes, alignments): it does not need the C declarations
// the PTX was generated from.
#pragma once

#include "ptx/Diagnostics.h"
#include "ptx/Ir.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::abi {

/// The rules the checker enforces, each one a section (or note) of the guide.
enum class AbiRule : uint8_t {
  NarrowInteger,       ///< §2.3 note A: integral values of 8 to 32 bits are passed as .u32/.s32
  PointerNotGeneric,   ///< §2.3 note B: pointers are passed as generic addresses (cvta)
  HalfFloat,           ///< §2.3 note C: 16-bit floating point is never a parameter or return value
  AggregateAlignment,  ///< §2.3 note D: .align A .b8 name[S], A in {1..128}, S a multiple of A
  CallMismatch,        ///< §2.3: the .param of a call (or declaration) match the callee's prototype
  SystemCallPrototype, ///< §3: vprintf, malloc, free, __assertfail prototypes for the address size
  PtxVersion,          ///< §2: calls need PTX 2.0 or later
  AddressSizeMismatch, ///< §1.1: objects for different host address sizes do not link
  UnresolvedExtern,    ///< §3: only the system calls are provided without a definition
};

/// The section of the guide a rule comes from, e.g. "§2.3 note A".
std::string_view ruleSection(AbiRule rule);
/// A short stable name for the rule, e.g. "narrow-integer" (for JSON and filtering).
std::string_view ruleName(AbiRule rule);

struct AbiFinding {
  AbiRule rule{};
  ptx::Severity severity = ptx::Severity::Error;
  uint32_t module = 0; ///< index of the module (in the span given to checkAbi) `loc` belongs to
  ptx::SourceLoc loc;  ///< in that module's SourceManager
  std::string message; ///< ends with the rule's section in brackets, e.g. "... [§2.3 note A]"
};

struct AbiOptions {
  /// Report `.extern` functions that none of the modules defines (other than the system calls).
  /// A module compiled for separate compilation checked on its own legitimately has some.
  bool reportUnresolvedExterns = true;
};

/// Checks the modules as one program to be linked. Findings are in module order, then source order.
std::vector<AbiFinding> checkAbi(std::span<const ptx::Module *const> modules, const AbiOptions &options = {});
std::vector<AbiFinding> checkAbi(const ptx::Module &module, const AbiOptions &options = {});

/// Adds the findings of module `module` to `diags` (errors and warnings as found), so that
/// `diags.render(modules[module]->sources)` shows them as file:line:col with the source line.
void addFindings(std::span<const AbiFinding> findings, uint32_t module, ptx::Diagnostics &diags);

/// Renders every finding, module by module, in the compiler style of ptx::Diagnostics.
std::string renderFindings(std::span<const ptx::Module *const> modules, std::span<const AbiFinding> findings);

} // namespace ptxray::abi
