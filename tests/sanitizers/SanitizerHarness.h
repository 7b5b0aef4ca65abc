// Test helper: runs a spec with racecheck, synccheck, initcheck and the leak check listening (or a PTX
// kernel with racecheck and synccheck), and keeps every launch's reports.
#pragma once

#include "sanitizers/Initcheck.h"
#include "sanitizers/Leakcheck.h"
#include "sanitizers/Racecheck.h"
#include "sanitizers/Synccheck.h"
#include "session/RunSpec.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"
#include "vm/ListenerGroup.h"

#include <string>
#include <vector>

namespace ptxray::test {

struct ToolReports {
  std::vector<sanitizers::Hazard> racecheck, synccheck, initcheck;
  std::vector<sanitizers::Hazard> leaks; ///< at the end of the run
  session::RunOutcome outcome;
  uint64_t raceErrors = 0, raceWarnings = 0, syncErrors = 0, initErrors = 0;
  uint64_t leakedBlocks = 0, leakedBytes = 0;
};

inline int smVersion(const char *arch) {
  const arch::ComputeCapability &cc = computeCapability(arch);
  return cc.major * 10 + cc.minor;
}

/// Runs `spec` with every tool on the device `arch`; with `memcheck`, launches go on after a memory
/// error and report every one (`ptxray run --memcheck`), else they stop at the first.
inline ToolReports runWithTools(const session::RunSpec &spec, const char *arch = "sm_90", unsigned workers = 1,
                                bool globalMemory = false, bool memcheck = false) {
  sanitizers::Racecheck racecheck({smVersion(arch), globalMemory});
  sanitizers::Synccheck synccheck;
  sanitizers::Initcheck initcheck;
  sanitizers::Leakcheck leakcheck;
  vm::ListenerGroup group;
  group.add(&racecheck);
  group.add(&synccheck);
  group.add(&initcheck);
  group.add(&leakcheck);
  ToolReports reports;
  session::RunOptions options;
  options.target = *arch::findArch(arch).target;
  options.writeOutputs = false;
  options.launch.threads = workers;
  options.launch.continueOnError = memcheck;
  options.listener = &group;
  options.onLaunch = [&](const session::LaunchReport &r) {
    if (r.result.status == vm::LaunchStatus::Refused)
      return;
    reports.racecheck.insert(reports.racecheck.end(), racecheck.launchHazards().begin(),
                             racecheck.launchHazards().end());
    reports.synccheck.insert(reports.synccheck.end(), synccheck.launchHazards().begin(),
                             synccheck.launchHazards().end());
    reports.initcheck.insert(reports.initcheck.end(), initcheck.launchHazards().begin(),
                             initcheck.launchHazards().end());
  };
  reports.outcome = session::runSpec(spec, options);
  reports.raceErrors = racecheck.errors();
  reports.raceWarnings = racecheck.warnings();
  reports.syncErrors = synccheck.errors();
  reports.initErrors = initcheck.errors();
  reports.leaks = leakcheck.leaks();
  reports.leakedBlocks = leakcheck.leakedBlocks();
  reports.leakedBytes = leakcheck.leakedBytes();
  return reports;
}

inline session::RunSpec sanitizerSpec(const std::string &name) {
  return session::loadRunSpec(sourceDir() / "tests/kernels/sanitizers/specs" / (name + ".json"));
}

/// The same spec with its module compiled for another target: `compute_75` (nvcc) or `clang_sm35`
/// (clang 14), the PTX gen-ptx.sh writes to tests/kernels/sanitizers/ptx/TARGET/.
inline session::RunSpec sanitizerSpecFor(const std::string &name, const std::string &target) {
  session::RunSpec spec = sanitizerSpec(name);
  spec.module = spec.module.parent_path() / target / spec.module.filename();
  return spec;
}

/// Every report, for failure messages.
inline std::string describeAll(const std::vector<sanitizers::Hazard> &hazards) {
  std::string out;
  for (const sanitizers::Hazard &h : hazards)
    out += h.describe();
  return out;
}

/// One launch of an inline PTX kernel with both tools listening.
struct InlineRun {
  std::vector<sanitizers::Hazard> racecheck, synccheck;
  vm::LaunchResult result;
};

/// An argument runInline allocates in its own device: a zeroed buffer of `words` 32-bit words (an
/// address from another device would land in whatever this one placed there: its heap).
struct OutputWords {
  size_t words;
};
template <typename T> T materialize(VmHarness &, T arg) {
  return arg;
}
inline uint64_t materialize(VmHarness &vm, OutputWords o) {
  return vm.zeros<uint32_t>(o.words);
}

template <class... Args>
InlineRun runInline(const std::string &ptx, const std::string &kernel, vm::Dim3 grid, vm::Dim3 block, bool globalMemory,
                    Args... args) {
  VmHarness vm;
  sanitizers::Racecheck racecheck({90, globalMemory});
  sanitizers::Synccheck synccheck;
  vm::ListenerGroup group;
  group.add(&racecheck);
  group.add(&synccheck);
  vm.device.setListener(&group);
  vm::LoadedModule &module = vm.load(sm90Module(ptx));
  InlineRun run;
  run.result = vm.launch(module, kernel, grid, block, materialize(vm, args)...);
  run.racecheck = racecheck.launchHazards();
  run.synccheck = synccheck.launchHazards();
  return run;
}

} // namespace ptxray::test
