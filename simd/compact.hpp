// Compaction kernels of the fast engine (Highway, dynamic dispatch), equal
// to their twins (scalar_ref/twins/compact.hpp). The ids whose e reaches a
// threshold: filters whose kept set is a prefix of the (t desc, id asc)
// order (top-p's candidates, min-p's survivors) continue on a few hundred
// ids instead of the whole vocabulary. The finite logits of a masked row:
// the softmax runs over the ids the mask leaves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/twins/compact.hpp"

namespace exactsample::simd {

// The ids i with e[i] >= threshold, ascending, in ids[0..count); returns
// count, or capacity + 1 as soon as more than `capacity` qualify.
size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity);
size_t CompactAtLeast(const float* x, size_t n, float threshold,
                      uint32_t* ids, size_t capacity);

// As twins::CountAtLeast (k <= twins::kMaxLevels): the counts exactly, the
// masses summed in any order. One pass says which threshold compacts few
// enough ids that still hold the mass a filter needs.
void CountAtLeast(const double* e, size_t n, const double* thresholds, size_t k,
                  size_t* counts, double* masses);

// As twins::CountAllowed: the ids below n a mask's bitmask allows (which
// says whether compacting the finite logits pays).
size_t CountAllowed(const uint32_t* words, size_t n);

// As twins::CompactFinite: the values of l[0..n) above -inf and their ids,
// in id order, into l_out[0..count) and ids_out[0..count) (each with room
// for n; ids_out null: the values alone); returns count. A masked row's ids at -inf have e = +0, which adds
// nothing to an ascending sum and never enters K.
size_t CompactFinite(const double* l, size_t n, double* l_out, int32_t* ids_out);

}  // namespace exactsample::simd
