// Kernel family exp_bound: an enclosure of an exp-sum's Z without its exact
// exps. Step 7 over a whole row needs Z only to place its cut; where the
// cut is the same for every Z of the interval, one pass of a cheaper exp
// (no table, no division, nothing stored, any order of addition) replaces
// the exact one.
#pragma once

#include <cstddef>

#include "scalar_ref/twins/exp_bound.hpp"
#include "simd/exp_sum.hpp"

namespace exactsample::simd {

using twins::ZBounds;

// Holds the Z that ExpSum(src, n, divisor, shift, ...) returns (any
// variant: the glibc exps and std::exp alike), for divisor > 0 and
// l / divisor - shift <= 0 up to rounding over src's n ids; as
// twins::ExpSumBounds, with src's penalised ids at their own logits. Its
// width is about 2 (ExpBoundError(shift) + 2^-52 n) Z.
ZBounds ExpSumBounds(ExpSource src, size_t n, double divisor, double shift);

}  // namespace exactsample::simd
