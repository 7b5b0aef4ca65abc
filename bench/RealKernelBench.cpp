// VM throughput on the real-kernel set (RealKernels.h, issue #16), in thread-instructions per second:
// BM_Real/<kernel>/<workers> per kernel, plain; BM_RealGeomean/<workers>/<listeners> runs the whole
// set per iteration and reports the geometric mean of the kernels' rates (`geomean_per_s`), plain
// (0) and with the performance model listening (1). README.md ("Speed") records the table.
#include "RealKernels.h"

#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "vm/Device.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

using namespace ptxray;

const arch::ComputeCapability &sm90() {
  return *arch::findArch("sm_90").target->computeCapability;
}

std::string readPtx() {
  std::ifstream in(bench::realKernelsPtxPath());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// One case, set up on its own device.
struct Prepared {
  std::unique_ptr<bench::RealKernel> kernel;
  std::unique_ptr<vm::Device> device;
  vm::LoadedModule *module = nullptr;
  std::vector<bench::RealLaunch> launches;
};

Prepared prepare(std::unique_ptr<bench::RealKernel> kernel) {
  Prepared p;
  p.kernel = std::move(kernel);
  p.device = std::make_unique<vm::Device>(sm90(), 132);
  p.module = &p.device->loadModule("real_kernels.ptx", readPtx());
  p.kernel->setUp(*p.device);
  p.launches = p.kernel->launches();
  return p;
}

/// Runs the case's launches once; thread-instructions retired, or an error.
bool runOnce(Prepared &p, const vm::LaunchOptions &options, uint64_t &instructions, std::string &error) {
  for (const bench::RealLaunch &l : p.launches) {
    vm::LaunchResult r = p.device->launch(*p.module, l.entry, l.config, l.args, options);
    if (!r.ok()) {
      error = p.kernel->name() + ": " + r.error;
      return false;
    }
    instructions += r.threadInstructions;
  }
  return true;
}

void BM_Real(benchmark::State &state, size_t index) {
  Prepared p = prepare(std::move(bench::realKernels()[index]));
  vm::LaunchOptions options;
  options.threads = static_cast<unsigned>(state.range(0));
  uint64_t instructions = 0;
  std::string error;
  for (auto _ : state)
    if (!runOnce(p, options, instructions, error)) {
      state.SkipWithError(error.c_str());
      return;
    }
  state.SetItemsProcessed(static_cast<int64_t>(instructions));
  state.counters["thread_instr_per_s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}

void BM_RealGeomean(benchmark::State &state) {
  std::vector<Prepared> all;
  for (auto &k : bench::realKernels())
    all.push_back(prepare(std::move(k)));
  model::PerformanceModel perf(*arch::findArch("sm_90").target);
  vm::LaunchOptions options;
  options.threads = static_cast<unsigned>(state.range(0));
  if (state.range(1))
    for (Prepared &p : all)
      p.device->setListener(&perf);
  std::vector<double> seconds(all.size(), 0.0), instructions(all.size(), 0.0);
  std::string error;
  // One untimed pass first: the buffers' first touch (page faults) is not the VM's speed.
  for (Prepared &p : all) {
    uint64_t n = 0;
    if (!runOnce(p, options, n, error)) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  for (auto _ : state)
    for (size_t i = 0; i < all.size(); ++i) {
      uint64_t n = 0;
      const auto start = std::chrono::steady_clock::now();
      if (!runOnce(all[i], options, n, error)) {
        state.SkipWithError(error.c_str());
        return;
      }
      seconds[i] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      instructions[i] += static_cast<double>(n);
    }
  double logSum = 0;
  for (size_t i = 0; i < all.size(); ++i)
    logSum += std::log(instructions[i] / seconds[i]);
  state.counters["geomean_per_s"] = std::exp(logSum / static_cast<double>(all.size()));
}

int registerAll() {
  const auto kernels = bench::realKernels();
  const std::vector<int64_t> workers = bench::workerCounts();
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto *b = benchmark::RegisterBenchmark(("BM_Real/" + kernels[i]->name()).c_str(), BM_Real, i);
    for (int64_t w : workers)
      b->Arg(w);
    b->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  auto *mean = benchmark::RegisterBenchmark("BM_RealGeomean", BM_RealGeomean);
  for (int64_t w : workers)
    mean->Args({w, 0});
  mean->Args({workers.back(), 1})->Iterations(2)->UseRealTime()->Unit(benchmark::kMillisecond);
  return 0;
}

[[maybe_unused]] const int registered = registerAll();

} // namespace
