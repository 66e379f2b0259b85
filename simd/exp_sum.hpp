// Kernel family exp_sum: the exponentials of one softmax and their sum.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/exp_choice.hpp"

namespace exactsample::simd {

// The logits an exp pass reads: l, or (l null) the f32 row x, widened on
// the way without being stored: spec step 1 for a softmax that is the only
// step to need every logit. On x, the `penalised_count` ids of penalised_ids
// (ascending, counted from the row's start) have the f64 logits
// penalised_l[id] instead (the logits steps 2 and 3 changed).
struct ExpSource {
  const double* l = nullptr;
  const float* x = nullptr;
  const int32_t* penalised_ids = nullptr;
  const double* penalised_l = nullptr;
  size_t penalised_count = 0;
  size_t first = 0;  // the row's id of x[0]
  // The same row from id i on.
  ExpSource At(size_t i) const;
};

// e[i] = exp(l[i] / divisor - shift), stored to e_out[i] when e_out is not
// null, and returns Z = s + e[0] + e[1] + ... added strictly in ascending
// order (s >= 0: the sum so far of a row computed in pieces), bit for bit
// twins::ExpSum with `v`'s exp (pass ProcessExp().variant to match
// std::exp). l[i] may be -inf (e = 0); shift is finite and every l[i] /
// divisor - shift <= 0, so each e[i] is in [0, 1]. e_out may equal src.l
// (in place).
double ExpSum(ExpSource src, size_t n, double divisor, double shift, double* e_out,
              ExpVariant v, double s = 0.0);
inline double ExpSum(const double* l, size_t n, double divisor, double shift,
                     double* e_out, ExpVariant v, double s = 0.0) {
  return ExpSum(ExpSource{l, nullptr}, n, divisor, shift, e_out, v, s);
}

// The e values of ExpSum into e_out (not null) without their sum: the pieces
// of a row that other threads compute while one thread sums.
void ExpStore(ExpSource src, size_t n, double divisor, double shift, double* e_out,
              ExpVariant v);

// The exp the dispatched target's kernels compute when the process's exp is
// `v`: `v` itself, or libm per element for the fused variant on targets
// without an FMA instruction.
ExpVariant ExpVariantOnTarget(ExpVariant v);

// The same for a compiled target (a Highway target bit), whichever is
// dispatched to.
ExpVariant ExpVariantOn(int64_t target, ExpVariant v);

}  // namespace exactsample::simd
