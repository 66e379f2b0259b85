// The penalty kernel of the fast engine (Highway, dynamic dispatch): steps 2
// and 3 over a Sequence's codes in one pass over the row, for a row the bias
// changed after widening (otherwise simd::WidenMax applies them on its
// way). Results equal the scalar twin in scalar_ref/twins/penalty.hpp bit
// for bit.
#pragma once

#include <cstddef>

#include "scalar_ref/twins/penalty.hpp"

namespace exactsample::simd {

using twins::PenaltyCodes;
using twins::PenaltyResult;

// twins::Penalize: l[0, n) penalised in place, the largest l after and
// whether one is NaN or +inf.
PenaltyResult Penalize(double* l, size_t n, const PenaltyCodes& codes);

}  // namespace exactsample::simd
