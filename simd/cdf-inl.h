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

inline size_t CdfWalkImpl(const double* e, size_t n, double z, double u,
                          double& c) {
  const hn::ScalableTag<double> d;
  // For doubles, u < c exactly when c >= the next double above u.
  return WalkToTarget(d, c, QuotientTerms{e, z}, n, std::nextafter(u, INFINITY));
}

inline void QuotientsImpl(const double* e, size_t n, double z, double* q) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  const QuotientTerms terms{e, z};
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(terms.Load(d, i), d, q + i);
  for (; i < n; ++i) q[i] = terms[i];
}

inline size_t InverseCdfImpl(const double* e, size_t n, double z, double u) {
  double c = 0.0;
  const size_t hit = CdfWalkImpl(e, n, z, u, c);
  if (hit < n) return hit;
  for (size_t i = n; i-- > 0;) {
    if (e[i] / z > 0) return i;
  }
  return n;
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_CDF_INL_H_
