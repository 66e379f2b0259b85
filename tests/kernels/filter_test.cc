// simd/filter.hpp against its scalar twins, bit for bit (e and the count of
// ids left; top-n-sigma's threshold), on every compiled and supported target.
#include "scalar_ref/twins/filter.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "scalar_ref/twins/topk.hpp"
#include "simd/filter.hpp"
#include "tests/support/logit_rows.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample::test {
namespace {

// Every short length (each tail of every vector width), then longer rows.
// The kernels stream the row lane by lane, with no blocks: 262144, the
// longest vocabulary, shows what any other long multiple of the widest
// vector (128256) would.
std::vector<size_t> Sizes() {
  std::vector<size_t> sizes;
  for (size_t n = 1; n <= 70; ++n) sizes.push_back(n);
  for (size_t n : {1000, 4099, 262144}) sizes.push_back(n);
  return sizes;
}

// e = exp(t - M) over a random kept set (about 3 ids in 4), 0 elsewhere.
std::vector<double> MakeE(const std::vector<double>& l, double divisor,
                          test::SplitMix& rng) {
  double m = -INFINITY;
  for (double v : l) m = std::max(m, v / divisor);
  std::vector<double> e(l.size(), 0.0);
  for (size_t i = 0; i < l.size(); ++i) {
    if (rng() % 4 != 0) e[i] = std::exp(l[i] / divisor - m);
  }
  return e;
}

// Runs `kernel` (simd) and `twin` on copies of e on every target; both must
// leave the same bits and return the same count.
template <class Kernel, class Twin>
void CheckInPlace(const std::vector<double>& e, Kernel kernel, Twin twin,
                  const std::string& what) {
  std::vector<double> want = e;
  const size_t want_left = twin(want.data());
  test::ForEachTarget([&](int64_t target) {
    std::vector<double> got = e;
    const size_t left = kernel(got.data());
    ASSERT_EQ(left, want_left) << what << " on " << hwy::TargetName(target);
    ASSERT_EQ(0,
              std::memcmp(got.data(), want.data(), e.size() * sizeof(double)))
        << what << " on " << hwy::TargetName(target);
  });
}

void CheckZeroAfter(const std::vector<double>& l, double divisor,
                    const std::vector<double>& e, double t_cut, int32_t id_cut,
                    const std::string& what) {
  const size_t n = l.size();
  CheckInPlace(
      e,
      [&](double* p) {
        return simd::ZeroAfter(l.data(), divisor, p, n, t_cut, id_cut);
      },
      [&](double* p) {
        return twins::ZeroAfter(l.data(), divisor, p, n, t_cut, id_cut);
      },
      what + ", cut (" + std::to_string(t_cut) + ", " + std::to_string(id_cut) +
          ")");
}

TEST(Filter, ZeroAfterMatchesTwin) {
  test::SplitMix rng(21);
  for (size_t n : Sizes()) {
    for (Row row : kAllRows) {
      const std::vector<double> l = MakeRow(row, n, rng);
      for (double divisor : {1.0, 0.8, 1.5, 1e308}) {
        const std::vector<double> e = MakeE(l, divisor, rng);
        const std::string what = RowName(row) + ", n = " + std::to_string(n) +
                                 ", divisor = " + std::to_string(divisor);
        // Cuts at ids of the row, between values, and beyond either end.
        const int32_t last = static_cast<int32_t>(n - 1);
        const int32_t some = static_cast<int32_t>(rng() % n);
        for (int32_t c : {0, last, some}) {
          const double t = scalar_ref::Tempered(l[c], divisor);
          CheckZeroAfter(l, divisor, e, t, c, what);
          CheckZeroAfter(l, divisor, e, std::nextafter(t, INFINITY), c, what);
          CheckZeroAfter(l, divisor, e, std::nextafter(t, -INFINITY), c, what);
        }
        CheckZeroAfter(l, divisor, e, INFINITY, last, what);
        CheckZeroAfter(l, divisor, e, -INFINITY, some, what);
        CheckZeroAfter(l, divisor, e, -INFINITY, last, what);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The twin at a top-k boundary leaves exactly the first k ids that had e > 0.
TEST(Filter, ZeroAfterTwinKeepsTheTopK) {
  test::SplitMix rng(22);
  for (Row row : kAllRows) {
    for (double divisor : {1.0, 0.8, 1.5}) {
      const std::vector<double> l = MakeRow(row, 5000, rng);
      std::vector<double> e = MakeE(l, divisor, rng);
      std::vector<int32_t> top(40);
      const size_t k =
          twins::TopK(l.data(), divisor, l.size(), 40, top.data());
      std::vector<bool> in_top(l.size(), false);
      for (size_t j = 0; j < k; ++j) in_top[top[j]] = true;
      std::vector<double> want = e;
      for (size_t i = 0; i < l.size(); ++i) {
        if (!in_top[i]) want[i] = 0.0;
      }
      const int32_t id_k = top[k - 1];
      twins::ZeroAfter(l.data(), divisor, e.data(), l.size(),
                            scalar_ref::Tempered(l[id_k], divisor), id_k);
      EXPECT_EQ(e, want) << RowName(row) << ", divisor = " << divisor;
    }
  }
}

// Values of e whose q = e / z lands on the threshold, and their neighbours.
std::vector<double> NearThreshold(double z, double threshold) {
  std::vector<double> near;
  double c = threshold * z;
  for (int j = 0; j < 4; ++j) c = std::nextafter(c, 0.0);
  for (int j = 0; j < 9; ++j, c = std::nextafter(c, 2.0)) {
    if (c <= 1.0) near.push_back(c);
  }
  return near;
}

TEST(Filter, MinPMatchesTwin) {
  test::SplitMix rng(23);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (size_t n : Sizes()) {
    for (double m : {1e-300, 0.001, 0.05, 0.1, 0.5, 0.999, 1.0}) {
      std::vector<double> e(n);
      for (double& v : e) v = rng() % 5 == 0 ? 0.0 : std::pow(unit(rng), 8.0);
      e[rng() % n] = 1.0;  // the maximum, e = exp(0)
      double z = 0.0;
      for (double v : e) z += v;
      const double threshold = m * (1.0 / z);
      // Values whose e / z lands on the threshold or next to it (z is an
      // input: it need not be the sum of the new row).
      const std::vector<double> near = NearThreshold(z, threshold);
      for (size_t j = 0; j < near.size() && j < n / 2; ++j) {
        e[rng() % n] = near[j];
      }
      CheckInPlace(
          e, [&](double* p) { return simd::MinPFilter(p, n, z, threshold); },
          [&](double* p) { return twins::MinPFilter(p, n, z, threshold); },
          "n = " + std::to_string(n) + ", m = " + std::to_string(m));
      if (HasFatalFailure()) return;
    }
  }
}

// Rows for top-n-sigma's sums, each aimed at one part of the signed grid
// walk: a mean near 0 (the running sum crosses 0 and many binades), a model's
// offset, ties on the grid of a power of two, sums that climb and fall back
// through a power of two, and sums that overflow.
std::vector<std::vector<double>> SigmaRows(size_t n, test::SplitMix& rng) {
  std::vector<std::vector<double>> rows;
  for (Row row : kAllRows) rows.push_back(MakeRow(row, n, rng));
  std::normal_distribution<double> normal(0.0, 1.5);
  std::vector<double> offset(n), ties(n), swing(n), huge(n), mixed(n);
  for (size_t i = 0; i < n; ++i) {
    offset[i] = static_cast<float>(normal(rng) - 9.0);
    // 2^20 first, then +-2^-33: odd multiples of half the ulp of 2^20..2^21.
    ties[i] = i == 0 ? 0x1p20 : (rng() % 2 ? 0x1p-33 : -0x1p-33) * static_cast<double>(rng() % 7);
    swing[i] = (i / 64) % 2 ? -1.0 - 0x1p-40 : 1.0 + 0x1p-40;
    huge[i] =
        (rng() % 2 ? 1.0 : -1.0) * 0x1.fffffffffffffp1023 / static_cast<double>(1 + rng() % 4);
    mixed[i] =
        rng() % 5 == 0 ? -INFINITY : normal(rng) * std::exp2(static_cast<double>(rng() % 80) - 40);
  }
  swing[0] = 0x1p10;
  // 2^10 + 3u (u = 2^-42, the ulp there), then -3.3u: the running sum lands
  // within half a unit of 2^10 from above and rounds to the finer grid
  // below it; later terms are whole units.
  std::vector<double> edge(n, 0.0);
  edge[0] = 0x1p10 + 3 * 0x1p-42;
  if (n > 1) edge[1] = -3.3 * 0x1p-42;
  for (size_t i = 2; i < n; ++i) edge[i] = static_cast<double>(rng() % 3) * 0x1p-42;
  for (auto* r : {&offset, &ties, &swing, &huge, &mixed, &edge}) rows.push_back(std::move(*r));
  return rows;
}

TEST(Filter, SigmaSumsMatchTwin) {
  test::SplitMix rng(24);
  for (size_t n : Sizes()) {
    const std::vector<std::vector<double>> rows = SigmaRows(n, rng);
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::vector<double>& l = rows[r];
      // The row as f64, and rounded to f32 (large ones overflow to +-inf).
      std::vector<float> x(n);
      for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(l[i]);
      // The long row, for its many blocks, in two of the five forms.
      std::vector<std::pair<double, bool>> forms = {{1.0, false}, {0.8, true}};
      if (n <= 4099) forms.insert(forms.end(), {{0.8, false}, {1.5, false}, {1.0, true}});
      for (const auto& [divisor, f32] : forms) {
        const auto sums = [&](auto kernel) { return f32 ? kernel(x.data()) : kernel(l.data()); };
        const scalar_ref::SigmaSums want =
            sums([&](auto row) { return twins::SigmaSumsOfRow(row, divisor, n); });
        test::ForEachTarget([&](int64_t target) {
          const scalar_ref::SigmaSums got =
              sums([&](auto row) { return simd::SigmaSumsOfRow(row, divisor, n); });
          const std::string what =
              "row " + std::to_string(r) + (f32 ? " (f32)" : "") + ", n = " + std::to_string(n) +
              ", divisor = " + std::to_string(divisor) + " on " + hwy::TargetName(target);
          ASSERT_EQ(got.count, want.count) << what;
          ASSERT_EQ(Bits(got.max), Bits(want.max)) << what;
          ASSERT_EQ(Bits(got.sum), Bits(want.sum)) << what << ": " << got.sum << " " << want.sum;
          ASSERT_EQ(Bits(got.squares), Bits(want.squares)) << what;
        });
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace exactsample::test
