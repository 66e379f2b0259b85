// Dispatch of the exp_sum kernel family (simd/exp_sum-inl.h).
#include "simd/exp_sum.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/exp_sum.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/exp_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

double ExpSumImpl(ExpSource src, size_t n, double divisor, double shift,
                    double* e_out, ExpVariant v, double s) {
  return ExpSumKernel<ExpPass::kSum>(hn::ScalableTag<double>(), src, n, divisor, shift,
                            e_out, v, s);
}

void ExpStoreImpl(ExpSource src, size_t n, double divisor, double shift,
                    double* e_out, ExpVariant v) {
  ExpSumKernel<ExpPass::kStoreOnly>(hn::ScalableTag<double>(), src, n, divisor, shift, e_out, v,
                      0.0);
}

ExpVariant ExpVariantOnTargetImpl(ExpVariant v) {
  return HWY_NAMESPACE::ExpVariantOnTarget(v);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>

namespace exactsample::simd {

ExpSource ExpSource::At(size_t i) const {
  if (l != nullptr) return ExpSource{l + i};
  ExpSource from = *this;
  from.x = x + i;
  from.first = first + i;
  const int32_t* const next = std::lower_bound(penalised_ids, penalised_ids + penalised_count,
                                               static_cast<int64_t>(from.first));
  from.penalised_count -= static_cast<size_t>(next - penalised_ids);
  from.penalised_ids = next;
  return from;
}

HWY_EXPORT(ExpSumImpl);
HWY_EXPORT(ExpStoreImpl);
HWY_EXPORT(ExpVariantOnTargetImpl);

double ExpSum(ExpSource src, size_t n, double divisor, double shift, double* e_out,
              ExpVariant v, double s) {
  return HWY_DYNAMIC_DISPATCH(ExpSumImpl)(src, n, divisor, shift, e_out, v, s);
}

void ExpStore(ExpSource src, size_t n, double divisor, double shift, double* e_out,
              ExpVariant v) {
  HWY_DYNAMIC_DISPATCH(ExpStoreImpl)(src, n, divisor, shift, e_out, v);
}

ExpVariant ExpVariantOnTarget(ExpVariant v) {
  return HWY_DYNAMIC_DISPATCH(ExpVariantOnTargetImpl)(v);
}

ExpVariant ExpVariantOn(int64_t target, ExpVariant v) {
#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
  (void)target;  // one target compiled: its table has one entry
  return ExpVariantOnTarget(v);
#else
  // The table entry HWY_DYNAMIC_DISPATCH would take with `target` chosen:
  // Highway indexes its tables by the chosen target's bit in this format.
  const int64_t chosen = (target & (HWY_SCALAR | HWY_EMU128)) != 0
                             ? HWY_CHOSEN_TARGET_MASK_SCALAR
                             : HWY_CHOSEN_TARGET_SHIFT(target);
  const size_t index = hwy::Num0BitsBelowLS1Bit_Nonzero64(static_cast<uint64_t>(chosen));
  return HWY_DISPATCH_TABLE(ExpVariantOnTargetImpl)[index](v);
#endif
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
