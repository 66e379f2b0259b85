// Inverse CDF kernel of the fast engine (Highway, dynamic dispatch): spec
// step 11, equal to the scalar twin in scalar_ref/cdf.hpp bit for bit.
#pragma once

#include <cstddef>

#include "simd/exact_sum.hpp"

namespace exactsample::simd {

// Step 11 over e[0..n) (exact zeros for ids outside the kept set), z > 0 and
// u in [0, 1): the first i where the running sum of e[i] / z exceeds u, else
// the largest i with e[i] / z > 0 (n if there is none).
size_t InverseCdf(const double* e, size_t n, double z, double u);

// The pieces of InverseCdf, for a walk split across threads.

// The terms e[i] / z of [0, n) counted on the grid of `guess`, the running
// sum the walk is expected to have on reaching them (no grid below kGridMin).
GridCount CountQuotients(const double* e, size_t n, double z, double guess);

// The walk over [0, n) from running sum c: the first i where u < c + q[0] +
// ... + q[i] (c then includes q[i]), else n with c including every term.
// With counts, counts[k] is CountQuotients of [k * piece, (k + 1) * piece),
// stepped over when it applies; the result and c are the same either way.
size_t WalkCdf(const double* e, size_t n, double z, double u, double& c,
               size_t piece = 0, const GridCount* counts = nullptr);

// The fallback: the largest i with e[i] / z > 0 (n if there is none).
size_t LastPositive(const double* e, size_t n, double z);

}  // namespace exactsample::simd
