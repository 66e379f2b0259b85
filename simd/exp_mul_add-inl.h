// a * b + c rounded as a chosen glibc build rounds it, on every target:
// MulAddAs<Fma::kFused> rounds once (a true fma), MulAddAs<Fma::kUnfused>
// rounds the product and the sum separately. Highway's MulAdd is a true FMA
// only where the target defines HWY_NATIVE_FMA, so it is never used for the
// unfused form.
//
// Targets without an FMA instruction (SSE4, SSSE3, EMU128, SCALAR) call
// std::fma per lane: glibc's fma is correctly rounded on every CPU (the FMA
// or FMA4 instruction when present, exact software otherwise), which costs
// less than a vector emulation of fma (Dekker's product, TwoSum and
// rounding to odd, Boldo & Melquiond 2008). Only CPUs
// without AVX2 whose glibc still uses a fused exp (FMA4) run this in
// production; elsewhere it serves the tests.

#if defined(EXACTSAMPLE_SIMD_MUL_ADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_MUL_ADD_INL_H_
#undef EXACTSAMPLE_SIMD_MUL_ADD_INL_H_
#else
#define EXACTSAMPLE_SIMD_MUL_ADD_INL_H_
#endif

#include <cmath>
#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// How a glibc build computes a * b + c: as one fma, or as a product and a sum.
enum class Fma { kUnfused, kFused };

template <Fma kFma, class D, class V = hn::Vec<D>>
HWY_INLINE V MulAddAs(D d, V a, V b, V c) {
  if constexpr (kFma == Fma::kUnfused) {
    (void)d;
    return hn::Add(hn::Mul(a, b), c);  // -ffp-contract=off: two roundings
  } else {
#if HWY_NATIVE_FMA
    (void)d;
    return hn::MulAdd(a, b, c);
#else
    using T = hn::TFromD<D>;
    constexpr size_t kLanes = hn::MaxLanes(D());
    HWY_ALIGN T la[kLanes];
    HWY_ALIGN T lb[kLanes];
    HWY_ALIGN T lc[kLanes];
    hn::Store(a, d, la);
    hn::Store(b, d, lb);
    hn::Store(c, d, lc);
    for (size_t i = 0; i < hn::Lanes(d); ++i) la[i] = std::fma(la[i], lb[i], lc[i]);
    return hn::Load(d, la);
#endif
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_MUL_ADD_INL_H_
