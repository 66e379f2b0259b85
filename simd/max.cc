// Dispatch for the max kernels: one copy of simd/max-inl.h per target.
#include "simd/max.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/max.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/max-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

WidenResult WidenMaxImpl(Row x, size_t n, double* l_out, AllowedIds allowed,
                         const PenaltyCodes* penalties) {
  const hn::ScalableTag<double> d;
  return twins::VisitRow(x, [&](const auto* words, auto type) {
    constexpr LogitType t = decltype(type)::value;
    if (penalties != nullptr) {
      return allowed.words != nullptr
                 ? MaxAndCheck<Masking::kAllowed, t, RowCopy::kNone, Penalising::kCodes>(
                       d, words, n, l_out, allowed, nullptr, penalties)
                 : MaxAndCheck<Masking::kNone, t, RowCopy::kNone, Penalising::kCodes>(
                       d, words, n, l_out, {}, nullptr, penalties);
    }
    return allowed.words != nullptr ? MaxAndCheck<Masking::kAllowed, t>(d, words, n, l_out, allowed)
                                    : MaxAndCheck<Masking::kNone, t>(d, words, n, l_out);
  });
}

WidenResult CheckedMaxImpl(const float* x, size_t n) {
  return MaxAndCheck<Masking::kNone, LogitType::f32>(hn::ScalableTag<float>(), x, n, nullptr);
}

WidenResult CopyCheckedMaxImpl(const float* x, size_t n, float* copy_out) {
  return MaxAndCheck<Masking::kNone, LogitType::f32, RowCopy::kStore>(
      hn::ScalableTag<float>(), x, n, nullptr, {}, copy_out);
}

double MaxImpl(const double* l, size_t n) {
  return Max(hn::ScalableTag<double>(), l, n);
}

size_t FindFirstImpl(const double* l, size_t n, double value) {
  return FindFirst(hn::ScalableTag<double>(), l, n, value);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(WidenMaxImpl);
HWY_EXPORT(CheckedMaxImpl);
HWY_EXPORT(CopyCheckedMaxImpl);
HWY_EXPORT(MaxImpl);
HWY_EXPORT(FindFirstImpl);

WidenResult WidenMax(Row x, size_t n, double* l_out, AllowedIds allowed,
                     const PenaltyCodes* penalties) {
  return HWY_DYNAMIC_DISPATCH(WidenMaxImpl)(x, n, l_out, allowed, penalties);
}

WidenResult CheckedMax(const float* x, size_t n) {
  return HWY_DYNAMIC_DISPATCH(CheckedMaxImpl)(x, n);
}

WidenResult CopyCheckedMax(const float* x, size_t n, float* copy_out) {
  return HWY_DYNAMIC_DISPATCH(CopyCheckedMaxImpl)(x, n, copy_out);
}

double Max(const double* l, size_t n) {
  return HWY_DYNAMIC_DISPATCH(MaxImpl)(l, n);
}

size_t FindFirst(const double* l, size_t n, double value) {
  return HWY_DYNAMIC_DISPATCH(FindFirstImpl)(l, n, value);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
