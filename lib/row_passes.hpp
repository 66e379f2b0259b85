// The fast engine's two passes over all V ids, the row split across OpenMP
// threads or not (SampleOptions::threads). Every result is bit-identical to
// the one-thread kernels: maxima combine exactly, and the ascending-order
// sum stays sequential: one thread sums while the others compute e values
// ahead of it.
#pragma once

#include <cstddef>
#include <span>

#include "lib/row_sums.hpp"
#include "simd/exp_sum.hpp"
#include "simd/exp_choice.hpp"
#include "simd/max.hpp"

namespace exactsample {

// The most threads one row is split across (SampleOptions::threads beyond it
// use this many): their per-thread state lives on the stack, so a call
// allocates nothing.
inline constexpr int kMaxRowThreads = 64;

// Step 1 with its check: simd::WidenMax over chunks; l_out null:
// simd::CheckedMax (the f32 row is read, nothing stored).
simd::WidenResult WidenMaxPass(const float* x, size_t n, double* l_out, int threads);

// Z = simd::ExpSum(src, n, divisor, shift, e_out, v) with e stored into e_out
// (null: not stored, one thread only), computed piece by piece (RowPieces).
// `storage` (RowPieces::kMaxCount + 1 entries) receives the running sums.
struct ExpSumResult {
  double z;
  RowSums sums;
};
ExpSumResult ExpSumPass(simd::ExpSource src, size_t n, double divisor, double shift,
                        double* e_out, simd::ExpVariant v, int threads,
                        std::span<double> storage);

}  // namespace exactsample
