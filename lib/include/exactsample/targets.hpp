// The SIMD targets the fast engine was compiled for, and forcing one.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample {

struct TargetInfo {
  std::string name;  // Highway's name: "AVX3", "AVX2", "SSE4", ...
  bool supported;    // by this CPU
  bool active;       // the one the fast engine dispatches to now
};

// Best first.
std::vector<TargetInfo> compiled_targets();

// Makes the fast engine run on the named target from now on, process-wide
// (for audits, tests and benchmarks; not meant to change while other threads
// sample). "" restores the best supported target. Errors name the target.
Result<std::monostate> force_target(std::string_view name);

}  // namespace exactsample
