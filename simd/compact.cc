// Dispatch of the compaction kernel: one copy of simd/compact-inl.h per target.
#include "simd/compact.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/compact.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/compact-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

size_t CompactAtLeastImpl(const double* e, size_t n, double threshold, uint32_t* ids,
                          size_t capacity) {
  return CompactAtLeast(hn::ScalableTag<double>(), e, n, threshold, ids, capacity);
}

// The f32 row in f32 lanes; on x86 below AVX-512, in as many lanes as
// f64's (Highway 1.0.3's Compress there goes through a table: the f64
// compaction's path, 4 lanes, avoids it).
size_t CompactAtLeastF32Impl(const float* x, size_t n, float threshold, uint32_t* ids,
                             size_t capacity) {
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
  const hn::Rebind<float, hn::ScalableTag<double>> d;
#else
  const hn::ScalableTag<float> d;
#endif
  return CompactAtLeast(d, x, n, threshold, ids, capacity);
}

void CountAtLeastImpl(const double* e, size_t n, const double* thresholds, size_t k,
                      size_t* counts, double* masses) {
  CountAtLeast(hn::ScalableTag<double>(), e, n, thresholds, k, counts, masses);
}

size_t CountAllowedImpl(const uint32_t* words, size_t n) {
  return CountAllowed(hn::ScalableTag<uint32_t>(), words, n);
}

size_t CompactFiniteImpl(const double* l, size_t n, double* l_out, int32_t* ids_out) {
  return CompactFinite(hn::ScalableTag<double>(), l, n, l_out, ids_out);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(CompactAtLeastImpl);
HWY_EXPORT(CompactAtLeastF32Impl);
HWY_EXPORT(CountAtLeastImpl);
HWY_EXPORT(CountAllowedImpl);
HWY_EXPORT(CompactFiniteImpl);

size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity) {
  return HWY_DYNAMIC_DISPATCH(CompactAtLeastImpl)(e, n, threshold, ids,
                                                  capacity);
}

size_t CompactAtLeast(const float* x, size_t n, float threshold,
                      uint32_t* ids, size_t capacity) {
  return HWY_DYNAMIC_DISPATCH(CompactAtLeastF32Impl)(x, n, threshold, ids, capacity);
}

void CountAtLeast(const double* e, size_t n, const double* thresholds, size_t k,
                  size_t* counts, double* masses) {
  HWY_ASSERT(k <= twins::kMaxLevels);
  HWY_DYNAMIC_DISPATCH(CountAtLeastImpl)(e, n, thresholds, k, counts, masses);
}

size_t CountAllowed(const uint32_t* words, size_t n) {
  return HWY_DYNAMIC_DISPATCH(CountAllowedImpl)(words, n);
}

size_t CompactFinite(const double* l, size_t n, double* l_out, int32_t* ids_out) {
  return HWY_DYNAMIC_DISPATCH(CompactFiniteImpl)(l, n, l_out, ids_out);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
