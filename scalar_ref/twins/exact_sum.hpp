// Scalar twins of simd/exact_sum.hpp: the sequential sums that the exact
// SIMD kernels must equal bit for bit.
#pragma once

#include <cstddef>

namespace exactsample::twins {

// s + e[0] + ... + e[n-1], added in this order.
double AccumulateExact(double s, const double* e, size_t n);

// Adds e[0], e[1], ... to s in this order until s >= target: returns that
// i (s then includes e[i]), else n.
size_t AccumulateUntil(double& s, const double* e, size_t n, double target);

// AccumulateExact(0.0, e, n).
double ExactSum(const double* e, size_t n);

}  // namespace exactsample::twins
