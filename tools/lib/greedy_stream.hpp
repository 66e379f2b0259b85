// The near-tie rule for greedy streams whose logits come from different
// float paths (the spec's end-to-end streams): the library and another
// implementation each ran a model greedily; at the first step where their
// ids differ the divergence is accepted only if the two ids' logits on the
// library's side are within `tolerance` times that row's logit range, and
// comparison stops there because the histories now differ. Internal (not
// installed), used by `exactsample audit --greedy-streams`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample {

struct GreedyStream {
  // Row t: the library side's logits at step t (after the ids before t).
  std::vector<std::span<const float>> rows;
  std::vector<int32_t> prompt;
  std::vector<int32_t> generated;  // ids before row 0
  SamplingParams params;           // penalties; temperature must be 0
  std::vector<int32_t> other_ids;  // the other implementation's greedy ids
};

struct GreedyVerdict {
  enum class Outcome { agreed, near_tie, divergence };
  Outcome outcome = Outcome::agreed;
  size_t steps_agreed = 0;  // steps with the same id before the verdict
  // At the first differing step (near_tie and divergence only): the ids,
  // their logits after penalties (what greedy compares), the row's range
  // max - min over its finite logits, and tolerance * range.
  size_t step = 0;
  int32_t ours = -1, theirs = -1;
  double l_ours = 0, l_theirs = 0, range = 0, threshold = 0;
};

// Compares the first min(rows, other_ids) steps with the reference engine.
// Errors: a row the library rejects (the message names the step), or an
// other id outside [0, V).
Result<GreedyVerdict> CompareGreedyStream(const GreedyStream& input,
                                          double tolerance);

}  // namespace exactsample
