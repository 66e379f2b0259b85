// The library's penalty window (SamplingParams::penalty_last_n), defined
// once for both engines: the ids steps 2 and 3 read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "exactsample/exactsample.hpp"

namespace exactsample::scalar_ref {

// With n = penalty_last_n > 0, the last n tokens of prompt followed by
// generated: the repetition penalty reads prompt and generated of the
// window, presence and frequency its generated ids (the last n generated
// tokens, since the window ends with them). n = 0: the whole history.
struct PenaltyWindow {
  std::span<const int32_t> prompt, generated;
};

inline PenaltyWindow WindowOf(const Request& request) {
  const int64_t n = request.params.penalty_last_n;
  if (n <= 0) return {request.prompt, request.generated};
  const size_t w = static_cast<size_t>(n);
  const size_t g = std::min(w, request.generated.size());
  const size_t p = std::min(w - g, request.prompt.size());
  return {request.prompt.last(p), request.generated.last(g)};
}

}  // namespace exactsample::scalar_ref
