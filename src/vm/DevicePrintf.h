// Device printf: the format string and the argument buffer vprintf receives (ptx-interoperability.md
// §3: each argument at the next offset aligned to its size), formatted like CUDA's printf.
#pragma once

#include "vm/Exec.h"

#include <string>

namespace ptxray::vm {

/// Formats one lane's vprintf call; `count` receives the number of arguments consumed (vprintf's
/// return value). Unreadable strings and buffers print as CUDA prints them where it can, else
/// "<invalid>" markers.
std::string formatDevicePrintf(ExecContext &ctx, int lane, uint64_t format, uint64_t args, int &count);

bool readDeviceBytes(ExecContext &ctx, int lane, uint64_t generic, void *out, uint32_t bytes);
bool readDeviceString(ExecContext &ctx, int lane, uint64_t generic, std::string &out, size_t limit);

} // namespace ptxray::vm
