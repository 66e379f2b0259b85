// Dispatch of the rank count: one copy of simd/rank-inl.h per target.
#include "simd/rank.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/rank.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/rank-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

size_t CountF64Impl(const double* l, size_t n, double max, double log_z, double bound) {
  return CountLogprobsAtLeast(hn::ScalableTag<double>(), l, n, max, log_z, bound);
}

size_t CountF32Impl(const float* x, size_t n, double max, double log_z, double bound) {
  return CountLogprobsAtLeast(hn::ScalableTag<double>(), x, n, max, log_z, bound);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(CountF64Impl);
HWY_EXPORT(CountF32Impl);

size_t CountLogprobsAtLeast(const double* l, size_t n, double max, double log_z,
                            double bound) {
  return HWY_DYNAMIC_DISPATCH(CountF64Impl)(l, n, max, log_z, bound);
}

size_t CountLogprobsAtLeast(const float* x, size_t n, double max, double log_z,
                            double bound) {
  return HWY_DYNAMIC_DISPATCH(CountF32Impl)(x, n, max, log_z, bound);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
