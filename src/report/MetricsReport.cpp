#include "report/MetricsReport.h"

#include "model/Metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace ptxray::report {
namespace {

nlohmann::json metricObject(const model::MetricList &list) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[name, value] : list)
    j[name] = value;
  return j;
}

double find(const model::MetricList &list, std::string_view name) {
  for (const auto &[n, v] : list)
    if (n == name)
      return v;
  return 0;
}

std::string dims(vm::Dim3 d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

} // namespace

std::string ncuNumber(double v) {
  if (!std::isfinite(v))
    return fmt::format("{}", v);
  const bool whole = std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 9e15;
  std::string digits = whole ? fmt::format("{:.0f}", std::fabs(v)) : fmt::format("{:.2f}", std::fabs(v));
  const size_t point = digits.find('.');
  const size_t integral = point == std::string::npos ? digits.size() : point;
  std::string out;
  if (v < 0)
    out.push_back('-');
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && i < integral && (integral - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

std::string csvField(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (char c : text) {
    if (c == '"')
      out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

/// "9.0" from the display name's "sm_90" (ncu's CC column).
std::string computeCapabilityOf(const std::string &arch) {
  const size_t at = arch.find("sm_");
  if (at == std::string::npos || at + 4 >= arch.size() + 1)
    return "";
  size_t end = at + 3;
  while (end < arch.size() && std::isdigit(static_cast<unsigned char>(arch[end])))
    ++end;
  const std::string digits = arch.substr(at + 3, end - at - 3);
  return digits.size() >= 2 ? fmt::format("{}.{}", digits.substr(0, digits.size() - 1), digits.back()) : "";
}

namespace {

std::string dimsNcu(vm::Dim3 d) {
  return fmt::format("({}, {}, {})", d.x, d.y, d.z);
}

} // namespace

std::string metricUnit(std::string_view n) {
  auto has = [&](std::string_view part) { return n.find(part) != std::string_view::npos; };
  if (n == "gpu__time_duration.sum" || n.ends_with("_ns"))
    return "ns";
  if (n.ends_with("_gb_s"))
    return "GB/s";
  if (has("efficiency") || n.ends_with(".pct") || n.ends_with("pct_of_peak_sustained_active") || has("occupancy"))
    return "%";
  if (has("bytes") || n.ends_with("_footprint"))
    return "byte";
  if (has("sectors") || n.ends_with("_transactions") || has("transactions"))
    return "sector";
  if (has("requests"))
    return "request";
  if (has("wavefronts") || has("bank_conflicts"))
    return "";
  if (has("inst_executed") || n.starts_with("ptxray__inst") || n == "inst_executed")
    return "inst";
  return "";
}

model::MetricList selectMetrics(const model::LaunchProfile &launch, const std::vector<std::string> &names,
                                std::vector<std::string> *missing) {
  model::MetricList all = model::launchMetrics(launch);
  if (names.empty())
    return all;
  model::MetricList out;
  for (const std::string &name : names) {
    auto it = std::find_if(all.begin(), all.end(), [&](const auto &m) { return m.first == name; });
    if (it != all.end())
      out.push_back(*it);
    else if (missing)
      missing->push_back(name);
  }
  return out;
}

std::string metricsCsvHeader() {
  return "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
         "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
}

std::string metricCsvRow(const model::LaunchProfile &L, size_t id, std::string_view section, std::string_view name,
                         std::string_view unit, double value) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csvField(std::to_string(id)), csvField(L.demangled),
                     csvField(dimsNcu(L.block)), csvField(dimsNcu(L.grid)), csvField("0"),
                     csvField(computeCapabilityOf(L.arch)), csvField(section), csvField(name), csvField(unit),
                     csvField(ncuNumber(value)));
}

std::string metricsCsvRows(const model::LaunchProfile &L, size_t id, const model::MetricList &metrics,
                           const std::string &section) {
  std::string out;
  for (const auto &[name, value] : metrics)
    out += metricCsvRow(L, id, section, name, metricUnit(name), value);
  return out;
}

std::string metricsTable(const model::LaunchProfile &L, const model::MetricList &metrics) {
  size_t nameWidth = std::string_view("Metric Name").size(), unitWidth = std::string_view("Metric Unit").size();
  for (const auto &[name, value] : metrics) {
    nameWidth = std::max(nameWidth, name.size());
    unitWidth = std::max(unitWidth, metricUnit(name).size());
  }
  std::string out = fmt::format("== {} {}x{} on {}\n", L.demangled, dims(L.grid), dims(L.block), L.arch);
  out += fmt::format("  {:<{}} {:<{}} {:>14}\n", "Metric Name", nameWidth, "Metric Unit", unitWidth, "Metric Value");
  for (const auto &[name, value] : metrics)
    out += fmt::format("  {:<{}} {:<{}} {:>14}\n", name, nameWidth, metricUnit(name), unitWidth, ncuNumber(value));
  return out;
}

std::string efficiencyAboveFullNote(double efficiency) {
  if (!(efficiency > 1.0005)) // printed as 100.0% up to there
    return {};
  return " (above 100%: lanes asked for the same bytes more than once, and a sector carries them once)";
}

std::string bandwidthAboveTheoreticalNote(const model::LaunchProfile &L) {
  const model::TimeEstimate &t = L.time;
  if (t.bandwidthBytesPerSecond <= 0 || !(t.effectiveBandwidthGBps * 1e9 > t.bandwidthBytesPerSecond * 1.0005))
    return {};
  const uint64_t distinct = L.uniqueBytesRead + L.uniqueBytesWritten;
  if (t.dramBytes >= distinct)
    return fmt::format(" (above the {:.1f} GB/s of DRAM)", t.bandwidthBytesPerSecond / 1e9);
  return fmt::format(" (above the {:.1f} GB/s of DRAM: only {} of these {} B are estimated to cross DRAM, the rest "
                     "hit in L2)",
                     t.bandwidthBytesPerSecond / 1e9, t.dramBytes, distinct);
}

std::string metricsText(const model::LaunchProfile &L, size_t hottestLines) {
  model::MetricList m = model::launchMetrics(L);
  auto v = [&](std::string_view n) { return find(m, n); };
  std::string out = fmt::format("== {} {}x{} on {}\n", L.demangled, dims(L.grid), dims(L.block), L.arch);
  if (L.ctasSimulated < L.ctas)
    out += fmt::format("  sampled: {} of {} CTAs simulated, counts scaled by {:.2f}\n", L.ctasSimulated, L.ctas,
                       static_cast<double>(L.ctas) / static_cast<double>(L.ctasSimulated));
  out += fmt::format("  warp instructions {:.0f}, thread instructions {:.0f}, warp execution efficiency {:.1f}%, "
                     "branch efficiency {:.1f}%\n",
                     v("inst_executed"), v("thread_inst_executed"), v("warp_execution_efficiency"),
                     v("branch_efficiency"));
  out +=
      fmt::format("  global loads: {:.0f} requests, {:.0f} transactions ({:.2f} per request), efficiency {:.1f}%{}\n",
                  v("gld_requests"), v("gld_transactions"), v("gld_transactions_per_request"), v("gld_efficiency"),
                  efficiencyAboveFullNote(v("gld_efficiency") / 100));
  out +=
      fmt::format("  global stores: {:.0f} requests, {:.0f} transactions ({:.2f} per request), efficiency {:.1f}%{}\n",
                  v("gst_requests"), v("gst_transactions"), v("gst_transactions_per_request"), v("gst_efficiency"),
                  efficiencyAboveFullNote(v("gst_efficiency") / 100));
  if (v("shared_load_transactions") + v("shared_store_transactions") > 0)
    out += fmt::format("  shared memory: {:.0f} load and {:.0f} store wavefronts, {:.0f} + {:.0f} from bank conflicts, "
                       "efficiency {:.1f}%\n",
                       v("shared_load_transactions"), v("shared_store_transactions"),
                       v("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
                       v("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), v("shared_efficiency"));
  if (v("local_load_transactions") + v("local_store_transactions") > 0)
    out += fmt::format("  local memory: {:.0f} load and {:.0f} store transactions\n", v("local_load_transactions"),
                       v("local_store_transactions"));
  if (v("l1tex__t_requests_pipe_tex_mem_texture.sum") > 0)
    out +=
        fmt::format("  texture fetches: {:.0f} requests, {:.0f} sectors ({:.2f} per request)\n",
                    v("l1tex__t_requests_pipe_tex_mem_texture.sum"), v("l1tex__t_sectors_pipe_tex_mem_texture.sum"),
                    v("l1tex__t_sectors_pipe_tex_mem_texture.sum") / v("l1tex__t_requests_pipe_tex_mem_texture.sum"));
  if (v("l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum") + v("l1tex__t_requests_pipe_tex_mem_surface_op_st.sum") > 0)
    out += fmt::format(
        "  surfaces: {:.0f} load requests ({:.0f} sectors), {:.0f} store requests ({:.0f} sectors)\n",
        v("l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum"), v("l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum"),
        v("l1tex__t_requests_pipe_tex_mem_surface_op_st.sum"), v("l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum"));
  if (v("ptxray__global_ld_cta_distinct_sectors") > 0)
    out += fmt::format("  global load reuse: each sector a CTA loads is requested {:.2f} times on average\n",
                       v("ptxray__global_ld_cta_redundancy"));
  out += fmt::format("  footprint: {} B read, {} B written, {} B both\n", L.readFootprintBytes, L.writeFootprintBytes,
                     L.readWriteOverlapBytes);
  if (v("ptxray__constant_requests") > 0)
    out += fmt::format("  constant memory: {:.0f} requests serialized into {:.0f} transactions\n",
                       v("ptxray__constant_requests"), v("ptxray__constant_transactions"));
  out += fmt::format("  occupancy: {:.1f}% theoretical ({} blocks per SM; {} registers/thread, {} B shared per block), "
                     "{:.1f}% achievable by this grid\n",
                     L.occupancy.occupancy * 100, L.occupancy.activeBlocksPerSm, L.registersPerThread,
                     L.staticSharedBytes + L.dynamicSharedBytes, v("achieved_occupancy") * 100);
  out += fmt::format("  time estimate: {:.2f} us, {} bound; effective bandwidth {:.1f} GB/s ({} B read, {} B "
                     "written, once each){}, requested {:.1f} GB/s, DRAM {:.1f} GB/s\n    {}\n",
                     L.time.seconds * 1e6, model::boundName(L.time.dominant), L.time.effectiveBandwidthGBps,
                     L.uniqueBytesRead, L.uniqueBytesWritten, bandwidthAboveTheoreticalNote(L),
                     L.time.requestedBandwidthGBps, L.time.dramBandwidthGBps, L.time.explanation);

  std::vector<model::LineProfile> lines = model::lineProfiles(L);
  std::sort(lines.begin(), lines.end(), [](const model::LineProfile &a, const model::LineProfile &b) {
    return model::hotness(a.inputs.all) > model::hotness(b.inputs.all);
  });
  if (!lines.empty() && hottestLines) {
    // Ordered by the first column: the cost counts every transaction (constant, texture and surface
    // ones too), so the columns after it need not add up to it.
    out += "  hottest lines (cost = warp instructions + transactions + wavefronts of every memory):\n";
    out += fmt::format("    {:<40} {:>12} {:>12} {:>10} {:>10} {:>10} {:>8}\n", "line", "cost", "warp inst", "glob req",
                       "glob trans", "shared wf", "diverg");
    for (size_t i = 0; i < std::min(hottestLines, lines.size()); ++i) {
      const model::LineProfile &l = lines[i];
      const model::InstructionCounters &c = l.inputs.all;
      std::string where = l.file.empty() ? std::string("(no line information)") : fmt::format("{}:{}", l.file, l.line);
      if (where.size() > 40)
        where = fmt::format("...{}", std::string_view(where).substr(where.size() - 37));
      out += fmt::format("    {:<40} {:>12} {:>12} {:>10} {:>10} {:>10} {:>8}\n", where, model::hotness(c),
                         c.warpExecuted, c.globalRequests + c.localRequests, c.globalTransactions + c.localTransactions,
                         c.sharedWavefronts, c.divergentBranches);
    }
  }
  return out;
}

nlohmann::json metricsJson(const std::vector<model::LaunchProfile> &launches) {
  nlohmann::json doc;
  doc["launches"] = nlohmann::json::array();
  for (const model::LaunchProfile &L : launches) {
    nlohmann::json j;
    j["kernel"] = L.kernel;
    j["demangled"] = L.demangled;
    j["grid"] = {L.grid.x, L.grid.y, L.grid.z};
    j["block"] = {L.block.x, L.block.y, L.block.z};
    j["arch"] = L.arch;
    j["ctas"] = L.ctas;
    j["ctas_simulated"] = L.ctasSimulated;
    j["metrics"] = metricObject(model::launchMetrics(L));
    j["time"] = {{"seconds", L.time.seconds},
                 {"bound", model::boundName(L.time.dominant)},
                 {"gpu", L.time.gpu},
                 {"explanation", L.time.explanation}};
    // Dynamic parallelism: a child grid's depth in its launch tree; the tree's root lists them all.
    j["depth"] = L.depth;
    if (!L.childGrids.empty()) {
      j["time"]["with_child_grids_seconds"] = L.seconds();
      nlohmann::json grids = nlohmann::json::array();
      for (const model::ChildGrid &c : L.childGrids)
        grids.push_back({{"kernel", c.kernel},
                         {"grid", {c.grid.x, c.grid.y, c.grid.z}},
                         {"block", {c.block.x, c.block.y, c.block.z}},
                         {"depth", c.depth},
                         {"parent", c.parent},
                         {"launching_cta", c.origin.launchingCta},
                         {"launching_thread", c.origin.launchingThread},
                         {"stream", c.origin.stream == vm::GridOrigin::kTailLaunchStream      ? "tail"
                                    : c.origin.stream == vm::GridOrigin::kFireAndForgetStream ? "fire-and-forget"
                                    : c.origin.stream == 0                                    ? "block"
                                                                                              : "created"},
                         {"seconds", c.ownSeconds},
                         {"start_seconds", c.startSeconds},
                         {"end_seconds", c.endSeconds}});
      j["child_grids"] = std::move(grids);
    }
    nlohmann::json lines = nlohmann::json::array();
    for (const model::LineProfile &l : model::lineProfiles(L))
      lines.push_back({{"file", l.file}, {"line", l.line}, {"metrics", metricObject(model::metricsOf(l.inputs))}});
    j["lines"] = std::move(lines);
    nlohmann::json insts = nlohmann::json::array();
    for (const model::InstructionProfile &p : L.instructions) {
      model::MetricInputs in;
      in.add(p);
      insts.push_back({{"function", p.functionName},
                       {"pc", p.instruction},
                       {"ptx", p.ptxText},
                       {"ptx_location", p.ptxLocation},
                       {"file", p.sourceFile},
                       {"line", p.sourceLine},
                       {"class", model::instructionClassName(p.cls)},
                       {"metrics", metricObject(model::metricsOf(in))}});
    }
    j["instructions"] = std::move(insts);
    doc["launches"].push_back(std::move(j));
  }
  return doc;
}

} // namespace ptxray::report
