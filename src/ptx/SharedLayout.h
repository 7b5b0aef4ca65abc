// Where a kernel's shared variables go in its CTA's shared memory, the way ptxas lays them out.
//
// ptxas compiles every kernel with its own copy of each function it can call, so a CTA holds only
// the .shared variables that the kernel and those functions name (module-scope ones) or declare
// (function-scope ones), never another kernel's. Measured with ptxas 13.0 (`ptxas -v`, the section
// sizes of the cubin): variables are packed in order, each at its alignment, with no rounding of the
// total; referenced variables come first (function-scope before module-scope, each in declaration
// order), then function-scope variables no instruction names. The static part is rounded up to the
// alignment of the unsized `.extern .shared` arrays, where the dynamic area starts: for every kernel
// of a module that declares one, or with a debug target only for the kernels that reach one.
#pragma once

#include "ptx/Ir.h"

#include <cstdint>
#include <vector>

namespace ptxray::ptx {

struct SharedSlot {
  uint32_t variable = 0; ///< Module::variables index
  uint32_t symbol = 0;   ///< Module::symbols index
  uint64_t offset = 0;   ///< in the CTA's shared memory
  uint64_t size = 0;     ///< 0 for an unsized extern array
  bool dynamic = false;  ///< an unsized `.extern .shared` array: placed at the dynamic area
};

struct SharedLayout {
  std::vector<uint32_t> functions; ///< reachable functions, the kernel first
  std::vector<SharedSlot> slots;   ///< static variables in placement order, then the dynamic arrays
  uint64_t staticBytes = 0;        ///< ptxas's `smem` figure; the dynamic area starts here
  uint32_t dynamicAlign = 1;       ///< the alignment the static part is rounded up to
  bool usesDynamic = false;        ///< an unsized extern array is reachable
};

/// Lays out the shared memory of any number of kernels of one module. What the whole module says
/// (symbols of variables, functions each function names, address-taken functions) is read once, so
/// a layout costs the size of the code its kernel can reach.
class SharedLayoutPlanner {
public:
  explicit SharedLayoutPlanner(const Module &module);

  /// The functions `function` can run: itself, every function it names (calls and addresses taken),
  /// transitively; when any of them calls through a pointer, also every function whose address the
  /// module takes (initializers and operands), since any of those could be the target.
  std::vector<uint32_t> reachableFunctions(uint32_t function) const;

  /// Whether the stack `function` needs is known before it runs, as ptxas knows it: no function it
  /// can reach calls itself again (recursion) or calls through a pointer. When it is not, the driver
  /// gives each thread the stack cudaLimitStackSize says and no more (validation/conventions).
  bool stackSizeIsStatic(uint32_t function) const;

  /// The layout of `function`'s CTA (meaningful for kernels; for a .func, the shared memory it and
  /// its callees need).
  SharedLayout layout(uint32_t function) const;

  /// Whether the function declares or names a shared variable itself.
  bool touchesShared(uint32_t function) const { return !namedShared_[function].empty() || declaresShared_[function]; }
  /// The functions (not kernels) it names, each once.
  const std::vector<uint32_t> &namedFunctions(uint32_t function) const { return namedFunctions_[function]; }

private:
  const Module &m_;
  std::vector<uint32_t> symbolOfVariable_;
  std::vector<std::vector<uint32_t>> namedFunctions_; ///< per function
  std::vector<std::vector<uint32_t>> namedShared_;    ///< per function: shared variables its operands name
  std::vector<char> declaresShared_;
  std::vector<char> callsThroughPointer_;
  std::vector<uint32_t> addressTaken_;
  std::vector<uint32_t> moduleExternArrays_; ///< unsized module-scope .extern .shared arrays
};

/// One kernel's layout (builds a planner; use SharedLayoutPlanner for several kernels).
SharedLayout layoutSharedMemory(const Module &module, uint32_t function);

} // namespace ptxray::ptx
