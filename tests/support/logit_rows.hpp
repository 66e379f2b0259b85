// Rows of penalised logits l (f64) for the max, top-k and filter tests: real
// looking rows and the adversarial ones (ties, sorted, masked, signed zeros,
// neighbours that one division makes equal).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/support/test_util.hpp"

namespace exactsample::test {

enum class Row {
  kNormal,     // f32 N(0, 1.5^2), a few ids raised by 8..14
  kFewValues,  // integers 0..7: ties everywhere, also at the k-th place
  kAllEqual,   // one value
  kAscending,  // every id beats all before it
  kDescending,
  kManyNegInf,     // 90% -inf
  kLeadingNegInf,  // the first half -inf
  kOneFinite,      // every id -inf but one
  kSignedZeros,    // -0.0 and +0.0, some negatives
  kNeighbours,     // adjacent doubles in [1.5, 2): l / 1.5 makes pairs equal
};

inline constexpr Row kAllRows[] = {
    Row::kNormal,      Row::kFewValues,  Row::kAllEqual,      Row::kAscending,
    Row::kDescending,  Row::kManyNegInf, Row::kLeadingNegInf, Row::kOneFinite,
    Row::kSignedZeros, Row::kNeighbours};

inline std::string RowName(Row row) {
  static const char* const kNames[] = {
      "normal",       "few_values",   "all_equal",       "ascending",
      "descending",   "many_neg_inf", "leading_neg_inf", "one_finite",
      "signed_zeros", "neighbours"};
  return kNames[static_cast<int>(row)];
}

// The standard row: what a model's logits look like.
inline std::vector<float> NormalRowF32(size_t n, test::SplitMix& rng) {
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<float> x(n);
  for (float& v : x) v = normal(rng);
  std::uniform_int_distribution<size_t> id(0, n - 1);
  std::uniform_real_distribution<float> raise(8.0f, 14.0f);
  for (int j = 0; j < 20; ++j) x[id(rng)] += raise(rng);
  return x;
}

inline std::vector<double> MakeRow(Row row, size_t n, test::SplitMix& rng) {
  std::vector<double> l(n);
  std::uniform_int_distribution<size_t> id(0, n - 1);
  switch (row) {
    case Row::kNormal: {
      const std::vector<float> x = NormalRowF32(n, rng);
      for (size_t i = 0; i < n; ++i) l[i] = x[i];
      break;
    }
    case Row::kFewValues:
      for (double& v : l) v = static_cast<double>(rng() % 8);
      break;
    case Row::kAllEqual:
      for (double& v : l) v = -2.25;
      break;
    case Row::kAscending:
      for (size_t i = 0; i < n; ++i) l[i] = 0.001 * static_cast<double>(i);
      break;
    case Row::kDescending:
      for (size_t i = 0; i < n; ++i) l[i] = -0.001 * static_cast<double>(i);
      break;
    case Row::kManyNegInf: {
      std::normal_distribution<double> normal(0.0, 1.5);
      for (double& v : l) v = rng() % 10 == 0 ? normal(rng) : -INFINITY;
      break;
    }
    case Row::kLeadingNegInf: {
      std::normal_distribution<double> normal(0.0, 1.5);
      for (size_t i = 0; i < n; ++i) l[i] = i < n / 2 ? -INFINITY : normal(rng);
      break;
    }
    case Row::kOneFinite:
      for (double& v : l) v = -INFINITY;
      l[id(rng)] = 0.5;
      break;
    case Row::kSignedZeros:
      for (double& v : l) {
        const int r = static_cast<int>(rng() % 3);
        v = r == 0 ? -0.0 : r == 1 ? 0.0 : -1.0;
      }
      break;
    case Row::kNeighbours:
      // The 64 doubles from 1.75 up, ids in random order.
      for (double& v : l) {
        v = std::bit_cast<double>(std::bit_cast<uint64_t>(1.75) + rng() % 64);
      }
      break;
  }
  return l;
}

}  // namespace exactsample::test
