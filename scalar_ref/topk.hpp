// Scalar twin of simd/topk.hpp: spec step 6 (top-k) as a plain sort.
#pragma once

#include <cstddef>
#include <cstdint>

namespace exactsample::scalar_ref {

// The tempered logit t = l / divisor (spec step 5; divisor is T, or 1.0).
inline double Tempered(double l, double divisor) { return l / divisor; }

// The order of spec steps 6 and 7: (t desc, id asc).
inline bool Before(double t_a, int64_t a, double t_b, int64_t b) {
  return t_a > t_b || (t_a == t_b && a < b);
}

// Writes the first min(k, #{l != -inf}) ids of (t desc, id asc) order into
// `out` and returns their count. Ids with l == -inf never enter the kept set
// (spec step 11); an id whose finite l tempers to t == -inf is ordered like
// any other (its e is 0). The boundary of the kept set is the last id
// written, out[count - 1], with t = Tempered(l[out[count - 1]], divisor).
size_t TopK(const double* l, double divisor, size_t n, size_t k, int32_t* out);

}  // namespace exactsample::scalar_ref
