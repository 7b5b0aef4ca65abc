#include "report/NcuSections.h"

#include "model/Metrics.h"
#include "report/MetricsReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <regex>
#include <stdexcept>

namespace ptxray::report {

namespace {

constexpr std::string_view kNoStalls = "warp stall reasons are not modeled";
constexpr std::string_view kNoUnits = "per-unit active cycles are not modeled";
constexpr std::string_view kNoRoofline = "roofline charts are not drawn (the SpeedOfLight section has the throughputs)";
constexpr std::string_view kNoSystem = "NVLink and NUMA topology are not modeled";
constexpr std::string_view kNoSampling = "PM sampling has no counterpart in an exact count";
constexpr std::string_view kNoTables = "the detailed per-unit tables are not modeled (the section itself is)";

/// In the order ncu prints its sections (each section file's Order).
constexpr std::array kSections = {
    NcuSectionInfo{"SpeedOfLight", "GPU Speed Of Light Throughput", true, {}},
    NcuSectionInfo{"SpeedOfLight_RooflineChart", "GPU Speed Of Light Roofline Chart", false, kNoRoofline},
    NcuSectionInfo{"SpeedOfLight_HierarchicalSingleRooflineChart",
                   "GPU Speed Of Light Hierarchical Roofline Chart "
                   "(Single Precision)",
                   false, kNoRoofline},
    NcuSectionInfo{"SpeedOfLight_HierarchicalDoubleRooflineChart",
                   "GPU Speed Of Light Hierarchical Roofline Chart "
                   "(Double Precision)",
                   false, kNoRoofline},
    NcuSectionInfo{"SpeedOfLight_HierarchicalHalfRooflineChart",
                   "GPU Speed Of Light Hierarchical Roofline Chart "
                   "(Half Precision)",
                   false, kNoRoofline},
    NcuSectionInfo{"SpeedOfLight_HierarchicalTensorRooflineChart",
                   "GPU Speed Of Light Hierarchical Roofline Chart "
                   "(Tensor Core)",
                   false, kNoRoofline},
    NcuSectionInfo{"PmSampling", "PM Sampling", false, kNoSampling},
    NcuSectionInfo{"PmSampling_WarpStates", "PM Sampling: Warp States", false, kNoSampling},
    NcuSectionInfo{"ComputeWorkloadAnalysis", "Compute Workload Analysis", true, {}},
    NcuSectionInfo{"MemoryWorkloadAnalysis", "Memory Workload Analysis", true, {}},
    NcuSectionInfo{"MemoryWorkloadAnalysis_Chart", "Memory Workload Analysis Chart", false, kNoTables},
    NcuSectionInfo{"MemoryWorkloadAnalysis_Tables", "Memory Workload Analysis Tables", false, kNoTables},
    NcuSectionInfo{"NumaAffinity", "NUMA Affinity", false, kNoSystem},
    NcuSectionInfo{"Nvlink", "NVLink", false, kNoSystem},
    NcuSectionInfo{"Nvlink_Tables", "NVLink Tables", false, kNoSystem},
    NcuSectionInfo{"Nvlink_Topology", "NVLink Topology", false, kNoSystem},
    NcuSectionInfo{"SchedulerStats", "Scheduler Statistics", false, kNoStalls},
    NcuSectionInfo{"WarpStateStats", "Warp State Statistics", false, kNoStalls},
    NcuSectionInfo{"SourceCounters", "Source Counters", true, {}},
    NcuSectionInfo{"InstructionStats", "Instruction Statistics", true, {}},
    NcuSectionInfo{"LaunchStats", "Launch Statistics", true, {}},
    NcuSectionInfo{"Occupancy", "Occupancy", true, {}},
    NcuSectionInfo{"WorkloadDistribution", "GPU and Memory Workload Distribution", false, kNoUnits},
};

struct SetInfo {
  std::string_view name;
  std::vector<std::string_view> sections;
};

/// ncu's sets (`ncu --list-sets`, validation/conventions/results/ncu.list-sets.txt).
const std::vector<SetInfo> &sets() {
  static const std::vector<SetInfo> all = {
      {"basic", {"LaunchStats", "Occupancy", "SpeedOfLight", "WorkloadDistribution"}},
      {"detailed",
       {"ComputeWorkloadAnalysis", "LaunchStats", "MemoryWorkloadAnalysis", "MemoryWorkloadAnalysis_Chart", "Occupancy",
        "SourceCounters", "SpeedOfLight", "SpeedOfLight_RooflineChart", "WorkloadDistribution"}},
      {"full",
       {"ComputeWorkloadAnalysis",
        "InstructionStats",
        "LaunchStats",
        "MemoryWorkloadAnalysis",
        "MemoryWorkloadAnalysis_Chart",
        "MemoryWorkloadAnalysis_Tables",
        "NumaAffinity",
        "Nvlink_Tables",
        "Nvlink_Topology",
        "Occupancy",
        "PmSampling",
        "SchedulerStats",
        "SourceCounters",
        "SpeedOfLight",
        "SpeedOfLight_HierarchicalDoubleRooflineChart",
        "SpeedOfLight_HierarchicalHalfRooflineChart",
        "SpeedOfLight_HierarchicalSingleRooflineChart",
        "SpeedOfLight_HierarchicalTensorRooflineChart",
        "SpeedOfLight_RooflineChart",
        "WarpStateStats",
        "WorkloadDistribution"}},
      {"nvlink", {"Nvlink", "Nvlink_Tables", "Nvlink_Topology"}},
      {"pmsampling", {"PmSampling", "PmSampling_WarpStates"}},
      {"roofline",
       {"SpeedOfLight", "SpeedOfLight_HierarchicalDoubleRooflineChart", "SpeedOfLight_HierarchicalHalfRooflineChart",
        "SpeedOfLight_HierarchicalSingleRooflineChart", "SpeedOfLight_HierarchicalTensorRooflineChart",
        "SpeedOfLight_RooflineChart", "WorkloadDistribution"}},
  };
  return all;
}

std::string knownSections() {
  std::string out;
  for (const NcuSectionInfo &s : kSections)
    out += (out.empty() ? "" : ", ") + std::string(s.identifier);
  return out;
}

double metric(const model::MetricList &list, std::string_view name) {
  for (const auto &[n, v] : list)
    if (n == name)
      return v;
  return 0;
}

/// A share of the launch's time, in percent, at most 100.
double percentOfTime(double seconds, double total) {
  return total > 0 ? std::min(100.0, seconds / total * 100) : 0;
}

std::string dims(vm::Dim3 d) {
  return fmt::format("({}, {}, {})", d.x, d.y, d.z);
}

} // namespace

std::span<const NcuSectionInfo> ncuSections() {
  return kSections;
}

std::vector<const NcuSectionInfo *> selectSections(std::string_view set, const std::vector<std::string> &sections,
                                                   std::vector<const NcuSectionInfo *> *unmodeledExplicit) {
  std::vector<bool> chosen(kSections.size(), false);
  auto choose = [&](std::string_view identifier) {
    for (size_t i = 0; i < kSections.size(); ++i)
      if (kSections[i].identifier == identifier)
        chosen[i] = true;
  };
  if (!set.empty()) {
    auto it = std::find_if(sets().begin(), sets().end(), [&](const SetInfo &s) { return s.name == set; });
    if (it == sets().end())
      throw std::invalid_argument(
          fmt::format("--set: no section set \"{}\" (basic, detailed, full, nvlink, pmsampling, roofline)", set));
    for (std::string_view s : it->sections)
      choose(s);
  }
  for (const std::string &spelling : sections) {
    std::vector<size_t> matches;
    if (spelling.starts_with("regex:")) {
      std::regex pattern;
      try {
        pattern = std::regex(spelling.substr(6), std::regex::ECMAScript);
      } catch (const std::regex_error &e) {
        throw std::invalid_argument(
            fmt::format("--section: \"{}\" is not a regular expression: {}", spelling, e.what()));
      }
      for (size_t i = 0; i < kSections.size(); ++i)
        if (std::regex_search(std::string(kSections[i].identifier), pattern))
          matches.push_back(i);
    } else {
      for (size_t i = 0; i < kSections.size(); ++i)
        if (kSections[i].identifier == spelling)
          matches.push_back(i);
    }
    if (matches.empty())
      throw std::invalid_argument(
          fmt::format("--section: no section \"{}\" (Nsight Compute's identifiers: {})", spelling, knownSections()));
    for (size_t i : matches) {
      if (!kSections[i].modeled && unmodeledExplicit &&
          std::find(unmodeledExplicit->begin(), unmodeledExplicit->end(), &kSections[i]) == unmodeledExplicit->end())
        unmodeledExplicit->push_back(&kSections[i]);
      chosen[i] = true;
    }
  }
  std::vector<const NcuSectionInfo *> out;
  for (size_t i = 0; i < kSections.size(); ++i)
    if (chosen[i] && kSections[i].modeled)
      out.push_back(&kSections[i]);
  return out;
}

std::vector<SectionMetric> sectionMetrics(const NcuSectionInfo &section, const model::LaunchProfile &L) {
  const model::TimeEstimate &t = L.time;
  const model::MetricList all = model::launchMetrics(L);
  const double elapsedCycles = t.seconds * t.clockHz;
  const double warpInstructions = metric(all, "smsp__inst_executed.sum");
  std::vector<SectionMetric> out;
  auto add = [&](std::string name, std::string unit, double value) {
    out.push_back({std::move(name), std::move(unit), value});
  };
  const std::string_view id = section.identifier;
  if (id == "SpeedOfLight") {
    // Throughputs as the share of the launch's time each unit would be busy at its peak rate (the
    // model's bounds): ncu's "% of peak" of the busiest unit of each kind.
    add("SM Frequency", "hz", t.clockHz);
    add("Elapsed Cycles", "cycle", elapsedCycles);
    add("Memory Throughput", "%", percentOfTime(std::max(t.memorySeconds, t.l2Seconds), t.seconds));
    add("DRAM Throughput", "%",
        t.bandwidthBytesPerSecond > 0 ? std::min(100.0, t.dramBandwidthGBps * 1e9 / t.bandwidthBytesPerSecond * 100)
                                      : 0);
    add("Duration", "ns", t.seconds * 1e9);
    add("L2 Cache Throughput", "%", percentOfTime(t.l2Seconds, t.seconds));
    add("Compute (SM) Throughput", "%", percentOfTime(t.computeSeconds, t.seconds));
  } else if (id == "ComputeWorkloadAnalysis") {
    add("Executed Ipc Elapsed", "inst/cycle",
        elapsedCycles > 0 && t.smCount > 0 ? warpInstructions / t.smCount / elapsedCycles : 0);
    add("SM Busy", "%", percentOfTime(t.computeSeconds, t.seconds));
  } else if (id == "MemoryWorkloadAnalysis") {
    add("Memory Throughput", "byte/second", t.dramBandwidthGBps * 1e9);
    add("Max Bandwidth", "%", percentOfTime(std::max(t.memorySeconds, t.l2Seconds), t.seconds));
    add("DRAM Bytes", "byte", static_cast<double>(t.dramBytes));
    add("Global Load Sectors Per Request", "sector/request", metric(all, "gld_transactions_per_request"));
    add("Global Store Sectors Per Request", "sector/request", metric(all, "gst_transactions_per_request"));
    add("Shared Memory Bank Conflicts", "",
        metric(all, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") +
            metric(all, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
  } else if (id == "SourceCounters") {
    const double branches = metric(all, "branch");
    add("Branch Instructions Ratio", "%", warpInstructions > 0 ? branches / warpInstructions * 100 : 0);
    add("Branch Instructions", "inst", branches);
    add("Branch Efficiency", "%", metric(all, "branch_efficiency"));
    add("Divergent Branches", "", metric(all, "divergent_branch"));
  } else if (id == "InstructionStats") {
    add("Executed Instructions", "inst", warpInstructions);
    add("Thread Instructions Executed", "inst", metric(all, "smsp__thread_inst_executed.sum"));
    add("Predicated-On Thread Instructions Executed", "inst", metric(all, "smsp__thread_inst_executed_pred_on.sum"));
    add("Warp Execution Efficiency", "%", metric(all, "warp_execution_efficiency"));
  } else if (id == "LaunchStats") {
    add("Block Size", "", static_cast<double>(L.block.count()));
    add("Grid Size", "", static_cast<double>(L.ctas));
    add("Registers Per Thread", "register/thread", L.registersPerThread);
    add("Shared Memory Configuration Size", "byte", static_cast<double>(L.occupancy.sharedBytesPerSm));
    add("Dynamic Shared Memory Per Block", "byte/block", static_cast<double>(L.dynamicSharedBytes));
    add("Static Shared Memory Per Block", "byte/block", static_cast<double>(L.staticSharedBytes));
    add("# SMs", "SM", t.smCount);
    add("Threads", "thread", static_cast<double>(L.ctas) * static_cast<double>(L.block.count()));
    // ncu's launch__waves_per_multiprocessor: the grid over what the GPU holds at once, a fraction.
    const double resident = static_cast<double>(L.occupancy.activeBlocksPerSm) * t.smCount;
    add("Waves Per SM", "", resident > 0 ? static_cast<double>(L.ctas) / resident : 0);
  } else if (id == "Occupancy") {
    const arch::OccupancyResult &o = L.occupancy;
    auto limit = [&](std::string name, std::optional<int> v) {
      if (v)
        add(std::move(name), "block", *v);
    };
    limit("Block Limit SM", o.limits.blocks);
    limit("Block Limit Registers", o.limits.registers);
    limit("Block Limit Shared Mem", o.limits.sharedMemory);
    limit("Block Limit Warps", o.limits.warps);
    limit("Block Limit Barriers", o.limits.barriers);
    add("Theoretical Active Warps per SM", "warp", o.activeWarpsPerSm);
    add("Theoretical Occupancy", "%", o.occupancy * 100);
    const double achieved = metric(all, "sm__warps_active.avg.pct_of_peak_sustained_active");
    add("Achieved Occupancy", "%", achieved);
    add("Achieved Active Warps Per SM", "warp", achieved / 100 * o.maxWarpsPerSm);
  }
  return out;
}

std::string sectionsText(const model::LaunchProfile &L, std::span<const NcuSectionInfo *const> sections) {
  std::string out = fmt::format("  {} {}x{}, Device 0, CC {} ({})\n", L.demangled.empty() ? L.kernel : L.demangled,
                                dims(L.grid), dims(L.block), computeCapabilityOf(L.arch), L.arch);
  for (const NcuSectionInfo *section : sections) {
    const std::vector<SectionMetric> metrics = sectionMetrics(*section, L);
    size_t nameWidth = std::string_view("Metric Name").size(), unitWidth = std::string_view("Metric Unit").size(),
           valueWidth = std::string_view("Metric Value").size();
    std::vector<std::string> values;
    for (const SectionMetric &m : metrics) {
      values.push_back(ncuNumber(m.value));
      nameWidth = std::max(nameWidth, m.name.size());
      unitWidth = std::max(unitWidth, m.unit.size());
      valueWidth = std::max(valueWidth, values.back().size());
    }
    const std::string rule = fmt::format("    {} {} {}\n", std::string(nameWidth, '-'), std::string(unitWidth, '-'),
                                         std::string(valueWidth, '-'));
    out += fmt::format("    Section: {}\n", section->displayName);
    out += rule;
    out += fmt::format("    {:<{}} {:<{}} {:>{}}\n", "Metric Name", nameWidth, "Metric Unit", unitWidth, "Metric Value",
                       valueWidth);
    out += rule;
    for (size_t i = 0; i < metrics.size(); ++i)
      out += fmt::format("    {:<{}} {:>{}} {:>{}}\n", metrics[i].name, nameWidth, metrics[i].unit, unitWidth,
                         values[i], valueWidth);
    out += rule + "\n";
  }
  return out;
}

std::string sectionsCsvRows(const model::LaunchProfile &L, size_t id, std::span<const NcuSectionInfo *const> sections) {
  std::string out;
  for (const NcuSectionInfo *section : sections)
    for (const SectionMetric &m : sectionMetrics(*section, L))
      out += metricCsvRow(L, id, section->displayName, m.name, m.unit, m.value);
  return out;
}

} // namespace ptxray::report
