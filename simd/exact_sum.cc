// Dispatch for the exact summation kernels: one copy of simd/exact_sum-inl.h
// per target.
#include "simd/exact_sum.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/exact_sum.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/exact_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

double AccumulateExactImpl(double s, const double* e, size_t n) {
  return AccumulateExact(hn::ScalableTag<double>(), s, e, n);
}

size_t AccumulateUntilImpl(double* s, const double* e, size_t n, double target) {
  return WalkToTarget(hn::ScalableTag<double>(), *s, ContiguousTerms{e}, n, target);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(AccumulateExactImpl);
HWY_EXPORT(AccumulateUntilImpl);

double AccumulateExact(double s, const double* e, size_t n) {
  return HWY_DYNAMIC_DISPATCH(AccumulateExactImpl)(s, e, n);
}

size_t AccumulateUntil(double& s, const double* e, size_t n, double target) {
  return HWY_DYNAMIC_DISPATCH(AccumulateUntilImpl)(&s, e, n, target);
}

double ExactSum(const double* e, size_t n) {
  return AccumulateExact(0.0, e, n);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
