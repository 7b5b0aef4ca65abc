// Test helper: with PTXRAY_TEST_SANITIZERS set in the environment, every VmHarness runs its launches
// under racecheck, synccheck, initcheck and the leak check, and a test fails when any of them reports
// something. tests/CMakeLists.txt runs the suites of correct kernels this way (sanitizers.*_clean).
#pragma once

#include "sanitizers/Initcheck.h"
#include "sanitizers/Leakcheck.h"
#include "sanitizers/Racecheck.h"
#include "sanitizers/Synccheck.h"
#include "vm/ListenerGroup.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace ptxray::test {

class SanitizerWatch : public vm::Listener {
public:
  /// A watch when PTXRAY_TEST_SANITIZERS is set, else null. `smVersion` decides intra-warp hazards.
  static std::unique_ptr<SanitizerWatch> fromEnvironment(int smVersion) {
    const char *value = std::getenv("PTXRAY_TEST_SANITIZERS");
    if (!value || !*value)
      return nullptr;
    return std::make_unique<SanitizerWatch>(smVersion);
  }

  explicit SanitizerWatch(int smVersion) : racecheck_({smVersion, false}) {
    group_.add(&racecheck_);
    group_.add(&synccheck_);
    group_.add(&initcheck_);
    group_.add(&leakcheck_);
    group_.add(this); // last: the tools have made their launch's reports when it hears the end
  }
  SanitizerWatch(const SanitizerWatch &) = delete;
  SanitizerWatch &operator=(const SanitizerWatch &) = delete;

  vm::Listener *listener() { return &group_; }

  void onLaunchEnd() override {
    for (const auto *hazards : {&racecheck_.launchHazards(), &synccheck_.launchHazards(), &initcheck_.launchHazards()})
      for (const sanitizers::Hazard &h : *hazards)
        reports_ += h.describe();
  }

  /// Fails the running test when a tool reported something (leaks: blocks still allocated now).
  void expectClean() {
    for (const sanitizers::Hazard &h : leakcheck_.leaks())
      reports_ += h.describe();
    EXPECT_EQ(reports_, "") << "sanitizer reports on a kernel the test runs as correct";
  }

private:
  sanitizers::Racecheck racecheck_;
  sanitizers::Synccheck synccheck_;
  sanitizers::Initcheck initcheck_;
  sanitizers::Leakcheck leakcheck_;
  vm::ListenerGroup group_;
  std::string reports_;
};

} // namespace ptxray::test
