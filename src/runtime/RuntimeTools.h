// The tools a program runs under (PTXRAY_TOOL, PTXRAY_METRICS_JSON, PTXRAY_REPORT): compute-sanitizer's
// checkers and the performance model as listeners of every launch, their reports printed on stderr as
// the program goes; at the end their summaries, the metrics file and the advisor's report.
#pragma once

#include "report/AnalysisReport.h"
#include "runtime/Runtime.h"
#include "runtime/SessionRecorder.h"
#include "vm/ListenerGroup.h"

#include <memory>
#include <optional>
#include <string>

namespace ptxray::model {
class PerformanceModel;
}
namespace ptxray::sanitizers {
class Racecheck;
class Synccheck;
class Initcheck;
class Leakcheck;
} // namespace ptxray::sanitizers

namespace ptxray::runtime {

class RuntimeTools {
public:
  /// Throws std::invalid_argument for an unknown tool name.
  RuntimeTools(const RuntimeConfig &config, const arch::ArchTarget &target, vm::Device &device);
  ~RuntimeTools();

  bool memcheck() const { return memcheck_; }
  vm::ExecutionListener *listener() { return listeners_.single(); }
  /// After a launch on `stream` (the session's stream number): prints its hazards, records it in the
  /// session (PTXRAY_TIMELINE); returns the modeled kernel time in seconds when the model ran.
  std::optional<double> afterLaunch(const vm::LaunchResult &result, StreamRef stream = {});
  /// The session being recorded (PTXRAY_TIMELINE), or null.
  SessionRecorder *session() { return session_.get(); }
  /// At exit: leak reports, summaries, the metrics file.
  void finish();

private:
  const RuntimeConfig &config_;
  vm::ListenerGroup listeners_;
  bool memcheck_ = false;
  uint64_t memcheckErrors_ = 0;
  std::unique_ptr<sanitizers::Racecheck> racecheck_;
  std::unique_ptr<sanitizers::Synccheck> synccheck_;
  std::unique_ptr<sanitizers::Initcheck> initcheck_;
  std::unique_ptr<sanitizers::Leakcheck> leakcheck_;
  std::unique_ptr<model::PerformanceModel> model_;
  std::unique_ptr<SessionRecorder> session_;
  /// PTXRAY_REPORT: per kernel, the analysis of its costliest launch (a program may launch a kernel
  /// thousands of times; the report shows each kernel once), in first-launch order.
  std::vector<std::unique_ptr<model::LaunchProfile>> profiles_;
  std::vector<report::Analysis> analyses_;
  void advise(const arch::ArchTarget &target);
  arch::ArchTarget target_;
};

} // namespace ptxray::runtime
