// Zeroing filters of the fast engine, in place on e (e[i] = exp(t[i] - M),
// exactly 0 outside the kept set). Each returns how many ids are left with
// e > 0. Results equal the scalar twins in scalar_ref/twins/filter.hpp bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace exactsample::simd {

// e[i] = 0 for every id after the cut (t_cut, id_cut) in (t desc, id asc)
// order, t = l[i] / divisor: where t < t_cut, or t == t_cut and i > id_cut.
size_t ZeroAfter(const double* l, double divisor, double* e, size_t n,
                 double t_cut, int32_t id_cut);

// Min-p: e[i] = 0 where e[i] / z < threshold (threshold = m * (1 / z)).
size_t MinPFilter(double* e, size_t n, double z, double threshold);

}  // namespace exactsample::simd
