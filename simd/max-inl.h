// Per-target bodies of the max kernels (simd/max.hpp). Tails shorter than a
// vector go to the scalar twins, which define the results.

#if defined(EXACTSAMPLE_SIMD_MAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_MAX_INL_H_
#undef EXACTSAMPLE_SIMD_MAX_INL_H_
#else
#define EXACTSAMPLE_SIMD_MAX_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "simd/penalty-inl.h"
#include "simd/reduce-inl.h"
#include "simd/widen-inl.h"
#include "scalar_ref/twins/half.hpp"
#include "scalar_ref/twins/max.hpp"
#include "scalar_ref/twins/penalty.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lane j set when id `at + j` is allowed (ids at..at + Lanes(d) - 1, all
// below V, so every word read is in the bitmask). Byte-order free: the
// lanes test bits of the words as integers.
template <class D>
hn::Mask<D> AllowedLanes(D d, const AllowedIds& allowed, size_t at) {
  static_assert(hn::MaxLanes(D()) <= 32, "a vector's bits span at most two words");
  static_assert(sizeof(hn::TFromD<D>) == 8, "lanes of 64 bits");
  HWY_ALIGN static constexpr uint64_t kLaneBit[32] = {
      1ull << 0,  1ull << 1,  1ull << 2,  1ull << 3,  1ull << 4,  1ull << 5,  1ull << 6,
      1ull << 7,  1ull << 8,  1ull << 9,  1ull << 10, 1ull << 11, 1ull << 12, 1ull << 13,
      1ull << 14, 1ull << 15, 1ull << 16, 1ull << 17, 1ull << 18, 1ull << 19, 1ull << 20,
      1ull << 21, 1ull << 22, 1ull << 23, 1ull << 24, 1ull << 25, 1ull << 26, 1ull << 27,
      1ull << 28, 1ull << 29, 1ull << 30, 1ull << 31};
  const hn::RebindToUnsigned<D> du;
  const size_t id = allowed.first + at;
  const size_t shift = id % 32;
  uint64_t bits = allowed.words[id / 32] >> shift;
  if (shift + hn::Lanes(d) > 32) bits |= uint64_t{allowed.words[id / 32 + 1]} << (32 - shift);
  return hn::RebindMask(d, hn::TestBit(hn::Set(du, bits), hn::Load(du, kLaneBit)));
}

// The maximum of x[0, n) (a row of type t) and whether some x is NaN or
// +inf, in lanes of d's type: f64, widening x and storing it to l_out (-inf
// for the ids `allowed` masks out, with Masking::kAllowed; the check still reads every
// x); or f32 (an f32 row), twice as many per vector and nothing stored
// (widening is exact and monotone, so the f32 maximum widened is the f64
// one), copying x to copy_out with RowCopy::kStore. Two vectors per
// step: independent max chains hide the Max latency.
// With Penalising::kCodes, the stored lanes are penalised too (twins::WidenMax with
// penalties): the maximum is the penalised one, and `bad` also holds for a
// penalised NaN or +inf.
enum class Masking { kNone, kAllowed };     // a mask sets the ids it drops to -inf
enum class RowCopy { kNone, kStore };       // x is copied to copy_out
enum class Penalising { kNone, kCodes };    // a Sequence's penalty codes apply
template <Masking kMasking, LogitType t, RowCopy kCopying = RowCopy::kNone,
          Penalising kPenalising = Penalising::kNone, class D>
WidenResult MaxAndCheck(D d, const twins::RowWord<t>* x, size_t n, double* l_out,
                        AllowedIds allowed = {}, float* copy_out = nullptr,
                        const twins::PenaltyCodes* penalties = nullptr) {
  constexpr bool kWiden = std::is_same_v<hn::TFromD<D>, double>;
  constexpr bool kMasked = kMasking == Masking::kAllowed;
  constexpr bool kCopy = kCopying == RowCopy::kStore;
  constexpr bool kPenalized = kPenalising == Penalising::kCodes;
  static_assert(kWiden || !kMasked, "a mask applies to the stored row");
  static_assert(kWiden || !kPenalized, "penalties apply to the stored row");
  static_assert(!kWiden || !kCopy, "an f32 row read in f32 lanes is copied");
  static_assert(kWiden || t == LogitType::f32, "a 16-bit row is always widened");
  const size_t N = hn::Lanes(d);
  const auto inf = hn::Set(d, INFINITY);
  const auto minus_inf = hn::Set(d, -INFINITY);
  auto max0 = minus_inf;
  auto max1 = max0;
  // Lanes that saw only values below +inf (false for NaN and +inf).
  auto ok = hn::Eq(max0, max0);
  const twins::Penalties p = kPenalized ? penalties->p : twins::Penalties{};
  const int32_t* const code = kPenalized ? penalties->code : nullptr;
  const auto load = [&](size_t at) {
    auto v = LoadWidened<t>(d, x + at);
    // A penalised NaN or +inf stays one, so unless a mask hides x the
    // check after penalties covers it.
    if constexpr (kMasked || !kPenalized) ok = hn::And(ok, hn::Lt(v, inf));
    if constexpr (kWiden) {
      if constexpr (kMasked) v = hn::IfThenElse(AllowedLanes(d, allowed, at), v, minus_inf);
      if constexpr (kPenalized) {
        v = PenalizeLanes(d, v, code + at, p);
        ok = hn::And(ok, hn::Lt(v, inf));
      }
      hn::StoreU(v, d, l_out + at);
    }
    if constexpr (kCopy) hn::StoreU(v, d, copy_out + at);
    return v;
  };
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    max0 = hn::Max(max0, load(i));
    max1 = hn::Max(max1, load(i + N));
  }
  WidenResult r;
  if constexpr (kWiden) {
    const twins::PenaltyCodes tail = kPenalized ? penalties->From(i) : twins::PenaltyCodes{};
    r = twins::WidenMax(twins::Row(x + i, t), n - i, l_out + i, allowed.From(i),
                        kPenalized ? &tail : nullptr);
  } else if constexpr (kCopy) {
    r = twins::CopyCheckedMax(x + i, n - i, copy_out + i);
  } else {
    r = twins::CheckedMax(x + i, n - i);
  }
  const double vmax = static_cast<double>(MaxLane(d, hn::Max(max0, max1)));
  r.max = std::max(r.max, vmax) + 0.0;  // +0.0 for a zero maximum
  r.bad |= !hn::AllTrue(d, ok);
  return r;
}

template <class D>
double Max(D d, const double* l, size_t n) {
  const size_t N = hn::Lanes(d);
  auto max0 = hn::Set(d, -INFINITY);
  auto max1 = max0, max2 = max0, max3 = max0;
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    max0 = hn::Max(max0, hn::LoadU(d, l + i));
    max1 = hn::Max(max1, hn::LoadU(d, l + i + N));
    max2 = hn::Max(max2, hn::LoadU(d, l + i + 2 * N));
    max3 = hn::Max(max3, hn::LoadU(d, l + i + 3 * N));
  }
  const auto all = hn::Max(hn::Max(max0, max1), hn::Max(max2, max3));
  const double vmax = MaxLane(d, all);
  // The twin of an empty tail is -inf.
  return std::max(vmax, twins::Max(l + i, n - i)) + 0.0;
}

// The first id equal to `value`, stopping there. Greedy already has the
// maximum, so this is its only pass; as a second pass after the max it is
// as fast as one pass that tracks a (max, id) pair per lane on AVX3 and AVX2,
// and faster on SSE4.
template <class D>
size_t FindFirst(D d, const double* l, size_t n, double value) {
  const size_t N = hn::Lanes(d);
  const auto vm = hn::Set(d, value);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const intptr_t lane = hn::FindFirstTrue(d, hn::Eq(hn::LoadU(d, l + i), vm));
    if (lane >= 0) return i + static_cast<size_t>(lane);
  }
  return i + twins::FindFirst(l + i, n - i, value);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_MAX_INL_H_
