// The shared-memory accesses ptxas merges: scalar loads (or stores) of consecutive words at a
// provably aligned address become one vector access. `ld.shared.f32` at [r], [r+4], [r+8] and [r+12]
// with r a multiple of 16 is one LDS.128 in the SASS; the same loads on a row of a [32][33] tile
// (132-byte rows: r only a multiple of 4) stay four LDS. The VM runs the PTX as written; the time
// model issues a merged group once, with the vector's bank cost (measured: validation/model/results/
// sass/matmul_square.sass, where matmulTiled32 issues 8 LDS.128 and 32 LDS per tile and its padded
// twin 64 LDS, and is 1.25x slower on the H100 for it).
#pragma once

#include "ptx/Ir.h"

#include <cstdint>
#include <vector>

namespace ptxray::model {

enum class MergedRole : uint8_t {
  None,   ///< issued as written
  First,  ///< the group's first instruction in program order: it issues the vector access
  Merged, ///< part of an earlier instruction's vector access: no issue slot and no bank cost of its own
};

struct MergedAccess {
  MergedRole role = MergedRole::None;
  uint8_t bytesPerLane = 0; ///< First: the vector access's bytes per lane (8 or 16)
  /// First: what to add to its own address to get the vector's (the group's lowest address), <= 0.
  int8_t addressAdjust = 0;
};

/// Per instruction of `function`, whether ptxas merges it into a vector shared-memory access of at
/// most `widestBytes` per lane (arch::SharedMemoryBanks::compilerMergedAccessBytes; 0: none). A group
/// is 2 or 4 loads (or stores) of 4-byte words, or 2 of 8-byte words, in one basic block, with the
/// same base and guard, at offsets that tile an aligned 8- or 16-byte span, and no barrier, call,
/// other access to shared memory of the opposite kind (or generic access) or redefinition of the base
/// in between. Kernels' shared variables are aligned where ptxas places them (ptx::SharedLayout).
std::vector<MergedAccess> mergedSharedAccesses(const ptx::Module &module, const ptx::Function &function,
                                               int widestBytes);

/// Per register of `function`: how many low bits of its value are known to be zero (64: every bit),
/// from how it is computed (constants, shared-variable addresses, shifts, multiplies, adds, ...), over
/// all its definitions.
std::vector<uint8_t> knownZeroLowBits(const ptx::Module &module, const ptx::Function &function);

} // namespace ptxray::model
