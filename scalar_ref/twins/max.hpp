// Scalar twins of simd/max.hpp: plain loops that define what the kernels
// return, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/twins/half.hpp"
#include "scalar_ref/twins/penalty.hpp"

namespace exactsample::twins {

// A packed bitmask of allowed ids (bit i % 32 of word i / 32 set: id i
// allowed) read from id `first` on; no words: every id allowed.
struct AllowedIds {
  const uint32_t* words = nullptr;
  size_t first = 0;

  bool operator[](size_t i) const {
    return words == nullptr || ((words[(first + i) / 32] >> ((first + i) % 32)) & 1) != 0;
  }
  AllowedIds From(size_t i) const { return {words, first + i}; }
};

struct WidenResult {
  double max;  // the largest l; unspecified when `bad`
  bool bad;    // some x is NaN or +inf
};

// Step 1: l[i] = f64(x[i]) (x of any LogitType, widened), or -inf where `allowed` masks id i out (the
// mask of a request). Also returns the largest l (-inf when every l is -inf)
// and whether any x, masked or not, is NaN or +inf. A zero maximum is
// returned as +0.0 (see Max). With `penalties`, steps 2 and 3 follow
// (twins::Penalize): the largest l is then the penalised one, and `bad`
// also says that a penalised l is NaN or +inf.
WidenResult WidenMax(Row x, size_t n, double* l_out, AllowedIds allowed = {},
                     const PenaltyCodes* penalties = nullptr);

// WidenMax's maximum and check without the widened row.
WidenResult CheckedMax(const float* x, size_t n);

// CheckedMax, copying x to copy_out on the way.
WidenResult CopyCheckedMax(const float* x, size_t n, float* copy_out);

// The largest of l[0..n) (n >= 1, no NaN). A zero maximum is returned as +0.0
// so that the result does not depend on which of -0.0 and +0.0 comes first;
// the sign of M never changes l - M for l != 0, nor exp(l - M) for l == 0.
double Max(const double* l, size_t n);

// The lowest i with l[i] == value, n if there is none: with value = Max(l),
// step 4's greedy token (ties to the lowest id; -0.0 and +0.0 are equal).
size_t FindFirst(const double* l, size_t n, double value);

}  // namespace exactsample::twins
