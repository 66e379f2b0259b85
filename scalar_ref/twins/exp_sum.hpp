// Scalar twin of simd/exp_sum: what the kernel must return, bit for bit.
#pragma once

#include <cstddef>

namespace exactsample::twins {

// e[i] = std::exp(l[i] / divisor - shift), stored to e_out[i] when e_out is
// not null; returns Z = s + e[0] + e[1] + ... added strictly in order.
double ExpSum(const double* l, size_t n, double divisor, double shift,
              double* e_out, double s = 0.0);

}  // namespace exactsample::twins
