#include "ptx/Demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace ptxray::ptx {

std::string demangle(std::string_view name) {
  if (!name.starts_with("_Z"))
    return std::string(name);
  std::string copy(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(copy.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  if (status != 0 || !out)
    return copy;
  return std::string(out.get());
}

} // namespace ptxray::ptx
