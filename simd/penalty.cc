// Dispatch for the penalty kernel: one copy of simd/penalty-inl.h per target.
#include "simd/penalty.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/penalty.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/penalty-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

PenaltyResult PenalizeImpl(double* l, size_t n, const PenaltyCodes& codes) {
  return Penalize(hn::ScalableTag<double>(), l, n, codes);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(PenalizeImpl);

PenaltyResult Penalize(double* l, size_t n, const PenaltyCodes& codes) {
  return HWY_DYNAMIC_DISPATCH(PenalizeImpl)(l, n, codes);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
