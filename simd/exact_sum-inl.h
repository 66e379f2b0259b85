// TEMPORARY stand-in for the exact-summation kernel (replaced at merge):
// plain sequential sum with the final signature.

#if defined(EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
#undef EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
#else
#define EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

// Bits equal to: for i in [0, n): s += e[i]; requires e[i] >= 0 finite.
template <class D>
double AccumulateExact(D /*d*/, double s, const double* HWY_RESTRICT e,
                       size_t n) {
  for (size_t i = 0; i < n; ++i) s += e[i];
  return s;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_EXACT_SUM_INL_H_
