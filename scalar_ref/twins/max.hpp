// Scalar twins of simd/max.hpp: plain loops that define what the kernels
// return, bit for bit.
#pragma once

#include <cstddef>

namespace exactsample::twins {

struct WidenResult {
  double max;  // the largest l; unspecified when `bad`
  bool bad;    // some x is NaN or +inf
};

// Step 1: l[i] = f64(x[i]). Also returns the largest l (-inf when every x is
// -inf) and whether any x is NaN or +inf. A zero maximum is returned as +0.0
// (see Max).
WidenResult WidenMax(const float* x, size_t n, double* l_out);

// WidenMax's maximum and check without the widened row.
WidenResult CheckedMax(const float* x, size_t n);

// The largest of l[0..n) (n >= 1, no NaN). A zero maximum is returned as +0.0
// so that the result does not depend on which of -0.0 and +0.0 comes first;
// the sign of M never changes l - M for l != 0, nor exp(l - M) for l == 0.
double Max(const double* l, size_t n);

// The lowest i with l[i] == value, n if there is none: with value = Max(l),
// step 4's greedy token (ties to the lowest id; -0.0 and +0.0 are equal).
size_t FindFirst(const double* l, size_t n, double value);

}  // namespace exactsample::twins
