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
// The same over an f32 row (a threshold on the logits themselves).
size_t CompactAtLeast(const float* x, size_t n, float threshold,
                      uint32_t* ids, size_t capacity);

// For each of k <= kMaxLevels thresholds: counts[j], the number of ids of
// e[0..n) with e[i] >= thresholds[j], and masses[j], the sum of those e[i]
// (here in ascending id order; the kernel adds them in any order, so its
// masses are a guide, off by rounding only).
inline constexpr size_t kMaxLevels = 4;
void CountAtLeast(const double* e, size_t n, const double* thresholds, size_t k,
                  size_t* counts, double* masses);

// The ids below n whose bit is set in `words` (bit i % 32 of word i / 32,
// ceil(n / 32) words).
size_t CountAllowed(const uint32_t* words, size_t n);

// Copies the l[i] above -inf (l has no NaN) and their ids i, in ascending
// id order, to l_out[0..count) and ids_out[0..count) (ids_out null: the
// values alone); returns count.
size_t CompactFinite(const double* l, size_t n, double* l_out, int32_t* ids_out);

}  // namespace exactsample::twins
