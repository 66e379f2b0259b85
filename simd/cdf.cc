// Dispatch for the inverse CDF: one copy of simd/cdf-inl.h per target.
#include "simd/cdf.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/cdf.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/cdf-inl.h"

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(InverseCdfImpl);
HWY_EXPORT(CdfWalkImpl);
HWY_EXPORT(QuotientsImpl);

size_t InverseCdf(const double* e, size_t n, double z, double u) {
  return HWY_DYNAMIC_DISPATCH(InverseCdfImpl)(e, n, z, u);
}

size_t CdfWalk(const double* e, size_t n, double z, double u, double& c) {
  return HWY_DYNAMIC_DISPATCH(CdfWalkImpl)(e, n, z, u, c);
}

void Quotients(const double* e, size_t n, double z, double* q) {
  HWY_DYNAMIC_DISPATCH(QuotientsImpl)(e, n, z, q);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
