// Top-k selection of the fast engine (spec step 6) without sorting all n:
// a vector pass keeps only the ids that can still be among the first k, and
// only those candidates are ordered. Results equal twins::TopK.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace exactsample::simd {

// Entries of int32_t scratch that TopK needs for n logits: n, 4 bytes per
// vocabulary entry. Every id can be a candidate (ascending logits, or k near
// n), so the buffer holds n ids; a real row with k = 40 uses about 300.
constexpr size_t TopKScratchSize(size_t n) { return n; }

// Writes the first min(k, #{l != -inf}) ids of (t desc, id asc) order, with
// t = l / divisor, into out[0..count) and returns count: the contract of
// twins::TopK. `out` holds
// min(k, n) ids and doubles as the radix sort's second buffer;
// scratch.size() >= TopKScratchSize(n). No allocation.
// The boundary of the kept set is (t_k, id_k) with id_k = out[count - 1] and
// t_k = scalar_ref::Tempered(l[id_k], divisor), the cut for ZeroAfter.
size_t TopK(const double* l, double divisor, size_t n, size_t k, int32_t* out,
            std::span<int32_t> scratch);

// The same over an f32 row x (the order of the widened row), leaving out
// the ids whose bit is set in `skip` (bit i % 64 of word i / 64; null: none).
size_t TopK(const float* x, double divisor, size_t n, size_t k, int32_t* out,
            std::span<int32_t> scratch, const uint64_t* skip = nullptr);

}  // namespace exactsample::simd
