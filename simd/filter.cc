// Dispatch for the filters: one copy of simd/filter-inl.h per target.
#include "simd/filter.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/filter.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/filter-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

size_t ZeroAfterImpl(const double* l, double divisor, double* e, size_t n,
                     double t_cut, int32_t id_cut) {
  return ZeroAfter(hn::ScalableTag<double>(), l, divisor, e, n, t_cut, id_cut);
}

size_t MinPFilterImpl(double* e, size_t n, double z, double threshold) {
  return MinPFilter(hn::ScalableTag<double>(), e, n, z, threshold);
}

scalar_ref::SigmaSums SigmaSumsOfRowImpl(const double* l, double divisor, size_t n) {
  return SigmaSumsOfRow(hn::ScalableTag<double>(), l, divisor, n);
}

scalar_ref::SigmaSums SigmaSumsOfF32RowImpl(const float* x, double divisor, size_t n) {
  return SigmaSumsOfRow(hn::ScalableTag<double>(), x, divisor, n);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(ZeroAfterImpl);
HWY_EXPORT(MinPFilterImpl);
HWY_EXPORT(SigmaSumsOfRowImpl);
HWY_EXPORT(SigmaSumsOfF32RowImpl);

size_t ZeroAfter(const double* l, double divisor, double* e, size_t n,
                 double t_cut, int32_t id_cut) {
  return HWY_DYNAMIC_DISPATCH(ZeroAfterImpl)(l, divisor, e, n, t_cut, id_cut);
}

size_t MinPFilter(double* e, size_t n, double z, double threshold) {
  return HWY_DYNAMIC_DISPATCH(MinPFilterImpl)(e, n, z, threshold);
}

scalar_ref::SigmaSums SigmaSumsOfRow(const double* l, double divisor, size_t n) {
  return HWY_DYNAMIC_DISPATCH(SigmaSumsOfRowImpl)(l, divisor, n);
}

scalar_ref::SigmaSums SigmaSumsOfRow(const float* x, double divisor, size_t n) {
  return HWY_DYNAMIC_DISPATCH(SigmaSumsOfF32RowImpl)(x, divisor, n);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
