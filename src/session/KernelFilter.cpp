#include "session/KernelFilter.h"

#include "ptx/Demangle.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ptxray::session {

KernelFilter::Filter KernelFilter::parse(const std::string &text, const char *option) {
  auto regex = [&](const std::string &expression) {
    try {
      return std::regex(expression, std::regex::ECMAScript);
    } catch (const std::regex_error &e) {
      throw std::invalid_argument(
          fmt::format("{}: \"{}\" is not a regular expression: {}", option, expression, e.what()));
    }
  };
  Filter filter;
  // Nsight Compute's forms: regex:EXPR, or a name.
  if (text.starts_with("regex:")) {
    filter.push_back({Condition::Kind::FunctionRegex, text.substr(6), regex(text.substr(6))});
    return filter;
  }
  if (text.find('=') == std::string::npos) {
    if (text.empty())
      throw std::invalid_argument(fmt::format("{}: an empty kernel name", option));
    filter.push_back({Condition::Kind::FunctionExact, text, {}});
    return filter;
  }
  // compute-sanitizer's key=value pairs; regex takes the rest of the text, commas included.
  size_t at = 0;
  while (at < text.size()) {
    const size_t equals = text.find('=', at);
    if (equals == std::string::npos)
      throw std::invalid_argument(
          fmt::format("{}: \"{}\" is not KEY=VALUE (kne, kns, regex)", option, text.substr(at)));
    const std::string key = text.substr(at, equals - at);
    if (key == "regex") {
      const std::string expression = text.substr(equals + 1);
      filter.push_back({Condition::Kind::MangledRegex, expression, regex(expression)});
      break;
    }
    const size_t comma = text.find(',', equals + 1);
    const std::string value =
        text.substr(equals + 1, comma == std::string::npos ? std::string::npos : comma - equals - 1);
    if (key == "kne" || key == "kernel_name")
      filter.push_back({Condition::Kind::MangledExact, value, {}});
    else if (key == "kns" || key == "kernel_substring")
      filter.push_back({Condition::Kind::MangledSubstring, value, {}});
    else
      throw std::invalid_argument(
          fmt::format("{}: unknown key \"{}\" (kne or kernel_name, kns or kernel_substring, regex)", option, key));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return filter;
}

KernelFilter::KernelFilter(const std::vector<std::string> &include, const std::vector<std::string> &exclude,
                           uint64_t launchSkip, uint64_t launchCount)
    : launchSkip_(launchSkip), launchCount_(launchCount) {
  for (const std::string &f : include)
    include_.push_back(parse(f, "--kernel-name"));
  for (const std::string &f : exclude)
    exclude_.push_back(parse(f, "--kernel-name-exclude"));
}

bool KernelFilter::holds(const Filter &filter, std::string_view ptxName) {
  const std::string function = ptx::displayName(ptxName, ptx::NameStyle::Simple);
  for (const Condition &c : filter) {
    bool ok = false;
    switch (c.kind) {
    case Condition::Kind::MangledExact: ok = ptxName == c.text; break;
    case Condition::Kind::MangledSubstring: ok = ptxName.find(c.text) != std::string_view::npos; break;
    case Condition::Kind::MangledRegex: ok = std::regex_search(ptxName.begin(), ptxName.end(), c.expression); break;
    // Nsight Compute matches the function's name alone by default; the mangled name is accepted too.
    case Condition::Kind::FunctionExact: ok = function == c.text || ptxName == c.text; break;
    case Condition::Kind::FunctionRegex: ok = std::regex_search(function, c.expression); break;
    }
    if (!ok)
      return false;
  }
  return true;
}

bool KernelFilter::matches(std::string_view ptxName) const {
  bool included = include_.empty();
  for (const Filter &f : include_)
    included = included || holds(f, ptxName);
  if (!included)
    return false;
  for (const Filter &f : exclude_)
    if (holds(f, ptxName))
      return false;
  return true;
}

bool KernelFilter::selectNext(std::string_view ptxName) {
  if (!matches(ptxName))
    return false;
  const uint64_t index = matched_++;
  return index >= launchSkip_ && (launchCount_ == 0 || index - launchSkip_ < launchCount_);
}

} // namespace ptxray::session
