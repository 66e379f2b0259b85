// Lane bits of a mask, and horizontal max and min of f64 and f32 lanes. Highway 1.0.3's MaxOfLanes and
// MinOfLanes on EMU128 (the portable target clang builds) clamp infinities
// to the largest finite value, and -inf is a real logit; these read the
// lanes instead, on every target alike.

#if defined(EXACTSAMPLE_SIMD_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_REDUCE_INL_H_
#undef EXACTSAMPLE_SIMD_REDUCE_INL_H_
#else
#define EXACTSAMPLE_SIMD_REDUCE_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The lane that `better(a, b)` prefers over every other, read from memory.
template <class D, class Better>
hn::TFromD<D> PickLane(D d, hn::Vec<D> v, const Better& better) {
  HWY_ALIGN hn::TFromD<D> lanes[hn::MaxLanes(D())];
  hn::Store(v, d, lanes);
  hn::TFromD<D> m = lanes[0];
  for (size_t j = 1; j < hn::Lanes(d); ++j) m = better(lanes[j], m) ? lanes[j] : m;
  return m;
}

template <class D>
hn::TFromD<D> MaxLane(D d, hn::Vec<D> v) {
  return PickLane(d, v, [](auto a, auto b) { return a > b; });
}

template <class D>
hn::TFromD<D> MinLane(D d, hn::Vec<D> v) {
  return PickLane(d, v, [](auto a, auto b) { return a < b; });
}

// Bit j set for each true lane j < Lanes(d), whatever the byte order and
// however many lanes the vector has at run time (SVE): StoreMaskBits writes
// lane j at bit j % 8 of byte j / 8.
template <class D>
uint64_t LaneBits(D d, hn::Mask<D> mask) {
  constexpr size_t kMaxN = hn::MaxLanes(D());
  static_assert(kMaxN <= 64, "mask bits must fit one uint64_t");
  uint8_t bytes[(kMaxN + 7) / 8] = {};
  const size_t written = hn::StoreMaskBits(d, mask, bytes);
  uint64_t bits = 0;
  for (size_t b = 0; b < written; ++b) bits |= uint64_t{bytes[b]} << (8 * b);
  return bits;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_REDUCE_INL_H_
