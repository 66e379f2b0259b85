// Softmax rows shaped like the engine's, shared by the exact-sum,
// inverse-CDF, nucleus and row-pass tests.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/support/test_util.hpp"

namespace exactsample::test {

// One row as the engine holds it before steps 7 and 11: l widened from f32,
// t = l / divisor, e = exp(t - M) over the kept ids (0 elsewhere, where l is
// -inf) and z their sum in ascending id order.
struct Row {
  std::vector<double> l;
  double divisor = 1.0;
  std::vector<double> e;
  double z = 0.0;
};

// Fills e and z from l and divisor.
inline void Softmax(Row& row) {
  const size_t n = row.l.size();
  double m = -INFINITY;
  for (double v : row.l) m = std::max(m, v / row.divisor);
  row.e.assign(n, 0.0);
  row.z = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (row.l[i] == -INFINITY) continue;
    row.e[i] = std::exp(row.l[i] / row.divisor - m);
    row.z += row.e[i];
  }
}

struct RowShape {
  double sigma = 1.5;  // logits ~ f32(N(0, sigma^2))
  size_t raised = 0;   // ids raised by U(raise_lo, raise_hi)
  double raise_lo = 8, raise_hi = 14;
  double divisor = 1.0;  // the temperature
  double masked = 0.0;   // fraction of ids with l = -inf
  double quantum = 0.0;  // > 0: logits rounded to multiples (ties)
};

template <class Rng>
Row MakeRow(Rng& rng, size_t n, const RowShape& shape) {
  std::normal_distribution<double> normal(0.0, shape.sigma);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Row row;
  row.divisor = shape.divisor;
  row.l.resize(n);
  for (double& v : row.l) {
    double x = normal(rng);
    if (shape.quantum > 0) x = std::round(x / shape.quantum) * shape.quantum;
    v = static_cast<float>(x);
  }
  for (size_t k = 0; k < shape.raised && n > 0; ++k) {
    const double raise =
        shape.raise_lo + (shape.raise_hi - shape.raise_lo) * unit(rng);
    double& v = row.l[rng() % n];
    v = static_cast<float>(v + raise);
  }
  if (shape.masked > 0) {
    size_t kept = 0;
    for (double& v : row.l) {
      if (unit(rng) < shape.masked) v = -INFINITY;
      kept += v != -INFINITY;
    }
    if (kept == 0 && n > 0) row.l[rng() % n] = 0.0;  // K is never empty
  }
  Softmax(row);
  return row;
}

}  // namespace exactsample::test
