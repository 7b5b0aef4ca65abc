// The modeled system of a GPU the database names, for the system model's and the session advisor's
// tests (a name the database lacks fails the test that asked for it).
#pragma once

#include "arch/GpuDatabase.h"
#include "system/SystemConfig.h"

#include <stdexcept>
#include <string>

namespace ptxray::test {

inline system::SystemConfig configFor(const std::string &arch, system::SystemOptions options = {}) {
  arch::ArchLookup lookup = arch::findArch(arch);
  if (!lookup)
    throw std::invalid_argument(lookup.error); // the test fails, naming it
  return system::SystemConfig::forTarget(*lookup.target, options);
}

} // namespace ptxray::test
