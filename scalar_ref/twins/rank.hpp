// Scalar twin of simd/rank.hpp: the count behind Token::rank.
#pragma once

#include <cstddef>

namespace exactsample::twins {

// The ids i of l[0..n) whose raw logprob (l[i] - max) - log_z, computed as
// the token's, is >= bound. A token's rank is 1 + this count over the ids
// below it with its own logprob as the bound + the count over the ids above
// it with the next double up (> is >= the next double, and -0.0 and +0.0
// compare equal either way).
size_t CountLogprobsAtLeast(const double* l, size_t n, double max, double log_z,
                            double bound);
// The same over an f32 row, each logit widened to f64 first (exact).
size_t CountLogprobsAtLeast(const float* x, size_t n, double max, double log_z,
                            double bound);

}  // namespace exactsample::twins
