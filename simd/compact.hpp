// Compaction kernel of the fast engine (Highway, dynamic dispatch): the ids
// whose e reaches a threshold. Filters whose kept set is a prefix of the
// (t desc, id asc) order (top-p's candidates, min-p's survivors) use it to
// continue on a few hundred ids instead of the whole vocabulary. Results
// equal twins::CompactAtLeast.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/twins/compact.hpp"

namespace exactsample::simd {

// The ids i with e[i] >= threshold, ascending, in ids[0..count); returns
// count, or capacity + 1 as soon as more than `capacity` qualify.
size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity);

// As twins::CountAtLeast (k <= twins::kMaxLevels): the counts exactly, the
// masses summed in any order. One pass says which threshold compacts few
// enough ids that still hold the mass a filter needs.
void CountAtLeast(const double* e, size_t n, const double* thresholds, size_t k,
                  size_t* counts, double* masses);

}  // namespace exactsample::simd
