// Per-target body of the rank count (simd/rank.hpp): each lane's logprob
// computed as the twin computes it (two f64 subtractions, no contraction),
// compared with the bound; the counts kept in f64 lanes (exact below 2^53).

#if defined(EXACTSAMPLE_SIMD_RANK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_RANK_INL_H_
#undef EXACTSAMPLE_SIMD_RANK_INL_H_
#else
#define EXACTSAMPLE_SIMD_RANK_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include "hwy/highway.h"
#include "scalar_ref/twins/rank.hpp"
#include "simd/widen-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class T>
size_t CountLogprobsAtLeast(D d, const T* l, size_t n, double max, double log_z,
                            double bound) {
  const size_t N = hn::Lanes(d);
  const auto vmax = hn::Set(d, max);
  const auto vlog_z = hn::Set(d, log_z);
  const auto vbound = hn::Set(d, bound);
  const auto one = hn::Set(d, 1.0);
  auto counts = hn::Zero(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::Vec<D> v;
    if constexpr (std::is_same_v<T, float>) {
      v = LoadWidened<LogitType::f32>(d, l + i);
    } else {
      v = hn::LoadU(d, l + i);
    }
    const auto logprob = hn::Sub(hn::Sub(v, vmax), vlog_z);
    counts = hn::Add(counts, hn::IfThenElseZero(hn::Ge(logprob, vbound), one));
  }
  const double vector_count = hn::GetLane(hn::SumOfLanes(d, counts));
  return static_cast<size_t>(vector_count) +
         twins::CountLogprobsAtLeast(l + i, n - i, max, log_z, bound);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_RANK_INL_H_
