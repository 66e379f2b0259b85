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
// top-n-sigma's threshold max - n * sigma over the l that `each(f)` hands
// to f, K's in ascending id order (it is called twice); none when it is NaN
// (only sums of logits near the f64 range), and then the step keeps K.
// A template, so that the fast engine walks its own row with the same ops.
template <typename Each>
std::optional<double> SigmaThreshold(Each each, double n) {
  double max = -INFINITY;
  double sum = 0.0;
  size_t count = 0;
  each([&](double x) {
    max = std::max(max, x);
    sum += x;
    ++count;
  });
  const double c = static_cast<double>(count);
  const double mean = sum / c;
  double squares = 0.0;
  each([&](double x) { squares += (x - mean) * (x - mean); });
  const double t = max - n * std::sqrt(squares / c);
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
