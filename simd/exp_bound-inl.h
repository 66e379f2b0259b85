// exp_bound kernel: twins::ExpApprox on f64 lanes (the same operations,
// each multiply-add fused where the target has FMA) summed in four vector
// accumulators; only the bounds' slack depends on that order.

#if defined(EXACTSAMPLE_SIMD_EXP_BOUND_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_EXP_BOUND_INL_H_
#undef EXACTSAMPLE_SIMD_EXP_BOUND_INL_H_
#else
#define EXACTSAMPLE_SIMD_EXP_BOUND_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "scalar_ref/twins/exp_bound.hpp"
#include "scalar_ref/twins/exp_bound_data.hpp"
#include "simd/exp_sum.hpp"
#include "simd/widen-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// twins::ExpApprox per lane: k by adding 1.5 2^52 (its low bits then hold
// k), 2^k added to the polynomial's exponent field.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpApprox(D d, V x) {
  namespace c = twins::exp_bound;
  const hn::RebindToUnsigned<D> du;
  const V round = hn::Set(d, c::kRound);
  x = hn::Max(x, hn::Set(d, c::kFloor));
  const V biased = hn::MulAdd(x, hn::Set(d, c::kInvLn2), round);
  const V k = hn::Sub(biased, round);
  const V r = hn::NegMulAdd(k, hn::Set(d, c::kLn2), x);
  V p = hn::Set(d, c::kTaylor[c::kDegree]);
  for (int j = c::kDegree - 1; j >= 0; --j) p = hn::MulAdd(p, r, hn::Set(d, c::kTaylor[j]));
  const auto exponent = hn::ShiftLeft<52>(hn::BitCast(du, biased));
  return hn::BitCast(d, hn::Add(hn::BitCast(du, p), exponent));
}

// The sum of ExpApprox(l[i] * inverse - shift) over l[begin..end), in
// lanes; l has n entries. The last partial vector is read whole where it
// lies inside l, its lanes past `end` dropped.
template <class D, class T>
HWY_INLINE double SumApprox(D d, const T* l, size_t n, size_t begin, size_t end,
                            double inverse, double shift) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const V vinverse = hn::Set(d, inverse);
  const V vshift = hn::Set(d, shift);
  const auto term = [&](V v) { return ExpApprox(d, hn::MulSub(v, vinverse, vshift)); };
  V s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
  size_t i = begin;
  for (; i + 4 * N <= end; i += 4 * N) {
    s0 = hn::Add(s0, term(LoadLogits(d, l + i)));
    s1 = hn::Add(s1, term(LoadLogits(d, l + i + N)));
    s2 = hn::Add(s2, term(LoadLogits(d, l + i + 2 * N)));
    s3 = hn::Add(s3, term(LoadLogits(d, l + i + 3 * N)));
  }
  for (; i + N <= end; i += N) s0 = hn::Add(s0, term(LoadLogits(d, l + i)));
  if (i < end && i + N <= n) {
    s1 = hn::Add(s1, hn::IfThenElseZero(hn::FirstN(d, end - i), term(LoadLogits(d, l + i))));
    i = end;
  }
  double sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < end; ++i) sum += twins::ExpApprox(static_cast<double>(l[i]) * inverse - shift);
  return sum;
}

// The row's runs between penalised ids, then each penalised id at its own
// logit: every term is one of Z's, so none cancels another.
template <class D>
ZBounds ExpSumBounds(D d, ExpSource src, size_t n, double divisor, double shift) {
  const double inverse = 1.0 / divisor;
  if (src.x == nullptr) {
    return twins::BoundsOf(SumApprox(d, src.l, n, 0, n, inverse, shift), n, shift);
  }
  double sum = 0.0;
  size_t begin = 0;
  for (size_t j = 0; j < src.penalised_count; ++j) {
    const int32_t id = src.penalised_ids[j];
    const size_t end = static_cast<size_t>(id) - src.first;
    sum += SumApprox(d, src.x, n, begin, end, inverse, shift);
    sum += twins::ExpApprox(src.penalised_l[id] * inverse - shift);
    begin = end + 1;
  }
  sum += SumApprox(d, src.x, n, begin, n, inverse, shift);
  return twins::BoundsOf(sum, n, shift);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_EXP_BOUND_INL_H_
