// Dispatch for TopK: one copy of simd/topk-inl.h per target.
#include "simd/topk.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/topk.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/topk-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

size_t TopKImpl(const double* l, double divisor, size_t n, size_t k, int32_t* out,
                int32_t* ids) {
  return TopK(hn::ScalableTag<double>(), l, divisor, n, k, out, ids, nullptr);
}

size_t TopKF32Impl(const float* x, double divisor, size_t n, size_t k, int32_t* out,
                   int32_t* ids, const uint64_t* skip) {
  return TopK(hn::ScalableTag<float>(), x, divisor, n, k, out, ids, skip);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(TopKImpl);
HWY_EXPORT(TopKF32Impl);

size_t TopK(const double* l, double divisor, size_t n, size_t k, int32_t* out,
            std::span<int32_t> scratch) {
  HWY_ASSERT(scratch.size() >= TopKScratchSize(n));
  return HWY_DYNAMIC_DISPATCH(TopKImpl)(l, divisor, n, k, out, scratch.data());
}

size_t TopK(const float* x, double divisor, size_t n, size_t k, int32_t* out,
            std::span<int32_t> scratch, const uint64_t* skip) {
  HWY_ASSERT(scratch.size() >= TopKScratchSize(n));
  return HWY_DYNAMIC_DISPATCH(TopKF32Impl)(x, divisor, n, k, out, scratch.data(), skip);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
