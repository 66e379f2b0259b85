// The row split across threads (lib/row_threads.hpp) against the one-thread
// kernels, for 2 to 4 threads: ExpSumThreads' e values, Z and the running
// sums it leaves at each piece, and InverseCdfThreads' id for draws all
// along the row, exactly on partial sums, and in the fallback.
#include "lib/row_threads.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "scalar_ref/cdf.hpp"
#include "simd/cdf.hpp"
#include "simd/exp_sum.hpp"
#include "tests/walk_test_util.hpp"

namespace exactsample {
namespace {

using Rng = std::mt19937_64;

struct Split {
  std::vector<double> e;
  std::vector<double> prefix;
  RowSum sum;
};

Split SumInThreads(const test::Row& row, double shift, int threads) {
  Split s{std::vector<double>(row.l.size()), std::vector<double>(kMaxRowPieces + 1), {}};
  s.sum = ExpSumThreads({row.l.data()}, row.l.size(), row.divisor, shift, s.e.data(),
                        simd::ProcessExp().variant, threads, s.prefix.data());
  return s;
}

double Shift(const test::Row& row) {
  double m = -INFINITY;
  for (double v : row.l) m = std::max(m, v / row.divisor);
  return m;
}

std::vector<test::Row> Rows(Rng& rng) {
  std::vector<test::Row> rows;
  for (size_t n : {size_t{20000}, size_t{32768}, size_t{40001}, size_t{128256},
                   size_t{262144}, size_t{600000}}) {
    for (int k = 0; k < 3; ++k) {
      test::RowShape shape;
      shape.sigma = k == 2 ? 0.3 : 1.5;  // 0.3: a flat row, the mass everywhere
      shape.raised = k == 1 ? 0 : 20;
      shape.divisor = k == 1 ? 0.7 : 1.0;
      shape.masked = k == 1 ? 0.5 : 0.0;
      rows.push_back(test::MakeRow(rng, n, shape));
    }
  }
  return rows;
}

TEST(RowThreads, ExpSumMatchesOneThread) {
  Rng rng(3);
  for (const test::Row& row : Rows(rng)) {
    const double shift = Shift(row);
    const size_t n = row.l.size();
    std::vector<double> want_e(n);
    const double want = simd::ExpSum(row.l.data(), n, row.divisor, shift, want_e.data(),
                                     simd::ProcessExp().variant);
    for (int threads = 2; threads <= 4; ++threads) {
      const Split got = SumInThreads(row, shift, threads);
      ASSERT_EQ(test::Bits(got.sum.z), test::Bits(want)) << n << " threads " << threads;
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(test::Bits(got.e[i]), test::Bits(want_e[i]));
      // Rows under two teams' minimum stay on one thread.
      ASSERT_EQ(got.sum.prefixed, n >= 32768) << n;
      if (!got.sum.prefixed) continue;
      // prefix[p]: the running sum before piece p, the last one Z.
      const size_t piece = RowPieceLength(n);
      double run = 0.0;
      for (size_t i = 0; i <= n; ++i) {
        if (i % piece == 0 || i == n) {
          const size_t p = (i + piece - 1) / piece;
          ASSERT_EQ(test::Bits(got.prefix[p]), test::Bits(run)) << n << " at " << i;
        }
        if (i < n) run += want_e[i];
      }
    }
  }
}

// A row too short for a team, or one thread: the one-thread kernel, no prefix.
TEST(RowThreads, ShortRowsStayOnOneThread) {
  Rng rng(5);
  const test::Row row = test::MakeRow(rng, 30000, test::RowShape{});
  EXPECT_FALSE(SumInThreads(row, Shift(row), 4).sum.prefixed);
  const test::Row longer = test::MakeRow(rng, 40000, test::RowShape{});
  EXPECT_FALSE(SumInThreads(longer, Shift(longer), 1).sum.prefixed);
}

TEST(RowThreads, InverseCdfMatchesOneThread) {
  Rng rng(9);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  size_t draws = 0;
  for (const test::Row& row : Rows(rng)) {
    const size_t n = row.l.size();
    for (int threads = 2; threads <= 4; ++threads) {
      const Split s = SumInThreads(row, Shift(row), threads);
      // Draws spread over [0, 1), on partial sums of the twin's walk and
      // just below them, and past the final sum (the fallback).
      std::vector<double> u = {0.0, std::nextafter(1.0, 0.0)};
      for (int k = 0; k < 20; ++k) u.push_back(unit(rng));
      double c = 0.0;
      for (size_t i = 0; i < n; ++i) {
        c += s.e[i] / s.sum.z;
        if (rng() % (n / 8) == 0 && c < 1.0) {
          u.push_back(c);
          u.push_back(std::nextafter(c, 0.0));
        }
      }
      if (c < 1.0) u.push_back(c);
      for (double v : u) {
        const size_t want = scalar_ref::InverseCdf(s.e.data(), n, s.sum.z, v);
        ASSERT_EQ(InverseCdfThreads(s.e.data(), n, s.sum.z, v, threads,
                                    s.sum.prefixed ? s.prefix.data() : nullptr),
                  want)
            << n << " threads " << threads << " u " << v;
        ++draws;
      }
    }
  }
  EXPECT_GT(draws, 1000u);
}

}  // namespace
}  // namespace exactsample
