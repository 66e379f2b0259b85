// The yardstick of a sample call's cost: one pass over all V ids of max +
// exp + exact Z. The spec's logprob needs Z over every id, so most
// configurations cannot cost less than this pass; the benchmarks and
// `exactsample bench` time it beside the whole call.
#pragma once

#include <span>

namespace exactsample {

enum class FloorKernels {
  simd,    // the fast engine's kernels, on the dispatched Highway target
  scalar,  // their scalar twins (scalar_ref/), std::exp per element
};

// Widens `logits` into l[0..V) finding their maximum M (spec step 1), then
// returns Z = exp(l[0] - M) + exp(l[1] - M) + ... added in ascending id
// order: the fast engine's first pass over the row. l is scratch.
double FloorPass(std::span<const float> logits, double* l, FloorKernels kernels);

}  // namespace exactsample
