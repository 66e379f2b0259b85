// The spec's two definitions every step orders by, written once for the
// reference, the kernel twins and the SIMD kernels: the tempered logit
// t = l / T (step 5) and the order (t desc, id asc) of steps 6 and 7.
#pragma once

#include <cmath>
#include <cstdint>

namespace exactsample::scalar_ref {

// t = l / divisor (divisor is T, or 1.0 for the logprob's softmax). l / 1.0
// is l exactly, so that division is skipped.
inline double Tempered(double l, double divisor) {
  return divisor == 1.0 ? l : l / divisor;
}

// Whether (t_a, a) comes before (t_b, b) in (t desc, id asc) order.
inline bool Before(double t_a, int64_t a, double t_b, int64_t b) {
  // Branch-free: orders of candidates are unpredictable, and a mispredicted
  // branch costs more than the second compare.
  return (t_a > t_b) | ((t_a == t_b) & (a < b));
}

// The largest b <= bound across which t changes, Tempered(prev(b)) <
// Tempered(b), so that every id with l >= b orders before every id with
// l < b (t is monotone in l); -inf when none is found within a few steps.
// With divisor 1 each l is its own t.
inline double TemperedBoundaryAtOrBelow(double bound, double divisor) {
  for (int step = 0; step < 64; ++step) {
    const double below = std::nextafter(bound, -INFINITY);
    if (Tempered(below, divisor) < Tempered(bound, divisor)) return bound;
    bound = below;
  }
  return -INFINITY;
}

}  // namespace exactsample::scalar_ref
