// Per-target body of the inverse CDF (simd/cdf.hpp). The running sum
// c += e[i] / z follows the sequential roundings through the exact walk of
// simd/exact_sum-inl.h: whole blocks are skipped while their end stays below
// the target, and the crossing block is narrowed to a few terms added one by
// one. Each q_i = e_i / z is one IEEE division, as in the twin.

#if defined(EXACTSAMPLE_SIMD_CDF_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_CDF_INL_H_
#undef EXACTSAMPLE_SIMD_CDF_INL_H_
#else
#define EXACTSAMPLE_SIMD_CDF_INL_H_
#endif

#include <cmath>
#include <cstddef>

#include "hwy/highway.h"
#include "simd/exact_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Terms q[i] = e[i] / z.
struct QuotientTerms {
  const double* HWY_RESTRICT e;
  double z;
  template <class D>
  hn::Vec<D> Load(D d, size_t i) const {
    return hn::Div(hn::LoadU(d, e + i), hn::Set(d, z));
  }
  double operator[](size_t i) const { return e[i] / z; }

  // CountOnGrid, mostly without a division per term: blocks of kGridBlock
  // terms are counted by CountByReciprocal, and those it cannot count
  // exactly by CountOnGrid.
  template <class D>
  GridCount Count(D d, size_t begin, size_t end, double grid) const {
    const double scale = (1.0 / z) * GridOf(grid).inv_u;
    const bool reciprocal = std::isnormal(1.0 / z) && std::isnormal(scale);
    GridCount total{0.0, false};
    for (size_t at = begin; at < end; at += kGridBlock) {
      const size_t stop = HWY_MIN(end, at + kGridBlock);
      double units;
      if (reciprocal && CountByReciprocal(d, at, stop, scale, &units)) {
        total.units += units;
      } else {
        const GridCount part = CountOnGrid(d, *this, at, stop, grid);
        total.units += part.units;
        total.tie |= part.tie;
      }
    }
    // Each part is exact below 2^53 and at least 2^53 otherwise, and so is
    // their sum.
    return total;
  }

  // x_j = e_j * scale, scale = (1/z) / u (normal), is within 3.01 * 2^-53 *
  // x_j (plus 2^-123 where a value is subnormal) of the exact q_j / u:
  // three roundings of relative size 2^-53, 1/u a power of two. When every
  // |x_j - n_j| + x_j * 2^-51 (n_j = round(x_j); the computed sum can only
  // come out below 0.5 - 2^-100 if the exact one is) is below 0.5 - 2^-100,
  // no odd multiple of 1/2 lies between x_j and the exact q_j / u: both round
  // to n_j and neither is a tie. Then *units is the exact count and the
  // result true; else false.
  template <class D>
  bool CountByReciprocal(D d, size_t begin, size_t end, double scale,
                         double* units) const {
    const size_t N = hn::Lanes(d);
    const auto vscale = hn::Set(d, scale);
    const auto vmargin = hn::Set(d, 0x1p-51);
    // Two chains of each, to hide the Round/Add latency (named, not an
    // array: SVE vectors are sizeless and cannot be array elements).
    auto sum0 = hn::Zero(d), sum1 = hn::Zero(d);
    auto near0 = hn::Zero(d), near1 = hn::Zero(d);
    const auto step = [&](hn::Vec<D>& sum, hn::Vec<D>& near, size_t at) {
      const auto x = hn::Mul(hn::LoadU(d, e + at), vscale);
      const auto n = hn::Round(x);
      sum = hn::Add(sum, n);
      near = hn::Max(near, hn::Add(hn::Abs(hn::Sub(x, n)), hn::Mul(x, vmargin)));
    };
    size_t i = begin;
    for (; i + 2 * N <= end; i += 2 * N) {
      step(sum0, near0, i);
      step(sum1, near1, i + N);
    }
    if (i + N <= end) {
      step(sum0, near0, i);
      i += N;
    }
    *units = hn::GetLane(hn::SumOfLanes(d, hn::Add(sum0, sum1)));
    double nearest = MaxLane(d, hn::Max(near0, near1));
    for (; i < end; ++i) {
      const double x = e[i] * scale;
      const double n = RoundHalfEvenNonNegative(x);
      *units += n;
      nearest = std::max(nearest, std::abs(x - n) + x * 0x1p-51);
    }
    return nearest < 0.5 - 0x1p-100;
  }
};

template <class D>
size_t InverseCdf(D d, const double* e, size_t n, double z, double u) {
  // For doubles, u < c exactly when c >= the next double above u.
  const double target = std::nextafter(u, INFINITY);
  double c = 0.0;
  const size_t hit = WalkToTarget(d, c, QuotientTerms{e, z}, n, target);
  if (hit < n) return hit;
  for (size_t i = n; i-- > 0;) {
    if (e[i] / z > 0) return i;
  }
  return n;
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_CDF_INL_H_
