// glibc's exp (>= 2.28, N = 128) on f64 lanes, bit for bit: ExpGlibc<Fma::kFused>
// equals twins::ExpFused and ExpGlibc<Fma::kUnfused> twins::ExpUnfused in
// every lane, on every target, for every input. The operations are glibc's,
// in glibc's order, with each multiply-add fused or not as chosen (see
// simd/exp_mul_add-inl.h); lanes off the main path (|x| < 2^-54, |x| >= 512,
// inf, NaN) take glibc's special cases, also vectorised.

#if defined(EXACTSAMPLE_SIMD_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_EXP_INL_H_
#undef EXACTSAMPLE_SIMD_EXP_INL_H_
#else
#define EXACTSAMPLE_SIMD_EXP_INL_H_
#endif

#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "scalar_ref/twins/exp_glibc_data.hpp"
#include "simd/exp_mul_add-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// How the vector replica reads its table: by 128-bit pair loads or by
// gathers (the same values; exp_detail::LoadTablePairs).
enum class TableRead { kPairLoads, kGathers };

namespace exp_detail {

namespace ed = exactsample::exp_data;

// tail_bits[j] = kTable[idx[j]], h_bits[j] = kTable[idx[j] + 1] (idx even),
// by two gathers.
template <class DU, class VU = hn::Vec<DU>>
HWY_INLINE void GatherTablePairs(DU du, VU idx, VU& tail_bits, VU& h_bits) {
  const hn::RebindToSigned<DU> di;
  tail_bits = hn::GatherIndex(du, ed::kTable, hn::BitCast(di, idx));
  h_bits = hn::GatherIndex(du, ed::kTable + 1, hn::BitCast(di, idx));
}

#if !(HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE)
// The 128-bit pairs kTable[i], kTable[i + 1] for the even lanes (`first` =
// 0) or the odd lanes (`first` = 1) of `index`, one pair per 128-bit block.
template <class DU>
HWY_INLINE hn::Vec<DU> LoadPairs(DU du, const uint64_t* index, size_t first) {
  if constexpr (hn::MaxLanes(DU()) <= 2) {
    return hn::LoadU(du, ed::kTable + index[first]);
  } else {
    const hn::Half<DU> dh;
    return hn::Combine(du, LoadPairs(dh, index + hn::MaxLanes(dh), first),
                       LoadPairs(dh, index, first));
  }
}

// The same by loading each 128-bit pair once and interleaving.
template <class DU, class VU = hn::Vec<DU>>
HWY_INLINE void LoadTablePairsByLoads(DU du, VU idx, VU& tail_bits, VU& h_bits) {
  HWY_ALIGN uint64_t index[hn::MaxLanes(DU())];
  hn::Store(idx, du, index);
  if constexpr (hn::MaxLanes(DU()) == 1) {  // a single-lane partial vector
    tail_bits = hn::Set(du, ed::kTable[index[0]]);
    h_bits = hn::Set(du, ed::kTable[index[0] + 1]);
  } else {
    const VU even = LoadPairs(du, index, 0);  // lanes 2b: tail, h
    const VU odd = LoadPairs(du, index, 1);   // lanes 2b + 1: tail, h
    tail_bits = hn::InterleaveLower(du, even, odd);
    h_bits = hn::InterleaveUpper(du, even, odd);
  }
}
#endif

// The table's pairs for idx. SCALAR and SVE (whose lane count is known only
// at run time, and which gathers natively) gather; elsewhere kRead chooses
// (ExpTableByGather): the pair loads beat gathers where gathers are
// microcoded (AMD Zen 3, AVX2), gathers win on Intel's AVX-512.
template <TableRead kRead, class DU, class VU = hn::Vec<DU>>
HWY_INLINE void LoadTablePairs(DU du, VU idx, VU& tail_bits, VU& h_bits) {
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  GatherTablePairs(du, idx, tail_bits, h_bits);
#else
  if constexpr (kRead == TableRead::kGathers) {
    GatherTablePairs(du, idx, tail_bits, h_bits);
  } else {
    LoadTablePairsByLoads(du, idx, tail_bits, h_bits);
  }
#endif
}

// Lanes off the main path get glibc's special cases; `main_result` holds
// the main path's values, `tmp`, `sbits` and `ki` its intermediate values
// (meaningless where |x| >= 1024, inf or NaN, whose results do not use
// them). Out of line: softmax only comes here for arguments in (-1024, -512].
template <Fma kFma, class D, class M, class V = hn::Vec<D>,
          class VU = hn::Vec<hn::RebindToUnsigned<D>>>
HWY_NOINLINE V SpecialLanes(D d, V x, M on_main, V main_result, V tmp, VU sbits,
                            VU ki) {
  const hn::RebindToUnsigned<D> du;
  const V one = hn::Set(d, 1.0);

  // 512 <= |x| < 1024, k > 0: the scale's exponent is built 1009 lower.
  const V scale_up =
      hn::BitCast(d, hn::Sub(sbits, hn::Set(du, uint64_t{1009} << 52)));
  const V y_up = hn::Mul(hn::Set(d, 0x1p1009),
                         MulAddAs<kFma>(d, scale_up, tmp, scale_up));

  // k < 0: the scale's exponent is built 1022 higher; glibc reuses
  // scale * tmp, so the product is rounded on its own even when fused.
  const V scale_dn =
      hn::BitCast(d, hn::Add(sbits, hn::Set(du, uint64_t{1022} << 52)));
  const V st = hn::Mul(scale_dn, tmp);
  V y = hn::Add(scale_dn, st);
  // y < 1: subnormal result, rounded to its final precision before scaling.
  // (glibc then maps -0 to +0, which only arises in directed rounding.)
  V lo = hn::Add(hn::Sub(scale_dn, y), st);
  const V hi = hn::Add(one, y);
  lo = hn::Add(hn::Add(hn::Sub(one, hi), y), lo);
  y = hn::IfThenElse(hn::Lt(y, one), hn::Sub(hn::Add(hi, lo), one), y);
  const V y_dn = hn::Mul(hn::Set(d, 0x1p-1022), y);

  const auto k_positive =
      hn::Eq(hn::And(ki, hn::Set(du, 0x80000000)), hn::Zero(du));
  V result = hn::IfThenElse(hn::RebindMask(d, k_positive), y_up, y_dn);

  // |x| >= 1024, inf, NaN: NaN gives 1 + x, else overflow or underflow.
  const V ax = hn::Abs(x);
  const V one_plus_x = hn::Add(one, x);
  const V huge = hn::IfThenElse(
      hn::Gt(x, hn::Zero(d)),
      hn::Set(d, std::numeric_limits<double>::infinity()), hn::Zero(d));
  result = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 1024.0)), result,
                          hn::IfThenElse(hn::IsNaN(x), one_plus_x, huge));
  // |x| < 2^-54, +-0: 1 + x.
  result = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0x1p-54)), one_plus_x, result);
  return hn::IfThenElse(on_main, main_result, result);
}

}  // namespace exp_detail

template <Fma kFma, TableRead kRead = TableRead::kPairLoads, class D,
          class V = hn::Vec<D>>
HWY_INLINE V ExpGlibc(D d, V x) {
  namespace ed = exactsample::exp_data;
  const hn::RebindToUnsigned<D> du;

  // x = k ln2/N + r with integer k and |r| <= ln2/2N.
  const V kd_shifted =
      MulAddAs<kFma>(d, x, hn::Set(d, ed::kInvLn2N), hn::Set(d, ed::kShift));
  const auto ki = hn::BitCast(du, kd_shifted);
  const V kd = hn::Sub(kd_shifted, hn::Set(d, ed::kShift));
  V r = MulAddAs<kFma>(d, kd, hn::Set(d, ed::kNegLn2hiN), x);
  r = MulAddAs<kFma>(d, kd, hn::Set(d, ed::kNegLn2loN), r);

  // 2^(k/N) ~= scale * (1 + tail).
  const auto idx = hn::ShiftLeft<1>(hn::And(ki, hn::Set(du, ed::kIndexMask)));
  hn::Vec<decltype(du)> tail_bits, h_bits;
  exp_detail::LoadTablePairs<kRead>(du, idx, tail_bits, h_bits);
  const V tail = hn::BitCast(d, tail_bits);
  const auto sbits = hn::Add(h_bits, hn::ShiftLeft<52 - ed::kTableBits>(ki));

  // exp(x) ~= scale + scale * (tail + exp(r) - 1).
  const V r2 = hn::Mul(r, r);
  const V p23 =
      MulAddAs<kFma>(d, r, hn::Set(d, ed::kC3), hn::Set(d, ed::kC2));
  const V p45 =
      MulAddAs<kFma>(d, r, hn::Set(d, ed::kC5), hn::Set(d, ed::kC4));
  const V t1 = MulAddAs<kFma>(d, p23, r2, hn::Add(tail, r));
  const V tmp = MulAddAs<kFma>(d, hn::Mul(r2, r2), p45, t1);
  const V scale = hn::BitCast(d, sbits);
  const V result = MulAddAs<kFma>(d, scale, tmp, scale);

  // Main path: 2^-54 <= |x| < 512 (false for NaN).
  const V ax = hn::Abs(x);
  const auto on_main =
      hn::And(hn::Ge(ax, hn::Set(d, 0x1p-54)), hn::Lt(ax, hn::Set(d, 512.0)));
  if (HWY_LIKELY(hn::AllTrue(d, on_main))) return result;
  // x <= -1024 and -inf give +0 (glibc's underflow); masked logits are -inf,
  // so this cheap exit keeps them off the costlier special path.
  const auto underflow = hn::Le(x, hn::Set(d, -1024.0));
  if (hn::AllTrue(d, hn::Or(on_main, underflow))) {
    return hn::IfThenElseZero(on_main, result);
  }
  return exp_detail::SpecialLanes<kFma>(d, x, on_main, result, tmp, sbits,
                                          ki);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_EXP_INL_H_
