#include "exactsample/testing.hpp"

#include "exactsample/targets.hpp"

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <string>

namespace exactsample::testing {

Result<std::monostate> force_target(std::string_view name) {
  if (name.empty()) {
    hwy::SetSupportedTargetsForTest(0);
    return std::monostate{};
  }
  hwy::SetSupportedTargetsForTest(0);
  compiled_targets();  // asks each target's exp path before any is forced
  const int64_t supported = hwy::SupportedTargets();
  std::string known;
  for (int64_t rest = HWY_TARGETS; rest != 0; rest &= rest - 1) {
    const int64_t bit = rest & -rest;
    if (name == hwy::TargetName(bit)) {
      if ((supported & bit) == 0) {
        return Error{ErrorCode::invalid_parameter, "target",
                     "target = " + std::string(name) +
                         ": compiled in but not supported by this CPU"};
      }
      hwy::SetSupportedTargetsForTest(bit);
      return std::monostate{};
    }
    known += (known.empty() ? "" : ", ") + std::string(hwy::TargetName(bit));
  }
  return Error{ErrorCode::invalid_parameter, "target",
               "target = " + std::string(name) +
                   ": unknown; compiled targets are " + known};
}

}  // namespace exactsample::testing
