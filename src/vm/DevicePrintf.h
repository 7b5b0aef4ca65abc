// Device printf: the format string and the argument buffer vprintf receives (ptx-interoperability.md
// §3: each argument at the next offset aligned to its size), formatted like CUDA's printf.
#pragma once

#include "vm/Exec.h"

#include <string>

namespace ptxray::vm {

/// Formats one lane's vprintf call; `count` receives the number of arguments consumed (vprintf's
/// return value). Unreadable strings and buffers print as CUDA prints them where it can, else
/// "<invalid>" markers. With `variadicCall` (OpenCL C's printf, which clang passes as a variadic call:
/// the format, then each argument a parameter of its own, floats promoted to double), the arguments
/// are that call's parameters instead of a buffer. A call whose text could not fit in `maxTextBytes`
/// (the printf FIFO) because of a width or precision alone gives "" (dropped) without formatting it.
std::string formatDevicePrintf(ExecContext &ctx, int lane, uint64_t format, uint64_t args, int &count,
                               const MicroOp *variadicCall = nullptr, uint64_t maxTextBytes = uint64_t{1} << 20);

/// `space`: where the address points (generic for CUDA; OpenCL's strings are __constant).
bool readDeviceBytes(ExecContext &ctx, int lane, uint64_t generic, void *out, uint32_t bytes,
                     Space space = Space::Generic);
bool readDeviceString(ExecContext &ctx, int lane, uint64_t generic, std::string &out, size_t limit,
                      Space space = Space::Generic);

} // namespace ptxray::vm
