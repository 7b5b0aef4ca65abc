// `ptxray archs` lists every modeled GPU with its key figures; `ptxray arch NAME` shows one GPU or
// compute capability in full, including theoretical memory bandwidth.
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <memory>

namespace ptxray::cli {
namespace {

nlohmann::json ccJson(const arch::ComputeCapability &cc) {
  return {
      {"compute_capability", cc.version()},
      {"sm", cc.smName()},
      {"architecture", cc.architecture},
      {"warp_size", cc.warpSize},
      {"max_threads_per_sm", cc.maxThreadsPerSm},
      {"max_warps_per_sm", cc.maxWarpsPerSm},
      {"max_blocks_per_sm", cc.maxBlocksPerSm},
      {"max_threads_per_block", cc.maxThreadsPerBlock},
      {"registers_per_sm", cc.registersPerSm},
      {"max_registers_per_block", cc.maxRegistersPerBlock},
      {"max_registers_per_thread", cc.maxRegistersPerThread},
      {"register_allocation_unit", cc.registerAllocationUnit},
      {"register_allocation_granularity",
       cc.registerAllocationGranularity == arch::RegisterAllocationGranularity::Block ? "block" : "warp"},
      {"shared_per_sm", cc.sharedPerSm},
      {"shared_per_block", cc.sharedPerBlock},
      {"shared_per_block_optin", cc.sharedPerBlockOptIn},
      {"shared_reserved_per_block", cc.sharedReservedPerBlock},
      {"shared_allocation_unit", cc.sharedAllocationUnit},
      {"max_concurrent_kernels", cc.maxResidentGrids},
      {"hyper_q_queues", cc.hardwareWorkQueues},
      {"dynamic_parallelism", cc.dynamicParallelism},
  };
}

nlohmann::json gpuJson(const arch::Gpu &gpu) {
  nlohmann::json j = {
      {"name", gpu.name},
      {"chip", gpu.chip},
      {"aliases", gpu.aliases},
      {"sm_count", gpu.smCount},
      {"base_clock_mhz", gpu.baseClockMHz},
      {"boost_clocks_mhz", gpu.boostClocksMHz},
      {"memory_type", gpu.memoryType},
      {"memory_clock_mhz", gpu.memoryClockMHz},
      {"memory_bus_width_bits", gpu.memoryBusWidthBits},
      {"memory_bytes", gpu.memoryBytes},
      {"l2_bytes", gpu.l2CacheBytes},
      {"bandwidth_gb_s", gpu.theoreticalBandwidthGBps()},
      {"bandwidth_gib_s", gpu.theoreticalBandwidthGiBps()},
      {"pcie_generation", gpu.pcieGeneration ? nlohmann::json(*gpu.pcieGeneration) : nlohmann::json(nullptr)},
      {"copy_engines", gpu.copyEngines},
      {"ecc", gpu.ecc},
      {"gpus_per_board", gpu.gpusPerBoard},
      {"max_concurrent_kernels", gpu.maxConcurrentKernels()},
      {"hyper_q_queues", gpu.hyperQQueues()},
      {"dynamic_parallelism", gpu.dynamicParallelism()},
  };
  j["compute_capability"] = ccJson(gpu.computeCapability());
  return j;
}

std::string gpuText(const arch::Gpu &gpu) {
  const arch::ComputeCapability &cc = gpu.computeCapability();
  std::string boost;
  for (int b : gpu.boostClocksMHz)
    boost += fmt::format("{}{}", boost.empty() ? "" : ", ", b);
  std::string out = fmt::format("{} ({}, {} {}, compute capability {})\n", gpu.name, gpu.chip, cc.architecture,
                                cc.smName(), cc.version());
  out += fmt::format("  SMs                   {}{}\n", gpu.smCount,
                     gpu.gpusPerBoard > 1 ? fmt::format(" per GPU, {} GPUs per board", gpu.gpusPerBoard) : "");
  out += fmt::format("  clocks                {} MHz base{}\n", gpu.baseClockMHz,
                     boost.empty() ? "" : fmt::format(", boost {} MHz", boost));
  out += fmt::format("  memory                {} GiB {}, {}-bit bus at {} MHz x{}\n",
                     static_cast<double>(gpu.memoryBytes) / (1u << 30), gpu.memoryType, gpu.memoryBusWidthBits,
                     gpu.memoryClockMHz, gpu.memoryTransfersPerClock);
  // Truncated to 0.1 as the guide writes it (GTX 280: 141.696 GB/s is "141.6 GB/s").
  auto tenths = [](double v) { return std::floor(v * 10) / 10; };
  out += fmt::format("  theoretical bandwidth {:.1f} GB/s ({:.1f} GiB/s)\n", tenths(gpu.theoreticalBandwidthGBps()),
                     tenths(gpu.theoreticalBandwidthGiBps()));
  out += fmt::format("  L2 cache              {} KiB\n", gpu.l2CacheBytes / 1024);
  out += fmt::format("  PCIe                  {}, {} copy engine{}, ECC {}\n",
                     gpu.pcieGeneration ? fmt::format("gen {}", *gpu.pcieGeneration) : std::string("integrated"),
                     gpu.copyEngines, gpu.copyEngines == 1 ? "" : "s", gpu.ecc ? "yes" : "no");
  out += fmt::format("  concurrency           {} concurrent kernels, {} hardware queue{}, dynamic parallelism {}\n",
                     gpu.maxConcurrentKernels(), gpu.hyperQQueues(), gpu.hyperQQueues() == 1 ? "" : "s",
                     gpu.dynamicParallelism() ? "yes" : "no");
  out += fmt::format("  per SM                {} threads, {} warps, {} blocks, {} registers, {} B shared max\n",
                     cc.maxThreadsPerSm, cc.maxWarpsPerSm, cc.maxBlocksPerSm, cc.registersPerSm, cc.sharedPerSm);
  out += fmt::format("  per block             {} threads, {} registers, {} B shared ({} B opt-in)\n",
                     cc.maxThreadsPerBlock, cc.maxRegistersPerBlock, cc.sharedPerBlock, cc.sharedPerBlockOptIn);
  out += fmt::format("  per thread            {} registers max\n", cc.maxRegistersPerThread);
  return out;
}

} // namespace

CommandRunner addArchsCommand(CLI::App &app) {
  auto json = std::make_shared<bool>(false);
  CLI::App *cmd = app.add_subcommand("archs", "List every modeled GPU");
  cmd->add_flag("--json", *json, "Print as JSON");
  return [cmd, json]() -> int {
    if (!cmd->parsed())
      return -1;
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const arch::Gpu &gpu : arch::gpus())
        all.push_back(gpuJson(gpu));
      std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return 0;
    }
    std::cout << fmt::format("{:<18} {:<8} {:<8} {:>4} {:>5} {:>10} {:>9}\n", "GPU", "chip", "sm", "SMs", "MHz", "GB/s",
                             "L2 KiB");
    for (const arch::Gpu &gpu : arch::gpus())
      std::cout << fmt::format("{:<18} {:<8} {:<8} {:>4} {:>5} {:>10.1f} {:>9}\n", gpu.name, gpu.chip,
                               gpu.computeCapability().smName(), gpu.smCount, gpu.maxBoostClockMHz(),
                               gpu.theoreticalBandwidthGBps(), gpu.l2CacheBytes / 1024);
    return 0;
  };
}

CommandRunner addArchCommand(CLI::App &app) {
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App *cmd = app.add_subcommand("arch", "Show one GPU or compute capability");
  cmd->add_option("name", *name, "GPU (k40, gtx680, h100...) or compute capability (sm_35, 3.5)")->required();
  cmd->add_flag("--json", *json, "Print as JSON");
  return [cmd, name, json]() -> int {
    if (!cmd->parsed())
      return -1;
    arch::ArchLookup lookup = arch::findArch(*name);
    if (!lookup) {
      std::cerr << "ptxray: error: " << lookup.error << "\n";
      return 2;
    }
    const arch::ArchTarget &t = *lookup.target;
    if (*json) {
      std::cout << (t.gpu ? gpuJson(*t.gpu) : ccJson(*t.computeCapability))
                       .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                << "\n";
      return 0;
    }
    if (t.gpu) {
      std::cout << gpuText(*t.gpu);
      return 0;
    }
    std::cout << ccJson(*t.computeCapability).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  };
}

} // namespace ptxray::cli
