// Per-target body of the penalty kernel (simd/penalty.hpp), and the lanes'
// penalties that the widening pass (simd/max-inl.h) applies on its way.
// Tails shorter than a vector go to the scalar twin, which defines the
// results.

#if defined(EXACTSAMPLE_SIMD_PENALTY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_PENALTY_INL_H_
#undef EXACTSAMPLE_SIMD_PENALTY_INL_H_
#else
#define EXACTSAMPLE_SIMD_PENALTY_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "hwy/highway.h"
#include "scalar_ref/twins/penalty.hpp"
#include "simd/reduce-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// twins::Penalized on the lanes of v (logits of ids at..at + Lanes(d) - 1)
// that are in the window, in f64 lanes: every id of the row is read,
// whether in the window or not, because at a long history's share of the
// ids (a quarter at 131072 Zipf-drawn ids of 128256) a pass costs less than
// a visit per id. The pass is bound by its vector operations, not by reading
// the codes, so a code is the count itself, one conversion from int32 (a
// code offset from 0 costs three more operations). The same roundings as the
// twin's operations. p by value: no store to the row can change it.
template <class D>
HWY_INLINE hn::Vec<D> PenalizeLanes(D d, hn::Vec<D> v, const int32_t* code,
                                    const twins::Penalties p) {
  const auto zero = hn::Zero(d);
  const auto count = hn::PromoteTo(d, hn::LoadU(hn::Rebind<int32_t, D>(), code));
  const auto r = hn::Set(d, p.repetition);
  auto w = hn::IfThenElse(hn::Gt(v, zero), hn::Div(v, r), hn::Mul(v, r));
  const auto lowered =
      hn::Sub(hn::Sub(w, hn::Mul(hn::Set(d, p.frequency), count)), hn::Set(d, p.presence));
  w = hn::IfThenElse(hn::Gt(count, zero), lowered, w);
  return hn::IfThenElse(hn::Lt(count, zero), v, w);
}

// twins::Penalize: l penalised in place, its maximum and the check.
template <class D>
twins::PenaltyResult Penalize(D d, double* l, size_t n, const twins::PenaltyCodes& codes) {
  const size_t N = hn::Lanes(d);
  const twins::Penalties p = codes.p;
  const auto inf = hn::Set(d, INFINITY);
  auto max = hn::Set(d, -INFINITY);
  auto ok = hn::Eq(max, max);  // lanes that saw only values below +inf
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto w = PenalizeLanes(d, hn::LoadU(d, l + i), codes.code + i, p);
    hn::StoreU(w, d, l + i);
    ok = hn::And(ok, hn::Lt(w, inf));
    max = hn::Max(max, w);
  }
  twins::PenaltyResult r = twins::Penalize(l + i, n - i, codes.From(i));
  r.max = std::max(r.max, static_cast<double>(MaxLane(d, max))) + 0.0;
  r.bad |= !hn::AllTrue(d, ok);
  return r;
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_PENALTY_INL_H_
