#include "exactsample/targets.hpp"

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <map>
#include <string>

#include "simd/exp_sum.hpp"
#include "simd/exp_choice.hpp"

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

// How each supported target computes exp, asked once.
const std::map<int64_t, std::string>& ExpPaths() {
  static const std::map<int64_t, std::string> paths = [] {
    const simd::ExpVariant process = simd::ProcessExp().variant;
    std::map<int64_t, std::string> out;
    for (int64_t bit : CompiledTargetBits()) {
      if ((hwy::SupportedTargets() & bit) != 0) {
        out[bit] = ExpPath(simd::ExpVariantOn(bit, process));
      }
    }
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

}  // namespace exactsample
