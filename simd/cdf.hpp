// Inverse CDF kernel of the fast engine (Highway, dynamic dispatch): spec
// step 11, equal to the scalar twin in scalar_ref/twins/cdf.hpp bit for bit.
#pragma once

#include <cstddef>

namespace exactsample::simd {

// Step 11 over e[0..n) (exact zeros for ids outside the kept set), z > 0 and
// u in [0, 1): the first i where the running sum of e[i] / z exceeds u, else
// the largest i with e[i] / z > 0 (n if there is none).
size_t InverseCdf(const double* e, size_t n, double z, double u);

}  // namespace exactsample::simd
