// `ptxray occupancy`: the CUDA Occupancy Calculator as a command, for one architecture, several side
// by side (--compare), or a kernel's own resources (--kernel), with the spreadsheet's charts.
#include "advisor/LaunchConfiguration.h"
#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"
#include "cli/Commands.h"
#include "cli/Input.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "report/OccupancyReport.h"
#include "session/KernelResources.h"
#include "support/OutputFile.h"
#include "support/TemporaryFolder.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>

namespace ptxray::cli {
namespace {

struct OccupancyOptions {
  std::string arch;
  int threads = 0;
  int regs = -1;
  std::size_t smem = 0;
  std::size_t dynamicSmem = 0;
  std::string cacheConfig = "prefer-none";
  int carveout = -1;
  bool json = false;
  bool csv = false; ///< --csv: ncu's CSV layout
  std::string chart;
  std::string kernel;
  std::string entry;
  std::string buildOptions;
  std::string compare;
  long long grid = 0;
};

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty())
      out.push_back(item);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return out;
}

nlohmann::json resultJson(const arch::ArchTarget &target, const arch::OccupancyInput &in,
                          const arch::OccupancyResult &r, const std::vector<advisor::Finding> &advice) {
  nlohmann::json j;
  j["arch"] = target.displayName();
  j["compute_capability"] = target.computeCapability->version();
  j["threads_per_block"] = in.threadsPerBlock;
  j["regs_per_thread"] = in.registersPerThread;
  j["smem_per_block"] = in.staticSharedBytes + in.dynamicSharedBytes;
  j["static_smem_per_block"] = in.staticSharedBytes;
  j["dynamic_smem_per_block"] = in.dynamicSharedBytes;
  j["active_blocks_per_sm"] = r.activeBlocksPerSm;
  j["active_warps_per_sm"] = r.activeWarpsPerSm;
  j["max_warps_per_sm"] = r.maxWarpsPerSm;
  j["occupancy"] = r.occupancy;
  nlohmann::json limiters = nlohmann::json::array();
  for (arch::OccupancyResource res : r.limiters)
    limiters.push_back(arch::resourceName(res));
  j["limiters"] = limiters;
  nlohmann::json limits = nlohmann::json::object();
  for (arch::OccupancyResource res :
       {arch::OccupancyResource::Warps, arch::OccupancyResource::Registers, arch::OccupancyResource::SharedMemory,
        arch::OccupancyResource::Blocks, arch::OccupancyResource::Barriers}) {
    auto v = r.limits.of(res);
    limits[std::string(arch::resourceName(res))] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  }
  j["limits"] = limits;
  j["allocated_registers_per_block"] = r.allocatedRegistersPerBlock;
  j["allocated_smem_per_block"] = r.allocatedSharedBytesPerBlock;
  j["smem_per_sm"] = r.sharedBytesPerSm;
  j["launch_error"] = r.launches() ? nlohmann::json(nullptr) : nlohmann::json(r.launchError);
  nlohmann::json adviceJson = nlohmann::json::array();
  for (const advisor::Finding &f : advice)
    adviceJson.push_back({{"rule", f.rule},
                          {"priority", advisor::priorityName(f.priority)},
                          {"title", f.title},
                          {"evidence", f.evidence},
                          {"fix", f.fix},
                          {"guide", f.guide}});
  j["advice"] = adviceJson;
  return j;
}

std::string resultText(const arch::ArchTarget &target, const arch::OccupancyInput &in, const arch::OccupancyResult &r,
                       const std::vector<advisor::Finding> &advice) {
  std::string out =
      fmt::format("Occupancy on {}: {} threads/block, {} registers/thread, {} B shared/block\n", target.displayName(),
                  in.threadsPerBlock, in.registersPerThread, in.staticSharedBytes + in.dynamicSharedBytes);
  if (!r.launches())
    out += fmt::format("  launch fails: {}\n", r.launchError);
  out += fmt::format("  active blocks per SM  {}\n", r.activeBlocksPerSm);
  out += fmt::format("  active warps per SM   {} of {}\n", r.activeWarpsPerSm, r.maxWarpsPerSm);
  out += fmt::format("  occupancy             {:.1f}%\n", r.occupancy * 100);
  out += "  blocks per SM allowed by:\n";
  for (arch::OccupancyResource res :
       {arch::OccupancyResource::Warps, arch::OccupancyResource::Registers, arch::OccupancyResource::SharedMemory,
        arch::OccupancyResource::Blocks, arch::OccupancyResource::Barriers}) {
    auto v = r.limits.of(res);
    bool limiting = std::find(r.limiters.begin(), r.limiters.end(), res) != r.limiters.end();
    out += fmt::format("    {:<14} {:>4}{}\n", arch::resourceName(res), v ? std::to_string(*v) : "-",
                       limiting ? "   <- limits" : "");
  }
  out += fmt::format("  allocated per block   {} registers, {} B shared (SM configured for {} B)\n",
                     r.allocatedRegistersPerBlock, r.allocatedSharedBytesPerBlock, r.sharedBytesPerSm);
  for (const advisor::Finding &f : advice)
    out += fmt::format("  [{}] {}: {}\n      {} ({})\n", advisor::priorityName(f.priority), f.rule, f.title, f.fix,
                       f.guide);
  return out;
}

std::optional<arch::CacheConfig> parseCacheConfig(const std::string &text) {
  static const std::map<std::string, arch::CacheConfig> kConfigs = {
      {"prefer-none", arch::CacheConfig::PreferNone},
      {"prefer-shared", arch::CacheConfig::PreferShared},
      {"prefer-l1", arch::CacheConfig::PreferL1},
      {"prefer-equal", arch::CacheConfig::PreferEqual},
  };
  auto it = kConfigs.find(text);
  if (it == kConfigs.end())
    return std::nullopt;
  return it->second;
}

int runOccupancy(const OccupancyOptions &o) {
  auto cacheConfig = parseCacheConfig(o.cacheConfig);
  if (!cacheConfig) {
    std::cerr << "ptxray: error: --cache-config must be prefer-none, prefer-shared, prefer-l1 or prefer-equal\n";
    return 2;
  }
  std::vector<std::string> archNames = o.compare.empty() ? std::vector<std::string>{o.arch} : splitList(o.compare);
  if (archNames.empty() || archNames.front().empty()) {
    std::cerr << "ptxray: error: give --arch (or --compare A,B,...)\n";
    return 2;
  }
  std::vector<arch::ArchTarget> targets;
  for (const std::string &name : archNames) {
    arch::ArchLookup lookup = arch::findArch(name);
    if (!lookup) {
      std::cerr << "ptxray: error: " << lookup.error << "\n";
      return 2;
    }
    targets.push_back(*lookup.target);
  }

  nlohmann::json all = nlohmann::json::array();
  std::string text;
  std::string csv; // --csv rows, a block per GPU
  // Without --regs or a kernel, registers are not known: say that the result assumes none, since
  // registers often decide the occupancy.
  if (o.regs < 0 && o.kernel.empty())
    std::cerr << "ptxray: note: no --regs: 0 registers per thread assumed, so registers limit nothing here; give "
                 "--regs N (ptxas -v or cuobjdump --dump-resource-usage says N), or --kernel FILE to take them "
                 "from the kernel\n";
  for (const arch::ArchTarget &target : targets) {
    const arch::ComputeCapability &cc = *target.computeCapability;
    arch::OccupancyInput in;
    in.threadsPerBlock = o.threads;
    in.registersPerThread = std::max(o.regs, 0);
    in.staticSharedBytes = o.smem;
    in.dynamicSharedBytes = o.dynamicSmem;
    in.cacheConfig = *cacheConfig;
    if (o.carveout >= 0)
      in.carveoutPercent = o.carveout;
    std::string resourceNote;
    if (!o.kernel.empty()) {
      auto input = readModuleInput(o.kernel, o.buildOptions, cc.major * 10 + cc.minor);
      if (!input)
        return 1;
      ptx::ParseResult parsed = ptx::parseModule(input->name, std::move(input->text));
      if (!parsed.ok()) {
        std::cerr << parsed.diagnostics.render(parsed.module->sources);
        return 1;
      }
      const ptx::Function *kernel = session::findKernel(*parsed.module, o.entry);
      if (!kernel) {
        std::cerr << "ptxray: error: " << session::noKernelMessage(*parsed.module, o.kernel, o.entry) << "\n";
        return 1;
      }
      // ptxas reads files only: a compiled source's PTX is written to one for it; a module from
      // standard input gets the fallbacks.
      std::string ptxFile = o.kernel == "-" ? "" : o.kernel;
      std::optional<support::TemporaryFolder> scratch;
      if (o.kernel.ends_with(".cl") || o.kernel.ends_with(".cu")) {
        scratch.emplace("ptxray-occupancy");
        ptxFile = (scratch->path() / "kernel.ptx").string();
        support::writeOutputFile(ptxFile, ptx::printModule(*parsed.module));
      }
      const std::optional<session::KernelResources> resources =
          session::kernelResources(*parsed.module, *kernel, ptxFile, cc);
      if (o.regs < 0)
        in.registersPerThread = resources->registers;
      if (o.smem == 0)
        in.staticSharedBytes = resources->staticSharedBytes;
      if (o.threads == 0 && resources->threadsPerBlock)
        in.threadsPerBlock = *resources->threadsPerBlock;
      resourceNote =
          fmt::format("  kernel {}: {} registers ({}), {} B static shared{}\n", resources->kernel, resources->registers,
                      resources->registerSource, resources->staticSharedBytes,
                      resources->threadsPerBlock
                          ? fmt::format(", {} threads from {}", *resources->threadsPerBlock, resources->threadsSource)
                          : "");
    }
    if (in.threadsPerBlock <= 0) {
      std::cerr << "ptxray: error: give --threads (threads per block)\n";
      return 2;
    }
    arch::OccupancyResult result;
    try {
      result = arch::computeOccupancy(cc, in);
    } catch (const std::invalid_argument &e) {
      std::cerr << "ptxray: error: " << e.what() << "\n";
      return 2;
    }
    const int smCount = target.gpu ? target.gpu->smCount : 0; // 0: a compute capability without a board
    advisor::ConfigurationView view;
    view.cc = &cc;
    view.input = in;
    view.result = result;
    if (o.grid > 0)
      view.gridBlocks = static_cast<uint64_t>(o.grid);
    view.smCount = smCount;
    view.gpu = target.gpu ? target.gpu->name : "";
    view.language = o.kernel.ends_with(".cl") ? advisor::SourceLanguage::OpenCL : advisor::SourceLanguage::Cuda;
    std::vector<advisor::Finding> advice =
        advisor::adviseConfiguration(view, advisor::Thresholds{}, advisor::ConfigurationScope::Calculator);
    advisor::rankFindings(advice);
    nlohmann::json j = resultJson(target, in, result, advice);
    // cudaOccupancyMaxPotentialBlockSize for the same registers and shared memory.
    arch::LaunchConfiguration best = arch::suggestLaunchConfiguration(cc, in, smCount ? smCount : 1);
    std::string suggestion;
    if (best.blockSize > 0) {
      j["suggested_block_size"] = best.blockSize;
      j["suggested_occupancy"] = best.occupancy;
      if (smCount)
        j["suggested_min_grid_size"] = best.minGridSize;
      suggestion = fmt::format(
          "  launch configurator: {} threads/block gives {:.1f}%{}\n", best.blockSize, best.occupancy * 100,
          smCount ? fmt::format(" (at least {} blocks to fill the {} SMs)", best.minGridSize, smCount) : "");
    }
    if (!resourceNote.empty())
      j["kernel_resources"] = resourceNote.substr(2, resourceNote.size() - 3);
    all.push_back(j);
    csv += report::occupancyCsvRows(target.displayName(), cc, in, result);
    text += resourceNote + resultText(target, in, result, advice) + suggestion + (targets.size() > 1 ? "\n" : "");

    if (!o.chart.empty() && &target == &targets.front()) {
      support::writeOutputFile(o.chart, o.chart.ends_with(".svg")
                                            ? report::occupancySvg(cc, in, target.displayName())
                                            : report::occupancyHtml(cc, in, result, advice, target.displayName()));
    }
  }

  if (o.csv) {
    std::cout << report::occupancyCsvHeader() << csv;
    return 0;
  }
  if (targets.size() > 1 && !o.json) {
    // The Kepler guide's Fermi -> Kepler comparison: one row per architecture.
    std::cout << fmt::format("{:<28} {:>7} {:>7} {:>10}  {}\n", "architecture", "blocks", "warps", "occupancy",
                             "limited by");
    for (const nlohmann::json &j : all) {
      std::string limiters;
      for (const auto &l : j["limiters"])
        limiters += (limiters.empty() ? "" : ", ") + l.get<std::string>();
      std::cout << fmt::format("{:<28} {:>7} {:>7} {:>9.1f}%  {}\n", j["arch"].get<std::string>(),
                               j["active_blocks_per_sm"].get<int>(), j["active_warps_per_sm"].get<int>(),
                               j["occupancy"].get<double>() * 100,
                               j["launch_error"].is_null() ? limiters : j["launch_error"].get<std::string>());
    }
    return 0;
  }
  if (o.json)
    std::cout << (targets.size() > 1 ? all : all.front()).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  else
    std::cout << text;
  return 0;
}

} // namespace

CommandRunner addOccupancyCommand(CLI::App &app) {
  auto o = std::make_shared<OccupancyOptions>();
  CLI::App *cmd = app.add_subcommand("occupancy", "Occupancy of a launch configuration (CUDA Occupancy Calculator)");
  cmd->add_option("--arch", o->arch, "GPU or compute capability: sm_35, 3.5, k40, gk110b, h100...");
  // Counts are range-checked as text, before conversion. CLI::NonNegativeNumber and CLI::PositiveNumber
  // would do, but their messages print DBL_MAX in full (300 digits). The byte counts are std::size_t,
  // which CLI11 converts with strtoull: "-5" would silently become 2^64 - 5, so they are checked as
  // signed 64-bit numbers.
  constexpr int kMaxInt = std::numeric_limits<int>::max();
  constexpr long long kMaxLongLong = std::numeric_limits<long long>::max();
  cmd->add_option("--threads", o->threads, "Threads per block")->check(CLI::Range(1, kMaxInt, "POSITIVE"));
  cmd->add_option("--regs", o->regs, "Registers per thread")->check(CLI::Range(0, kMaxInt, "NONNEGATIVE"));
  cmd->add_option("--smem", o->smem, "Static shared memory per block (bytes)")
      ->check(CLI::Range(0LL, kMaxLongLong, "NONNEGATIVE"));
  cmd->add_option("--dynamic-smem", o->dynamicSmem, "Dynamic shared memory per block (bytes)")
      ->check(CLI::Range(0LL, kMaxLongLong, "NONNEGATIVE"));
  cmd->add_option("--cache-config", o->cacheConfig, "prefer-none|prefer-shared|prefer-l1|prefer-equal");
  cmd->add_option("--carveout", o->carveout, "Shared memory carveout percent (CC 7.0+)")
      ->check(CLI::Range(arch::kCarveoutMaxL1, arch::kCarveoutMaxShared));
  cmd->add_option("--grid", o->grid, "Blocks in the grid (enables the grid-size advice)")
      ->check(CLI::Range(1LL, kMaxLongLong, "POSITIVE"));
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_flag("--csv", o->csv,
                "Print the result in Nsight Compute's CSV layout (Device, CC, Block Size, Section Name, Metric Name, "
                "Metric Unit, Metric Value; a block of rows per GPU of --compare)")
      ->excludes("--json");
  cmd->add_option("--chart", o->chart, "Write the three charts: FILE.svg, or FILE.html with the results");
  cmd->add_option("--kernel", o->kernel, "Take registers and shared memory from a PTX kernel");
  cmd->add_option("--entry", o->entry, "Kernel of --kernel (default: the only or first one)");
  cmd->add_option("--build-options", o->buildOptions, "An OpenCL C kernel file's build options (\"-D N=4\")");
  cmd->add_option("--compare", o->compare, "Several architectures side by side: sm_20,sm_30,sm_35,sm_37");
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    return runOccupancy(*o);
  };
}

} // namespace ptxray::cli
