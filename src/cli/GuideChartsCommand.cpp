// `ptxray guide-charts`: the OpenCL Best Practices Guide's coalescing experiments (offsetCopy, §3.2.1.3;
// strideCopy, §3.2.1.4) run on the virtual GPU with the performance model of each GPU asked for, as
// the guide's figures draw them: effective bandwidth and transactions per request against the offset
// and the stride.
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"
#include "model/PerformanceModel.h"
#include "report/CoalescingCharts.h"
#include "report/HtmlPage.h"
#include "session/Outputs.h"
#include "vm/Device.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

namespace ptxray::cli {

extern const char *const kGuideCopyPtx;

namespace {

struct GuideChartsOptions {
  std::vector<std::string> archs{"sm_10", "sm_13", "sm_20", "sm_35", "sm_90"};
  int maxStep = 32;
  uint32_t elements = 1u << 18;
  std::string html, json;
  unsigned threads = 0;
};

std::vector<std::byte> argBytes(const void *p, size_t n) {
  std::vector<std::byte> b(n);
  std::memcpy(b.data(), p, n);
  return b;
}

/// One GPU: both experiments, every offset and stride from 0 (offset) or 1 (stride) to maxStep.
report::CoalescingSeries runExperiments(const arch::ArchTarget &target, const GuideChartsOptions &o) {
  const std::string archName = target.displayName();
  const arch::ComputeCapability &cc = *target.computeCapability;
  vm::Device device(cc, target.gpu ? target.gpu->smCount : 0, target.gpu);
  const vm::LoadedModule &module = device.loadModule("examples/guide/copy.ptx", kGuideCopyPtx);
  report::CoalescingSeries series;
  series.gpu = target.displayName();
  const uint32_t block = 256;
  const uint64_t n = o.elements;
  // One input and one output large enough for the largest offset or stride.
  const uint64_t words = n * static_cast<uint64_t>(std::max(o.maxStep, 1)) + static_cast<uint64_t>(o.maxStep);
  const uint64_t in = device.allocate(words * 4, "idata"), out = device.allocate(words * 4, "odata");
  // One model hears every launch of the series (a profile each), attached while the series runs.
  model::PerformanceModel perf(target);
  struct Attached {
    vm::Device &device;
    ~Attached() { device.setListener(nullptr); }
  } attached{device};
  device.setListener(&perf);
  for (bool byStride : {false, true}) {
    for (int step = byStride ? 1 : 0; step <= o.maxStep; ++step) {
      vm::LaunchOptions launch;
      launch.threads = o.threads;
      vm::LaunchConfig config;
      config.grid = {static_cast<uint32_t>((n + block - 1) / block), 1, 1};
      config.block = {block, 1, 1};
      const int32_t value = step;
      std::vector<std::vector<std::byte>> args = {argBytes(&out, 8), argBytes(&in, 8), argBytes(&value, 4)};
      vm::LaunchResult r = device.launch(module, byStride ? "strideCopy" : "offsetCopy", config, args, launch);
      if (!r.ok() || perf.launches().empty())
        throw std::runtime_error(
            fmt::format("{} on {}: {}", byStride ? "strideCopy" : "offsetCopy", archName, r.error));
      const model::LaunchProfile &L = perf.launches().back();
      report::CoalescingPoint p;
      p.x = step;
      uint64_t requests = 0, transactions = 0, used = 0, moved = 0;
      for (const model::InstructionProfile &ip : L.instructions)
        if (ip.memory == model::MemoryKind::Load) {
          requests += ip.counters.globalRequests;
          transactions += ip.counters.globalTransactions;
          used += ip.counters.globalBytesRequested;
          moved += ip.counters.globalBytesMoved;
        }
      p.transactionsPerRequest = requests ? static_cast<double>(transactions) / static_cast<double>(requests) : 0;
      p.loadEfficiency = moved ? static_cast<double>(used) / static_cast<double>(moved) : 0;
      p.effectiveBandwidthGBps = L.time.effectiveBandwidthGBps;
      p.nanoseconds = L.time.seconds * 1e9;
      (byStride ? series.byStride : series.byOffset).push_back(p);
    }
  }
  return series;
}

nlohmann::json seriesJson(const std::vector<report::CoalescingSeries> &all) {
  nlohmann::json j = nlohmann::json::array();
  auto points = [](const std::vector<report::CoalescingPoint> &pts) {
    nlohmann::json a = nlohmann::json::array();
    for (const report::CoalescingPoint &p : pts)
      a.push_back({{"x", p.x},
                   {"transactions_per_request", p.transactionsPerRequest},
                   {"load_efficiency", p.loadEfficiency},
                   {"effective_bandwidth_gb_s", p.effectiveBandwidthGBps},
                   {"time_ns", p.nanoseconds}});
    return a;
  };
  for (const report::CoalescingSeries &s : all)
    j.push_back({{"gpu", s.gpu}, {"offset_copy", points(s.byOffset)}, {"stride_copy", points(s.byStride)}});
  return {{"schema", "ptxray-guide-charts"}, {"version", 1}, {"series", j}};
}

int guideChartsCommand(const GuideChartsOptions &o) {
  std::vector<arch::ArchTarget> targets;
  for (const std::string &a : o.archs) {
    arch::ArchLookup lookup = arch::findArch(a);
    if (!lookup) {
      std::cerr << "ptxray: error: " << lookup.error << "\n";
      return 2;
    }
    targets.push_back(*lookup.target);
  }
  std::vector<report::CoalescingSeries> all;
  try {
    for (const arch::ArchTarget &target : targets)
      all.push_back(runExperiments(target, o));
  } catch (const std::exception &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 1;
  }
  std::cout << report::coalescingText(all);
  if (!o.json.empty() && !session::writeOutput(o.json, session::jsonText(seriesJson(all)), std::cerr))
    return 1;
  if (!o.html.empty()) {
    report::HtmlPage page("ptxray: the OpenCL Best Practices Guide's coalescing experiments");
    page.addParagraph(fmt::format(
        "offsetCopy and strideCopy ([BPG] 3.2.1.3, 3.2.1.4) copying {} four-byte words in blocks of 256 threads, "
        "run on the virtual GPU with the performance model of each GPU. Bandwidth is the guide's effective "
        "bandwidth (bytes read and written over the model's time estimate).",
        o.elements));
    for (const report::LineChart &c : report::coalescingCharts(all))
      page.addChart(c);
    if (!session::writeOutput(o.html, page.render(), std::cerr))
      return 1;
  }
  return 0;
}

} // namespace

CommandRunner addGuideChartsCommand(CLI::App &app) {
  auto o = std::make_shared<GuideChartsOptions>();
  CLI::App *cmd = app.add_subcommand("guide-charts", "The OpenCL guide's coalescing experiments (offsetCopy, "
                                                     "strideCopy) on any GPUs: transactions and bandwidth");
  cmd->add_option("--arch", o->archs,
                  "GPUs or compute capabilities, comma-separated (default sm_10,sm_13,sm_20,sm_35,sm_90)")
      ->delimiter(',');
  cmd->add_option("--max", o->maxStep, "Largest offset and stride (default 32)")->check(CLI::Range(1, 64));
  cmd->add_option("--elements", o->elements, "Words each copy moves (default 262144)")
      ->check(CLI::Range(uint32_t{256}, uint32_t{1} << 22));
  cmd->add_option("--html", o->html, "FILE: the four charts on one self-contained page");
  cmd->add_option("--json", o->json, "FILE: every point as JSON");
  cmd->add_option("--threads", o->threads, "Worker threads (default: all cores)")->check(CLI::Range(0, 4096));
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    return guideChartsCommand(*o);
  };
}

} // namespace ptxray::cli
