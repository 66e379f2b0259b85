// The count behind Token::rank (Highway, dynamic dispatch), equal to its
// twin (scalar_ref/twins/rank.hpp): one pass over the row, asked for only
// when a caller wants the rank.
#pragma once

#include <cstddef>

#include "scalar_ref/twins/rank.hpp"

namespace exactsample::simd {

// As twins::CountLogprobsAtLeast, over an f64 or an f32 row.
size_t CountLogprobsAtLeast(const double* l, size_t n, double max, double log_z,
                            double bound);
size_t CountLogprobsAtLeast(const float* x, size_t n, double max, double log_z,
                            double bound);

}  // namespace exactsample::simd
