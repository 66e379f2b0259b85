// scalar_ref/order.hpp on lanes: the tempered logit t = l / T and the
// (t desc, id asc) order, for the kernels that filter or exponentiate
// tempered logits.

#if defined(EXACTSAMPLE_SIMD_ORDER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_ORDER_INL_H_
#undef EXACTSAMPLE_SIMD_ORDER_INL_H_
#else
#define EXACTSAMPLE_SIMD_ORDER_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether a kernel divides by the temperature: not where divisor == 1.0,
// where t == l exactly and the division is skipped.
enum class Divisor { kOne, kAny };

// scalar_ref::Tempered per lane.
template <Divisor kDivisor, class V>
HWY_INLINE V Tempered(V l, V divisor) {
  if constexpr (kDivisor == Divisor::kAny) {
    return hn::Div(l, divisor);
  } else {
    (void)divisor;
    return l;
  }
}

// Lanes whose (t, id) is not after (t_cut, id_cut) in (t desc, id asc)
// order: !scalar_ref::Before(t_cut, id_cut, t, id). Ids are exact doubles.
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> NotAfter(D /*d*/, V t, V id, V t_cut, V id_cut) {
  return hn::Or(hn::Gt(t, t_cut), hn::And(hn::Eq(t, t_cut), hn::Le(id, id_cut)));
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_ORDER_INL_H_
