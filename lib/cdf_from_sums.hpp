// Step 11 decided from the running sums of e that the exp-sum pass already
// computed, instead of walking c += e[i] / z over every id before the draw's.
#pragma once

#include <cstddef>
#include <optional>

namespace exactsample {

// The id step 11 returns for e[0..n), z and u (see simd::InverseCdf), when
// error bounds decide it from the sequential sums T_i = e[0] + ... + e[i]:
// prefix[k] is T before id k * piece (prefix[0] = 0, prefix[pieces] = z, as
// ExpSumThreads leaves them). nullopt when they do not: u within about
// 4 n 2^-53 of a partial sum of q, or u or z out of the range the bounds
// cover; then the walk decides.
std::optional<size_t> InverseCdfFromSums(const double* e, size_t n, double z, double u,
                                         const double* prefix, size_t piece);

}  // namespace exactsample
