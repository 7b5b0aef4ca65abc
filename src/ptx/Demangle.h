// Itanium C++ ABI demangling of kernel and function names, for display.
#pragma once

#include <string>
#include <string_view>

namespace ptxray::ptx {

/// The demangled name, or the name unchanged when it is not a mangled C++ name.
std::string demangle(std::string_view name);

} // namespace ptxray::ptx
