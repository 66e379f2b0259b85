// Per-target bodies of the zeroing filters (simd/filter.hpp). The compare
// uses the same IEEE division as the twins, per lane; tails shorter than a
// vector go to the twins.

#if defined(EXACTSAMPLE_SIMD_FILTER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_FILTER_INL_H_
#undef EXACTSAMPLE_SIMD_FILTER_INL_H_
#else
#define EXACTSAMPLE_SIMD_FILTER_INL_H_
#endif

#include "hwy/highway.h"
#include "scalar_ref/filter.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// kDivide is false for divisor == 1.0, where t == l exactly.
template <bool kDivide>
size_t ZeroAfterT(const double* l, double divisor, double* e, size_t n,
                  double t_cut, int32_t id_cut) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  const auto div = hn::Set(d, divisor);
  const auto tcut = hn::Set(d, t_cut);
  const auto idcut = hn::Set(d, static_cast<double>(id_cut));
  const auto step = hn::Set(d, static_cast<double>(N));
  auto id = hn::Iota(d, 0.0);  // ids < 2^31 are exact doubles
  size_t left = 0;
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto t = hn::LoadU(d, l + i);
    if constexpr (kDivide) t = hn::Div(t, div);
    const auto keep =
        hn::Or(hn::Gt(t, tcut), hn::And(hn::Eq(t, tcut), hn::Le(id, idcut)));
    const auto ev = hn::IfThenElseZero(keep, hn::LoadU(d, e + i));
    hn::StoreU(ev, d, e + i);
    left += hn::CountTrue(d, hn::Gt(ev, hn::Zero(d)));
    id = hn::Add(id, step);
  }
  // The twin numbers the tail from 0: shift the cut id to match (i <= id_cut
  // + 2^31, so the shifted id fits).
  const int32_t tail_id_cut = static_cast<int32_t>(
      static_cast<int64_t>(id_cut) - static_cast<int64_t>(i));
  return left + scalar_ref::ZeroAfter(l + i, divisor, e + i, n - i, t_cut,
                                      tail_id_cut);
}

size_t ZeroAfterImpl(const double* l, double divisor, double* e, size_t n,
                     double t_cut, int32_t id_cut) {
  return divisor == 1.0 ? ZeroAfterT<false>(l, divisor, e, n, t_cut, id_cut)
                        : ZeroAfterT<true>(l, divisor, e, n, t_cut, id_cut);
}

size_t MinPFilterImpl(double* e, size_t n, double z, double threshold) {
  const hn::ScalableTag<double> d;
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
  return left + scalar_ref::MinPFilter(e + i, n - i, z, threshold);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_FILTER_INL_H_
