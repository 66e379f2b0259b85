// For audits, tests and benchmarks only: running the fast engine on a chosen
// SIMD target instead of the best one the CPU supports. It drives Highway's
// test hook and is process-wide: call it before other threads sample, never
// while they do.
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

#include <string_view>
#include <variant>

#include "exactsample/exactsample.hpp"

namespace exactsample::testing {

// Makes the fast engine run on the named target (a name from
// compiled_targets()) from now on; "" restores the best supported target.
// Errors name the target: unknown, or not supported by this CPU.
EXACTSAMPLE_API Result<std::monostate> force_target(std::string_view name);

}  // namespace exactsample::testing

#endif  // EXACTSAMPLE_CXX20
