// Dispatch of the exp_sum kernel family (simd/exp_sum-inl.h).
#include "simd/exp_sum.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/exp_sum.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/exp_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

double ExpSumTarget(ExpSource src, size_t n, double divisor, double shift,
                    double* e_out, ExpVariant v, double s) {
  return ExpSumKernel<true>(hn::ScalableTag<double>(), src, n, divisor, shift,
                            e_out, v, s);
}

void ExpStoreTarget(ExpSource src, size_t n, double divisor, double shift,
                    double* e_out, ExpVariant v) {
  ExpSumKernel<false>(hn::ScalableTag<double>(), src, n, divisor, shift, e_out, v,
                      0.0);
}

ExpVariant ExpVariantOfTarget(ExpVariant v) { return VariantOnThisTarget(v); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(ExpSumTarget);
HWY_EXPORT(ExpStoreTarget);
HWY_EXPORT(ExpVariantOfTarget);

double ExpSum(ExpSource src, size_t n, double divisor, double shift, double* e_out,
              ExpVariant v, double s) {
  return HWY_DYNAMIC_DISPATCH(ExpSumTarget)(src, n, divisor, shift, e_out, v, s);
}

void ExpStore(ExpSource src, size_t n, double divisor, double shift, double* e_out,
              ExpVariant v) {
  HWY_DYNAMIC_DISPATCH(ExpStoreTarget)(src, n, divisor, shift, e_out, v);
}

ExpVariant TargetExpVariant(ExpVariant v) {
  return HWY_DYNAMIC_DISPATCH(ExpVariantOfTarget)(v);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
