// Scalar twin of simd/exp_bound: an enclosure of an exp-sum's Z without
// computing the exps exactly. Its bounds need not equal the kernel's (each
// adds in its own order); both must hold Z.
#pragma once

#include <cstddef>

namespace exactsample::twins {

// [lo, hi]: the interval an exp-sum's Z lies in.
struct ZBounds {
  double lo = 0.0;
  double hi = 0.0;
};

// exp(x) for x <= 0 within a relative 2^-31 (see ExpBoundError), x below
// -700 read as -700: e^x by 2^k e^r, |r| <= ln 2 / 2, and e^r by its
// Taylor polynomial of degree 8 (remainder below 2.9e-10), without a table.
double ExpApprox(double x);

// The relative error the bounds allow each term, beyond the sums' rounding:
// ExpApprox's own, glibc's exp's (the spec's e), and what computing
// t = l / divisor as l * (1 / divisor) moves the argument, for terms that
// are not below e^-700 (|t| <= |shift| + 747 there).
double ExpBoundError(double shift);

// The interval from `sum`, ExpApprox's terms of n ids added in any order:
// the spec's Z of those ids lies in it when each term is within
// ExpBoundError(shift) of e^(t - shift), t <= shift.
ZBounds BoundsOf(double sum, size_t n, double shift);

// Over l[0..n) (l[i] / divisor - shift <= 0 up to rounding, divisor > 0):
// holds the spec's Z = exp(l[0] / divisor - shift) + ... in ascending
// order. Sums ExpApprox(l[i] * (1 / divisor) - shift) in order.
ZBounds ExpSumBounds(const double* l, size_t n, double divisor, double shift);

}  // namespace exactsample::twins
