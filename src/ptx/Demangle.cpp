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

std::optional<NameStyle> parseNameStyle(std::string_view text) {
  if (text == "full")
    return NameStyle::Full;
  if (text == "simple")
    return NameStyle::Simple;
  if (text == "no")
    return NameStyle::Mangled;
  return std::nullopt;
}

std::string displayName(std::string_view name, NameStyle style) {
  if (style == NameStyle::Mangled)
    return std::string(name);
  std::string full = demangle(name);
  if (style == NameStyle::Full || full == name)
    return full;
  // The name alone: without its template arguments and parameters, and without a return type
  // (a function template's demangled name starts with one: "void scale<float>(...)").
  size_t depth = 0, end = full.size();
  for (size_t i = 0; i < full.size(); ++i) {
    if (full[i] == '<' || full[i] == '(') {
      if (depth == 0 && end == full.size())
        end = i;
      ++depth;
    } else if ((full[i] == '>' || full[i] == ')') && depth > 0) {
      --depth;
    }
  }
  std::string head = full.substr(0, end);
  if (size_t space = head.rfind(' '); space != std::string::npos)
    head.erase(0, space + 1);
  return head.empty() ? full : head;
}

} // namespace ptxray::ptx
