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

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(CompactAtLeastImpl);

size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity) {
  return HWY_DYNAMIC_DISPATCH(CompactAtLeastImpl)(e, n, threshold, ids,
                                                  capacity);
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
