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
#include <type_traits>

#include "hwy/highway.h"
#include "simd/reduce-inl.h"
#include "scalar_ref/twins/max.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The maximum of x[0, n) and whether some x is NaN or +inf, in lanes of
// d's type: f64, widening x and storing it to l_out; or f32, twice as many
// per vector and nothing stored (widening is exact and monotone, so the f32
// maximum widened is the f64 one). Two vectors per step: independent max
// chains hide the Max latency.
template <class D>
WidenResult MaxAndCheck(D d, const float* x, size_t n, double* l_out) {
  constexpr bool kWiden = std::is_same_v<hn::TFromD<D>, double>;
  const size_t N = hn::Lanes(d);
  const auto load = [&](size_t at) {
    if constexpr (kWiden) {
      const auto v = hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, D>(), x + at));
      hn::StoreU(v, d, l_out + at);
      return v;
    } else {
      return hn::LoadU(d, x + at);
    }
  };
  const auto inf = hn::Set(d, INFINITY);
  auto max0 = hn::Set(d, -INFINITY);
  auto max1 = max0;
  // Lanes that saw only values below +inf (false for NaN and +inf).
  auto ok = hn::Eq(max0, max0);
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto v0 = load(i);
    const auto v1 = load(i + N);
    max0 = hn::Max(max0, v0);
    max1 = hn::Max(max1, v1);
    ok = hn::And(ok, hn::And(hn::Lt(v0, inf), hn::Lt(v1, inf)));
  }
  WidenResult r = kWiden ? twins::WidenMax(x + i, n - i, l_out + i)
                         : twins::CheckedMax(x + i, n - i);
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
// maximum, so this is its only pass; as a second pass after the max it was
// measured (V = 128256, the maximum at a random id) as fast as one pass that
// tracks a (max, id) pair per lane on AVX3 and AVX2, and 15% faster on SSE4.
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
