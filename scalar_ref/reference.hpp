// The reference engine: spec/sampling.md steps 1 to 11, one visible piece
// of code per step, in f64, with ascending-id sums and std::exp/std::log.
// It is the oracle every other path is checked against, so it is plain
// rather than fast.
#pragma once

#include "exactsample/exactsample.hpp"

namespace exactsample::scalar_ref {

// `request` must have passed checks::ParamsAndIds.
Result<Token> Sample(const Request& request, Pcg32& rng);

}  // namespace exactsample::scalar_ref
