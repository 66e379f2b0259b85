// Exact summation kernels of the fast engine (Highway, dynamic dispatch):
// sums of non-negative terms equal to the sequential loop in index order, bit
// for bit (scalar twins: scalar_ref/exact_sum.hpp). Kernels of other
// families use the templates of simd/exact_sum-inl.h directly.
#pragma once

#include <cstddef>

namespace exactsample::simd {

// Below this running sum the grid argument of simd/exact_sum-inl.h is not
// used: it keeps u and 1/u normal powers of two (u >= 2^-952, 1/u <=
// 2^952), so the scaling x_j = q_j * (1/u) is exact or overflows to +inf,
// which fails the binade test.
inline constexpr double kGridMin = 0x1p-900;

// Terms q_j >= 0 measured on the grid of a running sum `grid` in the binade
// [2^k, 2^(k+1)) with ulp u = 2^(k-52): units = sum of round_half_even(q_j /
// u) (exact below 2^53, else at least 2^53), tie = some q_j / u is an odd
// multiple of 1/2 (meaningful when units is below 2^53). Any running sum in
// that binade, if the count keeps it there and has no tie, advances over the
// terms by units * u, exactly as adding them one by one would. grid 0 is no
// grid ({} is that count): such a count never applies. No member
// initializers, so an array of counts costs nothing until filled.
struct GridCount {
  double grid;
  double units;
  bool tie;
};

// s + e[0] + ... + e[n-1], added in this order; finite e[i] >= 0.
double AccumulateExact(double s, const double* e, size_t n);

// AccumulateExact(0.0, e, n): step 9's Z over a kept set whose other terms are
// exact zeros.
double ExactSum(const double* e, size_t n);

}  // namespace exactsample::simd
