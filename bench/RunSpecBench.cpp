// A whole `ptxray run` as users run it (issue #16): a memory-bound launch over buffers of 16 MiB that
// the spec fills with `iota` and `random`. Setting the buffers up is part of the timed run, so its
// serial part shows in the scaling: BM_SpecLargeBuffers/<workers> reports thread-instructions per
// second of the whole run (module load, allocation, initialization, the launch).
#include "RealKernels.h"

#include "session/RunSpec.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

namespace {

using namespace ptxray;

std::string sourceDir() {
  const char *dir = std::getenv("PTXRAY_SOURCE_DIR");
  return dir && *dir ? dir : PTXRAY_SOURCE_DIR;
}

/// saxpy over 4M floats: x is `iota`, y `random`, 16 MiB each.
session::RunSpec largeBufferSpec() {
  const std::string text = R"({"module": ")" + sourceDir() + R"(/examples/saxpy.ptx",
    "buffers": [{"name": "x", "bytes": 16777216, "init": {"iota": {"dtype": "f32"}}},
                {"name": "y", "bytes": 16777216, "init": {"random": {"dtype": "f32", "seed": 1, "min": -1, "max": 1}}}],
    "launches": [{"kernel": "_Z5saxpyifPKfPf", "grid": [16384], "block": [256],
                  "args": [{"type": "s32", "value": 4194304}, {"type": "f32", "value": 2.5},
                           {"buffer": "x"}, {"buffer": "y"}]}]})";
  return session::parseRunSpecText(text, "large-buffers.json", {});
}

void BM_SpecLargeBuffers(benchmark::State &state) {
  const session::RunSpec spec = largeBufferSpec();
  session::RunOptions options;
  options.launch.threads = static_cast<unsigned>(state.range(0));
  options.writeOutputs = false;
  uint64_t instructions = 0;
  for (auto _ : state) {
    session::RunOutcome outcome = session::runSpec(spec, options);
    if (!outcome.ok() || outcome.launches.empty()) {
      state.SkipWithError("the run failed");
      return;
    }
    instructions += outcome.launches[0].result.threadInstructions;
  }
  state.counters["thread_instr_per_s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}

void workerArgs(benchmark::internal::Benchmark *b) {
  for (int64_t w : bench::workerCounts())
    b->Arg(w);
}

BENCHMARK(BM_SpecLargeBuffers)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);

} // namespace
