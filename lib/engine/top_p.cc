// Step 7: the first id in (t desc, id asc) order whose running sum of q
// reaches p stays; everything after it goes.
#include <cmath>
#include <iterator>

#include "lib/engine/steps.hpp"
#include "simd/compact.hpp"
#include "simd/exact_sum.hpp"
#include "simd/filter.hpp"

namespace exactsample {
namespace {

// The candidate thresholds over a whole row, highest first, by share of Z:
// on a peaked row a few ids with large q hold the nucleus.
constexpr int kRowLevels[] = {6, 9, 12, 14, 17};  // q >= 2^-6, ..., 2^-17
constexpr size_t kMaxLevels = std::size(kRowLevels);
static_assert(kMaxLevels - 1 <= twins::kMaxLevels, "one counting pass over the others");

// Moves K's entries ws.ids[0..count) to the compact buffers and cuts there.
// Those entries are a prefix of (t desc, id asc) order (the e >= x of some
// x), so when the walk over them crosses p it cuts where the walk over all
// of K does; else K is restored.
bool CutAmongIds(KeptSet& kept, size_t count, const SamplingParams& params,
                 detail::WorkspaceImpl& ws, simd::Cut& cut) {
  const KeptSet whole = kept;
  MovePrefix(kept, count, ws);
  double mass = 0.0;
  for (size_t j = 0; j < kept.n; ++j) mass += kept.e[j];
  if (mass >= params.top_p * kept.z * kTopPMassMargin) {
    cut = simd::NucleusCut(kept.l, params.temperature, kept.e, kept.n, kept.z,
                           params.top_p, ws.ids);
    if (cut.found) return true;
  }
  kept = whole;
  return false;
}

// CutAmongIds over the entries with e >= x, when they fit a compact K.
bool CutAmong(KeptSet& kept, double x, const SamplingParams& params, detail::WorkspaceImpl& ws,
              simd::Cut& cut) {
  const size_t count = PrefixIds(kept, x, ws);
  return count <= CompactCapacity(kept.n) && CutAmongIds(kept, count, params, ws, cut);
}

// Candidates over a whole row; each guess costs time only, never a
// different cut. One compaction at the lowest level finds few enough ids
// on most rows: the highest level among them that holds p Z is cut.
bool CutAmongCandidates(KeptSet& kept, const SamplingParams& params, detail::WorkspaceImpl& ws,
                        simd::Cut& cut) {
  const double needed = params.top_p * kept.z * kTopPMassMargin;
  // Below the lowest threshold, ids hold at most half the mass top-p drops: it always
  // holds p Z, and every level tried is above it.
  const double lowest = TopPCandidateThreshold(kept.z, kept.n, params.top_p);
  double levels[kMaxLevels];
  size_t count = 0;
  for (int j : kRowLevels) {
    const double x = std::ldexp(kept.z, -j);
    if (x > lowest) levels[count++] = x;
  }
  if (count == 0) return CutAmong(kept, lowest, params, ws, cut);
  const size_t found = PrefixIds(kept, levels[count - 1], ws);
  if (found > CompactCapacity(kept.n)) {
    // Too many at the lowest level: one counting pass over the others.
    size_t ids_at[kMaxLevels];
    double mass_at[kMaxLevels];
    simd::CountAtLeast(kept.e, kept.n, levels, count - 1, ids_at, mass_at);
    for (size_t j = 0; j + 1 < count; ++j) {
      if (ids_at[j] <= CompactCapacity(kept.n) && mass_at[j] >= needed) {
        return CutAmong(kept, levels[j], params, ws, cut);
      }
    }
    return false;
  }
  // Without a branch per id: which level an id reaches is not predictable.
  double mass[kMaxLevels] = {};
  for (size_t i = 0; i < found; ++i) {
    const double e = kept.e[ws.ids[i]];
    for (size_t j = 0; j < count; ++j) mass[j] += e >= levels[j] ? e : 0.0;
  }
  for (size_t j = 0; j < count; ++j) {
    if (mass[j] < needed) continue;
    size_t at_level = 0;
    for (size_t i = 0; i < found; ++i) {
      const uint32_t id = ws.ids[i];
      ws.ids[at_level] = id;
      at_level += kept.e[id] >= levels[j];
    }
    return CutAmongIds(kept, at_level, params, ws, cut);
  }
  return CutAmong(kept, lowest, params, ws, cut);
}

}  // namespace

double TopPCandidateThreshold(double z, size_t n, double p) {
  return (1.0 - p) * z / (2.0 * static_cast<double>(n));
}

simd::Cut TopP(KeptSet& kept, const SamplingParams& params, detail::WorkspaceImpl& ws) {
  simd::Cut cut;
  if (params.top_p >= 1.0) return cut;
  if (InTopBuffers(kept, ws) || !CutAmongCandidates(kept, params, ws, cut)) {
    if (kept.l == nullptr) kept.l = WidenPenalisedRow(*kept.row, ws);
    cut = simd::NucleusCut(kept.l, params.temperature, kept.e, kept.n, kept.z,
                           params.top_p, ws.ids);
  }
  CutKept(kept, cut, params.temperature);
  return cut;
}

void CutKept(KeptSet& kept, const simd::Cut& cut, double temperature) {
  if (!cut.found) return;
  simd::ZeroAfter(kept.l, temperature, kept.e, kept.n, cut.t, static_cast<int32_t>(cut.id));
  kept.z = simd::ExactSum(kept.e, kept.n);
  kept.sums.reset();
}

}  // namespace exactsample
