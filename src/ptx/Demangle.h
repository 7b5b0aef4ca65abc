// Itanium C++ ABI demangling of kernel and function names, for display.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ptxray::ptx {

/// The demangled name, or the name unchanged when it is not a mangled C++ name.
std::string demangle(std::string_view name);

/// How reports name kernels and functions, as compute-sanitizer's --demangle says it: the whole C++
/// name (`void scale<float>(float*, int, float)`), the name alone (`scale`), or the mangled one.
enum class NameStyle { Full, Simple, Mangled };
/// "full", "simple", "no" (compute-sanitizer's spellings); nullopt for anything else.
std::optional<NameStyle> parseNameStyle(std::string_view text);
/// `name` (a PTX name, mangled or not) as `style` shows it.
std::string displayName(std::string_view name, NameStyle style);

} // namespace ptxray::ptx
