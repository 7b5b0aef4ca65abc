#include "report/AnalysisReport.h"

#include "advisor/Advisor.h"
#include "model/Metrics.h"
#include "report/AnalysisSummary.h"
#include "report/MetricsReport.h"
#include "report/OccupancyReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ptxray::report {
namespace {

struct Palette {
  bool on = false;
  std::string wrap(std::string_view code, std::string_view text) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  std::string bold(std::string_view t) const { return wrap("1", t); }
  std::string dim(std::string_view t) const { return wrap("2", t); }
  std::string priority(advisor::Priority p, std::string_view t) const {
    switch (p) {
    case advisor::Priority::High: return wrap("1;31", t);
    case advisor::Priority::Medium: return wrap("1;33", t);
    case advisor::Priority::Low: return wrap("1;36", t);
    }
    return std::string(t);
  }
};

/// Wraps `text` at `width` columns, each line after the first indented by `indent`.
std::string wrapText(std::string_view original, size_t width, size_t indent) {
  std::string spaced(original); // PTX text keeps its tabs: a column's worth of space here
  std::replace(spaced.begin(), spaced.end(), '\t', ' ');
  const std::string_view text = spaced;
  std::string out, line;
  size_t start = 0;
  auto flush = [&]() {
    if (!out.empty()) {
      out += '\n';
      out.append(indent, ' ');
    }
    out += line;
    line.clear();
  };
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width)
      flush();
    if (!line.empty())
      line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty())
    flush();
  return out;
}

/// The kernel's C++ name, whichever of a launch, the kernel alone or a refusal the analysis holds.
std::string kernelName(const Analysis &a) {
  return a.launch         ? a.launch->demangled
         : a.kernelStatic ? a.kernelStatic->demangled
         : a.refusal      ? a.refusal->demangled
                          : "";
}

std::string refusalText(const Analysis &a) {
  return fmt::format("refused: {}", a.refusal ? a.refusal->reason : "");
}

std::string noFindings(const Analysis &a) {
  return a.launch ? "No findings: nothing the guides warn about shows in this launch."
                  : "No findings: nothing the guides warn about shows in the PTX (run a launch for the rest).";
}

std::string gainText(const advisor::Finding &f) {
  if (f.gainSeconds <= 0)
    return "";
  return fmt::format("up to {:.2f} us ({:.0f}% of the estimated time), by the time model", f.gainSeconds * 1e6,
                     f.gainFraction * 100);
}

std::string renderTable(const DataTable &t, const Palette &p) {
  std::vector<size_t> widths(t.headers.size(), 0);
  for (size_t c = 0; c < t.headers.size(); ++c)
    widths[c] = t.headers[c].size();
  for (const auto &row : t.rows)
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c)
      widths[c] = std::max(widths[c], std::min<size_t>(row[c].size(), c == 0 ? 48 : 24));
  auto cell = [&](const std::string &s, size_t c) {
    std::string v = s.size() > widths[c] ? fmt::format("...{}", s.substr(s.size() - widths[c] + 3)) : s;
    return c == 0 ? fmt::format("{:<{}}", v, widths[c]) : fmt::format("{:>{}}", v, widths[c]);
  };
  std::string out = "    ";
  for (size_t c = 0; c < t.headers.size(); ++c) {
    out += c ? "  " : "";
    out += cell(t.headers[c], c);
  }
  out = p.dim(out) + "\n";
  for (const auto &row : t.rows) {
    std::string line = "    ";
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      line += c ? "  " : "";
      line += cell(row[c], c);
    }
    out += line + "\n";
  }
  return out;
}

} // namespace

std::string analysisText(const Analysis &a, const TextStyle &style) {
  const Palette p{style.color};
  std::string out;
  out += p.bold(fmt::format("== {} on {}", kernelName(a), a.target.displayName())) + "\n";
  if (a.refusal)
    return out + fmt::format("  {}\n", wrapText(refusalText(a), 96, 2));
  for (const TableRow &row : summaryRows(a, style.verbose))
    out += fmt::format("  {:<14} {}\n", row.label, wrapText(row.value, 96, 17));

  out += "\n" +
         p.bold(a.findings.empty() ? noFindings(a)
                                   : fmt::format("Findings ({}), most important first", a.findings.size())) +
         "\n";
  SourceFiles sources(a.sourceDirs);
  int index = 0;
  for (const advisor::Finding &f : a.findings) {
    out += fmt::format("\n {}. {} {}  {}\n", ++index,
                       p.priority(f.priority, fmt::format("[{}]", advisor::priorityName(f.priority))), p.bold(f.rule),
                       wrapText(f.title, 90, 6));
    out += fmt::format("    {}\n", wrapText(f.evidence, 96, 4));
    out += fmt::format("    {} {}\n", p.bold("fix:"), wrapText(f.fix, 91, 9));
    if (std::string g = gainText(f); !g.empty())
      out += fmt::format("    {} {}\n", p.bold("gain:"), g);
    out += fmt::format("    {}\n", p.dim(fmt::format("guide: {}", f.guide)));
    for (const advisor::SourceRef &r : f.lines) {
      const std::string where = r.file.empty() ? r.ptxLocation : lineName(sources.displayPath(r.file), r.line);
      std::string at = wrapText(fmt::format("at {}: {}", where, r.evidence), 96, 6);
      if (p.on) // the place in bold: the first line starts with "at PLACE:"
        at = p.bold(at.substr(0, where.size() + 4)) + at.substr(where.size() + 4);
      out += fmt::format("    {}\n", at);
      bool shown = false;
      if (!r.file.empty() && r.line > 0) {
        const uint32_t first = r.line > style.sourceContext ? r.line - static_cast<uint32_t>(style.sourceContext) : 1;
        for (uint32_t l = first; l <= r.line + style.sourceContext; ++l)
          if (const std::string *text = sources.line(r.file, l)) {
            std::string s = fmt::format("      {} {:>5} | {}", l == r.line ? ">" : " ", l, *text);
            out += (l == r.line ? s : p.dim(s)) + "\n";
            shown = true;
          }
      }
      if (!shown && !r.ptxText.empty())
        out += p.dim(fmt::format("        {}  {}", r.ptxLocation, wrapText(r.ptxText, 200, 0))) + "\n";
    }
  }
  // Findings that can only name PTX lines: the module has no line information to name the source by.
  const bool withoutLines = std::any_of(a.findings.begin(), a.findings.end(), [](const advisor::Finding &f) {
    return !f.lines.empty() &&
           std::all_of(f.lines.begin(), f.lines.end(), [](const advisor::SourceRef &r) { return r.file.empty(); });
  });
  if (withoutLines)
    out += fmt::format("\n{}\n", p.dim(wrapText("note: the module has no line information, so findings name PTX "
                                                "lines: build with nvcc -lineinfo (clang: -gline-tables-only) to "
                                                "see the CUDA or OpenCL source lines",
                                                96, 0)));
  if (style.quiet)
    return out;

  if (a.launch) {
    for (const View &v : launchViews(*a.launch, style.verbose ? SIZE_MAX : 8)) {
      out += fmt::format("\n{}\n", p.bold(v.title));
      out += renderTable(v.table, p);
    }
  } else if (a.kernelStatic && !a.kernelStatic->occupancyByBlockSize.empty()) {
    out += fmt::format("\n{}\n", p.bold("Occupancy by block size"));
    DataTable t;
    t.headers = {"threads/block", "blocks/SM", "warps/SM", "occupancy", "limited by"};
    for (const auto &[threads, r] : a.kernelStatic->occupancyByBlockSize) {
      if (!style.verbose && threads % 64 && threads != 32 && threads != 96)
        continue;
      std::string lim;
      for (arch::OccupancyResource res : r.limiters)
        lim += fmt::format("{}{}", lim.empty() ? "" : ", ", arch::resourceName(res));
      t.rows.push_back({std::to_string(threads), std::to_string(r.activeBlocksPerSm),
                        std::to_string(r.activeWarpsPerSm), fmt::format("{:.1f}%", r.occupancy * 100),
                        r.launches() ? lim : r.launchError});
    }
    out += renderTable(t, p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON

namespace {

nlohmann::json findingJson(const advisor::Finding &f) {
  nlohmann::json lines = nlohmann::json::array();
  for (const advisor::SourceRef &r : f.lines)
    lines.push_back({{"file", r.file},
                     {"line", r.line},
                     {"ptx_location", r.ptxLocation},
                     {"ptx", r.ptxText},
                     {"evidence", r.evidence}});
  return {{"rule", f.rule},
          {"priority", advisor::priorityName(f.priority)},
          {"category", advisor::categoryName(f.category)},
          {"title", f.title},
          {"guide", f.guide},
          {"evidence", f.evidence},
          {"fix", f.fix},
          {"gain_seconds", f.gainSeconds},
          {"gain_fraction", f.gainFraction},
          {"lines", lines}};
}

nlohmann::json occupancyJson(const arch::OccupancyResult &r) {
  nlohmann::json lim = nlohmann::json::array();
  for (arch::OccupancyResource res : r.limiters)
    lim.push_back(arch::resourceName(res));
  return {{"occupancy", r.occupancy},
          {"active_blocks_per_sm", r.activeBlocksPerSm},
          {"active_warps_per_sm", r.activeWarpsPerSm},
          {"max_warps_per_sm", r.maxWarpsPerSm},
          {"limiters", lim},
          {"launch_error", r.launchError}};
}

nlohmann::json analysisObject(const Analysis &a) {
  nlohmann::json j;
  j["arch"] = a.target.displayName();
  j["compute_capability"] = fmt::format("{}.{}", a.target.computeCapability->major, a.target.computeCapability->minor);
  if (a.launch) {
    const model::LaunchProfile &L = *a.launch;
    // The launch as `ptxray run --metrics-json` writes it: kernel, configuration, metrics, lines.
    nlohmann::json launch = metricsJson({L})["launches"][0];
    const model::TimeEstimate &t = L.time;
    j["kernel"] = L.kernel;
    j["demangled"] = L.demangled;
    j["summary"] = {{"time_seconds", t.seconds},
                    {"bound", model::boundName(t.dominant)},
                    {"compute_seconds", t.computeSeconds},
                    {"memory_seconds", t.memorySeconds},
                    {"latency_seconds", t.latencySeconds},
                    {"launch_overhead_seconds", t.launchOverheadSeconds},
                    {"effective_bandwidth_gb_s", t.effectiveBandwidthGBps},
                    {"unique_bytes_read", L.uniqueBytesRead},
                    {"unique_bytes_written", L.uniqueBytesWritten},
                    {"requested_bandwidth_gb_s", t.requestedBandwidthGBps},
                    {"dram_bandwidth_gb_s", t.dramBandwidthGBps},
                    {"theoretical_bandwidth_gb_s", t.bandwidthBytesPerSecond / 1e9},
                    {"occupancy", occupancyJson(L.occupancy)}};
    j["launch"] = launch;
  } else if (a.kernelStatic) {
    const KernelStatic &k = *a.kernelStatic;
    j["kernel"] = k.kernel;
    j["demangled"] = k.demangled;
    nlohmann::json occ = nlohmann::json::array();
    for (const auto &[threads, r] : k.occupancyByBlockSize) {
      nlohmann::json o = occupancyJson(r);
      o["threads_per_block"] = threads;
      occ.push_back(o);
    }
    j["static"] = {{"registers", k.registers},
                   {"register_source", k.registerSource},
                   {"static_shared_bytes", k.staticSharedBytes},
                   {"local_bytes_per_thread", k.localBytesPerThread},
                   {"occupancy_by_block_size", occ}};
    j["launch"] = nullptr;
  } else if (a.refusal) {
    j["kernel"] = a.refusal->kernel;
    j["demangled"] = a.refusal->demangled;
    j["refused"] = a.refusal->reason;
    j["launch"] = nullptr;
  }
  j["findings"] = nlohmann::json::array();
  for (const advisor::Finding &f : a.findings)
    j["findings"].push_back(findingJson(f));
  return j;
}

} // namespace

nlohmann::json analysisJson(const std::vector<Analysis> &analyses) {
  nlohmann::json j = {{"schema", "ptxray-analysis"}, {"version", kAnalysisSchemaVersion}};
  j["analyses"] = nlohmann::json::array();
  for (const Analysis &a : analyses)
    j["analyses"].push_back(analysisObject(a));
  return j;
}

// ---------------------------------------------------------------------------------------------
// HTML

namespace {

void addFindings(HtmlPage &page, const Analysis &a) {
  page.addHeading("Findings");
  if (a.findings.empty()) {
    page.addParagraph(noFindings(a));
    return;
  }
  DataTable findings;
  findings.caption = "Most important first";
  findings.headers = {"#", "priority", "rule", "finding", "estimated gain"};
  int index = 0;
  for (const advisor::Finding &f : a.findings) {
    findings.rows.push_back(
        {std::to_string(++index), std::string(advisor::priorityName(f.priority)), f.rule, f.title,
         f.gainSeconds > 0 ? fmt::format("{:.2f} us ({:.0f}%)", f.gainSeconds * 1e6, f.gainFraction * 100) : "-"});
    findings.heat.push_back(f.priority == advisor::Priority::High     ? 1.0
                            : f.priority == advisor::Priority::Medium ? 0.5
                                                                      : 0.15);
  }
  page.addDataTable(std::move(findings));
  index = 0;
  for (const advisor::Finding &f : a.findings) {
    std::vector<TableRow> rows = {{"evidence", f.evidence}, {"fix", f.fix}, {"guide", f.guide}};
    for (const advisor::SourceRef &r : f.lines)
      rows.push_back({r.file.empty() ? r.ptxLocation : lineName(r.file, r.line), r.evidence});
    page.addTable(std::move(rows),
                  fmt::format("{}. [{}] {}: {}", ++index, advisor::priorityName(f.priority), f.rule, f.title));
  }
}

/// One analysis under its heading: the summary, the findings, then the per-line views and the
/// occupancy charts of a launch, or the occupancy by block size of a kernel alone. A refused launch
/// says why and nothing else.
void addAnalysisSections(HtmlPage &page, const Analysis &a) {
  page.addHeading(fmt::format("{} on {}", kernelName(a), a.target.displayName()));
  if (a.refusal) {
    page.addParagraph(fmt::format("{} refused the launch: {}", a.target.displayName(), a.refusal->reason));
    return;
  }
  page.addTable(summaryRows(a, true), "Summary");
  addFindings(page, a);
  if (a.launch) {
    const model::LaunchProfile &L = *a.launch;
    for (View &v : launchViews(L, 50)) {
      page.addHeading(v.title);
      page.addDataTable(std::move(v.table));
    }
    arch::OccupancyInput in;
    in.threadsPerBlock = static_cast<int>(std::min<uint64_t>(L.block.count(), INT32_MAX));
    in.registersPerThread = static_cast<int>(L.registersPerThread);
    in.staticSharedBytes = L.staticSharedBytes;
    in.dynamicSharedBytes = L.dynamicSharedBytes;
    page.addHeading("Occupancy");
    for (const LineChart &chart : occupancyCharts(*a.target.computeCapability, in, a.target.displayName()))
      page.addChart(chart);
  } else if (a.kernelStatic) {
    DataTable t;
    t.caption = "Occupancy by block size";
    t.headers = {"threads/block", "blocks/SM", "warps/SM", "occupancy"};
    for (const auto &[threads, r] : a.kernelStatic->occupancyByBlockSize) {
      t.rows.push_back({std::to_string(threads), std::to_string(r.activeBlocksPerSm),
                        std::to_string(r.activeWarpsPerSm), fmt::format("{:.1f}%", r.occupancy * 100)});
      t.heat.push_back(r.occupancy);
    }
    page.addDataTable(std::move(t));
  }
}

/// A launch's counts per source line, for the annotated source.
struct LaunchLines {
  std::string label; ///< the column group's header: the kernel, the GPU, or both
  std::vector<model::LineProfile> lines;
  std::map<std::string, std::map<uint32_t, const model::InstructionCounters *>> byFile;
  std::map<std::string, uint64_t> hottest; ///< per file: the largest model::hotness of a line
};

/// The name of a kernel without its parameter list (the column headers have little room).
std::string shortKernelName(const Analysis &a) {
  std::string name = kernelName(a);
  if (size_t paren = name.find('('); paren != std::string::npos && paren > 0)
    name.resize(paren);
  return name;
}

std::vector<LaunchLines> launchLines(const std::vector<const Analysis *> &launches) {
  bool oneGpu = true, oneKernel = true;
  for (const Analysis *a : launches) {
    oneGpu = oneGpu && a->target.displayName() == launches.front()->target.displayName();
    oneKernel = oneKernel && kernelName(*a) == kernelName(*launches.front());
  }
  std::vector<LaunchLines> out;
  std::map<std::string, int> seen;
  for (const Analysis *a : launches) {
    LaunchLines l;
    l.label = oneGpu      ? shortKernelName(*a)
              : oneKernel ? a->target.displayName()
                          : fmt::format("{} on {}", shortKernelName(*a), a->target.displayName());
    l.lines = model::lineProfiles(*a->launch);
    out.push_back(std::move(l));
    // A kernel launched more than once on the same GPU: its launches numbered.
    if (int n = ++seen[out.back().label]; n > 1)
      out.back().label += fmt::format(" #{}", n);
  }
  // Pointers into `lines` only once the vector no longer moves.
  for (LaunchLines &l : out)
    for (const model::LineProfile &line : l.lines)
      if (!line.file.empty()) {
        l.byFile[line.file][line.line] = &line.inputs.all;
        uint64_t &top = l.hottest[line.file];
        top = std::max(top, model::hotness(line.inputs.all));
      }
  return out;
}

/// Each source file the launches ran, shown once: the line and its text, then a column group per
/// launch with its warp instructions and global transactions on the line. A row's heat is the
/// hottest launch's share of its own hottest line, so a short kernel's hot loop shows beside a long
/// kernel's. Files not readable here are left out (the per-line views have their numbers).
void addAnnotatedSource(HtmlPage &page, const std::vector<const Analysis *> &launches) {
  if (launches.empty())
    return;
  std::vector<LaunchLines> columns = launchLines(launches);
  std::set<std::string> files;
  std::vector<std::string> dirs;
  for (const Analysis *a : launches)
    dirs.insert(dirs.end(), a->sourceDirs.begin(), a->sourceDirs.end());
  for (const LaunchLines &l : columns)
    for (const auto &[file, lines] : l.byFile)
      files.insert(file);
  SourceFiles sources(std::move(dirs));
  for (const std::string &file : files) {
    if (!sources.line(file, 1))
      continue;
    uint32_t last = 0;
    for (const LaunchLines &l : columns)
      if (auto it = l.byFile.find(file); it != l.byFile.end() && !it->second.empty())
        last = std::max(last, it->second.rbegin()->first);
    DataTable src;
    src.caption =
        "heat = warp instructions + transactions + wavefronts, the hottest launch's share of its hottest line";
    src.headers = {"line", "source"};
    src.codeColumn = 1;
    if (columns.size() > 1)
      src.headerGroups = {{"", 1}, {"", 1}};
    for (const LaunchLines &l : columns) {
      src.headers.insert(src.headers.end(), {"warp inst", "global trans"});
      if (columns.size() > 1)
        src.headerGroups.push_back({l.label, 2});
    }
    for (uint32_t n = 1; n <= last + 2; ++n) {
      const std::string *text = sources.line(file, n);
      if (!text)
        break;
      std::vector<std::string> row = {std::to_string(n), *text};
      double heat = 0;
      for (const LaunchLines &l : columns) {
        const model::InstructionCounters *c = nullptr;
        if (auto f = l.byFile.find(file); f != l.byFile.end())
          if (auto it = f->second.find(n); it != f->second.end())
            c = it->second;
        if (!c) {
          row.insert(row.end(), {"", ""});
          continue;
        }
        row.push_back(std::to_string(c->warpExecuted));
        row.push_back(std::to_string(c->globalTransactions));
        heat = std::max(heat, static_cast<double>(model::hotness(*c)) /
                                  static_cast<double>(std::max<uint64_t>(l.hottest.at(file), 1)));
      }
      src.rows.push_back(std::move(row));
      src.heat.push_back(heat);
    }
    page.addHeading(fmt::format("Source: {}", sources.displayPath(file)));
    page.addDataTable(std::move(src));
  }
}

std::vector<const Analysis *> withLaunches(const std::vector<Analysis> &analyses) {
  std::vector<const Analysis *> out;
  for (const Analysis &a : analyses)
    if (a.launch)
      out.push_back(&a);
  return out;
}

} // namespace

std::string analysisHtml(const std::vector<Analysis> &analyses) {
  HtmlPage page(
      analyses.size() == 1 && analyses[0].launch
          ? fmt::format("ptxray analysis: {} on {}", kernelName(analyses[0]), analyses[0].target.displayName())
          : "ptxray analysis");
  for (const Analysis &a : analyses)
    addAnalysisSections(page, a);
  addAnnotatedSource(page, withLaunches(analyses));
  return page.render();
}

// ---------------------------------------------------------------------------------------------
// Compare

namespace {

struct CompareRow {
  std::string label;
  std::vector<std::string> values;
  bool launchStatus = false; ///< the "launch" row: whether each GPU ran the launch or refused it
};

std::vector<CompareRow> compareRows(const std::vector<Analysis> &analyses) {
  std::vector<CompareRow> rows;
  // Only when a GPU refused: which ones, and why (the row keeps the CSV of a comparison where
  // every GPU ran the launch as it was).
  if (std::any_of(analyses.begin(), analyses.end(), [](const Analysis &a) { return a.refusal.has_value(); })) {
    CompareRow r{"launch", {}, true};
    for (const Analysis &a : analyses)
      r.values.push_back(a.refusal ? refusalText(a) : std::string("ran"));
    rows.push_back(std::move(r));
  }
  auto add = [&](std::string label, auto &&value) {
    CompareRow r{std::move(label), {}};
    for (const Analysis &a : analyses)
      r.values.push_back(a.launch ? value(a, *a.launch) : a.refusal ? std::string("refused") : std::string("-"));
    rows.push_back(std::move(r));
  };
  using L = const model::LaunchProfile &;
  using A = const Analysis &;
  auto capability = [](A a) {
    return fmt::format("{}.{}", a.target.computeCapability->major, a.target.computeCapability->minor);
  };
  rows.push_back({"compute capability", {}});
  rows.push_back({"board", {}});
  for (const Analysis &a : analyses) {
    // Known without the launch: a refusing GPU's column still says which GPU it is.
    rows[rows.size() - 2].values.push_back(capability(a));
    rows.back().values.push_back(a.launch ? a.launch->time.gpu : a.target.board() ? a.target.board()->name : "-");
  }
  add("time estimate (us)", [](A, L l) { return fmt::format("{:.2f}", l.time.seconds * 1e6); });
  add("dominant bound", [](A, L l) { return std::string(model::boundName(l.time.dominant)); });
  add("occupancy", [](A, L l) { return fmt::format("{:.1f}%", l.occupancy.occupancy * 100); });
  add("blocks per SM", [](A, L l) { return std::to_string(l.occupancy.activeBlocksPerSm); });
  add("occupancy limiter", [](A, L l) {
    std::string s;
    for (arch::OccupancyResource r : l.occupancy.limiters)
      s += fmt::format("{}{}", s.empty() ? "" : ",", arch::resourceName(r));
    return s.empty() ? std::string("-") : s;
  });
  add("global trans/request", [](A, L l) {
    return fmt::format("{:.2f}", l.total.globalRequests ? static_cast<double>(l.total.globalTransactions) /
                                                              static_cast<double>(l.total.globalRequests)
                                                        : 0.0);
  });
  add("global efficiency", [](A, L l) {
    return l.total.globalBytesMoved ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(l.total.globalBytesRequested) /
                                                                 static_cast<double>(l.total.globalBytesMoved))
                                    : std::string("-");
  });
  add("shared wavefronts/req", [](A, L l) {
    return l.total.sharedRequests ? fmt::format("{:.2f}", static_cast<double>(l.total.sharedWavefronts) /
                                                              static_cast<double>(l.total.sharedRequests))
                                  : std::string("-");
  });
  add("local transactions", [](A, L l) { return std::to_string(l.total.localTransactions); });
  add("DRAM bytes", [](A, L l) { return std::to_string(l.time.dramBytes); });
  add("effective GB/s", [](A, L l) { return fmt::format("{:.1f}", l.time.effectiveBandwidthGBps); });
  add("theoretical GB/s", [](A, L l) { return fmt::format("{:.1f}", l.time.bandwidthBytesPerSecond / 1e9); });
  add("findings", [](A a, L) {
    std::string s;
    for (const advisor::Finding &f : a.findings)
      s += fmt::format("{}{}", s.empty() ? "" : " ", f.rule);
    return s.empty() ? std::string("-") : s;
  });
  return rows;
}

/// A rule found on some of the GPUs: per GPU, its priority there, or nothing.
struct RuleByGpu {
  std::string rule;
  std::vector<std::optional<advisor::Priority>> priority;
};

std::vector<RuleByGpu> findingsByGpu(const std::vector<Analysis> &analyses) {
  std::set<std::string> all;
  for (const Analysis &a : analyses)
    for (const advisor::Finding &f : a.findings)
      all.insert(f.rule);
  std::vector<RuleByGpu> out;
  for (const std::string &rule : all) {
    RuleByGpu r{rule, {}};
    for (const Analysis &a : analyses) {
      auto it =
          std::find_if(a.findings.begin(), a.findings.end(), [&](const advisor::Finding &f) { return f.rule == rule; });
      r.priority.push_back(it == a.findings.end() ? std::nullopt : std::optional(it->priority));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string comparisonTitle(const std::vector<Analysis> &analyses) {
  return fmt::format("{} on {} GPUs", analyses.empty() ? "" : kernelName(analyses.front()), analyses.size());
}

} // namespace

std::string compareText(const std::vector<Analysis> &analyses, const TextStyle &style) {
  const Palette p{style.color};
  std::string out;
  if (analyses.empty())
    return out;
  out += p.bold("== " + comparisonTitle(analyses)) + "\n";
  DataTable t;
  t.headers.push_back("");
  for (const Analysis &a : analyses)
    t.headers.push_back(a.target.displayName());
  for (CompareRow &r : compareRows(analyses)) {
    if (r.label == "findings")
      continue;
    std::vector<std::string> row{r.label};
    // The reason is too long for a column: under the table instead.
    for (size_t i = 0; i < r.values.size(); ++i)
      row.push_back(r.launchStatus && analyses[i].refusal ? std::string("refused") : r.values[i]);
    t.rows.push_back(std::move(row));
  }
  out += renderTable(t, p);
  for (const Analysis &a : analyses)
    if (a.refusal)
      out += fmt::format("  {} {}\n", p.bold(a.target.displayName() + ":"), wrapText(refusalText(a), 90, 4));
  // The findings that differ: a rule present on some GPUs and not on others (a GPU that refused the
  // launch has no findings to differ).
  std::string diff;
  for (const RuleByGpu &r : findingsByGpu(analyses)) {
    std::string on, off;
    for (size_t i = 0; i < analyses.size(); ++i) {
      if (analyses[i].refusal)
        continue;
      std::string &list = r.priority[i] ? on : off;
      list += fmt::format("{}{}", list.empty() ? "" : ", ", analyses[i].target.displayName());
    }
    if (off.empty())
      diff += fmt::format("  {:<26} on every GPU{}\n", r.rule,
                          std::any_of(analyses.begin(), analyses.end(), [](const Analysis &a) { return a.refusal; })
                              ? " that ran the launch"
                              : "");
    else
      diff += fmt::format("  {:<26} on {}; not on {}\n", r.rule, on, off);
  }
  out += fmt::format("\n{}\n{}", p.bold("Findings by GPU"), diff.empty() ? "  none\n" : diff);
  if (!style.quiet)
    for (const Analysis &a : analyses)
      for (const advisor::Finding &f : a.findings) {
        bool everywhere = std::all_of(analyses.begin(), analyses.end(), [&](const Analysis &b) {
          return b.refusal || std::any_of(b.findings.begin(), b.findings.end(),
                                          [&](const advisor::Finding &g) { return g.rule == f.rule; });
        });
        if (!everywhere)
          out += fmt::format("\n  {} [{}] {}: {}\n    {}\n", p.bold(a.target.displayName()),
                             advisor::priorityName(f.priority), f.rule, f.title, wrapText(f.evidence, 96, 4));
      }
  return out;
}

nlohmann::json compareJson(const std::vector<Analysis> &analyses) {
  nlohmann::json j = analysisJson(analyses);
  nlohmann::json table = nlohmann::json::array();
  for (const CompareRow &r : compareRows(analyses))
    table.push_back({{"quantity", r.label}, {"values", r.values}});
  j["compare"] = table;
  return j;
}

std::string compareHtml(const std::vector<std::vector<Analysis>> &comparisons) {
  std::string gpus;
  if (!comparisons.empty())
    for (const Analysis &a : comparisons.front())
      gpus += fmt::format("{}{}", gpus.empty() ? "" : ", ", a.target.displayName());
  HtmlPage page(fmt::format("ptxray compare: {}", gpus));
  if (comparisons.empty())
    page.addParagraph("No launch to compare: the first launch failed on every GPU.");
  std::vector<const Analysis *> launches;
  for (const std::vector<Analysis> &side : comparisons) {
    page.addHeading(comparisonTitle(side));
    DataTable table;
    table.caption = "Side by side";
    table.headers.push_back("quantity");
    for (const Analysis &a : side)
      table.headers.push_back(a.target.displayName());
    for (CompareRow &r : compareRows(side)) {
      std::vector<std::string> row{r.label};
      row.insert(row.end(), r.values.begin(), r.values.end());
      table.rows.push_back(std::move(row));
    }
    page.addDataTable(std::move(table));

    DataTable byGpu;
    byGpu.caption = "Findings by GPU (priority)";
    byGpu.headers.push_back("rule");
    for (const Analysis &a : side)
      byGpu.headers.push_back(a.target.displayName());
    for (const RuleByGpu &r : findingsByGpu(side)) {
      std::vector<std::string> row{r.rule};
      for (size_t i = 0; i < side.size(); ++i)
        row.push_back(side[i].refusal ? "refused"
                      : r.priority[i] ? std::string(advisor::priorityName(*r.priority[i]))
                                      : "-");
      byGpu.rows.push_back(std::move(row));
    }
    if (byGpu.rows.empty())
      page.addParagraph("Findings by GPU: none on any GPU.");
    else
      page.addDataTable(std::move(byGpu));
    for (const Analysis &a : side) {
      addAnalysisSections(page, a);
      if (a.launch)
        launches.push_back(&a);
    }
  }
  addAnnotatedSource(page, launches);
  return page.render();
}

std::string compareCsvHeader(const std::vector<Analysis> &analyses) {
  // Appended field by field: GCC 12's -O3 warns of an oversized memcpy in chained std::string
  // operator+ that is not there (GCC bug 105651).
  std::string out = fmt::format("{},{},{}", csvField("ID"), csvField("Kernel Name"), csvField("Quantity"));
  for (const Analysis &a : analyses)
    out.append(",").append(csvField(a.target.displayName()));
  out.push_back('\n');
  return out;
}

std::string compareCsvRows(const std::vector<Analysis> &analyses, size_t id) {
  std::string out;
  if (analyses.empty())
    return out;
  const std::string kernel = kernelName(analyses.front());
  for (const CompareRow &r : compareRows(analyses)) {
    out.append(fmt::format("{},{},{}", csvField(std::to_string(id)), csvField(kernel), csvField(r.label)));
    for (const std::string &v : r.values)
      out.append(",").append(csvField(v));
    out.push_back('\n');
  }
  return out;
}

} // namespace ptxray::report
