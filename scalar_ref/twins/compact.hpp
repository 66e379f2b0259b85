// Scalar twin of the compaction kernel (simd/compact.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace exactsample::twins {

// Writes the ids i of e[0..n) with e[i] >= threshold, ascending, into
// ids[0..count) and returns count; when more than `capacity` qualify it
// stops and returns capacity + 1 (ids then holds the first capacity).
size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity);

}  // namespace exactsample::twins
