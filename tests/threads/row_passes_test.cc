// The row split across threads (lib/threads/row_passes.hpp, the library pool)
// against the one-thread kernel, for 1 to 4 threads: ExpSumPass's e values, Z and the running sums
// it leaves at each piece, with the e values kept and not.
#include "lib/threads/row_passes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "simd/exp_sum.hpp"
#include "tests/support/walk_test_util.hpp"

namespace exactsample {
namespace {

using Rng = test::SplitMix;

struct Split {
  std::vector<double> e;
  std::vector<double> prefix;
  ExpView result;
};

Split SumInThreads(const test::Row& row, double shift, int threads, bool keep_e) {
  Split s{std::vector<double>(row.l.size()), std::vector<double>(RowPieces::kMaxCount + 1),
          {}};
  RowJob job;
  std::vector<double> recomputed_e(row.l.size());
  RowThreads split{threads, nullptr, &job, recomputed_e.data()};
  split.keep_e = keep_e;
  s.result = ExpSumPass({row.l.data()}, row.l.size(), row.divisor, shift, s.e.data(),
                        simd::ProcessExp().variant, split, s.prefix);
  job.WaitIdle();  // a helper still inside writes only pieces the caller took over
  if (s.result.scattered != nullptr) {
    const double* e = s.result.scattered->Gather();
    s.e.assign(e, e + row.l.size());
  }
  return s;
}

double Shift(const test::Row& row) {
  double m = -INFINITY;
  for (double v : row.l) m = std::max(m, v / row.divisor);
  return m;
}

std::vector<test::Row> Rows(Rng& rng) {
  std::vector<test::Row> rows;
  for (size_t n : {size_t{4097}, size_t{20000}, size_t{32768}, size_t{40001},
                   size_t{128256}, size_t{262144}, size_t{600000}}) {
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

TEST(RowPasses, ExpSumMatchesOneThread) {
  Rng rng(3);
  for (const test::Row& row : Rows(rng)) {
    const double shift = Shift(row);
    const size_t n = row.l.size();
    std::vector<double> want_e(n);
    const double want = simd::ExpSum(row.l.data(), n, row.divisor, shift, want_e.data(),
                                     simd::ProcessExp().variant);
    for (int threads = 1; threads <= 4; ++threads) {
      for (bool keep_e : {true, false}) {
        if (!keep_e && threads != 2) continue;  // one split shows the in-order pieces
        const Split got = SumInThreads(row, shift, threads, keep_e);
        ASSERT_EQ(test::Bits(got.result.z), test::Bits(want)) << n << " threads " << threads;
        ASSERT_EQ(got.result.sums.at.data(), got.prefix.data());
        if (keep_e) {
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(test::Bits(got.e[i]), test::Bits(want_e[i]));
        } else {
          ASSERT_EQ(got.result.scattered, nullptr);  // nothing the caller would read
        }
        // prefix[p]: the running sum before piece p, the last one Z.
        const size_t piece = got.result.sums.pieces.length;
        ASSERT_EQ(got.result.sums.at.size(), (n + piece - 1) / piece + 1);
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
}

}  // namespace
}  // namespace exactsample
