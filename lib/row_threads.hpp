// The fast engine's full-vocabulary passes with one row split across OpenMP
// threads (SampleOptions::threads). Every result is bit-identical to the
// one-thread kernel: maxima combine exactly, and the ascending-order sums
// stay sequential. For Z one thread sums while the others compute e values
// ahead of it; for the inverse CDF one thread walks while the others count
// the pieces ahead of it on the grid the walk is expected to reach them on
// (simd::CountQuotients), which the walk steps over when it does.
#pragma once

#include <cstddef>

#include "simd/exp_sum.hpp"
#include "simd/exp_variant.hpp"
#include "simd/max.hpp"

namespace exactsample {

// The most pieces a split row has: the size of ExpSumThreads' prefix.
inline constexpr size_t kMaxRowPieces = 512;

// The length of a split row's pieces (the last may be shorter).
size_t RowPieceLength(size_t n);

// simd::WidenMax over chunks; l_out null: simd::CheckedMax.
simd::WidenResult WidenMaxThreads(const float* x, size_t n, double* l_out,
                                  int threads);

// simd::ExpSum with e stored into e_out (not null here). When the row is
// split, prefix[p] (kMaxRowPieces + 1 entries) receives the running sum
// before piece p, prefix[pieces] = Z, and `prefixed` is true.
struct RowSum {
  double z;
  bool prefixed;
};
RowSum ExpSumThreads(simd::ExpSource src, size_t n, double divisor, double shift,
                     double* e_out, simd::ExpVariant v, int threads,
                     double* prefix);

// simd::InverseCdf over e[0..n), the e values (unchanged) of an ExpSumThreads
// call with the same n and threads whose prefix it reads; prefix null: one
// thread.
size_t InverseCdfThreads(const double* e, size_t n, double z, double u, int threads,
                         const double* prefix);

}  // namespace exactsample
