// Scalar twins of simd/filter.hpp: the zeroing filters of spec steps 6 to 8,
// applied in place to e (e[i] = exp(t[i] - M), exactly 0 outside the kept
// set), each returning how many ids are left with e > 0, and top-n-sigma's
// threshold.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/filters.hpp"
#include "scalar_ref/order.hpp"

namespace exactsample::twins {

// Whether id i with tempered logit t comes after the cut (t_cut, id_cut) in
// (t desc, id asc) order.
inline bool AfterCut(double t, int64_t i, double t_cut, int32_t id_cut) {
  return scalar_ref::Before(t_cut, id_cut, t, i);
}

// e[i] = 0 for every id after the cut, t = Tempered(l[i], divisor).
size_t ZeroAfter(const double* l, double divisor, double* e, size_t n,
                 double t_cut, int32_t id_cut);

// Min-p (step 8): e[i] = 0 where e[i] / z < threshold, with z the sum of e
// and threshold = m * (1 / z) computed by the caller: the spec's
// q[i] >= m * max(q), as max(q) = 1 / z.
size_t MinPFilter(double* e, size_t n, double z, double threshold);

// top-n-sigma's sums over the row: scalar_ref::SigmaSumsOf every
// t = Tempered(l[i], divisor) but -inf, in ascending id order.
scalar_ref::SigmaSums SigmaSumsOfRow(const double* l, double divisor, size_t n);
scalar_ref::SigmaSums SigmaSumsOfRow(const float* x, double divisor, size_t n);

}  // namespace exactsample::twins
