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
  // How the fast engine computes exp on this target (supported ones only):
  // "vector fused replica", "vector unfused replica" or "libm per element".
  std::string exp;
};

// Best first. The first call visits each target to ask how it computes
// exp: make it before other threads sample (force_target's rule).
std::vector<TargetInfo> compiled_targets();

// Which of glibc's exp variants this process's std::exp is, and why the
// fast engine believes it: "fused: ...", "unfused: ...", or "libm: ..." when
// neither replica matched, the floating-point environment is not the
// default, or EXACTSAMPLE_FORCE_LIBM_EXP is set.
std::string exp_choice();

// Makes the fast engine run on the named target from now on, process-wide
// (for audits, tests and benchmarks; not meant to change while other threads
// sample). "" restores the best supported target. Errors name the target.
Result<std::monostate> force_target(std::string_view name);

}  // namespace exactsample
