// Runs the CTAs of a launch: a CTA's warps in turn on one worker until they finish, wait at a
// barrier, poll memory, or the launch stops. A CTA is resumable (CtaRun), so that a worker can keep
// several resident and switch between them when they wait for each other (vm/Scheduler.h).
#pragma once

#include "vm/Exec.h"

#include <string_view>

namespace ptxray::vm {

/// What one CtaRun::run() call ended with.
enum class CtaStep : uint8_t {
  Done,    ///< every warp finished, or the launch aborted
  Polling, ///< every warp that could run spent a whole scheduling round polling memory nothing changed
};

/// One resident CTA: its warps, shared memory and barriers, resumable between run() calls.
/// `slot` is the listener slot its events carry (WarpRef::worker): one CTA per slot at a time.
class CtaRun {
public:
  /// `storage`: a finished CTA's (finish()), whose memory this one reuses.
  CtaRun(LaunchState &launch, uint64_t linearCtaId, unsigned slot, Cta storage = {});
  CtaRun(const CtaRun &) = delete;
  CtaRun &operator=(const CtaRun &) = delete;
  ~CtaRun();

  /// Runs scheduling rounds over the warps until the CTA is done or a round in which every warp
  /// that ran only polled. Each round that made progress bumps LaunchState::progress.
  CtaStep run();
  /// Reports the CTA as hung (FaultKind::Livelock): each warp's line, then `why`. Aborts the launch.
  void reportHang(std::string_view why);

  /// Ends the CTA (the listeners' onCtaEnd) and hands back its storage for the worker's next one.
  Cta finish();
  /// Folds the warps' latest clock reads into the launch's (LaunchResult::clockCycles).
  void noteClockReads();

  uint64_t linearId() const { return cta_.linearId; }
  unsigned slot() const { return ctx_.worker; }

private:
  /// One round: every ready warp runs until it yields. False when no warp could run (a barrier
  /// deadlock, reported) or the launch aborted.
  bool round(bool &polling);

  LaunchState &launch_;
  Cta cta_;
  ExecContext ctx_;
  bool finished_ = false;
};

} // namespace ptxray::vm
