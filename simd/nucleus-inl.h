// Per-target body of the nucleus cut (simd/nucleus.hpp) without sorting all
// ids. The ids with e > 0 are bucketed by a rank that is a non-increasing
// function of t (BucketKey), so walking ranks upwards visits t downwards and
// equal t share a bucket; only the order inside a bucket is unknown. A
// counting sort puts the ids of each rank, in ascending id order, in the
// caller's scratch. The walk then adds whole runs of buckets at once with the
// grid argument of simd/exact_sum-inl.h, which holds for the terms of a run
// in any order; a run that fails it (a tie, a binade crossing, s reaching p)
// is split at bucket boundaries, and a single bucket left is sorted by
// (t desc, id asc) and walked in order like the twin.
//
// Work is saved where the nucleus is small: a first pass without divisions
// (Survey) finds an l bound above which the nucleus most likely lies; the
// ids above it (a tier) are bucketed and walked first, the others only if
// the walk gets past them. Inside a tier, the ranks up to just past where an
// approximate running mass reaches p are scattered first, the rest only if
// needed. None of these guesses affects the result, only the work.

#if defined(EXACTSAMPLE_SIMD_NUCLEUS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_NUCLEUS_INL_H_
#undef EXACTSAMPLE_SIMD_NUCLEUS_INL_H_
#else
#define EXACTSAMPLE_SIMD_NUCLEUS_INL_H_
#endif

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "simd/reduce-inl.h"
#include "scalar_ref/twins/nucleus.hpp"
#include "simd/exact_sum-inl.h"
#include "simd/order-inl.h"
#include "scalar_ref/order.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using twins::Cut;

inline constexpr uint32_t kBuckets = kNucleusBuckets;
// Scratch positions tried as one grid step before splitting.
inline constexpr size_t kChunk = 1024;
inline constexpr size_t kNoCut = SIZE_MAX;
// Rows up to this length are sorted whole, as the twin does.
inline constexpr size_t kSortAll = 256;
// The survey's mass levels: e >= 2^(-4(j+1)) for j < kLevels.
inline constexpr int kLevels = 6;  // SurveyOf has one accumulator each

inline double LevelThreshold(int j) { return std::ldexp(1.0, -4 * (j + 1)); }

struct NucleusRow {
  const double* HWY_RESTRICT l;
  double divisor;
  const double* HWY_RESTRICT e;
  size_t n;
  double z;

  // t = l / divisor, as the twin computes it.
  double T(double l_i) const { return scalar_ref::Tempered(l_i, divisor); }
  template <class D>
  hn::Vec<D> T(D d, hn::Vec<D> l_i) const {
    return divisor == 1.0 ? l_i : Tempered<Divisor::kAny>(l_i, hn::Set(d, divisor));
  }
  // (t desc, id asc) on ids.
  bool Before(uint32_t a, uint32_t b) const {
    return scalar_ref::Before(T(l[a]), a, T(l[b]), b);
  }
};

// One pass over the ids with e > 0, without divisions: t is monotone in l,
// so the extremes of t are those of l divided.
struct Survey {
  double l_min = INFINITY;
  double l_max = -INFINITY;
  double e_max = 0.0;
  size_t count = 0;
  double mass[kLevels] = {};  // sum of e >= LevelThreshold(j), in any order
};

template <class D>
Survey SurveyOf(D d, const NucleusRow& row) {
  const size_t N = hn::Lanes(d);
  const auto zero = hn::Zero(d);
  const auto inf = hn::Set(d, INFINITY);
  auto lo = inf, hi = hn::Neg(inf), e_max = zero, count = zero;
  auto m0 = zero, m1 = zero, m2 = zero, m3 = zero, m4 = zero, m5 = zero;
  auto level = [&](auto& acc, int j, hn::Vec<D> e) {
    acc = hn::Add(
        acc, hn::IfThenElseZero(hn::Ge(e, hn::Set(d, LevelThreshold(j))), e));
  };
  size_t i = 0;
  for (; i + N <= row.n; i += N) {
    const auto e = hn::LoadU(d, row.e + i);
    const auto l = hn::LoadU(d, row.l + i);
    const auto m = hn::Gt(e, zero);
    lo = hn::Min(lo, hn::IfThenElse(m, l, inf));
    hi = hn::Max(hi, hn::IfThenElse(m, l, hn::Neg(inf)));
    e_max = hn::Max(e_max, e);
    count = hn::Add(count, hn::IfThenElseZero(m, hn::Set(d, 1.0)));
    level(m0, 0, e), level(m1, 1, e), level(m2, 2, e);
    level(m3, 3, e), level(m4, 4, e), level(m5, 5, e);
  }
  auto total = [&](hn::Vec<D> v) { return hn::GetLane(hn::SumOfLanes(d, v)); };
  Survey s;
  s.l_min = MinLane(d, lo);
  s.l_max = MaxLane(d, hi);
  s.e_max = MaxLane(d, e_max);
  s.count = static_cast<size_t>(total(count));
  s.mass[0] = total(m0), s.mass[1] = total(m1), s.mass[2] = total(m2);
  s.mass[3] = total(m3), s.mass[4] = total(m4), s.mass[5] = total(m5);
  for (; i < row.n; ++i) {
    const double e = row.e[i];
    if (!(e > 0)) continue;
    s.l_min = std::min(s.l_min, row.l[i]);
    s.l_max = std::max(s.l_max, row.l[i]);
    s.e_max = std::max(s.e_max, e);
    ++s.count;
    for (int j = 0; j < kLevels; ++j)
      s.mass[j] += e >= LevelThreshold(j) ? e : 0;
  }
  return s;
}

// The masses of e >= 8 theta, 4 theta and 2 theta: a survey level split.
template <class D>
void SplitLevel(D d, const NucleusRow& row, double theta, double mass[3]) {
  const size_t N = hn::Lanes(d);
  const auto zero = hn::Zero(d);
  auto m8 = zero, m4 = zero, m2 = zero;
  size_t i = 0;
  for (; i + N <= row.n; i += N) {
    const auto e = hn::LoadU(d, row.e + i);
    m8 = hn::Add(m8, hn::IfThenElseZero(hn::Ge(e, hn::Set(d, 8 * theta)), e));
    m4 = hn::Add(m4, hn::IfThenElseZero(hn::Ge(e, hn::Set(d, 4 * theta)), e));
    m2 = hn::Add(m2, hn::IfThenElseZero(hn::Ge(e, hn::Set(d, 2 * theta)), e));
  }
  auto total = [&](hn::Vec<D> v) { return hn::GetLane(hn::SumOfLanes(d, v)); };
  mass[0] = total(m8), mass[1] = total(m4), mass[2] = total(m2);
  for (; i < row.n; ++i) {
    const double e = row.e[i];
    for (int k = 0; k < 3; ++k) mass[k] += e >= (8 >> k) * theta ? e : 0;
  }
}

// About the smallest e the nucleus reaches down to: a threshold whose mass
// (the sum of e >= it, off the exact sums by rounding only) reaches p * z
// with a margin far above that rounding; 0 when none does.
template <class D>
double NucleusThreshold(D d, const NucleusRow& row, const Survey& survey,
                        double p) {
  const double goal = p * row.z * (1 + 1e-9);
  int j = 0;
  while (j < kLevels && !(survey.mass[j] >= goal)) ++j;
  if (j == kLevels) return 0.0;
  double theta = LevelThreshold(j);
  // A level spans a factor 16 in e and may hold many ids: when its bound on
  // their count (mass / theta) is large, one more pass splits it. The first
  // level is left whole: a nucleus that ends there belongs to a flat row,
  // where the tier is most ids anyway.
  if (j > 0 && survey.mass[j] / theta > static_cast<double>(row.n) / 8) {
    double mass[3];
    SplitLevel(d, row, theta, mass);
    for (int k = 0; k < 3; ++k) {
      if (mass[k] >= goal) {
        theta *= 8 >> k;
        break;
      }
    }
  }
  return theta;
}

// Where the first tier starts: the l above which e >= theta, a little lower
// for safety. Returns -inf for a single tier.
inline double FirstTierBound(const NucleusRow& row, const Survey& survey,
                             double theta) {
  if (theta == 0) return -INFINITY;
  // e = exp(t - M) peaks at t_max, so e >= theta about where
  // t >= t_max + log(theta / e_max). Stepping 1e-6 (relative) lower keeps
  // the ids that the roundings of exp and of this formula put near it.
  double t_bound = row.T(survey.l_max) + std::log(theta / survey.e_max);
  t_bound -= 1e-6 * (1 + std::abs(t_bound));
  const double bound = row.divisor == 1.0 ? t_bound : t_bound * row.divisor;
  if (!(bound > survey.l_min && bound <= survey.l_max)) return -INFINITY;
  return scalar_ref::TemperedBoundaryAtOrBelow(bound, row.divisor);
}

// A tier: the ids with e > 0 and lo <= l < hi.
struct Tier {
  double lo, hi;
};

// rank(t) = (B-1) - clamp(floor((t - t_lo) * scale), 0, B-1). Every
// operation, roundings included, is monotone, so t1 > t2 gives
// rank1 <= rank2: ranks ascending visit t descending, and equal t get one
// rank. The vector and the scalar forms perform the same IEEE operations.
struct BucketKey {
  double t_lo;
  double scale;  // finite and >= 0, so (t - t_lo) * scale is never NaN

  static constexpr double kLast = kBuckets - 1;

  // Spans [t_lo, t_hi]. A zero range gives +inf and an overflowing one 0:
  // once the scale is finite, both put every id in one rank.
  static BucketKey Spanning(double t_lo, double t_hi) {
    return BucketKey{t_lo, std::min(kBuckets / (t_hi - t_lo), DBL_MAX)};
  }

  double Rank(double t) const {
    return kLast -
           std::min(std::max(std::floor((t - t_lo) * scale), 0.0), kLast);
  }
  template <class D>
  hn::Vec<D> Rank(D d, hn::Vec<D> t) const {
    const auto x = hn::Mul(hn::Sub(t, hn::Set(d, t_lo)), hn::Set(d, scale));
    const auto k =
        hn::Min(hn::Max(hn::Floor(x), hn::Zero(d)), hn::Set(d, kLast));
    return hn::Sub(hn::Set(d, kLast), k);
  }
};

// Calls visit(i, rank) for each id i of `tier` with a rank in [first, last],
// in ascending id order. The ids and ranks of a block are first compacted
// into small buffers without branches on lanes (every lane is written, the
// count advances only for passing ones), so that visit runs in a tight loop.
// (Highway's CompressStore for 64-bit lanes costs more on AVX2.)
template <class D, class Visit>
void ForEachRanked(D d, const NucleusRow& row, const Tier& tier,
                   const BucketKey& key, uint32_t first, uint32_t last,
                   const Visit& visit) {
  constexpr size_t kBatch = 256;
  constexpr size_t kMaxN = hn::MaxLanes(D());
  const size_t N = hn::Lanes(d);
  const auto zero = hn::Zero(d);
  uint32_t ids[kBatch + kMaxN];
  uint32_t ranks[kBatch + kMaxN];
  HWY_ALIGN double lanes[kMaxN];
  size_t i = 0;
  while (i + N <= row.n) {
    size_t count = 0;
    const size_t stop = std::min(row.n - N + 1, i + kBatch);
    for (; i < stop; i += N) {
      const auto l = hn::LoadU(d, row.l + i);
      const auto in = hn::And(hn::Gt(hn::LoadU(d, row.e + i), zero),
                              hn::And(hn::Ge(l, hn::Set(d, tier.lo)),
                                      hn::Lt(l, hn::Set(d, tier.hi))));
      if (hn::AllFalse(d, in)) continue;
      const auto rank = key.Rank(d, row.T(d, l));
      const auto pass = hn::And(in, hn::And(hn::Ge(rank, hn::Set(d, first)),
                                            hn::Le(rank, hn::Set(d, last))));
      hn::Store(hn::IfThenElseZero(pass, rank), d, lanes);
      const uint64_t bits = LaneBits(d, pass);
      for (size_t lane = 0; lane < N; ++lane) {
        ids[count] = static_cast<uint32_t>(i + lane);
        ranks[count] = static_cast<uint32_t>(lanes[lane]);
        count += (bits >> lane) & 1;
      }
    }
    for (size_t k = 0; k < count; ++k) visit(ids[k], ranks[k]);
  }
  for (; i < row.n; ++i) {
    const double l = row.l[i];
    if (!(row.e[i] > 0 && l >= tier.lo && l < tier.hi)) continue;
    const double rank = key.Rank(row.T(l));
    if (rank >= first && rank <= last) visit(i, static_cast<uint32_t>(rank));
  }
}

// Terms q[k] = e[ids[k]] / z.
struct GatheredQuotients {
  const uint32_t* HWY_RESTRICT ids;
  const double* HWY_RESTRICT e;
  double z;
  template <class D>
  hn::Vec<D> Load(D d, size_t k) const {
    const hn::Rebind<int32_t, D> d32;  // ids < 2^31
    const auto idx = hn::PromoteTo(
        hn::RebindToSigned<D>(),
        hn::LoadU(d32, reinterpret_cast<const int32_t*>(ids + k)));
    return hn::Div(hn::GatherIndex(d, e, idx), hn::Set(d, z));
  }
  double operator[](size_t k) const { return e[ids[k]] / z; }
};

// The walk over scratch ids grouped by rank: bounds[r] is where rank r
// starts, bounds[kBuckets] the end. s is the running sum of the whole walk.
template <class D>
class CutWalk {
 public:
  CutWalk(D d, const NucleusRow& row, uint32_t* ids, const uint32_t* bounds,
          double p, double& s)
      : d_(d), row_(row), ids_(ids), bounds_(bounds), p_(p), s_(s) {}

  // Continues the walk over positions [begin, end), bucket aligned, which
  // follow every position walked before: the position of the cut, or kNoCut.
  size_t Walk(size_t begin, size_t end) {
    while (begin < end) {
      const size_t stop = std::min<size_t>(
          end, *std::lower_bound(bounds_, bounds_ + kBuckets, begin + kChunk));
      const size_t hit = Run(begin, stop);
      if (hit != kNoCut) return hit;
      begin = stop;
    }
    return kNoCut;
  }

 private:
  GatheredQuotients Terms(size_t begin) const {
    return GatheredQuotients{ids_ + begin, row_.e, row_.z};
  }

  // Whole buckets [begin, end): one grid step when the argument holds and s
  // stays below p, else split in two.
  size_t Run(size_t begin, size_t end) {
    if (begin == end) return kNoCut;
    double s_end;
    if (GridReady(s_) && TryGridBlock(d_, s_, Terms(0), begin, end, &s_end) &&
        s_end < p_) {
      s_ = s_end;
      return kNoCut;
    }
    const size_t mid = Split(begin, end);
    if (mid == begin) return Bucket(begin, end);
    const size_t hit = Run(begin, mid);
    return hit != kNoCut ? hit : Run(mid, end);
  }

  // The bucket boundary strictly inside (begin, end) nearest to the middle,
  // or begin when [begin, end) is one bucket.
  size_t Split(size_t begin, size_t end) const {
    const size_t mid = begin + (end - begin) / 2;
    const uint32_t* above =
        std::upper_bound(bounds_, bounds_ + kBuckets + 1, mid);
    size_t best = begin;
    if (above != bounds_ + kBuckets + 1 && *above < end) best = *above;
    if (above != bounds_) {
      const size_t below = *(above - 1);  // <= mid
      if (below > begin && (best == begin || mid - below < best - mid)) {
        best = below;
      }
    }
    return best;
  }

  // One bucket: into (t desc, id asc) order, then walked term by term.
  size_t Bucket(size_t begin, size_t end) {
    std::sort(ids_ + begin, ids_ + end,
              [this](uint32_t a, uint32_t b) { return row_.Before(a, b); });
    const size_t hit = WalkToTarget(d_, s_, Terms(begin), end - begin, p_);
    return hit < end - begin ? begin + hit : kNoCut;
  }

  D d_;
  const NucleusRow& row_;
  uint32_t* ids_;
  const uint32_t* bounds_;
  double p_;
  double& s_;
};

// Per-tier histogram: bounds[r + 1] first counts rank r, then bounds[r] is
// where rank r starts in the scratch ids; bounds and cursor are in the
// caller's scratch, past the ids.
struct RankHistogram {
  uint32_t* bounds;  // kBuckets + 1
  uint32_t* cursor;  // kBuckets
  float mass[kBuckets];  // sum of e per rank, in any order: only a guide
};

// Buckets the ids of `tier` into ids[base...] (counts: the histogram's
// 2 kBuckets + 1 words) and continues the walk (s) over
// them: the position of the cut, or kNoCut with *end just past the tier.
// Ranks up to just past where the approximate mass reaches p are scattered
// and walked first; the others only if the walk gets there.
template <class D>
size_t WalkTier(D d, const NucleusRow& row, const Tier& tier,
                const Survey& survey, uint32_t* ids, uint32_t* counts, size_t base,
                double p, double& s, size_t* end) {
  const BucketKey key = BucketKey::Spanning(
      row.T(std::max(tier.lo, survey.l_min)),
      row.T(std::min(std::nextafter(tier.hi, -INFINITY), survey.l_max)));
  RankHistogram h{counts, counts + kBuckets + 1, {}};
  std::fill(h.bounds, h.bounds + kBuckets + 1, 0u);
  std::fill(h.mass, h.mass + kBuckets, 0.0f);
  ForEachRanked(d, row, tier, key, 0, kBuckets - 1, [&](size_t i, uint32_t r) {
    ++h.bounds[r + 1];
    h.mass[r] += static_cast<float>(row.e[i]);
  });
  h.bounds[0] = static_cast<uint32_t>(base);
  for (uint32_t r = 1; r <= kBuckets; ++r) h.bounds[r] += h.bounds[r - 1];
  std::copy(h.bounds, h.bounds + kBuckets, h.cursor);
  *end = h.bounds[kBuckets];

  double mass = s * row.z;
  uint32_t guess = 0;
  for (; guess + 1 < kBuckets; ++guess) {
    mass += h.mass[guess];
    if (mass >= p * row.z) break;
  }
  const uint32_t first_last = std::min(guess + 1, kBuckets - 1);

  auto scatter = [&](size_t i, uint32_t r) {
    ids[h.cursor[r]++] = static_cast<uint32_t>(i);
  };
  CutWalk walk(d, row, ids, h.bounds, p, s);
  ForEachRanked(d, row, tier, key, 0, first_last, scatter);
  const size_t hit = walk.Walk(base, h.bounds[first_last + 1]);
  if (hit != kNoCut || first_last + 1 == kBuckets) return hit;
  ForEachRanked(d, row, tier, key, first_last + 1, kBuckets - 1, scatter);
  return walk.Walk(h.bounds[first_last + 1], *end);
}

// The twin's own method for a few ids (top-p's candidates on a peaked row):
// the ids with e > 0 sorted by (t desc, id asc) and walked in that order.
template <class D>
Cut SortAndWalk(D d, const NucleusRow& row, double p, uint32_t* ids) {
  size_t count = 0;
  for (size_t i = 0; i < row.n; ++i) {
    ids[count] = static_cast<uint32_t>(i);
    count += row.e[i] > 0;
  }
  std::sort(ids, ids + count, [&row](uint32_t a, uint32_t b) { return row.Before(a, b); });
  double s = 0.0;
  const size_t hit = WalkToTarget(d, s, GatheredQuotients{ids, row.e, row.z}, count, p);
  if (hit == count) return Cut{false, 0.0, 0, count};
  return Cut{true, row.T(row.l[ids[hit]]), ids[hit], hit + 1};
}

template <class D>
Cut NucleusCut(D d, const double* l, double divisor, const double* e, size_t n,
               double z, double p, uint32_t* scratch) {
  const NucleusRow row{l, divisor, e, n, z};
  if (n <= kSortAll) return SortAndWalk(d, row, p, scratch);
  const Survey survey = SurveyOf(d, row);
  if (survey.count == 0) return Cut{};

  // The likely nucleus first, the rest only if the walk gets there.
  const double bound =
      FirstTierBound(row, survey, NucleusThreshold(d, row, survey, p));
  const Tier tiers[2] = {{bound, INFINITY}, {-INFINITY, bound}};
  uint32_t* ids = scratch;
  double s = 0.0;
  size_t base = 0;
  for (const Tier& tier : tiers) {
    if (!(tier.lo < tier.hi)) continue;
    const size_t hit = WalkTier(d, row, tier, survey, ids, scratch + n, base, p, s, &base);
    if (hit != kNoCut) return Cut{true, row.T(l[ids[hit]]), ids[hit], hit + 1};
  }
  return Cut{false, 0.0, 0, survey.count};
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_NUCLEUS_INL_H_
