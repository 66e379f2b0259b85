// Scalar twin of simd/topk.hpp: spec step 6 (top-k) as a plain sort.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/order.hpp"

namespace exactsample::twins {

// Writes the first min(k, #{l != -inf}) ids of (t desc, id asc) order into
// `out` and returns their count. Ids with l == -inf never enter the kept set
// (spec step 11); an id whose finite l tempers to t == -inf is ordered like
// any other (its e is 0). The boundary of the kept set is the last id
// written, out[count - 1], with t = Tempered(l[out[count - 1]], divisor).
size_t TopK(const double* l, double divisor, size_t n, size_t k, int32_t* out);

}  // namespace exactsample::twins
