#include "session/Tools.h"

#include "sanitizers/Initcheck.h"
#include "sanitizers/Leakcheck.h"
#include "sanitizers/Racecheck.h"
#include "sanitizers/Synccheck.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace ptxray::session {

namespace {

constexpr std::array<ToolInfo, 5> kTools{{
    {Tool::Memcheck, "memcheck", "MEMCHECK", "invalid-memory-access",
     "every out-of-bounds, misaligned or freed access, reported and run past"},
    {Tool::Racecheck, "racecheck", "RACECHECK", "race-hazard",
     "shared-memory data races between the threads of a block, intra-warp hazards included"},
    {Tool::Synccheck, "synccheck", "SYNCCHECK", "sync-hazard",
     "barriers and warp-synchronizing instructions used wrongly"},
    {Tool::Initcheck, "initcheck", "INITCHECK", "uninitialized-read",
     "reads of global, shared and local memory that nothing wrote"},
    {Tool::Leakcheck, "leakcheck", "LEAKCHECK", "memory-leak",
     "device-heap blocks (malloc in a kernel) not freed by the end of the run, and a program's device "
     "allocations (cudaMalloc...) not freed by its exit"},
}};

} // namespace

std::span<const ToolInfo> toolCatalogue() {
  return kTools;
}

const ToolInfo &toolInfo(Tool tool) {
  return kTools[static_cast<size_t>(tool)];
}

std::string toolNameList() {
  std::string out;
  for (const ToolInfo &t : kTools)
    out += fmt::format("{}{}", out.empty() ? "" : ", ", t.name);
  return out;
}

std::vector<Tool> parseTools(std::span<const std::string> names, std::string_view where) {
  std::vector<Tool> out;
  for (const std::string &entry : names) {
    size_t start = 0;
    for (;;) {
      const size_t comma = entry.find(',', start);
      const std::string_view name =
          std::string_view(entry).substr(start, comma == std::string::npos ? std::string_view::npos : comma - start);
      if (!name.empty()) {
        auto known = std::find_if(kTools.begin(), kTools.end(), [&](const ToolInfo &t) { return t.name == name; });
        if (known == kTools.end())
          throw std::invalid_argument(fmt::format("{}: unknown tool \"{}\" ({})", where, name, toolNameList()));
        if (std::find(out.begin(), out.end(), known->tool) == out.end())
          out.push_back(known->tool);
      }
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
  }
  return out;
}

void checkToolOptions(const ToolSelection &selection, bool sanitizerJson, bool memcheckFlag) {
  if (selection.racecheckGlobal && !selection.has(Tool::Racecheck))
    throw std::invalid_argument("--racecheck-global needs --tool racecheck");
  if (sanitizerJson && !selection.anySanitizer())
    throw std::invalid_argument(
        fmt::format("--sanitizer-json needs a tool (--tool NAME{})", memcheckFlag ? " or --memcheck" : ""));
}

bool ToolSelection::has(Tool tool) const {
  return std::find(tools.begin(), tools.end(), tool) != tools.end();
}

Instruments::Instruments(const arch::ArchTarget &target, ToolSelection selection)
    : target_(target), selection_(std::move(selection)) {
  const arch::ComputeCapability &cc = *target.computeCapability;
  if (selection_.racecheckGlobal && !selection_.has(Tool::Racecheck))
    throw std::invalid_argument("--racecheck-global needs the racecheck tool");
  // In catalogue order, so that reports come out in the same order whoever asked.
  if (selection_.has(Tool::Racecheck)) {
    racecheck_ = std::make_unique<sanitizers::Racecheck>(
        sanitizers::RacecheckOptions{cc.major * 10 + cc.minor, selection_.racecheckGlobal});
    group_.add(racecheck_.get());
    withoutModel_.add(racecheck_.get());
  }
  if (selection_.has(Tool::Synccheck)) {
    synccheck_ = std::make_unique<sanitizers::Synccheck>();
    group_.add(synccheck_.get());
    withoutModel_.add(synccheck_.get());
  }
  if (selection_.has(Tool::Initcheck)) {
    initcheck_ = std::make_unique<sanitizers::Initcheck>();
    group_.add(initcheck_.get());
    withoutModel_.add(initcheck_.get());
  }
  if (selection_.has(Tool::Leakcheck)) {
    leakcheck_ = std::make_unique<sanitizers::Leakcheck>(selection_.programAllocations);
    group_.add(leakcheck_.get());
    withoutModel_.add(leakcheck_.get());
  }
  if (selection_.model) {
    model_ = std::make_unique<model::PerformanceModel>(target, selection_.modelOptions);
    group_.add(model_.get());
  }
}

Instruments::~Instruments() = default;

void Instruments::configure(vm::LaunchOptions &options) const {
  options.continueOnError = memcheck();
  // %clock64 and %globaltimer tick at the SM clock the model estimates with.
  if (const arch::Gpu *gpu = target_.board()) {
    const int mhz =
        selection_.modelOptions.smClockMHz > 0 ? selection_.modelOptions.smClockMHz : gpu->defaultClockMHz();
    options.clock.smClockHz = mhz * 1e6;
  }
}

const model::LaunchProfile *Instruments::lastProfile(const vm::LaunchResult &result) {
  if (!model_ || result.status == vm::LaunchStatus::Refused)
    return nullptr;
  return model_->finishHostLaunch();
}

sanitizers::Hazard faultHazard(const vm::Fault &fault) {
  sanitizers::Hazard h;
  h.severity = sanitizers::Severity::Error;
  h.kernel = fault.kernel;
  h.headline = fault.headline();
  h.details = fault.detailLines();
  h.occurrences = 1;
  sanitizers::SiteText site;
  site.sourceLine = fault.sourceLine;
  site.file = fault.sourceFile;
  site.line = fault.sourceFileLine;
  site.ptxLocation = fault.ptxLocation;
  site.ptxText = fault.instructionText;
  site.function = fault.function;
  h.sites.push_back(std::move(site));
  return h;
}

std::vector<ToolReport> Instruments::launchReports(const vm::LaunchResult &result) {
  std::vector<ToolReport> out;
  if (result.status == vm::LaunchStatus::Refused)
    return out;
  auto add = [&](Tool tool, const std::vector<sanitizers::Hazard> &hazards) {
    for (const sanitizers::Hazard &h : hazards)
      out.push_back({tool, h, std::nullopt});
  };
  if (racecheck_)
    add(Tool::Racecheck, racecheck_->launchHazards());
  if (synccheck_)
    add(Tool::Synccheck, synccheck_->launchHazards());
  if (initcheck_)
    add(Tool::Initcheck, initcheck_->launchHazards());
  if (memcheck()) {
    memcheckErrors_ += result.faultCount;
    for (const vm::Fault &f : result.faults)
      out.push_back({Tool::Memcheck, faultHazard(f), f});
  }
  return out;
}

std::vector<ToolReport> Instruments::leakReports() const {
  std::vector<ToolReport> out;
  if (leakcheck_)
    for (sanitizers::Hazard &h : leakcheck_->leaks())
      out.push_back({Tool::Leakcheck, std::move(h), std::nullopt});
  return out;
}

std::vector<ToolSummary> Instruments::summaries() const {
  std::vector<ToolSummary> out;
  for (const ToolInfo &t : kTools) {
    if (!selection_.has(t.tool))
      continue;
    ToolSummary s{t.tool};
    switch (t.tool) {
    case Tool::Memcheck: s.errors = memcheckErrors_; break;
    case Tool::Racecheck:
      s.errors = racecheck_->errors();
      s.warnings = racecheck_->warnings();
      break;
    case Tool::Synccheck:
      s.errors = synccheck_->errors();
      s.warnings = synccheck_->warnings();
      break;
    case Tool::Initcheck: s.errors = initcheck_->errors(); break;
    case Tool::Leakcheck:
      s.errors = leakcheck_->leaks().size();
      s.leakedBytes = leakcheck_->leakedBytes();
      s.leakedBlocks = leakcheck_->leakedBlocks();
      break;
    }
    out.push_back(s);
  }
  return out;
}

} // namespace ptxray::session
