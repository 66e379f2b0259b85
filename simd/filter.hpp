// Filters of the fast engine. The zeroing ones work in place on e (e[i] =
// exp(t[i] - M), exactly 0 outside the kept set) and return how many ids
// are left with e > 0. Results equal the scalar twins in
// scalar_ref/twins/filter.hpp bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/filters.hpp"

namespace exactsample::simd {

// e[i] = 0 for every id after the cut (t_cut, id_cut) in (t desc, id asc)
// order, t = l[i] / divisor: where t < t_cut, or t == t_cut and i > id_cut.
size_t ZeroAfter(const double* l, double divisor, double* e, size_t n,
                 double t_cut, int32_t id_cut);

// Min-p: e[i] = 0 where e[i] / z < threshold (threshold = m * (1 / z)).
size_t MinPFilter(double* e, size_t n, double z, double threshold);

// top-n-sigma's sums over the row, t = l[i] / divisor, every t but -inf in
// ascending id order (scalar_ref::SigmaSumsOf), the sums by the exact walks
// of simd/exact_sum-inl.h.
scalar_ref::SigmaSums SigmaSumsOfRow(const double* l, double divisor, size_t n);
// The same over the caller's f32 row, each logit widened.
scalar_ref::SigmaSums SigmaSumsOfRow(const float* x, double divisor, size_t n);

}  // namespace exactsample::simd
