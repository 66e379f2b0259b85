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
#include "simd/order-inl.h"
#include "scalar_ref/twins/filter.hpp"

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

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_FILTER_INL_H_
