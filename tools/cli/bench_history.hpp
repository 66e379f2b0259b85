// `exactsample bench --history N`: the sequence path, timed with N history
// ids already held (half prompt, half generated, Zipf-like repeats), so
// that its cost can be set against N = 0 in one run.
#pragma once

#include <cstddef>
#include <functional>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

// One timed call: sample_only on `request`'s row through a Sequence made
// with its parameters, bias and mask that holds `history` ids of
// ZipfHistory, the first half accepted as prompt and the rest as generated
// (sample_only keeps them N). Errors: the Sequence's.
Result<std::function<void()>> SequenceCall(const Request& request, size_t history,
                                           const SampleOptions& options);

}  // namespace exactsample::cli
