#include "exactsample/targets.hpp"

#include <hwy/highway.h>
#include <hwy/targets.h>

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

std::vector<TargetInfo> compiled_targets() {
  // A forced target shows as a mocked SupportedTargets(); note it, visit
  // every target, then put it back.
  const int64_t visible = hwy::SupportedTargets();
  hwy::SetSupportedTargetsForTest(0);
  const int64_t supported = hwy::SupportedTargets();
  const int64_t usable = visible & HWY_TARGETS;
  const int64_t active = usable & -usable;  // the lowest bit is the best
  const simd::ExpVariant process = simd::ProcessExp().variant;
  std::vector<TargetInfo> out;
  for (int64_t bit : CompiledTargetBits()) {
    TargetInfo t{hwy::TargetName(bit), (supported & bit) != 0, bit == active, ""};
    if (t.supported) {
      hwy::SetSupportedTargetsForTest(bit);
      t.exp = ExpPath(simd::TargetExpVariant(process));
    }
    out.push_back(t);
  }
  hwy::SetSupportedTargetsForTest(visible == supported ? 0 : visible);
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
