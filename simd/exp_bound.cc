// Dispatch of the exp_bound kernel family (simd/exp_bound-inl.h).
#include "simd/exp_bound.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/exp_bound.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/exp_bound-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

ZBounds ExpSumBoundsImpl(ExpSource src, size_t n, double divisor, double shift) {
  return ExpSumBounds(hn::ScalableTag<double>(), src, n, divisor, shift);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(ExpSumBoundsImpl);

ZBounds ExpSumBounds(ExpSource src, size_t n, double divisor, double shift) {
  return HWY_DYNAMIC_DISPATCH(ExpSumBoundsImpl)(src, n, divisor, shift);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
