#include "exactsample/targets.hpp"

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <string>

namespace exactsample {
namespace {

// HWY_TARGETS as a list, best first (lowest bit = best).
std::vector<int64_t> CompiledTargetBits() {
  std::vector<int64_t> bits;
  for (int64_t rest = HWY_TARGETS; rest != 0; rest &= rest - 1) {
    bits.push_back(rest & -rest);
  }
  return bits;
}

}  // namespace

std::vector<TargetInfo> compiled_targets() {
  const int64_t supported = hwy::SupportedTargets();
  const int64_t active =
      hwy::SupportedAndGeneratedTargets().empty()
          ? 0
          : hwy::SupportedAndGeneratedTargets().front();
  std::vector<TargetInfo> out;
  for (int64_t bit : CompiledTargetBits()) {
    out.push_back({hwy::TargetName(bit), (supported & bit) != 0, bit == active});
  }
  return out;
}

Result<std::monostate> force_target(std::string_view name) {
  if (name.empty()) {
    hwy::SetSupportedTargetsForTest(0);
    return std::monostate{};
  }
  hwy::SetSupportedTargetsForTest(0);
  const int64_t supported = hwy::SupportedTargets();
  std::string known;
  for (int64_t bit : CompiledTargetBits()) {
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

}  // namespace exactsample
