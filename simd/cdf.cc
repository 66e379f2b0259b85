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
HWY_EXPORT(CountQuotientsImpl);
HWY_EXPORT(WalkCdfImpl);
HWY_EXPORT(LastPositiveImpl);

size_t InverseCdf(const double* e, size_t n, double z, double u) {
  return HWY_DYNAMIC_DISPATCH(InverseCdfImpl)(e, n, z, u);
}

GridCount CountQuotients(const double* e, size_t n, double z, double guess) {
  return HWY_DYNAMIC_DISPATCH(CountQuotientsImpl)(e, n, z, guess);
}

size_t WalkCdf(const double* e, size_t n, double z, double u, double& c,
               size_t piece, const GridCount* counts) {
  return HWY_DYNAMIC_DISPATCH(WalkCdfImpl)(e, n, z, u, &c, piece, counts);
}

size_t LastPositive(const double* e, size_t n, double z) {
  return HWY_DYNAMIC_DISPATCH(LastPositiveImpl)(e, n, z);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
