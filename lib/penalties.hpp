// Steps 2 and 3 in O(prompt + generated) work: only history ids change, so
// the fast engine never rescans the vocabulary for them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample {

struct PenaltyOutcome {
  double max_logit;  // the largest logit after penalties, unless max_stale
  bool max_stale;    // a penalty lowered an id that held the maximum
};

// Whether steps 2 and 3 can change any logit: a repetition penalty with a
// history, or frequency and presence penalties with generated ids.
bool PenaltiesApply(const Request& request);

// Applies the repetition, presence and frequency penalties to l (the widened
// logits, whose maximum is max_before) in place. `scratch` is reused memory.
// Errors are those of checks::Penalized for the lowest offending id.
Result<PenaltyOutcome> ApplyPenalties(const Request& request,
                                      std::span<double> l, double max_before,
                                      std::vector<int32_t>& scratch);

}  // namespace exactsample
