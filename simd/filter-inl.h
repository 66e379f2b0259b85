// Per-target bodies of the filters (simd/filter.hpp). The compares use the
// same IEEE division as the twins, per lane; tails shorter than a vector go
// to the twins.

#if defined(EXACTSAMPLE_SIMD_FILTER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_FILTER_INL_H_
#undef EXACTSAMPLE_SIMD_FILTER_INL_H_
#else
#define EXACTSAMPLE_SIMD_FILTER_INL_H_
#endif

#include <cmath>

#include "hwy/highway.h"
#include "scalar_ref/twins/filter.hpp"
#include "simd/exact_sum-inl.h"
#include "simd/order-inl.h"
#include "simd/reduce-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <Divisor kDivisor, class D>
size_t ZeroAfterTempered(D d, const double* l, double divisor, double* e, size_t n,
                         double t_cut, int32_t id_cut) {
  const size_t N = hn::Lanes(d);
  const auto div = hn::Set(d, divisor);
  const auto tcut = hn::Set(d, t_cut);
  const auto idcut = hn::Set(d, static_cast<double>(id_cut));
  const auto step = hn::Set(d, static_cast<double>(N));
  auto id = hn::Iota(d, 0.0);  // ids < 2^31 are exact doubles
  size_t left = 0;
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto t = Tempered<kDivisor>(hn::LoadU(d, l + i), div);
    const auto keep = NotAfter(d, t, id, tcut, idcut);
    const auto ev = hn::IfThenElseZero(keep, hn::LoadU(d, e + i));
    hn::StoreU(ev, d, e + i);
    left += hn::CountTrue(d, hn::Gt(ev, hn::Zero(d)));
    id = hn::Add(id, step);
  }
  // The twin numbers the tail from 0: shift the cut id to match (i <= id_cut
  // + 2^31, so the shifted id fits).
  const int32_t tail_id_cut = static_cast<int32_t>(
      static_cast<int64_t>(id_cut) - static_cast<int64_t>(i));
  return left + twins::ZeroAfter(l + i, divisor, e + i, n - i, t_cut,
                                      tail_id_cut);
}

template <class D>
size_t ZeroAfter(D d, const double* l, double divisor, double* e, size_t n,
                 double t_cut, int32_t id_cut) {
  return divisor == 1.0 ? ZeroAfterTempered<Divisor::kOne>(d, l, divisor, e, n, t_cut, id_cut)
                        : ZeroAfterTempered<Divisor::kAny>(d, l, divisor, e, n, t_cut, id_cut);
}

template <class D>
size_t MinPFilter(D d, double* e, size_t n, double z, double threshold) {
  const size_t N = hn::Lanes(d);
  const auto vz = hn::Set(d, z);
  const auto vthreshold = hn::Set(d, threshold);
  size_t left = 0;
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto ev = hn::LoadU(d, e + i);
    const auto kept =
        hn::IfThenZeroElse(hn::Lt(hn::Div(ev, vz), vthreshold), ev);
    hn::StoreU(kept, d, e + i);
    left += hn::CountTrue(d, hn::Gt(kept, hn::Zero(d)));
  }
  return left + twins::MinPFilter(e + i, n - i, z, threshold);
}

// top-n-sigma's t = l / divisor per id from a row of f32 or f64 logits.
template <Divisor kDivisor, typename T>
struct TemperedRow {
  const T* HWY_RESTRICT l;
  double divisor;
  template <class D>
  hn::Vec<D> Load(D d, size_t i) const {
    hn::Vec<D> v;
    if constexpr (sizeof(T) == sizeof(double)) {
      v = hn::LoadU(d, l + i);
    } else {
      v = hn::PromoteTo(d, hn::LoadU(hn::Rebind<T, D>(), l + i));
    }
    return Tempered<kDivisor>(v, hn::Set(d, divisor));
  }
  double operator[](size_t i) const {
    return scalar_ref::Tempered(static_cast<double>(l[i]), divisor);
  }
};

// The sums' terms for the exact walks: t, and (t - mean) * (t - mean), with
// an id whose t is -inf (not in the sums) as +0.0, which leaves every
// running sum as it was (a running sum that starts at +0.0 is never -0.0).
template <class Row>
struct FiniteTerms {
  Row t;
  template <class D>
  hn::Vec<D> Load(D d, size_t i) const {
    const auto ti = t.Load(d, i);
    return hn::IfThenZeroElse(hn::Eq(ti, hn::Set(d, -INFINITY)), ti);
  }
  double operator[](size_t i) const {
    const double ti = t[i];
    return ti == -INFINITY ? 0.0 : ti;
  }
};
template <class Row>
struct SquaredDeviations {
  Row t;
  double mean;
  template <class D>
  hn::Vec<D> Load(D d, size_t i) const {
    const auto ti = t.Load(d, i);
    const auto dev = hn::Sub(ti, hn::Set(d, mean));
    return hn::IfThenZeroElse(hn::Eq(ti, hn::Set(d, -INFINITY)), hn::Mul(dev, dev));
  }
  double operator[](size_t i) const {
    const double ti = t[i];
    return ti == -INFINITY ? 0.0 : (ti - mean) * (ti - mean);
  }
};

template <Divisor kDivisor, class D, typename T>
scalar_ref::SigmaSums SigmaSumsTempered(D d, const T* l, double divisor, size_t n) {
  const TemperedRow<kDivisor, T> row{l, divisor};
  const size_t N = hn::Lanes(d);
  const auto neg_inf = hn::Set(d, -INFINITY);
  auto max = neg_inf;
  scalar_ref::SigmaSums s{-INFINITY, 0.0, 0.0, 0};
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto t = row.Load(d, i);
    max = hn::Max(max, t);
    s.count += N - hn::CountTrue(d, hn::Eq(t, neg_inf));
  }
  s.max = MaxLane(d, max);
  for (; i < n; ++i) {
    const double t = row[i];
    s.max = std::max(s.max, t);
    s.count += t != -INFINITY;
  }
  // The sequential max keeps the first of equal values: of zeros, the sign
  // of the first zero in id order.
  if (s.max == 0.0) {
    size_t first = 0;
    while (row[first] != 0.0) ++first;
    s.max = row[first];
  }
  s.sum = AccumulateSigned(d, 0.0, FiniteTerms<decltype(row)>{row}, n);
  const double mean = s.sum / static_cast<double>(s.count);
  // The walk of non-negative terms stops at +inf, where a NaN term after it
  // would have made the sequential sum NaN: a mean that is not finite (no
  // finite t, or a sum that overflowed) is left to the twin.
  if (!std::isfinite(mean)) return twins::SigmaSumsOfRow(l, divisor, n);
  WalkToTarget(d, s.squares, SquaredDeviations<decltype(row)>{row, mean}, n, INFINITY);
  return s;
}

template <class D, typename T>
scalar_ref::SigmaSums SigmaSumsOfRow(D d, const T* l, double divisor, size_t n) {
  return divisor == 1.0 ? SigmaSumsTempered<Divisor::kOne>(d, l, divisor, n)
                        : SigmaSumsTempered<Divisor::kAny>(d, l, divisor, n);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_FILTER_INL_H_
