// Which launches a program's tools report on and its outputs keep, as NVIDIA's tools select them:
// compute-sanitizer's --kernel-name / --kernel-name-exclude (kne=EXACT, kns=SUBSTRING, regex=EXPR on
// the mangled name; pairs joined by commas must all match) and Nsight Compute's -k (NAME, exact, or
// regex:EXPR, on the function's name alone), with --launch-skip and --launch-count counting the
// matching launches only (validation/conventions/results/oob.*.txt, ncu.csv-*.txt).
#pragma once

#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::session {

class KernelFilter {
public:
  /// `include`, `exclude`: the options' values. Throws std::invalid_argument naming the bad one.
  KernelFilter(const std::vector<std::string> &include, const std::vector<std::string> &exclude, uint64_t launchSkip,
               uint64_t launchCount);
  KernelFilter() = default;

  /// Whether any filter is set (without one every launch is selected).
  bool active() const { return !include_.empty() || !exclude_.empty() || launchSkip_ || launchCount_; }
  /// Whether a kernel of this PTX name matches the name filters.
  bool matches(std::string_view ptxName) const;
  /// The next launch, of `ptxName`: selected when it matches and falls in the skip/count window of
  /// the matching launches.
  bool selectNext(std::string_view ptxName);

private:
  struct Condition {
    enum class Kind : uint8_t { MangledExact, MangledSubstring, MangledRegex, FunctionExact, FunctionRegex } kind;
    std::string text;
    std::regex expression;
  };
  using Filter = std::vector<Condition>; ///< every condition must hold
  static Filter parse(const std::string &text, const char *option);
  static bool holds(const Filter &filter, std::string_view ptxName);
  std::vector<Filter> include_, exclude_;
  uint64_t launchSkip_ = 0, launchCount_ = 0;
  uint64_t matched_ = 0;
};

} // namespace ptxray::session
