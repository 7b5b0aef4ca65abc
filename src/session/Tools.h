// The tools a run listens with: compute-sanitizer's checkers and the performance model. One
// catalogue of their names (the command line, PTXRAY_TOOL and the reports spell them alike), and
// Instruments, the set of listeners of one run attached to a device's both channels (execution and
// memory events), with what they found as structured reports.
#pragma once

#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "sanitizers/Report.h"
#include "vm/Device.h"
#include "vm/ListenerGroup.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::sanitizers {
class Racecheck;
class Synccheck;
class Initcheck;
class Leakcheck;
} // namespace ptxray::sanitizers

namespace ptxray::session {

/// compute-sanitizer's tools, as ptxray runs them.
enum class Tool : uint8_t { Memcheck, Racecheck, Synccheck, Initcheck, Leakcheck };

struct ToolInfo {
  Tool tool;
  std::string_view name;        ///< "racecheck", as options spell it
  std::string_view summaryName; ///< "RACECHECK", as its summary line names it
  std::string_view rule;        ///< the advisor's correctness rule its reports become (none for memcheck:
                                ///< a faulting launch has no analysis)
  std::string_view help;        ///< what it reports, in a few words
};

/// Every tool, in the order reports and summaries are printed.
std::span<const ToolInfo> toolCatalogue();
const ToolInfo &toolInfo(Tool tool);
/// "memcheck, racecheck, synccheck, initcheck, leakcheck".
std::string toolNameList();
/// Tool names, each entry one name or a comma-separated list; repeats are kept once. Throws
/// std::invalid_argument `{where}: unknown tool "x" (memcheck, racecheck, ...)`.
std::vector<Tool> parseTools(std::span<const std::string> names, std::string_view where);

/// What listens to a run.
struct ToolSelection {
  std::vector<Tool> tools;      ///< the sanitizers (memcheck: report every fault and keep running)
  bool racecheckGlobal = false; ///< racecheck also checks global memory between threads of a block
  /// leakcheck also reports the device memory the host allocated and never freed: a program's
  /// (cudaMalloc, cuMemAlloc, clCreateBuffer), whose end is its exit, as compute-sanitizer's
  /// --leak-check full does; not a run spec's buffers, which the run owns.
  bool programAllocations = false;
  bool model = false; ///< the performance model
  model::ModelOptions modelOptions;
  bool has(Tool tool) const;
  bool anySanitizer() const { return !tools.empty(); }
};

/// The options that go with tools, checked alike for every front end: --racecheck-global needs
/// racecheck, a sanitizer JSON file needs a tool. Throws std::invalid_argument naming the options
/// (`memcheckFlag`: the command has --memcheck, as `ptxray run` does).
void checkToolOptions(const ToolSelection &selection, bool sanitizerJson, bool memcheckFlag = false);

/// One report of one tool: a memcheck fault and a racecheck hazard alike.
struct ToolReport {
  Tool tool = Tool::Memcheck;
  sanitizers::Hazard hazard;
  std::optional<vm::Fault> fault; ///< memcheck: the fault itself, as data
};

/// A tool's totals over the run, for its summary line.
struct ToolSummary {
  Tool tool = Tool::Memcheck;
  uint64_t errors = 0;
  uint64_t warnings = 0;
  uint64_t leakedBytes = 0;  ///< leakcheck
  uint64_t leakedBlocks = 0; ///< leakcheck
};

/// The listeners of one run on one target: the tools selected, attached together to a device
/// (vm::Device::setListener) before it allocates anything. Listeners never change results.
class Instruments {
public:
  Instruments(const arch::ArchTarget &target, ToolSelection selection);
  ~Instruments();
  Instruments(const Instruments &) = delete;
  Instruments &operator=(const Instruments &) = delete;

  const arch::ArchTarget &target() const { return target_; }
  const ToolSelection &selection() const { return selection_; }
  bool memcheck() const { return selection_.has(Tool::Memcheck); }
  /// The listener to attach (vm::Device::setListener, session::RunOptions::listener); null when
  /// nothing listens, so that the plain VM runs.
  vm::Listener *listener() { return group_.single(); }
  /// The same without the performance model: the sanitizers alone (null when none run).
  vm::Listener *listenerWithoutModel() { return withoutModel_.single(); }
  void attach(vm::Device &device) { device.setListener(listener()); }
  /// Launch options the tools need (memcheck keeps running after a fault).
  void configure(vm::LaunchOptions &options) const;

  /// The performance model, when selected.
  model::PerformanceModel *model() { return model_.get(); }
  /// The model's profile of the launch that just ended, when the model ran it (not refused), its
  /// time at least its warps' clock wait (vm::Listener::onClockWait); with dynamic parallelism the
  /// root of its launch tree, its child grids placed in time (PerformanceModel::finishHostLaunch).
  const model::LaunchProfile *lastProfile(const vm::LaunchResult &result);

  /// The reports of the launch that just ended, tool by tool: racecheck, synccheck and initcheck
  /// hazards, then memcheck's faults (when memcheck runs). Nothing for a refused launch. Counts
  /// memcheck's faults for its summary.
  std::vector<ToolReport> launchReports(const vm::LaunchResult &result);
  /// Device-heap blocks still allocated (leakcheck): call at the end of the run.
  std::vector<ToolReport> leakReports() const;
  /// Every selected tool's totals, in catalogue order.
  std::vector<ToolSummary> summaries() const;

private:
  arch::ArchTarget target_;
  ToolSelection selection_;
  vm::ListenerGroup group_;
  vm::ListenerGroup withoutModel_; ///< group_ less the model
  std::unique_ptr<sanitizers::Racecheck> racecheck_;
  std::unique_ptr<sanitizers::Synccheck> synccheck_;
  std::unique_ptr<sanitizers::Initcheck> initcheck_;
  std::unique_ptr<sanitizers::Leakcheck> leakcheck_;
  std::unique_ptr<model::PerformanceModel> model_;
  uint64_t memcheckErrors_ = 0;
};

/// A memcheck fault as a report: its first line the headline, the others the details.
sanitizers::Hazard faultHazard(const vm::Fault &fault);

} // namespace ptxray::session
