// Step 8. max(q) is q of the largest logit, which every filter keeps:
// e = exp(0) = 1, so max(q) = 1 / Z and the threshold is m * (1 / Z).
#include <cmath>

#include "lib/engine/steps.hpp"
#include "simd/exact_sum.hpp"
#include "simd/filter.hpp"

namespace exactsample {
namespace {

// The smallest e with e / z >= threshold: division is monotone, so min-p
// keeps exactly the ids whose e reaches it.
double SmallestKeptE(double z, double threshold) {
  double y = threshold * z;
  while (y / z < threshold) y = std::nextafter(y, INFINITY);
  while (y > 0 && std::nextafter(y, 0.0) / z >= threshold) {
    y = std::nextafter(y, 0.0);
  }
  return y;
}

}  // namespace

std::optional<MinPCut> MinP(KeptSet& kept, double min_p, detail::WorkspaceImpl& ws) {
  if (min_p == 0.0) return std::nullopt;
  const MinPCut cut{kept.z, min_p * (1.0 / kept.z)};
  if (!InTopBuffers(kept, ws)) {
    CompactPrefix(kept, SmallestKeptE(cut.z_before, cut.threshold), ws);
  }
  simd::MinPFilter(kept.e, kept.n, cut.z_before, cut.threshold);
  kept.z = simd::ExactSum(kept.e, kept.n);
  kept.sums.reset();
  return cut;
}

}  // namespace exactsample
