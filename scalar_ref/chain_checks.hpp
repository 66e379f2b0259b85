// The checks of the chain's fields (docs/llama-samplers.md, Bad input), shared
// by both engines, and which steps a request's parameters turn on.
#pragma once

#include <optional>
#include <string>

#include "exactsample/exactsample.hpp"

namespace exactsample::checks {

// The page's table in its order, for rows of `vocab` ids (the breakers' ids).
std::optional<Error> ChainParams(const SamplingParams& p, size_t vocab);
// distribution and verify: XTC, mirostat and adaptive-p draw, so their rows
// have no fixed distribution.
std::optional<Error> FixedDistribution(const SamplingParams& p);
// DRY left K empty.
Error DryEmptied(const SamplingParams& p);
// The dynamic temperature T' makes max(l) / T' overflow.
Error DynamicTooSmall(const SamplingParams& p, double divisor, double tempered);
// A double as Python's repr writes it, as every message does (so that the
// Python transcription's messages read the same).
std::string Repr(double v);

}  // namespace exactsample::checks

namespace exactsample::scalar_ref {

bool IsOn(ChainStep step, const SamplingParams& p);

}  // namespace exactsample::scalar_ref
