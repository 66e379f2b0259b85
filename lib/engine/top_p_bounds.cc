// Steps 5 to 7 over the whole f32 row without top-k, from an enclosure of Z
// (simd::ExpSumBounds) instead of the exact exp pass. The walk's running sum
// s = fl(s + fl(e / Z)) never grows with Z, so where the walks with Z's
// lower and upper bounds cut at one id, the walk with Z does too. The walk
// reads the exact e of a candidate set alone: the ids whose e reaches a
// level, found on the row by their logits (a threshold a little below the
// level's, then e itself decides).
#include <algorithm>
#include <cmath>

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
constexpr int kLevels[] = {12, 14, 15, 16, 17};
// The index of 2^-16, the level whose candidates come first.
constexpr size_t kFirstLevel = 3;
static_assert(kLevels[kFirstLevel] == 16);
static_assert(kFirstLevel + 1 <= twins::kMaxLevels &&
                  std::size(kLevels) - kFirstLevel - 1 <= twins::kMaxLevels,
              "each compaction's levels in one counting pass");

// The f32 logits at or above which every id with e >= level lies: e is
// within 2^-52 of exp(d), d = fl(fl(l / T) - M_T), so such an l is at least
// T (M_T + log(level)) less a margin far above those roundings.
float LogitFloor(double level, double temperature, double max_tempered) {
  const double d = std::log(level);
  const double at = temperature * (max_tempered + d);
  const double slack = 0x1p-30 * (std::fabs(at) + temperature * (std::fabs(max_tempered) +
                                                                 std::fabs(d)) + 1.0);
  const double floor = at - slack;
  float f = static_cast<float>(floor);
  if (static_cast<double>(f) > floor) f = std::nextafter(f, -INFINITY);
  return f;
}

// The ids at or above LogitFloor(level), ascending, into ws.top with their
// logits (ws.top_l) and exact e (ws.top_e); false when more than
// CompactCapacity(n) qualify.
bool Candidates(const Logits& logits, double level, double temperature,
                double max_tempered, const Plan& plan, detail::WorkspaceImpl& ws) {
  const size_t capacity = CompactCapacity(logits.n);
  const float floor = LogitFloor(level, temperature, max_tempered);
  const size_t found = simd::CompactAtLeast(logits.x, logits.n, floor, ws.ids.data(), capacity);
  if (found > capacity) return false;
  // The patched ids enter by their own logits, in id order.
  const std::span<const int32_t> patched = logits.patch_ids;
  ws.top.resize(found + patched.size());
  ws.top_l.resize(found + patched.size());
  size_t count = 0;
  size_t next = 0;
  const auto add = [&](int32_t id, double l) {
    ws.top[count] = id;
    ws.top_l[count++] = l;
  };
  const auto patches_below = [&](int64_t id) {
    for (; next < patched.size() && patched[next] < id; ++next) {
      const double l = logits.patch_l[patched[next]];
      if (l >= static_cast<double>(floor)) add(patched[next], l);
    }
  };
  for (size_t j = 0; j < found; ++j) {
    const auto id = static_cast<int32_t>(ws.ids[j]);
    patches_below(id);
    if (next < patched.size() && patched[next] == id) continue;  // entered by its patch
    add(id, static_cast<double>(logits.x[id]));
  }
  patches_below(static_cast<int64_t>(logits.n));
  if (count > capacity) return false;
  ws.top.resize(count);
  ws.top_l.resize(count);
  ws.top_e.resize(count);
  simd::ExpSum(ws.top_l.data(), count, temperature, max_tempered, ws.top_e.data(), plan.exp);
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

}  // namespace

std::optional<KeptSet> NucleusFromBounds(const Logits& logits, const SamplingParams& params,
                                         const Plan& plan, detail::WorkspaceImpl& ws,
                                         simd::Cut& cut) {
  const double temperature = params.temperature;
  if (logits.l != nullptr || logits.finite_l != nullptr || plan.top_k ||
      plan.shared_softmax || params.top_p >= 1.0 || temperature == 0.0 || !plan.default_fp) {
    return std::nullopt;
  }
  const double max_tempered = scalar_ref::Tempered(logits.max, temperature);
  if (twins::ExpBoundError(max_tempered) > kMaxBoundError) return std::nullopt;
  const simd::ZBounds z =
      simd::ExpSumBounds(logits.Source(), logits.n, temperature, max_tempered);
  // Each e is at most 1: a nucleus holding p Z has at least p Z ids, and a
  // flat row's may have more than any candidate set holds.
  if (params.top_p * z.lo * kTopPMassMargin > static_cast<double>(CompactCapacity(logits.n))) {
    return std::nullopt;
  }
  // The levels of TopP's candidates, from Z's lower bound: any level gives
  // a prefix; a lower one only more candidates.
  const double floor = TopPCandidateThreshold(z.lo, logits.n, params.top_p);
  double levels[std::size(kLevels) + 1];
  size_t count = 0;
  for (const int j : kLevels) {
    const double level = std::ldexp(z.lo, -j);
    if (level > floor) levels[count++] = level;
  }
  if (count == 0) levels[count++] = floor;
  // The highest level holding p Z is cut, as in TopP; where its walk does
  // not cross p after all (its mass within the margin below p Z), or the
  // bounds leave the cut undecided, the exact pass decides.
  const double needed = params.top_p * z.hi * kTopPMassMargin;
  std::optional<KeptSet> kept;
  // Whether one of levels[from..to] (all the candidates') holds p Z; where
  // one does, `kept` is set if the cut is decided.
  const auto held_among = [&](size_t from, size_t to) {
    size_t ids_at[twins::kMaxLevels];
    double mass_at[twins::kMaxLevels];
    simd::CountAtLeast(ws.top_e.data(), ws.top_e.size(), levels + from, to + 1 - from, ids_at,
                       mass_at);
    for (size_t j = from; j <= to; ++j) {
      if (mass_at[j - from] < needed) continue;
      const size_t n = KeepAtLeast(levels[j], ws);
      cut = simd::NucleusCut(ws.top_l.data(), temperature, ws.top_e.data(), n, z.hi,
                             params.top_p, ws.ids);
      if (cut.found && SameCutWithin(cut, z.lo, params, n, ws)) {
        kept = KeptSet{ws.top_l.data(), ws.top_e.data(), n, ws.top.data(), NAN, std::nullopt};
        CutKept(*kept, cut, temperature);
      }
      return true;
    }
    return false;
  };
  // Candidates come at 2^-16 Z first (half the ids of 2^-17 on the
  // random-weight model's rows); where more than a compact K holds reach
  // it, at the highest level alone; where no level down to it holds p Z, at
  // the lowest level.
  const size_t first = std::min(kFirstLevel, count - 1);
  size_t top = first;
  if (!Candidates(logits, levels[top], temperature, max_tempered, plan, ws)) {
    top = 0;
    if (first == 0 || !Candidates(logits, levels[0], temperature, max_tempered, plan, ws)) {
      return std::nullopt;
    }
  }
  if (held_among(0, top) || top < first || first + 1 == count ||
      !Candidates(logits, levels[count - 1], temperature, max_tempered, plan, ws)) {
    return kept;
  }
  held_among(first + 1, count - 1);
  return kept;
}

void BoundedNucleus::Make(const Logits& logits, const SamplingParams& params, const Plan& plan,
                          detail::WorkspaceImpl& ws) {
  kept = NucleusFromBounds(logits, params, plan, ws, cut);
  made = true;
}

}  // namespace exactsample
