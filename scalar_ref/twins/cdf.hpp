// Scalar twin of simd/cdf.hpp: spec step 11 as a plain loop.
#pragma once

#include <cstddef>

namespace exactsample::twins {

// Step 11 over e[0..n) (exact zeros for ids outside the kept set), z > 0 and
// u in [0, 1): c = 0; for each i, c += e[i] / z, and the first i with u < c
// is returned. If rounding leaves c <= u after the last id, the largest i
// with e[i] / z > 0 (n if there is none).
size_t InverseCdf(const double* e, size_t n, double z, double u);

}  // namespace exactsample::twins
