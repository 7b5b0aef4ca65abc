#include "session/SanitizerLog.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::session {

using nlohmann::json;

SanitizerLog::SanitizerLog(Instruments &instruments, std::ostream &err, bool keepJson, uint64_t printLimit,
                           ptx::NameStyle names)
    : instruments_(instruments), err_(err), keepJson_(keepJson), printLimit_(printLimit), names_(names) {}

void SanitizerLog::print(const ToolReport &report) {
  if (printLimit_ && printed_ >= printLimit_) {
    ++notPrinted_;
    return;
  }
  ++printed_;
  if (names_ == ptx::NameStyle::Mangled) {
    err_ << report.hazard.describe();
    return;
  }
  // The tools name the kernel by its PTX name on their "in kernel NAME[, function NAME]" line.
  sanitizers::Hazard shown = report.hazard;
  constexpr std::string_view kKernel = "in kernel ", kFunction = ", function ";
  for (std::string &line : shown.details) {
    if (!line.starts_with(kKernel))
      continue;
    const std::string_view rest = std::string_view(line).substr(kKernel.size());
    const size_t comma = rest.find(kFunction);
    std::string text = std::string(kKernel) + ptx::displayName(rest.substr(0, comma), names_);
    if (comma != std::string_view::npos)
      text += std::string(kFunction) + ptx::displayName(rest.substr(comma + kFunction.size()), names_);
    line = std::move(text);
  }
  err_ << shown.describe();
}

json siteJson(const sanitizers::SiteText &site) {
  return {{"source_line", site.sourceLine},   {"file", site.file},        {"line", site.line},
          {"ptx_location", site.ptxLocation}, {"ptx_text", site.ptxText}, {"function", site.function}};
}

void SanitizerLog::keep(const ToolReport &report, std::optional<size_t> launch, const std::string *kernel) {
  if (!keepJson_)
    return;
  const sanitizers::Hazard &h = report.hazard;
  json sites = json::array();
  for (const sanitizers::SiteText &site : h.sites)
    sites.push_back(siteJson(site));
  reports_.push_back({{"tool", toolInfo(report.tool).name},
                      {"launch", launch ? json(*launch) : json(nullptr)},
                      {"kernel", kernel ? json(*kernel) : json(nullptr)},
                      {"severity", h.severity == sanitizers::Severity::Error ? "error" : "warning"},
                      {"headline", h.headline},
                      {"details", h.details},
                      {"occurrences", h.occurrences},
                      {"sites", std::move(sites)}});
  if (report.fault) {
    const vm::Fault &f = *report.fault;
    auto dim = [](vm::Dim3 d) { return json::array({d.x, d.y, d.z}); };
    reports_.back()["fault"] = {{"kind", vm::faultKindId(f.kind)},
                                {"kernel", f.kernel},
                                {"function", f.function},
                                {"block", dim(f.block)},
                                {"thread", dim(f.thread)},
                                {"address", f.address},
                                {"size", f.size},
                                {"space", vm::spaceName(f.space)},
                                {"access", f.size ? json(f.isWrite ? "write" : "read") : json(nullptr)},
                                {"detail", f.detail}};
  }
}

void SanitizerLog::afterLaunch(std::span<const ToolReport> reports, size_t launch, const std::string &kernel) {
  for (const ToolReport &r : reports) {
    if (r.tool != Tool::Memcheck)
      print(r);
    keep(r, launch, &kernel);
  }
}

void SanitizerLog::exclude(std::span<const ToolSummary> before, std::span<const ToolSummary> after) {
  for (const ToolSummary &a : after) {
    if (a.tool == Tool::Leakcheck)
      continue; // leaks belong to the program, not to a launch
    auto b = std::find_if(before.begin(), before.end(), [&](const ToolSummary &s) { return s.tool == a.tool; });
    auto e = std::find_if(excluded_.begin(), excluded_.end(), [&](const ToolSummary &s) { return s.tool == a.tool; });
    if (e == excluded_.end()) {
      excluded_.push_back({a.tool});
      e = std::prev(excluded_.end());
    }
    e->errors += a.errors - (b != before.end() ? b->errors : 0);
    e->warnings += a.warnings - (b != before.end() ? b->warnings : 0);
  }
}

bool SanitizerLog::finish() {
  // Leaks are known at the end only: a later launch may free what an earlier one allocated.
  for (const ToolReport &r : instruments_.leakReports()) {
    print(r);
    keep(r, std::nullopt, nullptr);
  }
  bool errors = false;
  for (ToolSummary s : instruments_.summaries()) {
    for (const ToolSummary &x : excluded_)
      if (x.tool == s.tool) {
        s.errors -= std::min(s.errors, x.errors);
        s.warnings -= std::min(s.warnings, x.warnings);
      }
    const ToolInfo &info = toolInfo(s.tool);
    const std::string name(info.summaryName);
    errors |= s.errors > 0;
    errors_ += s.errors;
    switch (s.tool) {
    case Tool::Racecheck:
    case Tool::Synccheck:
      err_ << "========= " << sanitizers::summaryLine(name.c_str(), s.errors, s.warnings) << "\n";
      summary_[std::string(info.name)] = {{"errors", s.errors}, {"warnings", s.warnings}};
      break;
    case Tool::Leakcheck:
      err_ << fmt::format("========= {} ({} byte{} leaked in {} block{})\n",
                          sanitizers::errorSummaryLine(name.c_str(), s.errors), s.leakedBytes,
                          s.leakedBytes == 1 ? "" : "s", s.leakedBlocks, s.leakedBlocks == 1 ? "" : "s");
      summary_[std::string(info.name)] = {
          {"errors", s.errors}, {"leaked_bytes", s.leakedBytes}, {"leaked_blocks", s.leakedBlocks}};
      break;
    case Tool::Memcheck:
    case Tool::Initcheck:
      err_ << "========= " << sanitizers::errorSummaryLine(name.c_str(), s.errors) << "\n";
      summary_[std::string(info.name)] = {{"errors", s.errors}};
      break;
    }
  }
  if (notPrinted_)
    err_ << fmt::format("========= ERROR SUMMARY: {} report{} not printed; --print-limit N prints N (0: all)\n",
                        notPrinted_, notPrinted_ == 1 ? " was" : "s were");
  return errors;
}

json SanitizerLog::document(const std::string &arch) const {
  json tools = json::array();
  for (const auto &[name, counts] : summary_.items())
    tools.push_back(name);
  return {{"schema", "ptxray-sanitizers"}, {"version", 1},        {"arch", arch},
          {"tools", std::move(tools)},     {"reports", reports_}, {"summary", summary_}};
}

} // namespace ptxray::session
