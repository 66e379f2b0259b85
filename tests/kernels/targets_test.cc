// The targets a run expects (EXACTSAMPLE_EXPECT_TARGETS, comma-separated
// Highway names) are compiled in and supported. Per-target tests are named
// after the targets found when they are listed; a run under a CPU (or an
// emulator's CPU model) that lacks one would pass by running nothing, so
// the cross-architecture runs in .ci/run state what they expect here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "exactsample/targets.hpp"

namespace exactsample {
namespace {

TEST(Targets, ThoseTheRunExpectsAreSupported) {
  const char* expected = std::getenv("EXACTSAMPLE_EXPECT_TARGETS");
  if (expected == nullptr) GTEST_SKIP() << "EXACTSAMPLE_EXPECT_TARGETS not set";
  const std::vector<TargetInfo> targets = compiled_targets();
  std::istringstream names(expected);
  int count = 0;
  for (std::string name; std::getline(names, name, ',');) {
    bool supported = false;
    for (const TargetInfo& t : targets) supported |= t.name == name && t.supported;
    EXPECT_TRUE(supported) << name << " is not a supported target here";
    ++count;
  }
  EXPECT_GT(count, 0) << "EXACTSAMPLE_EXPECT_TARGETS is empty";
}

TEST(Targets, ExactlyOneSupportedTargetIsActive) {
  int supported = 0, active = 0;
  for (const TargetInfo& t : compiled_targets()) {
    supported += t.supported;
    active += t.active;
    EXPECT_TRUE(t.supported || !t.active) << t.name;
  }
  EXPECT_GT(supported, 0);
  EXPECT_EQ(active, 1);
}

}  // namespace
}  // namespace exactsample
