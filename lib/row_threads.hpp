// The fast engine's full-vocabulary passes with one row split across OpenMP
// threads (SampleOptions::threads). Every result is bit-identical to the
// one-thread kernel: maxima combine exactly, and the ascending-order sums
// stay sequential: for Z one thread sums while the others compute e values
// ahead of it.
#pragma once

#include <cstddef>

#include "simd/exp_sum.hpp"
#include "simd/exp_variant.hpp"
#include "simd/max.hpp"

namespace exactsample {

// The most pieces a row's exp-sum pass has: the size of ExpSumThreads' prefix.
inline constexpr size_t kMaxRowPieces = 512;

// The length of those pieces (the last may be shorter).
size_t RowPieceLength(size_t n);

// simd::WidenMax over chunks; l_out null: simd::CheckedMax.
simd::WidenResult WidenMaxThreads(const float* x, size_t n, double* l_out,
                                  int threads);

// Z = simd::ExpSum(...) with e stored into e_out (null: not stored, for one
// thread only), computed in
// pieces of RowPieceLength(n) ids; prefix (kMaxRowPieces + 1 entries)
// receives the running sum before each piece, and prefix[pieces] = Z: the
// sums InverseCdfFromSums decides step 11 from.
double ExpSumThreads(simd::ExpSource src, size_t n, double divisor, double shift,
                     double* e_out, simd::ExpVariant v, int threads, double* prefix);

}  // namespace exactsample
