// The SIMD targets the fast engine was compiled for, which one it uses and
// how each computes exp. Forcing a target is for audits, tests and
// benchmarks: exactsample/testing.hpp.
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

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

// Best first. Support is read from the CPU on the first call (before any
// testing::force_target, which makes that call itself).
EXACTSAMPLE_API std::vector<TargetInfo> compiled_targets();

// Which of glibc's exp variants this process's std::exp is, and why the
// fast engine believes it: "fused: ...", "unfused: ...", or "libm: ..." when
// neither replica matched, the floating-point environment is not the
// default, or EXACTSAMPLE_FORCE_LIBM_EXP is set.
EXACTSAMPLE_API std::string exp_choice();

}  // namespace exactsample

#endif  // EXACTSAMPLE_CXX20
