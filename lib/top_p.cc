// Step 7: the first id in (t desc, id asc) order whose running sum of q
// reaches p stays; everything after it goes.
#include <cmath>

#include "lib/steps.hpp"
#include "simd/compact.hpp"
#include "simd/exact_sum.hpp"
#include "simd/filter.hpp"

namespace exactsample {
namespace {

// Masses summed in any order are off the walk's running sum by rounding
// only: a candidate set whose mass is below p Z (1 - 2^-20) cannot hold the
// cut, and is not tried.
constexpr double kMassMargin = 1 - 0x1p-20;

// The candidate thresholds tried over a whole row, highest first, by share
// of Z: on a peaked row a few ids with large q hold the nucleus. The first
// ones are found from the running sums' pieces alone; the others by one
// counting pass (at most twins::kMaxLevels thresholds with the floor).
constexpr int kFromPieces[] = {6, 12};  // q >= 2^-6, 2^-12
constexpr int kCounted[] = {14, 17};    // q >= 2^-14, 2^-17

// Compacts K to the entries with e >= x and cuts there. The entries with
// e >= x are a prefix of (t desc, id asc) order, so when the walk over them
// crosses p it cuts where the walk over all of K does; else K is restored.
bool CutAmong(KeptSet& kept, double x, const SamplingParams& params, detail::WorkspaceImpl& ws,
              simd::Cut& cut) {
  const KeptSet whole = kept;
  if (!CompactPrefix(kept, x, ws)) return false;
  double mass = 0.0;
  for (size_t j = 0; j < kept.n; ++j) mass += kept.e[j];
  if (mass >= params.top_p * kept.z * kMassMargin) {
    cut = simd::NucleusCut(kept.l, params.temperature, kept.e, kept.n, kept.z,
                           params.top_p, ws.ids);
    if (cut.found) return true;
  }
  kept = whole;
  return false;
}

// Candidates over a whole row, highest threshold first; each guess costs
// time only, never a different cut.
bool CutAmongCandidates(KeptSet& kept, const SamplingParams& params, detail::WorkspaceImpl& ws,
                        simd::Cut& cut) {
  const double p = params.top_p;
  const double floor = TopPCandidateThreshold(kept.z, kept.n, p);
  const auto above_floor = [&](int j) { return std::ldexp(kept.z, -j) > floor; };
  if (kept.sums) {
    for (int j : kFromPieces) {
      const double x = std::ldexp(kept.z, -j);
      if (!above_floor(j)) break;
      if (MassBoundAtLeast(kept, x) >= p * kept.z && CutAmong(kept, x, params, ws, cut)) {
        return true;
      }
    }
  }
  // One counting pass: the highest threshold whose ids fit a compact K and
  // hold p Z is tried, down to the floor, which always holds it.
  double levels[twins::kMaxLevels];
  size_t count = 0;
  if (!kept.sums && above_floor(kFromPieces[1])) {
    levels[count++] = std::ldexp(kept.z, -kFromPieces[1]);
  }
  for (int j : kCounted) {
    if (above_floor(j)) levels[count++] = std::ldexp(kept.z, -j);
  }
  levels[count++] = floor;
  size_t ids_at[twins::kMaxLevels];
  double mass_at[twins::kMaxLevels];
  simd::CountAtLeast(kept.e, kept.n, levels, count, ids_at, mass_at);
  for (size_t j = 0; j < count; ++j) {
    if (ids_at[j] <= CompactCapacity(kept.n) && mass_at[j] >= p * kept.z * kMassMargin) {
      return CutAmong(kept, levels[j], params, ws, cut);
    }
  }
  return false;
}

}  // namespace

double TopPCandidateThreshold(double z, size_t n, double p) {
  return (1.0 - p) * z / (2.0 * static_cast<double>(n));
}

simd::Cut TopP(KeptSet& kept, const SamplingParams& params, detail::WorkspaceImpl& ws) {
  simd::Cut cut;
  if (params.top_p >= 1.0) return cut;
  if (InTopBuffers(kept, ws) || !CutAmongCandidates(kept, params, ws, cut)) {
    cut = simd::NucleusCut(kept.l, params.temperature, kept.e, kept.n, kept.z,
                           params.top_p, ws.ids);
  }
  if (cut.found) {
    simd::ZeroAfter(kept.l, params.temperature, kept.e, kept.n, cut.t,
                    static_cast<int32_t>(cut.id));
    kept.z = simd::ExactSum(kept.e, kept.n);
    kept.sums.reset();
  }
  return cut;
}

}  // namespace exactsample
