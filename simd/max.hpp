// Max kernels of the fast engine (Highway, dynamic dispatch): the widening
// pass of spec step 1 with the largest logit, the maximum, and the greedy
// argmax of step 4. Results equal the scalar twins in scalar_ref/twins/max.hpp bit
// for bit.
#pragma once

#include <cstddef>

#include "scalar_ref/twins/max.hpp"

namespace exactsample::simd {

using twins::AllowedIds;
using twins::PenaltyCodes;
using twins::Row;
using twins::WidenResult;

// l_out[i] = f64(x[i]) (x of any LogitType, widened), -inf for the ids `allowed` masks out; the largest l
// (+0.0 for a zero maximum, -inf when every l is -inf) and whether some x,
// masked or not, is NaN or +inf (max is then unspecified). With
// `penalties`, steps 2 and 3 in the same pass (twins::WidenMax).
WidenResult WidenMax(Row x, size_t n, double* l_out, AllowedIds allowed = {},
                     const PenaltyCodes* penalties = nullptr);

// WidenMax without the widened row, for an f32 row: the largest f64(x[i])
// and the check.
WidenResult CheckedMax(const float* x, size_t n);

// CheckedMax that also copies x[0, n) to copy_out: one read of a row that
// is then read from the copy (a helper's copy of the caller's row).
WidenResult CopyCheckedMax(const float* x, size_t n, float* copy_out);

// The largest of l[0..n), n >= 1, no NaN; a zero maximum is +0.0.
double Max(const double* l, size_t n);

// The lowest i with l[i] == value, n if none (no NaN in l): with the
// maximum, the greedy token. Stops at the first hit.
size_t FindFirst(const double* l, size_t n, double value);

}  // namespace exactsample::simd
