// Scalar twin of simd/cdf.hpp: spec step 11 as a plain loop.
#pragma once

#include <cstddef>

namespace exactsample::scalar_ref {

// Step 11 over e[0..n) (exact zeros for ids outside the kept set), z > 0 and
// u in [0, 1): c = 0; for each i, c += e[i] / z, and the first i with u < c
// is returned. If rounding leaves c <= u after the last id, the largest i
// with e[i] / z > 0 (n if there is none).
size_t InverseCdf(const double* e, size_t n, double z, double u);

// The walk of step 11 continued from c: for each i, c += e[i] / z; returns
// the first i with u < c, else n (c then holds the sum over all n terms).
size_t CdfWalk(const double* e, size_t n, double z, double u, double& c);

// q[i] = e[i] / z (q may be e): terms a walk can take with z = 1, since
// q / 1 == q.
void Quotients(const double* e, size_t n, double z, double* q);

}  // namespace exactsample::scalar_ref
