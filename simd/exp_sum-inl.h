// exp_sum kernel: e[i] = exp(l[i] / divisor - shift) with the chosen exp
// (vector replica of glibc's, or std::exp per element), computed a block at
// a time and summed exactly in ascending order by AccumulateExact.

#if defined(EXACTSAMPLE_SIMD_EXP_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_EXP_SUM_INL_H_
#undef EXACTSAMPLE_SIMD_EXP_SUM_INL_H_
#else
#define EXACTSAMPLE_SIMD_EXP_SUM_INL_H_
#endif

#include <cmath>
#include <cstddef>

#include "hwy/highway.h"
#include "simd/exact_sum-inl.h"
#include "simd/exp-inl.h"
#include "simd/exp_choice.hpp"
#include "simd/order-inl.h"
#include "simd/widen-inl.h"
#include "scalar_ref/twins/exp_glibc.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// What an exp pass leaves: e stored (where asked) and Z summed, or e stored only.
enum class ExpPass { kSum, kStoreOnly };

namespace exp_sum_detail {


// e values per block: small enough to stay in L1 between the exp pass and
// the summation pass, large enough for AccumulateExact's vector blocks.
constexpr size_t kBlock = 512;

// t - shift with t = l / divisor.
template <Divisor kDivisor, class V>
HWY_INLINE V Argument(V l, V divisor, V shift) {
  return hn::Sub(Tempered<kDivisor>(l, divisor), shift);
}

// Applies `f` (vector to vector) to l[0, m) into e[0, m); e may equal l.
// The last partial vector is padded with copies of its first element, whose
// results are dropped, so padding never takes a slower path than real data.
template <class D, class T, class F>
HWY_INLINE void Map(D d, const T* l, size_t m, double* e, const F& f) {
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= m; i += lanes) {
    hn::StoreU(f(LoadLogits(d, l + i)), d, e + i);
  }
  if (i == m) return;
  HWY_ALIGN double tail[hn::MaxLanes(D())];
  for (size_t j = 0; j < lanes; ++j) {
    tail[j] = static_cast<double>(l[i + (i + j < m ? j : 0)]);
  }
  hn::Store(f(hn::Load(d, tail)), d, tail);
  for (size_t j = 0; i + j < m; ++j) e[i + j] = tail[j];
}

// One block of e with the vector replica.
template <Fma kFma, Divisor kDivisor, TableRead kRead, class D, class T>
HWY_INLINE void ReplicaBlock(D d, const T* l, size_t m, double divisor, double shift,
                             double* e) {
  const hn::Vec<D> vdivisor = hn::Set(d, divisor);
  const hn::Vec<D> vshift = hn::Set(d, shift);
  Map(d, l, m, e, [&](hn::Vec<D> v) {
    return ExpGlibc<kFma, kRead>(d, Argument<kDivisor>(v, vdivisor, vshift));
  });
}

// One block of e with std::exp; only the arguments are vectorised.
template <Divisor kDivisor, class D, class T>
HWY_INLINE void LibmBlock(D d, const T* l, size_t m, double divisor, double shift,
                          double* e) {
  const hn::Vec<D> vdivisor = hn::Set(d, divisor);
  const hn::Vec<D> vshift = hn::Set(d, shift);
  Map(d, l, m, e,
      [&](hn::Vec<D> v) { return Argument<kDivisor>(v, vdivisor, vshift); });
  for (size_t i = 0; i < m; ++i) e[i] = std::exp(e[i]);
}

// The scalar exp equal to the vector one of kVariant.
template <ExpVariant kVariant>
HWY_INLINE double ScalarExp(double x) {
  if constexpr (kVariant == ExpVariant::fused) return twins::ExpFused(x);
  if constexpr (kVariant == ExpVariant::unfused) return twins::ExpUnfused(x);
  return std::exp(x);
}

// The e values of src's penalised ids in [start, start + m) (ids counted from
// the pass's first one) into e[0, m), one at a time; `next` is the first
// penalised ids not yet overwritten.
template <ExpVariant kVariant, Divisor kDivisor>
HWY_INLINE void OverwritePenalisedE(const ExpSource& src, size_t& next, size_t start, size_t m,
                           double divisor, double shift, double* e) {
  for (; next < src.penalised_count; ++next) {
    const size_t id = static_cast<size_t>(src.penalised_ids[next]) - src.first;
    if (id >= start + m) return;
    const double l = src.penalised_l[src.penalised_ids[next]];
    e[id - start] = ScalarExp<kVariant>((kDivisor == Divisor::kAny ? l / divisor : l) - shift);
  }
}

// Blocks of e (into e_out, or a stack buffer), each summed exactly onto z
// (ExpPass::kSum), or only stored (a piece of a row split between threads). T is
// double, or float for an f32 row widened on the way, whose penalised ids
// (src's) are overwritten before the block is summed.
template <ExpVariant kVariant, Divisor kDivisor, ExpPass kPass, TableRead kRead,
          class D, class T>
HWY_NOINLINE double ExpSumBlocks(D d, const T* l, const ExpSource& src, size_t n,
                                 double divisor, double shift, double* e_out, double z) {
  HWY_ALIGN double buffer[kBlock];
  size_t next_penalised = 0;
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t m = HWY_MIN(kBlock, n - start);
    double* e = e_out != nullptr ? e_out + start : buffer;
    if constexpr (kVariant == ExpVariant::libm) {
      LibmBlock<kDivisor>(d, l + start, m, divisor, shift, e);
    } else {
      constexpr Fma kFma = kVariant == ExpVariant::fused ? Fma::kFused : Fma::kUnfused;
      ReplicaBlock<kFma, kDivisor, kRead>(d, l + start, m, divisor, shift, e);
    }
    if (next_penalised < src.penalised_count) {
      OverwritePenalisedE<kVariant, kDivisor>(src, next_penalised, start, m, divisor, shift, e);
    }
    if constexpr (kPass == ExpPass::kSum) z = AccumulateExact(d, z, e, m);
  }
  return z;
}

template <ExpVariant kVariant, Divisor kDivisor, ExpPass kPass, TableRead kRead,
          class D>
HWY_INLINE double ExpSumSource(D d, const ExpSource& src, size_t n, double divisor,
                               double shift, double* e_out, double z) {
  if (src.x != nullptr) {
    return ExpSumBlocks<kVariant, kDivisor, kPass, kRead>(d, src.x, src, n, divisor, shift,
                                                          e_out, z);
  }
  return ExpSumBlocks<kVariant, kDivisor, kPass, kRead>(d, src.l, src, n, divisor, shift,
                                                        e_out, z);
}

template <ExpVariant kVariant, ExpPass kPass, TableRead kRead, class D>
HWY_INLINE double ExpSumDivisor(D d, ExpSource src, size_t n, double divisor,
                                double shift, double* e_out, double z) {
  if (divisor == 1.0) {
    return ExpSumSource<kVariant, Divisor::kOne, kPass, kRead>(d, src, n, divisor, shift, e_out, z);
  }
  return ExpSumSource<kVariant, Divisor::kAny, kPass, kRead>(d, src, n, divisor, shift, e_out, z);
}

// x86 with 256- or 512-bit vectors reads the replica's table either way
// (exp_detail::LoadTablePairs); the libm variant reads none.
template <ExpVariant kVariant, ExpPass kPass, class D>
HWY_INLINE double ExpSumVariant(D d, ExpSource src, size_t n, double divisor,
                                double shift, double* e_out, double z) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  if (kVariant != ExpVariant::libm && ExpTableByGather()) {
    return ExpSumDivisor<kVariant, kPass, TableRead::kGathers>(d, src, n, divisor, shift, e_out,
                                                               z);
  }
#endif
  return ExpSumDivisor<kVariant, kPass, TableRead::kPairLoads>(d, src, n, divisor, shift, e_out,
                                                               z);
}

}  // namespace exp_sum_detail

// The exp this target computes when the process's exp is `v`. Without an
// FMA instruction the fused replica calls std::fma per lane; when std::exp
// is that very function (a CPU with FMA but not all of Highway's AVX2
// features), calling it is faster and exact by definition.
HWY_INLINE ExpVariant ExpVariantOnTarget(ExpVariant v) {
#if !HWY_NATIVE_FMA
  if (v == ExpVariant::fused && ProcessExp().variant == ExpVariant::fused) {
    return ExpVariant::libm;
  }
#endif
  return v;
}

template <ExpPass kPass, class D>
double ExpSumKernel(D d, ExpSource src, size_t n, double divisor, double shift,
                    double* e_out, ExpVariant v, double z) {
  using exp_sum_detail::ExpSumVariant;
  switch (HWY_NAMESPACE::ExpVariantOnTarget(v)) {  // qualified: not simd::'s dispatcher
    case ExpVariant::fused:
      return ExpSumVariant<ExpVariant::fused, kPass>(d, src, n, divisor, shift,
                                                    e_out, z);
    case ExpVariant::unfused:
      return ExpSumVariant<ExpVariant::unfused, kPass>(d, src, n, divisor, shift,
                                                      e_out, z);
    case ExpVariant::libm:
      break;
  }
  return ExpSumVariant<ExpVariant::libm, kPass>(d, src, n, divisor, shift, e_out, z);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_EXP_SUM_INL_H_
