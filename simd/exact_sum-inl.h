// Exact summation in SIMD (docs/exactness.md, "Sums"): running
// sums of non-negative terms that equal the sequential `s += q[i]` bit for
// bit, and walks that stop at the first i where the running sum reaches a
// target. Other kernel families include this header for the templates.
//
// The grid argument. Let kGridMin <= s <= DBL_MAX lie in [2^k, 2^(k+1)),
// u = 2^(k-52) its ulp, m = s/u (an integer in [2^52, 2^53)), and for a block
// of terms q_j >= 0 let x_j = q_j/u (a power-of-two scaling: exact, see
// GridOf) and n_j = round_half_even(x_j). If no x_j has fraction exactly 1/2
// and m + sum(n_j) <= 2^53 - 1, then in ANY order each sequential step
// s' = RN(s' + q_j) stays in the binade, where the representable numbers are
// the multiples of u, and rounds q_j to u*n_j without a tie; so the block
// ends at exactly (m + sum n_j) * u. Blocks where this fails (a tie, a binade
// crossing, s zero or tiny, a target reached inside) are split in halves down
// to a few terms, which are added one by one.
//
// Like the sequential loop it must equal, this assumes the default floating
// point environment: round to nearest even, no FTZ/DAZ (the caller checks
// MXCSR).

#if defined(EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
#undef EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
#else
#define EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
#endif

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "simd/reduce-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Below this running sum the grid argument is not used: it keeps u and 1/u
// normal powers of two (u >= 2^-952, 1/u <= 2^952), so the scaling
// x_j = q_j * (1/u) is exact or overflows to +inf, which fails the binade
// test.
inline constexpr double kGridMin = 0x1p-900;

// Terms q_j >= 0 measured on the grid of a running sum in the binade
// [2^k, 2^(k+1)) with ulp u = 2^(k-52): units = sum of round_half_even(q_j /
// u) (exact below 2^53, else at least 2^53), tie = some q_j / u is an odd
// multiple of 1/2 (meaningful when units is below 2^53). Any running sum in
// that binade, if the count keeps it there and has no tie, advances over the
// terms by units * u, exactly as adding them one by one would.
struct GridCount {
  double units;
  bool tie;
};

// Blocks tried as one grid step by the walks, and the size below which a
// failing block is added one term at a time instead of split again.
inline constexpr size_t kGridBlock = 512;
inline constexpr size_t kSequentialMax = 16;

inline bool GridReady(double s) { return s >= kGridMin && s <= DBL_MAX; }

// round_half_even(x) for x >= 0 (or +inf) in the default rounding mode, the
// same value as hn::Round: below 2^52 adding and removing 2^52 rounds at the
// units; from 2^52 on every double is an integer.
inline double RoundHalfEvenNonNegative(double x) {
  return x < 0x1p52 ? (x + 0x1p52) - 0x1p52 : x;
}

// Terms q[i] = e[i] read from memory.
struct ContiguousTerms {
  const double* HWY_RESTRICT e;
  template <class D>
  hn::Vec<D> Load(D d, size_t i) const {
    return hn::LoadU(d, e + i);
  }
  double operator[](size_t i) const { return e[i]; }
};

// The binade [2^k, 2^(k+1)) of a GridReady s as its biased exponent E, with
// u = 2^(E-1023-52) and 1/u = 2^(2098-E), both normal.
struct Grid {
  uint64_t biased;
  double u;
  double inv_u;
};
inline Grid GridOf(double s) {
  const uint64_t biased = std::bit_cast<uint64_t>(s) >> 52;
  return {biased, std::bit_cast<double>((biased - 52) << 52),
          std::bit_cast<double>((2098 - biased) << 52)};
}

// The terms [begin, end) measured on the grid of `grid` (GridReady): units
// is the sum of n_j; a tie shows as |x_j - n_j| (exact, in [0, 1/2]) equal
// to 1/2. Partial sums of the non-negative integers n_j are
// exact below 2^53, and once one reaches 2^53 every later rounded partial
// sum stays >= 2^53 (rounding is monotone), so units is exact below 2^53
// and at least 2^53 otherwise, whatever the lane and reduction order. A +inf
// x_j (overflow) makes it +inf.
template <class D, class Terms>
GridCount CountOnGrid(D d, const Terms& q, size_t begin, size_t end, double grid) {
  const double inv_u = GridOf(grid).inv_u;
  // Per lane; two chains hide the Round/Add latency.
  const size_t N = hn::Lanes(d);
  const auto scale = hn::Set(d, inv_u);
  auto sum0 = hn::Zero(d), sum1 = hn::Zero(d);
  auto dev0 = hn::Zero(d), dev1 = hn::Zero(d);
  size_t i = begin;
  for (; i + 2 * N <= end; i += 2 * N) {
    const auto x0 = hn::Mul(q.Load(d, i), scale);
    const auto x1 = hn::Mul(q.Load(d, i + N), scale);
    const auto n0 = hn::Round(x0);
    const auto n1 = hn::Round(x1);
    sum0 = hn::Add(sum0, n0);
    sum1 = hn::Add(sum1, n1);
    dev0 = hn::Max(dev0, hn::Abs(hn::Sub(x0, n0)));
    dev1 = hn::Max(dev1, hn::Abs(hn::Sub(x1, n1)));
  }
  if (i + N <= end) {
    const auto x0 = hn::Mul(q.Load(d, i), scale);
    const auto n0 = hn::Round(x0);
    sum0 = hn::Add(sum0, n0);
    dev0 = hn::Max(dev0, hn::Abs(hn::Sub(x0, n0)));
    i += N;
  }
  double sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(sum0, sum1)));
  double dev = MaxLane(d, hn::Max(dev0, dev1));
  for (; i < end; ++i) {
    const double x = q[i] * inv_u;
    const double n = RoundHalfEvenNonNegative(x);
    sum += n;
    dev = std::max(dev, std::abs(x - n));
  }
  return {sum, dev == 0.5};
}

// CountOnGrid(d, q, ...), or the terms' own way of counting when they have
// one (q.Count).
template <class D, class Terms>
GridCount CountTerms(D d, const Terms& q, size_t begin, size_t end, double grid) {
  if constexpr (requires { q.Count(d, begin, end, grid); }) {
    return q.Count(d, begin, end, grid);
  } else {
    return CountOnGrid(d, q, begin, end, grid);
  }
}

// Tries the terms [begin, end) as one step on s's grid (requires
// GridReady(s)). Returns true and sets *s_end to the exact result of adding
// them to s sequentially (in any order) when no term is a tie and the sum
// stays in s's binade.
template <class D, class Terms>
bool TryGridBlock(D d, double s, const Terms& q, size_t begin, size_t end,
                  double* s_end) {
  const GridCount count = CountTerms(d, q, begin, end, s);
  const Grid g = GridOf(s);
  const double m = s * g.inv_u;           // exact: an integer below 2^53
  const double limit = (0x1p53 - 1) - m;  // exact: both integers below 2^53
  if (!(count.units <= limit) || count.tie) return false;
  *s_end = (m + count.units) * g.u;  // exact: an integer below 2^53 times 2^k
  return true;
}

// Adds q[begin..end) to s in order, stopping at the first i where s >= target
// (returned; s then includes q[i]); returns end if none. Bit-exact with the
// sequential loop.
template <class D, class Terms>
size_t WalkBlock(D d, double& s, const Terms& q, size_t begin, size_t end,
                 double target) {
  if (end - begin > kSequentialMax && GridReady(s)) {
    double s_end;
    if (TryGridBlock(d, s, q, begin, end, &s_end) && s_end < target) {
      s = s_end;  // s only grows, so no term inside reached the target
      return end;
    }
    const size_t mid = begin + (end - begin) / 2;
    const size_t hit = WalkBlock(d, s, q, begin, mid, target);
    return hit < mid ? hit : WalkBlock(d, s, q, mid, end, target);
  }
  for (size_t i = begin; i < end; ++i) {
    s += q[i];
    if (s >= target) return i;
  }
  return end;
}

// The first i >= begin with q[i] != 0, or n.
template <class D, class Terms>
size_t SkipZeros(D d, const Terms& q, size_t begin, size_t n) {
  const size_t N = hn::Lanes(d);
  size_t i = begin;
  while (i + N <= n && hn::AllTrue(d, hn::Eq(q.Load(d, i), hn::Zero(d)))) {
    i += N;
  }
  while (i < n && q[i] == 0) ++i;
  return i;
}

// Adds q[0..n) to s in order, stopping at the first i where s >= target
// (returned; s then includes q[i]); returns n if none. Equal, in the result
// and in s, to `for (i...) { s += q[i]; if (s >= target) return i; }` for
// terms q[i] >= 0 (finite) and any s.
template <class D, class Terms>
size_t WalkToTarget(D d, double& s, const Terms& q, size_t n, double target) {
  size_t i = 0;
  while (i < n) {
    if (!GridReady(s)) {
      // +0.0 plus zeros of either sign stays +0.0, below a positive target.
      if (std::bit_cast<uint64_t>(s) == 0 && target > 0) {
        i = SkipZeros(d, q, i, n);
        if (i == n) break;
      }
      s += q[i];
      if (s >= target) return i;
      ++i;
      continue;
    }
    const size_t end = std::min(n, i + kGridBlock);
    const size_t hit = WalkBlock(d, s, q, i, end, target);
    if (hit < end) return hit;
    i = end;
  }
  return n;
}

// s + e[0] + e[1] + ... + e[n-1], added in this order, for finite e[i] >= 0.
// Runs of more than kSequentialMax terms are what the grid makes fast: a
// caller that produces terms in pieces should pass pieces of hundreds.
template <class D>
double AccumulateExact(D d, double s, const double* HWY_RESTRICT e, size_t n) {
  // The walk stops early only when s reaches +inf, where it stays.
  WalkToTarget(d, s, ContiguousTerms{e}, n, INFINITY);
  return s;
}

// Sums of terms of either sign. The grid argument holds for a running sum
// s of either sign whose every partial sum keeps |s| in its binade: with
// m = |s| / u and the block's rounded terms n_j, when every partial sum
// m + (n_j so far, toward or away from 0 by s's sign) lies in
// [2^52 + 1, 2^53 - 1] and no x_j is a tie, each step rounds q_j to u * n_j:
// the exact partial sum is within half a unit of that integer, where the
// representable numbers are the multiples of u and the finer ones below 2^k
// are more than half a unit away.
//
// The partial sums are bounded lane by lane: lane j adds the n_j of its own
// ids in index order, and keeps the least and the largest of its running
// sums (0 included). Any partial sum of the block in index order is a sum
// over the lanes of one running sum each, so it lies between the sums of
// the lanes' least and largest. A pass needs every recorded running sum
// below 2^52 in magnitude, where the integer sums are exact; a larger one
// (or a term whose sum reaches it) shows through rounding's monotonicity.
struct SignedGridCount {
  double net;   // the sum of the n_j
  double low;   // at most every partial sum of the n_j (<= 0)
  double high;  // at least every partial sum of the n_j (>= 0)
  bool tie;
};

template <class D, class Terms>
SignedGridCount CountSignedOnGrid(D d, const Terms& q, size_t begin, size_t end, double inv_u) {
  const size_t N = hn::Lanes(d);
  const auto scale = hn::Set(d, inv_u);
  auto run = hn::Zero(d), low = run, high = run, dev = run;
  size_t i = begin;
  for (; i + N <= end; i += N) {
    const auto x = hn::Mul(q.Load(d, i), scale);
    const auto n = hn::Round(x);
    run = hn::Add(run, n);
    low = hn::Min(low, run);
    high = hn::Max(high, run);
    dev = hn::Max(dev, hn::Abs(hn::Sub(x, n)));
  }
  const double lanes_net = hn::GetLane(hn::SumOfLanes(d, run));
  SignedGridCount count{lanes_net, hn::GetLane(hn::SumOfLanes(d, low)),
                        hn::GetLane(hn::SumOfLanes(d, high)), false};
  // The ids after the last whole vector come after every lane's: their
  // partial sums start from the lanes' net.
  double max_dev = MaxLane(d, dev);
  for (; i < end; ++i) {
    const double x = q[i] * inv_u;
    const double n = x < 0 ? -RoundHalfEvenNonNegative(-x) : RoundHalfEvenNonNegative(x);
    count.net += n;
    count.low = std::min(count.low, count.net);
    count.high = std::max(count.high, count.net);
    max_dev = std::max(max_dev, std::abs(x - n));
  }
  count.tie = max_dev == 0.5;
  return count;
}

// Blocks the signed walk tries as one grid step: shorter than the walks of
// non-negative terms', since a sum of terms of either sign near 0 crosses
// binades often, and each lane's range bounds its partial sums.
inline constexpr size_t kSignedGridBlock = 64;

// Whether |s| is GridReady: the signed walk's grid test applies.
inline bool SignedGridReady(double s) { return GridReady(std::abs(s)); }

// Tries the terms [begin, end) as one step on s's grid (requires
// SignedGridReady(s)): true, with *s_end the sequential result, when every
// partial sum provably stays in |s|'s binade and no term is a tie.
template <class D, class Terms>
bool TrySignedGridBlock(D d, double s, const Terms& q, size_t begin, size_t end, double* s_end) {
  const Grid g = GridOf(std::abs(s));
  const SignedGridCount count = CountSignedOnGrid(d, q, begin, end, g.inv_u);
  const double m = std::abs(s) * g.inv_u;  // exact: an integer in [2^52, 2^53)
  const double away = s > 0 ? count.high : -count.low;
  const double toward = s > 0 ? -count.low : count.high;
  // Both limits are exact integers; a NaN or +inf bound fails them.
  if (count.tie || !(away <= (0x1p53 - 1) - m) || !(toward <= m - (0x1p52 + 1))) return false;
  // m + net is an integer in [2^52 + 1, 2^53 - 1] (net: exact, between low and high).
  *s_end = std::copysign((m + (s > 0 ? count.net : -count.net)) * g.u, s);
  return true;
}

template <class D, class Terms>
double AccumulateSignedBlock(D d, double s, const Terms& q, size_t begin, size_t end) {
  if (end - begin > kSequentialMax && SignedGridReady(s)) {
    double s_end;
    if (TrySignedGridBlock(d, s, q, begin, end, &s_end)) return s_end;
    const size_t mid = begin + (end - begin) / 2;
    return AccumulateSignedBlock(d, AccumulateSignedBlock(d, s, q, begin, mid), q, mid, end);
  }
  for (size_t i = begin; i < end; ++i) s += q[i];
  return s;
}

// s + q[0] + ... + q[n-1], added in this order, for terms of any sign that
// are finite or +-inf (not NaN: a NaN lane could hide in Max and Min).
template <class D, class Terms>
double AccumulateSigned(D d, double s, const Terms& q, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (!SignedGridReady(s)) {
      // +0.0 plus zeros of either sign stays +0.0.
      if (std::bit_cast<uint64_t>(s) == 0) {
        i = SkipZeros(d, q, i, n);
        if (i == n) break;
      }
      s += q[i];
      ++i;
      continue;
    }
    const size_t end = std::min(n, i + kSignedGridBlock);
    s = AccumulateSignedBlock(d, s, q, i, end);
    i = end;
  }
  return s;
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
