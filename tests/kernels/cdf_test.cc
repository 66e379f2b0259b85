// simd::InverseCdf against scalar_ref::InverseCdf on every compiled and
// supported target: softmax rows with and without masked ids, draws near 0
// and 1, draws exactly on a partial sum and just below it, and the fallback
// where the rounded sum of q stays at or below u.
#include "scalar_ref/twins/cdf.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "simd/cdf.hpp"
#include "tests/support/test_util.hpp"
#include "tests/support/walk_test_util.hpp"

namespace exactsample {
namespace {

using Rng = test::SplitMix;

struct Draw {
  const test::Row* row;
  double u;
};

// Draws that probe a row: uniform ones, the ends of [0, 1), the partial sums
// c_k of the twin's walk (u == c_k must pass it, u just below must stop at
// k), and the final c (u >= c takes the fallback).
std::vector<double> DrawsFor(Rng& rng, const test::Row& row) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> u = {
      0.0,           0x1p-1074, 0x1p-60,   std::nextafter(1.0, 0.0),
      1.0 - 0x1p-40, unit(rng), unit(rng), unit(rng)};
  double c = 0.0;
  std::vector<double> partial;
  for (double e : row.e) {
    c += e / row.z;
    if (e > 0) partial.push_back(c);
  }
  for (int k = 0; k < 6 && !partial.empty(); ++k) {
    const double ck = partial[rng() % partial.size()];
    if (ck < 1.0) u.push_back(ck);
    u.push_back(std::nextafter(ck, 0.0));
  }
  if (c < 1.0) u.push_back(c);  // the fallback
  return u;
}

// Rows whose q sum to below 1 after rounding, so that draws close to 1 take
// the fallback: z is raised by ulps until the sum of q rounds below 1 (z is
// then a little above the sum of e, which only shifts q). Some end with ids
// whose q underflows to 0 (e = 2^-1074, z > 2), which the fallback skips.
test::Row FallbackRow(Rng& rng, size_t n) {
  test::RowShape shape;
  shape.sigma = 1.0 + static_cast<double>(rng() % 4);
  shape.masked = rng() % 2 ? 0.5 : 0.0;
  test::Row row = test::MakeRow(rng, n, shape);
  if (rng() % 2 && n > 3) {
    for (size_t i = n - 1 - rng() % 3; i < n; ++i) row.e[i] = 0x1p-1074;
  }
  for (;;) {
    double c = 0.0;
    for (double e : row.e) c += e / row.z;
    if (c < 1.0) return row;
    row.z = std::nextafter(row.z, INFINITY);
  }
}

TEST(InverseCdfTest, MatchesTwin) {
  Rng rng(99);
  std::vector<test::Row> rows;
  const size_t lengths[] = {1,   2,    3,    7,      16,    63,
                            100, 1000, 4097, 128256, 262144};
  for (int rep = 0; rep < static_cast<int>(test::Share(300)); ++rep) {
    for (size_t n : lengths) {
      if (n > 5000 && rep % 30 != 0) continue;
      test::RowShape shape;
      shape.sigma =
          std::exp(std::uniform_real_distribution<double>(-2.0, 3.0)(rng));
      shape.raised = rng() % 3 ? 20 : 0;
      shape.divisor = rng() % 2 ? 1.0 : 0.8;
      shape.masked = rng() % 3 == 0 ? 0.99 : (rng() % 2 ? 0.3 : 0.0);
      rows.push_back(test::MakeRow(rng, n, shape));
      rows.push_back(FallbackRow(rng, n));
    }
  }
  std::vector<Draw> draws;
  std::vector<size_t> want;
  for (const test::Row& row : rows) {
    for (double u : DrawsFor(rng, row)) {
      draws.push_back({&row, u});
      want.push_back(
          twins::InverseCdf(row.e.data(), row.e.size(), row.z, u));
    }
  }
  size_t fallbacks = 0;
  for (size_t k = 0; k < draws.size(); ++k) {
    const test::Row& row = *draws[k].row;
    double c = 0.0;
    for (double e : row.e) c += e / row.z;
    fallbacks += draws[k].u >= c;
  }
  EXPECT_GT(fallbacks, 100u);  // the fallback is exercised
  test::ForEachTarget([&](int64_t target) {
    for (size_t k = 0; k < draws.size(); ++k) {
      const test::Row& row = *draws[k].row;
      ASSERT_EQ(simd::InverseCdf(row.e.data(), row.e.size(), row.z, draws[k].u),
                want[k])
          << hwy::TargetName(target) << " draw " << k << " n " << row.e.size()
          << " u " << draws[k].u;
    }
  });
}

// Masked zeros everywhere but a few ids, and rows of one id.
TEST(InverseCdfTest, SparseRows) {
  std::vector<double> e(5000, 0.0);
  e[17] = 1.0;
  e[4000] = 0.25;
  e[4999] = 0x1p-1074;
  const double z = 1.25;  // q[4999] rounds to 0: never returned
  for (double u : {0.0, 0.5, 0.8, 0.79999999999999993, 0.99999999999999989}) {
    const size_t want = twins::InverseCdf(e.data(), e.size(), z, u);
    test::ForEachTarget([&](int64_t target) {
      EXPECT_EQ(simd::InverseCdf(e.data(), e.size(), z, u), want)
          << hwy::TargetName(target) << " u " << u;
    });
  }
}

}  // namespace
}  // namespace exactsample
