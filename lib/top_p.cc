// Step 7: the first id in (t desc, id asc) order whose running sum of q
// reaches p stays; everything after it goes.
#include "lib/steps.hpp"
#include "simd/exact_sum.hpp"
#include "simd/filter.hpp"

namespace exactsample {

double TopPCandidateThreshold(double z, size_t n, double p) {
  return (1.0 - p) * z / (2.0 * static_cast<double>(n));
}

simd::Cut TopP(KeptSet& kept, const SamplingParams& params, detail::WorkspaceImpl& ws) {
  const double p = params.top_p;
  simd::Cut cut;
  if (p >= 1.0) return cut;
  const auto cut_over = [&](const KeptSet& k) {
    return simd::NucleusCut(k.l, params.temperature, k.e, k.n, k.z, p, ws.ids);
  };
  // Candidates first: the ids below x = (1 - p) Z / 2V hold at most half the
  // mass top-p drops, so on a peaked row the walk crosses p among the few
  // ids above x, with the same cut as over all of K.
  const KeptSet whole = kept;
  if (kept.id_of == nullptr &&
      CompactPrefix(kept, TopPCandidateThreshold(kept.z, kept.n, p), ws)) {
    cut = cut_over(kept);
    if (!cut.found) kept = whole;
  }
  if (!cut.found) cut = cut_over(kept);
  if (cut.found) {
    simd::ZeroAfter(kept.l, params.temperature, kept.e, kept.n, cut.t,
                    static_cast<int32_t>(cut.id));
    kept.z = simd::ExactSum(kept.e, kept.n);
    kept.sums.reset();
  }
  return cut;
}

}  // namespace exactsample
