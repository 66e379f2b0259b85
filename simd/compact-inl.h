// Per-target body of the compaction kernel (simd/compact.hpp): one compare
// per vector; the rare vectors with a qualifying lane are read lane by lane
// (Highway 1.0.3's CompressStore of 64-bit lanes is slow on AVX2, and hits
// are few when compaction pays off).

#if defined(EXACTSAMPLE_SIMD_COMPACT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_COMPACT_INL_H_
#undef EXACTSAMPLE_SIMD_COMPACT_INL_H_
#else
#define EXACTSAMPLE_SIMD_COMPACT_INL_H_
#endif

#include "hwy/highway.h"
#include "scalar_ref/twins/compact.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D>
size_t CompactAtLeast(D d, const double* e, size_t n, double threshold, uint32_t* ids,
                      size_t capacity) {
  const size_t N = hn::Lanes(d);
  const auto vthreshold = hn::Set(d, threshold);
  size_t count = 0;
  size_t i = 0;
  for (; i + N <= n; i += N) {
    if (hn::AllFalse(d, hn::Ge(hn::LoadU(d, e + i), vthreshold))) continue;
    for (size_t j = i; j < i + N; ++j) {
      if (e[j] >= threshold) {
        if (count == capacity) return capacity + 1;
        ids[count++] = static_cast<uint32_t>(j);
      }
    }
  }
  const size_t tail = twins::CompactAtLeast(e + i, n - i, threshold,
                                                 ids + count, capacity - count);
  for (size_t j = 0; j < tail && count + j < capacity; ++j) {
    ids[count + j] += static_cast<uint32_t>(i);
  }
  return count + tail;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_COMPACT_INL_H_
