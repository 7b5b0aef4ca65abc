// ABI rule: what the ABI checker finds in the module (the PTX interoperability guide's calling
// sequence, parameter types and system-call prototypes), one finding per rule of the guide with
// every place it is broken.
#include "abi/AbiChecker.h"
#include "advisor/RuleContext.h"

#include <fmt/format.h>

#include <map>

namespace ptxray::advisor {

void abiRules(const RuleContext &ctx, std::vector<Finding> &out) {
  if (!ctx.input.module)
    return;
  const ptx::Module &m = *ctx.input.module;
  abi::AbiOptions options;
  options.reportUnresolvedExterns = false; // a module checked on its own may be linked with others
  std::map<abi::AbiRule, Finding> byRule;
  for (const abi::AbiFinding &a : abi::checkAbi(m, options)) {
    auto [it, inserted] = byRule.try_emplace(a.rule);
    Finding &f = it->second;
    if (inserted) {
      f = ctx.make("abi-violation");
      f.title = fmt::format("PTX ABI: {} ({})", abi::ruleName(a.rule), abi::ruleSection(a.rule));
      f.fix = "Declare parameters and calls as the interoperability guide's calling sequence requires (the "
              "message names the rule); code from nvcc or clang follows it, hand-written or generated PTX may not.";
    }
    if (a.severity == ptx::Severity::Warning && inserted)
      f.priority = Priority::Medium;
    else if (a.severity == ptx::Severity::Error)
      f.priority = Priority::High;
    SourceRef r;
    r.ptxLocation = m.sources.position(a.loc);
    r.ptxText = std::string(m.sources.trimmedLineText(a.loc));
    r.evidence = a.message;
    r.weight = 1;
    f.lines.push_back(std::move(r));
  }
  for (auto &[rule, f] : byRule) {
    f.evidence = fmt::format("{} place{} break the rule; the first: {}", f.lines.size(), f.lines.size() == 1 ? "" : "s",
                             f.lines.front().evidence);
    ctx.trim(f.lines);
    out.push_back(std::move(f));
  }
}

} // namespace ptxray::advisor
