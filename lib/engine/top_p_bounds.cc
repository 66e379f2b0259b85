// Steps 5 to 7 over the whole f32 row without top-k, from an enclosure of Z
// (simd::ExpSumBounds) instead of the exact exp pass. The walk's running sum
// s = fl(s + fl(e / Z)) never grows with Z, so where the walks with Z's
// lower and upper bounds cut at one id, the walk with Z does too. The walk
// reads the exact e of a candidate set alone: the ids whose e reaches a
// level, found on the row by their logits (a threshold a little below the
// level's, then e itself decides).
#include <algorithm>
#include <cmath>
#include <optional>

#include "lib/engine/steps.hpp"
#include "scalar_ref/order.hpp"
#include "simd/compact.hpp"
#include "simd/exact_sum.hpp"
#include "simd/exp_bound.hpp"

namespace exactsample {
namespace {

// Beyond this, the argument's rounding alone (ExpBoundError) makes the
// interval wide enough to leave most cuts undecided.
constexpr double kMaxBoundError = 0x1p-30;

// The candidate levels, q >= 2^-12 Z to 2^-17 Z, highest first: TopP's
// from 2^-12 down, and 2^-15 and 2^-16, where the random-weight model's
// nuclei at p = 0.95 and T = 0.8 end (the walk runs over the smallest
// level that holds p Z). Higher ones would save little: the walk over a
// peaked row's few candidates is short anyway.
constexpr int kBoundLevels[] = {12, 14, 15, 16, 17};
// The index of 2^-16, the level whose candidates come first.
constexpr size_t kFirstLevel = 3;
static_assert(kBoundLevels[kFirstLevel] == 16);
static_assert(kFirstLevel + 1 <= twins::kMaxLevels &&
                  std::size(kBoundLevels) - kFirstLevel - 1 <= twins::kMaxLevels,
              "each compaction's levels in one counting pass");

// The f32 logits at or above which every id with e >= level lies: e is
// within 2^-52 of exp(d), d = fl(fl(l / T) - M_T), so such an l is at least
// T (M_T + log(level)) less a margin far above those roundings.
float LogitThreshold(double level, double temperature, double max_tempered) {
  const double d = std::log(level);
  const double at = temperature * (max_tempered + d);
  const double slack = 0x1p-30 * (std::fabs(at) + temperature * (std::fabs(max_tempered) +
                                                                 std::fabs(d)) + 1.0);
  const double threshold = at - slack;
  float f = static_cast<float>(threshold);
  if (static_cast<double>(f) > threshold) f = std::nextafter(f, -INFINITY);
  return f;
}

// The ids at or above LogitThreshold(level), ascending, into ws.top with their
// logits (ws.top_l) and exact e (ws.top_e); false when more than
// CompactCapacity(n) qualify.
bool Candidates(const Logits& logits, double level, double temperature,
                double max_tempered, const Plan& plan, detail::WorkspaceImpl& ws) {
  const size_t capacity = CompactCapacity(logits.n);
  const float threshold = LogitThreshold(level, temperature, max_tempered);
  const size_t found = simd::CompactAtLeast(logits.x, logits.n, threshold, ws.ids.data(), capacity);
  if (found > capacity) return false;
  // The penalised ids enter by their own logits, in id order.
  const std::span<const int32_t> penalised = logits.penalised_ids;
  ws.top.resize(found + penalised.size());
  ws.top_l.resize(found + penalised.size());
  size_t count = 0;
  size_t next = 0;
  const auto add = [&](int32_t id, double l) {
    ws.top[count] = id;
    ws.top_l[count++] = l;
  };
  const auto penalised_below = [&](int64_t id) {
    for (; next < penalised.size() && penalised[next] < id; ++next) {
      const double l = logits.penalised_l[penalised[next]];
      if (l >= static_cast<double>(threshold)) add(penalised[next], l);
    }
  };
  for (size_t j = 0; j < found; ++j) {
    const auto id = static_cast<int32_t>(ws.ids[j]);
    penalised_below(id);
    // A penalised id entered by its own logit.
    if (next < penalised.size() && penalised[next] == id) continue;
    add(id, static_cast<double>(logits.x[id]));
  }
  penalised_below(static_cast<int64_t>(logits.n));
  if (count > capacity) return false;
  ws.top.resize(count);
  ws.top_l.resize(count);
  ws.top_e.resize(count);
  simd::ExpSum(ws.top_l.data(), count, temperature, max_tempered, ws.top_e.data(), plan.runs.exp);
  return true;
}

// Keeps the candidates with e >= level (a prefix of (t desc, id asc) order).
size_t KeepAtLeast(double level, detail::WorkspaceImpl& ws) {
  size_t kept = 0;
  for (size_t j = 0; j < ws.top.size(); ++j) {
    ws.top[kept] = ws.top[j];
    ws.top_l[kept] = ws.top_l[j];
    ws.top_e[kept] = ws.top_e[j];
    kept += ws.top_e[j] >= level;
  }
  ws.top.resize(kept);
  ws.top_l.resize(kept);
  ws.top_e.resize(kept);
  return kept;
}

// Whether the walk with Z = lo cuts where the one with Z = hi >= lo did
// (`cut`, found). Its sums are no smaller, so it reaches p there; it does
// not before unless the q = fl(e / lo) of the ids ahead of the cut, added
// in order, reach p. Those ids have e >= the cut's (e does not decrease as
// t grows). Each q and each addition rounds up by a factor of at most
// 1 + 2^-53, so their sum is at most (sum e / lo)(1 + (n + 1) 2^-53), and
// the sum and division below are within (n + 1) 2^-53 of theirs; otherwise
// the walk itself says.
bool SameCutWithin(const simd::Cut& cut, double lo, const SamplingParams& params, size_t n,
                   detail::WorkspaceImpl& ws) {
  const double at_cut = ws.top_e[cut.id];
  double ahead = 0.0;
  for (size_t j = 0; j < n; ++j) {
    ahead += ws.top_e[j] >= at_cut && j != cut.id ? ws.top_e[j] : 0.0;
  }
  if (ahead / lo * (1.0 + static_cast<double>(n + 4) * 0x1p-51) < params.top_p) return true;
  return simd::NucleusCut(ws.top_l.data(), params.temperature, ws.top_e.data(), n, lo,
                          params.top_p, ws.ids)
             .id == cut.id;
}

// Whether the enclosure of Z can stand in for step 7's exact pass: it reads
// the f32 row in place (no widened or compacted row), its candidates are
// K's own (no top-k), there is a cut to place, the exact pass is not shared
// with the logprob's (temperature 1), and the error analysis holds (the
// default floating-point environment).
bool BoundsApply(const Logits& logits, const SamplingParams& params, const Plan& plan) {
  return logits.l == nullptr && logits.finite_l == nullptr && !plan.asks.top_k &&
         !plan.path.one_softmax && params.top_p < 1.0 && params.temperature != 0.0 &&
         plan.runs.default_fp;
}

// The candidate levels, highest first, from Z's lower bound: any level gives
// a prefix of the walk's order; a lower one only more candidates. Those at
// or below TopP's lowest threshold are left out (its ids hold too little
// mass to matter), and that threshold alone is tried where all are.
struct Levels {
  double at[std::size(kBoundLevels) + 1];
  size_t count = 0;
};
Levels LevelsOf(double z_lo, size_t n, double top_p) {
  const double lowest = TopPCandidateThreshold(z_lo, n, top_p);
  Levels levels;
  for (const int j : kBoundLevels) {
    const double level = std::ldexp(z_lo, -j);
    if (level > lowest) levels.at[levels.count++] = level;
  }
  if (levels.count == 0) levels.at[levels.count++] = lowest;
  return levels;
}

// The walks over one row's candidate sets, with Z's two bounds.
class BoundedWalk {
 public:
  BoundedWalk(const Logits& logits, const SamplingParams& params, const Plan& plan,
              detail::WorkspaceImpl& ws, double max_tempered, simd::ZBounds z, simd::Cut& cut)
      : logits_(logits), params_(params), plan_(plan), ws_(ws), max_tempered_(max_tempered),
        z_(z), levels_(LevelsOf(z.lo, logits.n, params.top_p)), cut_(cut) {}

  size_t LevelCount() const { return levels_.count; }

  // The candidates of level j into ws (Candidates); false when more than a
  // compact K reach it.
  bool CandidatesAt(size_t j) {
    return Candidates(logits_, levels_.at[j], params_.temperature, max_tempered_, plan_, ws_);
  }

  // The highest of levels [from, to] whose candidates (the current ones, of
  // a level at or below `to`) hold p Z by Z's upper bound, as TopP picks
  // its level; the margin covers the masses' summation order.
  std::optional<size_t> HighestHolding(size_t from, size_t to) const {
    size_t ids_at[twins::kMaxLevels];
    double mass_at[twins::kMaxLevels];
    simd::CountAtLeast(ws_.top_e.data(), ws_.top_e.size(), levels_.at + from, to + 1 - from,
                       ids_at, mass_at);
    const double needed = params_.top_p * z_.hi * kTopPMassMargin;
    for (size_t j = from; j <= to; ++j) {
      if (mass_at[j - from] >= needed) return j;
    }
    return std::nullopt;
  }

  // K cut within level j's candidates, where the walks with both bounds cut
  // at one id (then the walk with Z does too); nullopt where the walk does
  // not cross p after all (the mass within the margin) or the bounds leave
  // the cut undecided, and the exact pass decides.
  std::optional<KeptSet> CutAt(size_t j) {
    const size_t n = KeepAtLeast(levels_.at[j], ws_);
    cut_ = simd::NucleusCut(ws_.top_l.data(), params_.temperature, ws_.top_e.data(), n, z_.hi,
                            params_.top_p, ws_.ids);
    if (!cut_.found || !SameCutWithin(cut_, z_.lo, params_, n, ws_)) return std::nullopt;
    KeptSet kept{ws_.top_l.data(), ws_.top_e.data(), n, ws_.top.data(), NAN, std::nullopt};
    CutKept(kept, cut_, params_.temperature);
    return kept;
  }

 private:
  const Logits& logits_;
  const SamplingParams& params_;
  const Plan& plan_;
  detail::WorkspaceImpl& ws_;
  double max_tempered_;
  simd::ZBounds z_;
  Levels levels_;
  simd::Cut& cut_;
};

}  // namespace

std::optional<KeptSet> NucleusFromBounds(const Logits& logits, const SamplingParams& params,
                                         const Plan& plan, detail::WorkspaceImpl& ws,
                                         simd::Cut& cut) {
  if (!BoundsApply(logits, params, plan)) return std::nullopt;
  const double max_tempered = scalar_ref::Tempered(logits.max, params.temperature);
  if (twins::ExpBoundError(max_tempered) > kMaxBoundError) return std::nullopt;
  const simd::ZBounds z =
      simd::ExpSumBounds(logits.Source(), logits.n, params.temperature, max_tempered);
  // Each e is at most 1: a nucleus holding p Z has at least p Z ids, and a
  // flat row's may have more than any candidate set holds.
  if (params.top_p * z.lo * kTopPMassMargin > static_cast<double>(CompactCapacity(logits.n))) {
    return std::nullopt;
  }
  BoundedWalk walk(logits, params, plan, ws, max_tempered, z, cut);
  // Candidates come at 2^-16 Z first (half the ids of 2^-17 on the
  // random-weight model's rows), and serve that level and every one above.
  const size_t first = std::min(kFirstLevel, walk.LevelCount() - 1);
  if (walk.CandidatesAt(first)) {
    if (const std::optional<size_t> j = walk.HighestHolding(0, first)) return walk.CutAt(*j);
    // No level down to 2^-16 holds p Z: the lowest level's candidates, for
    // the levels below it.
    const size_t last = walk.LevelCount() - 1;
    if (first == last || !walk.CandidatesAt(last)) return std::nullopt;
    if (const std::optional<size_t> j = walk.HighestHolding(first + 1, last)) {
      return walk.CutAt(*j);
    }
    return std::nullopt;
  }
  // More ids than a compact K holds reach 2^-16: the highest level's alone.
  if (first == 0 || !walk.CandidatesAt(0)) return std::nullopt;
  if (walk.HighestHolding(0, 0)) return walk.CutAt(0);
  return std::nullopt;
}

void BoundedNucleus::Make(const Logits& logits, const SamplingParams& params, const Plan& plan,
                          detail::WorkspaceImpl& ws) {
  kept = NucleusFromBounds(logits, params, plan, ws, cut);
  made = true;
}

}  // namespace exactsample
