// simd::InverseCdf against scalar_ref::InverseCdf on every compiled and
// supported target: softmax rows with and without masked ids, draws near 0
// and 1, draws exactly on a partial sum and just below it, and the fallback
// where the rounded sum of q stays at or below u. Then the pieces a walk
// split across threads uses: CountQuotients, WalkCdf with counts and
// LastPositive against their twins.
#include "scalar_ref/cdf.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "simd/cdf.hpp"
#include "tests/walk_test_util.hpp"

namespace exactsample {
namespace {

using Rng = std::mt19937_64;

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
  for (int rep = 0; rep < 300; ++rep) {
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
          scalar_ref::InverseCdf(row.e.data(), row.e.size(), row.z, u));
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
    const size_t want = scalar_ref::InverseCdf(e.data(), e.size(), z, u);
    test::ForEachTarget([&](int64_t target) {
      EXPECT_EQ(simd::InverseCdf(e.data(), e.size(), z, u), want)
          << hwy::TargetName(target) << " u " << u;
    });
  }
}

// CountQuotients against its twin on every target: units (exact below 2^53,
// else both at least 2^53) and the tie flag, for guesses in the binade the
// walk would be in, around it, near kGridMin (units overflow), below it and
// zero (no grid), and huge (every term rounds to 0).
TEST(CountQuotientsTest, MatchesTwin) {
  Rng rng(7);
  struct Case {
    test::Row row;
    size_t begin, length;
    double guess;
  };
  std::vector<Case> cases;
  for (int rep = 0; rep < 200; ++rep) {
    test::RowShape shape;
    shape.sigma = std::exp(std::uniform_real_distribution<double>(-2.0, 3.0)(rng));
    shape.raised = rng() % 2 ? 20 : 0;
    shape.masked = rng() % 3 == 0 ? 0.5 : 0.0;
    shape.quantum = rng() % 4 == 0 ? 0.25 : 0.0;  // repeated q: ties on coarse grids
    const size_t n = 1 + rng() % 20000;
    test::Row row = test::MakeRow(rng, n, shape);
    const size_t begin = rng() % n;
    const size_t length = 1 + rng() % (n - begin);
    double c = 0.0;
    for (size_t i = 0; i < begin; ++i) c += row.e[i] / row.z;
    for (double guess : {c, c * 1.5, c / 3, std::nextafter(c, 0.0), 0.75, 0x1p-40,
                         0x1p-899, 0x1p-950, 0.0, 1e300}) {
      cases.push_back({row, begin, length, guess});
    }
  }
  // Rows whose quotients sit exactly on half units of a grid.
  for (int rep = 0; rep < 20; ++rep) {
    test::Row row;
    row.e.assign(100 + rng() % 900, 0.0);
    for (double& e : row.e) e = static_cast<double>(rng() % 4) * 0x1p-54;
    row.z = 1.0;
    cases.push_back({row, 0, row.e.size(), 0.5});  // u = 2^-53: 2^-54 is a tie
    cases.push_back({row, 0, row.e.size(), 0.25});
  }
  // Quotients within a few ulps of a half unit, where the kernel's
  // division-free estimate of q / u may round the other way: e near
  // (k + 1/2) u z for z that is not a power of two.
  for (int rep = 0; rep < 200; ++rep) {
    test::Row row;
    row.z = 1.0 + std::uniform_real_distribution<double>(0.0, 3.0)(rng);
    const double u = 0x1p-53;  // the grid of guess 0.5
    row.e.assign(64, 0.0);
    for (double& e : row.e) {
      const double half = (static_cast<double>(rng() % (1u << 20)) + 0.5) * u;
      e = half * row.z;
      for (int k = static_cast<int>(rng() % 7) - 3; k != 0; k += k > 0 ? -1 : 1) {
        e = std::nextafter(e, k > 0 ? INFINITY : 0.0);
      }
    }
    cases.push_back({row, 0, row.e.size(), 0.5});
  }
  size_t ties = 0;
  for (const Case& c : cases) {
    ties += scalar_ref::CountQuotients(c.row.e.data() + c.begin, c.length, c.row.z, c.guess).tie;
  }
  EXPECT_GT(ties, 10u);
  test::ForEachTarget([&](int64_t target) {
    for (size_t k = 0; k < cases.size(); ++k) {
      const Case& c = cases[k];
      const simd::GridCount want =
          scalar_ref::CountQuotients(c.row.e.data() + c.begin, c.length, c.row.z, c.guess);
      const simd::GridCount got =
          simd::CountQuotients(c.row.e.data() + c.begin, c.length, c.row.z, c.guess);
      ASSERT_EQ(test::Bits(got.grid), test::Bits(want.grid)) << hwy::TargetName(target) << k;
      if (want.units < 0x1p53) {
        ASSERT_EQ(test::Bits(got.units), test::Bits(want.units))
            << hwy::TargetName(target) << " case " << k << " guess " << c.guess;
        ASSERT_EQ(got.tie, want.tie) << hwy::TargetName(target) << " case " << k;
      } else {
        ASSERT_GE(got.units, 0x1p53) << hwy::TargetName(target) << " case " << k;
      }
    }
  });
}

// WalkCdf with counts taken ahead on guessed grids (right, wrong binade,
// none) equals the twin's walk from the same running sum: the same id and
// the same c, whatever the counts.
TEST(WalkCdfTest, CountsNeverChangeTheWalk) {
  Rng rng(11);
  struct Case {
    test::Row row;
    double c0, u;
    size_t piece;
    int guesses;  // 0: exact running sums, 1: perturbed, 2: off by binades
  };
  std::vector<Case> cases;
  for (int rep = 0; rep < 150; ++rep) {
    test::RowShape shape;
    shape.sigma = 1.0 + static_cast<double>(rng() % 3);
    shape.raised = rng() % 2 ? 20 : 0;
    shape.masked = rng() % 3 == 0 ? 0.3 : 0.0;
    const size_t n = 1 + rng() % 40000;
    test::Row row = rep % 5 == 0 ? FallbackRow(rng, n) : test::MakeRow(rng, n, shape);
    const double c0 = rng() % 3 == 0 ? 0.0 : std::uniform_real_distribution<double>(0, 0.5)(rng);
    std::vector<double> draws = DrawsFor(rng, row);
    for (int k = 0; k < 3; ++k) {
      const double u = c0 + draws[rng() % draws.size()] * (1 - c0);
      cases.push_back({row, c0, u, size_t{1} << (5 + rng() % 9), k});
    }
  }
  std::vector<size_t> want(cases.size());
  std::vector<double> want_c(cases.size());
  std::vector<std::vector<simd::GridCount>> counts(cases.size());
  size_t applied = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const size_t n = c.row.e.size();
    double s = c.c0;
    want[k] = scalar_ref::WalkCdf(c.row.e.data(), n, c.row.z, c.u, s);
    want_c[k] = s;
    // The guesses: the twin's running sum at each piece start, perturbed.
    double run = c.c0;
    for (size_t begin = 0; begin < n; begin += c.piece) {
      const size_t m = std::min(c.piece, n - begin);
      const double guess = c.guesses == 0   ? run
                           : c.guesses == 1 ? run * (1 + 1e-9 * static_cast<double>(rng() % 3))
                                            : run * (rng() % 2 ? 2.0 : 0.5);
      counts[k].push_back(scalar_ref::CountQuotients(c.row.e.data() + begin, m, c.row.z, guess));
      for (size_t i = begin; i < begin + m; ++i) run += c.row.e[i] / c.row.z;
    }
    applied += c.guesses == 0;
  }
  EXPECT_GT(applied, 100u);
  test::ForEachTarget([&](int64_t target) {
    for (size_t k = 0; k < cases.size(); ++k) {
      const Case& c = cases[k];
      double s = c.c0;
      const size_t got = simd::WalkCdf(c.row.e.data(), c.row.e.size(), c.row.z, c.u, s,
                                       c.piece, counts[k].data());
      ASSERT_EQ(got, want[k]) << hwy::TargetName(target) << " case " << k;
      ASSERT_EQ(test::Bits(s), test::Bits(want_c[k])) << hwy::TargetName(target) << " case " << k;
      double plain = c.c0;
      ASSERT_EQ(simd::WalkCdf(c.row.e.data(), c.row.e.size(), c.row.z, c.u, plain), want[k]);
      ASSERT_EQ(test::Bits(plain), test::Bits(want_c[k]));
    }
  });
}

TEST(LastPositiveTest, MatchesTwin) {
  std::vector<double> e(3000, 0.0);
  e[5] = 1.0;
  e[2990] = 0x1p-1074;  // q rounds to 0 for z > 2
  for (double z : {1.0, 1.5, 3.0}) {
    for (size_t n : {size_t{0}, size_t{5}, size_t{6}, size_t{2991}, size_t{3000}}) {
      const size_t want = scalar_ref::LastPositive(e.data(), n, z);
      test::ForEachTarget([&](int64_t target) {
        EXPECT_EQ(simd::LastPositive(e.data(), n, z), want)
            << hwy::TargetName(target) << " n " << n << " z " << z;
      });
    }
  }
}

}  // namespace
}  // namespace exactsample
