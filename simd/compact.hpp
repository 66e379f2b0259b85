// Compaction kernel of the fast engine (Highway, dynamic dispatch): the ids
// whose e reaches a threshold. Filters whose kept set is a prefix of the
// (t desc, id asc) order (top-p's candidates, min-p's survivors) use it to
// continue on a few hundred ids instead of the whole vocabulary. Results
// equal twins::CompactAtLeast.
#pragma once

#include <cstddef>
#include <cstdint>

namespace exactsample::simd {

// The ids i with e[i] >= threshold, ascending, in ids[0..count); returns
// count, or capacity + 1 as soon as more than `capacity` qualify.
size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity);

}  // namespace exactsample::simd
