#include "exactsample/targets.hpp"

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <map>
#include <string>

#include "simd/exp_sum.hpp"
#include "simd/exp_variant.hpp"

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

const char* ExpPath(simd::ExpVariant v) {
  switch (v) {
    case simd::ExpVariant::fused: return "vector fused replica";
    case simd::ExpVariant::unfused: return "vector unfused replica";
    case simd::ExpVariant::libm: break;
  }
  return "libm per element";
}

// How each supported target computes exp. Asking means dispatching on
// every target in turn, so it is done once, restoring a forced target.
const std::map<int64_t, std::string>& ExpPaths() {
  static const std::map<int64_t, std::string> paths = [] {
    const int64_t visible = hwy::SupportedTargets();
    hwy::SetSupportedTargetsForTest(0);
    const int64_t supported = hwy::SupportedTargets();
    const simd::ExpVariant process = simd::ProcessExp().variant;
    std::map<int64_t, std::string> out;
    for (int64_t bit : CompiledTargetBits()) {
      if ((supported & bit) == 0) continue;
      hwy::SetSupportedTargetsForTest(bit);
      out[bit] = ExpPath(simd::TargetExpVariant(process));
    }
    hwy::SetSupportedTargetsForTest(visible == supported ? 0 : visible);
    return out;
  }();
  return paths;
}

std::vector<TargetInfo> compiled_targets() {
  const std::map<int64_t, std::string>& paths = ExpPaths();
  // A forced target shows as a mocked SupportedTargets().
  const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
  const int64_t active = usable & -usable;  // the lowest bit is the best
  std::vector<TargetInfo> out;
  for (int64_t bit : CompiledTargetBits()) {
    const auto path = paths.find(bit);
    out.push_back({hwy::TargetName(bit), path != paths.end(), bit == active,
                   path != paths.end() ? path->second : ""});
  }
  return out;
}

std::string exp_choice() {
  const simd::ExpChoice& c = simd::ProcessExp();
  return std::string(simd::ToString(c.variant)) + ": " + c.reason;
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
