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
};

inline size_t InverseCdfImpl(const double* e, size_t n, double z, double u) {
  const hn::ScalableTag<double> d;
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
