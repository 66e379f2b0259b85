// Dispatch for the inverse CDF: one copy of simd/cdf-inl.h per target.
#include "simd/cdf.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/cdf.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/cdf-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

size_t InverseCdfImpl(const double* e, size_t n, double z, double u) {
  return InverseCdf(hn::ScalableTag<double>(), e, n, z, u);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(InverseCdfImpl);

size_t InverseCdf(const double* e, size_t n, double z, double u) {
  return HWY_DYNAMIC_DISPATCH(InverseCdfImpl)(e, n, z, u);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
