// Per-target loads of a row's logits widened to f32 or f64 lanes, exactly:
// the vector forms of twins::F16ToF32 and Bf16ToF32
// (scalar_ref/twins/half.hpp), bit for bit.

#if defined(EXACTSAMPLE_SIMD_WIDEN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_WIDEN_INL_H_
#undef EXACTSAMPLE_SIMD_WIDEN_INL_H_
#else
#define EXACTSAMPLE_SIMD_WIDEN_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "scalar_ref/twins/half.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A vector of logits from f64, or from f32 widened (exact).
template <class D>
HWY_INLINE hn::Vec<D> LoadLogits(D d, const double* l) {
  return hn::LoadU(d, l);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadLogits(D d, const float* x) {
  return hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, D>(), x));
}

// f16 words (zero-extended into u32 lanes) to f32, as twins::F16ToF32.
// Highway's own emulation (targets without F16C) turns inf and NaN into
// finite values, so targets without a conversion instruction use this.
template <class DF>
HWY_INLINE hn::Vec<DF> F16BitsToF32(DF df, hn::Vec<hn::RebindToUnsigned<DF>> w) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto sign = hn::ShiftLeft<16>(hn::And(w, hn::Set(du, 0x8000u)));
  const auto exponent = hn::And(hn::ShiftRight<10>(w), hn::Set(du, 0x1Fu));
  const auto mantissa = hn::And(w, hn::Set(du, 0x3FFu));
  const auto moved = hn::ShiftLeft<13>(mantissa);
  const auto normal =
      hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 127 - 15))), moved);
  const auto subnormal = hn::BitCast(
      du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, mantissa)), hn::Set(df, 0x1p-24f)));
  const auto special = hn::Or(hn::Set(du, 0x7F800000u), moved);  // inf, NaN
  auto bits = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), subnormal, normal);
  bits = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x1Fu)), special, bits);
  return hn::BitCast(df, hn::Or(sign, bits));
}

// Lanes(d) logits from x (words of a row of type t), widened to d's lane
// type: f32, or f64.
template <LogitType t, class D>
HWY_INLINE hn::Vec<D> LoadWidened(D d, const twins::RowWord<t>* HWY_RESTRICT x) {
  if constexpr (std::is_same_v<hn::TFromD<D>, double>) {
    return hn::PromoteTo(d, LoadWidened<t>(hn::Rebind<float, D>(), x));
  } else if constexpr (t == LogitType::f32) {
    return hn::LoadU(d, x);
  } else {
    const hn::RebindToUnsigned<D> du;
    const auto words = hn::LoadU(hn::Rebind<uint16_t, D>(), x);
    if constexpr (t == LogitType::bf16) {
      return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, words)));
    } else {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
      // F16C's conversion: exact, inf and NaN included.
      return hn::PromoteTo(d, hn::BitCast(hn::Rebind<hwy::float16_t, D>(), words));
#else
      return F16BitsToF32(d, hn::PromoteTo(du, words));
#endif
    }
  }
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_WIDEN_INL_H_
