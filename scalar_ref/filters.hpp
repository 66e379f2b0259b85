// The chain's filters (docs/llama-samplers.md): each takes l and K and
// returns the ids it keeps, at least one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "scalar_ref/kept.hpp"

namespace exactsample::scalar_ref {

// Step 6: the first k ids of order K.
Ids TopK(const Logits& l, const Ids& kept, int64_t k);
// Step 7: up to and including the first id where the running sum s >= p
// and at least min_keep ids are kept.
Ids TopP(const Logits& l, const Ids& kept, double p, int64_t min_keep);
// Step 8: the first max(n, min_keep) of order K, n those with q >= m * max(q).
Ids MinP(const Logits& l, const Ids& kept, double m, int64_t min_keep);
// l >= max - n * sigma, sigma the population deviation over K.
Ids TopNSigma(const Logits& l, const Ids& kept, double n);
// top-n-sigma's sums over K: the largest l, the sum of l, the mean
// sum / count, and the sum of (l - mean) * (l - mean), each in ascending
// id order.
struct SigmaSums {
  double max;
  double sum;
  double squares;
  size_t count;
};
// The sums over the l that `each(f)` hands to f, K's in ascending id order
// (it is called twice). A template, so that the kernel's twin
// (scalar_ref/twins/filter.hpp) walks a whole row with the same ops.
template <typename Each>
SigmaSums SigmaSumsOf(Each each) {
  SigmaSums s{-INFINITY, 0.0, 0.0, 0};
  each([&](double x) {
    s.max = std::max(s.max, x);
    s.sum += x;
    ++s.count;
  });
  const double mean = s.sum / static_cast<double>(s.count);
  each([&](double x) { s.squares += (x - mean) * (x - mean); });
  return s;
}
// The threshold max - n * sigma, sigma = sqrt(squares / count); none when it
// is NaN (only sums of logits near the f64 range), and then the step keeps K.
inline std::optional<double> SigmaThreshold(const SigmaSums& s, double n) {
  const double t = s.max - n * std::sqrt(s.squares / static_cast<double>(s.count));
  if (std::isnan(t)) return std::nullopt;
  return t;
}
// Order by |-lp - H|; up to and including the first id where s > p.
Ids Typical(const Logits& l, const Ids& kept, double p, int64_t min_keep);
// Given the step's draw u: when u < probability, every id with q >=
// threshold but the last of them in order K goes, if at least two.
Ids Xtc(const Logits& l, const Ids& kept, double u, double probability, double threshold,
        int64_t min_keep);

}  // namespace exactsample::scalar_ref
