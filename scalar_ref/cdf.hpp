// Scalar twins of simd/cdf.hpp: spec step 11 as plain loops.
#pragma once

#include <cstddef>

#include "simd/exact_sum.hpp"

namespace exactsample::scalar_ref {

// Step 11 over e[0..n) (exact zeros for ids outside the kept set), z > 0 and
// u in [0, 1): c = 0; for each i, c += e[i] / z, and the first i with u < c
// is returned. If rounding leaves c <= u after the last id, the largest i
// with e[i] / z > 0 (n if there is none).
size_t InverseCdf(const double* e, size_t n, double z, double u);

// The walk from running sum c: for each i, c += e[i] / z; the first i with
// u < c, else n.
size_t WalkCdf(const double* e, size_t n, double z, double u, double& c);

// The largest i with e[i] / z > 0 (n if there is none).
size_t LastPositive(const double* e, size_t n, double z);

// e[i] / z for i in [0, n) counted on the grid of `guess`, as defined by
// simd::GridCount: no grid outside [kGridMin, DBL_MAX].
simd::GridCount CountQuotients(const double* e, size_t n, double z, double guess);

}  // namespace exactsample::scalar_ref
