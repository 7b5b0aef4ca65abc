#include "report/FindingsCsv.h"

#include "report/AnalysisSummary.h"
#include "report/MetricsReport.h"

#include <fmt/format.h>

namespace ptxray::report {

namespace {

std::string dims(vm::Dim3 d) {
  return fmt::format("({}, {}, {})", d.x, d.y, d.z);
}

/// ncu's rule types: OPT (an optimization with an estimated speedup), WRN (a problem to look at),
/// INF (information). Correctness findings are warnings whatever their priority.
std::string_view ruleType(const advisor::Finding &f) {
  if (f.category == advisor::Category::Correctness)
    return "WRN";
  return f.gainFraction > 0 ? "OPT" : f.priority == advisor::Priority::Low ? "INF" : "WRN";
}

/// "saxpy.cu:34; saxpy.cu:40": the finding's lines in its order (the paths as the text report shows
/// them: a copy found beside the input when the recorded one is not here), PTX positions where there
/// is no source line.
std::string sourceLines(const advisor::Finding &f, SourceFiles &sources) {
  std::string out;
  for (const advisor::SourceRef &line : f.lines) {
    if (!out.empty())
      out += "; ";
    out += line.file.empty() ? line.ptxLocation : fmt::format("{}:{}", sources.displayPath(line.file), line.line);
  }
  return out;
}

} // namespace

std::string findingsCsv(const std::vector<Analysis> &analyses) {
  std::string out = "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Rule Name\",\"Rule "
                    "Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\",\"GPU\","
                    "\"Priority\",\"Category\",\"Guide\",\"Source\",\"Evidence\",\"Fix\"\n";
  for (size_t id = 0; id < analyses.size(); ++id) {
    const Analysis &a = analyses[id];
    const std::string gpu = a.target.displayName();
    SourceFiles sources(a.sourceDirs);
    std::string kernel, block, grid;
    if (a.launch) {
      kernel = a.launch->demangled.empty() ? a.launch->kernel : a.launch->demangled;
      block = dims(a.launch->block);
      grid = dims(a.launch->grid);
    } else if (a.kernelStatic) {
      kernel = a.kernelStatic->demangled.empty() ? a.kernelStatic->kernel : a.kernelStatic->demangled;
    }
    const std::string launchFields =
        fmt::format("{},{},{},{},{},{}", csvField(std::to_string(id)), csvField(kernel), csvField(block),
                    csvField(grid), csvField("0"), csvField(computeCapabilityOf(gpu)));
    if (a.findings.empty()) {
      out += launchFields + fmt::format(",\"\",\"\",\"\",\"\",\"\",{},\"\",\"\",\"\",\"\",\"\",\"\"\n", csvField(gpu));
      continue;
    }
    for (const advisor::Finding &f : a.findings) {
      // ncu's estimated speedup is a percentage of the kernel's duration ("global").
      const bool estimated = f.gainFraction > 0;
      out += launchFields + fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{}\n", csvField(f.rule),
                                        csvField(ruleType(f)), csvField(f.title), csvField(estimated ? "global" : ""),
                                        csvField(estimated ? ncuNumber(f.gainFraction * 100) : ""), csvField(gpu),
                                        csvField(advisor::priorityName(f.priority)),
                                        csvField(advisor::categoryName(f.category)), csvField(f.guide),
                                        csvField(sourceLines(f, sources)), csvField(f.evidence), csvField(f.fix));
    }
  }
  return out;
}

} // namespace ptxray::report
