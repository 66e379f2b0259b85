// Exact summation kernels of the fast engine (Highway, dynamic dispatch):
// sums of non-negative terms equal to the sequential loop in index order, bit
// for bit (scalar twins: scalar_ref/twins/exact_sum.hpp). Kernels of other
// families use the templates of simd/exact_sum-inl.h directly.
#pragma once

#include <cstddef>

namespace exactsample::simd {

// s + e[0] + ... + e[n-1], added in this order; finite e[i] >= 0.
double AccumulateExact(double s, const double* e, size_t n);

// Adds e[0], e[1], ... to s in this order until s >= target: returns that
// i (s then includes e[i]), else n (s includes every term); finite e[i] >= 0.
size_t AccumulateUntil(double& s, const double* e, size_t n, double target);

// AccumulateExact(0.0, e, n): step 9's Z over a kept set whose other terms are
// exact zeros.
double ExactSum(const double* e, size_t n);

}  // namespace exactsample::simd
